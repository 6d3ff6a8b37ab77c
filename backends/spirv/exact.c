/*
 * exact.c - exact sequences the SPIR-V backend emits where GLSL.std.450
 * does not meet cubevm's numerics (DESIGN.md "Numerics", docs/numerics.md):
 *
 * - fma with one rounding. Vulkan lets GLSL.std.450 Fma be a multiply and
 *   an add (lavapipe's is). f32 (f16) operands are widened to f64 (f32),
 *   where the product is exact; the sum is rounded to odd (an error-free
 *   TwoSum says whether it was exact, and an inexact even result moves one
 *   step towards the exact sum), and rounding that to the narrow type is
 *   the correctly rounded fma (round-to-odd with p >= 2q + 2 bits has no
 *   double-rounding error). f64 has no wider type: it stays GLSL.std.450
 *   Fma (docs/backends.md lists it as open).
 * - exp, exp2, expm1, log, log2, log10, log1p. Vulkan bounds GLSL's Exp by
 *   3 + 2|x| ulp and Log by an absolute error; cubevm states 1 ulp. f32
 *   values are computed in f64 (Cody-Waite reduction by ln 2, a Taylor
 *   polynomial, 2^k by Ldexp) and rounded once: error at most 0.5 ulp plus
 *   about 2^-40 ulp. f64 values use the same cores in f64 arithmetic with
 *   the last step arranged as 1 + small: the tests hold them to 2 ulp.
 * - atan, atan2 (f32, through f64): Vulkan bounds GLSL's Atan2 by 4096 ulp.
 *   atan of min/max of the magnitudes (one reduction by pi/6, then the
 *   series), the quadrant and C99 Annex F's zeros and infinities selected.
 * The caller falls back to GLSL.std.450 where a helper returns 0.
 */
#include "spv_int.h"

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

uint32_t spv_exact_fma(spv_ctx *c, unsigned e, unsigned l, uint32_t a, uint32_t b, uint32_t d)
{
    unsigned we = e == CVM_T_F32 ? CVM_T_F64 : e == CVM_T_F16 ? CVM_T_F32 : 0;
    if (!we || (we == CVM_T_F64 && !c->t->f64))
        return 0;
    fx f = fx_of(c, we, l);
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
    uint32_t y = spv_op1(c, SpvOpFConvert, f.t, a);
    uint32_t x = op == CVM_OP_ATAN2 ? spv_op1(c, SpvOpFConvert, f.t, b) : kf(&f, 1.0);
    return spv_op1(c, SpvOpFConvert, spv_t_of(c, e, l), atan2_seq(&f, y, x));
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
    if (!c->t->f64 || !(expf || logf) || (e != CVM_T_F32 && e != CVM_T_F64))
        return 0;
    if (e == CVM_T_F64 && op != CVM_OP_EXP && op != CVM_OP_EXP2)
        return 0;
    fx f = fx_of(c, CVM_T_F64, l);
    uint32_t x = e == CVM_T_F64 ? a : spv_op1(c, SpvOpFConvert, f.t, a);
    uint32_t y = expf ? exp_seq(&f, op, x) : log_seq(&f, op, x);
    return e == CVM_T_F64 ? y : spv_op1(c, SpvOpFConvert, spv_t_of(c, e, l), y);
}
