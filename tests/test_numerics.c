/*
 * test_numerics.c - checks vm/numerics.h: integer division, remainder,
 * shifts, bit counts, float min/max, saturating conversions against
 * expected values written by hand, and the f16/bf16 conversions and fma
 * against independent references in this file (exact integer arithmetic,
 * exhaustive where the input space allows).
 */
#include <float.h>
#include <stdbool.h>
#include <math.h>
#include <stdint.h>

#include "../vm/numerics.h"
#include "tap.h"

__extension__ typedef __int128 i128;

#define U(x) ((unsigned long long)(x))
#define EQ(got, want) is_int((long long)(got), (long long)(want), "%s == %s", #got, #want)
#define UEQ(got, want) ok(U(got) == U(want), "%s == %s (got %#llx)", #got, #want, U(got))

static void integers(void)
{
    EQ(cvm_n_sdiv(7, 0, 32), -1);
    EQ(cvm_n_sdiv(INT32_MIN, -1, 32), INT32_MIN);
    EQ(cvm_n_sdiv(INT64_MIN, -1, 64), INT64_MIN);
    EQ(cvm_n_sdiv(-128, -1, 8), -128);
    EQ(cvm_n_sdiv(-7, 2, 32), -3);
    EQ(cvm_n_sdiv(7, -2, 16), -3);
    EQ(cvm_n_srem(7, 0, 32), 7);
    EQ(cvm_n_srem(INT64_MIN, -1, 64), 0);
    EQ(cvm_n_srem(INT16_MIN, -1, 16), 0);
    EQ(cvm_n_srem(-7, 2, 32), -1);
    EQ(cvm_n_srem(7, -2, 8), 1);
    UEQ(cvm_n_udiv(5, 0, 8), 0xff);
    UEQ(cvm_n_udiv(5, 0, 32), 0xffffffffu);
    UEQ(cvm_n_udiv(5, 0, 64), UINT64_MAX);
    UEQ(cvm_n_udiv(UINT64_MAX, 2, 64), UINT64_MAX / 2);
    UEQ(cvm_n_urem(5, 0, 16), 5);
    UEQ(cvm_n_urem(0xffff, 7, 16), 0xffff % 7);
    /* shifts: counts 0, width-1, width, width+1, huge */
    UEQ(cvm_n_shl(0x81, 0, 8), 0x81);
    UEQ(cvm_n_shl(0x81, 7, 8), 0x80);
    UEQ(cvm_n_shl(0x81, 8, 8), 0);
    UEQ(cvm_n_shl(0x81, 9, 8), 0);
    UEQ(cvm_n_shl(1, 63, 64), UINT64_C(1) << 63);
    UEQ(cvm_n_shl(1, 64, 64), 0);
    UEQ(cvm_n_shl(1, UINT64_MAX, 64), 0);
    UEQ(cvm_n_shl(0xffffffffu, 31, 32), 0x80000000u);
    UEQ(cvm_n_lshr(0x80000000u, 31, 32), 1);
    UEQ(cvm_n_lshr(0x80000000u, 32, 32), 0);
    UEQ(cvm_n_lshr(0x80000000u, 33, 32), 0);
    UEQ(cvm_n_lshr(UINT64_MAX, 0, 64), UINT64_MAX);
    UEQ(cvm_n_lshr(UINT64_MAX, UINT64_C(1) << 40, 64), 0);
    EQ(cvm_n_ashr(-128, 7, 8), -1);
    EQ(cvm_n_ashr(-128, 8, 8), -1);
    EQ(cvm_n_ashr(-128, 9, 8), -1);
    EQ(cvm_n_ashr(127, 8, 8), 0);
    EQ(cvm_n_ashr(INT64_MIN, 63, 64), -1);
    EQ(cvm_n_ashr(INT64_MIN, 64, 64), -1);
    EQ(cvm_n_ashr(INT64_MIN, UINT64_MAX, 64), -1);
    EQ(cvm_n_ashr(INT64_MAX, 64, 64), 0);
    EQ(cvm_n_ashr(-9, 1, 32), -5);
    EQ(cvm_n_ashr(-9, 0, 32), -9);
    /* high halves */
    EQ(cvm_n_smulhi(-1, -1, 64), 0);
    EQ(cvm_n_smulhi(INT64_MIN, INT64_MIN, 64), INT64_C(1) << 62);
    EQ(cvm_n_smulhi(INT64_MIN, INT64_MAX, 64), -(INT64_C(1) << 62));
    EQ(cvm_n_smulhi(-1, 1, 64), -1);
    EQ(cvm_n_smulhi(INT32_MIN, INT32_MIN, 32), 0x40000000);
    EQ(cvm_n_smulhi(-2, 3, 32), -1);
    EQ(cvm_n_smulhi(-128, 127, 8), -64);
    UEQ(cvm_n_umulhi(UINT64_MAX, UINT64_MAX, 64), UINT64_MAX - 1);
    UEQ(cvm_n_umulhi(UINT64_C(1) << 32, UINT64_C(1) << 32, 64), 1);
    UEQ(cvm_n_umulhi(0xffffffffu, 0xffffffffu, 32), 0xfffffffeu);
    UEQ(cvm_n_umulhi(0xff, 0xff, 8), 0xfe);
    /* wrap helpers */
    EQ(cvm_n_sext(0x80, 8), -128);
    EQ(cvm_n_sext(0x17f, 8), 127);
    EQ(cvm_n_sext(UINT64_MAX, 64), -1);
    UEQ(cvm_n_zext(UINT64_MAX, 16), 0xffff);
    UEQ(cvm_n_zext(UINT64_MAX, 64), UINT64_MAX);
    UEQ(cvm_n_add(0xff, 1, 8), 0);
    UEQ(cvm_n_mul(0x10000, 0x10000, 32), 0);
    EQ(cvm_n_sabs(INT64_MIN, 64), INT64_MIN);
    EQ(cvm_n_sabs(INT32_MIN, 32), INT32_MIN);
    EQ(cvm_n_sabs(-5, 16), 5);
    EQ(cvm_n_sneg(-128, 8), -128);
    EQ(cvm_n_sneg(5, 8), -5);
    /* counts */
    EQ(cvm_n_popc(0, 32), 0);
    EQ(cvm_n_popc(UINT64_MAX, 64), 64);
    EQ(cvm_n_popc(UINT64_MAX, 8), 8);
    EQ(cvm_n_clz(0, 8), 8);
    EQ(cvm_n_clz(0, 64), 64);
    EQ(cvm_n_clz(1, 32), 31);
    EQ(cvm_n_clz(0x80, 8), 0);
    EQ(cvm_n_clz(UINT64_MAX, 16), 0);
    EQ(cvm_n_ctz(0, 16), 16);
    EQ(cvm_n_ctz(0, 64), 64);
    EQ(cvm_n_ctz(UINT64_C(1) << 63, 64), 63);
    EQ(cvm_n_ctz(0x100, 8), 8); /* the bit is outside the width */
    UEQ(cvm_n_brev(1, 8), 0x80);
    UEQ(cvm_n_brev(1, 64), UINT64_C(1) << 63);
    UEQ(cvm_n_brev(0x12345678u, 32), 0x1e6a2c48u);
    UEQ(cvm_n_brev(0x0001, 16), 0x8000);
}

