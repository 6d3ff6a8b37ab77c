/*
 * ops.c - data, arithmetic, math, comparison, bit and conversion ops of the
 * SPIR-V backend. GLSL.std.450 is used where its result is what docs/isa.md
 * defines (or within the precision docs/backends.md states); exact
 * sequences elsewhere: integer division by zero, float min/max with NaN and
 * signed zeros, shift clamping, saturating float-to-int conversion.
 */
#include "spv_int.h"

#include <string.h>

static uint32_t cmp_t(spv_ctx *c, unsigned line) { return spv_t_boolv(c, line); }

/* Exact min/max: a NaN operand gives the other one, -0 < +0. */
uint32_t spv_fminmax(spv_ctx *c, unsigned elem, unsigned line, uint32_t a, uint32_t b, bool max)
{
    uint32_t t = spv_t_of(c, elem, line), bt = cmp_t(c, line);
    uint32_t it = spv_t_vec(c, spv_t_int(c, cvm_bc_elem_size(elem) * 8), line);
    uint32_t lt = spv_op2(c, max ? SpvOpFOrdGreaterThan : SpvOpFOrdLessThan, bt, a, b);
    uint32_t r = spv_op3(c, SpvOpSelect, t, lt, a, b);
    uint32_t eq = spv_op2(c, SpvOpFOrdEqual, bt, a, b);
    uint32_t ia = spv_op1(c, SpvOpBitcast, it, a), ib = spv_op1(c, SpvOpBitcast, it, b);
    uint32_t z = spv_op1(c, SpvOpBitcast, t, spv_op2(c, max ? SpvOpBitwiseAnd : SpvOpBitwiseOr, it, ia, ib));
    r = spv_op3(c, SpvOpSelect, t, eq, z, r);
    uint32_t bn = spv_op1(c, SpvOpIsNan, bt, b);
    r = spv_op3(c, SpvOpSelect, t, bn, a, r);
    /* a NaN: b, unless b is one too: then the canonical NaN (docs/numerics.md) */
    const unsigned bits = cvm_bc_elem_size(elem) * 8;
    const uint64_t qnan = bits == 64 ? 0x7ff8000000000000ull : bits == 32 ? 0x7fc00000u : 0x7e00u;
    uint32_t nb = spv_op3(c, SpvOpSelect, t, bn, spv_c_of(c, elem, line, qnan), b);
    return spv_op3(c, SpvOpSelect, t, spv_op1(c, SpvOpIsNan, bt, a), nb, r);
}

static uint32_t nocontract(spv_ctx *c, uint32_t id)
{
    SPV_EM(c, &c->annot, SpvOpDecorate, id, SpvDecorationNoContraction);
    return id;
}

static uint32_t int_div(spv_ctx *c, const cvm_bc_insn *in, uint32_t a, uint32_t b, bool rem)
{
    unsigned e = in->elem, l = in->line, bits = cvm_bc_elem_size(e) * 8;
    uint32_t t = spv_t_of(c, e, l), bt = cmp_t(c, l);
    uint32_t zero = spv_c_of(c, e, l, 0), one = spv_c_of(c, e, l, 1);
    uint32_t bz = spv_op2(c, SpvOpIEqual, bt, b, zero), bad = bz;
    bool s = cvm_bc_elem_is_signed(e);
    if (s) {
        uint64_t min = 1ull << (bits - 1);
        uint32_t amin = spv_op2(c, SpvOpIEqual, bt, a, spv_c_of(c, e, l, min));
        uint32_t bm1 = spv_op2(c, SpvOpIEqual, bt, b, spv_c_of(c, e, l, ~0ull));
        bad = spv_op2(c, SpvOpLogicalOr, bt, bz, spv_op2(c, SpvOpLogicalAnd, bt, amin, bm1));
    }
    uint32_t sb = spv_op3(c, SpvOpSelect, t, bad, one, b), q;
    if (s && rem) {
        /* Vulkan leaves OpSRem undefined for negative operands (NVIDIA's differs):
         * the magnitudes' OpUMod, with the dividend's sign (|MIN| is MIN's bits) */
        uint32_t na = spv_op2(c, SpvOpSLessThan, bt, a, zero), nb = spv_op2(c, SpvOpSLessThan, bt, sb, zero);
        uint32_t ma = spv_op3(c, SpvOpSelect, t, na, spv_op1(c, SpvOpSNegate, t, a), a);
        uint32_t mb = spv_op3(c, SpvOpSelect, t, nb, spv_op1(c, SpvOpSNegate, t, sb), sb);
        uint32_t m = spv_op2(c, SpvOpUMod, t, ma, mb);
        q = spv_op3(c, SpvOpSelect, t, na, spv_op1(c, SpvOpSNegate, t, m), m);
    } else {
        q = spv_op2(c, rem ? SpvOpUMod : s ? SpvOpSDiv : SpvOpUDiv, t, a, sb);
    }
    return spv_op3(c, SpvOpSelect, t, bz, rem ? a : spv_c_of(c, e, l, ~0ull), q);
}

