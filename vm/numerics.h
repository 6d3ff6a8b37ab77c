/*
 * numerics.h - the scalar semantics of cubevm's arithmetic, shared by the
 * interpreter's handlers, the constant folder and the test references.
 *
 * Every function here is defined for every input: no trapping host
 * instruction (integer division by zero, INT_MIN / -1), no undefined shift
 * and no undefined signed overflow is ever evaluated, so a handler may call
 * them on inactive lanes holding garbage. Results follow docs/design.md
 * "Numerics" and docs/numerics.md. Integer values travel sign- or
 * zero-extended in the 64-bit C type of their signedness; `bits` is the
 * element width (8, 16, 32 or 64) and results are wrapped to it and
 * re-extended. f16 and bf16 travel as their uint16_t bit patterns.
 *
 * Header-only (static inline, no data tables) so handler loops inline and
 * vectorize; the transcendental functions live in mathlib.h.
 */
#ifndef CVM_NUMERICS_H
#define CVM_NUMERICS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* ---------------------------------------------------------------------
 * integers
 * ------------------------------------------------------------------- */

/* Bit mask of the low `bits` bits (bits 1..64). */
static inline uint64_t cvm_n_mask(unsigned bits)
{
    return bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
}

/* uint64 -> int64 two's-complement reinterpretation without
 * implementation-defined conversion. */
static inline int64_t cvm_n_u2s(uint64_t v)
{
    return v <= (uint64_t)INT64_MAX ? (int64_t)v : -(int64_t)(~v) - 1;
}

/* Wraps v to `bits` and zero-extends it. */
static inline uint64_t cvm_n_zext(uint64_t v, unsigned bits)
{
    return v & cvm_n_mask(bits);
}

/* Wraps v to `bits` and sign-extends it. */
static inline int64_t cvm_n_sext(uint64_t v, unsigned bits)
{
    if (bits >= 64)
        return cvm_n_u2s(v);
    uint64_t sign = UINT64_C(1) << (bits - 1);
    v &= cvm_n_mask(bits);
    return cvm_n_u2s((v ^ sign) - sign);
}

/* Wrapping add, sub, mul at width `bits` (use sext/zext on the result's
 * signedness; the low bits are the same for both). */
static inline uint64_t cvm_n_add(uint64_t a, uint64_t b, unsigned bits) { return cvm_n_zext(a + b, bits); }
static inline uint64_t cvm_n_sub(uint64_t a, uint64_t b, unsigned bits) { return cvm_n_zext(a - b, bits); }
static inline uint64_t cvm_n_mul(uint64_t a, uint64_t b, unsigned bits) { return cvm_n_zext(a * b, bits); }

/* Signed division, truncating; x/0 = -1 and MIN/-1 = MIN. */
static inline int64_t cvm_n_sdiv(int64_t a, int64_t b, unsigned bits)
{
    a = cvm_n_sext((uint64_t)a, bits);
    b = cvm_n_sext((uint64_t)b, bits);
    if (b == 0)
        return -1;
    if (b == -1)
        return cvm_n_sext(0 - (uint64_t)a, bits);
    return a / b;
}

/* Signed remainder with the dividend's sign; x%0 = x and MIN%-1 = 0. */
static inline int64_t cvm_n_srem(int64_t a, int64_t b, unsigned bits)
{
    a = cvm_n_sext((uint64_t)a, bits);
    b = cvm_n_sext((uint64_t)b, bits);
    if (b == 0)
        return a;
    if (b == -1)
        return 0;
    return a % b;
}

/* Unsigned division; x/0 = all ones of the width. */
static inline uint64_t cvm_n_udiv(uint64_t a, uint64_t b, unsigned bits)
{
    a = cvm_n_zext(a, bits);
    b = cvm_n_zext(b, bits);
    return b == 0 ? cvm_n_mask(bits) : a / b;
}

/* Unsigned remainder; x%0 = x. */
static inline uint64_t cvm_n_urem(uint64_t a, uint64_t b, unsigned bits)
{
    a = cvm_n_zext(a, bits);
    b = cvm_n_zext(b, bits);
    return b == 0 ? a : a % b;
}

/* Left shift; counts >= bits give 0 (PTX clamp). */
static inline uint64_t cvm_n_shl(uint64_t a, uint64_t count, unsigned bits)
{
    return count >= bits ? 0 : cvm_n_zext(a << count, bits);
}