static int same32(float a, float b)
{
    return cvm_n_f32_bits(a) == cvm_n_f32_bits(b);
}

static int same64(double a, double b)
{
    return cvm_n_f64_bits(a) == cvm_n_f64_bits(b);
}

#define SAME32(got, want) ok(same32((got), (want)), "%s is %s", #got, #want)
#define SAME64(got, want) ok(same64((got), (want)), "%s is %s", #got, #want)

static void floats(void)
{
    float nf = cvm_n_f32_from(0x7fc00001u), inf = INFINITY;
    float canon = cvm_n_f32_from(0x7fc00000u);
    SAME32(cvm_n_fminf(nf, 1.0f), 1.0f);
    SAME32(cvm_n_fminf(1.0f, nf), 1.0f);
    SAME32(cvm_n_fminf(nf, nf), canon);
    SAME32(cvm_n_fminf(-0.0f, 0.0f), -0.0f);
    SAME32(cvm_n_fminf(0.0f, -0.0f), -0.0f);
    SAME32(cvm_n_fmaxf(-0.0f, 0.0f), 0.0f);
    SAME32(cvm_n_fmaxf(0.0f, -0.0f), 0.0f);
    SAME32(cvm_n_fmaxf(-inf, nf), -inf);
    SAME32(cvm_n_fminf(-inf, 3.0f), -inf);
    SAME32(cvm_n_fmaxf(0x1p-149f, 0.0f), 0x1p-149f);
    SAME32(cvm_n_clampf(5.0f, -1.0f, 1.0f), 1.0f);
    SAME32(cvm_n_clampf(nf, -1.0f, 1.0f), -1.0f);
    double nd = NAN;
    SAME64(cvm_n_fmin(nd, nd), cvm_n_f64_from(UINT64_C(0x7ff8000000000000)));
    SAME64(cvm_n_fmin(-0.0, 0.0), -0.0);
    SAME64(cvm_n_fmax(-0.0, 0.0), 0.0);
    SAME64(cvm_n_fmax(nd, -2.0), -2.0);
    SAME64(cvm_n_fmin(1.0, -(double)INFINITY), -(double)INFINITY);
    SAME32(cvm_n_copysignf(3.0f, -0.0f), -3.0f);
    ok(cvm_n_f32_bits(cvm_n_copysignf(nf, -1.0f)) == 0xffc00001u, "copysign keeps the NaN payload");
    SAME64(cvm_n_copysign(-2.0, 1.0), 2.0);
    SAME32(cvm_n_fabsf(-0.0f), 0.0f);
    SAME32(cvm_n_fnegf(0.0f), -0.0f);
}

