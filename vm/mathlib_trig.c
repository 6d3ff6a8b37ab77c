/*
 * mathlib_trig.c - cubevm's trigonometric functions and their inverses
 * (the rest of the math library is in mathlib.c).
 *
 * sin/cos/tan reduce every finite argument exactly enough: x * 2/pi is
 * formed from a 192-bit window of 2/pi chosen by x's exponent
 * (Payne-Hanek, in integer arithmetic), so |x| up to DBL_MAX keeps a
 * relative error near 2^-76 in the reduced argument. The kernels and the
 * inverse functions evaluate in double-double and round once.
 */
#include "mathlib.h"

#include <stdint.h>

#include "mathlib_dd.h"
#include "numerics.h"

static const cvm_dd PI = {0x1.921fb54442d18p+1, 0x1.1a62633145c07p-53};
static const cvm_dd PIO2 = {0x1.921fb54442d18p+0, 0x1.1a62633145c07p-54};
static const cvm_dd ONE_SIXTH = {0x1.5555555555555p-3, 0x1.5555555555555p-57};
static const cvm_dd ONE_THIRD = {0x1.5555555555555p-2, 0x1.5555555555555p-56};

/* atan(j/8), j = 0..8 */
static const cvm_dd ATAN_J[9] = {
    {0, 0},
    {0x1.fd5ba9aac2f6ep-4, -0x1.cd37686760c17p-59},
    {0x1.f5b75f92c80ddp-3, 0x1.8ab6e3cf7afbdp-57},
    {0x1.6f61941e4def1p-2, -0x1.c63aae6f6e918p-56},
    {0x1.dac670561bb4fp-2, 0x1.a2b7f222f65e2p-56},
    {0x1.1e00babdefeb4p-1, -0x1.928df287a668fp-58},
    {0x1.4978fa3269ee1p-1, 0x1.2419a87f2a458p-56},
    {0x1.700a7c5784634p-1, -0x1.8c34d25aadef6p-56},
    {0x1.921fb54442d18p-1, 0x1.1a62633145c07p-55},
};

/* The bits of 2/pi after the binary point, 32 per word, most significant first. */
static const uint32_t TWO_OVER_PI[44] = {
    0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab,
    0xdebbc561, 0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e,
    0xe88235f5, 0x2ebb4484, 0xe99c7026, 0xb45f7e41, 0x3991d639, 0x835339f4, 0x9c845f8b,
    0xbdf9283b, 0x1ff897ff, 0xde05980f, 0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7,
    0x4f463f66, 0x9e5fea2d, 0x7527bac7, 0xebe5f17b, 0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1,
    0x1f8d5d08, 0x56033046, 0xfc7b6bab, 0xf0cfbc20, 0x9af4361d, 0xa9e39161, 0x5ee61b08,
    0x6599855f, 0x14a06900,
};

#define NLIMB 8 /* 256-bit product, little-endian 32-bit limbs */

/* Bits [pos, pos + n) of a little-endian limb array (n <= 63; outside = 0). */
static uint64_t bits_at(const uint32_t *v, int pos, int n)
{
    uint64_t r = 0;
    for (int i = n - 1; i >= 0; i--) {
        int b = pos + i;
        r <<= 1;
        if (b >= 0 && b < 32 * NLIMB)
            r |= (v[b >> 5] >> (b & 31)) & 1;
    }
    return r;
}

/* p = m * (192-bit window of 2/pi starting after bit s). */
static void mul_window(uint64_t m, int s, uint32_t p[NLIMB])
{
    uint32_t w[6]; /* little-endian */
    int wi = s / 32, sh = s % 32;
    for (int j = 0; j < 6; j++) {
        uint32_t a = TWO_OVER_PI[wi + j], b = TWO_OVER_PI[wi + j + 1];
        w[5 - j] = sh ? (a << sh) | (b >> (32 - sh)) : a;
    }
    uint64_t mm[2] = {m & 0xffffffffu, m >> 32};
    for (int i = 0; i < NLIMB; i++)
        p[i] = 0;
    for (int i = 0; i < 2; i++) {
        uint64_t carry = 0;
        for (int j = 0; j < 6; j++) {
            uint64_t t = mm[i] * w[j] + p[i + j] + carry;
            p[i + j] = (uint32_t)t;
            carry = t >> 32;
        }
        p[i + 6] = (uint32_t)carry;
    }
}

/*
 * For finite |x| >= pi/4: x = q*(pi/2) + r with |r| <= pi/4 (about);
 * returns q mod 4 and r as a double-double.
 */