static uint32_t shift(spv_ctx *c, const cvm_bc_insn *in, uint32_t a, uint32_t breg)
{
    unsigned e = in->elem, l = in->line, bits = cvm_bc_elem_size(e) * 8;
    unsigned be = c->k->regs[breg].elem, bbits = cvm_bc_elem_size(be) * 8;
    uint32_t t = spv_t_of(c, e, l), bt = cmp_t(c, l), b = spv_get(c, breg);
    uint32_t big = spv_op2(c, SpvOpUGreaterThanEqual, bt, b, spv_c_of(c, be, l, bits));
    if (bbits != bits)
        b = spv_op1(c, SpvOpUConvert, spv_t_of(c, e, l), b);
    bool sar = in->op == CVM_OP_SHR && cvm_bc_elem_is_signed(e);
    if (sar) {
        uint32_t n = spv_op3(c, SpvOpSelect, t, big, spv_c_of(c, e, l, bits - 1), b);
        return spv_op2(c, SpvOpShiftRightArithmetic, t, a, n);
    }
    uint32_t safe = spv_op3(c, SpvOpSelect, t, big, spv_c_of(c, e, l, 0), b);
    uint32_t r = spv_op2(c, in->op == CVM_OP_SHL ? SpvOpShiftLeftLogical : SpvOpShiftRightLogical, t, a, safe);
    return spv_op3(c, SpvOpSelect, t, big, spv_c_of(c, e, l, 0), r);
}

/* C round: ties away from zero, exactly (a - trunc(a) is exact). */
static uint32_t round_away(spv_ctx *c, unsigned e, unsigned l, uint32_t a)
{
    uint32_t t = spv_t_of(c, e, l), bt = cmp_t(c, l);
    uint32_t tr = spv_ext1(c, GLSLstd450Trunc, t, a);
    uint32_t fr = spv_ext1(c, GLSLstd450FAbs, t, nocontract(c, spv_op2(c, SpvOpFSub, t, a, tr)));
    uint32_t up = spv_op2(c, SpvOpFOrdGreaterThanEqual, bt, fr, spv_c_fval(c, e, l, 0.5));
    /* trunc itself where no step is taken: -0.3 rounds to trunc's -0 (adding +0 made it +0) */
    uint32_t away = nocontract(c, spv_op2(c, SpvOpFAdd, t, tr, spv_ext1(c, GLSLstd450FSign, t, a)));
    return spv_op3(c, SpvOpSelect, t, up, away, tr);
}

