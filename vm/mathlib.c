/*
 * mathlib.c - cubevm's exponential, logarithmic, power, hyperbolic, error
 * and root functions, plus the exact helpers (fmod, round, copysign) and
 * every f32 wrapper. Trigonometry lives in mathlib_trig.c.
 *
 * Method: each function reduces its argument exactly (or into a
 * double-double), evaluates a Taylor series whose leading terms are kept
 * in double-double, and rounds once. The series are plain Taylor series on
 * small intervals, so every coefficient is a simple rational and the error
 * analysis is short; the measured bounds are in docs/numerics.md.
 */
#include "mathlib.h"

#include <float.h>
#include <stdint.h>
#include <string.h>

#include "mathlib_dd.h"
#include "numerics.h"

static const cvm_dd LN2 = {0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56};
static const cvm_dd LOG2E = {0x1.71547652b82fep+0, 0x1.777d0ffda0d24p-56};
static const cvm_dd LOG10E = {0x1.bcb7b1526e50ep-2, 0x1.95355baaafad3p-57};
static const cvm_dd LOG10_2 = {0x1.34413509f79ffp-2, -0x1.9dc1da994fd21p-59};
static const cvm_dd TWO_THIRDS = {0x1.5555555555555p-1, 0x1.5555555555555p-55};
static const cvm_dd TWO_FIFTHS = {0x1.999999999999ap-2, -0x1.999999999999ap-56};
static const cvm_dd ONE_SIXTH = {0x1.5555555555555p-3, 0x1.5555555555555p-57};
static const cvm_dd INV_120 = {0x1.1111111111111p-7, 0x1.1111111111111p-63};
static const cvm_dd TWO_OVER_SQRTPI = {0x1.20dd750429b6dp+0, 0x1.1ae3a914fed80p-56};
static const cvm_dd INV_SQRTPI = {0x1.20dd750429b6dp-1, 0x1.1ae3a914fed80p-57};

/* The exponent e of a finite nonzero x with |x| in [2^e, 2^(e+1)). */
static int exponent_of(double x)
{
    int e;
    frexp(x, &e);
    return e - 1;
}

/*
 * (y.hi + y.lo) * 2^k rounded once to a double, also when the result is
 * subnormal (where rounding y first and scaling after would round twice).
 */
static double scale_round(cvm_dd y, int k)
{
    double s = dd_round(y);
    if (s == 0 || s != s || exponent_of(s) + k >= -1022)
        return ldexp(s, k);
    if (k < -1200)
        return 0.0 * s;
    /* fixed point in units of 2^-1074: round the dd to an integer */
    double th = ldexp(y.hi, k + 1074), tl = ldexp(y.lo, k + 1074);
    double n = rint(th), f = th - n;
    if (f + tl > 0.5 || (f == 0.5 && tl > 0))
        n += 1;
    else if (f + tl < -0.5 || (f == -0.5 && tl < 0))
        n -= 1;
    return ldexp(n, -1074);
}

/* ---------------------------------------------------------------------
 * exponential core
 * ------------------------------------------------------------------- */

/* x = k*ln2 + r with |r| <= ~ln2/2, r as a double-double. |x.hi| < 2^20. */
static cvm_dd exp_reduce(cvm_dd x, int *k)
{
    double kd = rint(x.hi * LOG2E.hi);
    *k = (int)kd;
    cvm_dd r = dd_add(x, dd_neg(dd_two_prod(kd, LN2.hi)));
    return dd_add_d(r, -kd * LN2.lo);
}

/* e^r - 1 for |r| <= 0.36: r + r^2 (1/2 + r (1/6 + r (1/24 + r (1/120 + r q)))),
 * the brackets in double-double, q = 1/720 + r/5040 + ... in double. */
static cvm_dd expm1_small(cvm_dd r)
{
    static const double inv_fact[] = {
        1.0 / 720, 1.0 / 5040, 1.0 / 40320, 1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800,
        1.0 / 479001600, 1.0 / 6227020800.0, 1.0 / 87178291200.0, 1.0 / 1307674368000.0,
        1.0 / 20922789888000.0,
    };
    double x = r.hi, q = inv_fact[10];
    for (int i = 9; i >= 0; i--)
        q = q * x + inv_fact[i];
    cvm_dd b = dd_add_d(INV_120, x * q);
    b = dd_add(dd_make(ONE_SIXTH.hi / 4, ONE_SIXTH.lo / 4), dd_mul(r, b));
    b = dd_add(ONE_SIXTH, dd_mul(r, b));
    b = dd_add_d(dd_mul(r, b), 0.5);
    return dd_add(r, dd_mul(dd_mul(r, r), b));
}