static void conversions(void)
{
    EQ(cvm_n_f64_to_sint(NAN, 32), 0);
    EQ(cvm_n_f64_to_sint(INFINITY, 32), INT32_MAX);
    EQ(cvm_n_f64_to_sint(-INFINITY, 32), INT32_MIN);
    EQ(cvm_n_f64_to_sint(2147483647.9, 32), INT32_MAX);
    EQ(cvm_n_f64_to_sint(2147483648.0, 32), INT32_MAX);
    EQ(cvm_n_f64_to_sint(-2147483648.9, 32), INT32_MIN);
    EQ(cvm_n_f64_to_sint(-2147483649.0, 32), INT32_MIN);
    EQ(cvm_n_f64_to_sint(-1.9, 32), -1);
    EQ(cvm_n_f64_to_sint(-0.0, 8), 0);
    EQ(cvm_n_f64_to_sint(127.5, 8), 127);
    EQ(cvm_n_f64_to_sint(-200.0, 8), -128);
    EQ(cvm_n_f64_to_sint(0x1p63, 64), INT64_MAX);
    EQ(cvm_n_f64_to_sint(-0x1p63, 64), INT64_MIN);
    EQ(cvm_n_f64_to_sint(0x1.fffffffffffffp62, 64), INT64_C(0x7ffffffffffffc00));
    EQ(cvm_n_f64_to_sint(-1e300, 64), INT64_MIN);
    EQ(cvm_n_f64_to_sint(0x1p-1074, 16), 0);
    UEQ(cvm_n_f64_to_uint(NAN, 32), 0);
    UEQ(cvm_n_f64_to_uint(-0.9, 32), 0);
    UEQ(cvm_n_f64_to_uint(-5.0, 32), 0);
    UEQ(cvm_n_f64_to_uint(-INFINITY, 64), 0);
    UEQ(cvm_n_f64_to_uint(255.9, 8), 255);
    UEQ(cvm_n_f64_to_uint(256.0, 8), 255);
    UEQ(cvm_n_f64_to_uint(0x1p64, 64), UINT64_MAX);
    UEQ(cvm_n_f64_to_uint(0x1.fffffffffffffp63, 64), UINT64_C(0xfffffffffffff800));
    UEQ(cvm_n_f64_to_uint(INFINITY, 16), 0xffff);
    EQ(cvm_n_f32_to_sint(-3.99f, 32), -3);
    EQ(cvm_n_f32_to_sint(NAN, 64), 0);
    UEQ(cvm_n_f32_to_uint(4294967296.0f, 32), 0xffffffffu);
    EQ(cvm_n_f16_to_sint(0x7c00, 8), 127);   /* +inf */
    EQ(cvm_n_f16_to_sint(0xfc00, 32), INT32_MIN);
    EQ(cvm_n_f16_to_sint(0x7e00, 32), 0);    /* NaN */
    EQ(cvm_n_f16_to_sint(0xc0e0, 32), -2);   /* -2.4375 */
    UEQ(cvm_n_f16_to_uint(0x7bff, 16), 65504);
    UEQ(cvm_n_bf16_to_uint(0x4780, 16), 0xffff); /* 65536 saturates */
    EQ(cvm_n_bf16_to_sint(0xc040, 8), -3);
    /* int -> float, round to nearest even */
    SAME32(cvm_n_u64_to_f32(UINT64_MAX), 0x1p64f);
    SAME32(cvm_n_u64_to_f32(16777217), 16777216.0f);
    SAME32(cvm_n_u64_to_f32(16777219), 16777220.0f);
    SAME32(cvm_n_u64_to_f32((UINT64_C(1) << 63) + (UINT64_C(1) << 39) + 1), 0x1.000002p63f);
    SAME32(cvm_n_u64_to_f32((UINT64_C(1) << 63) + (UINT64_C(1) << 39)), 0x1p63f);
    SAME32(cvm_n_s64_to_f32(INT64_MIN), -0x1p63f);
    SAME32(cvm_n_s64_to_f32(-16777217), -16777216.0f);
    SAME32(cvm_n_s64_to_f32(0), 0.0f);
    SAME64(cvm_n_s64_to_f64(INT64_MAX), 0x1p63);
    SAME64(cvm_n_s64_to_f64(-9007199254740993), -9007199254740992.0);
    SAME64(cvm_n_u64_to_f64(9007199254740995), 9007199254740996.0);
    SAME64(cvm_n_u64_to_f64(UINT64_MAX), 0x1p64);
    UEQ(cvm_n_u64_to_f16(65519), 0x7bff);
    UEQ(cvm_n_u64_to_f16(65520), 0x7c00);
    UEQ(cvm_n_u64_to_f16(UINT64_MAX), 0x7c00);
    UEQ(cvm_n_s64_to_f16(-2049), 0xe800); /* -2048: tie to even */
    UEQ(cvm_n_s64_to_f16(-2051), 0xe802); /* -2052 */
    UEQ(cvm_n_s64_to_f16(0), 0);
    UEQ(cvm_n_s64_to_bf16(257), 0x4380);  /* 256 */
    UEQ(cvm_n_s64_to_bf16(-259), 0xc382); /* -260 */
    UEQ(cvm_n_u64_to_bf16(UINT64_MAX), 0x5f80);
    /* direct f64 -> f16/bf16: no double rounding through f32 */
    UEQ(cvm_n_f64_to_f16(1.0 + 0x1p-11 + 0x1p-40), 0x3c01);
    UEQ(cvm_n_f32_to_f16((float)(1.0 + 0x1p-11 + 0x1p-40)), 0x3c00);
    UEQ(cvm_n_f64_to_bf16(1.0 + 0x1p-8 + 0x1p-40), 0x3f81);
    UEQ(cvm_n_f64_to_f16(0x1p-25), 0);
    UEQ(cvm_n_f64_to_f16(0x1p-25 + 0x1p-60), 1);
    UEQ(cvm_n_f64_to_f16(-1e300), 0xfc00);
    UEQ(cvm_n_f64_to_f16(-0.0), 0x8000);
    UEQ(cvm_n_f64_to_f16(cvm_n_f64_from(UINT64_C(0x7ff0000000000001))), 0x7e00); /* sNaN: quieted */
    UEQ(cvm_n_f64_to_f16(cvm_n_f64_from(UINT64_C(0xfff4000000000000))), 0xff00); /* payload kept */
    UEQ(cvm_n_f64_to_bf16(cvm_n_f64_from(UINT64_C(0x7ff4000000000000))), 0x7fe0);
    UEQ(cvm_n_f64_to_bf16(0x1p-134), 0);          /* half the smallest subnormal: tie to 0 */
    UEQ(cvm_n_f64_to_bf16(0x1.8p-134), 1);
    UEQ(cvm_n_f32_to_bf16(0x1.ff8p127f), 0x7f80); /* rounds up to inf */
    UEQ(cvm_n_f32_to_bf16(cvm_n_f32_from(0x7f800001u)), 0x7fc0);
    SAME32(cvm_n_f64_to_f32(0x1.fffffffp127), INFINITY);
    SAME32(cvm_n_f64_to_f32(0x1p-150), 0.0f);
    SAME32(cvm_n_f64_to_f32(0x1.0000000001p-150), 0x1p-149f);
    ok(cvm_n_f32_bits(cvm_n_f64_to_f32(cvm_n_f64_from(UINT64_C(0x7ff0000020000000)))) == 0x7fc00001u,
       "f64 -> f32 keeps the NaN payload's top bits");
}