static uint32_t float_math(spv_ctx *c, const cvm_bc_insn *in, uint32_t a, uint32_t b)
{
    unsigned e = in->elem, l = in->line;
    uint32_t t = spv_t_of(c, e, l);
    int g = -1;
    switch (in->op) {
    case CVM_OP_SQRT: case CVM_OP_RSQRT: case CVM_OP_RCP: {
        uint32_t x = spv_exact_divsqrt(c, in->op, e, l, a, 0);
        if (x)
            return x;
        if (in->op == CVM_OP_RCP)
            return spv_op2(c, SpvOpFDiv, t, spv_c_fval(c, e, l, 1.0), a);
        return spv_ext1(c, in->op == CVM_OP_SQRT ? GLSLstd450Sqrt : GLSLstd450InverseSqrt, t, a);
    }
    case CVM_OP_FLOOR: return spv_ext1(c, GLSLstd450Floor, t, a);
    case CVM_OP_CEIL: return spv_ext1(c, GLSLstd450Ceil, t, a);
    case CVM_OP_TRUNC: return spv_ext1(c, GLSLstd450Trunc, t, a);
    case CVM_OP_RINT: return spv_ext1(c, GLSLstd450RoundEven, t, a);
    case CVM_OP_ROUND: return round_away(c, e, l, a);
    case CVM_OP_COPYSIGN: {
        unsigned bits = cvm_bc_elem_size(e) * 8;
        uint32_t it = spv_t_vec(c, spv_t_int(c, bits), l);
        uint64_t sm = 1ull << (bits - 1);
        uint32_t smc = bits == 64 ? spv_c_of(c, CVM_T_U64, l, sm) : bits == 32 ? spv_c_of(c, CVM_T_U32, l, sm)
                                                                                : spv_c_of(c, CVM_T_U16, l, sm);
        uint32_t ia = spv_op2(c, SpvOpBitwiseAnd, it, spv_op1(c, SpvOpBitcast, it, a), spv_op1(c, SpvOpNot, it, smc));
        uint32_t ib = spv_op2(c, SpvOpBitwiseAnd, it, spv_op1(c, SpvOpBitcast, it, b), smc);
        return spv_op1(c, SpvOpBitcast, t, spv_op2(c, SpvOpBitwiseOr, it, ia, ib));
    }
    default: break;
    }
    uint32_t x = spv_exact_math(c, in->op, e, l, a);
    if (!x)
        x = spv_exact_atan(c, in->op, e, l, a, b);
    if (!x)
        x = spv_exact_trig(c, in->op, e, l, a, b);
    if (!x)
        x = spv_exact_hyper(c, in->op, e, l, a, b);
    if (x)
        return x;
    if (e == CVM_T_F64) {
        const cvm_bc_opinfo *oi = cvm_bc_op_info(in->op);
        spv_fail(c, CVM_UNSUPPORTED, "'%s' on f64: GLSL.std.450 has no double-precision "
                 "transcendental functions and the backend has no exact sequence yet", oi->mnemonic);
        return 0;
    }
    switch (in->op) {
    case CVM_OP_EXP: g = GLSLstd450Exp; break;
    case CVM_OP_EXP2: g = GLSLstd450Exp2; break;
    case CVM_OP_LOG: g = GLSLstd450Log; break;
    case CVM_OP_LOG2: g = GLSLstd450Log2; break;
    case CVM_OP_SIN: g = GLSLstd450Sin; break;
    case CVM_OP_COS: g = GLSLstd450Cos; break;
    case CVM_OP_TAN: g = GLSLstd450Tan; break;
    case CVM_OP_ASIN: g = GLSLstd450Asin; break;
    case CVM_OP_ACOS: g = GLSLstd450Acos; break;
    case CVM_OP_ATAN: g = GLSLstd450Atan; break;
    case CVM_OP_SINH: g = GLSLstd450Sinh; break;
    case CVM_OP_COSH: g = GLSLstd450Cosh; break;
    case CVM_OP_TANH: g = GLSLstd450Tanh; break;
    case CVM_OP_ATAN2: return spv_ext2(c, GLSLstd450Atan2, t, a, b);
    case CVM_OP_POW: return spv_ext2(c, GLSLstd450Pow, t, a, b);
    case CVM_OP_EXPM1:
        return nocontract(c, spv_op2(c, SpvOpFSub, t, spv_ext1(c, GLSLstd450Exp, t, a), spv_c_fval(c, e, l, 1.0)));
    case CVM_OP_LOG1P:
        return spv_ext1(c, GLSLstd450Log, t, nocontract(c, spv_op2(c, SpvOpFAdd, t, a, spv_c_fval(c, e, l, 1.0))));
    case CVM_OP_LOG10:
        return nocontract(c, spv_op2(c, SpvOpFMul, t, spv_ext1(c, GLSLstd450Log2, t, a),
                                     spv_c_fval(c, e, l, 0.30102999566398119521)));
    case CVM_OP_HYPOT: {
        uint32_t aa = nocontract(c, spv_op2(c, SpvOpFMul, t, a, a)), bb = nocontract(c, spv_op2(c, SpvOpFMul, t, b, b));
        return spv_ext1(c, GLSLstd450Sqrt, t, nocontract(c, spv_op2(c, SpvOpFAdd, t, aa, bb)));
    }
    case CVM_OP_CBRT: {
        uint32_t m = spv_ext2(c, GLSLstd450Pow, t, spv_ext1(c, GLSLstd450FAbs, t, a), spv_c_fval(c, e, l, 1.0 / 3.0));
        return nocontract(c, spv_op2(c, SpvOpFMul, t, m, spv_ext1(c, GLSLstd450FSign, t, a)));
    }
    default: {
        const cvm_bc_opinfo *oi = cvm_bc_op_info(in->op);
        spv_fail(c, CVM_UNSUPPORTED, "'%s' has no GLSL.std.450 equivalent and no exact sequence "
                 "in the SPIR-V backend yet", oi ? oi->mnemonic : "?");
        return 0;
    }
    }
    return spv_ext1(c, (uint32_t)g, t, a);
}

