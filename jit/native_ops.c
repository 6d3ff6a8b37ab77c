/*
 * native_ops.c - the native tier's lane ops (native.h): integer and float
 * arithmetic with docs/numerics.md's results (canonical NaNs, min/max
 * order, no contraction), compares, bitwise ops, shifts, conversions that
 * are plain instructions, unit and cube positions, f32 exp with the
 * interpreter's bits, integer division (by one scalar division where the
 * lanes share a quotient, else in doubles where that is exact); and,
 * on registers of known form (one value, or consecutive), the same ops as
 * one scalar op (form_op).
 */
#include "native.h"
#include "../vm/mathlib.h"

#include <stdint.h>

/* The canonical NaN of f32 or f64 (docs/numerics.md), in every lane. */
static LLVMValueRef nan_lanes(const gen *g, unsigned elem)
{
    return splat(g, elem == CVM_T_F32 ? llvm.ConstBitCast(llvm.ConstInt(g->i32, CVM_N_NAN32, false), g->f32)
                                      : llvm.ConstBitCast(c64(g, CVM_N_NAN64), g->f64));
}

LLVMValueRef cvm_nat_canon_nan(const gen *g, LLVMValueRef v, unsigned elem)
{
    LLVMValueRef isnan = llvm.BuildFCmp(g->B, LLVMRealUNO, v, v, "");
    return llvm.BuildSelect(g->B, isnan, nan_lanes(g, elem), v, "");
}

/* min or max by docs/numerics.md: NaN gives the other operand, -0 < +0.
 * t is b, or a where b is NaN; then a where it is strictly beyond t, else
 * t (x86's maxps/minps of a and t: a NaN a gives t); equal operands give
 * their bits' AND (max) or OR (min), which is the same value except for
 * zeros of both signs, where it is +0 or -0; two NaNs give the canonical
 * one. a is the operand a reduction carries (m = fmaxf(m, v)): its path
 * through is a blend, the maxps and two blends, with the tests of b alone
 * and of a against t beside it (pooling's taps wait on that chain). An
 * operand that is never a NaN (an, bn: gen's no_nan) needs no test: then
 * no two NaNs meet, and with b a number t is b. The result does not
 * depend on the operands' order, so a number a is taken as b: pooling's
 * m from -inf is then the maxps's second operand, which it gives where
 * v is a NaN, and the test of v and its blend are gone (6 vector
 * operations a register, 4). */
static LLVMValueRef fminmax(const gen *g, LLVMValueRef a, LLVMValueRef b, unsigned elem, bool max, bool an, bool bn)
{
    if (an && !bn) { /* the result is the same both ways round: the number second */
        LLVMValueRef s = a;
        a = b, b = s, an = false, bn = true;
    }
    LLVMTypeRef it = llvm.VectorType(elem == CVM_T_F32 ? g->i32 : g->i64, g->W);
    LLVMValueRef bnan = bn ? NULL : llvm.BuildFCmp(g->B, LLVMRealUNO, b, b, "");
    LLVMValueRef t = bn ? b : llvm.BuildSelect(g->B, bnan, a, b, "");
    LLVMValueRef r = llvm.BuildSelect(g->B, llvm.BuildFCmp(g->B, max ? LLVMRealOGT : LLVMRealOLT, a, t, ""), a, t, "");
    LLVMValueRef ai = llvm.BuildBitCast(g->B, a, it, ""), ti = llvm.BuildBitCast(g->B, t, it, "");
    LLVMValueRef both = llvm.BuildBitCast(g->B, max ? llvm.BuildAnd(g->B, ai, ti, "") : llvm.BuildOr(g->B, ai, ti, ""),
                                          llvm.TypeOf(a), "");
    r = llvm.BuildSelect(g->B, llvm.BuildFCmp(g->B, LLVMRealOEQ, a, t, ""), both, r, "");
    if (an || bn)
        return r;
    LLVMValueRef two = llvm.BuildAnd(g->B, llvm.BuildFCmp(g->B, LLVMRealUNO, a, a, ""), bnan, "");
    return llvm.BuildSelect(g->B, two, nan_lanes(g, elem), r, "");
}

/* Shift by docs/numerics.md: counts >= the width give 0 (or the sign fill). */
static LLVMValueRef shift(const gen *g, const cvm_vm_dinsn *in, LLVMValueRef a, LLVMValueRef b)
{
    const unsigned bits = cvm_vm_esz(in->elem) * 8, bbits = cvm_vm_esz(in->eb) * 8;
    /* vectors, or one value each (form_op): LLVM's types are unique */
    const bool lanes = llvm.TypeOf(a) != scalar(g, in->elem);
#define LIKE(c) (lanes ? splat(g, (c)) : (c))
    LLVMTypeRef vt = lanes ? vec(g, in->elem) : scalar(g, in->elem);
    LLVMTypeRef wt = lanes ? llvm.VectorType(g->i64, g->W) : g->i64;
    LLVMValueRef cnt64 = bbits < 64 ? llvm.BuildZExt(g->B, b, wt, "") : b;
    LLVMValueRef big = llvm.BuildICmp(g->B, LLVMIntUGE, cnt64, LIKE(c64(g, bits)), "");
    LLVMValueRef safe64 = llvm.BuildSelect(g->B, big, llvm.ConstNull(wt), cnt64, "");
    LLVMValueRef cnt = bits < 64 ? llvm.BuildTrunc(g->B, safe64, vt, "") : safe64;
    if (in->h == CVM_OP_SHL)
        return llvm.BuildSelect(g->B, big, llvm.ConstNull(vt), llvm.BuildShl(g->B, a, cnt, ""), "");
    if (!is_signed(in->elem))
        return llvm.BuildSelect(g->B, big, llvm.ConstNull(vt), llvm.BuildLShr(g->B, a, cnt, ""), "");
    LLVMValueRef fill = llvm.BuildAShr(g->B, a, LIKE(llvm.ConstInt(scalar(g, in->elem), bits - 1, false)), "");
    return llvm.BuildSelect(g->B, big, fill, llvm.BuildAShr(g->B, a, cnt, ""), "");
#undef LIKE
}

static LLVMValueRef compare(const gen *g, const cvm_vm_dinsn *in, LLVMValueRef a, LLVMValueRef b)
{
    if (is_float(in->ea)) {
        LLVMRealPredicate pr;
        switch (in->h) {
        case CVM_OP_EQ: pr = LLVMRealOEQ; break;
        case CVM_OP_NE: pr = LLVMRealUNE; break;
        case CVM_OP_LT: pr = LLVMRealOLT; break;
        case CVM_OP_LE: pr = LLVMRealOLE; break;
        case CVM_OP_GT: pr = LLVMRealOGT; break;
        default: pr = LLVMRealOGE; break;
        }
        return llvm.BuildFCmp(g->B, pr, a, b, "");
    }
    const bool s = is_signed(in->ea);
    LLVMIntPredicate pr;
    switch (in->h) {
    case CVM_OP_EQ: pr = LLVMIntEQ; break;
    case CVM_OP_NE: pr = LLVMIntNE; break;
    case CVM_OP_LT: pr = s ? LLVMIntSLT : LLVMIntULT; break;
    case CVM_OP_LE: pr = s ? LLVMIntSLE : LLVMIntULE; break;
    case CVM_OP_GT: pr = s ? LLVMIntSGT : LLVMIntUGT; break;
    default: pr = s ? LLVMIntSGE : LLVMIntUGE; break;
    }
    return llvm.BuildICmp(g->B, pr, a, b, "");
}