/* ---- independent references for the 16-bit formats ---- */

/* f16 positive bit pattern b (0..0x7bff, or 0x7c00 meaning 2^16) times 2^S, exact */
static i128 f16_scaled(unsigned b, int S)
{
    unsigned ex = b >> 10, fr = b & 0x3ff;
    i128 mant = ex ? fr | 0x400 : fr;
    int e = (ex ? (int)ex : 1) - 25;
    return mant << (e + S);
}

/* The f16 bit pattern nearest to N * 2^-S (N >= 0), ties to even, by
 * binary search over the ordered positive patterns. */
static unsigned ref_f16(i128 N, int S)
{
    unsigned lo = 0, hi = 0x7c00; /* invariant: val(lo) <= N < val(hi) or hi == 0x7c00 */
    if (N >= f16_scaled(0x7c00, S))
        return 0x7c00;
    while (hi - lo > 1) {
        unsigned mid = (lo + hi) / 2;
        if (f16_scaled(mid, S) <= N)
            lo = mid;
        else
            hi = mid;
    }
    i128 a = f16_scaled(lo, S), b = f16_scaled(hi, S);
    if (a == N)
        return lo;
    if (2 * N < a + b)
        return lo;
    if (2 * N > a + b)
        return hi;
    return (lo & 1) ? hi : lo;
}