/* Bit counts on 32-bit words (Vulkan allows only 32-bit bit-count operands). */
static uint32_t count32(spv_ctx *c, unsigned op, uint32_t x, unsigned l)
{
    uint32_t u = spv_t_vec(c, spv_t_int(c, 32), l), bt = cmp_t(c, l);
    if (op == CVM_OP_POPC)
        return spv_op1(c, SpvOpBitCount, u, x);
    if (op == CVM_OP_BREV)
        return spv_op1(c, SpvOpBitReverse, u, x);
    uint32_t z = spv_op2(c, SpvOpIEqual, bt, x, spv_c_of(c, CVM_T_U32, l, 0));
    uint32_t w = spv_c_of(c, CVM_T_U32, l, 32);
    if (op == CVM_OP_CTZ)
        return spv_op3(c, SpvOpSelect, u, z, w, spv_ext1(c, GLSLstd450FindILsb, u, x));
    uint32_t msb = spv_ext1(c, GLSLstd450FindUMsb, u, x);
    return spv_op3(c, SpvOpSelect, u, z, w, spv_op2(c, SpvOpISub, u, spv_c_of(c, CVM_T_U32, l, 31), msb));
}

static uint32_t bitcount(spv_ctx *c, const cvm_bc_insn *in, uint32_t a)
{
    unsigned e = in->elem, l = in->line, bits = cvm_bc_elem_size(e) * 8;
    uint32_t u = spv_t_vec(c, spv_t_int(c, 32), l), op = in->op;
    if (bits == 32)
        return count32(c, op, a, l);
    if (bits < 32) {
        uint32_t x = spv_op1(c, SpvOpUConvert, u, a), r = count32(c, op, x, l);
        uint32_t adj = spv_c_of(c, CVM_T_U32, l, 32 - bits);
        if (op == CVM_OP_CLZ)
            return spv_op2(c, SpvOpISub, u, r, adj);
        if (op == CVM_OP_CTZ)
            return spv_op3(c, SpvOpSelect, u, spv_op2(c, SpvOpIEqual, cmp_t(c, l), x, spv_c_of(c, CVM_T_U32, l, 0)),
                           spv_c_of(c, CVM_T_U32, l, bits), r);
        if (op == CVM_OP_BREV)
            return spv_op1(c, SpvOpUConvert, spv_t_of(c, e, l), spv_op2(c, SpvOpShiftRightLogical, u, r, adj));
        return r;
    }
    uint32_t t64 = spv_t_of(c, e, l);
    uint32_t lo = spv_op1(c, SpvOpUConvert, u, a);
    uint32_t hi = spv_op1(c, SpvOpUConvert, u, spv_op2(c, SpvOpShiftRightLogical, t64, a, spv_c_of(c, e, l, 32)));
    uint32_t rl = count32(c, op, lo, l), rh = count32(c, op, hi, l), c32 = spv_c_of(c, CVM_T_U32, l, 32);
    uint32_t bt = cmp_t(c, l);
    switch (op) {
    case CVM_OP_POPC: return spv_op2(c, SpvOpIAdd, u, rl, rh);
    case CVM_OP_CLZ:
        return spv_op3(c, SpvOpSelect, u, spv_op2(c, SpvOpIEqual, bt, hi, spv_c_of(c, CVM_T_U32, l, 0)),
                       spv_op2(c, SpvOpIAdd, u, c32, rl), rh);
    case CVM_OP_CTZ:
        return spv_op3(c, SpvOpSelect, u, spv_op2(c, SpvOpIEqual, bt, lo, spv_c_of(c, CVM_T_U32, l, 0)),
                       spv_op2(c, SpvOpIAdd, u, c32, rh), rl);
    default: { /* brev: reversed low word becomes the high word */
        uint32_t nh = spv_op1(c, SpvOpUConvert, t64, rl), nl = spv_op1(c, SpvOpUConvert, t64, rh);
        return spv_op2(c, SpvOpBitwiseOr, t64, nl, spv_op2(c, SpvOpShiftLeftLogical, t64, nh, spv_c_of(c, e, l, 32)));
    }
    }
}

