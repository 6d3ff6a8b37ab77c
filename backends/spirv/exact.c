/*
 * exact.c - exact sequences the SPIR-V backend emits where GLSL.std.450
 * does not meet cubevm's numerics (docs/design.md "Numerics", docs/numerics.md):
 *
 * - fma with one rounding. Vulkan lets GLSL.std.450 Fma be a multiply and
 *   an add (lavapipe's is). f32 (f16) operands are widened to f64 (f32),
 *   where the product is exact; the sum is rounded to odd (an error-free
 *   TwoSum says whether it was exact, and an inexact even result moves one
 *   step towards the exact sum), and rounding that to the narrow type is
 *   the correctly rounded fma (round-to-odd with p >= 2q + 2 bits has no
 *   double-rounding error). f64 has no wider type: Dekker's exact product,
 *   TwoSum, and RN(th + RO(tl + ul)) (Boldo and Melquiond).
 * - exp, exp2, expm1, log, log2, log10, log1p. Vulkan bounds GLSL's Exp by
 *   3 + 2|x| ulp and Log by an absolute error; cubevm states 1 ulp. f32
 *   values are computed in f64 (Cody-Waite reduction by ln 2, a Taylor
 *   polynomial, 2^k by Ldexp) and rounded once: error at most 0.5 ulp plus
 *   about 2^-40 ulp. f64 values use the same cores in f64 arithmetic with
 *   the last step arranged as 1 + small: the tests hold them to 2 ulp.
 * - atan, atan2 (f32, through f64): Vulkan bounds GLSL's Atan2 by 4096 ulp.
 *   atan of min/max of the magnitudes (one reduction by pi/6, then the
 *   series), the quadrant and C99 Annex F's zeros and infinities selected.
 * - sin, cos, tan (f32, through f64): Payne-Hanek reduction with 24-bit
 *   chunks of 2/pi (each product exact in f64), Taylor cores. pow (f32):
 *   exp(y log|x|) with the f64 cores, Annex F's special cases selected.
 * - div, rcp, sqrt, rsqrt (f32, correctly rounded) and rem (f32 fmod,
 *   exact): see their sections below.
 * The caller falls back to GLSL.std.450 where a helper returns 0.
 */
#include "spv_int.h"

#include <stdint.h>

static uint32_t nc(spv_ctx *c, uint32_t id)
{
    SPV_EM(c, &c->annot, SpvOpDecorate, id, SpvDecorationNoContraction);
    return id;
}

/* Float helpers on type (e, l): every add/sub/mul is one IEEE operation. */
typedef struct fx {
    spv_ctx *c;
    unsigned e, l;
    uint32_t t, bt;
} fx;

static uint32_t add(fx *f, uint32_t a, uint32_t b) { return nc(f->c, spv_op2(f->c, SpvOpFAdd, f->t, a, b)); }
static uint32_t sub(fx *f, uint32_t a, uint32_t b) { return nc(f->c, spv_op2(f->c, SpvOpFSub, f->t, a, b)); }
static uint32_t mul(fx *f, uint32_t a, uint32_t b) { return nc(f->c, spv_op2(f->c, SpvOpFMul, f->t, a, b)); }
static uint32_t kf(fx *f, double v) { return spv_c_fval(f->c, f->e, f->l, v); }
static uint32_t sel(fx *f, uint32_t cond, uint32_t a, uint32_t b) { return spv_op3(f->c, SpvOpSelect, f->t, cond, a, b); }
static uint32_t cmp(fx *f, uint32_t op, uint32_t a, uint32_t b) { return spv_op2(f->c, op, f->bt, a, b); }
static uint32_t lor(fx *f, uint32_t a, uint32_t b) { return spv_op2(f->c, SpvOpLogicalOr, f->bt, a, b); }

static fx fx_of(spv_ctx *c, unsigned e, unsigned l)
{
    fx f = {c, e, l, spv_t_of(c, e, l), spv_t_boolv(c, l)};
    return f;
}

/* TwoSum: s = fl(a + b), *err = a + b - s exactly (no overflow assumed). */
static uint32_t two_sum(fx *f, uint32_t a, uint32_t b, uint32_t *err)
{
    uint32_t s = add(f, a, b), bb = sub(f, s, a);
    *err = add(f, sub(f, a, sub(f, s, bb)), sub(f, b, bb));
    return s;
}

/* s rounded to odd given the exact error err of s: an inexact s with an even
 * significand moves one step towards s + err (adjacent floats alternate parity). */
static uint32_t to_odd(fx *f, uint32_t s, uint32_t err)
{
    spv_ctx *c = f->c;
    unsigned bits = cvm_bc_elem_size(f->e) * 8;
    unsigned ie = bits == 64 ? CVM_T_U64 : CVM_T_U32;
    uint32_t it = spv_t_of(c, ie, f->l);
    uint32_t sb = spv_op1(c, SpvOpBitcast, it, s), eb = spv_op1(c, SpvOpBitcast, it, err);
    uint32_t one = spv_c_of(c, ie, f->l, 1), zero = spv_c_of(c, ie, f->l, 0);
    uint32_t even = spv_op2(c, SpvOpIEqual, f->bt, spv_op2(c, SpvOpBitwiseAnd, it, sb, one), zero);
    uint32_t inexact = cmp(f, SpvOpFOrdNotEqual, err, kf(f, 0.0));
    uint32_t finite = spv_op1(c, SpvOpLogicalNot, f->bt, spv_op1(c, SpvOpIsInf, f->bt, s));
    uint32_t fix = spv_op2(c, SpvOpLogicalAnd, f->bt, spv_op2(c, SpvOpLogicalAnd, f->bt, even, inexact), finite);
    uint32_t sgn = spv_c_of(c, ie, f->l, 1ull << (bits - 1));
    uint32_t same = spv_op2(c, SpvOpIEqual, f->bt,
                            spv_op2(c, SpvOpBitwiseAnd, it, spv_op2(c, SpvOpBitwiseXor, it, sb, eb), sgn), zero);
    uint32_t up = spv_op2(c, SpvOpIAdd, it, sb, one), down = spv_op2(c, SpvOpISub, it, sb, one);
    uint32_t moved = spv_op3(c, SpvOpSelect, it, same, up, down);
    return spv_op1(c, SpvOpBitcast, f->t, spv_op3(c, SpvOpSelect, it, fix, moved, sb));
}

/* Veltkamp's split: x = *hi + *lo with 26 significant bits each (|x| < 2^995). */
static void split(fx *f, uint32_t x, uint32_t *hi, uint32_t *lo)
{
    uint32_t t = mul(f, x, kf(f, 134217729.0)); /* 2^27 + 1 */
    *hi = sub(f, t, sub(f, t, x));
    *lo = sub(f, x, *hi);
}

/* Dekker's product: a b = *p + return value exactly, unless a partial product underflows. */
static uint32_t two_prod(fx *f, uint32_t a, uint32_t b, uint32_t *p)
{
    uint32_t ah, al, bh, bl;
    split(f, a, &ah, &al);
    split(f, b, &bh, &bl);
    *p = mul(f, a, b);
    uint32_t e = add(f, sub(f, mul(f, ah, bh), *p), mul(f, ah, bl));
    return add(f, add(f, e, mul(f, al, bh)), mul(f, al, bl));
}

/*
 * fma of f64 with one rounding, without a wider type (Boldo and Melquiond,
 * "Emulation of FMA and correctly rounded sums: proved algorithms using
 * rounding to odd"): a b = uh + ul exactly (Dekker), c + uh = th + tl
 * exactly (TwoSum), then RN(th + RO(tl + ul)). An operand of 2^995 or more
 * is scaled by 2^-54 and the other by 2^54 first (the split would overflow;
 * when both are that large the product overflows anyway). A rounded
 * product that is zero or not finite, or a non-finite c, take the plain
 * a b + c (identical there), except c = +-inf with finite a, b gives c,
 * and c = +-0 with a nonzero a b that rounds to zero gives that rounded
 * product (its sign: -0 + +0 would be +0).
 * A product below 2^-969 loses bits of its error term to underflow: there
 * the result is within 2 ulp (docs/backends.md).
 */