/* x = sign * N * 2^-S for a finite double with exponent >= -S */
static i128 exact_scaled(double x, int S)
{
    uint64_t m;
    int e;
    cvm_n_f64_split(cvm_n_f64_bits(fabs(x)), &m, &e);
    if (e + S >= 0)
        return (i128)m << (e + S);
    return -(e + S) >= 64 ? 0 : (i128)(m >> -(e + S)); /* only zeros get here */
}

/* Expected f16 of a finite double, through the reference. */
static unsigned expect_f16(double x)
{
    unsigned s = signbit(x) ? 0x8000 : 0;
    double a = fabs(x);
    if (a >= 0x1p17)
        return s | 0x7c00;
    if (a < 0x1p-26)
        return s;
    return s | ref_f16(exact_scaled(a, 80), 80);
}

static void f16_exhaustive(void)
{
    int bad = 0, badrt = 0;
    for (unsigned h = 0; h < 65536; h++) {
        float f = cvm_n_f16_to_f32((uint16_t)h);
        unsigned ex = (h >> 10) & 0x1f, fr = h & 0x3ff;
        uint32_t u = cvm_n_f32_bits(f);
        int good;
        if (ex == 0x1f && fr) /* NaN: payload in the top bits, quiet bit set */
            good = (u & 0x7f800000u) == 0x7f800000u && (u >> 31) == (h >> 15) &&
                   ((u >> 13) & 0x3ff) == (fr | 0x200) && (u & 0x1fff) == 0;
        else if (ex == 0x1f)
            good = isinf(f) && (u >> 31) == (h >> 15);
        else {
            double v = ldexp((double)(ex ? fr + 1024 : fr), (ex ? (int)ex : 1) - 25);
            good = same32(f, (float)((h & 0x8000) ? -v : v));
        }
        bad += !good;
        unsigned back = cvm_n_f32_to_f16(f);
        unsigned want = (ex == 0x1f && fr) ? h | 0x200 : h;
        badrt += back != want;
    }
    ok(bad == 0, "f16 -> f32: all 65536 patterns exact (%d wrong)", bad);
    int badfast = 0;
    for (unsigned h = 0; h < 65536; h++)
        badfast += cvm_n_f32_bits(cvm_n_f16_to_f32_fast((uint16_t)h)) !=
                   cvm_n_f32_bits(cvm_n_f16_to_f32((uint16_t)h));
    ok(badfast == 0, "f16 -> f32 branch-free: the same bits for all 65536 patterns (%d wrong)", badfast);
    ok(badrt == 0, "f16 -> f32 -> f16 round-trips all 65536 patterns (%d wrong)", badrt);

    int bbad = 0, bbrt = 0;
    for (unsigned h = 0; h < 65536; h++) {
        float f = cvm_n_bf16_to_f32((uint16_t)h);
        uint32_t u = cvm_n_f32_bits(f), want = (uint32_t)h << 16;
        int nan = (h & 0x7f80) == 0x7f80 && (h & 0x7f);
        if (nan)
            want |= 0x400000u;
        bbad += u != want;
        unsigned back = cvm_n_f32_to_bf16(f);
        bbrt += back != (nan ? h | 0x40 : h);
    }
    ok(bbad == 0, "bf16 -> f32: all 65536 patterns exact (%d wrong)", bbad);
    ok(bbrt == 0, "bf16 -> f32 -> bf16 round-trips all 65536 patterns (%d wrong)", bbrt);
}