/* The LLVM instruction that is cvt kind k with the interpreter's bits
 * (CVM_NAT_CVT_NONE: not one instruction). */
unsigned cvm_nat_cvt_class(unsigned k)
{
    switch (k) {
    case CVM_VM_CVT_COPY1: case CVM_VM_CVT_COPY2: case CVM_VM_CVT_COPY4: case CVM_VM_CVT_COPY8:
    case CVM_VM_CVT_F32_F32: case CVM_VM_CVT_F64_F64:
        return CVM_NAT_CVT_COPY;
    case CVM_VM_CVT_TRUNC16_8: case CVM_VM_CVT_TRUNC32_8: case CVM_VM_CVT_TRUNC32_16:
    case CVM_VM_CVT_TRUNC64_8: case CVM_VM_CVT_TRUNC64_16: case CVM_VM_CVT_TRUNC64:
        return CVM_NAT_CVT_TRUNC;
    case CVM_VM_CVT_SEXT8_16: case CVM_VM_CVT_SEXT8_32: case CVM_VM_CVT_SEXT8_64:
    case CVM_VM_CVT_SEXT16_32: case CVM_VM_CVT_SEXT16_64: case CVM_VM_CVT_SEXT32:
        return CVM_NAT_CVT_SEXT;
    case CVM_VM_CVT_ZEXT8_16: case CVM_VM_CVT_ZEXT8_32: case CVM_VM_CVT_ZEXT8_64:
    case CVM_VM_CVT_ZEXT16_32: case CVM_VM_CVT_ZEXT16_64: case CVM_VM_CVT_ZEXT32:
        return CVM_NAT_CVT_ZEXT;
    case CVM_VM_CVT_I8_F32: case CVM_VM_CVT_I16_F32: case CVM_VM_CVT_I32_F32:
    case CVM_VM_CVT_I8_F64: case CVM_VM_CVT_I16_F64: case CVM_VM_CVT_I32_F64:
        return CVM_NAT_CVT_SITOFP;
    case CVM_VM_CVT_U8_F32: case CVM_VM_CVT_U16_F32: case CVM_VM_CVT_U8_F64:
    case CVM_VM_CVT_U16_F64: case CVM_VM_CVT_U32_F64:
        return CVM_NAT_CVT_UITOFP;
    case CVM_VM_CVT_F32_F64:
        return CVM_NAT_CVT_FPEXT;
    default:
        return CVM_NAT_CVT_NONE;
    }
}

/* cvt kinds that are one LLVM instruction with the interpreter's bits. */
static LLVMValueRef convert(const gen *g, const cvm_vm_dinsn *in, LLVMValueRef a)
{
    LLVMTypeRef dt = vec(g, in->elem);
    switch (cvm_nat_cvt_class(in->k)) {
    case CVM_NAT_CVT_COPY: return llvm.BuildBitCast(g->B, a, dt, "");
    case CVM_NAT_CVT_TRUNC: return llvm.BuildTrunc(g->B, a, dt, "");
    case CVM_NAT_CVT_SEXT: return llvm.BuildSExt(g->B, a, dt, "");
    case CVM_NAT_CVT_ZEXT: return llvm.BuildZExt(g->B, a, dt, "");
    case CVM_NAT_CVT_SITOFP: return llvm.BuildSIToFP(g->B, a, dt, "");
    case CVM_NAT_CVT_UITOFP: return llvm.BuildUIToFP(g->B, a, dt, "");
    case CVM_NAT_CVT_FPEXT: return llvm.BuildFPExt(g->B, a, dt, "");
    default: return NULL;
    }
}

/* A special register's form: one value in every lane of a plane, or
 * consecutive ones; F_VAR per lane (or not inline: cvm_nat_sreg_form). In cubes
 * of rows (gen's rows) a plane's unit_pos.x is consecutive and its .y
 * and .z one value; in cubes of pairs of rows (gen's pairs) its .z. */
static uint8_t sreg_kind(const gen *g, unsigned id)
{
    switch (id) {
    case CVM_SREG_CUBE_POS_X: case CVM_SREG_CUBE_POS_Y: case CVM_SREG_CUBE_POS_Z:
    case CVM_SREG_CUBE_DIM_X: case CVM_SREG_CUBE_DIM_Y: case CVM_SREG_CUBE_DIM_Z:
    case CVM_SREG_CUBE_COUNT_X: case CVM_SREG_CUBE_COUNT_Y: case CVM_SREG_CUBE_COUNT_Z:
    case CVM_SREG_PLANE_DIM: case CVM_SREG_PLANE_POS: case CVM_SREG_CUBE_POS:
        return F_UNI;
    case CVM_SREG_UNIT_POS_PLANE: case CVM_SREG_UNIT_POS:
        return F_CONS;
    case CVM_SREG_UNIT_POS_X: return g->rows ? F_CONS : F_VAR;
    case CVM_SREG_UNIT_POS_Y: return g->rows ? F_UNI : F_VAR;
    case CVM_SREG_UNIT_POS_Z: return g->rows || g->pairs ? F_UNI : F_VAR;
    default:
        return F_VAR;
    }
}

/* The form of what `in` writes when its operands have forms fa and fb, as
 * form_op computes it (F_VAR: form_op leaves it to lane_op). A fact, not
 * a guess: version_loop's proof that a loop keeps a counter's form
 * (induct) applies it to the loop's code. */