/* float -> int: truncate, saturate, NaN -> 0. */
static uint32_t f2i(spv_ctx *c, unsigned fe, unsigned ie, unsigned l, uint32_t a)
{
    unsigned bits = cvm_bc_elem_size(ie) * 8;
    bool s = cvm_bc_elem_is_signed(ie);
    uint32_t t = spv_t_of(c, ie, l), bt = cmp_t(c, l);
    double hi = s ? (double)(1ull << (bits - 1)) : (bits == 64 ? 18446744073709551616.0 : (double)(1ull << bits));
    double lo = s ? -hi : -1.0;
    uint32_t big = spv_op2(c, SpvOpFOrdGreaterThanEqual, bt, a, spv_c_fval(c, fe, l, hi));
    uint32_t small = spv_op2(c, SpvOpFOrdLessThanEqual, bt, a, spv_c_fval(c, fe, l, lo));
    uint32_t nan = spv_op1(c, SpvOpIsNan, bt, a);
    uint32_t bad = spv_op2(c, SpvOpLogicalOr, bt, spv_op2(c, SpvOpLogicalOr, bt, big, small), nan);
    uint32_t safe = spv_op3(c, SpvOpSelect, spv_t_of(c, fe, l), bad, spv_c_fval(c, fe, l, 0.0), a);
    uint32_t r = spv_op1(c, s ? SpvOpConvertFToS : SpvOpConvertFToU, t, safe);
    uint64_t maxv = s ? (1ull << (bits - 1)) - 1 : (bits == 64 ? ~0ull : (1ull << bits) - 1);
    uint64_t minv = s ? 1ull << (bits - 1) : 0;
    if (!s && lo == -1.0)
        small = spv_op2(c, SpvOpFOrdLessThanEqual, bt, a, spv_c_fval(c, fe, l, -1.0));
    r = spv_op3(c, SpvOpSelect, t, big, spv_c_of(c, ie, l, maxv), r);
    r = spv_op3(c, SpvOpSelect, t, small, spv_c_of(c, ie, l, minv), r);
    return spv_op3(c, SpvOpSelect, t, nan, spv_c_of(c, ie, l, 0), r);
}

static uint32_t convert(spv_ctx *c, const cvm_bc_insn *in, uint32_t areg)
{
    unsigned de = in->elem, l = in->line, se = c->k->regs[areg].elem;
    uint32_t t = spv_t_of(c, de, l), a = spv_get(c, areg);
    unsigned ds = cvm_bc_elem_size(de), ss = cvm_bc_elem_size(se);
    if (de == CVM_T_BOOL) {
        if (se == CVM_T_BOOL)
            return a;
        if (cvm_bc_elem_is_float(se))
            return spv_op2(c, SpvOpFUnordNotEqual, t, a, spv_c_of(c, se, l, 0));
        return spv_op2(c, SpvOpINotEqual, t, a, spv_c_of(c, se, l, 0));
    }
    if (se == CVM_T_BOOL)
        return spv_op3(c, SpvOpSelect, t, a, cvm_bc_elem_is_float(de) ? spv_c_fval(c, de, l, 1.0) : spv_c_of(c, de, l, 1),
                       cvm_bc_elem_is_float(de) ? spv_c_fval(c, de, l, 0.0) : spv_c_of(c, de, l, 0));
    bool df = cvm_bc_elem_is_float(de), sf = cvm_bc_elem_is_float(se);
    if (df && sf)
        return ds == ss ? a : spv_op1(c, SpvOpFConvert, t, a);
    if (df)
        return spv_op1(c, cvm_bc_elem_is_signed(se) ? SpvOpConvertSToF : SpvOpConvertUToF, t, a);
    if (sf)
        return f2i(c, se, de, l, a);
    if (ds == ss)
        return a;
    if (ds < ss)
        return spv_op1(c, SpvOpUConvert, t, a);
    if (ds == 8 && cvm_bc_elem_is_signed(se))
        return spv_sext64(c, t, de, l, a, ss);
    return spv_op1(c, cvm_bc_elem_is_signed(se) ? SpvOpSConvert : SpvOpUConvert, t, a);
}