static uint64_t rng = 88172645463325252u;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Low 13 bits (f16) / 16 bits (bf16) chosen to hit ties and their neighbours. */
static const uint32_t LOW13[] = {0, 1, 0xfff, 0x1000, 0x1001, 0x1fff, 0x0800};
static const uint32_t LOW16[] = {0, 1, 0x7fff, 0x8000, 0x8001, 0xffff, 0x4000};

static void f32_narrowing(void)
{
    long bad16 = 0, badbf = 0, n = 0;
    for (uint32_t top = 0; top < (1u << 19); top++) { /* sign, exponent, 10 fraction bits */
        for (int k = 0; k < 8; k++) {
            uint32_t low = k < 7 ? LOW13[k] : (uint32_t)(next() & 0x1fff);
            uint32_t u = (top << 13) | low;
            if ((u & 0x7f800000u) == 0x7f800000u)
                continue;
            float f = cvm_n_f32_from(u);
            n++;
            bad16 += cvm_n_f32_to_f16(f) != expect_f16(f);
            bad16 += cvm_n_f32_to_f16_fast(f) != expect_f16(f);
            /* bf16: the classic integer rounding on the bit pattern */
            uint32_t v = (top << 13 & 0xffff0000u) | (k < 7 ? LOW16[k] : (uint32_t)(next() & 0xffff));
            if ((v & 0x7f800000u) == 0x7f800000u)
                continue;
            uint32_t want = (v + 0x7fffu + ((v >> 16) & 1)) >> 16;
            badbf += cvm_n_f32_to_bf16(cvm_n_f32_from(v)) != want;
            badbf += cvm_n_f32_to_bf16_fast(cvm_n_f32_from(v)) != want;
        }
    }
    ok(bad16 == 0, "f32 -> f16 (both routines) matches the integer reference on %ld inputs (%ld wrong)",
       n, bad16);
    ok(badbf == 0, "f32 -> bf16 (both routines) matches the bit-rounding reference (%ld wrong)", badbf);
    /* infinities and NaNs: the branch-free routines as the branchy ones */
    long badsp = 0;
    for (uint32_t fr = 0; fr < (1u << 23); fr += 4093)
        for (uint32_t sg = 0; sg < 2; sg++) {
            const float f = cvm_n_f32_from(sg << 31 | 0x7f800000u | (fr ? fr | 1u : 0));
            badsp += cvm_n_f32_to_f16_fast(f) != cvm_n_f32_to_f16(f);
            badsp += cvm_n_f32_to_bf16_fast(f) != cvm_n_f32_to_bf16(f);
        }
    ok(badsp == 0, "f32 -> f16/bf16: infinities and NaN payloads alike in both routines (%ld wrong)", badsp);

    long bad64 = 0, badi = 0;
    for (int i = 0; i < 300000; i++) {
        double x = ldexp((double)(next() >> 11), -53 + (int)(next() % 48) - 28);
        if (next() & 1)
            x = -x;
        bad64 += cvm_n_f64_to_f16(x) != expect_f16(x);
        uint64_t v = next() >> (next() % 64);
        unsigned want = v >= 65520 ? 0x7c00 : ref_f16((i128)v << 24, 24);
        badi += cvm_n_u64_to_f16(v) != want;
    }
    ok(bad64 == 0, "f64 -> f16 matches the integer reference on 300000 inputs (%ld wrong)", bad64);
    ok(badi == 0, "u64 -> f16 matches the integer reference on 300000 inputs (%ld wrong)", badi);
}

