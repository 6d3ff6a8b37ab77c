/*
 * test_mathlib.c - checks cubevm's math library (vm/mathlib.h) against the
 * host's long double libm (80-bit on x86-64, an independent reference with
 * 11 more bits than f64) on edge values and random inputs, and the special
 * cases of C99 Annex F against hand-written expectations.
 *
 * Each function has the ULP bound docs/numerics.md states; the test fails
 * when a random or edge input exceeds it and prints the worst case seen.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "../vm/mathlib.h"
#include "tap.h"

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* uniform in [lo, hi] */
static double uni(double lo, double hi)
{
    return lo + (hi - lo) * ((double)(next() >> 11) * 0x1p-53);
}

/* log-uniform magnitude in [2^elo, 2^ehi] with a random sign when sgn */
static double logu(int elo, int ehi, int sgn)
{
    double m = 1 + (double)(next() >> 12) * 0x1p-52;
    double v = ldexp(m, elo + (int)(next() % (uint64_t)(ehi - elo + 1)));
    return (sgn && (next() & 1)) ? -v : v;
}

/* error of got against the exact-ish ref in units of the last place of
 * the format with `mant` fraction bits and minimum exponent `emin` */
static long double ulp_err(long double got, long double ref, int mant, int emin, long double maxv)
{
    if (isnan(ref))
        return isnan(got) ? 0 : 1e9;
    if (isnan(got))
        return 1e9;
    if (isinf(ref) || fabsl(ref) > maxv) {
        /* beyond the largest finite value: inf, or the largest value if ref
         * rounds down to it */
        if (isinf(got) && signbit(got) == signbit(ref))
            return 0;
        if (isinf(ref))
            return 1e9;
    }
    if (isinf(got))
        return fabsl(ref) > maxv ? 0 : 1e9;
    int e = ref == 0 ? emin : ilogbl(ref);
    if (e < emin)
        e = emin;
    long double ulp = ldexpl(1.0L, e - mant);
    return fabsl(got - ref) / ulp;
}

typedef double (*fn1)(double);
typedef float (*fn1f)(float);
typedef long double (*ref1)(long double);

static long double rsqrt_ref(long double x) { return 1.0L / sqrtl(x); }
static long double rcp_ref(long double x) { return 1.0L / x; }
static long double round_ref(long double x) { return roundl(x); }

typedef struct unary {
    const char *name;
    fn1 f;
    fn1f ff;
    ref1 ref;
    double bound, boundf;
    int kind;       /* 0: uniform [lo,hi]; 1: log-uniform exponents [lo,hi] with sign; 2: positive log-uniform */
    double lo, hi;  /* first range */
    int kind2;
    double lo2, hi2; /* second range */
} unary;

#define FN(n) #n, cvm_m_##n, cvm_m_##n##f
static const unary UNARY[] = {
    {FN(exp), expl, 1, 1, 0, -745.2, 709.8, 1, -60, 3},
    {FN(exp2), exp2l, 1, 1, 0, -1075, 1024, 1, -60, 3},
    {FN(expm1), expm1l, 1, 1, 0, -40, 709.7, 1, -1074, 0},
    {FN(log), logl, 1, 1, 2, -1074, 1023, 0, 0.5, 2},
    {FN(log2), log2l, 1, 1, 2, -1074, 1023, 0, 0.5, 2},
    {FN(log10), log10l, 1, 1, 2, -1074, 1023, 0, 0.5, 2},
    {FN(log1p), log1pl, 1, 1, 2, -1074, 1023, 0, -1, 1},
    {FN(sin), sinl, 1, 1, 0, -10, 10, 1, -30, 1023},
    {FN(cos), cosl, 1, 1, 0, -10, 10, 1, -30, 1023},
    {FN(tan), tanl, 1, 1, 0, -10, 10, 1, -30, 1023},
    {FN(asin), asinl, 1, 1, 0, -1, 1, 1, -1074, -1},
    {FN(acos), acosl, 1, 1, 0, -1, 1, 1, -1074, -1},
    {FN(atan), atanl, 1, 1, 0, -4, 4, 1, -1074, 1023},
    {FN(sinh), sinhl, 1, 1, 0, -710.4, 710.4, 1, -40, 3},
    {FN(cosh), coshl, 1, 1, 0, -710.4, 710.4, 1, -40, 3},
    {FN(tanh), tanhl, 1, 1, 0, -20, 20, 1, -40, 3},
    {FN(erf), erfl, 1, 1, 0, -6, 6, 1, -1074, 1},
    {FN(erfc), erfcl, 1, 1, 0, -6, 27.3, 0, 1.5, 12},
    {FN(cbrt), cbrtl, 1, 1, 1, -1074, 1023, 0, -10, 10},
    {FN(rsqrt), rsqrt_ref, 1, 1, 2, -1074, 1023, 0, 0.25, 4},
    {FN(rcp), rcp_ref, 0.5, 0.5, 1, -1022, 1022, 0, -3, 3},
    {FN(round), round_ref, 0, 0, 0, -1e6, 1e6, 1, -3, 60},
};