static uint32_t fma_f64(spv_ctx *c, unsigned l, uint32_t a, uint32_t b, uint32_t d)
{
    fx f = fx_of(c, CVM_T_F64, l);
    uint32_t aa = spv_ext1(c, GLSLstd450FAbs, f.t, a), ab = spv_ext1(c, GLSLstd450FAbs, f.t, b);
    uint32_t big = kf(&f, 0x1p995);
    uint32_t abig = cmp(&f, SpvOpFOrdGreaterThanEqual, aa, big), bbig = cmp(&f, SpvOpFOrdGreaterThanEqual, ab, big);
    uint32_t nb = spv_op1(c, SpvOpLogicalNot, f.bt, bbig), na = spv_op1(c, SpvOpLogicalNot, f.bt, abig);
    uint32_t down_a = spv_op2(c, SpvOpLogicalAnd, f.bt, abig, nb), down_b = spv_op2(c, SpvOpLogicalAnd, f.bt, bbig, na);
    uint32_t a1 = sel(&f, down_a, mul(&f, a, kf(&f, 0x1p-54)), sel(&f, down_b, mul(&f, a, kf(&f, 0x1p54)), a));
    uint32_t b1 = sel(&f, down_b, mul(&f, b, kf(&f, 0x1p-54)), sel(&f, down_a, mul(&f, b, kf(&f, 0x1p54)), b));
    uint32_t uh, ul = two_prod(&f, a1, b1, &uh), tl, e2;
    uint32_t th = two_sum(&f, d, uh, &tl);
    uint32_t s2 = two_sum(&f, tl, ul, &e2);
    uint32_t v = to_odd(&f, s2, e2);
    uint32_t z = add(&f, th, v);
    uint32_t p = mul(&f, a, b), plain = add(&f, p, d);
    uint32_t bt = f.bt;
    /* a nonzero product that rounds to zero, plus a zero: the product's zero
     * (p + d would give -0 + +0 = +0) */
    uint32_t dz = cmp(&f, SpvOpFOrdEqual, d, kf(&f, 0.0));
    uint32_t abz = lor(&f, cmp(&f, SpvOpFOrdEqual, a, kf(&f, 0.0)), cmp(&f, SpvOpFOrdEqual, b, kf(&f, 0.0)));
    plain = sel(&f, spv_op2(c, SpvOpLogicalAnd, bt, dz, spv_op1(c, SpvOpLogicalNot, bt, abz)), p, plain);
    uint32_t pfin = spv_op1(c, SpvOpLogicalNot, bt, lor(&f, spv_op1(c, SpvOpIsInf, bt, p), spv_op1(c, SpvOpIsNan, bt, p)));
    uint32_t dinf = spv_op1(c, SpvOpIsInf, bt, d);
    uint32_t dfin = spv_op1(c, SpvOpLogicalNot, bt, lor(&f, dinf, spv_op1(c, SpvOpIsNan, bt, d)));
    uint32_t abfin = spv_op2(c, SpvOpLogicalAnd, bt,
                             cmp(&f, SpvOpFOrdLessThanEqual, aa, kf(&f, 0x1.fffffffffffffp1023)),
                             cmp(&f, SpvOpFOrdLessThanEqual, ab, kf(&f, 0x1.fffffffffffffp1023)));
    uint32_t use_plain = lor(&f, lor(&f, spv_op1(c, SpvOpLogicalNot, bt, pfin), spv_op1(c, SpvOpLogicalNot, bt, dfin)),
                             cmp(&f, SpvOpFOrdEqual, p, kf(&f, 0.0)));
    uint32_t r = sel(&f, use_plain, plain, z);
    return sel(&f, spv_op2(c, SpvOpLogicalAnd, bt, dinf, abfin), d, r);
}

/*
 * Narrow <-> wide float conversions keeping subnormals: f32 <-> f64, and
 * f16 <-> f32 (plain OpFConvert where the device lacks Int16 for the
 * bits). A driver without
 * shaderDenormPreserveFloat32 may flush f32 subnormals in OpFConvert, both
 * ways (NVIDIA's does; loads and stores keep the bits): widen builds a
 * subnormal's value from its bits, m 2^-149 (f16: m 2^-24), and narrow
 * rounds a result below the narrow format's least normal onto that grid
 * itself (|y| 2^149 is exact, RoundEven rounds it once). The wide
 * arithmetic stays in its normal range.
 */
typedef struct narrow_fmt {
    unsigned narrow, wide, ubits; /* element types; the narrow format's width */
    uint32_t mag, min_normal_bits, sign;
    double tiny, min_normal;      /* 2^-149 or 2^-24; 2^-126 or 2^-14 */
} narrow_fmt;
static const narrow_fmt F32_IN_F64 = {CVM_T_F32, CVM_T_F64, 32, 0x7fffffffu, 0x800000u, 0x80000000u,
                                      0x1p-149, 0x1p-126};
static const narrow_fmt F16_IN_F32 = {CVM_T_F16, CVM_T_F32, 16, 0x7fffu, 0x400u, 0x8000u, 0x1p-24, 0x1p-14};

static uint32_t widen(spv_ctx *c, unsigned l, uint32_t a, const narrow_fmt *n)
{
    fx w = fx_of(c, n->wide, l);
    if (n->ubits == 16 && !c->t->int16)
        return spv_op1(c, SpvOpFConvert, w.t, a);
    uint32_t ut = spv_t_of(c, CVM_T_U32, l);
    uint32_t ia = spv_op1(c, SpvOpBitcast, spv_t_of(c, n->ubits == 16 ? CVM_T_U16 : CVM_T_U32, l), a);
    if (n->ubits == 16)
        ia = spv_op1(c, SpvOpUConvert, ut, ia);
    uint32_t mag = spv_op2(c, SpvOpBitwiseAnd, ut, ia, spv_c_of(c, CVM_T_U32, l, n->mag));
    uint32_t sub = spv_op2(c, SpvOpLogicalAnd, w.bt,
                           spv_op2(c, SpvOpULessThan, w.bt, mag, spv_c_of(c, CVM_T_U32, l, n->min_normal_bits)),
                           spv_op2(c, SpvOpINotEqual, w.bt, mag, spv_c_of(c, CVM_T_U32, l, 0)));
    uint32_t v = mul(&w, spv_op1(c, SpvOpConvertUToF, w.t, mag), kf(&w, n->tiny));
    v = sel(&w, spv_op2(c, SpvOpINotEqual, w.bt, ia, mag), spv_op1(c, SpvOpFNegate, w.t, v), v);
    return sel(&w, sub, v, spv_op1(c, SpvOpFConvert, w.t, a));
}

static uint32_t narrow(spv_ctx *c, unsigned l, uint32_t y, const narrow_fmt *n)
{
    fx w = fx_of(c, n->wide, l), s = fx_of(c, n->narrow, l);
    if (n->ubits == 16 && !c->t->int16)
        return spv_op1(c, SpvOpFConvert, s.t, y);
    uint32_t ut = spv_t_of(c, CVM_T_U32, l);
    uint32_t ay = spv_ext1(c, GLSLstd450FAbs, w.t, y);
    uint32_t tiny = spv_op2(c, SpvOpLogicalAnd, w.bt, cmp(&w, SpvOpFOrdLessThan, ay, kf(&w, n->min_normal)),
                            cmp(&w, SpvOpFOrdNotEqual, ay, kf(&w, 0.0)));
    uint32_t scaled = mul(&w, spv_ext2(c, GLSLstd450FMin, w.t, ay, kf(&w, n->min_normal)), kf(&w, 1.0 / n->tiny));
    uint32_t m = spv_op1(c, SpvOpConvertFToU, ut, spv_ext1(c, GLSLstd450RoundEven, w.t, scaled));
    uint32_t neg = cmp(&w, SpvOpFOrdLessThan, y, kf(&w, 0.0));
    m = spv_op2(c, SpvOpBitwiseOr, ut, m,
                spv_op3(c, SpvOpSelect, ut, neg, spv_c_of(c, CVM_T_U32, l, n->sign), spv_c_of(c, CVM_T_U32, l, 0)));
    if (n->ubits == 16)
        m = spv_op1(c, SpvOpUConvert, spv_t_of(c, CVM_T_U16, l), m);
    return sel(&s, tiny, spv_op1(c, SpvOpBitcast, s.t, m), spv_op1(c, SpvOpFConvert, s.t, y));
}

static uint32_t widen_f32(spv_ctx *c, unsigned l, uint32_t a) { return widen(c, l, a, &F32_IN_F64); }
static uint32_t narrow_f64(spv_ctx *c, unsigned l, uint32_t y) { return narrow(c, l, y, &F32_IN_F64); }

uint32_t spv_exact_fma(spv_ctx *c, unsigned e, unsigned l, uint32_t a, uint32_t b, uint32_t d)
{
    if (e == CVM_T_F64)
        return c->t->int64 ? fma_f64(c, l, a, b, d) : 0;
    unsigned we = e == CVM_T_F32 ? CVM_T_F64 : e == CVM_T_F16 ? CVM_T_F32 : 0;
    if (!we || (we == CVM_T_F64 && !c->t->f64))
        return 0;
    fx f = fx_of(c, we, l);
    if (we == CVM_T_F64) {
        uint32_t err, s = two_sum(&f, mul(&f, widen_f32(c, l, a), widen_f32(c, l, b)), widen_f32(c, l, d), &err);
        return narrow_f64(c, l, to_odd(&f, s, err));
    }
    uint32_t A = spv_op1(c, SpvOpFConvert, f.t, a), B = spv_op1(c, SpvOpFConvert, f.t, b);
    uint32_t D = spv_op1(c, SpvOpFConvert, f.t, d), err;
    uint32_t s = two_sum(&f, mul(&f, A, B), D, &err);
    return spv_op1(c, SpvOpFConvert, spv_t_of(c, e, l), to_odd(&f, s, err));
}