uint8_t cvm_nat_form_rule(const gen *g, const cvm_vm_dinsn *in, uint8_t fa, uint8_t fb)
{
    const unsigned e = in->elem;
    const bool uu = fa == F_UNI && fb == F_UNI, ints = is_int(e) || e == CVM_T_BOOL;
    switch (in->h) {
    case CVM_OP_MOV: return fa;
    case CVM_OP_CONST: case CVM_OP_PARAM: return F_UNI;
    case CVM_OP_SREG: return cvm_vm_esz(e) == 4 ? sreg_kind(g, in->aux) : F_VAR;
    case CVM_OP_ADD: case CVM_OP_SUB:
        if (!is_int(e))
            return F_VAR;
        if (uu)
            return F_UNI;
        /* (s + l) + t = (s + t) + l, modulo 2^n */
        return (fa == F_CONS && fb == F_UNI) || (in->h == CVM_OP_ADD && fa == F_UNI && fb == F_CONS) ? F_CONS : F_VAR;
    case CVM_OP_MUL: return is_int(e) && uu ? F_UNI : F_VAR;
    case CVM_OP_AND: case CVM_OP_OR: case CVM_OP_XOR: return ints && uu ? F_UNI : F_VAR;
    case CVM_OP_SHL: case CVM_OP_SHR: return is_int(e) && is_int(in->eb) && uu ? F_UNI : F_VAR;
    case CVM_OP_NOT: return ints && fa == F_UNI ? F_UNI : F_VAR;
    case CVM_OP_EQ: case CVM_OP_NE: case CVM_OP_LT: case CVM_OP_LE: case CVM_OP_GT: case CVM_OP_GE:
        return uu && (is_int(in->ea) || in->ea == CVM_T_BOOL) ? F_UNI : F_VAR;
    case CVM_OP_CVT:
        if (fa == F_VAR || !is_int(e) || !is_int(in->ea))
            return F_VAR;
        switch (in->k) {
        case CVM_VM_CVT_COPY4: case CVM_VM_CVT_COPY8: case CVM_VM_CVT_TRUNC64: return fa; /* modulo 2^32 */
        case CVM_VM_CVT_SEXT32: case CVM_VM_CVT_ZEXT32: return fa == F_UNI ? F_UNI : F_VAR;
        default: return F_VAR;
        }
    case CVM_OP_PTR_ADD: return uu && (e == CVM_T_PTR_GLOBAL || e == CVM_T_PTR_SHARED) ? F_UNI : F_VAR;
    default: return F_VAR;
    }
}

/* A special register's form (fval): one value in every lane (F_UNI, *s),
 * consecutive from *s (F_CONS), or per lane (F_VAR, *s its vector);
 * F_VAR with NULL when not inline. */
uint8_t cvm_nat_sreg_form(const gen *g, unsigned id, LLVMValueRef *s)
{
    const size_t L_off = offsetof(cvm_vm_exec, L);
    LLVMValueRef L;
    switch (id) {
    case CVM_SREG_UNIT_POS_X: case CVM_SREG_UNIT_POS_Y: case CVM_SREG_UNIT_POS_Z: {
        const size_t at = offsetof(cvm_vm_plane, upos) + sizeof(uint32_t) * 64 * (id - CVM_SREG_UNIT_POS_X);
        if (g->rows || (g->pairs && id == CVM_SREG_UNIT_POS_Z)) { /* lane 0's: the scalar of its form (sreg_kind) */
            *s = load_fixed(g, g->p, at, g->i32);
            break;
        }
        if (g->pairs) { /* x: l % (W / 2); y: lane 0's + l / (W / 2) */
            const unsigned sh = (unsigned)__builtin_ctz(g->W / 2);
            LLVMValueRef l = iota(g, g->i32);
            *s = id == CVM_SREG_UNIT_POS_X
                     ? llvm.BuildAnd(g->B, l, splat(g, c32(g, g->W / 2 - 1)), "")
                     : llvm.BuildAdd(g->B, splat(g, load_fixed(g, g->p, at, g->i32)),
                                     llvm.BuildLShr(g->B, l, splat(g, c32(g, sh)), ""), "");
            break;
        }
        LLVMValueRef v = llvm.BuildLoad2(g->B, llvm.VectorType(g->i32, g->W),
                                         field(g, g->p, at, llvm.VectorType(g->i32, g->W)), "");
        llvm.SetAlignment(v, 4);
        *s = fixed(g, v);
        break;
    }
    case CVM_SREG_CUBE_POS_X: case CVM_SREG_CUBE_POS_Y: case CVM_SREG_CUBE_POS_Z:
        *s = load_fixed(g, g->x, offsetof(cvm_vm_exec, cube) + 4 * (id - CVM_SREG_CUBE_POS_X), g->i32);
        break;
    case CVM_SREG_CUBE_DIM_X: case CVM_SREG_CUBE_DIM_Y: case CVM_SREG_CUBE_DIM_Z:
        L = load_fixed(g, g->x, L_off, g->i8p);
        *s = load_fixed(g, L, offsetof(cvm_vm_launch, block) + 4 * (id - CVM_SREG_CUBE_DIM_X), g->i32);
        break;
    case CVM_SREG_CUBE_COUNT_X: case CVM_SREG_CUBE_COUNT_Y: case CVM_SREG_CUBE_COUNT_Z:
        L = load_fixed(g, g->x, L_off, g->i8p);
        *s = load_fixed(g, L, offsetof(cvm_vm_launch, grid) + 4 * (id - CVM_SREG_CUBE_COUNT_X), g->i32);
        break;
    case CVM_SREG_PLANE_DIM: *s = c32(g, g->W); break;
    case CVM_SREG_UNIT_POS_PLANE: *s = c32(g, 0); break;
    case CVM_SREG_PLANE_POS: *s = load_fixed(g, g->p, offsetof(cvm_vm_plane, index), g->i32); break;
    case CVM_SREG_UNIT_POS:
        *s = llvm.BuildMul(g->B, load_fixed(g, g->p, offsetof(cvm_vm_plane, index), g->i32), c32(g, g->W), "");
        break;
    case CVM_SREG_CUBE_POS: *s = load_fixed(g, g->x, offsetof(cvm_vm_exec, cube_linear), g->i32); break;
    default: *s = NULL; break;
    }
    return sreg_kind(g, id); /* (F_VAR for the per-lane positions, *s their vector) */
}

/* W lanes of the f64 constant v. */
static LLVMValueRef dsplat(const gen *g, double v)
{
    union { double d; uint64_t u; } c = {v};
    return splat(g, llvm.ConstBitCast(c64(g, c.u), g->f64));
}

/* i64 lanes in [0, 2^52) as doubles, exactly: the bits of 2^52 + n, less
 * 2^52 (without AVX-512DQ LLVM converts lane by lane). */
static LLVMValueRef below52_to_double(const gen *g, LLVMValueRef v)
{
    LLVMValueRef bits = llvm.BuildOr(g->B, v, splat(g, c64(g, UINT64_C(0x4330000000000000))), "");
    return llvm.BuildFSub(g->B, llvm.BuildBitCast(g->B, bits, llvm.VectorType(g->f64, g->W), ""),
                          dsplat(g, 4503599627370496.0), "");
}

/* A 32-bit integer v (lanes or a scalar) of element type e as type t
 * (64-bit): sign- or zero-extended as e is signed. */
static LLVMValueRef widen64(const gen *g, LLVMValueRef v, unsigned e, LLVMTypeRef t)
{
    return is_signed(e) ? llvm.BuildSExt(g->B, v, t, "") : llvm.BuildZExt(g->B, v, t, "");
}

