/*
 * mathlib.h - cubevm's own math library, identical on every host.
 *
 * The interpreter's float-math handlers call these instead of the host
 * libm, so a kernel computes the same bits everywhere.
 * Only IEEE-exact libm operations are used inside (sqrt, fma, floor, ceil,
 * trunc, rint, ldexp, frexp, fabs). Each function's error bound in ULPs is
 * listed in docs/numerics.md and checked by tests/test_mathlib.c; special
 * values (NaN, infinities, signed zeros, domain errors -> NaN) follow C99
 * Annex F. The f suffix is the f32 version (computed through the f64 core
 * and rounded once more; f32 exp, exp2, expm1, tanh, log, log2, log10,
 * log1p, sin, cos, rsqrt, erf and pow have their own branch-free f64
 * evaluations, below, for all or part of their domain). All functions are pure and
 * thread-safe; none sets errno or floating-point exception flags on
 * purpose.
 */
#ifndef CVM_MATHLIB_H
#define CVM_MATHLIB_H

/* Horner loops of the inline functions below unrolled, so that the lane
 * loops calling them vectorize. */
#if defined(__GNUC__) && !defined(__clang__)
#define CVM_M_UNROLL _Pragma("GCC unroll 16")
#else
#define CVM_M_UNROLL
#endif

#include <math.h>

/* e^x */
double cvm_m_exp(double x);
float cvm_m_expf(float x);
static inline float cvm_m_expf_inline(float x);

/* 2^x */
double cvm_m_exp2(double x);
float cvm_m_exp2f(float x);
static inline float cvm_m_exp2f_inline(float x); /* the same, branch-free (below) */

/* e^x - 1, accurate near 0 */
double cvm_m_expm1(double x);
float cvm_m_expm1f(float x);
static inline float cvm_m_expm1f_inline(float x); /* the same, branch-free (below) */

/* natural logarithm */
double cvm_m_log(double x);
float cvm_m_logf(float x);

/* base-2 logarithm (exact at powers of 2) */
double cvm_m_log2(double x);
float cvm_m_log2f(float x);
static inline float cvm_m_log2f_inline(float x); /* the same, branch-free (below) */

/* base-10 logarithm */
double cvm_m_log10(double x);
float cvm_m_log10f(float x);
static inline float cvm_m_log10f_inline(float x); /* the same, branch-free (below) */

/* ln(1 + x), accurate near 0 */
double cvm_m_log1p(double x);
float cvm_m_log1pf(float x);
static inline float cvm_m_log1pf_inline(float x); /* the same, branch-free (below) */

/* sine; full argument reduction for every finite x */
double cvm_m_sin(double x);
float cvm_m_sinf(float x);

/* cosine; full argument reduction */
double cvm_m_cos(double x);
float cvm_m_cosf(float x);

/* f32 sine and cosine for |x| <= CVM_M_TRIGF_INLINE_MAX, branch-free
 * (below); cvm_m_sinf and cvm_m_cosf use them there and the Payne-Hanek
 * reduction beyond. Outside that range their result is unspecified. */
#define CVM_M_TRIGF_INLINE_MAX 0x1p24f
static inline float cvm_m_sinf_inline(float x);
static inline float cvm_m_cosf_inline(float x);

/* tangent; full argument reduction */
double cvm_m_tan(double x);
float cvm_m_tanf(float x);

/* arcsine */
double cvm_m_asin(double x);
float cvm_m_asinf(float x);

/* arccosine */
double cvm_m_acos(double x);
float cvm_m_acosf(float x);

/* arctangent */
double cvm_m_atan(double x);
float cvm_m_atanf(float x);

/* hyperbolic sine */
double cvm_m_sinh(double x);
float cvm_m_sinhf(float x);

/* hyperbolic cosine */
double cvm_m_cosh(double x);
float cvm_m_coshf(float x);

/* hyperbolic tangent */
double cvm_m_tanh(double x);
float cvm_m_tanhf(float x);

/* error function */
double cvm_m_erf(double x);
float cvm_m_erff(float x);
static inline float cvm_m_erff_inline(float x); /* the same, branch-free (below) */

/* complementary error function */
double cvm_m_erfc(double x);
float cvm_m_erfcf(float x);

/* cube root */
double cvm_m_cbrt(double x);
float cvm_m_cbrtf(float x);

/* 1/sqrt(x) */
double cvm_m_rsqrt(double x);
float cvm_m_rsqrtf(float x);
static inline float cvm_m_rsqrtf_inline(float x); /* the same, branch-free (below) */

/* 1/x, correctly rounded */
double cvm_m_rcp(double x);
float cvm_m_rcpf(float x);

/* nearest integer, ties away from zero (exact) */
double cvm_m_round(double x);
float cvm_m_roundf(float x);

/* atan(y/x) in the quadrant of (x, y); args (y, x) */
double cvm_m_atan2(double y, double x);
float cvm_m_atan2f(float y, float x);

/* x^y with C99 Annex F's special cases */
double cvm_m_pow(double x, double y);
float cvm_m_powf(float x, float y);
static inline float cvm_m_powf_inline(float x, float y); /* x > 0, y finite (below) */