/* ---- exp and log cores (in f64 arithmetic) ---- */

#define LN2_HI 6.93147180369123816490e-01 /* 32 significant bits: k * LN2_HI is exact */
#define LN2_LO 1.90821492927058770002e-10
#define LN2 0.693147180559945309417
#define LOG2E 1.44269504088896340736
#define LOG10E 0.434294481903251827651
#define LOG10_2 0.301029995663981195214
#define SQRT_HALF 0.707106781186547524401

/* e^r - 1 for |r| <= 0.35: r + r^2 (1/2! + r (1/3! + ... r/13!)); the tail is below 2^-58. */
static uint32_t expm1_core(fx *f, uint32_t r)
{
    double fact[14];
    fact[0] = 1.0;
    for (int n = 1; n < 14; n++)
        fact[n] = fact[n - 1] * n;
    uint32_t p = kf(f, 1.0 / fact[13]);
    for (int n = 12; n >= 2; n--)
        p = add(f, kf(f, 1.0 / fact[n]), mul(f, r, p));
    return add(f, r, mul(f, mul(f, r, r), p));
}

/* y * 2^k in two exact steps, so neither factor overflows before the product does. */
static uint32_t scale2(fx *f, uint32_t y, uint32_t k)
{
    spv_ctx *c = f->c;
    uint32_t it = spv_t_vec(c, spv_t_int(c, 32), f->l);
    uint32_t k1 = spv_op2(c, SpvOpShiftRightArithmetic, it, k, spv_c_of(c, CVM_T_I32, f->l, 1));
    uint32_t k2 = spv_op2(c, SpvOpISub, it, k, k1);
    return spv_ext2(c, GLSLstd450Ldexp, f->t, spv_ext2(c, GLSLstd450Ldexp, f->t, y, k1), k2);
}

/* x = k ln2 + r with |r| <= ln2/2 (Cody-Waite); x is clamped and NaN-free first. */
static uint32_t reduce(fx *f, uint32_t x, bool base2, uint32_t *k, uint32_t *ki)
{
    spv_ctx *c = f->c;
    uint32_t xs = sel(f, spv_op1(c, SpvOpIsNan, f->bt, x), kf(f, 0.0), x);
    uint32_t xc = spv_ext3(c, GLSLstd450FClamp, f->t, xs, kf(f, base2 ? -1100.0 : -760.0),
                           kf(f, base2 ? 1100.0 : 760.0));
    *k = spv_ext1(c, GLSLstd450RoundEven, f->t, base2 ? xc : mul(f, xc, kf(f, LOG2E)));
    *ki = spv_op1(c, SpvOpConvertFToS, spv_t_vec(c, spv_t_int(c, 32), f->l), *k);
    if (base2)
        return mul(f, sub(f, xc, *k), kf(f, LN2));
    return sub(f, sub(f, xc, mul(f, *k, kf(f, LN2_HI))), mul(f, *k, kf(f, LN2_LO)));
}

static uint32_t exp_seq(fx *f, unsigned op, uint32_t x)
{
    spv_ctx *c = f->c;
    uint32_t k, ki, r = reduce(f, x, op == CVM_OP_EXP2, &k, &ki);
    uint32_t q = expm1_core(f, r), y;
    if (op == CVM_OP_EXPM1) {
        uint32_t big = sub(f, scale2(f, add(f, kf(f, 1.0), q), ki), kf(f, 1.0));
        y = sel(f, cmp(f, SpvOpFOrdEqual, k, kf(f, 0.0)), q, big);
        y = sel(f, cmp(f, SpvOpFOrdEqual, x, kf(f, 0.0)), x, y); /* expm1(-0) = -0 */
    } else {
        y = scale2(f, add(f, kf(f, 1.0), q), ki);
    }
    return sel(f, spv_op1(c, SpvOpIsNan, f->bt, x), x, y);
}

/* log(x) for positive finite x: x = 2^e m, m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s),
 * s = (m - 1) / (m + 1), by its series to s^19 (|s| <= 0.172: the tail is below 2^-55).
 * Returns log m; *ef gets e as a float. */
static uint32_t log_core(fx *f, uint32_t x, uint32_t *ef)
{
    spv_ctx *c = f->c;
    uint32_t it = spv_t_vec(c, spv_t_int(c, 32), f->l), st = spv_id(c), fr = spv_id(c);
    SPV_EM(c, &c->types, SpvOpTypeStruct, st, f->t, it);
    SPV_EM(c, &c->body, SpvOpExtInst, st, fr, c->glsl, GLSLstd450FrexpStruct, x);
    uint32_t m = spv_op2(c, SpvOpCompositeExtract, f->t, fr, 0), e = spv_op2(c, SpvOpCompositeExtract, it, fr, 1);
    uint32_t small = cmp(f, SpvOpFOrdLessThan, m, kf(f, SQRT_HALF));
    m = sel(f, small, mul(f, m, kf(f, 2.0)), m);
    e = spv_op3(c, SpvOpSelect, it, small, spv_op2(c, SpvOpISub, it, e, spv_c_of(c, CVM_T_I32, f->l, 1)), e);
    *ef = spv_op1(c, SpvOpConvertSToF, f->t, e);
    uint32_t g = sub(f, m, kf(f, 1.0));
    uint32_t s = spv_op2(c, SpvOpFDiv, f->t, g, add(f, m, kf(f, 1.0)));
    uint32_t z = mul(f, s, s), p = kf(f, 1.0 / 19.0);
    for (int n = 17; n >= 3; n -= 2)
        p = add(f, kf(f, 1.0 / n), mul(f, z, p));
    uint32_t s2 = mul(f, s, kf(f, 2.0));
    return add(f, s2, mul(f, s2, mul(f, z, p)));
}

static uint32_t log_seq(fx *f, unsigned op, uint32_t x)
{
    spv_ctx *c = f->c;
    uint32_t arg = x, corr = 0;
    if (op == CVM_OP_LOG1P) { /* log(u) + (x - (u - 1)) / u with u = 1 + x rounded */
        arg = add(f, kf(f, 1.0), x);
        corr = spv_op2(c, SpvOpFDiv, f->t, sub(f, x, sub(f, arg, kf(f, 1.0))), arg);
    }
    uint32_t pos = cmp(f, SpvOpFOrdGreaterThan, arg, kf(f, 0.0));
    uint32_t inf = spv_op1(c, SpvOpIsInf, f->bt, arg);
    uint32_t ok = spv_op2(c, SpvOpLogicalAnd, f->bt, pos, spv_op1(c, SpvOpLogicalNot, f->bt, inf));
    uint32_t ef, lm = log_core(f, sel(f, ok, arg, kf(f, 1.0)), &ef), y;
    switch (op) {
    case CVM_OP_LOG2: y = add(f, ef, mul(f, lm, kf(f, LOG2E))); break;
    case CVM_OP_LOG10: y = add(f, mul(f, ef, kf(f, LOG10_2)), mul(f, lm, kf(f, LOG10E))); break;
    default: y = add(f, mul(f, ef, kf(f, LN2)), lm); break;
    }
    if (corr) {
        y = add(f, y, corr);
        y = sel(f, cmp(f, SpvOpFOrdEqual, x, kf(f, 0.0)), x, y); /* log1p(-0) = -0 */
    }
    /* f is f64 here: log(+inf) = +inf, log(0) = -inf, log(negative or NaN) = NaN */
    uint32_t nan = spv_c_of(c, f->e, f->l, 0x7ff8000000000000ull);
    y = sel(f, inf, arg, y);
    y = sel(f, cmp(f, SpvOpFOrdEqual, arg, kf(f, 0.0)), spv_c_of(c, f->e, f->l, 0xfff0000000000000ull), y);
    return sel(f, lor(f, spv_op1(c, SpvOpIsNan, f->bt, arg), cmp(f, SpvOpFOrdLessThan, arg, kf(f, 0.0))), nan, y);
}

/* atan(t) for t in [0, 1]: above 2 - sqrt(3), pi/6 + atan((t sqrt3 - 1) / (t + sqrt3));
 * then |t| <= 0.268 and the series t (1 - z/3 + z^2/5 ...) to z^11 leaves below 2^-50. */
static uint32_t atan_core(fx *f, uint32_t t)
{
    const double sqrt3 = 1.73205080756887729353, pi6 = 0.523598775598298873077;
    uint32_t big = cmp(f, SpvOpFOrdGreaterThan, t, kf(f, 0.267949192431122706473));
    uint32_t tr = spv_op2(f->c, SpvOpFDiv, f->t, sub(f, mul(f, t, kf(f, sqrt3)), kf(f, 1.0)), add(f, t, kf(f, sqrt3)));
    uint32_t u = sel(f, big, tr, t), z = mul(f, u, u), p = kf(f, -1.0 / 23.0);
    for (int n = 21; n >= 1; n -= 2)
        p = add(f, kf(f, ((n / 2) % 2 ? -1.0 : 1.0) / n), mul(f, z, p));
    return add(f, sel(f, big, kf(f, pi6), kf(f, 0.0)), mul(f, u, p));
}