/* c, and-ed with whether consecutive 32-bit lanes from s (lane 0's) stay
 * consecutive widened to 64 bits (sign- or zero-extended as sgn): lane
 * W - 1's does not wrap. */
static LLVMValueRef cons_widened(const gen *g, LLVMValueRef c, LLVMValueRef s, bool sgn)
{
    const uint64_t top = (sgn ? (uint64_t)INT32_MAX : (uint64_t)UINT32_MAX) - (g->W - 1);
    return llvm.BuildAnd(g->B, c, llvm.BuildICmp(g->B, sgn ? LLVMIntSLE : LLVMIntULE, s, c32(g, top), ""), "");
}

bool cvm_nat_dyn_form(const gen *g, uint32_t slot, LLVMValueRef *u, LLVMValueRef *c, LLVMValueRef *s)
{
    LLVMValueRef fs, yes = llvm.ConstInt(g->i1, 1, false), no = llvm.ConstInt(g->i1, 0, false);
    const uint8_t k = form_at(g, slot, &fs);
    if (k != F_VAR) {
        *u = k == F_UNI ? yes : no, *c = k == F_CONS ? yes : no, *s = fs;
        return true;
    }
    if (slot >= g->nslots || !g->fwd[slot].v || !g->fwd[slot].du)
        return false;
    *u = g->fwd[slot].du, *c = g->fwd[slot].dc, *s = g->fwd[slot].ds;
    return true;
}

/* Integer div or rem of 32- or 64-bit lanes by a divisor of one value
 * (its form known, scalar b0), where the dividend's active lanes are, at
 * run time, one value or consecutive with one quotient: one scalar
 * division then gives every lane's result (an index split into
 * coordinates, i / c and i % c with c a multiple of the plane width,
 * where the lanes divided in doubles took four vector divides and their
 * conversions). a is the dividend's lanes as i64, m the active lanes.
 * Emits the test; goes on at `other` when it fails, else returns the
 * result lanes (i64) in the block it leaves the builder at. */
static LLVMValueRef divide_by_one(gen *g, const cvm_vm_dinsn *in, LLVMValueRef a, LLVMValueRef b0, LLVMValueRef m,
                                  LLVMBasicBlockRef other, LLVMValueRef *dyn)
{
    LLVMValueRef f = first_lane(g, get_active(g)), f64 = llvm.BuildZExt(g->B, f, g->i64, "");
    LLVMValueRef af, a0, uni, cons, du, dc, ds;
    if (cvm_nat_dyn_form(g, in->a, &du, &dc, &ds)) {
        /* the dividend's form known: no test of its lanes */
        const unsigned e = in->elem;
        if (cvm_vm_esz(e) == 4)
            dc = cons_widened(g, dc, ds, is_signed(e)), ds = widen64(g, ds, e, g->i64);
        uni = du, cons = dc;
        af = llvm.BuildSelect(g->B, uni, ds, llvm.BuildAdd(g->B, ds, f64, ""), "");
        a0 = llvm.BuildSelect(g->B, uni, llvm.BuildSub(g->B, ds, f64, ""), ds, "");
    } else {
        af = llvm.BuildExtractElement(g->B, a, f, "");
        a0 = llvm.BuildSub(g->B, af, f64, "");
        LLVMValueRef off = llvm.BuildNot(g->B, m, "");
        uni = all_lanes(g, mask_bits(g, llvm.BuildOr(g->B, llvm.BuildICmp(g->B, LLVMIntEQ, a, splat(g, af), ""), off, "")));
        cons = all_lanes(
            g, mask_bits(g, llvm.BuildOr(g->B, llvm.BuildICmp(g->B, LLVMIntEQ, a,
                                                             llvm.BuildAdd(g->B, splat(g, a0), iota(g, g->i64), ""), ""),
                                         off, "")));
    }
    /* every lane's dividend in [lo, hi], all of them >= 0, and b0 > 0: the
     * signed and unsigned quotients agree, and none faults */
    LLVMValueRef lo = llvm.BuildSelect(g->B, uni, af, a0, "");
    LLVMValueRef hi = llvm.BuildSelect(g->B, uni, af, llvm.BuildAdd(g->B, a0, c64(g, g->W - 1), ""), "");
    LLVMValueRef ok = llvm.BuildAnd(g->B, llvm.BuildOr(g->B, uni, cons, ""),
                                    llvm.BuildICmp(g->B, LLVMIntSGE, lo, c64(g, 0), ""), "");
    ok = llvm.BuildAnd(g->B, ok, llvm.BuildICmp(g->B, LLVMIntSGE, hi, lo, ""), "");
    ok = llvm.BuildAnd(g->B, ok, llvm.BuildICmp(g->B, LLVMIntSGT, b0, c64(g, 0), ""), "");
    LLVMBasicBlockRef scal = block(g, "div_one"), same = block(g, "div_same");
    llvm.BuildCondBr(g->B, ok, scal, other);
    llvm.PositionBuilderAtEnd(g->B, scal);
    LLVMValueRef q = llvm.BuildUDiv(g->B, lo, b0, "");
    llvm.BuildCondBr(g->B, llvm.BuildICmp(g->B, LLVMIntEQ, q, llvm.BuildUDiv(g->B, hi, b0, ""), ""), same, other);
    llvm.PositionBuilderAtEnd(g->B, same);
    /* the result's form (dyn: du, dc, ds): the quotient one value; the
     * remainder one value, or consecutive from lane 0's */
    LLVMValueRef yes = llvm.ConstInt(g->i1, 1, false), no = llvm.ConstInt(g->i1, 0, false);
    if (in->h == CVM_OP_DIV) {
        dyn[0] = yes, dyn[1] = no, dyn[2] = q;
        return splat(g, q);
    }
    LLVMValueRef qb = llvm.BuildMul(g->B, q, b0, "");
    dyn[0] = uni, dyn[1] = llvm.BuildNot(g->B, uni, ""), dyn[2] = llvm.BuildSub(g->B, llvm.BuildSelect(g->B, uni, af, a0, ""), qb, "");
    return llvm.BuildSub(g->B, a, splat(g, qb), "");
}

/* Integer div or rem of 32- or 64-bit lanes: by one scalar division where
 * divide_by_one's test holds; else in doubles when every active lane's
 * operands lie in [0, 2^52) and the divisor is not 0 (then
 * trunc(fl(a / b)) is the quotient: a / b is at least 1/(a + b) > 2^-53
 * of its size below the next integer, more than the half ulp it rounds
 * by), else through the interpreter (negative operands, division by
 * zero and its fault). x86 has no vector integer division; this is four
 * vector divides for 32 lanes where scalar code would take 32. */