static double sample(int kind, double lo, double hi)
{
    if (kind == 0)
        return uni(lo, hi);
    return logu((int)lo, (int)hi, kind == 1);
}

/* edge inputs every unary function is also run on */
static const double EDGES[] = {
    0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 0x1p-1074, -0x1p-1074, 0x1p-1022, -0x1p-1022,
    DBL_MAX, -DBL_MAX, 0x1p-30, -0x1p-30, 0x1p-60, 3.141592653589793, 1.5707963267948966,
    0.7853981633974483, 709.78, -708.4, -745.1, 1023.9, -1074.5, 0.9999999999999999,
    1.0000000000000002, 22.0, 6.0, 2.0000000000000004, 1.9999999999999998, 26.5, 27.2, 1e22,
    6381956970095103.0 * 0x1p797, 0.49999999999999994, 2.5, -2.5, 4503599627370495.5,
};

static void check_unary(const unary *u, int n)
{
    long double worst = 0, worstf = 0;
    double at = 0, atf = 0;
    for (int i = 0; i < n + (int)(sizeof EDGES / sizeof EDGES[0]); i++) {
        double x = i < n ? sample(i & 1 ? u->kind2 : u->kind, i & 1 ? u->lo2 : u->lo, i & 1 ? u->hi2 : u->hi)
                         : EDGES[i - n];
        long double ref = u->ref(x);
        long double err = ulp_err(u->f(x), ref, 52, -1022, DBL_MAX);
        if (err > worst)
            worst = err, at = x;
        float xf = (float)x;
        if (i % 4 == 0) { /* f32 on a quarter of the inputs, from its own range */
            long double reff = u->ref(xf);
            long double ef = ulp_err(u->ff(xf), reff, 23, -126, FLT_MAX);
            if (ef > worstf)
                worstf = ef, atf = xf;
        }
    }
    ok(worst <= u->bound, "%s: max error %.3Lf ulp <= %g (at %a)", u->name, worst, u->bound, at);
    ok(worstf <= u->boundf, "%sf: max error %.3Lf ulp <= %g (at %a)", u->name, worstf, u->boundf, atf);
}

typedef struct binary {
    const char *name;
    double (*f)(double, double);
    float (*ff)(float, float);
    long double (*ref)(long double, long double);
    double bound, boundf;
} binary;

static const binary BINARY[] = {
    {FN(atan2), atan2l, 1, 1},
    {FN(pow), powl, 1, 1},
    {FN(hypot), hypotl, 1, 1},
    {FN(fmod), fmodl, 0, 0},
};

static void binary_args(const binary *b, int i, double *x, double *y)
{
    if (b->f == cvm_m_pow) {
        switch (i % 4) {
        case 0: *x = logu(-20, 20, 0), *y = uni(-30, 30); break;
        case 1: *x = uni(0.5, 2), *y = uni(-2000, 2000); break;
        case 2: *x = -logu(-5, 5, 0), *y = (double)(int)uni(-60, 60); break;
        default: *x = logu(-1074, 1023, 0), *y = uni(-1.5, 1.5); break;
        }
        return;
    }
    *x = (i & 1) ? logu(-1074, 1023, 1) : uni(-10, 10);
    *y = (i & 2) ? logu(-1074, 1023, 1) : uni(-10, 10);
    if (i % 8 == 7)
        *y = *x * uni(0.5, 2); /* near-equal magnitudes */
}