/* atan2(y, x) (x = 1 for atan) from atan_core of min/max of the magnitudes, with the
 * quadrant and every C99 Annex F special case (zeros by sign, infinities) selected. */
static uint32_t atan2_seq(fx *f, uint32_t y, uint32_t x)
{
    spv_ctx *c = f->c;
    const double pi = 3.14159265358979323846, pi2 = 1.57079632679489661923;
    uint32_t ay = spv_ext1(c, GLSLstd450FAbs, f->t, y), ax = spv_ext1(c, GLSLstd450FAbs, f->t, x);
    uint32_t ygt = cmp(f, SpvOpFOrdGreaterThan, ay, ax);
    uint32_t lo = sel(f, ygt, ax, ay), hi = sel(f, ygt, ay, ax);
    uint32_t q = spv_op2(c, SpvOpFDiv, f->t, lo, hi);
    q = sel(f, cmp(f, SpvOpFOrdEqual, hi, kf(f, 0.0)), kf(f, 0.0), q);            /* both zero */
    q = sel(f, spv_op1(c, SpvOpIsInf, f->bt, lo), kf(f, 1.0), q);                   /* both infinite */
    uint32_t r = atan_core(f, q);
    r = sel(f, ygt, sub(f, kf(f, pi2), r), r);
    uint32_t it = spv_t_vec(c, spv_t_int(c, 64), f->l);
    uint32_t xneg = spv_op2(c, SpvOpINotEqual, f->bt,
                            spv_op2(c, SpvOpShiftRightLogical, it, spv_op1(c, SpvOpBitcast, it, x), spv_c_of(c, CVM_T_U64, f->l, 63)),
                            spv_c_of(c, CVM_T_U64, f->l, 0));
    r = sel(f, xneg, sub(f, kf(f, pi), r), r);
    uint32_t ry = spv_op1(c, SpvOpBitcast, it, y), rr = spv_op1(c, SpvOpBitcast, it, r);
    uint32_t sgn = spv_c_of(c, CVM_T_U64, f->l, 1ull << 63);
    r = spv_op1(c, SpvOpBitcast, f->t, spv_op2(c, SpvOpBitwiseOr, it, spv_op2(c, SpvOpBitwiseAnd, it, ry, sgn),
                                                spv_op2(c, SpvOpBitwiseAnd, it, rr, spv_op1(c, SpvOpNot, it, sgn))));
    uint32_t nan = lor(f, spv_op1(c, SpvOpIsNan, f->bt, x), spv_op1(c, SpvOpIsNan, f->bt, y));
    return sel(f, nan, add(f, x, y), r);
}

/* atan and atan2 of f32 through f64 (the f64 bit tricks need Int64); 0 otherwise. */
uint32_t spv_exact_atan(spv_ctx *c, unsigned op, unsigned e, unsigned l, uint32_t a, uint32_t b)
{
    if (!c->t->f64 || !c->t->int64 || e != CVM_T_F32 || (op != CVM_OP_ATAN && op != CVM_OP_ATAN2))
        return 0;
    fx f = fx_of(c, CVM_T_F64, l);
    uint32_t y = widen_f32(c, l, a);
    uint32_t x = op == CVM_OP_ATAN2 ? widen_f32(c, l, b) : kf(&f, 1.0);
    return narrow_f64(c, l, atan2_seq(&f, y, x));
}

/* ---- sin, cos, tan and pow of f32 (in f64) ---- */

/* 2/pi after the binary point, 32 bits a word: 224 bits, enough for every f32 argument. */
static const uint32_t TWO_OVER_PI[7] = {0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0,
                                        0xdb629599, 0x3c439041, 0xfe5163ab};
#define TRIG_CHUNKS 9 /* of 24 bits */

/* Bits 24i+1 .. 24i+24 of 2/pi as a value (24 significant bits: exact). */
static double two_over_pi_chunk(unsigned i)
{
    uint64_t v = 0;
    for (unsigned j = 0; j < 24; j++) {
        unsigned b = 24 * i + j;
        v = v << 1 | ((TWO_OVER_PI[b / 32] >> (31 - b % 32)) & 1u);
    }
    double x = (double)v;
    for (unsigned k = 0; k <= i; k++)
        x *= 0x1p-24; /* exact: a power of two well inside the range */
    return x;
}

/*
 * ax (an f32 magnitude in f64) = (k + fr) pi/2, |fr| <= 1/2 (Payne-Hanek in
 * f64): ax times each 24-bit chunk of 2/pi is exact (24 + 24 bits), its
 * multiples of 4 are dropped exactly (they add whole turns), and the rest
 * is summed without error as hi + lo (TwoSum). Returns fr pi/2 (relative
 * error about 2^-52 even for the f32 arguments closest to a multiple of
 * pi/2), *q = k mod 4.
 */
static uint32_t trig_reduce(fx *f, uint32_t ax, uint32_t *q)
{
    spv_ctx *c = f->c;
    uint32_t hi = kf(f, 0.0), lo = kf(f, 0.0);
    for (unsigned i = 0; i < TRIG_CHUNKS; i++) {
        uint32_t t = mul(f, ax, kf(f, two_over_pi_chunk(i))), e;
        uint32_t turns = spv_ext1(c, GLSLstd450Floor, f->t, mul(f, t, kf(f, 0.25)));
        t = sub(f, t, mul(f, turns, kf(f, 4.0)));
        hi = two_sum(f, hi, t, &e);
        lo = add(f, lo, e);
    }
    uint32_t k = spv_ext1(c, GLSLstd450RoundEven, f->t, hi);
    uint32_t it = spv_t_vec(c, spv_t_int(c, 32), f->l);
    *q = spv_op2(c, SpvOpBitwiseAnd, it, spv_op1(c, SpvOpConvertFToS, it, k), spv_c_of(c, CVM_T_I32, f->l, 3));
    return mul(f, add(f, sub(f, hi, k), lo), kf(f, 1.57079632679489661923));
}

/* sin r and cos r for |r| <= pi/4 by their Taylor series to r^19 / r^20 (tails below 2^-70). */
static void sincos_core(fx *f, uint32_t r, uint32_t *sn, uint32_t *cs)
{
    double fact[22];
    fact[0] = 1.0;
    for (int n = 1; n < 22; n++)
        fact[n] = fact[n - 1] * n;
    uint32_t z = mul(f, r, r), ps = kf(f, -1.0 / fact[19]), pc = kf(f, 1.0 / fact[20]);
    for (int n = 8; n >= 1; n--)
        ps = add(f, kf(f, (n % 2 ? -1.0 : 1.0) / fact[2 * n + 1]), mul(f, z, ps));
    for (int n = 9; n >= 1; n--)
        pc = add(f, kf(f, (n % 2 ? -1.0 : 1.0) / fact[2 * n]), mul(f, z, pc));
    *sn = add(f, r, mul(f, mul(f, r, z), ps));
    *cs = add(f, kf(f, 1.0), mul(f, z, pc));
}

/* A bool line: bit `bit` of the quadrant q is set. */
static uint32_t qbit(fx *f, uint32_t q, uint32_t bit)
{
    spv_ctx *c = f->c;
    uint32_t it = spv_t_vec(c, spv_t_int(c, 32), f->l);
    return spv_op2(c, SpvOpINotEqual, f->bt, spv_op2(c, SpvOpBitwiseAnd, it, q, spv_c_of(c, CVM_T_I32, f->l, bit)),
                   spv_c_of(c, CVM_T_I32, f->l, 0));
}

static uint32_t trig_seq(fx *f, unsigned op, uint32_t x)
{
    spv_ctx *c = f->c;
    uint32_t ax = spv_ext1(c, GLSLstd450FAbs, f->t, x), q, sn, cs, v, neg;
    sincos_core(f, trig_reduce(f, ax, &q), &sn, &cs);
    uint32_t odd = qbit(f, q, 1), two = qbit(f, q, 2);
    if (op == CVM_OP_SIN) { /* q: sin, cos, -sin, -cos */
        v = sel(f, odd, cs, sn);
        neg = two;
    } else if (op == CVM_OP_COS) { /* q: cos, -sin, -cos, sin */
        v = sel(f, odd, sn, cs);
        neg = spv_op2(c, SpvOpLogicalNotEqual, f->bt, odd, two);
    } else { /* q even: sin/cos; odd: -cos/sin */
        v = spv_op2(c, SpvOpFDiv, f->t, sel(f, odd, cs, sn), sel(f, odd, sn, cs));
        neg = odd;
    }
    if (op != CVM_OP_COS) /* odd functions: the sign of x (sin(-0) = -0) */
        neg = spv_op2(c, SpvOpLogicalNotEqual, f->bt, neg, cmp(f, SpvOpFOrdLessThan, x, kf(f, 0.0)));
    v = sel(f, neg, spv_op1(c, SpvOpFNegate, f->t, v), v);
    v = sel(f, cmp(f, SpvOpFOrdEqual, x, kf(f, 0.0)), op == CVM_OP_COS ? kf(f, 1.0) : x, v);
    uint32_t bad = lor(f, spv_op1(c, SpvOpIsInf, f->bt, x), spv_op1(c, SpvOpIsNan, f->bt, x));
    return sel(f, bad, sub(f, x, x), v); /* sin(inf) = NaN, NaN stays NaN */
}