bool cvm_nat_divide(gen *g, uint32_t pc)
{
    const cvm_vm_dinsn *in = &g->code[pc];
    const unsigned e = in->elem, esz = cvm_vm_esz(e);
    if ((in->h != CVM_OP_DIV && in->h != CVM_OP_REM) || !is_int(e) || in->line != 1 ||
        (esz != 4 && esz != 8))
        return false;
    LLVMTypeRef wt = llvm.VectorType(g->i64, g->W), dt = llvm.VectorType(g->f64, g->W);
    LLVMValueRef m = lane_mask(g, get_active(g));
    LLVMValueRef a = reg_get(g, in->a), b = reg_get(g, in->b), b0 = NULL;
    const bool by_one = form_at(g, in->b, &b0) == F_UNI;
    if (esz == 4) {
        a = widen64(g, a, e, wt), b = widen64(g, b, e, wt);
        if (by_one)
            b0 = widen64(g, b0, e, g->i64);
    }
    LLVMBasicBlockRef bc = block(g, "div_check"), bq = block(g, "div"), bs = block(g, "slow"),
                      bm = block(g, "divided"), bj = block(g, "joined");
    LLVMValueRef r1 = NULL, dyn[3] = {NULL, NULL, NULL};
    LLVMBasicBlockRef b1 = NULL;
    if (by_one) {
        r1 = divide_by_one(g, in, a, b0, m, bc, dyn);
        b1 = llvm.GetInsertBlock(g->B);
        llvm.BuildBr(g->B, bm);
    } else {
        llvm.BuildBr(g->B, bc);
    }
    llvm.PositionBuilderAtEnd(g->B, bc);
    /* as unsigned: [0, 2^52) also excludes negative signed values */
    LLVMValueRef lim = splat(g, c64(g, UINT64_C(1) << 52));
    LLVMValueRef okv = llvm.BuildAnd(g->B, llvm.BuildICmp(g->B, LLVMIntULT, a, lim, ""),
                                    llvm.BuildICmp(g->B, LLVMIntULT, b, lim, ""), "");
    okv = llvm.BuildAnd(g->B, okv, llvm.BuildICmp(g->B, LLVMIntNE, b, llvm.ConstNull(wt), ""), "");
    LLVMValueRef bad = llvm.BuildAnd(g->B, m, llvm.BuildNot(g->B, okv, ""), "");
    llvm.BuildCondBr(g->B, llvm.BuildICmp(g->B, LLVMIntEQ, mask_bits(g, bad), c64(g, 0), ""), bq, bs);
    llvm.PositionBuilderAtEnd(g->B, bs);
    /* the interpreter leaves the operands as they were: what they
     * forward still holds after the join (a divisor of one value stays
     * one for the next division by it) */
    const fval fa = g->fwd[in->a], fb = g->fwd[in->b];
    cvm_nat_fallback(g, pc);
    if (in->a != in->d)
        g->fwd[in->a] = fa;
    if (in->b != in->d)
        g->fwd[in->b] = fb;
    LLVMValueRef rs = by_one ? reg_raw(g, in->d) : NULL; /* (what the interpreter left) */
    llvm.BuildBr(g->B, bj);
    LLVMBasicBlockRef bs_end = llvm.GetInsertBlock(g->B);
    llvm.PositionBuilderAtEnd(g->B, bq);
    LLVMValueRef one = splat(g, c64(g, 1));
    LLVMValueRef bsafe = llvm.BuildSelect(g->B, okv, b, one, ""); /* inactive lanes divide by 1 */
    LLVMValueRef asafe = llvm.BuildSelect(g->B, okv, a, llvm.ConstNull(wt), "");
    LLVMValueRef r;
    if (cvm_llvm_avx512) {
        /* AVX-512DQ converts 64-bit integers and doubles in one instruction */
        LLVMValueRef q = llvm.BuildFPToUI(g->B, llvm.BuildFDiv(g->B, llvm.BuildUIToFP(g->B, asafe, dt, ""),
                                                             llvm.BuildUIToFP(g->B, bsafe, dt, ""), ""),
                                         wt, "");
        r = in->h == CVM_OP_DIV ? q : llvm.BuildSub(g->B, asafe, llvm.BuildMul(g->B, q, bsafe, ""), "");
    } else {
        /* Without it LLVM converts lane by lane (two cvttsd2si and a
         * select each), and multiplies 64-bit lanes in three vpmuludq.
         * Every value here is an integer in [0, 2^52) or the quotient
         * below 2^52, so: n -> double is the bits of 2^52 + n minus
         * 2^52; trunc(t) is t + 2^52 - 2^52 (t rounded to the nearest
         * integer, exactly), less 1 where that is above t (SSE2 has no
         * vroundpd); a - q b is exact in doubles (q b <= a < 2^52); and
         * an integer x -> the low 52 bits of 2^52 + x. */
        LLVMValueRef big = dsplat(g, 4503599627370496.0), low = splat(g, c64(g, (UINT64_C(1) << 52) - 1));
        LLVMValueRef ad = below52_to_double(g, asafe), bd = below52_to_double(g, bsafe);
        LLVMValueRef t = llvm.BuildFDiv(g->B, ad, bd, "");
        LLVMValueRef near = llvm.BuildFSub(g->B, llvm.BuildFAdd(g->B, t, big, ""), big, "");
        LLVMValueRef q = llvm.BuildSelect(g->B, llvm.BuildFCmp(g->B, LLVMRealOGT, near, t, ""),
                                          llvm.BuildFSub(g->B, near, dsplat(g, 1.0), ""), near, "");
        if (in->h == CVM_OP_REM)
            q = llvm.BuildFSub(g->B, ad, llvm.BuildFMul(g->B, q, bd, ""), "");
        r = llvm.BuildAnd(g->B, llvm.BuildBitCast(g->B, llvm.BuildFAdd(g->B, q, big, ""), wt, ""), low, "");
    }
    llvm.BuildBr(g->B, bm);
    LLVMBasicBlockRef b2 = llvm.GetInsertBlock(g->B);
    llvm.PositionBuilderAtEnd(g->B, bm);
    LLVMValueRef du = NULL, dc = NULL, ds = NULL, no = llvm.ConstInt(g->i1, 0, false);
    if (by_one) { /* the form: the scalar division's, none from the lanes' */
        LLVMValueRef phi = llvm.BuildPhi(g->B, wt, "");
        llvm.AddIncoming(phi, (LLVMValueRef[]){r1, r}, (LLVMBasicBlockRef[]){b1, b2}, 2);
        r = phi;
        du = llvm.BuildPhi(g->B, g->i1, ""), dc = llvm.BuildPhi(g->B, g->i1, ""), ds = llvm.BuildPhi(g->B, g->i64, "");
        llvm.AddIncoming(du, (LLVMValueRef[]){dyn[0], no}, (LLVMBasicBlockRef[]){b1, b2}, 2);
        llvm.AddIncoming(dc, (LLVMValueRef[]){dyn[1], no}, (LLVMBasicBlockRef[]){b1, b2}, 2);
        llvm.AddIncoming(ds, (LLVMValueRef[]){dyn[2], c64(g, 0)}, (LLVMBasicBlockRef[]){b1, b2}, 2);
        if (esz == 4)
            ds = llvm.BuildTrunc(g->B, ds, g->i32, "");
    }
    if (esz == 4)
        r = llvm.BuildTrunc(g->B, r, vec(g, e), "");
    reg_set(g, in->d, r);
    llvm.BuildBr(g->B, bj);
    LLVMBasicBlockRef bm_end = llvm.GetInsertBlock(g->B);
    llvm.PositionBuilderAtEnd(g->B, bj);
    if (by_one) { /* forwarded with its form where known (the interpreter's path: none) */
        LLVMValueRef v = llvm.BuildPhi(g->B, vec(g, e), ""), pu = llvm.BuildPhi(g->B, g->i1, ""),
                     pc_ = llvm.BuildPhi(g->B, g->i1, ""), ps = llvm.BuildPhi(g->B, scalar(g, e), "");
        LLVMBasicBlockRef from[2] = {bm_end, bs_end};
        llvm.AddIncoming(v, (LLVMValueRef[]){r, rs}, from, 2);
        llvm.AddIncoming(pu, (LLVMValueRef[]){du, no}, from, 2);
        llvm.AddIncoming(pc_, (LLVMValueRef[]){dc, no}, from, 2);
        llvm.AddIncoming(ps, (LLVMValueRef[]){ds, llvm.ConstNull(scalar(g, e))}, from, 2);
        forward_dyn(g, in->d, v, pu, pc_, ps);
    }
    return true;
}