static void check_binary(const binary *b, int n)
{
    long double worst = 0, worstf = 0;
    double ax = 0, ay = 0;
    for (int i = 0; i < n; i++) {
        double x, y;
        binary_args(b, i, &x, &y);
        long double e = ulp_err(b->f(x, y), b->ref(x, y), 52, -1022, DBL_MAX);
        if (e > worst)
            worst = e, ax = x, ay = y;
        if (i % 4 == 0) {
            float xf = (float)x, yf = (float)y;
            long double ef = ulp_err(b->ff(xf, yf), b->ref(xf, yf), 23, -126, FLT_MAX);
            if (ef > worstf)
                worstf = ef;
        }
    }
    ok(worst <= b->bound, "%s: max error %.3Lf ulp <= %g (at %a, %a)", b->name, worst, b->bound, ax, ay);
    ok(worstf <= b->boundf, "%sf: max error %.3Lf ulp <= %g", b->name, worstf, b->boundf);
}

/* same bits, so that -0 differs from +0 and NaN equals NaN */
static int same(double got, double want)
{
    if (isnan(want))
        return isnan(got);
    return got == want && signbit(got) == signbit(want);
}

#define SAME(expr, want) ok(same((expr), (want)), "%s = %s", #expr, #want)

static void special_cases(void)
{
    double inf = INFINITY, nan = NAN;
    double pi = 3.141592653589793, pio2 = 1.5707963267948966, pio4 = 0.7853981633974483;
    SAME(cvm_m_exp(-inf), 0.0);
    SAME(cvm_m_exp(inf), inf);
    SAME(cvm_m_exp(nan), nan);
    SAME(cvm_m_exp(-0.0), 1.0);
    SAME(cvm_m_exp(710.0), inf);
    SAME(cvm_m_exp2(-1074.0), 0x1p-1074);
    SAME(cvm_m_exp2(10.0), 1024.0);
    SAME(cvm_m_expm1(-0.0), -0.0);
    SAME(cvm_m_expm1(-inf), -1.0);
    SAME(cvm_m_log(0.0), -inf);
    SAME(cvm_m_log(-0.0), -inf);
    SAME(cvm_m_log(-1.0), nan);
    SAME(cvm_m_log(1.0), 0.0);
    SAME(cvm_m_log(inf), inf);
    SAME(cvm_m_log2(0x1p-1074), -1074.0);
    SAME(cvm_m_log2(1024.0), 10.0);
    SAME(cvm_m_log10(1000.0), 3.0);
    SAME(cvm_m_log1p(-1.0), -inf);
    SAME(cvm_m_log1p(-2.0), nan);
    SAME(cvm_m_log1p(-0.0), -0.0);
    SAME(cvm_m_sin(-0.0), -0.0);
    SAME(cvm_m_sin(inf), nan);
    SAME(cvm_m_cos(-inf), nan);
    SAME(cvm_m_cos(0.0), 1.0);
    SAME(cvm_m_tan(-0.0), -0.0);
    SAME(cvm_m_asin(1.0), pio2);
    SAME(cvm_m_asin(-0.0), -0.0);
    SAME(cvm_m_asin(1.0000000000000002), nan);
    SAME(cvm_m_acos(1.0), 0.0);
    SAME(cvm_m_acos(-1.0), pi);
    SAME(cvm_m_acos(0.0), pio2);
    SAME(cvm_m_atan(inf), pio2);
    SAME(cvm_m_atan(-inf), -pio2);
    SAME(cvm_m_atan(-0.0), -0.0);
    SAME(cvm_m_atan2(0.0, -0.0), pi);
    SAME(cvm_m_atan2(-0.0, -0.0), -pi);
    SAME(cvm_m_atan2(-0.0, 0.0), -0.0);
    SAME(cvm_m_atan2(0.0, 1.0), 0.0);
    SAME(cvm_m_atan2(-0.0, -1.0), -pi);
    SAME(cvm_m_atan2(1.0, 0.0), pio2);
    SAME(cvm_m_atan2(-1.0, -0.0), -pio2);
    SAME(cvm_m_atan2(inf, inf), pio4);
    SAME(cvm_m_atan2(-inf, -inf), -2.356194490192345);
    SAME(cvm_m_atan2(1.0, -inf), pi);
    SAME(cvm_m_atan2(-1.0, inf), -0.0);
    SAME(cvm_m_atan2(inf, 5.0), pio2);
    SAME(cvm_m_sinh(-0.0), -0.0);
    SAME(cvm_m_sinh(-inf), -inf);
    SAME(cvm_m_cosh(-inf), inf);
    SAME(cvm_m_tanh(-inf), -1.0);
    SAME(cvm_m_tanh(-0.0), -0.0);
    SAME(cvm_m_erf(-0.0), -0.0);
    SAME(cvm_m_erf(inf), 1.0);
    SAME(cvm_m_erfc(-inf), 2.0);
    SAME(cvm_m_erfc(inf), 0.0);
    SAME(cvm_m_cbrt(-27.0), -3.0);
    SAME(cvm_m_cbrt(-0.0), -0.0);
    SAME(cvm_m_cbrt(-inf), -inf);
    SAME(cvm_m_hypot(inf, nan), inf);
    SAME(cvm_m_hypot(nan, -inf), inf);
    SAME(cvm_m_hypot(nan, 1.0), nan);
    SAME(cvm_m_hypot(-3.0, 4.0), 5.0);
    SAME(cvm_m_hypot(0x1p-1074, 0x1p-1074), 0x1p-1074);
    SAME(cvm_m_hypot(DBL_MAX, 1.0), DBL_MAX);
    SAME(cvm_m_rsqrt(-0.0), -inf);
    SAME(cvm_m_rsqrt(0.0), inf);
    SAME(cvm_m_rsqrt(inf), 0.0);
    SAME(cvm_m_rsqrt(-1.0), nan);
    SAME(cvm_m_rsqrt(0.25), 2.0);
    SAME(cvm_m_rcp(-0.0), -inf);
    SAME(cvm_m_rcp(3.0), 1.0 / 3.0);
    SAME(cvm_m_fmod(-7.0, 2.0), -1.0);
    SAME(cvm_m_fmod(-4.0, 2.0), -0.0);
    SAME(cvm_m_fmod(5.5, inf), 5.5);
    SAME(cvm_m_fmod(inf, 2.0), nan);
    SAME(cvm_m_fmod(1.0, 0.0), nan);
    SAME(cvm_m_fmod(DBL_MAX, 0x1p-1074), 0.0);
    SAME(cvm_m_fmod(1e300, 3.0), 0.0); /* int(1e300) % 3 == 0 */
    SAME(cvm_m_round(2.5), 3.0);
    SAME(cvm_m_round(-2.5), -3.0);
    SAME(cvm_m_round(-0.4), -0.0);
    SAME(cvm_m_round(0.49999999999999994), 0.0);
    SAME(cvm_m_round(4503599627370495.5), 4503599627370496.0);
    SAME(cvm_m_copysign(nan, -1.0) == 0 ? 1.0 : (signbit(cvm_m_copysign(nan, -1.0)) ? 1.0 : 0.0), 1.0);
    SAME(cvm_m_copysign(3.0, -0.0), -3.0);
    /* pow: the Annex F table */
    SAME(cvm_m_pow(nan, 0.0), 1.0);
    SAME(cvm_m_pow(1.0, nan), 1.0);
    SAME(cvm_m_pow(nan, 1.0), nan);
    SAME(cvm_m_pow(-0.0, -3.0), -inf);
    SAME(cvm_m_pow(0.0, -3.0), inf);
    SAME(cvm_m_pow(-0.0, -2.0), inf);
    SAME(cvm_m_pow(-0.0, -inf), inf);
    SAME(cvm_m_pow(-0.0, 3.0), -0.0);
    SAME(cvm_m_pow(-0.0, 2.0), 0.0);
    SAME(cvm_m_pow(-0.0, 0.5), 0.0);
    SAME(cvm_m_pow(-1.0, inf), 1.0);
    SAME(cvm_m_pow(-1.0, -inf), 1.0);
    SAME(cvm_m_pow(0.5, -inf), inf);
    SAME(cvm_m_pow(2.0, -inf), 0.0);
    SAME(cvm_m_pow(0.5, inf), 0.0);
    SAME(cvm_m_pow(-2.0, inf), inf);
    SAME(cvm_m_pow(-inf, -3.0), -0.0);
    SAME(cvm_m_pow(-inf, -2.0), 0.0);
    SAME(cvm_m_pow(-inf, 3.0), -inf);
    SAME(cvm_m_pow(-inf, 2.5), inf);
    SAME(cvm_m_pow(inf, -0.5), 0.0);
    SAME(cvm_m_pow(inf, 0.5), inf);
    SAME(cvm_m_pow(-8.0, 1.0 / 3), nan);
    SAME(cvm_m_pow(-2.0, 3.0), -8.0);
    SAME(cvm_m_pow(2.0, 1024.0), inf);
    SAME(cvm_m_pow(2.0, -1074.0), 0x1p-1074);
    SAME(cvm_m_pow(-2.0, -1075.0), -0.0);
    SAME(cvm_m_pow(10.0, 22.0), 1e22);
    SAME(cvm_m_pow(1e300, 1e300), inf);
    SAME((double)cvm_m_powf(-0.0f, -1.0f), -inf);
    SAME((double)cvm_m_expf(89.0f), inf);
    SAME((double)cvm_m_sinf(-0.0f), -0.0);
    /* f32 tanh has its own f64 evaluation: its edges and the seams between
     * its series, its quotient and the constant 1 */
    SAME((double)cvm_m_tanhf(-0.0f), -0.0);
    SAME((double)cvm_m_tanhf(0.0f), 0.0);
    SAME((double)cvm_m_tanhf((float)inf), 1.0);
    SAME((double)cvm_m_tanhf((float)-inf), -1.0);
    SAME((double)cvm_m_tanhf((float)nan), nan);
    SAME((double)cvm_m_tanhf(0x1p-149f), 0x1p-149);
    SAME((double)cvm_m_tanhf(-0x1p-149f), -0x1p-149);
    SAME((double)cvm_m_tanhf(10.0f), 1.0);
    SAME((double)cvm_m_tanhf(9.0f), (double)(float)tanhl(9.0L));
    SAME((double)cvm_m_tanhf(0.125f), (double)(float)tanhl(0.125L));
    SAME((double)cvm_m_tanhf(-0.124999993f), (double)(float)tanhl(-0.124999993L));
    SAME((double)cvm_m_tanhf(0.5f), (double)(float)tanhl(0.5L));
    /* so has f32 log: its special values, subnormals, the sqrt(2) seam */
    SAME((double)cvm_m_logf(0.0f), -inf);
    SAME((double)cvm_m_logf(-0.0f), -inf);
    SAME((double)cvm_m_logf(-1.0f), nan);
    SAME((double)cvm_m_logf((float)inf), inf);
    SAME((double)cvm_m_logf((float)-inf), nan);
    SAME((double)cvm_m_logf((float)nan), nan);
    SAME((double)cvm_m_logf(1.0f), 0.0);
    SAME((double)cvm_m_logf(0x1p-149f), (double)(float)logl(0x1p-149L));
    SAME((double)cvm_m_logf(1.41421354f), (double)(float)logl(1.41421354L));
    SAME((double)cvm_m_logf(1.41421366f), (double)(float)logl(1.41421366L));
    SAME((double)cvm_m_logf(0x1.fffffep127f), (double)(float)logl(0x1.fffffep127L));
    /* and f32 sin and cos up to 2^24: special values, f32 values near
     * multiples of pi/2 (among them the five nearest below 2^24, the
     * most cancelling reductions), either side of 2^24 (where the full
     * reduction takes over) */
    SAME((double)cvm_m_sinf(0.0f), 0.0);
    SAME((double)cvm_m_cosf(-0.0f), 1.0);
    SAME((double)cvm_m_sinf((float)inf), nan);
    SAME((double)cvm_m_cosf((float)-inf), nan);
    SAME((double)cvm_m_sinf((float)nan), nan);
    SAME((double)cvm_m_cosf((float)nan), nan);
    SAME((double)cvm_m_sinf(0x1p-149f), 0x1p-149);
    SAME((double)cvm_m_sinf(-0x1p-149f), -0x1p-149);
    /* the other branch-free f32 functions: rsqrt, exp2, expm1, log2, log10, log1p, erf */
    SAME((double)cvm_m_rsqrtf(0.0f), inf);
    SAME((double)cvm_m_rsqrtf(-0.0f), -inf);
    SAME((double)cvm_m_rsqrtf(-1.0f), nan);
    SAME((double)cvm_m_rsqrtf((float)inf), 0.0);
    SAME((double)cvm_m_rsqrtf(0x1p-149f), (double)(float)(1.0L / sqrtl(0x1p-149L)));
    SAME((double)cvm_m_rsqrtf(0.25f), 2.0);
    SAME((double)cvm_m_exp2f(128.0f), inf);
    SAME((double)cvm_m_exp2f(127.0f), 0x1p127);
    SAME((double)cvm_m_exp2f(-149.0f), 0x1p-149);
    SAME((double)cvm_m_exp2f(-150.0f), 0.0); /* 2^-150: a tie, to even */
    SAME((double)cvm_m_exp2f(-149.5f), 0x1p-149);
    SAME((double)cvm_m_exp2f(-126.5f), (double)(float)exp2l(-126.5L)); /* a subnormal */
    SAME((double)cvm_m_exp2f((float)-inf), 0.0);
    SAME((double)cvm_m_exp2f((float)nan), nan);
    SAME((double)cvm_m_log2f(8.0f), 3.0);
    SAME((double)cvm_m_log2f(0x1p-149f), -149.0);
    SAME((double)cvm_m_log2f(-0.0f), -inf);
    SAME((double)cvm_m_log10f(1000.0f), 3.0);
    /* 1.4e-9 ulp from a tie: one rounding of e log10(2) missed them */
    SAME((double)cvm_m_log10f(0x1.1727b8p-91f), (double)(float)log10l(0x1.1727b8p-91L));
    SAME((double)cvm_m_log10f(0x1.5cf1a6p-88f), (double)(float)log10l(0x1.5cf1a6p-88L));
    SAME((double)cvm_m_log10f(-2.0f), nan);
    SAME((double)cvm_m_log10f((float)inf), inf);
    SAME((double)cvm_m_expm1f(-0.0f), -0.0);
    SAME((double)cvm_m_expm1f(0.0f), 0.0);
    SAME((double)cvm_m_expm1f((float)-inf), -1.0);
    SAME((double)cvm_m_expm1f((float)inf), inf);
    SAME((double)cvm_m_expm1f(-0x1p-149f), -0x1p-149);
    SAME((double)cvm_m_expm1f(88.8f), inf);
    SAME((double)cvm_m_expm1f(-17.5f), -1.0);
    SAME((double)cvm_m_expm1f(0.5f), (double)(float)expm1l(0.5L));
    SAME((double)cvm_m_expm1f(0.49999997f), (double)(float)expm1l(0.49999997L));
    SAME((double)cvm_m_expm1f(-0.5f), (double)(float)expm1l(-0.5L));
    SAME((double)cvm_m_log1pf(-1.0f), -inf);
    SAME((double)cvm_m_log1pf(-2.0f), nan);
    SAME((double)cvm_m_log1pf(-0.0f), -0.0);
    SAME((double)cvm_m_log1pf((float)inf), inf);
    SAME((double)cvm_m_log1pf(0x1p-149f), 0x1p-149);
    SAME((double)cvm_m_log1pf(0x1.fffffep-30f), (double)(float)log1pl(0x1.fffffep-30L));
    SAME((double)cvm_m_log1pf(0x1p-29f), (double)(float)log1pl(0x1p-29L));
    SAME((double)cvm_m_log1pf(0x1p60f), (double)(float)log1pl(0x1p60L));
    SAME((double)cvm_m_log1pf(-0x1.fffffep-1f), (double)(float)log1pl(-0x1.fffffep-1L));
    /* 1.2e-10 ulp from a tie (mpmath at 50 digits: 0.40221314132213592186...);
     * (float)cvm_m_log1p(x) rounds it the wrong way */
    SAME((double)cvm_m_log1pf(0x1.fb035ap-2f), 0x1.9bddc2p-2);
    SAME((double)cvm_m_erff(-0.0f), -0.0);
    SAME((double)cvm_m_erff((float)-inf), -1.0);
    SAME((double)cvm_m_erff((float)nan), nan);
    SAME((double)cvm_m_erff(4.0f), 1.0);
    SAME((double)cvm_m_erff(0x1p-149f), 0x1p-149);
    static const float ERF_EDGES[] = {0.49999997f, 0.5f, 0.75f, 0.74999994f, 3.875f, 3.9999998f,
                                      3.91f, 1e-20f, -2.2f};
    for (size_t i = 0; i < sizeof ERF_EDGES / sizeof ERF_EDGES[0]; i++)
        ok(same((double)cvm_m_erff(ERF_EDGES[i]), (double)(float)erfl((long double)ERF_EDGES[i])),
           "cvm_m_erff(%a) = erfl rounded", (double)ERF_EDGES[i]);
    static const float TRIG_EDGES[] = {0x1.921fb6p0f, -0x1.921fb6p1f, 0x1.2d97c8p2f, 0x1.2d97c8p3f,
                                       0x1.f9cbe2p+7f, 0x1.f9cbe2p+8f, 0x1.9a48dep+15f, 0x1.f9cbe2p+9f,
                                       0x1.fffffep23f, 0x1p24f, 0x1.000002p24f, -0x1p24f,
                                       0x1.fffffep127f, 0.785398185f, -1e-4f};
    for (size_t i = 0; i < sizeof TRIG_EDGES / sizeof TRIG_EDGES[0]; i++) {
        const float x = TRIG_EDGES[i];
        ok(same((double)cvm_m_sinf(x), (double)(float)sinl((long double)x)),
           "cvm_m_sinf(%a) = sinl rounded", (double)x);
        ok(same((double)cvm_m_cosf(x), (double)(float)cosl((long double)x)),
           "cvm_m_cosf(%a) = cosl rounded", (double)x);
    }
}