/*
 * pow(x, y) of f32 values in f64: exp(y log|x|) (|y log|x|| < 104 wherever the
 * f32 result is finite and non-zero, so f64 leaves an error near 2^-45
 * relative), the sign for negative x and odd integer y, and C99 Annex F's
 * special cases selected (pow(x, 0) = pow(1, y) = 1 even for NaN, pow(-1,
 * +-inf) = 1, negative finite x with non-integer y is NaN).
 */
static uint32_t pow_seq(fx *f, uint32_t x, uint32_t y)
{
    spv_ctx *c = f->c;
    uint32_t bt = f->bt, ax = spv_ext1(c, GLSLstd450FAbs, f->t, x);
    uint32_t m = exp_seq(f, CVM_OP_EXP, mul(f, y, log_seq(f, CVM_OP_LOG, ax)));
    uint32_t yint = cmp(f, SpvOpFOrdEqual, spv_ext1(c, GLSLstd450Trunc, f->t, y), y);
    uint32_t yh = mul(f, y, kf(f, 0.5));
    uint32_t yodd = spv_op2(c, SpvOpLogicalAnd, bt, yint,
                            cmp(f, SpvOpFOrdNotEqual, spv_ext1(c, GLSLstd450Trunc, f->t, yh), yh));
    uint32_t it = spv_t_vec(c, spv_t_int(c, 64), f->l);
    uint32_t xneg = spv_op2(c, SpvOpINotEqual, bt,
                            spv_op2(c, SpvOpShiftRightLogical, it, spv_op1(c, SpvOpBitcast, it, x),
                                    spv_c_of(c, CVM_T_U64, f->l, 63)), spv_c_of(c, CVM_T_U64, f->l, 0));
    uint32_t r = sel(f, spv_op2(c, SpvOpLogicalAnd, bt, xneg, yodd), spv_op1(c, SpvOpFNegate, f->t, m), m);
    uint32_t xinf = spv_op1(c, SpvOpIsInf, bt, x), yinf = spv_op1(c, SpvOpIsInf, bt, y);
    uint32_t nonint = spv_op2(c, SpvOpLogicalAnd, bt, cmp(f, SpvOpFOrdLessThan, x, kf(f, 0.0)),
                              spv_op2(c, SpvOpLogicalAnd, bt, spv_op1(c, SpvOpLogicalNot, bt, xinf),
                                      spv_op1(c, SpvOpLogicalNot, bt, yint)));
    r = sel(f, nonint, spv_c_of(c, f->e, f->l, 0x7ff8000000000000ull), r);
    r = sel(f, spv_op2(c, SpvOpLogicalAnd, bt, cmp(f, SpvOpFOrdEqual, ax, kf(f, 1.0)), yinf), kf(f, 1.0), r);
    r = sel(f, lor(f, spv_op1(c, SpvOpIsNan, bt, x), spv_op1(c, SpvOpIsNan, bt, y)), add(f, x, y), r);
    return sel(f, lor(f, cmp(f, SpvOpFOrdEqual, x, kf(f, 1.0)), cmp(f, SpvOpFOrdEqual, y, kf(f, 0.0))), kf(f, 1.0), r);
}

/* sin, cos, tan and pow of f32 through f64 (the bit tests need Int64); 0 otherwise. */
uint32_t spv_exact_trig(spv_ctx *c, unsigned op, unsigned e, unsigned l, uint32_t a, uint32_t b)
{
    bool trig = op == CVM_OP_SIN || op == CVM_OP_COS || op == CVM_OP_TAN;
    if (!c->t->f64 || !c->t->int64 || e != CVM_T_F32 || (!trig && op != CVM_OP_POW))
        return 0;
    fx f = fx_of(c, CVM_T_F64, l);
    uint32_t x = widen_f32(c, l, a);
    uint32_t y = trig ? trig_seq(&f, op, x) : pow_seq(&f, x, widen_f32(c, l, b));
    return narrow_f64(c, l, y);
}

/* ---- sinh, cosh, tanh, asin, acos, hypot and cbrt of f32 (in f64) ----
 *
 * GLSL.std.450's versions are off by thousands of ulps on lavapipe and
 * overflow early (coshf(89) was inf, hypotf(1e27, 1) inf, cbrtf(NaN) 0).
 * In f64 the sequences above give these within 2^-40 relative, so the
 * f32 result is the correctly rounded one but within a hair of a tie. */

/* |y| with the sign of x (f64 bits; -0 keeps its sign). */
static uint32_t with_sign(fx *f, uint32_t y, uint32_t x)
{
    spv_ctx *c = f->c;
    uint32_t it = spv_t_vec(c, spv_t_int(c, 64), f->l), sgn = spv_c_of(c, CVM_T_U64, f->l, 1ull << 63);
    uint32_t mag = spv_op2(c, SpvOpBitwiseAnd, it, spv_op1(c, SpvOpBitcast, it, y), spv_op1(c, SpvOpNot, it, sgn));
    uint32_t s = spv_op2(c, SpvOpBitwiseAnd, it, spv_op1(c, SpvOpBitcast, it, x), sgn);
    return spv_op1(c, SpvOpBitcast, f->t, spv_op2(c, SpvOpBitwiseOr, it, mag, s));
}

static uint32_t div(fx *f, uint32_t a, uint32_t b) { return nc(f->c, spv_op2(f->c, SpvOpFDiv, f->t, a, b)); }

static uint32_t hyper_seq(fx *f, unsigned op, uint32_t x, uint32_t x2)
{
    spv_ctx *c = f->c;
    uint32_t ax = spv_ext1(c, GLSLstd450FAbs, f->t, x);
    switch (op) {
    case CVM_OP_SINH: { /* (m + m / (m + 1)) / 2 with m = e^|x| - 1: no cancellation near 0 */
        uint32_t m = exp_seq(f, CVM_OP_EXPM1, ax);
        uint32_t y = mul(f, add(f, m, div(f, m, add(f, m, kf(f, 1.0)))), kf(f, 0.5));
        y = sel(f, spv_op1(c, SpvOpIsInf, f->bt, m), m, y); /* inf / inf */
        return sel(f, spv_op1(c, SpvOpIsNan, f->bt, x), x, with_sign(f, y, x));
    }
    case CVM_OP_COSH: {
        uint32_t m = exp_seq(f, CVM_OP_EXP, ax);
        return mul(f, add(f, m, div(f, kf(f, 1.0), m)), kf(f, 0.5));
    }
    case CVM_OP_TANH: { /* m / (m + 2) with m = e^2|x| - 1; 1 from |x| = 20 on (m would overflow past 354) */
        uint32_t m = exp_seq(f, CVM_OP_EXPM1, mul(f, ax, kf(f, 2.0)));
        uint32_t y = sel(f, cmp(f, SpvOpFOrdGreaterThan, ax, kf(f, 20.0)), kf(f, 1.0), div(f, m, add(f, m, kf(f, 2.0))));
        return sel(f, spv_op1(c, SpvOpIsNan, f->bt, x), x, with_sign(f, y, x));
    }
    case CVM_OP_ASIN: case CVM_OP_ACOS: { /* atan2 of x and sqrt((1 - x)(1 + x)), both exact-ish in f64 */
        uint32_t r = spv_ext1(c, GLSLstd450Sqrt, f->t, mul(f, sub(f, kf(f, 1.0), x), add(f, kf(f, 1.0), x)));
        return op == CVM_OP_ASIN ? atan2_seq(f, x, r) : atan2_seq(f, r, x);
    }
    case CVM_OP_HYPOT: { /* the squares of f32 values are exact in f64 and cannot overflow */
        uint32_t y = spv_ext1(c, GLSLstd450Sqrt, f->t, add(f, mul(f, x, x), mul(f, x2, x2)));
        uint32_t inf = lor(f, spv_op1(c, SpvOpIsInf, f->bt, x), spv_op1(c, SpvOpIsInf, f->bt, x2));
        return sel(f, inf, spv_c_of(c, f->e, f->l, 0x7ff0000000000000ull), y); /* hypot(inf, NaN) = inf */
    }
    default: { /* cbrt: e^(log|x| / 3) with the sign of x; 0, inf and NaN come through */
        uint32_t y = exp_seq(f, CVM_OP_EXP, mul(f, log_seq(f, CVM_OP_LOG, ax), kf(f, 1.0 / 3.0)));
        y = sel(f, cmp(f, SpvOpFOrdEqual, ax, kf(f, 0.0)), ax, y);
        return sel(f, spv_op1(c, SpvOpIsNan, f->bt, x), x, with_sign(f, y, x));
    }
    }
}