/* A random finite f16 with a bias toward small exponents and subnormals. */
static uint16_t rand_f16(void)
{
    uint16_t h;
    do
        h = (uint16_t)next();
    while ((h & 0x7c00) == 0x7c00);
    return h;
}

/* Whether op (0 + 1 - 2 * 3 / 4 sqrt of a alone) of 16-bit a and b (bf16
 * when bf, else f16) gives the f64 result rounded once; a NaN result must
 * be the canonical NaN (0x7e00, 0x7fc0), whatever NaNs a and b were. */
static bool arith16_ok(bool bf, int op, uint16_t a, uint16_t b)
{
    const double x = bf ? cvm_n_bf16_to_f64(a) : cvm_n_f16_to_f64(a);
    const double y = bf ? cvm_n_bf16_to_f64(b) : cvm_n_f16_to_f64(b);
    const double r = op == 0 ? x + y : op == 1 ? x - y : op == 2 ? x * y : op == 3 ? x / y : sqrt(x);
    const uint16_t want = bf ? cvm_n_f64_to_bf16(r) : cvm_n_f64_to_f16(r);
    uint16_t got;
    if (bf)
        got = op == 0 ? cvm_n_bf16_add(a, b) : op == 1 ? cvm_n_bf16_sub(a, b)
            : op == 2 ? cvm_n_bf16_mul(a, b) : op == 3 ? cvm_n_bf16_div(a, b) : cvm_n_bf16_sqrt(a);
    else
        got = op == 0 ? cvm_n_f16_add(a, b) : op == 1 ? cvm_n_f16_sub(a, b)
            : op == 2 ? cvm_n_f16_mul(a, b) : op == 3 ? cvm_n_f16_div(a, b) : cvm_n_f16_sqrt(a);
    const uint16_t inf = bf ? 0x7f80 : 0x7c00, frac = bf ? 0x7f : 0x3ff;
    if ((want & inf) == inf && (want & frac))
        return got == (bf ? 0x7fc0 : 0x7e00);
    return got == want;
}

/* f16/bf16 + - * / (computed in f32) against the same operation in f64
 * rounded once by the exact f64 -> 16-bit routines (checked above against
 * integer references): a million random operand pairs each, any bits,
 * NaN results the canonical NaN. (All 2^32 pairs agreed when the f32 evaluation was
 * introduced; docs/numerics.md.) */
static void arith16(void)
{
    long bad[2][4] = {{0}};
    for (int i = 0; i < 1000000; i++) {
        const uint16_t a = (uint16_t)next(), b = (uint16_t)next();
        for (int op = 0; op < 4; op++) {
            bad[0][op] += !arith16_ok(false, op, a, b);
            bad[1][op] += !arith16_ok(true, op, a, b);
        }
    }
    static const char *const name[4] = {"add", "sub", "mul", "div"};
    for (int op = 0; op < 4; op++) {
        ok(bad[0][op] == 0, "f16 %s in f32 is the f64 result rounded once (%ld of 1000000 wrong)",
           name[op], bad[0][op]);
        ok(bad[1][op] == 0, "bf16 %s in f32 is the f64 result rounded once (%ld of 1000000 wrong)",
           name[op], bad[1][op]);
    }
    long bads[2] = {0, 0};
    for (unsigned h = 0; h < 65536; h++) {
        bads[0] += !arith16_ok(false, 4, (uint16_t)h, 0);
        bads[1] += !arith16_ok(true, 4, (uint16_t)h, 0);
    }
    ok(bads[0] == 0, "f16 sqrt in f32: all 65536 inputs as the f64 result rounded once (%ld wrong)", bads[0]);
    ok(bads[1] == 0, "bf16 sqrt in f32: all 65536 inputs as the f64 result rounded once (%ld wrong)",
       bads[1]);
}