static float u01(uint64_t *st)
{
    *st ^= *st << 13, *st ^= *st >> 7, *st ^= *st << 17;
    return (float)(*st >> 40) / 16777216.0f;
}

/* Whether got and want differ in their bits, a NaN matching any NaN. */
static int bits_differ(float got, float want)
{
    return memcmp(&got, &want, sizeof got) && !(got != got && want != want);
}

/*
 * The branch-free f32 functions (mathlib.h *_inline, through the cvm_m_*f
 * entry points) against the double-double f64 functions rounded to f32,
 * bit for bit (NaN as any NaN), on n random bit patterns and n values in
 * [-10, 10] each. All 2^32 inputs agreed when they were written, but for
 * log1p at 0x1.fb035ap-2 (special_cases pins it).
 */
static void check_inline_bits(long n)
{
    static const struct {
        const char *name;
        float (*f)(float);
        double (*d)(double);
    } FN[] = {
        {"exp", cvm_m_expf, cvm_m_exp},       {"exp2", cvm_m_exp2f, cvm_m_exp2},
        {"expm1", cvm_m_expm1f, cvm_m_expm1}, {"log", cvm_m_logf, cvm_m_log},
        {"log2", cvm_m_log2f, cvm_m_log2},    {"log10", cvm_m_log10f, cvm_m_log10},
        {"log1p", cvm_m_log1pf, cvm_m_log1p}, {"tanh", cvm_m_tanhf, cvm_m_tanh},
        {"sin", cvm_m_sinf, cvm_m_sin},       {"cos", cvm_m_cosf, cvm_m_cos},
        {"rsqrt", cvm_m_rsqrtf, cvm_m_rsqrt}, {"erf", cvm_m_erff, cvm_m_erf},
    };
    for (size_t k = 0; k < sizeof FN / sizeof FN[0]; k++) {
        uint64_t st = 0x2545f4914f6cdd1dull + k;
        long bad = 0;
        float first = 0;
        for (long i = 0; i < 2 * n; i++) {
            float x;
            if (i & 1) {
                x = u01(&st) * 20 - 10;
            } else {
                (void)u01(&st);
                const uint32_t b = (uint32_t)st;
                memcpy(&x, &b, sizeof x);
            }
            const float got = FN[k].f(x), want = (float)FN[k].d((double)x);
            if (bits_differ(got, want) && bad++ == 0)
                first = x;
        }
        if (!ok(bad == 0, "f32 %s: %ld inputs bit-identical to the double-double %s", FN[k].name,
                2 * n, FN[k].name))
            diag("  %ld differ; the first at %a", bad, (double)first);
    }
}