/* f32 e^x, the bits of the interpreter's cvm_n_qf(cvm_m_expf_inline(x))
 * (vm/mathlib.h cvm_m_expf_eval) step by step: the same clamp, the same
 * f64 operations in the same order (none contracted but the fma()s, rint
 * in the default rounding mode), 2^k from its bits, one rounding to f32.
 * Fused where the CPU has FMA (cvm_llvm_fma), as the interpreter's x86-64-v3
 * and -v4 variants are; both forms give the same bits on every input, so
 * the choice is only speed. A NaN x gives a NaN (arith_result makes it
 * canonical). Softmax calls it for every element; through the interpreter
 * (cvm_jit_step) it cost more than the rest of the kernel's native code. */
static LLVMValueRef exp_f32(const gen *g, LLVMValueRef xf)
{
    LLVMTypeRef dt = vec(g, CVM_T_F64), lt = llvm.VectorType(g->i64, g->W);
    LLVMValueRef x = llvm.BuildFPExt(g->B, xf, dt, "");
    x = llvm.BuildSelect(g->B, llvm.BuildFCmp(g->B, LLVMRealOLT, x, dsplat(g, -104), ""), dsplat(g, -104), x, "");
    x = llvm.BuildSelect(g->B, llvm.BuildFCmp(g->B, LLVMRealOGT, x, dsplat(g, 89), ""), dsplat(g, 89), x, "");
    LLVMValueRef kd = intrinsic(g, "llvm.rint", &dt, 1,
                                (LLVMValueRef[]){llvm.BuildFMul(g->B, x, dsplat(g, 0x1.71547652b82fep+0), "")}, 1);
    const bool fused = cvm_llvm_fma;
    /* a * b + c, rounded once where fused */
#define MULADD(a, b, c)                                                                                     \
    (fused ? intrinsic(g, "llvm.fma", &dt, 1, (LLVMValueRef[]){(a), (b), (c)}, 3)                         \
           : llvm.BuildFAdd(g->B, llvm.BuildFMul(g->B, (a), (b), ""), (c), ""))
    LLVMValueRef r, nk = llvm.BuildFNeg(g->B, kd, "");
    if (fused)
        r = MULADD(nk, dsplat(g, CVM_M_LN2_LO), MULADD(nk, dsplat(g, CVM_M_LN2_HI), x));
    else
        r = llvm.BuildFSub(g->B, llvm.BuildFSub(g->B, x, llvm.BuildFMul(g->B, kd, dsplat(g, CVM_M_LN2_HI), ""), ""),
                           llvm.BuildFMul(g->B, kd, dsplat(g, CVM_M_LN2_LO), ""), "");
    LLVMValueRef p = dsplat(g, cvm_m_expf_q[0]);
    for (int i = 1; i < CVM_M_EXPF_NQ; i++)
        p = MULADD(p, r, dsplat(g, cvm_m_expf_q[i]));
    p = MULADD(MULADD(p, r, dsplat(g, 1.0)), r, dsplat(g, 1.0));
#undef MULADD
    LLVMValueRef t = llvm.BuildBitCast(g->B, llvm.BuildFAdd(g->B, kd, dsplat(g, 0x1p52 + 1023), ""), lt, "");
    LLVMValueRef sc = llvm.BuildBitCast(g->B, llvm.BuildShl(g->B, t, splat(g, c64(g, 52)), ""), dt, "");
    return llvm.BuildFPTrunc(g->B, llvm.BuildFMul(g->B, p, sc, ""), vec(g, CVM_T_F32), "");
}

/* A float arithmetic result r for register slot d: canonical NaNs, or the
 * hardware's where d keeps them until they leave the plane (gen's raw_nan). */
static LLVMValueRef arith_result(const gen *g, uint32_t d, LLVMValueRef r, unsigned elem)
{
    return g->raw_nan[d] ? r : cvm_nat_canon_nan(g, r, elem);
}

/* A lane op on registers of known form (form_at) as one scalar op: the
 * integer and bool ops whose lanes are then one value (or consecutive
 * ones: adding one value to them), so that LLVM sees scalars (a
 * versioned loop's coordinates, lane positions, launch values). False:
 * not such an op, lane_op does it on vectors. */