/* sinh, cosh, tanh, asin, acos, hypot and cbrt of f32 through f64 (the bit
 * tests need Int64); 0 otherwise. */
uint32_t spv_exact_hyper(spv_ctx *c, unsigned op, unsigned e, unsigned l, uint32_t a, uint32_t b)
{
    if (!c->t->f64 || !c->t->int64 || e != CVM_T_F32 ||
        (op != CVM_OP_SINH && op != CVM_OP_COSH && op != CVM_OP_TANH && op != CVM_OP_ASIN && op != CVM_OP_ACOS &&
         op != CVM_OP_HYPOT && op != CVM_OP_CBRT))
        return 0;
    fx f = fx_of(c, CVM_T_F64, l);
    uint32_t x2 = op == CVM_OP_HYPOT ? widen_f32(c, l, b) : 0;
    return narrow_f64(c, l, hyper_seq(&f, op, widen_f32(c, l, a), x2));
}

/* ---- erf and erfc of f32 (in f64 arithmetic) ---- */

#define ERF_SPLIT 2.5   /* below: the series; above: the continued fraction */
#define ERF_SERIES 42   /* terms of the series: the tail is below 2^-56 of the sum at 2.5 */
#define ERF_CF 40       /* depth of the continued fraction: 2^-47 relative at 2.5 */
#define FRAC_1_SQRTPI 0.564189583547756286948

/*
 * erf(x) for |x| <= 2.5: 2x/sqrt(pi) e^-x^2 sum z^n / (2n+1)!! with z = 2x^2
 * (every term positive: no cancellation); x^2 of an f32 is exact in f64.
 */
static uint32_t erf_series(fx *f, uint32_t x)
{
    double coef[ERF_SERIES + 1], d = 1.0;
    coef[0] = 1.0;
    for (int n = 1; n <= ERF_SERIES; n++) {
        d *= 2 * n + 1;
        coef[n] = 1.0 / d;
    }
    uint32_t x2 = mul(f, x, x), z = add(f, x2, x2), p = kf(f, coef[ERF_SERIES]);
    for (int n = ERF_SERIES - 1; n >= 0; n--)
        p = add(f, kf(f, coef[n]), mul(f, z, p));
    uint32_t e = exp_seq(f, CVM_OP_EXP, sub(f, kf(f, 0.0), x2));
    return mul(f, mul(f, mul(f, x, kf(f, 2.0 * FRAC_1_SQRTPI)), e), p);
}

/* erfc(x) for x >= 2.5: e^-x^2 / sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))). */
static uint32_t erfc_cf(fx *f, uint32_t x)
{
    uint32_t t = x;
    for (int n = ERF_CF; n >= 1; n--)
        t = add(f, x, spv_op2(f->c, SpvOpFDiv, f->t, kf(f, n / 2.0), t));
    uint32_t e = exp_seq(f, CVM_OP_EXP, sub(f, kf(f, 0.0), mul(f, x, x)));
    return spv_op2(f->c, SpvOpFDiv, f->t, mul(f, e, kf(f, FRAC_1_SQRTPI)), t);
}

/*
 * erf/erfc of f32 x widened to f64: |x| < 2.5 the series (odd: erf(-0) =
 * -0), else 1 - the continued fraction with x's sign; erfc = 1 - erf for
 * x < 2.5 (at most a 2500-fold relative loss there, about 2^-40) and the
 * continued fraction above. NaN gives NaN; +-inf give +-1 and 0 or 2.
 */
static uint32_t erf_seq(fx *f, unsigned op, uint32_t x)
{
    spv_ctx *c = f->c;
    uint32_t ax = spv_ext1(c, GLSLstd450FAbs, f->t, x);
    uint32_t small = cmp(f, SpvOpFOrdLessThan, ax, kf(f, ERF_SPLIT));
    uint32_t es = erf_series(f, spv_ext3(c, GLSLstd450FClamp, f->t, x, kf(f, -ERF_SPLIT), kf(f, ERF_SPLIT)));
    uint32_t cb = erfc_cf(f, spv_ext3(c, GLSLstd450FClamp, f->t, ax, kf(f, ERF_SPLIT), kf(f, 30.0)));
    uint32_t neg = cmp(f, SpvOpFOrdLessThan, x, kf(f, 0.0));
    uint32_t eb = sub(f, kf(f, 1.0), cb); /* erf(|x|) for |x| >= 2.5 */
    uint32_t y;
    if (op == CVM_OP_ERF)
        y = sel(f, small, es, sel(f, neg, sub(f, kf(f, 0.0), eb), eb));
    else
        y = sel(f, small, sub(f, kf(f, 1.0), es), sel(f, neg, add(f, kf(f, 1.0), eb), cb));
    return sel(f, spv_op1(c, SpvOpIsNan, f->bt, x), x, y);
}

/*
 * exp-family and log-family ops of f32 (through f64) and exp/exp2 of f64;
 * 0 where this file has no sequence (the caller then uses GLSL.std.450 or
 * rejects the op).
 */
uint32_t spv_exact_math(spv_ctx *c, unsigned op, unsigned e, unsigned l, uint32_t a)
{
    bool expf = op == CVM_OP_EXP || op == CVM_OP_EXP2 || op == CVM_OP_EXPM1;
    bool logf = op == CVM_OP_LOG || op == CVM_OP_LOG2 || op == CVM_OP_LOG10 || op == CVM_OP_LOG1P;
    bool erff = op == CVM_OP_ERF || op == CVM_OP_ERFC;
    if (!c->t->f64 || !(expf || logf || erff) || (e != CVM_T_F32 && e != CVM_T_F64))
        return 0;
    if (erff && e != CVM_T_F32)
        return 0;
    if (e == CVM_T_F64 && op != CVM_OP_EXP && op != CVM_OP_EXP2)
        return 0;
    fx f = fx_of(c, CVM_T_F64, l);
    uint32_t x = e == CVM_T_F64 ? a : widen_f32(c, l, a);
    uint32_t y = expf ? exp_seq(&f, op, x) : erff ? erf_seq(&f, op, x) : log_seq(&f, op, x);
    return e == CVM_T_F64 ? y : narrow_f64(c, l, y);
}

/* ---- division and square roots of f32, correctly rounded (through f64) ---- */

/*
 * Vulkan bounds OpFDiv by 2.5 ulp and lets Sqrt and InverseSqrt be
 * approximations; NVIDIA's driver rounds them differently from IEEE (seen
 * on an H200: the corpus's average pooling off by one ulp, sqrt_f32).
 * cubevm's div, rcp and sqrt are correctly rounded, its rsqrt within 1 ulp
 * (0.5 measured: docs/numerics.md); this one is correctly rounded, inside that bound.
 * The sequence: an estimate from the f64 operation, refined by one Newton
 * step in f64 (Vulkan bounds f64 operations only at f32's level: a Sqrt may
 * be ~5 f32 ulp off; after the step the error is far below one f32 step)
 * and rounded to f32 (to nearest even where the device offers
 * RoundingModeRTE; else possibly one step further), then three rounds of
 * moving q by one f32 step towards the exact result where the midpoint
 * between q and its neighbour says so. The midpoint m of
 * two f32 values has 25 significant bits, so with x, y the operands widened
 * to f64 the residual's sign is exact: x - m y (div; m y is exact), x - m m
 * (sqrt; exact), 1 - m m x (rsqrt; m m exact, times x by Dekker's exact
 * product). A zero residual is a tie: the even neighbour wins. The infinity's
 * bits stand for 2^128, where a rounding to nearest even overflows.
 */
typedef enum { RES_DIV, RES_SQRT, RES_RSQRT } residual_kind;

/* The f64 value of non-negative f32 bits i, the infinity's read as 2^128. */
static uint32_t f32_bits_value(fx *d, uint32_t i)
{
    spv_ctx *c = d->c;
    uint32_t ft = spv_t_of(c, CVM_T_F32, d->l);
    uint32_t inf = spv_op2(c, SpvOpUGreaterThanEqual, d->bt, i, spv_c_of(c, CVM_T_U32, d->l, 0x7f800000u));
    return sel(d, inf, kf(d, 0x1p128), widen_f32(c, d->l, spv_op1(c, SpvOpBitcast, ft, i)));
}

/* The sign of the exact result minus m, as a residual of that sign (0: m is exact). */
static uint32_t residual(fx *d, residual_kind k, uint32_t m, uint32_t x, uint32_t y)
{
    if (k == RES_DIV)
        return sub(d, x, mul(d, m, y));
    if (k == RES_SQRT)
        return sub(d, x, mul(d, m, m));
    uint32_t hi, lo = two_prod(d, mul(d, m, m), x, &hi);
    return sub(d, sub(d, kf(d, 1.0), hi), lo);
}