/* f32 exp's two evaluations (mathlib.h cvm_m_expf_eval): with fused
 * multiply-adds (the x86-64-v3 and -v4 interpreter variants and native
 * code on FMA CPUs) and with separate ones (baseline x86-64, cvm_m_expf),
 * against each other and against the degree-13 Taylor core it replaced
 * (cvm_m_exp_f32core, another polynomial, with the special values written
 * out here), bit for bit (a NaN as any NaN): every stride-th of the 2^32
 * inputs, or all of them with CVM_EXHAUSTIVE=1 (about two minutes). All
 * 2^32 agreed when it was written. The fused form runs only where the CPU
 * has FMA. */
#if defined(__x86_64__) && defined(__GNUC__)
#define FMA_TARGET __attribute__((target("fma")))
#define HAVE_FUSED() __builtin_cpu_supports("fma")
#else
#define FMA_TARGET
#define HAVE_FUSED() 1
#endif

FMA_TARGET static float expf_fused(float x)
{
    return cvm_m_expf_eval(x, 1);
}

static float expf_taylor13(float x)
{
    const double d = x;
    return d != d ? NAN : d > 89 ? INFINITY : d < -104 ? 0.0f : (float)cvm_m_exp_f32core(d);
}

static float u32f(uint32_t b)
{
    float x;
    memcpy(&x, &b, 4);
    return x;
}