static bool form_op(gen *g, const cvm_vm_dinsn *in)
{
    LLVMValueRef a = NULL, b = NULL, r = NULL;
    const uint8_t fa = form_at(g, in->a, &a), fb = form_at(g, in->b, &b);
    uint8_t k = cvm_nat_form_rule(g, in, fa, fb);
    if (in->h == CVM_OP_SREG && cvm_vm_esz(in->elem) == 4) {
        k = cvm_nat_sreg_form(g, in->aux, &r);
        if (!r)
            return false;
        if (k == F_VAR) { /* per lane: forwarded as it is */
            reg_set(g, in->d, r);
            forward(g, in->d, F_VAR, NULL, r);
            return true;
        }
    }
    if (k == F_VAR)
        return false;
    switch (in->h) {
    case CVM_OP_MOV: r = a; break;
    case CVM_OP_CONST: case CVM_OP_PARAM: r = cvm_nat_launch_scalar(g, in); break;
    case CVM_OP_SREG: break;
    case CVM_OP_ADD: r = llvm.BuildAdd(g->B, a, b, ""); break;
    case CVM_OP_SUB: r = llvm.BuildSub(g->B, a, b, ""); break;
    case CVM_OP_MUL: r = llvm.BuildMul(g->B, a, b, ""); break;
    case CVM_OP_AND: r = llvm.BuildAnd(g->B, a, b, ""); break;
    case CVM_OP_OR: r = llvm.BuildOr(g->B, a, b, ""); break;
    case CVM_OP_XOR: r = llvm.BuildXor(g->B, a, b, ""); break;
    case CVM_OP_SHL: case CVM_OP_SHR: r = shift(g, in, a, b); break;
    case CVM_OP_NOT:
        r = in->elem == CVM_T_BOOL ? llvm.BuildXor(g->B, a, llvm.ConstInt(g->i8, 1, false), "") : llvm.BuildNot(g->B, a, "");
        break;
    case CVM_OP_EQ: case CVM_OP_NE: case CVM_OP_LT: case CVM_OP_LE: case CVM_OP_GT: case CVM_OP_GE:
        r = llvm.BuildZExt(g->B, compare(g, in, a, b), g->i8, "");
        break;
    case CVM_OP_CVT:
        switch (in->k) {
        case CVM_VM_CVT_COPY4: case CVM_VM_CVT_COPY8: r = a; break;
        case CVM_VM_CVT_TRUNC64: r = llvm.BuildTrunc(g->B, a, g->i32, ""); break;
        case CVM_VM_CVT_SEXT32: r = llvm.BuildSExt(g->B, a, g->i64, ""); break;
        default: r = llvm.BuildZExt(g->B, a, g->i64, ""); break; /* ZEXT32 */
        }
        break;
    case CVM_OP_PTR_ADD: { /* (shared: a 32-bit offset, as lane_op's) */
        const bool wide = in->eb == CVM_T_I64 || in->eb == CVM_T_U64;
        if (in->elem == CVM_T_PTR_SHARED)
            r = llvm.BuildAdd(g->B, a, wide ? llvm.BuildTrunc(g->B, b, g->i32, "") : b, "");
        else
            r = llvm.BuildAdd(g->B, a, wide ? b : llvm.BuildSExt(g->B, b, g->i64, ""), "");
        break;
    }
    default:
        return false;
    }
    LLVMValueRef v = form_vector(g, k, r);
    reg_set(g, in->d, v);
    forward(g, in->d, k, r, v);
    return true;
}

/* The run-time form (fval's du, dc, ds) of an integer add, sub, mul or
 * cvt whose operands' forms are known (cvm_nat_dyn_form), one of them
 * only at run time (else form_op made it): one value from one values;
 * consecutive from consecutive plus (or minus) one value, and through a
 * cvt that keeps the low bits. False, and the outputs untouched, where
 * nothing is known. */
static bool dyn_result(const gen *g, const cvm_vm_dinsn *in, LLVMValueRef *du, LLVMValueRef *dc, LLVMValueRef *ds)
{
    const unsigned e = in->elem;
    if (in->line != 1 || !is_int(e) || (cvm_vm_esz(e) != 4 && cvm_vm_esz(e) != 8))
        return false;
    LLVMValueRef ua, ca, sa, ub, cb, sb, no = llvm.ConstInt(g->i1, 0, false);
    if (in->h == CVM_OP_CVT) {
        if (!is_int(in->ea) || !cvm_nat_dyn_form(g, in->a, &ua, &ca, &sa))
            return false;
        /* (frozen: a cvt of a known form is also the quick path's index,
         * which LLVM would otherwise take from here, live the longer: vadd
         * spilled) */
        sa = llvm.BuildFreeze(g->B, sa, "");
        switch (in->k) {
        case CVM_VM_CVT_COPY4: case CVM_VM_CVT_COPY8: *ds = sa, *dc = ca; break;
        case CVM_VM_CVT_TRUNC64: *ds = llvm.BuildTrunc(g->B, sa, g->i32, ""), *dc = ca; break; /* modulo 2^32 */
        case CVM_VM_CVT_SEXT32: *ds = llvm.BuildSExt(g->B, sa, g->i64, ""), *dc = cons_widened(g, ca, sa, true); break;
        case CVM_VM_CVT_ZEXT32: *ds = llvm.BuildZExt(g->B, sa, g->i64, ""), *dc = cons_widened(g, ca, sa, false); break;
        default: return false;
        }
        *du = ua;
        return true;
    }
    if ((in->h != CVM_OP_ADD && in->h != CVM_OP_SUB && in->h != CVM_OP_MUL) ||
        !cvm_nat_dyn_form(g, in->a, &ua, &ca, &sa) || !cvm_nat_dyn_form(g, in->b, &ub, &cb, &sb))
        return false;
    *du = llvm.BuildAnd(g->B, ua, ub, "");
    if (in->h == CVM_OP_MUL) {
        *dc = no, *ds = llvm.BuildMul(g->B, sa, sb, "");
    } else if (in->h == CVM_OP_SUB) {
        *dc = llvm.BuildAnd(g->B, ca, ub, ""), *ds = llvm.BuildSub(g->B, sa, sb, "");
    } else {
        *dc = llvm.BuildOr(g->B, llvm.BuildAnd(g->B, ca, ub, ""), llvm.BuildAnd(g->B, ua, cb, ""), "");
        *ds = llvm.BuildAdd(g->B, sa, sb, "");
    }
    return true;
}

LLVMValueRef cvm_nat_ptr_add(const gen *g, const cvm_vm_dinsn *in)
{
    LLVMValueRef a = reg_get(g, in->a), b = reg_get(g, in->b);
    const bool wide = in->eb == CVM_T_I64 || in->eb == CVM_T_U64;
    if (in->elem == CVM_T_PTR_GLOBAL)
        return llvm.BuildAdd(g->B, a, wide ? b : llvm.BuildSExt(g->B, b, vec(g, CVM_T_I64), ""), "");
    return llvm.BuildAdd(g->B, a, wide ? llvm.BuildTrunc(g->B, b, vec(g, CVM_T_U32), "") : b, "");
}