/* Logical right shift; counts >= bits give 0. */
static inline uint64_t cvm_n_lshr(uint64_t a, uint64_t count, unsigned bits)
{
    return count >= bits ? 0 : cvm_n_zext(a, bits) >> count;
}

/* Arithmetic right shift; counts >= bits fill with the sign. */
static inline int64_t cvm_n_ashr(int64_t a, uint64_t count, unsigned bits)
{
    a = cvm_n_sext((uint64_t)a, bits);
    unsigned c = count >= bits ? bits - 1 : (unsigned)count;
    /* ~a >= 0 when a < 0, so both shifts act on non-negative values */
    return a < 0 ? ~(~a >> c) : a >> c;
}

/* High 64 bits of the unsigned 128-bit product (portable 32-bit limbs). */
static inline uint64_t cvm_n_umulhi64(uint64_t a, uint64_t b)
{
    uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* High half of the unsigned double-width product at width `bits`. */
static inline uint64_t cvm_n_umulhi(uint64_t a, uint64_t b, unsigned bits)
{
    a = cvm_n_zext(a, bits);
    b = cvm_n_zext(b, bits);
    if (bits >= 64)
        return cvm_n_umulhi64(a, b);
    return (a * b) >> bits; /* both < 2^32: the product fits */
}

/* High half of the signed double-width product at width `bits`. */
static inline int64_t cvm_n_smulhi(int64_t a, int64_t b, unsigned bits)
{
    a = cvm_n_sext((uint64_t)a, bits);
    b = cvm_n_sext((uint64_t)b, bits);
    if (bits >= 64) {
        /* signed high = unsigned high - (a<0 ? b : 0) - (b<0 ? a : 0) mod 2^64 */
        uint64_t h = cvm_n_umulhi64((uint64_t)a, (uint64_t)b);
        if (a < 0)
            h -= (uint64_t)b;
        if (b < 0)
            h -= (uint64_t)a;
        return cvm_n_u2s(h);
    }
    int64_t p = a * b; /* |a|,|b| <= 2^31: fits */
    return p < 0 ? ~(~p >> bits) : p >> bits;
}

/* Signed min / max of sign-extended values. */
static inline int64_t cvm_n_smin(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t cvm_n_smax(int64_t a, int64_t b) { return a > b ? a : b; }
/* Unsigned min / max of zero-extended values. */
static inline uint64_t cvm_n_umin(uint64_t a, uint64_t b) { return a < b ? a : b; }
static inline uint64_t cvm_n_umax(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* Wrapping negation at width `bits` (neg(MIN) = MIN). */
static inline int64_t cvm_n_sneg(int64_t a, unsigned bits)
{
    return cvm_n_sext(0 - (uint64_t)a, bits);
}

/* Absolute value at width `bits`; abs(MIN) = MIN. */
static inline int64_t cvm_n_sabs(int64_t a, unsigned bits)
{
    return a < 0 ? cvm_n_sneg(a, bits) : cvm_n_sext((uint64_t)a, bits);
}

/* Number of one bits among the low `bits` bits. */
static inline unsigned cvm_n_popc(uint64_t a, unsigned bits)
{
    a = cvm_n_zext(a, bits);
    a = a - ((a >> 1) & UINT64_C(0x5555555555555555));
    a = (a & UINT64_C(0x3333333333333333)) + ((a >> 2) & UINT64_C(0x3333333333333333));
    a = (a + (a >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
    return (unsigned)((a * UINT64_C(0x0101010101010101)) >> 56);
}

/* Leading zeros of a 64-bit value; 64 for 0. */
static inline unsigned cvm_n_clz64(uint64_t a)
{
    if (a == 0)
        return 64;
#if defined(__GNUC__)
    return (unsigned)__builtin_clzll(a);
#else
    unsigned n = 0;
    while (!(a & (UINT64_C(1) << 63))) {
        a <<= 1;
        n++;
    }
    return n;
#endif
}

/* Leading zeros at width `bits`; `bits` for 0. */
static inline unsigned cvm_n_clz(uint64_t a, unsigned bits)
{
    return cvm_n_clz64(cvm_n_zext(a, bits)) - (64 - bits);
}

/* Trailing zeros at width `bits`; `bits` for 0. */
static inline unsigned cvm_n_ctz(uint64_t a, unsigned bits)
{
    a = cvm_n_zext(a, bits);
    if (a == 0)
        return bits;
    return 63 - cvm_n_clz64(a & (0 - a));
}

/* The low `bits` bits in reverse order. */
static inline uint64_t cvm_n_brev(uint64_t a, unsigned bits)
{
    a = ((a >> 1) & UINT64_C(0x5555555555555555)) | ((a & UINT64_C(0x5555555555555555)) << 1);
    a = ((a >> 2) & UINT64_C(0x3333333333333333)) | ((a & UINT64_C(0x3333333333333333)) << 2);
    a = ((a >> 4) & UINT64_C(0x0f0f0f0f0f0f0f0f)) | ((a & UINT64_C(0x0f0f0f0f0f0f0f0f)) << 4);
    a = ((a >> 8) & UINT64_C(0x00ff00ff00ff00ff)) | ((a & UINT64_C(0x00ff00ff00ff00ff)) << 8);
    a = ((a >> 16) & UINT64_C(0x0000ffff0000ffff)) | ((a & UINT64_C(0x0000ffff0000ffff)) << 16);
    a = (a >> 32) | (a << 32);
    return a >> (64 - bits);
}

/* ---------------------------------------------------------------------
 * float bits
 * ------------------------------------------------------------------- */

/* Bit pattern of a float. */
static inline uint32_t cvm_n_f32_bits(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }
/* Float with a bit pattern. */
static inline float cvm_n_f32_from(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }
/* Bit pattern of a double. */
static inline uint64_t cvm_n_f64_bits(double x) { uint64_t u; memcpy(&u, &x, 8); return u; }
/* Double with a bit pattern. */
static inline double cvm_n_f64_from(uint64_t u) { double x; memcpy(&x, &u, 8); return x; }

/* The canonical NaNs: every float operation whose result is a NaN gives
 * the canonical NaN of its format, whatever NaNs its operands held
 * (docs/numerics.md). Only bit moves (mov, select, bitcast, loads and
 * stores), the sign-bit ops (neg, abs, copysign) and conversions (their
 * payload rule) carry a payload. The host's own NaN results differ by
 * instruction set (x86 makes 0xffc00000 of an invalid operation, ARM
 * 0x7fc00000) and, with two NaN operands, by the operand order the
 * compiler picked for a commutative op, so each arithmetic handler passes
 * its result through these. */
#define CVM_N_NAN32 UINT32_C(0x7fc00000)
#define CVM_N_NAN64 UINT64_C(0x7ff8000000000000)
#define CVM_N_NAN16 0x7e00u
#define CVM_N_NANBF16 0x7fc0u

/* r, or the canonical NaN when r is a NaN (branch-free: the lane loops
 * vectorize it to a compare and a masked move). */
static inline float cvm_n_qf(float r)
{
    const float nan = cvm_n_f32_from(CVM_N_NAN32);
    return r != r ? nan : r;
}
static inline double cvm_n_q(double r)
{
    const double nan = cvm_n_f64_from(CVM_N_NAN64);
    return r != r ? nan : r;
}
static inline uint16_t cvm_n_q16(uint16_t h)
{
    return (h & 0x7fffu) > 0x7c00u ? (uint16_t)CVM_N_NAN16 : h;
}
static inline uint16_t cvm_n_qbf16(uint16_t h)
{
    return (h & 0x7fffu) > 0x7f80u ? (uint16_t)CVM_N_NANBF16 : h;
}

/* |a| with the sign of b, on bits (NaNs keep their payload). */
static inline float cvm_n_copysignf(float a, float b)
{
    return cvm_n_f32_from((cvm_n_f32_bits(a) & 0x7fffffffu) | (cvm_n_f32_bits(b) & 0x80000000u));
}
/* |a| with the sign of b, on bits. */
static inline double cvm_n_copysign(double a, double b)
{
    uint64_t s = UINT64_C(1) << 63;
    return cvm_n_f64_from((cvm_n_f64_bits(a) & ~s) | (cvm_n_f64_bits(b) & s));
}
/* |a| on bits. */
static inline float cvm_n_fabsf(float a) { return cvm_n_f32_from(cvm_n_f32_bits(a) & 0x7fffffffu); }
static inline double cvm_n_fabs(double a) { return cvm_n_f64_from(cvm_n_f64_bits(a) & ~(UINT64_C(1) << 63)); }
/* -a on bits (flips the sign of NaNs too). */
static inline float cvm_n_fnegf(float a) { return cvm_n_f32_from(cvm_n_f32_bits(a) ^ 0x80000000u); }
static inline double cvm_n_fneg(double a) { return cvm_n_f64_from(cvm_n_f64_bits(a) ^ (UINT64_C(1) << 63)); }

/* min: a NaN operand gives the other; both NaN the canonical NaN; -0 < +0. */
static inline float cvm_n_fminf(float a, float b)
{
    if (a != a)
        return b != b ? cvm_n_f32_from(CVM_N_NAN32) : b;
    if (b != b)
        return a;
    if (a == b) /* only ±0 pairs differ here: prefer the negative one */
        return (cvm_n_f32_bits(a) >> 31) ? a : b;
    return a < b ? a : b;
}
/* max: a NaN operand gives the other; both NaN the canonical NaN; +0 > -0. */
static inline float cvm_n_fmaxf(float a, float b)
{
    if (a != a)
        return b != b ? cvm_n_f32_from(CVM_N_NAN32) : b;
    if (b != b)
        return a;
    if (a == b)
        return (cvm_n_f32_bits(a) >> 31) ? b : a;
    return a > b ? a : b;
}
/* f64 min, same rules. */
static inline double cvm_n_fmin(double a, double b)
{
    if (a != a)
        return b != b ? cvm_n_f64_from(CVM_N_NAN64) : b;
    if (b != b)
        return a;
    if (a == b)
        return (cvm_n_f64_bits(a) >> 63) ? a : b;
    return a < b ? a : b;
}
/* f64 max, same rules. */
static inline double cvm_n_fmax(double a, double b)
{
    if (a != a)
        return b != b ? cvm_n_f64_from(CVM_N_NAN64) : b;
    if (b != b)
        return a;
    if (a == b)
        return (cvm_n_f64_bits(a) >> 63) ? b : a;
    return a > b ? a : b;
}
/* clamp(x, lo, hi) = min(max(x, lo), hi), as the clamp op defines it. */
static inline float cvm_n_clampf(float x, float lo, float hi) { return cvm_n_fminf(cvm_n_fmaxf(x, lo), hi); }
static inline double cvm_n_clamp(double x, double lo, double hi) { return cvm_n_fmin(cvm_n_fmax(x, lo), hi); }

/* ---------------------------------------------------------------------
 * rounding to a binary format: the one routine behind every narrowing
 * ------------------------------------------------------------------- */

/*
 * Bits of the value (-1)^sign * m * 2^e rounded to nearest even in a binary
 * format with `mbits` stored fraction bits and `ebits` exponent bits
 * (f16: 10,5; bf16: 7,8; f32: 23,8; f64: 52,11). Handles zero, subnormal
 * results and overflow to infinity; m is exact, so this is one rounding.
 */
static inline uint64_t cvm_n_round_pack(unsigned sign, uint64_t m, int e, unsigned mbits, unsigned ebits)
{
    uint64_t sbit = (uint64_t)(sign & 1) << (mbits + ebits);
    uint64_t inf = ((UINT64_C(1) << ebits) - 1) << mbits;
    if (m == 0)
        return sbit;
    int bias = (1 << (ebits - 1)) - 1;
    int msb = 63 - (int)cvm_n_clz64(m);
    int E = msb + e; /* exponent of the leading bit */
    if (E > bias)
        return sbit | inf;
    int emin = 1 - bias;
    int sub = E < emin;
    /* bits below the target quantum are dropped: quantum 2^(E-mbits) or 2^(emin-mbits) */
    int shift = sub ? (emin - (int)mbits) - e : msb - (int)mbits;
    uint64_t q;
    if (shift <= 0) {
        q = m << -shift; /* exact; fits because q < 2^(mbits+1) */
    } else if (shift >= 64) {
        q = (shift == 64 && m > (UINT64_C(1) << 63)) ? 1 : 0;
    } else {
        uint64_t rest = m & ((UINT64_C(1) << shift) - 1), half = UINT64_C(1) << (shift - 1);
        q = m >> shift;
        if (rest > half || (rest == half && (q & 1)))
            q++;
    }
    /* q holds the hidden bit for normals, so a rounding carry bumps the
     * exponent by itself; a subnormal rounding up to 2^mbits becomes the
     * smallest normal the same way. */
    uint64_t bits = sub ? q : ((uint64_t)(E + bias - 1) << mbits) + q;
    if (bits >= inf)
        bits = inf;
    return sbit | bits;
}

/* Decomposes a finite f32 into m * 2^e (m < 2^24). */
static inline void cvm_n_f32_split(uint32_t u, uint64_t *m, int *e)
{
    unsigned ex = (u >> 23) & 0xff;
    *m = (u & 0x7fffffu) | (ex ? 0x800000u : 0);
    *e = (ex ? (int)ex : 1) - 150;
}

/* Decomposes a finite f64 into m * 2^e (m < 2^53). */
static inline void cvm_n_f64_split(uint64_t u, uint64_t *m, int *e)
{
    unsigned ex = (unsigned)(u >> 52) & 0x7ff;
    *m = (u & ((UINT64_C(1) << 52) - 1)) | (ex ? UINT64_C(1) << 52 : 0);
    *e = (ex ? (int)ex : 1) - 1075;
}

/* ---------------------------------------------------------------------
 * conversions
 * ------------------------------------------------------------------- */

/* f64 -> signed int of `bits`: truncate, saturate, NaN -> 0. */
static inline int64_t cvm_n_f64_to_sint(double x, unsigned bits)
{
    double lim = (double)(UINT64_C(1) << (bits - 1)); /* 2^(bits-1), exact */
    if (x != x)
        return 0;
    if (x >= lim)
        return cvm_n_u2s((UINT64_C(1) << (bits - 1)) - 1);
    if (x <= -lim) /* values in (-lim-1, -lim) truncate to MIN as well */
        return cvm_n_u2s(0 - (UINT64_C(1) << (bits - 1)));
    return (int64_t)x;
}

/* f64 -> unsigned int of `bits`: truncate, saturate, NaN -> 0. */
static inline uint64_t cvm_n_f64_to_uint(double x, unsigned bits)
{
    double lim = 2.0 * (double)(UINT64_C(1) << (bits - 1)); /* 2^bits, exact */
    if (x != x || x <= 0)
        return 0;
    if (x >= lim)
        return cvm_n_mask(bits);
    return (uint64_t)x;
}

/* f32 -> signed int (f32 -> f64 is exact). */
static inline int64_t cvm_n_f32_to_sint(float x, unsigned bits) { return cvm_n_f64_to_sint((double)x, bits); }
/* f32 -> unsigned int. */
static inline uint64_t cvm_n_f32_to_uint(float x, unsigned bits) { return cvm_n_f64_to_uint((double)x, bits); }

/* Sign and magnitude of an int64 without overflow. */
static inline uint64_t cvm_n_smag(int64_t v, unsigned *sign)
{
    *sign = v < 0;
    return v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
}

/* int64 -> f32, round to nearest even (own routine: C leaves the rounding
 * of inexact int->float conversions implementation-defined). */
static inline float cvm_n_s64_to_f32(int64_t v)
{
    unsigned s;
    uint64_t m = cvm_n_smag(v, &s);
    return cvm_n_f32_from((uint32_t)cvm_n_round_pack(s, m, 0, 23, 8));
}
/* uint64 -> f32, round to nearest even. */
static inline float cvm_n_u64_to_f32(uint64_t v) { return cvm_n_f32_from((uint32_t)cvm_n_round_pack(0, v, 0, 23, 8)); }
/* int64 -> f64, round to nearest even. */
static inline double cvm_n_s64_to_f64(int64_t v)
{
    unsigned s;
    uint64_t m = cvm_n_smag(v, &s);
    return cvm_n_f64_from(cvm_n_round_pack(s, m, 0, 52, 11));
}
/* uint64 -> f64, round to nearest even. */
static inline double cvm_n_u64_to_f64(uint64_t v) { return cvm_n_f64_from(cvm_n_round_pack(0, v, 0, 52, 11)); }

/* f16 bits -> f32 (exact); NaN payload kept, quiet bit set. */
static inline float cvm_n_f16_to_f32(uint16_t h)
{
    uint32_t s = (uint32_t)(h & 0x8000u) << 16, ex = (h >> 10) & 0x1f, fr = h & 0x3ffu;
    if (ex == 0x1f)
        return cvm_n_f32_from(s | 0x7f800000u | (fr ? 0x400000u | (fr << 13) : 0));
    if (ex != 0)
        return cvm_n_f32_from(s | ((ex + 112) << 23) | (fr << 13));
    return cvm_n_f32_from((uint32_t)cvm_n_round_pack(h >> 15, fr, -24, 23, 8));
}

/* bf16 bits -> f32 (exact); NaN payload kept, quiet bit set. */
static inline float cvm_n_bf16_to_f32(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu))
        u |= 0x400000u;
    return cvm_n_f32_from(u);
}

/* f32 -> f16, round to nearest even; NaN payload's top bits kept, quiet. */
static inline uint16_t cvm_n_f32_to_f16(float x)
{
    uint32_t u = cvm_n_f32_bits(x);
    unsigned s = u >> 31;
    if ((u & 0x7f800000u) == 0x7f800000u) {
        uint32_t fr = u & 0x7fffffu;
        return (uint16_t)((s << 15) | 0x7c00u | (fr ? 0x200u | (fr >> 13) : 0));
    }
    uint64_t m;
    int e;
    cvm_n_f32_split(u, &m, &e);
    return (uint16_t)cvm_n_round_pack(s, m, e, 10, 5);
}

/* f64 -> f16 directly (one rounding, no double rounding through f32). */
static inline uint16_t cvm_n_f64_to_f16(double x)
{
    uint64_t u = cvm_n_f64_bits(x);
    unsigned s = (unsigned)(u >> 63);
    if (((u >> 52) & 0x7ff) == 0x7ff) {
        uint64_t fr = u & ((UINT64_C(1) << 52) - 1);
        return (uint16_t)((s << 15) | 0x7c00u | (fr ? 0x200u | (unsigned)(fr >> 42) : 0));
    }
    uint64_t m;
    int e;
    cvm_n_f64_split(u, &m, &e);
    return (uint16_t)cvm_n_round_pack(s, m, e, 10, 5);
}

/* f32 -> bf16, round to nearest even; NaN payload's top bits kept, quiet. */
static inline uint16_t cvm_n_f32_to_bf16(float x)
{
    uint32_t u = cvm_n_f32_bits(x);
    if ((u & 0x7f800000u) == 0x7f800000u)
        return (uint16_t)((u >> 16) | ((u & 0x7fffffu) ? 0x40u : 0));
    uint64_t m;
    int e;
    cvm_n_f32_split(u, &m, &e);
    return (uint16_t)cvm_n_round_pack(u >> 31, m, e, 7, 8);
}

/* f64 -> bf16 directly (one rounding). */
static inline uint16_t cvm_n_f64_to_bf16(double x)
{
    uint64_t u = cvm_n_f64_bits(x);
    unsigned s = (unsigned)(u >> 63);
    if (((u >> 52) & 0x7ff) == 0x7ff) {
        uint64_t fr = u & ((UINT64_C(1) << 52) - 1);
        return (uint16_t)((s << 15) | 0x7f80u | (fr ? 0x40u | (unsigned)(fr >> 45) : 0));
    }
    uint64_t m;
    int e;
    cvm_n_f64_split(u, &m, &e);
    return (uint16_t)cvm_n_round_pack(s, m, e, 7, 8);
}

/* f16 bits -> f64 (exact). */
static inline double cvm_n_f16_to_f64(uint16_t h) { return (double)cvm_n_f16_to_f32(h); }
/* bf16 bits -> f64 (exact). */
static inline double cvm_n_bf16_to_f64(uint16_t h) { return (double)cvm_n_bf16_to_f32(h); }

/* f64 -> f32 on bits (one rounding, NaN payload's top bits kept, quiet);
 * the same as the C conversion under round-to-nearest, but host-independent. */
static inline float cvm_n_f64_to_f32(double x)
{
    uint64_t u = cvm_n_f64_bits(x);
    unsigned s = (unsigned)(u >> 63);
    if (((u >> 52) & 0x7ff) == 0x7ff) {
        uint64_t fr = u & ((UINT64_C(1) << 52) - 1);
        return cvm_n_f32_from((s << 31) | 0x7f800000u | (fr ? 0x400000u | (uint32_t)(fr >> 29) : 0));
    }
    uint64_t m;
    int e;
    cvm_n_f64_split(u, &m, &e);
    return cvm_n_f32_from((uint32_t)cvm_n_round_pack(s, m, e, 23, 8));
}

/* int64 -> f16, round to nearest even (large values overflow to inf). */
static inline uint16_t cvm_n_s64_to_f16(int64_t v)
{
    unsigned s;
    uint64_t m = cvm_n_smag(v, &s);
    return (uint16_t)cvm_n_round_pack(s, m, 0, 10, 5);
}
/* uint64 -> f16, round to nearest even. */
static inline uint16_t cvm_n_u64_to_f16(uint64_t v) { return (uint16_t)cvm_n_round_pack(0, v, 0, 10, 5); }
/* int64 -> bf16, round to nearest even. */
static inline uint16_t cvm_n_s64_to_bf16(int64_t v)
{
    unsigned s;
    uint64_t m = cvm_n_smag(v, &s);
    return (uint16_t)cvm_n_round_pack(s, m, 0, 7, 8);
}
/* uint64 -> bf16, round to nearest even. */
static inline uint16_t cvm_n_u64_to_bf16(uint64_t v) { return (uint16_t)cvm_n_round_pack(0, v, 0, 7, 8); }

/* f16 -> signed / unsigned int of `bits` by the saturating rule. */
static inline int64_t cvm_n_f16_to_sint(uint16_t h, unsigned bits) { return cvm_n_f32_to_sint(cvm_n_f16_to_f32(h), bits); }
static inline uint64_t cvm_n_f16_to_uint(uint16_t h, unsigned bits) { return cvm_n_f32_to_uint(cvm_n_f16_to_f32(h), bits); }
/* bf16 -> signed / unsigned int of `bits` by the saturating rule. */
static inline int64_t cvm_n_bf16_to_sint(uint16_t h, unsigned bits) { return cvm_n_f32_to_sint(cvm_n_bf16_to_f32(h), bits); }
static inline uint64_t cvm_n_bf16_to_uint(uint16_t h, unsigned bits) { return cvm_n_f32_to_uint(cvm_n_bf16_to_f32(h), bits); }

/* ---------------------------------------------------------------------
 * f16 / bf16 arithmetic: widen exactly, one f32 operation, round once
 * (below).
 * ------------------------------------------------------------------- */

/* f16 bits -> f32 without branches (the lane loops vectorize it): the
 * same bits as cvm_n_f16_to_f32. A subnormal's significand times 2^-24
 * is exact in f32. */
static inline float cvm_n_f16_to_f32_fast(uint16_t h)
{
    const uint32_t s = (uint32_t)(h & 0x8000u) << 16, ex = (h >> 10) & 0x1fu, fr = h & 0x3ffu;
    const uint32_t normal = ((ex + 112) << 23) | (fr << 13);
    const uint32_t special = 0x7f800000u | (fr << 13) | (fr ? 0x400000u : 0);
    const uint32_t sub = cvm_n_f32_bits((float)fr * 0x1p-24f);
    return cvm_n_f32_from(s | (ex == 0 ? sub : ex == 0x1f ? special : normal));
}

/* f32 -> f16, round to nearest even, without branches: the same bits as
 * cvm_n_f32_to_f16. Normal results round by integer addition on the bits
 * (adding 0xfff plus the kept part's lowest bit, then dropping 13 bits,
 * carries into the exponent as rounding up must, up to infinity from
 * 65520); subnormal ones by one f32 addition of 0.5 (whose ulp is the
 * f16 subnormal step 2^-24), which rounds to nearest even; NaNs keep
 * their payload's top bits, quiet. */
static inline uint16_t cvm_n_f32_to_f16_fast(float x)
{
    const uint32_t u = cvm_n_f32_bits(x), a = u & 0x7fffffffu, s = (u >> 16) & 0x8000u;
    const uint32_t normal = (a - 0x38000000u + 0xfffu + ((a >> 13) & 1u)) >> 13;
    const uint32_t sub = cvm_n_f32_bits(cvm_n_f32_from(a) + 0.5f) - 0x3f000000u;
    const uint32_t special = a > 0x7f800000u ? 0x7e00u | ((a & 0x7fffffu) >> 13) : 0x7c00u;
    const uint32_t r = a >= 0x47800000u ? special : a < 0x38800000u ? sub : normal;
    return (uint16_t)(s | r);
}

/* f32 -> bf16, round to nearest even, without branches: the same bits as
 * cvm_n_f32_to_bf16. */
static inline uint16_t cvm_n_f32_to_bf16_fast(float x)
{
    const uint32_t u = cvm_n_f32_bits(x);
    const uint32_t nan = (u & 0x7fffffffu) > 0x7f800000u;
    const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    return (uint16_t)(nan ? (u >> 16) | 0x40u : rounded);
}

/* f16 and bf16 arithmetic: the f32 result of the widened operands, rounded
 * once more. f32 has 24 bits, at least 2p + 2 for p = 11 (f16) and 8
 * (bf16), so for + - * / and sqrt the double rounding is innocuous
 * (Figueroa) and these are correctly rounded; f32's range holds every
 * exact result's rounding. Branch-free, so the lane loops vectorize. */
static inline uint16_t cvm_n_f16_add(uint16_t a, uint16_t b) { return cvm_n_f32_to_f16_fast(cvm_n_qf(cvm_n_f16_to_f32_fast(a) + cvm_n_f16_to_f32_fast(b))); }
static inline uint16_t cvm_n_f16_sub(uint16_t a, uint16_t b) { return cvm_n_f32_to_f16_fast(cvm_n_qf(cvm_n_f16_to_f32_fast(a) - cvm_n_f16_to_f32_fast(b))); }
static inline uint16_t cvm_n_f16_mul(uint16_t a, uint16_t b) { return cvm_n_f32_to_f16_fast(cvm_n_qf(cvm_n_f16_to_f32_fast(a) * cvm_n_f16_to_f32_fast(b))); }
static inline uint16_t cvm_n_f16_div(uint16_t a, uint16_t b) { return cvm_n_f32_to_f16_fast(cvm_n_qf(cvm_n_f16_to_f32_fast(a) / cvm_n_f16_to_f32_fast(b))); }
static inline uint16_t cvm_n_f16_sqrt(uint16_t a) { return cvm_n_f32_to_f16_fast(cvm_n_qf(sqrtf(cvm_n_f16_to_f32_fast(a)))); }
static inline uint16_t cvm_n_bf16_add(uint16_t a, uint16_t b) { return cvm_n_f32_to_bf16_fast(cvm_n_qf(cvm_n_bf16_to_f32(a) + cvm_n_bf16_to_f32(b))); }
static inline uint16_t cvm_n_bf16_sub(uint16_t a, uint16_t b) { return cvm_n_f32_to_bf16_fast(cvm_n_qf(cvm_n_bf16_to_f32(a) - cvm_n_bf16_to_f32(b))); }
static inline uint16_t cvm_n_bf16_mul(uint16_t a, uint16_t b) { return cvm_n_f32_to_bf16_fast(cvm_n_qf(cvm_n_bf16_to_f32(a) * cvm_n_bf16_to_f32(b))); }
static inline uint16_t cvm_n_bf16_div(uint16_t a, uint16_t b) { return cvm_n_f32_to_bf16_fast(cvm_n_qf(cvm_n_bf16_to_f32(a) / cvm_n_bf16_to_f32(b))); }
static inline uint16_t cvm_n_bf16_sqrt(uint16_t a) { return cvm_n_f32_to_bf16_fast(cvm_n_qf(sqrtf(cvm_n_bf16_to_f32(a)))); }

/*
 * a*b + c in f64, then rounded to a format with `mbits`/`ebits`, correctly
 * rounded overall when a, b, c are f16 or bf16 values: the product is exact
 * in f64 (at most 22 significant bits, exponent in range), s = RN(p + c)
 * and its error t = (p + c) - s are exact doubles (TwoSum). Every rounding
 * boundary of the narrow format is a double, so RN is monotone around it:
 * x and s round alike unless s sits exactly on a boundary, and then the
 * sign of t decides. Replacing s by s +- ulp(s)/4 encodes that side.
 */
static inline uint64_t cvm_n_fma_narrow(double a, double b, double c, unsigned mbits, unsigned ebits)
{
    double p = a * b, s = p + c;
    uint64_t u = cvm_n_f64_bits(s);
    unsigned sign = (unsigned)(u >> 63);
    if (s != s) /* the format's canonical NaN: all exponent bits and the quiet bit */
        return (((UINT64_C(1) << ebits) - 1) << mbits) | (UINT64_C(1) << (mbits - 1));
    if (s - s != 0) /* infinite */
        return cvm_n_round_pack(sign, 1, 100000, mbits, ebits);
    double bb = s - p, t = (p - (s - bb)) + (c - bb); /* TwoSum: p + c = s + t */
    uint64_t m;
    int e;
    cvm_n_f64_split(u, &m, &e);
    if (t != 0 && m != 0) {
        /* same sign as s: magnitude a bit larger; opposite: a bit smaller */
        m = ((t > 0) == !sign) ? (m << 2) + 1 : (m << 2) - 1;
        e -= 2;
    }
    return cvm_n_round_pack(sign, m, e, mbits, ebits);
}

/* f16 fma, correctly rounded: a*b + c with one rounding. */
static inline uint16_t cvm_n_fma_f16(uint16_t a, uint16_t b, uint16_t c)
{
    return (uint16_t)cvm_n_fma_narrow(cvm_n_f16_to_f64(a), cvm_n_f16_to_f64(b), cvm_n_f16_to_f64(c), 10, 5);
}

/* bf16 fma, correctly rounded: a*b + c with one rounding. */
static inline uint16_t cvm_n_fma_bf16(uint16_t a, uint16_t b, uint16_t c)
{
    return (uint16_t)cvm_n_fma_narrow(cvm_n_bf16_to_f64(a), cvm_n_bf16_to_f64(b), cvm_n_bf16_to_f64(c), 7, 8);
}

#endif