static int reduce_pio2(double x, cvm_dd *r)
{
    uint64_t m;
    int e;
    cvm_n_f64_split(cvm_n_f64_bits(fabs(x)), &m, &e);
    /* bits i <= e-2 of 2/pi add multiples of 4 to x*2/pi: skip them */
    int s = e - 2 > 0 ? e - 2 : 0;
    uint32_t p[NLIMB];
    mul_window(m, s, p);
    int F = 192 + s - e; /* fraction bits of p */
    int q = (int)bits_at(p, F, 2);
    int neg = 0;
    if (bits_at(p, F - 1, 1)) { /* fraction >= 1/2: round q up, r = f - 1 */
        q++;
        neg = 1;
        uint64_t c = 1;
        for (int i = 0; i < NLIMB; i++) {
            c += (uint32_t)~p[i];
            p[i] = (uint32_t)c;
            c >>= 32;
        }
    }
    for (int b = F; b < 32 * NLIMB; b++) /* keep only the fraction */
        p[b >> 5] &= ~(UINT32_C(1) << (b & 31));
    int L = F - 1;
    while (L >= 0 && !((p[L >> 5] >> (L & 31)) & 1))
        L--;
    if (L < 0) {
        *r = dd_make(0, 0);
    } else {
        double hi = ldexp((double)bits_at(p, L - 52, 53), L - 52 - F);
        double lo = ldexp((double)bits_at(p, L - 105, 53), L - 105 - F);
        *r = dd_mul(dd_fast_two_sum(hi, lo), PIO2);
    }
    if (neg != (x < 0))
        *r = dd_neg(*r);
    if (x < 0)
        q = -q;
    return q & 3;
}

/* sin(r) for |r| <= ~pi/4 as a double-double. */
static cvm_dd sin_dd(cvm_dd r)
{
    double x = r.hi, x2 = x * x, p = 1.0 / 51090942171709440000.0; /* 1/21! */
    double f = 51090942171709440000.0;
    for (int n = 19; n >= 5; n -= 2) {
        f /= (double)((n + 1) * (n + 2));
        p = 1.0 / f - p * x2;
    }
    /* p = 1/5! - x^2/7! + ...; sin = x - x^3/6 + x^5 p, plus r.lo * cos x */
    cvm_dd x3 = dd_mul_d(dd_two_prod(x, x), x);
    cvm_dd s = dd_add(r, dd_neg(dd_mul(x3, ONE_SIXTH)));
    return dd_add_d(s, x * x2 * x2 * p - 0.5 * x2 * r.lo);
}

/* cos(r) for |r| <= ~pi/4 as a double-double. */
static cvm_dd cos_dd(cvm_dd r)
{
    double x = r.hi, x2 = x * x, p = 1.0 / 2432902008176640000.0; /* 1/20! */
    double f = 2432902008176640000.0;
    for (int n = 18; n >= 4; n -= 2) {
        f /= (double)((n + 1) * (n + 2));
        p = 1.0 / f - p * x2;
    }
    /* p = 1/4! - x^2/6! + ...; cos = 1 - (x + r.lo)^2/2 + x^4 p */
    cvm_dd sq = dd_two_prod(x, x);
    sq.lo += 2 * x * r.lo;
    cvm_dd c = dd_add_d(dd_make(-0.5 * sq.hi, -0.5 * sq.lo), 1.0);
    return dd_add_d(c, x2 * x2 * p);
}

/* Quadrant q and reduced argument of x (q = 0 and r = x when |x| < pi/4). */
static int reduce(double x, cvm_dd *r)
{
    if (fabs(x) < 0.78539816339744828)
        return *r = dd_make(x, 0), 0;
    return reduce_pio2(x, r);
}

double cvm_m_sin(double x)
{
    if (x != x || x - x != 0)
        return x != x ? x + x : NAN;
    if (fabs(x) < 0x1p-26)
        return x;
    cvm_dd r;
    int q = reduce(x, &r);
    cvm_dd v = (q & 1) ? cos_dd(r) : sin_dd(r);
    return dd_round(q & 2 ? dd_neg(v) : v);
}

double cvm_m_cos(double x)
{
    if (x != x || x - x != 0)
        return x != x ? x + x : NAN;
    if (fabs(x) < 0x1p-27)
        return 1.0;
    cvm_dd r;
    int q = reduce(x, &r);
    cvm_dd v = (q & 1) ? sin_dd(r) : cos_dd(r);
    return dd_round((q == 1 || q == 2) ? dd_neg(v) : v);
}

double cvm_m_tan(double x)
{
    if (x != x || x - x != 0)
        return x != x ? x + x : NAN;
    if (fabs(x) < 0x1p-27)
        return x;
    cvm_dd r;
    int q = reduce(x, &r);
    cvm_dd s = sin_dd(r), c = cos_dd(r);
    return dd_round((q & 1) ? dd_neg(dd_div(c, s)) : dd_div(s, c));
}

/* ---------------------------------------------------------------------
 * inverse functions
 * ------------------------------------------------------------------- */