/* sqrt(x*x + y*y) without undue overflow or underflow */
double cvm_m_hypot(double x, double y);
float cvm_m_hypotf(float x, float y);

/* x - n*y with n = trunc(x/y), exact */
double cvm_m_fmod(double x, double y);
float cvm_m_fmodf(float x, float y);

/* |x| with the sign of y (exact, on bits) */
double cvm_m_copysign(double x, double y);
float cvm_m_copysignf(float x, float y);

/*
 * The f64 core of the f32 exponentials (tanh, expm1, exp2 and pow call it;
 * the double-double exp is ten times slower than an f32 result needs):
 * x = k ln2 + r with a Cody-Waite ln2 whose high part has 32 significant
 * bits, so k * LN2_HI is exact for |k| <= 151 and r is within 2^-60 of its
 * true value; e^r for |r| <= 0.35 by its Taylor series to degree 13
 * (truncation below 2^-57) in Horner form; 2^k from its bits. The f64
 * result is within 2^-44 of e^x relative (docs/numerics.md). Written
 * without branches so lane loops over it vectorize.
 */
/* 2^k for an integral f64 k in [-1022, 1023], from its bits: kd + 2^52 +
 * 1023 holds the biased exponent in its low bits. */
static inline double cvm_m_exp_scale(double kd)
{
    union { double d; unsigned long long u; } t = {kd + (0x1p52 + 1023)}, sc;
    sc.u = t.u << 52;
    return sc.d;
}

#define CVM_M_LN2_HI 0x1.62e42fee00000p-1
#define CVM_M_LN2_LO 0x1.a39ef35793c76p-33

/* e^x in f64 for x in [-104, 89] (callers clamp): the method above, within
 * 2^-44 relative. tanh, expm1 and exp2 use it; f32 exp has its own
 * evaluation (cvm_m_expf_eval, below). */
static inline double cvm_m_exp_f32core(double x)
{
    const double kd = rint(x * 0x1.71547652b82fep+0);
    const double r = (x - kd * CVM_M_LN2_HI) - kd * CVM_M_LN2_LO;
    double p = 1.0 / 6227020800.0;
    p = p * r + 1.0 / 479001600;
    p = p * r + 1.0 / 39916800;
    p = p * r + 1.0 / 3628800;
    p = p * r + 1.0 / 362880;
    p = p * r + 1.0 / 40320;
    p = p * r + 1.0 / 5040;
    p = p * r + 1.0 / 720;
    p = p * r + 1.0 / 120;
    p = p * r + 1.0 / 24;
    p = p * r + 1.0 / 6;
    p = p * r + 1.0 / 2;
    p = p * r + 1.0;
    p = p * r + 1.0;
    return p * cvm_m_exp_scale(kd);
}

/*
 * f32 exp itself, cheaper than the core above (softmax's exp was 40% of
 * its native code): the same clamp and reduction; e^r = 1 + r + r^2 q(r)
 * with q of degree 8, fitted to (e^r - 1 - r) / r^2 on |r| <= ln2/2 by
 * Chebyshev interpolation (tools/mathgen/expf_coefficients.py), within
 * 2^-49.6 of e^r relative. The coefficients are q's, highest first.
 * fused: the reduction and the Horner steps as fma() (CPUs with fused
 * multiply-add: half the operations), else a multiply and an add each.
 * Both give the same f32 bits on every one of the 2^32 inputs, and the
 * same as the degree-13 core above and the double-double exp rounded
 * (checked exhaustively when this was written; tests/test_mathlib.c
 * checks a stride of them every run, all of them with CVM_EXHAUSTIVE=1),
 * so the choice between them is the host's, for speed: the bits are the
 * same everywhere. The clamp lets a NaN through (a NaN result; callers
 * make it canonical), and e^89 and e^-104 round to inf and 0 by
 * themselves, so no special value needs a select.
 */
#define CVM_M_EXPF_NQ 9
static const double cvm_m_expf_q[CVM_M_EXPF_NQ] = {
    0x1.2880393a358c4p-22, 0x1.72c720d005e4bp-19, 0x1.a019c9ab133b1p-16,
    0x1.a019adabe6699p-13, 0x1.6c16c1738ed23p-10, 0x1.1111111c45d9fp-7,
    0x1.5555555554cb8p-5,  0x1.5555555553b7dp-3,  0x1.0000000000000p-1,
};

static inline float cvm_m_expf_eval(float xf, int fused)
{
    const double x0 = xf;
    const double x = x0 > 89 ? 89 : x0 < -104 ? -104 : x0;
    const double kd = rint(x * 0x1.71547652b82fep+0);
    double r, p = cvm_m_expf_q[0];
    if (fused) {
        r = fma(-kd, CVM_M_LN2_LO, fma(-kd, CVM_M_LN2_HI, x));
        CVM_M_UNROLL
        for (int i = 1; i < CVM_M_EXPF_NQ; i++)
            p = fma(p, r, cvm_m_expf_q[i]);
        p = fma(fma(p, r, 1.0), r, 1.0);
    } else {
        r = (x - kd * CVM_M_LN2_HI) - kd * CVM_M_LN2_LO;
        CVM_M_UNROLL
        for (int i = 1; i < CVM_M_EXPF_NQ; i++)
            p = p * r + cvm_m_expf_q[i];
        p = (p * r + 1.0) * r + 1.0;
    }
    return (float)(p * cvm_m_exp_scale(kd));
}