static void check_expf_forms(void)
{
    const char *all = getenv("CVM_EXHAUSTIVE");
    const uint64_t stride = all && *all == '1' ? 1 : 97;
    const int fused = HAVE_FUSED();
    uint64_t n = 0, bad_plain = 0, bad_fused = 0;
    uint32_t first_plain = 0, first_fused = 0;
    for (uint64_t u = 0; u < (1ull << 32); u += stride, n++) {
        const uint32_t b = (uint32_t)u;
        const float x = u32f(b);
        const float want = expf_taylor13(x);
        if (bits_differ(cvm_m_expf_eval(x, 0), want) && bad_plain++ == 0)
            first_plain = b;
        if (fused && bits_differ(expf_fused(x), want) && bad_fused++ == 0)
            first_fused = b;
    }
    if (!ok(bad_plain == 0, "f32 exp, separate multiply-adds: %llu inputs (every %llu-th bit pattern) "
            "bit-identical to the degree-13 core", (unsigned long long)n, (unsigned long long)stride))
        diag("  %llu differ; the first at %a", (unsigned long long)bad_plain, (double)u32f(first_plain));
    if (!fused) {
        skip("f32 exp, fused multiply-adds: this CPU has no FMA");
        return;
    }
    if (!ok(bad_fused == 0, "f32 exp, fused multiply-adds: the same %llu inputs bit-identical too",
            (unsigned long long)n))
        diag("  %llu differ; the first at %a", (unsigned long long)bad_fused, (double)u32f(first_fused));
}