/*
 * The sign extension of the src_bytes-wide integer a to the 64-bit type t
 * (elem, line): a zero extension, then (x ^ m) - m with m the sign bit.
 * Lavapipe (Mesa 22-25) miscompiles OpSConvert to 64 bits when a constant
 * is compared with the result: `(long long)i < 2LL` was false for i = 0
 * and 1, while the same with the constant in a parameter was right.
 */
uint32_t spv_sext64(spv_ctx *c, uint32_t t, unsigned elem, unsigned line, uint32_t a, unsigned src_bytes)
{
    uint32_t x = spv_op1(c, SpvOpUConvert, t, a);
    uint32_t m = spv_c_of(c, elem, line, UINT64_C(1) << (src_bytes * 8 - 1));
    return spv_op2(c, SpvOpISub, t, spv_op2(c, SpvOpBitwiseXor, t, x, m), m);
}

static uint32_t compare(spv_ctx *c, const cvm_bc_insn *in, uint32_t a, uint32_t b)
{
    unsigned e = c->k->regs[in->ops[1]].elem, l = c->k->regs[in->ops[1]].line;
    uint32_t bt = cmp_t(c, l);
    static const uint32_t fops[] = {SpvOpFOrdEqual, SpvOpFUnordNotEqual, SpvOpFOrdLessThan,
                                    SpvOpFOrdLessThanEqual, SpvOpFOrdGreaterThan, SpvOpFOrdGreaterThanEqual};
    static const uint32_t sops[] = {SpvOpIEqual, SpvOpINotEqual, SpvOpSLessThan, SpvOpSLessThanEqual,
                                    SpvOpSGreaterThan, SpvOpSGreaterThanEqual};
    static const uint32_t uops[] = {SpvOpIEqual, SpvOpINotEqual, SpvOpULessThan, SpvOpULessThanEqual,
                                    SpvOpUGreaterThan, SpvOpUGreaterThanEqual};
    unsigned i = in->op - CVM_OP_EQ;
    if (e == CVM_T_BOOL) {
        if (i > 1) { /* false < true */
            a = spv_op3(c, SpvOpSelect, spv_t_of(c, CVM_T_U32, l), a, spv_c_of(c, CVM_T_U32, l, 1), spv_c_of(c, CVM_T_U32, l, 0));
            b = spv_op3(c, SpvOpSelect, spv_t_of(c, CVM_T_U32, l), b, spv_c_of(c, CVM_T_U32, l, 1), spv_c_of(c, CVM_T_U32, l, 0));
            return spv_op2(c, uops[i], bt, a, b);
        }
        return spv_op2(c, i ? SpvOpLogicalNotEqual : SpvOpLogicalEqual, bt, a, b);
    }
    const uint32_t *ops = cvm_bc_elem_is_float(e) ? fops : cvm_bc_elem_is_signed(e) ? sops : uops;
    return spv_op2(c, ops[i], bt, a, b);
}