/* fused where the compiler may emit fma instructions: a call to libm's fma
 * would cost more than the operations it saves */
#if defined(__FMA__) || defined(__aarch64__)
#define CVM_M_FUSED 1
#else
#define CVM_M_FUSED 0
#endif

static inline float cvm_m_expf_inline(float xf)
{
    return cvm_m_expf_eval(xf, CVM_M_FUSED);
}

/*
 * f32 log, in f64 without branches (log-softmax and cross-entropy call it
 * per element): x = m 2^e with m in [sqrt(1/2), sqrt(2)); m - 1 is exact
 * (Sterbenz), s = (m - 1)/(m + 1) within 2^-52 relative, log m =
 * 2 atanh(s) by its odd series to s^21 (|s| <= 0.1716: truncation below
 * 2^-55 relative); e ln 2 with a 32-bit high part of ln 2 (exact) and
 * log m never cancel (|log m| <= ln2 / 2). The f64 result is within
 * 2^-50 relative, so the f32 rounding is off by at most 0.5 + 2^-26 ulp.
 * Special values as cvm_m_log's. cvm_m_logf is the same function out of
 * line. cvm_m_log_f64parts gives log m and e of a positive normal f64
 * (m - 1 is exact for any f64 m in that range; m + 1 may round, 2^-52),
 * cvm_m_log_f32parts the same for an f32 x > 0 and finite (else m = 1,
 * e = 0), cvm_m_logf_special the special values.
 */
/* x = m 2^e with m in [sqrt(1/2), sqrt(2)) for a positive normal f64 x:
 * returns m, e in *e_out (read from the bits as 2^52 + e: AVX2 has no
 * int64 -> f64 conversion, and the lane loops would not vectorize). */
static inline double cvm_m_log_split(double x, double *e_out)
{
    union { double d; unsigned long long u; } v = {x}, mb, eb;
    mb.u = (v.u & 0x000fffffffffffffull) | 0x3ff0000000000000ull; /* m in [1, 2) */
    eb.u = (v.u >> 52) | 0x4330000000000000ull;
    const int hi = mb.d > 1.4142135623730951;
    *e_out = (eb.d - (0x1p52 + 1023)) + (hi ? 1.0 : 0.0);
    return hi ? mb.d * 0.5 : mb.d;
}

/* 1/3 + s2/5 + s2^2/7 + ... + s2^9/21: log m = 2s + 2s s2 (this). */
static inline double cvm_m_atanh_tail(double s2)
{
    double p = 1.0 / 21;
    p = p * s2 + 1.0 / 19;
    p = p * s2 + 1.0 / 17;
    p = p * s2 + 1.0 / 15;
    p = p * s2 + 1.0 / 13;
    p = p * s2 + 1.0 / 11;
    p = p * s2 + 1.0 / 9;
    p = p * s2 + 1.0 / 7;
    p = p * s2 + 1.0 / 5;
    return p * s2 + 1.0 / 3;
}

static inline double cvm_m_log_f64parts(double x, double *e_out)
{
    const double m = cvm_m_log_split(x, e_out);
    const double s = (m - 1) / (m + 1), s2 = s * s;
    return 2 * s + 2 * s * s2 * cvm_m_atanh_tail(s2);
}

static inline double cvm_m_log_f32parts(float xf, double *e_out)
{
    /* f32 subnormals are f64 normals */
    return cvm_m_log_f64parts(xf > 0 && xf < INFINITY ? (double)xf : 1.0, e_out);
}

/* The special values of logf, log2f and log10f, else y. */
static inline float cvm_m_logf_special(float xf, float y)
{
    /* one select after another: GCC would not if-convert the nested form */
    float r = xf == INFINITY ? xf : y;
    r = xf < 0 ? NAN : r;
    r = xf == 0 ? -INFINITY : r;
    return xf != xf ? xf + xf : r;
}

static inline float cvm_m_logf_inline(float xf)
{
    const double LN2_HI = 0x1.62e42fee00000p-1, LN2_LO = 0x1.a39ef35793c76p-33;
    double e;
    const double lm = cvm_m_log_f32parts(xf, &e);
    return cvm_m_logf_special(xf, (float)(e * LN2_HI + (e * LN2_LO + lm)));
}

/*
 * f32 log2 and log10 from the same parts: e + log m / ln 2 and
 * e log10(2) + log m / ln 10, each constant and product within 2^-53
 * relative and the sum losing at most a bit (|log m| <= ln 2 / 2 <= |e ln 2|
 * when e != 0), so within 2^-50 before the rounding to f32. log10 splits
 * log10(2) like log splits ln 2 (e times the high part is exact): with one
 * rounding of e log10(2) it missed two of the 2^32 inputs, 1.4e-9 ulp
 * from a tie. log2 is exact at powers of 2 (log m = 0). On all 2^32 f32
 * inputs each gives the bits of the double-double evaluation
 * (docs/numerics.md).
 */