static void fma16(void)
{
    long bad = 0;
    const int S = 49;
    for (int i = 0; i < 1000000; i++) {
        uint16_t a = rand_f16(), b = rand_f16(), c = rand_f16();
        if (i % 3 == 0) /* make cancellation likely: c near -a*b */
            c = cvm_n_f64_to_f16(-cvm_n_f16_to_f64(a) * cvm_n_f16_to_f64(b)) ^ (uint16_t)(next() & 3);
        if ((c & 0x7c00) == 0x7c00)
            continue;
        /* exact a*b + c times 2^(2S) ... kept as N * 2^-S with S = 49 */
        i128 pa = exact_scaled(cvm_n_f16_to_f64(a), 25), pb = exact_scaled(cvm_n_f16_to_f64(b), 24);
        i128 pc = exact_scaled(cvm_n_f16_to_f64(c), S);
        i128 prod = pa * pb;
        if ((a ^ b) & 0x8000)
            prod = -prod;
        if (c & 0x8000)
            pc = -pc;
        i128 N = prod + pc;
        unsigned want;
        if (N == 0) /* exact zero: -0 only when both addends are -0 */
            want = (prod == 0 && ((a ^ b) & 0x8000) && (c & 0x8000)) ? 0x8000 : 0;
        else
            want = (N < 0 ? 0x8000 : 0) | ref_f16(N < 0 ? -N : N, S);
        bad += cvm_n_fma_f16(a, b, c) != want;
    }
    ok(bad == 0, "f16 fma matches the exact integer reference on 1e6 inputs (%ld wrong)", bad);
    UEQ(cvm_n_fma_f16(0x7c00, 0x0000, 0x3c00), 0x7e00); /* inf * 0: canonical NaN */
    UEQ(cvm_n_fma_f16(0x7c00, 0x3c00, 0xfc00), 0x7e00); /* inf - inf */
    UEQ(cvm_n_fma_f16(0x3c00, 0x3c00, 0xfc00), 0xfc00);
    UEQ(cvm_n_fma_f16(0x7d00, 0x3c00, 0x3c00), 0x7e00); /* a NaN operand: the canonical NaN */
    UEQ(cvm_n_fma_f16(0x3c00, 0xfe01, 0x7d00), 0x7e00); /* two NaNs, either sign: the same */
    UEQ(cvm_n_fma_f16(0x8000, 0x3c00, 0x8000), 0x8000); /* -0 + -0 */
    UEQ(cvm_n_fma_f16(0x7bff, 0x4000, 0xfbff), 0x7bff);  /* 2*max - max, exact */
    /* bf16 by hand: 1 * (1+2^-7) + 2^-8 is halfway between 1+2^-7 (odd) and 1+2^-6 */
    UEQ(cvm_n_fma_bf16(0x3f80, 0x3f81, 0x3b80), 0x3f82);
    UEQ(cvm_n_fma_bf16(0x3f80, 0x3f80, 0x3b80), 0x3f80); /* 1 + 2^-8: tie -> even 1 */
    /* (1+2^-7)^2 - 2^-16 = 1 + 2^-6 + 3*2^-16 -> 1 + 2^-6 */
    UEQ(cvm_n_fma_bf16(0x3f81, 0x3f81, 0xb780), 0x3f82);
    /* (1+2^-7)(1-2^-8) + 2^-15 = 1 + 2^-8 exactly: tie -> 1; + 2^-15(1+2^-7): above -> 0x3f81 */
    UEQ(cvm_n_fma_bf16(0x3f81, 0x3f7f, 0x3800), 0x3f80);
    UEQ(cvm_n_fma_bf16(0x3f81, 0x3f7f, 0x3801), 0x3f81);
    UEQ(cvm_n_fma_bf16(0x0001, 0x0001, 0x0001), 0x0001); /* tiny product vanishes */
    /* 7*37 = 259 is a bf16 midpoint (258 | 260); a far smaller c decides, which
     * one f64 addition loses (the sum needs 68 bits): f64 alone would say 260 */
    UEQ(cvm_n_fma_bf16(0x40e0, 0x4214, 0xa180), 0x4381); /* 259 - 2^-60 -> 258 */
    UEQ(cvm_n_fma_bf16(0x40e0, 0x4214, 0x2180), 0x4382); /* 259 + 2^-60 -> 260 */
    UEQ(cvm_n_fma_bf16(0x4110, 0x41e8, 0x2180), 0x4383); /* 9*29 = 261 + 2^-60 -> 262 */
    UEQ(cvm_n_fma_bf16(0x4110, 0x41e8, 0x0000), 0x4382); /* 261: tie -> even 260 */
}

int main(void)
{
    integers();
    floats();
    conversions();
    f16_exhaustive();
    f32_narrowing();
    arith16();
    fma16();
    return done_testing();
}