static uint32_t arith(spv_ctx *c, const cvm_bc_insn *in)
{
    unsigned e = in->elem, l = in->line, n = in->nops;
    uint32_t t = spv_t_of(c, e, l);
    bool fl = cvm_bc_elem_is_float(e), sg = cvm_bc_elem_is_signed(e), bo = e == CVM_T_BOOL;
    uint32_t a = n > 1 ? spv_get(c, in->ops[1]) : 0, b = 0, d3 = 0;
    if (in->op != CVM_OP_SHL && in->op != CVM_OP_SHR && n > 2)
        b = spv_get(c, in->ops[2]);
    if (n > 3)
        d3 = spv_get(c, in->ops[3]);
    switch (in->op) {
    case CVM_OP_ADD: return fl ? nocontract(c, spv_op2(c, SpvOpFAdd, t, a, b)) : spv_op2(c, SpvOpIAdd, t, a, b);
    case CVM_OP_SUB: return fl ? nocontract(c, spv_op2(c, SpvOpFSub, t, a, b)) : spv_op2(c, SpvOpISub, t, a, b);
    case CVM_OP_MUL: return fl ? nocontract(c, spv_op2(c, SpvOpFMul, t, a, b)) : spv_op2(c, SpvOpIMul, t, a, b);
    case CVM_OP_DIV: {
        uint32_t x = fl ? spv_exact_divsqrt(c, CVM_OP_DIV, e, l, a, b) : 0;
        return x ? x : fl ? spv_op2(c, SpvOpFDiv, t, a, b) : int_div(c, in, a, b, false);
    }
    case CVM_OP_REM: {
        uint32_t x = fl ? spv_exact_fmod(c, e, l, a, b) : 0;
        if (fl && !x && e == CVM_T_F64) { /* OpFRem is x - y trunc(x / y): fmod(10.0, 0.1) gave 0 */
            spv_fail(c, CVM_UNSUPPORTED, "'rem' on f64 (fmod): Vulkan's OpFRem is not exact and the backend "
                     "has no exact sequence yet");
            return 0;
        }
        return x ? x : fl ? spv_op2(c, SpvOpFRem, t, a, b) : int_div(c, in, a, b, true);
    }
    case CVM_OP_MIN:
    case CVM_OP_MAX: {
        bool mx = in->op == CVM_OP_MAX;
        if (fl)
            return spv_fminmax(c, e, l, a, b, mx);
        return spv_ext2(c, sg ? (mx ? GLSLstd450SMax : GLSLstd450SMin) : (mx ? GLSLstd450UMax : GLSLstd450UMin), t, a, b);
    }
    case CVM_OP_CLAMP: {
        if (fl)
            return spv_fminmax(c, e, l, spv_fminmax(c, e, l, a, b, true), d3, false);
        uint32_t m = spv_ext2(c, sg ? GLSLstd450SMax : GLSLstd450UMax, t, a, b);
        return spv_ext2(c, sg ? GLSLstd450SMin : GLSLstd450UMin, t, m, d3);
    }
    case CVM_OP_NEG: return spv_op1(c, fl ? SpvOpFNegate : SpvOpSNegate, t, a);
    case CVM_OP_ABS:
        if (fl)
            return spv_ext1(c, GLSLstd450FAbs, t, a);
        return sg ? spv_ext1(c, GLSLstd450SAbs, t, a) : a;
    case CVM_OP_FMA: {
        uint32_t x = fl ? spv_exact_fma(c, e, l, a, b, d3) : 0;
        return x ? x : spv_ext3(c, GLSLstd450Fma, t, a, b, d3);
    }
    case CVM_OP_MAD: return spv_op2(c, SpvOpIAdd, t, spv_op2(c, SpvOpIMul, t, a, b), d3);
    case CVM_OP_MULHI: {
        uint32_t st = spv_id(c), r = spv_id(c);
        SPV_EM(c, &c->types, SpvOpTypeStruct, st, t, t);
        SPV_EM(c, &c->body, sg ? SpvOpSMulExtended : SpvOpUMulExtended, st, r, a, b);
        return spv_op2(c, SpvOpCompositeExtract, t, r, 1);
    }
    case CVM_OP_AND: return spv_op2(c, bo ? SpvOpLogicalAnd : SpvOpBitwiseAnd, t, a, b);
    case CVM_OP_OR: return spv_op2(c, bo ? SpvOpLogicalOr : SpvOpBitwiseOr, t, a, b);
    case CVM_OP_XOR: return spv_op2(c, bo ? SpvOpLogicalNotEqual : SpvOpBitwiseXor, t, a, b);
    case CVM_OP_NOT: return spv_op1(c, bo ? SpvOpLogicalNot : SpvOpNot, t, a);
    case CVM_OP_SHL: case CVM_OP_SHR: return shift(c, in, a, in->ops[2]);
    case CVM_OP_POPC: case CVM_OP_CLZ: case CVM_OP_CTZ:
        /* the instruction type is the result (u32); the operand's type decides */
        {
            cvm_bc_insn x = *in;
            x.elem = c->k->regs[in->ops[1]].elem;
            return bitcount(c, &x, a);
        }
    case CVM_OP_BREV: return bitcount(c, in, a);
    case CVM_OP_ISNAN: return spv_op1(c, SpvOpIsNan, cmp_t(c, l), a);
    case CVM_OP_ISINF: return spv_op1(c, SpvOpIsInf, cmp_t(c, l), a);
    case CVM_OP_ISFINITE: {
        uint32_t bt = cmp_t(c, l);
        return spv_op1(c, SpvOpLogicalNot, bt, spv_op2(c, SpvOpLogicalOr, bt, spv_op1(c, SpvOpIsNan, bt, a),
                                                        spv_op1(c, SpvOpIsInf, bt, a)));
    }
    default:
        if (in->op >= CVM_OP_EQ && in->op <= CVM_OP_GE)
            return compare(c, in, a, b);
        if (in->op >= CVM_OP_SQRT && in->op <= CVM_OP_COPYSIGN)
            return float_math(c, in, a, b);
        return 0;
    }
}