static inline float cvm_m_log2f_inline(float xf)
{
    double e;
    const double lm = cvm_m_log_f32parts(xf, &e);
    return cvm_m_logf_special(xf, (float)(e + lm * 0x1.71547652b82fep+0));
}

static inline float cvm_m_log10f_inline(float xf)
{
    double e;
    const double lm = cvm_m_log_f32parts(xf, &e);
    const double L10_2_HI = 0x1.34413508p-2, L10_2_LO = 0x1.f79fef311f12bp-34; /* HI: 30 bits */
    const double y = e * L10_2_HI + (e * L10_2_LO + lm * 0x1.bcb7b1526e50ep-2);
    return cvm_m_logf_special(xf, (float)y);
}

/*
 * f32 log(1 + x): 1 + x is exact in f64 for 2^-29 <= |x| < 2^53 (an f32
 * has 24 bits), and above 2^53 its rounding moves the log by 2^-53 / ln x;
 * then log's parts of it (m - 1 stays exact, so nothing cancels for small
 * x). Below 2^-29, x - x^2 / 2 (the next term is 2^-58 relative). On all
 * 2^32 f32 inputs it gives the bits of the double-double evaluation but
 * one, 0x1.fb035ap-2, whose value lies 1.2e-10 ulp from a tie: there this
 * one is correctly rounded and the double-double one is not.
 */
static inline float cvm_m_log1pf_inline(float xf)
{
    const double LN2_HI = 0x1.62e42fee00000p-1, LN2_LO = 0x1.a39ef35793c76p-33;
    const double x = xf, u = xf > -1 && xf < INFINITY ? 1.0 + x : 2.0;
    double e;
    const double lm = cvm_m_log_f64parts(u, &e);
    const double y = fabs(x) < 0x1p-29 ? x - 0.5 * x * x : e * LN2_HI + (e * LN2_LO + lm);
    float r = xf == INFINITY ? xf : (float)y; /* selects in turn, as in logf_special */
    r = xf < -1 ? NAN : r;
    r = xf == -1 ? -INFINITY : r;
    return xf != xf ? xf + xf : r;
}

/*
 * f32 e^x - 1 (ELU's): for |x| < 1/2 its Taylor series to x^16
 * (truncation below 2^-60 relative), else e^x - 1 with e^x from the f32
 * exp's core (the subtraction loses at most 1.3 bits for |x| >= 1/2);
 * inputs clamped to [-18, 89], where the f32 results are already -1 and
 * inf. expm1(-0) = -0 is selected. On all 2^32 f32 inputs it gives the
 * bits of the double-double evaluation.
 */
static inline float cvm_m_expm1f_inline(float xf)
{
    const double x0 = xf;
    const double x = x0 > 89 ? 89 : x0 < -18 ? -18 : x0 == x0 ? x0 : 0;
    double p = 1.0 / 20922789888000; /* 1/16! */
    p = p * x + 1.0 / 1307674368000;
    p = p * x + 1.0 / 87178291200;
    p = p * x + 1.0 / 6227020800;
    p = p * x + 1.0 / 479001600;
    p = p * x + 1.0 / 39916800;
    p = p * x + 1.0 / 3628800;
    p = p * x + 1.0 / 362880;
    p = p * x + 1.0 / 40320;
    p = p * x + 1.0 / 5040;
    p = p * x + 1.0 / 720;
    p = p * x + 1.0 / 120;
    p = p * x + 1.0 / 24;
    p = p * x + 1.0 / 6;
    p = p * x + 1.0 / 2;
    const double y = fabs(x) < 0.5 ? x + x * x * p : cvm_m_exp_f32core(x) - 1;
    return xf != xf ? xf + xf : xf == 0 ? xf : (float)y;
}

/* Veltkamp's split: hi has the top 26 bits of a, a = hi + lo exactly. */
static inline void cvm_m_split(double a, double *hi, double *lo)
{
    const double c = 134217729.0 * a; /* 2^27 + 1 */
    *hi = c - (c - a);
    *lo = a - *hi;
}

/* Dekker's product: a b = p + *err exactly (no overflow or underflow). */
static inline double cvm_m_two_prod(double a, double b, double *err)
{
    double ah, al, bh, bl;
    const double p = a * b;
    cvm_m_split(a, &ah, &al);
    cvm_m_split(b, &bh, &bl);
    *err = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    return p;
}

/*
 * f32 x^y for x > 0 finite and y finite (CVM_M_POWF_ORDINARY; every other
 * pair, with the signs and infinities of Annex F, goes to cvm_m_pow):
 * 2^(y log2 x) with log2 x as a double-double, so that y log2 x (up to
 * about 150 in magnitude before the result over- or underflows f32) is
 * within 2^-60 absolute. x = m 2^e as in log; s = (m - 1)/(m + 1) with its
 * remainder (m - 1 and m + 1 are exact for an f32 m, the product s (m + 1)
 * by Dekker); log m = 2 s + 2 s^3 (1/3 + s^2/5 + ...), the series in f64
 * (it is under 1% of 2 s); times log2(e) as a double-double, plus e; times
 * y by Dekker. Then t = k + r with k = rint(t), 2^r = e^(r ln 2) from the
 * f32 exp's core, and 2^k from its bits with t clamped to [-200, 200], so
 * the product is an f64 normal and the conversion to f32 is the one
 * rounding, overflow and subnormals included. Within 2^-51 relative before
 * that rounding.
 */
