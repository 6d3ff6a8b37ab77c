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
 * and rounded once more; f32 exp, tanh, log, sin and cos have their own
 * branch-free f64 evaluations, below). All functions are pure and
 * thread-safe; none sets errno or floating-point exception flags on
 * purpose.
 */
#ifndef CVM_MATHLIB_H
#define CVM_MATHLIB_H

#include <math.h>

/* e^x */
double cvm_m_exp(double x);
float cvm_m_expf(float x);
static inline float cvm_m_expf_inline(float x);

/* 2^x */
double cvm_m_exp2(double x);
float cvm_m_exp2f(float x);

/* e^x - 1, accurate near 0 */
double cvm_m_expm1(double x);
float cvm_m_expm1f(float x);

/* natural logarithm */
double cvm_m_log(double x);
float cvm_m_logf(float x);

/* base-2 logarithm (exact at powers of 2) */
double cvm_m_log2(double x);
float cvm_m_log2f(float x);

/* base-10 logarithm */
double cvm_m_log10(double x);
float cvm_m_log10f(float x);

/* ln(1 + x), accurate near 0 */
double cvm_m_log1p(double x);
float cvm_m_log1pf(float x);

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

/* complementary error function */
double cvm_m_erfc(double x);
float cvm_m_erfcf(float x);

/* cube root */
double cvm_m_cbrt(double x);
float cvm_m_cbrtf(float x);

/* 1/sqrt(x) */
double cvm_m_rsqrt(double x);
float cvm_m_rsqrtf(float x);

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
 * f32 exp, evaluated in f64 directly (softmax and friends call it for every
 * element; the double-double core is ten times slower than an f32 result
 * needs): x = k ln2 + r with a Cody-Waite ln2 whose high part has 32
 * significant bits, so k * LN2_HI is exact for |k| <= 151 and r is within
 * 2^-60 of its true value; e^r for |r| <= 0.35 by its Taylor series to
 * degree 13 (truncation below 2^-57) in Horner form; 2^k from its bits.
 * The f64 result is within 2^-44 of e^x relative, so the f32 rounding is
 * off by at most 0.5 + 2^-20 ulp (docs/numerics.md). Written without
 * branches (the special cases are selects on a clamped argument) so lane
 * loops over it vectorize; cvm_m_expf is the same function out of line.
 */
/* e^x in f64 for x in [-104, 89] (callers clamp): the method above, within
 * 2^-44 relative. */
static inline double cvm_m_exp_f32core(double x)
{
    const double LN2_HI = 0x1.62e42fee00000p-1, LN2_LO = 0x1.a39ef35793c76p-33;
    const double kd = rint(x * 0x1.71547652b82fep+0);
    const double r = (x - kd * LN2_HI) - kd * LN2_LO;
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
    /* kd + 2^52 + 1023 holds the biased exponent in its low bits */
    union { double d; unsigned long long u; } t = {kd + (0x1p52 + 1023)}, sc;
    sc.u = t.u << 52;
    return p * sc.d;
}

static inline float cvm_m_expf_inline(float xf)
{
    const double x0 = xf;
    const double x = x0 > 89 ? 89 : x0 < -104 ? -104 : x0 == x0 ? x0 : 0;
    const float y = (float)cvm_m_exp_f32core(x);
    return x0 != x0 ? xf + xf : x0 > 89 ? INFINITY : x0 < -104 ? 0.0f : y;
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
 * line.
 */
static inline float cvm_m_logf_inline(float xf)
{
    const double LN2_HI = 0x1.62e42fee00000p-1, LN2_LO = 0x1.a39ef35793c76p-33;
    const double x = xf > 0 && xf < INFINITY ? (double)xf : 1.0; /* f32 subnormals are f64 normals */
    union { double d; unsigned long long u; } v = {x}, mb;
    mb.u = (v.u & 0x000fffffffffffffull) | 0x3ff0000000000000ull; /* m in [1, 2) */
    const long long e0 = (long long)(v.u >> 52) - 1023;
    const int hi = mb.d > 1.4142135623730951;
    const double m = hi ? mb.d * 0.5 : mb.d, e = (double)(e0 + hi);
    const double s = (m - 1) / (m + 1), s2 = s * s;
    double p = 1.0 / 21;
    p = p * s2 + 1.0 / 19;
    p = p * s2 + 1.0 / 17;
    p = p * s2 + 1.0 / 15;
    p = p * s2 + 1.0 / 13;
    p = p * s2 + 1.0 / 11;
    p = p * s2 + 1.0 / 9;
    p = p * s2 + 1.0 / 7;
    p = p * s2 + 1.0 / 5;
    p = p * s2 + 1.0 / 3;
    const double lm = 2 * s + 2 * s * s2 * p;
    const float y = (float)(e * LN2_HI + (e * LN2_LO + lm));
    return xf != xf ? xf + xf : xf == 0 ? -INFINITY : xf < 0 ? NAN : xf == INFINITY ? xf : y;
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

#endif