/* atan(t) for t in [0, 1]: atan(c) + atan((t - c)/(1 + t c)), c = j/8 nearest t. */
static cvm_dd atan_unit(cvm_dd t)
{
    int j = (int)rint(t.hi * 8);
    double c = j / 8.0;
    cvm_dd u = dd_div(dd_add_d(t, -c), dd_add_d(dd_mul_d(t, c), 1.0));
    double x = u.hi, x2 = x * x, p = 1.0 / 19;
    for (int n = 17; n >= 5; n -= 2)
        p = 1.0 / n - p * x2;
    /* |u| <= 1/16: u - u^3/3 in double-double, u^5 p and u.lo's share in double */
    cvm_dd u3 = dd_mul(dd_mul_d(dd_two_prod(x, x), x), ONE_THIRD);
    cvm_dd v = dd_add(ATAN_J[j], dd_add(u, dd_neg(u3)));
    return dd_add_d(v, x * x2 * x2 * p - x2 * u.lo);
}

/* atan(n/d) for n, d >= 0, not both zero, in [0, pi/2]. */
static cvm_dd atan_ratio(cvm_dd n, cvm_dd d)
{
    if (n.hi <= d.hi)
        return atan_unit(dd_div(n, d));
    return dd_sub(PIO2, atan_unit(dd_div(d, n)));
}

double cvm_m_atan(double x)
{
    double a = fabs(x);
    if (x != x)
        return x + x;
    if (a < 0x1p-27)
        return x;
    double r = a > 0x1p60 ? PIO2.hi : dd_round(atan_ratio(dd_make(a, 0), dd_make(1, 0)));
    return x < 0 ? -r : r;
}

/* atan2 for the cases where x or y is zero or infinite (Annex F). */
static double atan2_special(double y, double x)
{
    int xneg = (int)(cvm_n_f64_bits(x) >> 63);
    double r;
    if (y == 0)
        r = xneg ? PI.hi : 0.0;
    else if (x == 0)
        r = PIO2.hi;
    else if (y - y != 0) /* y infinite */
        r = x - x != 0 ? (xneg ? 0x1.2d97c7f3321d2p+1 : 0x1.921fb54442d18p-1) : PIO2.hi;
    else /* x infinite, y finite */
        r = xneg ? PI.hi : 0.0;
    return cvm_n_copysign(r, y);
}

double cvm_m_atan2(double y, double x)
{
    if (x != x || y != y)
        return x + y;
    if (x == 0 || y == 0 || x - x != 0 || y - y != 0)
        return atan2_special(y, x);
    double ay = fabs(y), ax = fabs(x), r;
    int ey, ex;
    frexp(ay, &ey);
    frexp(ax, &ex);
    if (ey - ex < -60) /* |y/x| < 2^-59: atan(t) = t to double precision */
        r = x > 0 ? ay / ax : dd_round(dd_add_d(PI, -(ay / ax)));
    else if (ey - ex > 60)
        r = dd_round(dd_add_d(PIO2, ax / ay * (x > 0 ? -1 : 1)));
    else {
        int e = ey > ex ? ey : ex;
        cvm_dd v = atan_ratio(dd_make(ldexp(ay, -e), 0), dd_make(ldexp(ax, -e), 0));
        r = dd_round(x < 0 ? dd_sub(PI, v) : v);
    }
    return y < 0 ? -r : r;
}

/* sqrt(1 - a^2) for 0 <= a < 1 as a double-double. */
static cvm_dd cofunction(double a)
{
    cvm_dd d;
    if (a >= 0.5) /* 1 - a is exact here */
        d = dd_mul_d(dd_two_sum(1.0, a), 1.0 - a);
    else
        d = dd_add_d(dd_neg(dd_two_prod(a, a)), 1.0);
    return dd_sqrt(d);
}

double cvm_m_asin(double x)
{
    double a = fabs(x), r;
    if (x != x)
        return x + x;
    if (a > 1)
        return NAN;
    if (a < 0x1p-26)
        return x;
    r = a == 1 ? PIO2.hi : dd_round(atan_ratio(dd_make(a, 0), cofunction(a)));
    return x < 0 ? -r : r;
}

double cvm_m_acos(double x)
{
    double a = fabs(x);
    if (x != x)
        return x + x;
    if (a > 1)
        return NAN;
    if (a == 1)
        return x > 0 ? 0.0 : PI.hi;
    cvm_dd v = atan_ratio(cofunction(a), dd_make(a, 0));
    return dd_round(x < 0 ? dd_sub(PI, v) : v);
}

#define F32_VIA_F64(name)                                                                 \
    float cvm_m_##name##f(float x) { return (float)cvm_m_##name((double)x); }

F32_VIA_F64(tan)
F32_VIA_F64(asin)
F32_VIA_F64(acos)
F32_VIA_F64(atan)

float cvm_m_sinf(float x)
{
    return fabsf(x) <= CVM_M_TRIGF_INLINE_MAX ? cvm_m_sinf_inline(x) : (float)cvm_m_sin((double)x);
}

float cvm_m_cosf(float x)
{
    return fabsf(x) <= CVM_M_TRIGF_INLINE_MAX ? cvm_m_cosf_inline(x) : (float)cvm_m_cos((double)x);
}

float cvm_m_atan2f(float y, float x)
{
    return (float)cvm_m_atan2((double)y, (double)x);
}