#define CVM_M_POWF_ORDINARY(x, y) ((x) > 0 && (x) < INFINITY && (y) - (y) == 0)
#if defined(__GNUC__)
__attribute__((always_inline)) /* GCC kept it out of line: no vector loop */
#endif
static inline float cvm_m_powf_inline(float xf, float yf)
{
    const double L2E_HI = 0x1.71547652b82fep+0, L2E_LO = 0x1.777d0ffda0d24p-56;
    const double x = CVM_M_POWF_ORDINARY(xf, yf) ? (double)xf : 1.0, y = yf - yf == 0 ? yf : 0;
    double e;
    const double m = cvm_m_log_split(x, &e);
    const double a = m - 1, b = m + 1, s = a / b, s2 = s * s;
    double pe;
    const double ph = cvm_m_two_prod(s, b, &pe);
    const double sl = ((a - ph) - pe) / b; /* s + sl = a / b within 2^-104 */
    const double lh = 2 * s, ll = 2 * sl + 2 * s * s2 * cvm_m_atanh_tail(s2); /* log m = lh + ll */
    double qe;
    const double qh = cvm_m_two_prod(lh, L2E_HI, &qe);
    const double ql = qe + (lh * L2E_LO + ll * L2E_HI); /* log2 m = qh + ql */
    const double gh = e + qh, gl = (e - gh) + qh + ql; /* |e| >= |qh| or e = 0 */
    double te;
    const double th = cvm_m_two_prod(y, gh, &te);
    const double tl = te + y * gl;
    const double t0 = th + tl, t = t0 > 200 ? 200 : t0 < -200 ? -200 : t0;
    const double k = (t + 0x1.8p52) - 0x1.8p52;
    const double r = t0 > 200 || t0 < -200 ? 0 : (th - k) + tl;
    return (float)(cvm_m_exp_f32core(r * 0x1.62e42fefa39efp-1) * cvm_m_exp_scale(k));
}

/*
 * f32 2^x: x = k + r with k = rint(x) and |r| <= 1/2 exact, 2^r =
 * e^(r ln 2) by the f32 exp's core (r ln 2 within 2^-53 relative), times
 * 2^k by its bits (k in [-151, 128]: an f64 normal, so the one rounding
 * is the conversion to f32, subnormals included). Exact at integers.
 */
static inline float cvm_m_exp2f_inline(float xf)
{
    const double x0 = xf;
    const double x = x0 > 128 ? 128 : x0 < -151 ? -151 : x0 == x0 ? x0 : 0;
    const double k = (x + 0x1.8p52) - 0x1.8p52, r = x - k;
    const float y = (float)(cvm_m_exp_f32core(r * 0x1.62e42fefa39efp-1) * cvm_m_exp_scale(k));
    return x0 != x0 ? xf + xf : x0 >= 128 ? INFINITY : x0 < -151 ? 0.0f : y;
}

/* f32 1/sqrt(x): sqrt and the division in f64, each correctly rounded, so
 * within 2^-52 relative before the rounding to f32; -0 gives -inf, a
 * negative x NaN. On all 2^32 f32 inputs it gives the bits of the
 * double-double evaluation. */
static inline float cvm_m_rsqrtf_inline(float xf)
{
    const float y = (float)(1.0 / sqrt((double)xf));
    return xf < 0 ? NAN : y;
}

/*
 * f32 tanh, in f64 like cvm_m_expf_inline (GELU-like kernels call it per
 * element). For a = |x| < 1/8 the odd Taylor series to x^13 (truncation
 * below 2^-51 relative); for 1/8 <= a < 10, (e - 1) / (e + 1) with
 * e = e^(2a) from cvm_m_exp_f32core (e >= 1.28, so e - 1 loses at most 2
 * bits: within 2^-41 relative); from 10 on, +-1 (tanh(10) is within 2^-27
 * of 1, under half an f32 ulp). The sign is x's, so tanh(-0) = -0. The f32
 * rounding is off by at most 0.5 + 2^-17 ulp. Branch-free, like expf;
 * cvm_m_tanhf is the same function out of line.
 */
static inline float cvm_m_tanhf_inline(float xf)
{
    const double a0 = fabs((double)xf);
    const double a = a0 < 10 ? a0 : 10; /* NaN too: its result is selected away */
    const double s = a * a;
    double q = 21844.0 / 6081075;
    q = q * s - 1382.0 / 155925;
    q = q * s + 62.0 / 2835;
    q = q * s - 17.0 / 315;
    q = q * s + 2.0 / 15;
    q = q * s - 1.0 / 3;
    const double e = cvm_m_exp_f32core(2 * a);
    const double t = a < 0.125 ? a + a * s * q : (e - 1) / (e + 1);
    const float y = copysignf(a0 < 10 ? (float)t : 1.0f, xf);
    return xf != xf ? xf + xf : y;
}