/* e^x = y * 2^k with y in about [0.7, 1.42]. */
static cvm_dd exp_core(cvm_dd x, int *k)
{
    cvm_dd m = expm1_small(exp_reduce(x, k));
    return dd_add_d(m, 1.0);
}

/* e^x - 1 as a double-double for |x| <= 700. */
static cvm_dd expm1_dd(double x)
{
    int k;
    cvm_dd m = expm1_small(exp_reduce(dd_make(x, 0), &k));
    if (k == 0)
        return m;
    return dd_add(dd_scale(m, k), dd_two_sum(ldexp(1.0, k), -1.0));
}

double cvm_m_exp(double x)
{
    if (x != x)
        return x + x;
    if (x > 710)
        return INFINITY;
    if (x < -746)
        return 0.0;
    int k;
    cvm_dd y = exp_core(dd_make(x, 0), &k);
    return scale_round(y, k);
}

double cvm_m_exp2(double x)
{
    if (x != x)
        return x + x;
    if (x >= 1024)
        return INFINITY;
    if (x < -1080)
        return 0.0;
    double kd = rint(x), r = x - kd; /* exact */
    int k2;
    cvm_dd t = dd_mul_d(LN2, r);
    cvm_dd y = exp_core(t, &k2);
    return scale_round(y, (int)kd + k2);
}

double cvm_m_expm1(double x)
{
    if (x != x)
        return x + x;
    if (fabs(x) < 0x1p-54)
        return x;
    if (x > 700)
        return cvm_m_exp(x);
    if (x < -40)
        return -1.0;
    return dd_round(expm1_dd(x));
}

/* ---------------------------------------------------------------------
 * logarithm core
 * ------------------------------------------------------------------- */

/* For finite x > 0: x = 2^k * m with m in [sqrt(1/2), sqrt(2)); returns log(m). */
static cvm_dd log_core(double x, int *k)
{
    int e;
    double m = frexp(x, &e); /* m in [0.5, 1) */
    if (m < 0.70710678118654752) {
        m *= 2;
        e -= 1;
    }
    *k = e;
    /* log(m) = 2 atanh(s), s = (m-1)/(m+1); m - 1 is exact (Sterbenz) */
    double f = m - 1;
    cvm_dd d = dd_two_sum(1.0, m);
    double sh = f / d.hi;
    double sl = (fma(-sh, d.hi, f) - sh * d.lo) / d.hi;
    cvm_dd s = dd_fast_two_sum(sh, sl);
    /* 2s + s^3 (2/3 + s^2 (2/5 + s^2 q)), the brackets in double-double,
     * q = 2/7 + 2s^2/9 + ... in double */
    double s2 = sh * sh, q = 2.0 / 27;
    for (int n = 12; n >= 3; n--)
        q = q * s2 + 2.0 / (2 * n + 1);
    cvm_dd sq = dd_mul(s, s);
    cvm_dd b = dd_add_d(TWO_FIFTHS, s2 * q);
    b = dd_add(TWO_THIRDS, dd_mul(sq, b));
    cvm_dd r = dd_mul(dd_mul(sq, s), b);
    return dd_add(dd_make(2 * s.hi, 2 * s.lo), r);
}

/* Domain handling shared by the logarithms; returns 1 when *out is set. */
static int log_special(double x, double *out)
{
    if (x != x) {
        *out = x + x;
        return 1;
    }
    if (x == 0) {
        *out = -INFINITY;
        return 1;
    }
    if (x < 0) {
        *out = NAN;
        return 1;
    }
    if (x == INFINITY) {
        *out = x;
        return 1;
    }
    return 0;
}

/* ln(x) as k*ln2 + log(m) in double-double. */
static cvm_dd log_dd(double x)
{
    int k;
    cvm_dd lm = log_core(x, &k);
    return dd_add(dd_mul_d(LN2, (double)k), lm);
}

double cvm_m_log(double x)
{
    double r;
    if (log_special(x, &r))
        return r;
    return dd_round(log_dd(x));
}

double cvm_m_log2(double x)
{
    double r;
    if (log_special(x, &r))
        return r;
    int k;
    cvm_dd lm = log_core(x, &k);
    return dd_round(dd_add_d(dd_mul(lm, LOG2E), (double)k));
}

double cvm_m_log10(double x)
{
    double r;
    if (log_special(x, &r))
        return r;
    int k;
    cvm_dd lm = log_core(x, &k);
    return dd_round(dd_add(dd_mul_d(LOG10_2, (double)k), dd_mul(lm, LOG10E)));
}