/* One step of q (non-negative f32 bits) up or down towards the exact result, if nearer. */
static uint32_t nudge(fx *d, residual_kind k, uint32_t q, uint32_t x, uint32_t y, bool up)
{
    spv_ctx *c = d->c;
    unsigned l = d->l;
    uint32_t ut = spv_t_of(c, CVM_T_U32, l), one = spv_c_of(c, CVM_T_U32, l, 1);
    uint32_t edge = spv_op2(c, SpvOpIEqual, d->bt, q, spv_c_of(c, CVM_T_U32, l, up ? 0x7f800000u : 0));
    uint32_t n = spv_op3(c, SpvOpSelect, ut, edge, q, spv_op2(c, up ? SpvOpIAdd : SpvOpISub, ut, q, one));
    uint32_t m = mul(d, add(d, f32_bits_value(d, q), f32_bits_value(d, n)), kf(d, 0.5));
    uint32_t r = residual(d, k, m, x, y);
    uint32_t beyond = cmp(d, up ? SpvOpFOrdGreaterThan : SpvOpFOrdLessThan, r, kf(d, 0.0));
    uint32_t odd = spv_op2(c, SpvOpINotEqual, d->bt, spv_op2(c, SpvOpBitwiseAnd, ut, q, one),
                           spv_c_of(c, CVM_T_U32, l, 0));
    uint32_t tie = spv_op2(c, SpvOpLogicalAnd, d->bt, cmp(d, SpvOpFOrdEqual, r, kf(d, 0.0)), odd);
    return spv_op3(c, SpvOpSelect, ut, lor(d, beyond, tie), n, q);
}

/* The correctly rounded f32 bits of the positive result near the f64 estimate est. */
static uint32_t round_exact(fx *d, residual_kind k, uint32_t est, uint32_t x, uint32_t y)
{
    spv_ctx *c = d->c;
    uint32_t ut = spv_t_of(c, CVM_T_U32, d->l);
    uint32_t q = spv_op1(c, SpvOpBitcast, ut, narrow_f64(c, d->l, est));
    int skew = c->t->test_skew;
    if (skew) { /* clamped to [0, the infinity's bits] */
        unsigned steps = (unsigned)(skew < 0 ? -skew : skew);
        uint32_t kk = spv_c_of(c, CVM_T_U32, d->l, steps), inf = spv_c_of(c, CVM_T_U32, d->l, 0x7f800000u);
        if (skew > 0)
            q = spv_ext2(c, GLSLstd450UMin, ut, spv_op2(c, SpvOpIAdd, ut, q, kk), inf);
        else
            q = spv_op3(c, SpvOpSelect, ut, spv_op2(c, SpvOpULessThan, d->bt, q, kk), spv_c_of(c, CVM_T_U32, d->l, 0),
                        spv_op2(c, SpvOpISub, ut, q, kk));
    }
    for (int round = 0; round < 3; round++) {
        q = nudge(d, k, q, x, y, true);
        q = nudge(d, k, q, x, y, false);
    }
    return q;
}

/*
 * div, rcp, sqrt and rsqrt of f32 through f64; 0 for other types, or
 * without f64. Operands are classified by their bits (an f32 comparison may
 * see a subnormal as zero), and zeros, infinities, NaNs and negative roots
 * get IEEE's results from the bits too: a flushing driver's plain
 * instruction would compute 2^-149 / 0 as 0 / 0. Invalid operations give
 * the canonical NaN, NaN operands a quiet NaN (div: the driver's).
 */
uint32_t spv_exact_divsqrt(spv_ctx *c, unsigned op, unsigned e, unsigned l, uint32_t a, uint32_t b)
{
    if (!c->t->f64 || (op != CVM_OP_DIV && op != CVM_OP_RCP && op != CVM_OP_SQRT && op != CVM_OP_RSQRT))
        return 0;
    if (e == CVM_T_F16) {
        /* f16 is exact in f32, and the f32 result rounded once more to f16 is
         * the correctly rounded f16 one (24 >= 2 * 11 + 2 bits: no double-rounding
         * error), as on the cpu device (docs/numerics.md) */
        return narrow(c, l, spv_exact_divsqrt(c, op, CVM_T_F32, l, widen(c, l, a, &F16_IN_F32),
                                              b ? widen(c, l, b, &F16_IN_F32) : 0), &F16_IN_F32);
    }
    if (e != CVM_T_F32)
        return 0;
    fx d = fx_of(c, CVM_T_F64, l), s = fx_of(c, CVM_T_F32, l);
    uint32_t ut = spv_t_of(c, CVM_T_U32, l), bt = s.bt;
    uint32_t sign = spv_c_of(c, CVM_T_U32, l, 0x80000000u), inf = spv_c_of(c, CVM_T_U32, l, 0x7f800000u);
    uint32_t zero = spv_c_of(c, CVM_T_U32, l, 0);
    if (op == CVM_OP_RCP) {
        b = a;
        a = kf(&s, 1.0);
    }
    uint32_t ua = spv_op1(c, SpvOpBitcast, ut, a);
    uint32_t ma = spv_op2(c, SpvOpBitwiseAnd, ut, ua, spv_c_of(c, CVM_T_U32, l, 0x7fffffffu));
    /* finite and nonzero: 0 < |a|'s bits < the infinity's */
    uint32_t ord_a = spv_op2(c, SpvOpLogicalAnd, bt, spv_op2(c, SpvOpINotEqual, bt, ma, zero),
                             spv_op2(c, SpvOpULessThan, bt, ma, inf));
    uint32_t x = f32_bits_value(&d, ma);
    if (op == CVM_OP_DIV || op == CVM_OP_RCP) {
        uint32_t ub = spv_op1(c, SpvOpBitcast, ut, b);
        uint32_t mb = spv_op2(c, SpvOpBitwiseAnd, ut, ub, spv_c_of(c, CVM_T_U32, l, 0x7fffffffu));
        uint32_t ord_b = spv_op2(c, SpvOpLogicalAnd, bt, spv_op2(c, SpvOpINotEqual, bt, mb, zero),
                                 spv_op2(c, SpvOpULessThan, bt, mb, inf));
        uint32_t y = f32_bits_value(&d, mb);
        uint32_t q0 = nc(c, spv_op2(c, SpvOpFDiv, d.t, x, y)); /* refined: q0 + (x - q0 y) / y */
        q0 = add(&d, q0, nc(c, spv_op2(c, SpvOpFDiv, d.t, sub(&d, x, mul(&d, q0, y)), y)));
        uint32_t q = round_exact(&d, RES_DIV, q0, x, y);
        uint32_t sg = spv_op2(c, SpvOpBitwiseAnd, ut, spv_op2(c, SpvOpBitwiseXor, ut, ua, ub), sign);
        /* IEEE's cases from the bits (a flushing driver's OpFDiv takes 2^-149 / 0 for 0 / 0):
         * NaN operands propagate, inf/inf and 0/0 are invalid, inf/y and x/0 infinite, else zero */
        uint32_t az = spv_op2(c, SpvOpIEqual, bt, ma, zero), bz = spv_op2(c, SpvOpIEqual, bt, mb, zero);
        uint32_t ai = spv_op2(c, SpvOpIEqual, bt, ma, inf), bi = spv_op2(c, SpvOpIEqual, bt, mb, inf);
        uint32_t invalid = lor(&s, spv_op2(c, SpvOpLogicalAnd, bt, az, bz), spv_op2(c, SpvOpLogicalAnd, bt, ai, bi));
        uint32_t edge = spv_op2(c, SpvOpBitwiseOr, ut, sg,
                                spv_op3(c, SpvOpSelect, ut, lor(&s, ai, bz), inf, zero));
        edge = spv_op3(c, SpvOpSelect, ut, invalid, spv_c_of(c, CVM_T_U32, l, 0x7fc00000u), edge);
        uint32_t nan = lor(&s, spv_op2(c, SpvOpUGreaterThan, bt, ma, inf), spv_op2(c, SpvOpUGreaterThan, bt, mb, inf));
        uint32_t r = spv_op3(c, SpvOpSelect, ut, spv_op2(c, SpvOpLogicalAnd, bt, ord_a, ord_b), spv_op2(c, SpvOpBitwiseOr, ut, q, sg), edge);
        return sel(&s, nan, nc(c, spv_op2(c, SpvOpFDiv, s.t, a, b)), spv_op1(c, SpvOpBitcast, s.t, r));
    }
    uint32_t ordinary = spv_op2(c, SpvOpLogicalAnd, bt, ord_a, spv_op2(c, SpvOpIEqual, bt, ua, ma)); /* and positive */
    uint32_t nanq = spv_op2(c, SpvOpBitwiseOr, ut, ua, spv_c_of(c, CVM_T_U32, l, 0x400000u)); /* NaN: quieted */
    uint32_t isnan = spv_op2(c, SpvOpUGreaterThan, bt, ma, inf);
    if (op == CVM_OP_SQRT) {
        uint32_t s0 = spv_ext1(c, GLSLstd450Sqrt, d.t, x); /* refined: s0 + (x - s0 s0) / 2 s0 */
        s0 = add(&d, s0, nc(c, spv_op2(c, SpvOpFDiv, d.t, sub(&d, x, mul(&d, s0, s0)), add(&d, s0, s0))));
        uint32_t q = round_exact(&d, RES_SQRT, s0, x, 0);
        /* +-0 and +inf: themselves; NaN: quieted; anything else negative: the canonical NaN */
        uint32_t keep = lor(&s, spv_op2(c, SpvOpIEqual, bt, ma, zero), spv_op2(c, SpvOpIEqual, bt, ua, inf));
        uint32_t edge = spv_op3(c, SpvOpSelect, ut, keep, ua,
                                spv_op3(c, SpvOpSelect, ut, isnan, nanq, spv_c_of(c, CVM_T_U32, l, 0x7fc00000u)));
        return spv_op1(c, SpvOpBitcast, s.t, spv_op3(c, SpvOpSelect, ut, ordinary, q, edge));
    }
    uint32_t r0 = spv_ext1(c, GLSLstd450InverseSqrt, d.t, x); /* refined: r0 + r0 (1 - x r0 r0) / 2 */
    r0 = add(&d, r0, mul(&d, mul(&d, r0, sub(&d, kf(&d, 1.0), mul(&d, x, mul(&d, r0, r0)))), kf(&d, 0.5)));
    uint32_t q = round_exact(&d, RES_RSQRT, r0, x, 0);
    /* +-0: +-inf; +inf: +0; negative or NaN: the canonical NaN */
    uint32_t nan = spv_op3(c, SpvOpSelect, ut, isnan, nanq, spv_c_of(c, CVM_T_U32, l, 0x7fc00000u));
    uint32_t special = spv_op3(c, SpvOpSelect, ut, spv_op2(c, SpvOpIEqual, bt, ua, inf), zero, nan);
    special = spv_op3(c, SpvOpSelect, ut, spv_op2(c, SpvOpIEqual, bt, ma, zero),
                      spv_op2(c, SpvOpBitwiseOr, ut, spv_op2(c, SpvOpBitwiseAnd, ut, ua, sign), inf), special);
    return spv_op1(c, SpvOpBitcast, s.t, spv_op3(c, SpvOpSelect, ut, ordinary, q, special));
}