/*
 * f32 sine and cosine, in f64 without branches, for |x| <= 2^24 (kernels
 * with rotary embeddings or twiddle factors call them per element).
 * k = rint(x 2/pi) by the 1.5 2^52 trick (the low bits of the sum are k
 * mod 4, the quadrant); r = x - k pi/2 with pi/2 in three parts: C1 and
 * C2 of 27 and 28 bits, so k C1 and k C2 are exact for |k| < 2^24 and
 * x - k C1 is exact (a multiple of 2^-26 below 1), and C3 of 53 bits; the
 * parts miss pi/2 by 2^-114, and k C3 and the last two subtractions add
 * 2^-52 relative and 2^-88 absolute. sin r by its odd Taylor series to
 * r^17 and cos r by its even one to r^18 (|r| <= pi/4 + 2^-50: truncation
 * below 2^-58 relative). sin(-0) is selected (r comes out +0). On every
 * f32 with |x| <= 2^24 these give the bits of the Payne-Hanek,
 * double-double versions (checked exhaustively; docs/numerics.md).
 */
static inline double cvm_m_sincos_f32core(double x, unsigned long long quarter)
{
    const double SHIFT = 0x1.8p52, INV_PIO2 = 0x1.45f306dc9c883p-1;
    const double C1 = 0x1.921fb54p+0, C2 = 0x1.10b4612p-30;
    const double C3 = -0x1.676733ae8fe48p-60;
    union { double d; unsigned long long u; } t = {x * INV_PIO2 + SHIFT};
    const double k = t.d - SHIFT;
    const unsigned long long q = (t.u + quarter) & 3; /* t.u = 2^51 + k in its low bits */
    const double r = ((x - k * C1) - k * C2) - k * C3, s = r * r;
    double ps = -1.0 / 355687428096000;                /* -1/17! */
    ps = ps * s + 1.0 / 1307674368000;
    ps = ps * s - 1.0 / 6227020800;
    ps = ps * s + 1.0 / 39916800;
    ps = ps * s - 1.0 / 362880;
    ps = ps * s + 1.0 / 5040;
    ps = ps * s - 1.0 / 120;
    ps = ps * s + 1.0 / 6;
    double pc = 1.0 / 6402373705728000;                /* 1/18! */
    pc = pc * s - 1.0 / 20922789888000;
    pc = pc * s + 1.0 / 87178291200;
    pc = pc * s - 1.0 / 479001600;
    pc = pc * s + 1.0 / 3628800;
    pc = pc * s - 1.0 / 40320;
    pc = pc * s + 1.0 / 720;
    pc = pc * s - 1.0 / 24;
    pc = pc * s + 1.0 / 2;
    const double sn = r - r * s * ps, cs = 1 - s * pc;
    const double v = q & 1 ? cs : sn;
    return q & 2 ? -v : v;
}

static inline float cvm_m_sinf_inline(float xf)
{
    const float y = (float)cvm_m_sincos_f32core((double)xf, 0);
    return xf == 0 ? xf : y; /* -0 - k C3 with k = 0 and C3 < 0 is +0 */
}

static inline float cvm_m_cosf_inline(float xf)
{
    return (float)cvm_m_sincos_f32core((double)xf, 1);
}

/*
 * f32 erf, in f64 (the exact GELU calls it per element). For a = |x| < 1/2
 * its odd Maclaurin series to a^27 (truncation below 2^-68 relative); for
 * 1/2 <= a < 4, the Taylor polynomial of degree 14 of erf around the
 * centre c of a's quarter (c = 5/8, 7/8, ..., 31/8; |a - c| <= 1/8:
 * truncation below 2^-60 relative), its coefficients erf^(k)(c) / k! =
 * 2/sqrt(pi) (-1)^(k-1) H_(k-1)(c) e^(-c^2) / k! (H: Hermite polynomials)
 * computed with 60 digits (tools/mathgen/erf_coefficients.py prints both
 * tables); from 4 on the last quarter's polynomial, which
 * rounds to 1 there (erf(4) is within 2^-26 of 1). The sign is x's, so
 * erf(-0) = -0. On all 2^32 f32 inputs it gives the bits of the
 * double-double evaluation (docs/numerics.md). No branches: the quarter's
 * row is a table lookup (which keeps lane loops over it scalar on AVX2:
 * no gathers).
 */