double cvm_m_log1p(double x)
{
    if (x != x)
        return x + x;
    if (fabs(x) < 0x1p-54)
        return x;
    if (x == -1)
        return -INFINITY;
    if (x < -1)
        return NAN;
    if (x == INFINITY)
        return x;
    /* log(1+x) = log(u) + log(1 + c), u = RN(1+x), c = (1+x-u)/u tiny */
    cvm_dd u = dd_two_sum(1.0, x);
    double ch = u.lo / u.hi, cl = fma(-ch, u.hi, u.lo) / u.hi;
    cvm_dd c = dd_make(ch, cl - 0.5 * ch * ch);
    return dd_round(dd_add(log_dd(u.hi), c));
}

/* ---------------------------------------------------------------------
 * pow
 * ------------------------------------------------------------------- */

/* 0: not an integer, 1: odd integer, 2: even integer (y finite). */
static int int_kind(double y)
{
    if (floor(y) != y)
        return 0;
    if (fabs(y) >= 0x1p53)
        return 2;
    return ((int64_t)y & 1) ? 1 : 2;
}

/* The Annex F cases where x or y is zero, infinite or NaN, or x is 1. */
static int pow_special(double x, double y, double *out)
{
    int yk = (y - y == 0) ? int_kind(y) : 0;
    if (y == 0 || x == 1) {
        *out = 1.0;
        return 1;
    }
    if (x != x || y != y) {
        *out = x + y;
        return 1;
    }
    if (x == 0) {
        int neg = (cvm_n_f64_bits(x) >> 63) && yk == 1;
        double mag = y < 0 ? INFINITY : 0.0;
        *out = neg ? -mag : mag;
        return 1;
    }
    if (y - y != 0) { /* y = +-inf */
        double ax = fabs(x);
        if (ax == 1)
            *out = 1.0;
        else
            *out = ((ax < 1) == (y < 0)) ? INFINITY : 0.0;
        return 1;
    }
    if (x - x != 0) { /* x = +-inf */
        double mag = y < 0 ? 0.0 : INFINITY;
        *out = (x < 0 && yk == 1) ? -mag : mag;
        return 1;
    }
    if (x < 0 && yk == 0) {
        *out = NAN;
        return 1;
    }
    return 0;
}

double cvm_m_pow(double x, double y)
{
    double r;
    if (pow_special(x, y, &r))
        return r;
    double sign = (x < 0 && int_kind(y) == 1) ? -1.0 : 1.0;
    cvm_dd l = log_dd(fabs(x));
    double p = y * l.hi; /* checked before the exact product, which may overflow */
    if (p > 710)
        return sign * INFINITY;
    if (p < -746)
        return sign * 0.0;
    cvm_dd t = dd_two_prod(y, l.hi);
    t.lo += y * l.lo;
    t = dd_fast_two_sum(t.hi, t.lo);
    int k;
    cvm_dd e = exp_core(t, &k);
    return sign * scale_round(e, k);
}

/* ---------------------------------------------------------------------
 * hyperbolic functions
 * ------------------------------------------------------------------- */

/* e^|x| / 2 for |x| > 22, without intermediate overflow. */
static double half_exp(double a)
{
    int k;
    cvm_dd y = exp_core(dd_sub(dd_make(a, 0), LN2), &k);
    return scale_round(y, k);
}

/* e^a as a double-double, for 0 <= a <= 22. */
static cvm_dd exp_dd(double a)
{
    int k;
    cvm_dd y = exp_core(dd_make(a, 0), &k);
    return dd_scale(y, k);
}

double cvm_m_sinh(double x)
{
    double a = fabs(x);
    if (x != x)
        return x + x;
    if (a == INFINITY || a < 0x1p-28)
        return x;
    if (a > 711)
        return x < 0 ? -INFINITY : INFINITY;
    if (a < 1) {
        /* x + x^3 (1/3! + x^2/5! + ...) */
        double x2 = x * x, p = 1.0 / 121645100408832000.0; /* 1/19! */
        double f = 121645100408832000.0;
        for (int n = 17; n >= 3; n -= 2) {
            f /= (double)((n + 1) * (n + 2));
            p = p * x2 + 1.0 / f;
        }
        return x + x * x2 * p;
    }
    double r;
    if (a > 22) {
        r = half_exp(a);
    } else {
        cvm_dd e = exp_dd(a);
        cvm_dd d = dd_sub(e, dd_div(dd_make(1, 0), e));
        r = 0.5 * dd_round(d);
    }
    return x < 0 ? -r : r;
}