static bool data_move(spv_ctx *c, const cvm_bc_insn *in)
{
    uint32_t d = in->ops[0], t = spv_t_of(c, in->elem, in->line);
    switch (in->op) {
    case CVM_OP_MOV: spv_set(c, d, spv_get(c, in->ops[1])); return true;
    case CVM_OP_CONST: {
        uint64_t k = in->ops[1] | ((uint64_t)in->ops[2] << 32);
        spv_set(c, d, spv_c_of(c, in->elem, in->line, k));
        return true;
    }
    case CVM_OP_SREG: spv_set(c, d, spv_sreg(c, in->ops[1], in->elem)); return true;
    case CVM_OP_SELECT: {
        uint32_t cr = in->ops[3]; /* select d, a, b, c: d = c ? a : b */
        uint32_t cv = spv_get(c, cr);
        if (c->k->regs[cr].line == 1)
            cv = spv_splat_bool(c, cv, in->line);
        spv_set(c, d, spv_op3(c, SpvOpSelect, t, cv, spv_get(c, in->ops[1]), spv_get(c, in->ops[2])));
        return true;
    }
    case CVM_OP_EXTRACT:
        spv_set(c, d, spv_op2(c, SpvOpCompositeExtract, t, spv_get(c, in->ops[1]), in->ops[2]));
        return true;
    case CVM_OP_INSERT:
        spv_set(c, d, spv_op3(c, SpvOpCompositeInsert, t, spv_get(c, in->ops[2]), spv_get(c, in->ops[1]), in->ops[3]));
        return true;
    case CVM_OP_BUILD:
    case CVM_OP_SPLAT: {
        if (in->line == 1) {
            spv_set(c, d, spv_get(c, in->ops[1]));
            return true;
        }
        uint32_t w[18] = {t, spv_id(c)};
        for (unsigned i = 0; i < in->line; i++)
            w[2 + i] = spv_get(c, in->ops[in->op == CVM_OP_SPLAT ? 1 : 1 + i]);
        spv_emit(c, &c->body, SpvOpCompositeConstruct, w, 2 + in->line);
        spv_set(c, d, w[1]);
        return true;
    }
    case CVM_OP_CVT: spv_set(c, d, convert(c, in, in->ops[1])); return true;
    case CVM_OP_BITCAST: {
        uint32_t a = in->ops[1];
        bool same = c->k->regs[a].line == in->line &&
                    spv_t_elem(c, c->k->regs[a].elem) == spv_t_elem(c, in->elem);
        spv_set(c, d, same ? spv_get(c, a) : spv_op1(c, SpvOpBitcast, t, spv_get(c, a)));
        return true;
    }
    default: return false;
    }
}

bool spv_op_data(spv_ctx *c, const cvm_bc_insn *in)
{
    if (data_move(c, in))
        return true;
    if (in->op < CVM_OP_ADD || in->op > CVM_OP_BREV || c->st != CVM_OK)
        return false;
    uint32_t v = arith(c, in);
    if (v && c->st == CVM_OK)
        spv_set(c, in->ops[0], v);
    return v != 0 || c->st != CVM_OK;
}