/*
 * f32 pow's branch-free routine against the double-double f64 pow rounded
 * to f32 (another algorithm: Dekker-split log2 and exp2 against
 * double-double log and exp), bit for bit, on a million pairs: x over
 * 2^-20..2^20 with y in [-30, 30], x within 2^-10 of 1 with |y| <= 2000,
 * any positive x with |y| <= 2, and small integer and half-integer y.
 * 400 million pairs of the same mix agreed when it was written.
 */
static void check_powf_bits(long n)
{
    uint64_t st = 0x9e3779b97f4a7c15ull;
    long bad = 0, first = -1;
    float fx = 0, fy = 0;
#define U01() u01(&st)
    for (long i = 0; i < n; i++) {
        float x, y;
        uint32_t xb;
        switch (i % 4) {
        case 0: x = exp2f(U01() * 40 - 20), y = U01() * 60 - 30; break;
        case 1: x = 1.0f + (U01() - 0.5f) * 0x1p-9f, y = U01() * 4000 - 2000; break;
        case 2:
            (void)U01();
            xb = (uint32_t)st & 0x7f7fffffu;
            memcpy(&x, &xb, 4);
            x = x == 0 ? 1 : x, y = U01() * 4 - 2;
            break;
        default: {
            x = exp2f(U01() * 60 - 30);
            const float k = (float)((int)(U01() * 20) - 10);
            y = U01() < 0.5f ? k : 0.5f * k;
            break;
        }
        }
        const float got = cvm_m_powf(x, y), want = (float)cvm_m_pow((double)x, (double)y);
        if (memcmp(&got, &want, sizeof got) && bad++ == 0)
            first = i, fx = x, fy = y;
    }
#undef U01
    if (!ok(bad == 0, "f32 pow: %ld pairs bit-identical to the double-double pow", n))
        diag("  %ld differ; the first, pair %ld: pow(%a, %a)", bad, first, (double)fx, (double)fy);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    special_cases();
    check_powf_bits(n * 10);
    check_inline_bits(n);
    check_expf_forms();
    for (size_t i = 0; i < sizeof UNARY / sizeof UNARY[0]; i++)
        check_unary(&UNARY[i], n);
    for (size_t i = 0; i < sizeof BINARY / sizeof BINARY[0]; i++)
        check_binary(&BINARY[i], n);
    return done_testing();
}
