/*
 * ops_ref.h - C reference semantics for tests/test_ops.c, written from
 * docs/design.md "Numerics", docs/isa.md and the ops.def semantics strings,
 * independently of the interpreter (vm/numerics.h and vm/mathlib.c are
 * deliberately not used).
 *
 * Every value travels as a uint64_t holding the element's bits, zero-
 * extended (bool is 0 or 1, f16/bf16/f32/f64 their IEEE bit patterns).
 * Float formats are handled at the bit level: one generic round-to-nearest-
 * even routine turns an exact (sign, integer, power of two) value into any
 * of the four formats, so f16/bf16 need no host support.
 *
 * Header-only and static: each test is its own program.
 */
#ifndef CVM_TEST_OPS_REF_H
#define CVM_TEST_OPS_REF_H

#include <fenv.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Element numbers as in cubevm.h's cvm_elem, plus the pointer spaces. */
enum { R_BOOL = 1, R_I8, R_I16, R_I32, R_I64, R_U8, R_U16, R_U32, R_U64,
       R_F16, R_BF16, R_F32, R_F64, R_PG = 16, R_PS, R_PL, R_PC };

static inline bool r_is_sint(unsigned e) { return e >= R_I8 && e <= R_I64; }
static inline bool r_is_uint(unsigned e) { return e >= R_U8 && e <= R_U64; }
static inline bool r_is_int(unsigned e) { return e >= R_I8 && e <= R_U64; }
static inline bool r_is_float(unsigned e) { return e >= R_F16 && e <= R_F64; }
static inline bool r_is_ptr(unsigned e) { return e >= R_PG && e <= R_PC; }

/* Width in bits of one element (bool counts as 8: its memory size). */
static inline unsigned r_bits(unsigned e)
{
    switch (e) {
    case R_BOOL: case R_I8: case R_U8: return 8;
    case R_I16: case R_U16: case R_F16: case R_BF16: return 16;
    case R_I32: case R_U32: case R_F32: case R_PS: case R_PL: case R_PC: return 32;
    default: return 64;
    }
}