static inline float cvm_m_erff_inline(float xf)
{
    static const double S[14] = {
        -0x1.d8453cb0c46eap-38, 0x1.9e6ad5e55a730p-34, -0x1.51d7181c5d36dp-30,
        0x1.fcc5720624c1cp-27, -0x1.5f742ec43e71ap-23, 0x1.b9e6c9dc651a3p-20,
        -0x1.f4d25c3e0c2ebp-17, 0x1.f9a326f9b89b7p-14, -0x1.c02db40040b86p-11,
        0x1.565bcd0e6a53fp-8, -0x1.b82ce31288b51p-6, 0x1.ce2f21a042be2p-4, -0x1.812746b0379e7p-2,
        0x1.20dd750429b6dp+0,
    };
    static const double T[14][15] = {
        {
            0x1.3f196dcd0f135p-1, 0x1.86e9694134b9ep-1, -0x1.e8a3c39181e85p-2,
            -0x1.c8105021682e3p-5, 0x1.6963c8a39d692p-3, -0x1.c1242dfffc503p-6,
            -0x1.52b2668e8627dp-5, 0x1.c7cd9c1ca7367p-7, 0x1.b62f4a7484034p-8,
            -0x1.dc3b46fdc32b4p-9, -0x1.81148d81da2abp-11, 0x1.63796d17c397ep-11,
            0x1.55121d5901343p-15, -0x1.a17211d2c836ep-14, 0x1.d91470c8a466fp-19},
        {
            0x1.91724951b8fc6p-1, 0x1.0cab61f084b93p-1, -0x1.d62beb64e8441p-2,
            0x1.7c9d756a115bbp-4, 0x1.cc60567d78c2bp-4, -0x1.1350f4b222ac7p-4,
            -0x1.53bb4a5af4fbep-7, 0x1.30ac21937fa54p-6, -0x1.e3f4d17a9ac97p-10,
            -0x1.aae22e15f782dp-9, 0x1.d6e44e4c09455p-11, 0x1.9900077d94d8ap-12,
            -0x1.94ae412712f8bp-13, -0x1.e70fe4fe69605p-16, 0x1.e7cc73fe79191p-16},
        {
            0x1.c6dad2829ec62p-1, 0x1.45e99bcbb7915p-2, -0x1.6ea6cf452e838p-2,
            0x1.4cb3cf0aa0b9bp-3, 0x1.ca5083167a246p-6, -0x1.f65d15f1cf8d7p-5,
            0x1.fd1c6c11eda72p-7, 0x1.3acc78420e9d3p-7, -0x1.8b43c43f205b7p-8,
            -0x1.79b04d104b47ap-12, 0x1.2e527649b7b04p-10, -0x1.731a0a163486bp-13,
            -0x1.28de963721690p-13, 0x1.9edd4cdd5c251p-15, 0x1.67a9d4aaf087dp-17},
        {
            0x1.e5768c3b4a3fcp-1, 0x1.5ce595c455b0ap-3, -0x1.dfbbadedf5d2ep-3,
            0x1.4374d82e04c67p-3, -0x1.f3b8d52d35665p-6, -0x1.f572c4c8c7b0cp-6,
            0x1.6b16f52c58b2bp-6, -0x1.73ffa9b859606p-10, -0x1.1740474706a1cp-8,
            0x1.9da3d48ffd0a3p-10, 0x1.534f6c4dc679bp-12, -0x1.6392df39d614dp-12,
            0x1.e13333b2abeefp-16, 0x1.5e43917418c74p-15, -0x1.921e058bbf683p-17},
        {
            0x1.f4f693b67bd77p-1, 0x1.499d478bca735p-4, -0x1.0bcfca21947dbp-3,
            0x1.d6631e1a28e9ep-4, -0x1.974c03686729dp-5, -0x1.17d430bd57df4p-9,
            0x1.d857f2c4bc9b6p-7, -0x1.954ab0f57a01ep-8, -0x1.2e43eef270fc5p-11,
            0x1.71cd78555df62p-10, -0x1.75457224274f8p-12, -0x1.07892ddcb78e9p-13,
            0x1.70f93e04bd30dp-14, -0x1.1e9ab9843baf7p-18, -0x1.63faf4af253acp-17},
        {
            0x1.fbe61eef4cf6ap-1, 0x1.12ceb37ff9bc3p-5, -0x1.01a1c847fa207p-4,
            0x1.143d1c6f4f093p-4, -0x1.5a316520b81bap-5, 0x1.779b1e57043ccp-7,
            0x1.0d099c7b29ddep-8, -0x1.42fcbaa85e8aap-8, 0x1.76ff57db443cap-10,
            0x1.7bda79657b833p-12, -0x1.991c209f22659p-12, 0x1.353eeafcf9fccp-14,
            0x1.2e9cb5a4b81e1p-15, -0x1.5d07bf672bc0cp-16, 0x1.b5c64438cd3e2p-21},
        {
            0x1.fea4218d6594ap-1, 0x1.94624e78e0fafp-7, -0x1.ada873606f0aap-6,
            0x1.0ea475da3be7fp-5, -0x1.afe553fa44f40p-6, 0x1.9973b489fa221p-7,
            -0x1.dd78ee1541166p-10, -0x1.ea03bb2493671p-10, 0x1.6aa2c0b920d39p-10,
            -0x1.2fdb2fcf76069p-12, -0x1.01788a2adcda8p-13, 0x1.8dd7aaa44262bp-14,
            -0x1.f70c69dddafe1p-17, -0x1.1c63c54b0b820p-17, 0x1.31565abd2c590p-18},
        {
            0x1.ff9960f3eb327p-1, 0x1.06918b6355624p-8, -0x1.37ccd585f564bp-7,
            0x1.c1ec102e364f1p-7, -0x1.ae59615f8eb1ap-7, 0x1.11dae47350ddep-7,
            -0x1.982b274b81788p-9, 0x1.0283e0b81b24ap-13, 0x1.377c452e88a90p-11,
            -0x1.61ec70a692e42p-12, 0x1.cae81a7d269ecp-15, 0x1.092767732524fp-15,
            -0x1.5cf9e49762523p-16, 0x1.a5c9bfe4a433fp-19, 0x1.c216855d38a39p-20},
        {
            0x1.ffe514bbdc197p-1, 0x1.2ce898809244ep-10, -0x1.8af14828bffa7p-9,
            0x1.407fbd18f1201p-8, -0x1.62d4c6d49c7b0p-8, 0x1.146c4b3e28c45p-8,
            -0x1.267f3bc3eb5a4p-9, 0x1.64f891b0c9bd5p-11, 0x1.229ef0be9e918p-15,
            -0x1.4006bb88db24fp-13, 0x1.3631d47d55298p-14, -0x1.5a7e166eeb7a4p-17,
            -0x1.c0ce5a29eef4cp-18, 0x1.16fa2e058d95cp-18, -0x1.6b774f84c5fcep-21},
        {
            0x1.fff9ba420e834p-1, 0x1.30538fbb77ecdp-12, -0x1.b5781e9d7c647p-11,
            0x1.89e17c074d373p-10, -0x1.ed4ac7daea43ep-10, 0x1.c11f27065ca3fp-10,
            -0x1.2add1ce773e8ep-10, 0x1.151f7854a4982p-11, -0x1.1c63ff4200387p-13,
            -0x1.0ec4b7a0e2922p-16, 0x1.1814499946fc1p-15, -0x1.f1014fd3fb252p-17,
            0x1.119cf80980e9dp-19, 0x1.3eae6af3e1196p-20, -0x1.9618ecf8f25a0p-21},
        {
            0x1.fffeb3ebb267bp-1, 0x1.0f9e1b4dd36dfp-14, -0x1.a8670aa99a5bcp-13,
            0x1.a3737e2a2f2bcp-12, -0x1.24544f02d2a7ep-11, 0x1.2e7e763d3371bp-11,
            -0x1.da496e53546cfp-12, 0x1.176cf6641d8cap-12, -0x1.d2ac6c8cdd1ebp-14,
            0x1.aafdbd335f9fcp-16, 0x1.03f2f284de14cp-18, -0x1.ab2ef5582c7b5p-18,
            0x1.6e35d70bd3c3ep-19, -0x1.bc99a1e9d0ad2p-22, -0x1.77b2f960ce544p-23},
        {
            0x1.ffffc316d9ed0p-1, 0x1.abe09e9144b5ep-17, -0x1.690585ca91f98p-15,
            0x1.84522fe8815bcp-14, -0x1.298f8d45f650ap-13, 0x1.577577885f858p-13,
            -0x1.330aab77d471cp-13, 0x1.ac9997dd049bcp-14, -0x1.cc1578b9af656p-15,
            0x1.64c530bff5499p-16, -0x1.34f0301aa55b8p-18, -0x1.5f92b1610bdc3p-21,
            0x1.1e1d7e12793fdp-20, -0x1.ef13e0f0bd673p-22, 0x1.5f1ef7fdb3c8ep-24},
        {
            0x1.fffff618c3da6p-1, 0x1.296a70f414053p-19, -0x1.0d88765d3224bp-17,
            0x1.394b1fa67116dp-16, -0x1.05760ad1bcf9ap-15, 0x1.4c1fe48a5aa68p-15,
            -0x1.4b98203383ad1p-15, 0x1.085c0f8220827p-15, -0x1.510a3c05c70ffp-16,
            0x1.516554a419344p-17, -0x1.f31a25c84a6cfp-19, 0x1.b0737cb186e0ep-21,
            0x1.49b56fe56c743p-24, -0x1.4fe2824279eacp-23, 0x1.3067117995f29p-24},
        {
            0x1.fffffe92ced93p-1, 0x1.6ce1aa3fd7bddp-22, -0x1.617a9cedd8ffep-20,
            0x1.b95fa39b39f7fp-19, -0x1.8e1fc41538bd9p-18, 0x1.137172180139ep-17,
            -0x1.2eb290b1828d4p-17, 0x1.0d8c35cb01026p-17, -0x1.88856a366325dp-18,
            0x1.d25c45f8a9f83p-19, -0x1.bbbb8753a480dp-20, 0x1.40016003f88c1p-21,
            -0x1.20d2ab47c8421p-23, -0x1.0aa78b8bd55cfp-28, 0x1.55986b9ba653ep-26},
    };
    const double a0 = fabs((double)xf);
    const double a = a0 < 4 ? a0 : 4; /* NaN too: its result is selected away */
    const double z = a * a;
    double ps = S[0];
    CVM_M_UNROLL
    for (int j = 1; j < 14; j++)
        ps = ps * z + S[j];
    const int q = (int)((a - 0.5) * 4);
    const int i = a < 0.5 ? 0 : q > 13 ? 13 : q;
    const double h = a - (0.625 + 0.25 * i);
    const double *const t = T[i];
    double pt = t[14];
    CVM_M_UNROLL
    for (int k = 13; k >= 0; k--)
        pt = pt * h + t[k];
    const float y = copysignf((float)(a < 0.5 ? a * ps : pt), xf);
    return xf != xf ? xf + xf : y;
}

#endif
