/*
 * mathlib_dd.h - double-double arithmetic for cubevm's math library
 * (internal to vm/mathlib*.c).
 *
 * A cvm_dd is an unevaluated sum hi + lo with |lo| <= ulp(hi)/2, about 106
 * significant bits. The math library evaluates each function's core in
 * this precision and rounds once at the end, which is what keeps the
 * results within their stated ULP bounds without hand-tuned polynomials.
 * Exact products come from fma (an exact IEEE operation in every libm).
 */
#ifndef CVM_MATHLIB_DD_H
#define CVM_MATHLIB_DD_H

#include <math.h>

typedef struct cvm_dd {
    double hi, lo;
} cvm_dd;

static inline cvm_dd dd_make(double hi, double lo)
{
    cvm_dd r = {hi, lo};
    return r;
}

/* a + b exactly, for |a| >= |b| or a == 0. */
static inline cvm_dd dd_fast_two_sum(double a, double b)
{
    double s = a + b;
    return dd_make(s, b - (s - a));
}

/* a + b exactly (Knuth's TwoSum). */
static inline cvm_dd dd_two_sum(double a, double b)
{
    double s = a + b, bb = s - a;
    return dd_make(s, (a - (s - bb)) + (b - bb));
}

/* a * b exactly (barring underflow). */
static inline cvm_dd dd_two_prod(double a, double b)
{
    double p = a * b;
    return dd_make(p, fma(a, b, -p));
}

static inline cvm_dd dd_add(cvm_dd a, cvm_dd b)
{
    cvm_dd s = dd_two_sum(a.hi, b.hi), t = dd_two_sum(a.lo, b.lo);
    s.lo += t.hi;
    s = dd_fast_two_sum(s.hi, s.lo);
    s.lo += t.lo;
    return dd_fast_two_sum(s.hi, s.lo);
}

static inline cvm_dd dd_add_d(cvm_dd a, double b)
{
    cvm_dd s = dd_two_sum(a.hi, b);
    s.lo += a.lo;
    return dd_fast_two_sum(s.hi, s.lo);
}

static inline cvm_dd dd_neg(cvm_dd a)
{
    return dd_make(-a.hi, -a.lo);
}

static inline cvm_dd dd_sub(cvm_dd a, cvm_dd b)
{
    return dd_add(a, dd_neg(b));
}

static inline cvm_dd dd_mul(cvm_dd a, cvm_dd b)
{
    cvm_dd p = dd_two_prod(a.hi, b.hi);
    p.lo += a.hi * b.lo + a.lo * b.hi;
    return dd_fast_two_sum(p.hi, p.lo);
}

static inline cvm_dd dd_mul_d(cvm_dd a, double b)
{
    cvm_dd p = dd_two_prod(a.hi, b);
    p.lo += a.lo * b;
    return dd_fast_two_sum(p.hi, p.lo);
}

/* a * 2^k for small |k| where no part under- or overflows. */
static inline cvm_dd dd_scale(cvm_dd a, int k)
{
    return dd_make(ldexp(a.hi, k), ldexp(a.lo, k));
}

static inline cvm_dd dd_div(cvm_dd a, cvm_dd b)
{
    double q1 = a.hi / b.hi;
    cvm_dd r = dd_sub(a, dd_mul_d(b, q1));
    double q2 = r.hi / b.hi;
    r = dd_sub(r, dd_mul_d(b, q2));
    return dd_add_d(dd_fast_two_sum(q1, q2), r.hi / b.hi);
}

/* sqrt of a positive dd (one Newton step from the double root). */
static inline cvm_dd dd_sqrt(cvm_dd a)
{
    double s = sqrt(a.hi);
    cvm_dd r = dd_sub(a, dd_two_prod(s, s));
    return dd_fast_two_sum(s, r.hi / (2 * s));
}

/* The double nearest to a (hi + lo in one rounding). */
static inline double dd_round(cvm_dd a)
{
    return a.hi + a.lo;
}

#endif