bool cvm_nat_lane_op(gen *g, const cvm_vm_dinsn *in)
{
    const unsigned e = in->elem;
    if (in->line != 1 || in->la > 1 || in->lc > 1)
        return false;
    if (form_op(g, in))
        return true;
    LLVMValueRef r = NULL, du = NULL, dc = NULL, ds = NULL;
    dyn_result(g, in, &du, &dc, &ds); /* (read before reg_set drops what d forwards) */
    switch (in->h) {
    case CVM_OP_NOP: return true;
    case CVM_OP_MOV: r = reg_get(g, in->a); break;
    case CVM_OP_CONST: case CVM_OP_PARAM: r = splat(g, cvm_nat_launch_scalar(g, in)); break;
    case CVM_OP_SELECT: {
        LLVMValueRef c = llvm.BuildTrunc(g->B, reg_get(g, in->c), g->vmask, "");
        r = llvm.BuildSelect(g->B, c, reg_get(g, in->a), reg_get(g, in->b), "");
        break;
    }
    case CVM_OP_ADD: case CVM_OP_SUB: case CVM_OP_MUL: case CVM_OP_DIV: {
        LLVMValueRef a = reg_get(g, in->a), b = reg_get(g, in->b);
        if (is_float(e)) {
            r = in->h == CVM_OP_ADD   ? llvm.BuildFAdd(g->B, a, b, "")
                : in->h == CVM_OP_SUB ? llvm.BuildFSub(g->B, a, b, "")
                : in->h == CVM_OP_MUL ? llvm.BuildFMul(g->B, a, b, "")
                                      : llvm.BuildFDiv(g->B, a, b, "");
            r = arith_result(g, in->d, r, e);
        } else if (is_int(e) && in->h != CVM_OP_DIV) {
            r = in->h == CVM_OP_ADD   ? llvm.BuildAdd(g->B, a, b, "")
                : in->h == CVM_OP_SUB ? llvm.BuildSub(g->B, a, b, "")
                                      : llvm.BuildMul(g->B, a, b, "");
        } else {
            return false;
        }
        break;
    }
    case CVM_OP_MIN: case CVM_OP_MAX: {
        LLVMValueRef a = reg_get(g, in->a), b = reg_get(g, in->b);
        const bool max = in->h == CVM_OP_MAX;
        if (is_float(e)) {
            r = fminmax(g, a, b, e, max, g->no_nan[in->a], g->no_nan[in->b]);
        } else if (is_int(e)) {
            LLVMIntPredicate pr = is_signed(e) ? (max ? LLVMIntSGT : LLVMIntSLT)
                                               : (max ? LLVMIntUGT : LLVMIntULT);
            r = llvm.BuildSelect(g->B, llvm.BuildICmp(g->B, pr, a, b, ""), a, b, "");
        } else {
            return false;
        }
        break;
    }
    case CVM_OP_NEG: case CVM_OP_ABS: {
        LLVMValueRef a = reg_get(g, in->a);
        if (is_float(e)) {
            LLVMTypeRef it = llvm.VectorType(e == CVM_T_F32 ? g->i32 : g->i64, g->W);
            LLVMValueRef bits = llvm.BuildBitCast(g->B, a, it, "");
            uint64_t sign = e == CVM_T_F32 ? UINT64_C(0x80000000) : UINT64_C(1) << 63;
            LLVMValueRef s = splat(g, llvm.ConstInt(llvm.GetElementType(it), sign, false));
            bits = in->h == CVM_OP_NEG ? llvm.BuildXor(g->B, bits, s, "")
                                       : llvm.BuildAnd(g->B, bits, llvm.BuildNot(g->B, s, ""), "");
            r = llvm.BuildBitCast(g->B, bits, vec(g, e), "");
        } else if (is_int(e)) {
            LLVMValueRef neg = llvm.BuildSub(g->B, llvm.ConstNull(vec(g, e)), a, "");
            if (in->h == CVM_OP_NEG || !is_signed(e))
                r = in->h == CVM_OP_NEG ? neg : a;
            else
                r = llvm.BuildSelect(g->B, llvm.BuildICmp(g->B, LLVMIntSLT, a, llvm.ConstNull(vec(g, e)), ""),
                                    neg, a, "");
        } else {
            return false;
        }
        break;
    }
    case CVM_OP_FMA:
        if (!is_float(e))
            return false;
        r = intrinsic(g, "llvm.fma", (LLVMTypeRef[]){vec(g, e)}, 1,
                      (LLVMValueRef[]){reg_get(g, in->a), reg_get(g, in->b), reg_get(g, in->c)}, 3);
        r = arith_result(g, in->d, r, e);
        break;
    case CVM_OP_MAD:
        if (!is_int(e))
            return false;
        r = llvm.BuildAdd(g->B, llvm.BuildMul(g->B, reg_get(g, in->a), reg_get(g, in->b), ""),
                         reg_get(g, in->c), "");
        break;
    case CVM_OP_BITCAST: /* one element to one of the same width: the bits */
        if (!(is_int(e) || is_float(e)) || !(is_int(in->ea) || is_float(in->ea)) ||
            cvm_vm_esz(e) != cvm_vm_esz(in->ea))
            return false;
        r = llvm.BuildBitCast(g->B, reg_get(g, in->a), vec(g, e), "");
        break;
    case CVM_OP_EXP:
        if (e != CVM_T_F32)
            return false;
        r = arith_result(g, in->d, exp_f32(g, reg_get(g, in->a)), e);
        break;
    case CVM_OP_SQRT:
        if (!is_float(e))
            return false;
        r = arith_result(g, in->d, intrinsic(g, "llvm.sqrt", (LLVMTypeRef[]){vec(g, e)}, 1,
                                             (LLVMValueRef[]){reg_get(g, in->a)}, 1), e);
        break;
    case CVM_OP_EQ: case CVM_OP_NE: case CVM_OP_LT: case CVM_OP_LE: case CVM_OP_GT: case CVM_OP_GE:
        if (!is_float(in->ea) && !is_int(in->ea) && in->ea != CVM_T_BOOL)
            return false;
        r = llvm.BuildZExt(g->B, compare(g, in, reg_get(g, in->a), reg_get(g, in->b)), vec(g, CVM_T_BOOL), "");
        break;
    case CVM_OP_AND: case CVM_OP_OR: case CVM_OP_XOR: {
        if (!is_int(e) && e != CVM_T_BOOL)
            return false;
        LLVMValueRef a = reg_get(g, in->a), b = reg_get(g, in->b);
        r = in->h == CVM_OP_AND  ? llvm.BuildAnd(g->B, a, b, "")
            : in->h == CVM_OP_OR ? llvm.BuildOr(g->B, a, b, "")
                                 : llvm.BuildXor(g->B, a, b, "");
        break;
    }
    case CVM_OP_NOT:
        if (e == CVM_T_BOOL)
            r = llvm.BuildXor(g->B, reg_get(g, in->a), splat(g, llvm.ConstInt(g->i8, 1, false)), "");
        else if (is_int(e))
            r = llvm.BuildNot(g->B, reg_get(g, in->a), "");
        else
            return false;
        break;
    case CVM_OP_SHL: case CVM_OP_SHR:
        if (!is_int(e) || !is_int(in->eb))
            return false;
        r = shift(g, in, reg_get(g, in->a), reg_get(g, in->b));
        break;
    case CVM_OP_CVT:
        r = convert(g, in, reg_get(g, in->a));
        if (!r)
            return false;
        break;
    case CVM_OP_PTR_ADD:
        r = cvm_nat_ptr_add(g, in);
        break;
    default:
        return false;
    }
    reg_set(g, in->d, r);
    forward_dyn(g, in->d, r, du, dc, ds); /* (all NULL where no form is known) */
    return true;
}