static inline uint64_t r_mask(unsigned bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

/* Sign-extends the low `bits` bits of v. */
static inline int64_t r_sext(uint64_t v, unsigned bits)
{
    v &= r_mask(bits);
    if (bits < 64 && (v >> (bits - 1)) & 1)
        v |= ~r_mask(bits);
    int64_t s;
    memcpy(&s, &v, sizeof s);
    return s;
}

static inline uint64_t r_u(int64_t s)
{
    uint64_t v;
    memcpy(&v, &s, sizeof v);
    return v;
}

/* ---- float formats ---- */

typedef struct r_fmt {
    int mbits; /* stored mantissa bits */
    int ebits; /* exponent bits */
} r_fmt;

static inline r_fmt r_fmt_of(unsigned e)
{
    switch (e) {
    case R_F16: return (r_fmt){10, 5};
    case R_BF16: return (r_fmt){7, 8};
    case R_F32: return (r_fmt){23, 8};
    default: return (r_fmt){52, 11};
    }
}

static inline int r_bias(r_fmt f) { return (1 << (f.ebits - 1)) - 1; }
static inline uint64_t r_sign_bit(unsigned e) { return 1ull << (r_bits(e) - 1); }
static inline uint64_t r_exp_all(r_fmt f) { return ((1ull << f.ebits) - 1) << f.mbits; }

static inline bool r_fisnan(unsigned e, uint64_t b)
{
    r_fmt f = r_fmt_of(e);
    return (b & r_exp_all(f)) == r_exp_all(f) && (b & r_mask(f.mbits)) != 0;
}
static inline bool r_fisinf(unsigned e, uint64_t b)
{
    r_fmt f = r_fmt_of(e);
    return (b & r_exp_all(f)) == r_exp_all(f) && (b & r_mask(f.mbits)) == 0;
}
static inline uint64_t r_fqnan(unsigned e)
{
    r_fmt f = r_fmt_of(e);
    return r_exp_all(f) | (1ull << (f.mbits - 1));
}
static inline uint64_t r_finf(unsigned e, bool neg)
{
    return r_exp_all(r_fmt_of(e)) | (neg ? r_sign_bit(e) : 0);
}

/* The exact value of a float's bits (long double holds every f64 exactly). */
static inline long double r_fval(unsigned e, uint64_t b)
{
    r_fmt f = r_fmt_of(e);
    bool neg = (b & r_sign_bit(e)) != 0;
    uint64_t ex = (b >> f.mbits) & r_mask(f.ebits);
    uint64_t m = b & r_mask(f.mbits);
    long double v;
    if (ex == r_mask(f.ebits))
        v = m ? (long double)NAN : (long double)INFINITY;
    else if (ex == 0)
        v = ldexpl((long double)m, 1 - r_bias(f) - f.mbits);
    else
        v = ldexpl((long double)(m | (1ull << f.mbits)), (int)ex - r_bias(f) - f.mbits);
    return neg ? -v : v;
}

static inline unsigned r_bitlen(uint64_t m)
{
    unsigned n = 0;
    while (m) {
        n++;
        m >>= 1;
    }
    return n;
}

/*
 * Rounds (-1)^neg * m * 2^e to format `e` with round-to-nearest-even,
 * including subnormals and overflow to infinity. m may use all 64 bits.
 */
static inline uint64_t r_fround(unsigned elem, bool neg, uint64_t m, int e)
{
    r_fmt f = r_fmt_of(elem);
    uint64_t sign = neg ? r_sign_bit(elem) : 0;
    if (m == 0)
        return sign;
    int p = f.mbits + 1, emin = 1 - r_bias(f), emax = r_bias(f);
    int top = (int)r_bitlen(m) - 1 + e; /* exponent of the leading bit */
    int q = (top < emin ? emin : top) - (p - 1); /* exponent of the last kept bit */
    int shift = q - e;
    uint64_t keep;
    if (shift <= 0) {
        keep = m << -shift;
    } else if (shift > 64) {
        keep = 0; /* m < 2^64 <= half an ulp: rounds to zero */
    } else {
        keep = shift == 64 ? 0 : m >> shift;
        uint64_t rem = shift == 64 ? m : m & r_mask((unsigned)shift);
        uint64_t half = 1ull << (shift - 1);
        if (rem > half || (rem == half && (keep & 1)))
            keep++;
    }
    if (keep == 0)
        return sign;
    if (keep >> p) { /* carried into a new binade */
        keep >>= 1;
        q++;
    }
    if (keep >> (p - 1)) {
        if (q + p - 1 > emax)
            return r_finf(elem, neg);
        uint64_t ex = (uint64_t)(q + p - 1 + r_bias(f));
        return sign | (ex << f.mbits) | (keep & r_mask(f.mbits));
    }
    return sign | keep; /* subnormal: exponent field 0 */
}

/* Rounds a long double (NaN -> the canonical quiet NaN) to format e. */
static inline uint64_t r_from_ld(unsigned e, long double x)
{
    if (isnan(x))
        return r_fqnan(e);
    if (isinf(x))
        return r_finf(e, x < 0);
    bool neg = signbit(x) != 0;
    if (x == 0)
        return neg ? r_sign_bit(e) : 0;
    int ex;
    long double fr = frexpl(neg ? -x : x, &ex); /* [0.5, 1) */
    uint64_t m = (uint64_t)ldexpl(fr, 64);      /* exact: 64-bit mantissa */
    return r_fround(e, neg, m, ex - 64);
}

/* ---- float operations ---- */

/* a * b + c rounded once: exact for f32/f64 through the C library's fma;
 * f16/bf16 go through a round-to-odd double fma, which keeps the final
 * rounding correct (53 >= 2 * 11 + 2). */
static inline uint64_t r_ffma(unsigned e, uint64_t a, uint64_t b, uint64_t c)
{
    if (e == R_F64) {
        double x = (double)r_fval(e, a), y = (double)r_fval(e, b), z = (double)r_fval(e, c);
        return r_from_ld(e, fma(x, y, z));
    }
    if (e == R_F32) {
        float x = (float)r_fval(e, a), y = (float)r_fval(e, b), z = (float)r_fval(e, c);
        return r_from_ld(e, fmaf(x, y, z));
    }
    double x = (double)r_fval(e, a), y = (double)r_fval(e, b), z = (double)r_fval(e, c);
    int old = fegetround();
    fesetround(FE_TOWARDZERO);
    feclearexcept(FE_INEXACT);
    volatile double r = fma(x, y, z);
    bool inexact = fetestexcept(FE_INEXACT) != 0;
    fesetround(old);
    double rv = r;
    if (inexact && isfinite(rv)) {
        uint64_t bits;
        memcpy(&bits, &rv, 8);
        bits |= 1;
        memcpy(&rv, &bits, 8);
    }
    return r_from_ld(e, rv);
}

/* IEEE-correct basic operation (op: + - * / and 's' for sqrt). f32 and f64
 * use the host's IEEE arithmetic; f16/bf16 compute in double, where one
 * extra rounding is harmless for these operations (53 >= 2p + 2). */
static inline uint64_t r_fbasic(unsigned e, char op, uint64_t a, uint64_t b)
{
    long double x = r_fval(e, a), y = r_fval(e, b);
    if (e == R_F32) {
        volatile float fx = (float)x, fy = (float)y, r;
        switch (op) {
        case '+': r = fx + fy; break;
        case '-': r = fx - fy; break;
        case '*': r = fx * fy; break;
        case '/': r = fx / fy; break;
        default: r = sqrtf(fx); break;
        }
        return r_from_ld(e, r);
    }
    volatile double dx = (double)x, dy = (double)y, r;
    switch (op) {
    case '+': r = dx + dy; break;
    case '-': r = dx - dy; break;
    case '*': r = dx * dy; break;
    case '/': r = dx / dy; break;
    default: r = sqrt(dx); break;
    }
    return r_from_ld(e, r);
}

/* min/max: a NaN operand gives the other one, -0 orders below +0. */
static inline uint64_t r_fminmax(unsigned e, uint64_t a, uint64_t b, bool want_max)
{
    bool na = r_fisnan(e, a), nb = r_fisnan(e, b);
    if (na && nb)
        return a;
    if (na)
        return b;
    if (nb)
        return a;
    long double x = r_fval(e, a), y = r_fval(e, b);
    if (x == y) {
        bool sa = (a & r_sign_bit(e)) != 0, sb = (b & r_sign_bit(e)) != 0;
        if (sa == sb)
            return a;
        /* +0 and -0 */
        return (want_max ? !sa : sa) ? a : b;
    }
    return ((x < y) != want_max) ? a : b;
}

/* ---- integers ---- */

/* High 64 bits of the unsigned product a * b, from 32-bit pieces. */
static inline uint64_t r_umulhi64(uint64_t a, uint64_t b)
{
    uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

static inline uint64_t r_mulhi(unsigned e, uint64_t a, uint64_t b)
{
    unsigned w = r_bits(e);
    if (w < 64) {
        if (r_is_sint(e))
            return r_u((r_sext(a, w) * r_sext(b, w)) >> w) & r_mask(w); /* fits in 64 bits */
        return ((a * b) >> w) & r_mask(w);
    }
    uint64_t hi = r_umulhi64(a, b);
    if (r_is_sint(e)) { /* signed correction: subtract b if a < 0, a if b < 0 */
        if (a >> 63)
            hi -= b;
        if (b >> 63)
            hi -= a;
    }
    return hi;
}

static inline unsigned r_popc(uint64_t a, unsigned w)
{
    unsigned n = 0;
    for (unsigned i = 0; i < w; i++)
        n += (a >> i) & 1;
    return n;
}
static inline unsigned r_clz(uint64_t a, unsigned w)
{
    unsigned n = 0;
    for (int i = (int)w - 1; i >= 0 && !((a >> i) & 1); i--)
        n++;
    return n;
}
static inline unsigned r_ctz(uint64_t a, unsigned w)
{
    unsigned n = 0;
    while (n < w && !((a >> n) & 1))
        n++;
    return n;
}
static inline uint64_t r_brev(uint64_t a, unsigned w)
{
    uint64_t r = 0;
    for (unsigned i = 0; i < w; i++)
        if ((a >> i) & 1)
            r |= 1ull << (w - 1 - i);
    return r;
}

/* ---- conversions ---- */

/* Float value -> integer type: truncate toward zero, saturate, NaN -> 0. */
static inline uint64_t r_f2i(unsigned d, long double x)
{
    unsigned w = r_bits(d);
    if (isnan(x))
        return 0;
    x = truncl(x);
    if (r_is_sint(d)) {
        long double lo = -ldexpl(1, (int)w - 1), hi = ldexpl(1, (int)w - 1);
        if (x <= lo)
            return r_u(r_sext(1ull << (w - 1), w)) & r_mask(w);
        if (x >= hi)
            return r_mask(w - 1);
        return r_u((int64_t)x) & r_mask(w);
    }
    if (x <= 0)
        return 0;
    if (x >= ldexpl(1, (int)w))
        return r_mask(w);
    return (uint64_t)x;
}

/* A NaN converted between float types (docs/numerics.md "Conversions"):
 * the sign kept, the payload's top bits (widening: all of it, shifted up),
 * the quiet bit set. */
static inline uint64_t r_nan_cvt(unsigned d, unsigned s, uint64_t v)
{
    r_fmt fs = r_fmt_of(s), fd = r_fmt_of(d);
    uint64_t frac = v & r_mask(fs.mbits);
    frac = fd.mbits >= fs.mbits ? frac << (fd.mbits - fs.mbits) : frac >> (fs.mbits - fd.mbits);
    uint64_t sign = v & r_sign_bit(s) ? r_sign_bit(d) : 0;
    return sign | r_exp_all(fd) | frac | 1ull << (fd.mbits - 1);
}

/* cvt from element type s to element type d (both numeric or bool). */
static inline uint64_t r_cvt(unsigned d, unsigned s, uint64_t v)
{
    if (s == R_BOOL)
        v = v ? 1 : 0;
    if (d == R_BOOL) {
        if (r_is_float(s))
            return r_fval(s, v) != 0 || r_fisnan(s, v);
        return v != 0;
    }
    if (r_is_float(s)) {
        if (d == s)
            return v; /* a copy, NaN bits and all */
        if (r_is_float(d))
            return r_fisnan(s, v) ? r_nan_cvt(d, s, v) : r_from_ld(d, r_fval(s, v));
        return r_f2i(d, r_fval(s, v));
    }
    /* integer or bool source: its exact value */
    bool neg = false;
    uint64_t mag = v;
    if (r_is_sint(s)) {
        int64_t sv = r_sext(v, r_bits(s));
        neg = sv < 0;
        mag = neg ? 0 - r_u(sv) : r_u(sv);
        v = r_u(sv);
    }
    if (r_is_float(d))
        return r_fround(d, neg, mag, 0);
    return v & r_mask(r_bits(d)); /* integer -> integer wraps */
}

/* ---- comparison helpers ---- */

/* ULP distance between two finite-or-infinite floats of one format, with
 * -0 and +0 at the same point; UINT64_MAX if exactly one is NaN. */
static inline uint64_t r_ulp_dist(unsigned e, uint64_t a, uint64_t b)
{
    bool na = r_fisnan(e, a), nb = r_fisnan(e, b);
    if (na || nb)
        return na && nb ? 0 : UINT64_MAX;
    uint64_t sb = r_sign_bit(e);
    int64_t oa = (a & sb) ? -(int64_t)(a & ~sb) : (int64_t)a;
    int64_t ob = (b & sb) ? -(int64_t)(b & ~sb) : (int64_t)b;
    return oa > ob ? (uint64_t)(oa - ob) : (uint64_t)(ob - oa);
}

#endif /* CVM_TEST_OPS_REF_H */