double cvm_m_cosh(double x)
{
    double a = fabs(x);
    if (x != x)
        return x + x;
    if (a > 711)
        return INFINITY;
    if (a > 22)
        return half_exp(a);
    cvm_dd e = exp_dd(a);
    return 0.5 * dd_round(dd_add(e, dd_div(dd_make(1, 0), e)));
}

double cvm_m_tanh(double x)
{
    double a = fabs(x);
    if (x != x)
        return x + x;
    if (a < 0x1p-28)
        return x;
    if (a > 22)
        return x < 0 ? -1.0 : 1.0;
    cvm_dd e = expm1_dd(2 * a);
    double r = dd_round(dd_div(e, dd_add_d(e, 2.0)));
    return x < 0 ? -r : r;
}

/* ---------------------------------------------------------------------
 * erf, erfc
 * ------------------------------------------------------------------- */

/* erf(a) for 0 <= a < 2 as a double-double:
 * 2/sqrt(pi) * a * e^(-a^2) * sum 2^n a^(2n) / (1*3*...*(2n+1)), all terms positive. */
static cvm_dd erf_dd(double a)
{
    cvm_dd a2 = dd_two_prod(a, a);
    cvm_dd t = dd_make(1, 0), s = t;
    for (int n = 1; n < 200; n++) {
        t = dd_mul(t, dd_make(2 * a2.hi, 2 * a2.lo));
        t = dd_div(t, dd_make(2 * n + 1, 0));
        s = dd_add(s, t);
        if (t.hi < 0x1p-110 * s.hi)
            break;
    }
    int k;
    cvm_dd e = exp_core(dd_neg(a2), &k);
    e = dd_scale(e, k);
    return dd_mul(dd_mul(dd_mul_d(s, a), e), TWO_OVER_SQRTPI);
}

/* erfc(a) for a >= 2 by the continued fraction
 * erfc(a) = e^(-a^2)/sqrt(pi) / (a + (1/2)/(a + 1/(a + (3/2)/(a + ...)))). */
static double erfc_cf(double a)
{
    int n = 12 + (int)(240 / (a * a));
    double v = a;
    for (; n >= 2; n--)
        v = a + 0.5 * n / v;
    double q = 0.5 / v;
    cvm_dd den = dd_add_d(dd_make(q, fma(-q, v, 0.5) / v), a); /* a + 0.5/v */
    int k;
    cvm_dd e = exp_core(dd_neg(dd_two_prod(a, a)), &k);
    cvm_dd r = dd_div(dd_mul(e, INV_SQRTPI), den);
    return scale_round(r, k);
}

double cvm_m_erf(double x)
{
    double a = fabs(x);
    if (x != x)
        return x + x;
    if (a < 0x1p-28)
        return fma(x, TWO_OVER_SQRTPI.hi, x * TWO_OVER_SQRTPI.lo);
    double r;
    if (a >= 6)
        r = 1.0;
    else if (a >= 2)
        r = dd_round(dd_make(1.0, -erfc_cf(a)));
    else
        r = dd_round(erf_dd(a));
    return x < 0 ? -r : r;
}

double cvm_m_erfc(double x)
{
    if (x != x)
        return x + x;
    if (x < -6)
        return 2.0;
    if (x > 28)
        return 0.0;
    if (x >= 2)
        return erfc_cf(x);
    if (x <= -2)
        return dd_round(dd_two_sum(2.0, -erfc_cf(-x)));
    cvm_dd e = erf_dd(fabs(x));
    return dd_round(dd_add_d(x < 0 ? e : dd_neg(e), 1.0));
}

/* ---------------------------------------------------------------------
 * roots, hypot, reciprocals
 * ------------------------------------------------------------------- */

double cvm_m_cbrt(double x)
{
    if (x != x || x == 0 || x - x != 0)
        return x + x;
    double a = fabs(x);
    int e = exponent_of(a);
    int q = (e >= 0 ? e : e - 2) / 3; /* floor(e / 3) */
    double m = ldexp(a, -3 * q);      /* in [1, 8), exact */
    double y = 1.0 + (m - 1) / 6;
    for (int i = 0; i < 6; i++)
        y = (2 * y + m / (y * y)) / 3;
    /* one Newton step with the residual m - y^3 in double-double */
    cvm_dd y3 = dd_mul_d(dd_two_prod(y, y), y);
    cvm_dd res = dd_add_d(dd_neg(y3), m);
    double r = ldexp(dd_round(dd_fast_two_sum(y, res.hi / (3 * y * y))), q);
    return x < 0 ? -r : r;
}