/*
 * fmod of f32, exact (Vulkan's OpFRem is x - y trunc(x / y), wrong once
 * the quotient passes 2^24). With |x| = sx 2^ex >= |y| = sy 2^ey (sx, sy
 * the integer significands, subnormals with exponent 1 and no hidden bit,
 * so k = ex - ey is 0..253), fmod = ((sx mod sy) (2^k mod sy) mod sy) 2^ey:
 * 2^k mod sy by square-and-multiply over k's 8 bits in u64 (every product
 * is below 2^48). The result is exactly representable; it gets x's sign.
 * |x| < |y| (and x = +-0, y = +-inf) gives x; y = 0, x infinite or a NaN
 * give NaN (a NaN operand quieted). Needs f64 and Int64; 0 otherwise. f16
 * goes through f32 (exact there, and the remainder is an f16).
 */
uint32_t spv_exact_fmod(spv_ctx *c, unsigned e, unsigned l, uint32_t a, uint32_t b)
{
    if (!c->t->f64 || !c->t->int64)
        return 0;
    if (e == CVM_T_F16) /* exact in f32, and the result fits f16 */
        return narrow(c, l, spv_exact_fmod(c, CVM_T_F32, l, widen(c, l, a, &F16_IN_F32), widen(c, l, b, &F16_IN_F32)),
                      &F16_IN_F32);
    if (e != CVM_T_F32)
        return 0;
    fx d = fx_of(c, CVM_T_F64, l);
    uint32_t ut = spv_t_of(c, CVM_T_U32, l), qt = spv_t_of(c, CVM_T_U64, l), bt = d.bt;
#define U32(v) spv_c_of(c, CVM_T_U32, l, (v))
#define U64(v) spv_c_of(c, CVM_T_U64, l, (v))
    uint32_t ua = spv_op1(c, SpvOpBitcast, ut, a), ub = spv_op1(c, SpvOpBitcast, ut, b);
    uint32_t ma = spv_op2(c, SpvOpBitwiseAnd, ut, ua, U32(0x7fffffffu));
    uint32_t mb = spv_op2(c, SpvOpBitwiseAnd, ut, ub, U32(0x7fffffffu));
    uint32_t inf = U32(0x7f800000u);
    /* significands and exponents (at least 1) */
    uint32_t ea = spv_op2(c, SpvOpShiftRightLogical, ut, ma, U32(23));
    uint32_t eb = spv_op2(c, SpvOpShiftRightLogical, ut, mb, U32(23));
    uint32_t fa = spv_op2(c, SpvOpBitwiseAnd, ut, ma, U32(0x7fffffu));
    uint32_t fb = spv_op2(c, SpvOpBitwiseAnd, ut, mb, U32(0x7fffffu));
    uint32_t za = spv_op2(c, SpvOpIEqual, bt, ea, U32(0)), zb = spv_op2(c, SpvOpIEqual, bt, eb, U32(0));
    uint32_t sa = spv_op3(c, SpvOpSelect, ut, za, fa, spv_op2(c, SpvOpBitwiseOr, ut, fa, U32(0x800000u)));
    uint32_t sb = spv_op3(c, SpvOpSelect, ut, zb, fb, spv_op2(c, SpvOpBitwiseOr, ut, fb, U32(0x800000u)));
    ea = spv_ext2(c, GLSLstd450UMax, ut, ea, U32(1));
    eb = spv_ext2(c, GLSLstd450UMax, ut, eb, U32(1));
    /* k = ea - eb, meaningful where |x| >= |y|; the others are selected away */
    uint32_t k = spv_op2(c, SpvOpISub, ut, spv_ext2(c, GLSLstd450UMax, ut, ea, eb), eb);
    uint32_t m = spv_op1(c, SpvOpUConvert, qt, spv_ext2(c, GLSLstd450UMax, ut, sb, U32(1)));
    uint32_t r = spv_op2(c, SpvOpUMod, qt, spv_op1(c, SpvOpUConvert, qt, sa), m);
    uint32_t t = spv_op2(c, SpvOpUMod, qt, U64(1), m);
    for (int bit = 7; bit >= 0; bit--) {
        t = spv_op2(c, SpvOpUMod, qt, spv_op2(c, SpvOpIMul, qt, t, t), m);
        uint32_t set = spv_op2(c, SpvOpINotEqual, bt,
                               spv_op2(c, SpvOpBitwiseAnd, ut, k, U32(1u << bit)), U32(0));
        uint32_t t2 = spv_op2(c, SpvOpUMod, qt, spv_op2(c, SpvOpShiftLeftLogical, qt, t, U64(1)), m);
        t = spv_op3(c, SpvOpSelect, qt, set, t2, t);
    }
    uint32_t res = spv_op2(c, SpvOpUMod, qt, spv_op2(c, SpvOpIMul, qt, r, t), m);
    /* res 2^(eb - 150), exact in f64 and in f32 */
    uint32_t it = spv_t_vec(c, spv_t_int(c, 32), l);
    uint32_t v = spv_ext2(c, GLSLstd450Ldexp, d.t, spv_op1(c, SpvOpConvertUToF, d.t, res),
                          spv_op2(c, SpvOpISub, it, spv_op1(c, SpvOpBitcast, it, eb), spv_c_of(c, CVM_T_I32, l, 150)));
    uint32_t bits = spv_op1(c, SpvOpBitcast, ut, narrow_f64(c, l, v));
    bits = spv_op2(c, SpvOpBitwiseOr, ut, bits, spv_op2(c, SpvOpBitwiseAnd, ut, ua, U32(0x80000000u)));
    /* the edges, from the bits */
    uint32_t nan_a = spv_op2(c, SpvOpUGreaterThan, bt, ma, inf), nan_b = spv_op2(c, SpvOpUGreaterThan, bt, mb, inf);
    uint32_t nan = spv_op3(c, SpvOpSelect, ut, nan_a, spv_op2(c, SpvOpBitwiseOr, ut, ua, U32(0x400000u)),
                           spv_op3(c, SpvOpSelect, ut, nan_b, spv_op2(c, SpvOpBitwiseOr, ut, ub, U32(0x400000u)),
                                   U32(0x7fc00000u)));
    uint32_t invalid = lor(&d, lor(&d, nan_a, nan_b),
                           lor(&d, spv_op2(c, SpvOpIEqual, bt, ma, inf), spv_op2(c, SpvOpIEqual, bt, mb, U32(0))));
    uint32_t small = spv_op2(c, SpvOpULessThan, bt, ma, mb); /* |x| < |y|, y = inf included */
    bits = spv_op3(c, SpvOpSelect, ut, small, ua, bits);
    bits = spv_op3(c, SpvOpSelect, ut, invalid, nan, bits);
#undef U32
#undef U64
    return spv_op1(c, SpvOpBitcast, spv_t_of(c, CVM_T_F32, l), bits);
}