double cvm_m_hypot(double x, double y)
{
    double a = fabs(x), b = fabs(y);
    if (a == INFINITY || b == INFINITY)
        return INFINITY;
    if (a != a || b != b)
        return a + b;
    if (a < b) {
        double t = a;
        a = b;
        b = t;
    }
    if (b == 0)
        return a;
    int e = exponent_of(a);
    if (e - exponent_of(b) > 60)
        return a + b;
    a = ldexp(a, -e); /* exact: a in [1, 2), b >= 2^-62 */
    b = ldexp(b, -e);
    cvm_dd s = dd_add(dd_two_prod(a, a), dd_two_prod(b, b));
    return scale_round(dd_sqrt(s), e);
}

double cvm_m_rcp(double x)
{
    return 1.0 / x;
}

double cvm_m_rsqrt(double x)
{
    if (x != x)
        return x + x;
    if (x == 0)
        return 1.0 / x;
    if (x < 0)
        return NAN;
    if (x == INFINITY)
        return 0.0;
    int e = exponent_of(x) & ~1;
    double m = ldexp(x, -e); /* in [1, 4) */
    double y = 1.0 / sqrt(m);
    /* y' = y + y (1 - m y^2) / 2 with the residual in double-double */
    cvm_dd my2 = dd_mul_d(dd_two_prod(y, y), m);
    double err = dd_round(dd_add_d(dd_neg(my2), 1.0));
    return ldexp(y + 0.5 * y * err, -e / 2);
}

/* ---------------------------------------------------------------------
 * exact helpers
 * ------------------------------------------------------------------- */

double cvm_m_fmod(double x, double y)
{
    double ax = fabs(x), ay = fabs(y);
    if (x != x || y != y || ax == INFINITY || ay == 0)
        return (x != x || y != y) ? x + y : NAN;
    if (ay == INFINITY || ax < ay)
        return x;
    uint64_t mx, my;
    int ex, ey;
    cvm_n_f64_split(cvm_n_f64_bits(ax), &mx, &ex);
    cvm_n_f64_split(cvm_n_f64_bits(ay), &my, &ey);
    /* long division of mx * 2^(ex-ey) by my, 11 bits at a time */
    uint64_t r = mx % my;
    int d = ex - ey;
    while (d > 0) {
        int step = d > 11 ? 11 : d;
        r = (r << step) % my;
        d -= step;
    }
    double res = ldexp((double)r, ey); /* r < my < 2^53: exact */
    return cvm_n_copysign(res, x);
}

double cvm_m_round(double x)
{
    if (x != x)
        return x + x;
    if (!(fabs(x) < 0x1p52))
        return x; /* integral already, or infinite */
    double t = trunc(x);
    if (fabs(x - t) >= 0.5)
        t += x < 0 ? -1.0 : 1.0;
    return t;
}

double cvm_m_copysign(double x, double y)
{
    return cvm_n_copysign(x, y);
}

/* ---------------------------------------------------------------------
 * f32 versions: the f64 result (within about 0.5 ulp of f64) rounded to
 * f32 is within 0.5 + 2^-28 ulp of f32.
 * ------------------------------------------------------------------- */

#define F32_VIA_F64(name)                                                                 \
    float cvm_m_##name##f(float x) { return (float)cvm_m_##name((double)x); }
#define F32_VIA_F64_2(name)                                                               \
    float cvm_m_##name##f(float x, float y) { return (float)cvm_m_##name((double)x, (double)y); }

F32_VIA_F64(sinh)
F32_VIA_F64(cosh)
F32_VIA_F64(erfc)
F32_VIA_F64(cbrt)
F32_VIA_F64(round)
F32_VIA_F64_2(hypot)
F32_VIA_F64_2(fmod)

/* The branch-free f32 functions of mathlib.h, out of line. */
#define F32_OF_INLINE(name)                                                               \
    float cvm_m_##name##f(float x) { return cvm_m_##name##f_inline(x); }

F32_OF_INLINE(exp)
F32_OF_INLINE(exp2)
F32_OF_INLINE(expm1)
F32_OF_INLINE(tanh)
F32_OF_INLINE(log)
F32_OF_INLINE(log2)
F32_OF_INLINE(log10)
F32_OF_INLINE(log1p)
F32_OF_INLINE(erf)
F32_OF_INLINE(rsqrt)

float cvm_m_powf(float x, float y)
{
    return CVM_M_POWF_ORDINARY(x, y) ? cvm_m_powf_inline(x, y) : (float)cvm_m_pow((double)x, (double)y);
}

float cvm_m_rcpf(float x)
{
    return 1.0f / x; /* one f32 division: correctly rounded */
}

float cvm_m_copysignf(float x, float y)
{
    return cvm_n_copysignf(x, y);
}
