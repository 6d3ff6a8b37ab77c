/*
 * builtins.c - CUDA's builtin variables and functions, lowered by the rows
 * of docs/lowering.md ("Builtins", "Synchronization and atomics", "Warp
 * intrinsics", "Math"). Each builtin is a table row or a short case here;
 * user-defined functions of the same name take precedence (lower.c).
 */
#include "lower.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static fe_val sreg(fe_lower *L, const char *name)
{
    int r = fe_reg(L, RT(TY_U32, 1, 0));
    fe_emit(L, "sreg.u32 %%r%d, %s", r, name);
    return fe_rv(fe_ty(TY_U32), r);
}

/* threadIdx and friends: the special register each stands for */
typedef struct position_var {
    const char *var, *sreg;
} position_var;

static const position_var position_vars[] = {
    {"threadIdx", "unit_pos"}, {"blockIdx", "cube_pos"}, {"blockDim", "cube_dim"},
    {"gridDim", "cube_count"},
};

bool fe_builtin_member(fe_lower *L, fe_node *e, fe_val *out)
{
    if (e->a->kind != N_IDENT || fe_lookup(L, e->a->name))
        return false;
    const position_var *tab = position_vars;
    for (size_t i = 0; i < sizeof position_vars / sizeof position_vars[0]; i++) {
        if (strcmp(e->a->name, tab[i].var) != 0)
            continue;
        const char *m = e->name;
        if ((m[0] != 'x' && m[0] != 'y' && m[0] != 'z') || m[1]) {
            fe_error(L->c, e->tok, CVM_SYNTAX, "no member named '%s' in '%s'", m, tab[i].var);
            *out = fe_rv(fe_ty(TY_U32), 0);
            return true;
        }
        char name[32];
        snprintf(name, sizeof name, "%s.%c", tab[i].sreg, m[0]);
        *out = sreg(L, name);
        return true;
    }
    return false;
}

static fe_val mul3(fe_lower *L, const char *base)
{
    char n[32];
    snprintf(n, sizeof n, "%s.x", base);
    fe_val a = sreg(L, n);
    for (char c = 'y'; c <= 'z'; c++) {
        snprintf(n, sizeof n, "%s.%c", base, c);
        fe_val b = sreg(L, n);
        int r = fe_reg(L, RT(TY_U32, 1, 0));
        fe_emit(L, "mul.u32 %%r%d, %%r%d, %%r%d", r, a.reg, b.reg);
        a.reg = r;
    }
    return a;
}

bool fe_builtin_ident(fe_lower *L, fe_node *e, fe_val *out)
{
    const char *n = e->name;
    if (strcmp(n, "warpSize") == 0) { /* an int in CUDA: -64 / warpSize is -2 */
        L->reads_warp_size = true;
        *out = fe_convert(L, sreg(L, "plane_dim"), fe_ty(TY_I32), e->tok);
        return true;
    }
    if (strcmp(n, "PLANE_DIM") == 0) {
        *out = sreg(L, "plane_dim");
        return true;
    }
    if (strcmp(n, "UNIT_POS") == 0) { *out = sreg(L, "unit_pos"); return true; }
    if (strcmp(n, "UNIT_POS_PLANE") == 0) { *out = sreg(L, "unit_pos_plane"); return true; }
    if (strcmp(n, "CUBE_POS") == 0) { *out = sreg(L, "cube_pos"); return true; }
    if (strcmp(n, "CUBE_DIM") == 0) { *out = mul3(L, "cube_dim"); return true; }
    if (strcmp(n, "CUBE_COUNT") == 0) { *out = mul3(L, "cube_count"); return true; }
    if (strcmp(n, "ABSOLUTE_POS") == 0) {
        fe_val cp = sreg(L, "cube_pos"), cd = mul3(L, "cube_dim"), up = sreg(L, "unit_pos");
        int r = fe_reg(L, RT(TY_U32, 1, 0));
        fe_emit(L, "mad.u32 %%r%d, %%r%d, %%r%d, %%r%d", r, cp.reg, cd.reg, up.reg);
        *out = fe_rv(fe_ty(TY_U32), r);
        return true;
    }
    if (strcmp(n, "INFINITY") == 0 || strcmp(n, "__builtin_inff") == 0 || strcmp(n, "__builtin_huge_valf") == 0 || strcmp(n, "CUDART_INF_F") == 0 || strcmp(n, "HUGE_VALF") == 0) {
        *out = fe_const_float(L, TY_F32, INFINITY);
        return true;
    }
    if (strcmp(n, "NAN") == 0 || strcmp(n, "CUDART_NAN_F") == 0) {
        *out = fe_const_float(L, TY_F32, NAN);
        return true;
    }
    if (strcmp(n, "FLT_MAX") == 0) { *out = fe_const_float(L, TY_F32, 3.40282346638528859812e+38); return true; }
    if (strcmp(n, "FLT_MIN") == 0) { *out = fe_const_float(L, TY_F32, 1.17549435082228750797e-38); return true; }
    if (strcmp(n, "FLT_EPSILON") == 0) { *out = fe_const_float(L, TY_F32, 1.1920928955078125e-07); return true; }
    if (strcmp(n, "DBL_MAX") == 0) { *out = fe_const_float(L, TY_F64, 1.79769313486231570815e+308); return true; }
    if (strcmp(n, "INT_MAX") == 0) { *out = fe_const_int(L, TY_I32, 2147483647); return true; }
    if (strcmp(n, "INT_MIN") == 0) { *out = fe_const_int(L, TY_I32, -2147483647 - 1); return true; }
    if (strcmp(n, "UINT_MAX") == 0) { *out = fe_const_int(L, TY_U32, 0xffffffffll); return true; }
    for (size_t i = 0; i < sizeof position_vars / sizeof position_vars[0]; i++) {
        if (strcmp(n, position_vars[i].var) != 0)
            continue;
        /* the whole uint3 (dim3 t = threadIdx): a local temporary of its three parts */
        uint32_t off = L->local_size = (L->local_size + 3) / 4 * 4;
        L->local_size += 12;
        int p = fe_reg(L, RT(TY_PTR, 1, SP_LOCAL));
        fe_emit(L, "const.ptr.local %%r%d, %u", p, off);
        for (int c = 0; c < 3; c++) {
            char name[32];
            snprintf(name, sizeof name, "%s.%c", position_vars[i].sreg, 'x' + c);
            fe_val v = sreg(L, name);
            fe_val q = fe_ptr_add(L, fe_rv(fe_ty(TY_I8), p), fe_const_int(L, TY_I64, 4 * c), 1, e->tok);
            fe_emit(L, "st.u32 [%%r%d], %%r%d", q.reg, v.reg);
        }
        *out = (fe_val){fe_ty(TY_DIM3), p, LV_MEM, 0, false, false, false, false};
        return true;
    }
    return false;
}

/* ---- calls ---- */

static int nargs(fe_node *call)
{
    int n = 0;
    for (fe_node *a = call->args; a; a = a->next)
        n++;
    return n;
}

static fe_node *arg(fe_node *call, int i)
{
    fe_node *a = call->args;
    while (a && i-- > 0)
        a = a->next;
    return a;
}

static bool want_args(fe_lower *L, fe_node *call, const char *name, int lo, int hi)
{
    int n = nargs(call);
    if (n < lo || n > hi) {
        fe_error(L->c, call->tok, CVM_SYNTAX, "'%s' takes %d argument%s, %d given", name, lo,
                 lo == 1 ? "" : "s", n);
        return false;
    }
    return true;
}

/* A math function: its op, argument count, and for the intrinsics the
 * type they compute in (f: float, d: double; the rest take the arguments'
 * common float type, name##f float). */
typedef struct math1 { const char *name; const char *op; int nargs; char type; } math1;

static const math1 math_tab[] = {
    {"sqrt", "sqrt", 1, 0}, {"rsqrt", "rsqrt", 1, 0}, {"cbrt", "cbrt", 1, 0}, {"exp", "exp", 1, 0},
    {"exp2", "exp2", 1, 0}, {"expm1", "expm1", 1, 0}, {"log", "log", 1, 0}, {"log2", "log2", 1, 0},
    {"log10", "log10", 1, 0}, {"log1p", "log1p", 1, 0}, {"sin", "sin", 1, 0}, {"cos", "cos", 1, 0},
    {"tan", "tan", 1, 0}, {"asin", "asin", 1, 0}, {"acos", "acos", 1, 0}, {"atan", "atan", 1, 0},
    {"sinh", "sinh", 1, 0}, {"cosh", "cosh", 1, 0}, {"tanh", "tanh", 1, 0}, {"erf", "erf", 1, 0},
    {"erfc", "erfc", 1, 0}, {"fabs", "abs", 1, 0}, {"floor", "floor", 1, 0}, {"ceil", "ceil", 1, 0},
    {"trunc", "trunc", 1, 0}, {"round", "round", 1, 0}, {"rint", "rint", 1, 0}, {"nearbyint", "rint", 1, 0},
    {"pow", "pow", 2, 0}, {"atan2", "atan2", 2, 0}, {"fmin", "min", 2, 0}, {"fmax", "max", 2, 0},
    {"fmod", "rem", 2, 0}, {"copysign", "copysign", 2, 0}, {"hypot", "hypot", 2, 0}, {"fma", "fma", 3, 0},
    {"__expf", "exp", 1, 'f'}, {"__logf", "log", 1, 'f'}, {"__sinf", "sin", 1, 'f'}, {"__cosf", "cos", 1, 'f'},
    {"__powf", "pow", 2, 'f'}, {"__fmul_rn", "mul", 2, 'f'}, {"__fadd_rn", "add", 2, 'f'},
    {"__fsub_rn", "sub", 2, 'f'}, {"__fmaf_rn", "fma", 3, 'f'}, {"__fdiv_rn", "div", 2, 'f'},
    {"__log2f", "log2", 1, 'f'}, {"__log10f", "log10", 1, 'f'}, {"__tanf", "tan", 1, 'f'},
    {"__frsqrt_rn", "rsqrt", 1, 'f'}, {"__fsqrt_rn", "sqrt", 1, 'f'},
    {"__dadd_rn", "add", 2, 'd'}, {"__dsub_rn", "sub", 2, 'd'}, {"__dmul_rn", "mul", 2, 'd'},
    {"__ddiv_rn", "div", 2, 'd'}, {"__dsqrt_rn", "sqrt", 1, 'd'},
    {"__fma_rn", "fma", 3, 'd'}, /* the double one: float's is __fmaf_rn */
};

/* The float math functions: name, name##f (float), and the __ intrinsics. */
static bool math_call(fe_lower *L, fe_node *call, const char *name, fe_val *out)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof math_tab / sizeof math_tab[0]; i++) {
        const math1 *m = &math_tab[i];
        size_t k = strlen(m->name);
        bool fsuffix = !m->type && n == k + 1 && name[k] == 'f' && strncmp(name, m->name, k) == 0;
        if (!fsuffix && strcmp(name, m->name) != 0)
            continue;
        if (!want_args(L, call, name, m->nargs, m->nargs))
            return true;
        fe_val a[3];
        fe_type *t = NULL;
        for (int j = 0; j < m->nargs; j++) {
            a[j] = fe_rvalue(L, arg(call, j));
            fe_type *at = fe_is_float(a[j].ty) ? fe_unqual(a[j].ty) : fe_ty(TY_F64);
            t = t ? fe_common(t, at) : at;
        }
        if (fsuffix || m->type == 'f')
            t = fe_ty(TY_F32);
        if (m->type == 'd')
            t = fe_ty(TY_F64);
        if (t->kind == TY_F16 || t->kind == TY_BF16)
            t = fe_ty(TY_F32);
        for (int j = 0; j < m->nargs; j++)
            a[j] = fe_convert(L, a[j], t, call->tok);
        int r = fe_reg(L, fe_rtype_of(L, t, 0));
        const char *tn = fe_elem_name(t->kind);
        if (m->nargs == 1)
            fe_emit(L, "%s.%s %%r%d, %%r%d", m->op, tn, r, a[0].reg);
        else if (m->nargs == 2)
            fe_emit(L, "%s.%s %%r%d, %%r%d, %%r%d", m->op, tn, r, a[0].reg, a[1].reg);
        else
            fe_emit(L, "%s.%s %%r%d, %%r%d, %%r%d, %%r%d", m->op, tn, r, a[0].reg, a[1].reg, a[2].reg);
        *out = fe_rv(t, r);
        return true;
    }
    return false;
}

static fe_val mask_arg(fe_lower *L, fe_node *e)
{
    return fe_convert(L, fe_rvalue(L, e), fe_ty(TY_U32), e->tok);
}

static bool atomic_call(fe_lower *L, fe_node *call, const char *name, fe_val *out)
{
    static const struct { const char *name, *op; } tab[] = {
        {"atomicAdd", "add"}, {"atomicSub", "sub"}, {"atomicExch", "exch"}, {"atomicMin", "min"},
        {"atomicMax", "max"}, {"atomicInc", "inc"}, {"atomicDec", "dec"}, {"atomicCAS", "cas"},
        {"atomicAnd", "and"}, {"atomicOr", "or"}, {"atomicXor", "xor"},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        size_t k = strlen(tab[i].name);
        if (strncmp(name, tab[i].name, k) != 0 ||
            (name[k] && strcmp(name + k, "_block") && strcmp(name + k, "_system")))
            continue;
        bool cas = strcmp(tab[i].op, "cas") == 0;
        if (!want_args(L, call, name, cas ? 3 : 2, cas ? 3 : 2))
            return true;
        fe_val p = fe_rvalue(L, arg(call, 0));
        if (p.ty->kind != TY_PTR || !fe_is_arith(p.ty->base)) {
            fe_error(L->c, call->tok, CVM_SYNTAX, "the first argument of %s must be a pointer to a number", name);
            return true;
        }
        int sp = fe_space_of(L, p.reg);
        if (sp != SP_GLOBAL && sp != SP_SHARED) {
            fe_error(L->c, call->tok, CVM_UNSUPPORTED, "%s needs a pointer to global or shared memory", name);
            return true;
        }
        fe_type *t = fe_unqual(p.ty->base);
        /* the atom ops take 4- and 8-byte values, floats for add, min, max
         * and exch alone (docs/isa.md) */
        const char *op = tab[i].op;
        const bool flt = fe_is_float(t), fop = !strcmp(op, "add") || !strcmp(op, "exch") ||
                                                !strcmp(op, "min") || !strcmp(op, "max");
        if ((t->size != 4 && t->size != 8) || (flt && !fop)) {
            fe_error(L->c, call->tok, CVM_UNSUPPORTED,
                     "%s on %u-byte %s values is not supported (atomics take 4- and 8-byte integers, "
                     "and floats for atomicAdd, atomicMin, atomicMax and atomicExch)", name, t->size,
                     flt ? "floating-point" : "integer");
            return true;
        }
        fe_val v = fe_convert(L, fe_rvalue(L, arg(call, 1)), t, call->tok);
        int r = fe_reg(L, fe_rtype_of(L, t, 0));
        const char *scope = name[k] == 0 ? "device" : name[k + 1] == 'b' ? "cube" : "system";
        if (cas) {
            fe_val w = fe_convert(L, fe_rvalue(L, arg(call, 2)), t, call->tok);
            fe_emit(L, "atom.cas.relaxed.%s.%s %%r%d, [%%r%d], %%r%d, %%r%d", scope,
                    fe_elem_name(t->kind), r, p.reg, v.reg, w.reg);
        } else {
            fe_emit(L, "atom.%s.relaxed.%s.%s %%r%d, [%%r%d], %%r%d", tab[i].op, scope,
                    fe_elem_name(t->kind), r, p.reg, v.reg);
        }
        *out = fe_rv(t, r);
        return true;
    }
    return false;
}

static int op2(fe_lower *L, const char *op, fe_kind k, int a, int b)
{
    int r = fe_reg(L, RT(k, 1, 0));
    fe_emit(L, "%s.%s %%r%d, %%r%d, %%r%d", op, fe_elem_name(k), r, a, b);
    return r;
}

static int kint(fe_lower *L, fe_kind k, int64_t v) { return fe_const_int(L, k, v).reg; }

static int op1(fe_lower *L, const char *op, fe_kind k, int a)
{
    int r = fe_reg(L, RT(k, 1, 0));
    fe_emit(L, "%s.%s %%r%d, %%r%d", op, fe_elem_name(k), r, a);
    return r;
}

/* the bool a OP b of type k */
static int cmp2(fe_lower *L, const char *op, fe_kind k, int a, int b)
{
    int r = fe_reg(L, RT(TY_BOOL, 1, 0));
    fe_emit(L, "%s.%s %%r%d, %%r%d, %%r%d", op, fe_elem_name(k), r, a, b);
    return r;
}

/* d = c ? a : b */
static int pick(fe_lower *L, fe_kind k, int c, int a, int b)
{
    int r = fe_reg(L, RT(k, 1, 0));
    fe_emit(L, "select.%s %%r%d, %%r%d, %%r%d, %%r%d", fe_elem_name(k), r, a, b, c);
    return r;
}

/* __shfl_*_sync(mask, v, x[, width]) per the lowering table. */
/* the shuffled register r of type t, or the pair its bits came from */
static bool shfl_result(fe_lower *L, fe_type *pair, fe_type *t, int r, fe_val *out)
{
    *out = fe_rv(t, r);
    if (pair) {
        int p = fe_reg(L, fe_rtype_of(L, pair, 0));
        fe_emit(L, "bitcast.%s %%r%d, %%r%d", fe_tname_of(L, p), p, r);
        *out = fe_rv(pair, p);
    }
    return true;
}

static bool shfl_call(fe_lower *L, fe_node *call, const char *name, fe_val *out)
{
    const char *kind = strcmp(name, "__shfl_sync") == 0 ? "idx"
                       : strcmp(name, "__shfl_up_sync") == 0 ? "up"
                       : strcmp(name, "__shfl_down_sync") == 0 ? "down"
                       : strcmp(name, "__shfl_xor_sync") == 0 ? "xor" : NULL;
    if (!kind)
        return false;
    if (!want_args(L, call, name, 3, 4))
        return true;
    L->uses_plane = true;
    fe_val m = mask_arg(L, arg(call, 0));
    fe_val v = fe_rvalue(L, arg(call, 1));
    fe_type *pair = fe_is_half_pair(v.ty) ? fe_unqual(v.ty) : NULL;
    if (pair) { /* __half2 / __nv_bfloat162: shuffled as its 32 bits */
        int b = fe_reg(L, RT(TY_U32, 1, 0));
        fe_emit(L, "bitcast.u32 %%r%d, %%r%d", b, v.reg);
        v = fe_rv(fe_ty(TY_U32), b);
    }
    if (!fe_is_arith(v.ty)) {
        fe_error(L->c, call->tok, CVM_SYNTAX, "%s of a non-scalar value", name);
        return true;
    }
    fe_type *t = fe_promote(v.ty);
    v = fe_convert(L, v, t, call->tok);
    fe_val x = mask_arg(L, arg(call, 2));
    int64_t w = 32;
    fe_node *wn = arg(call, 3);
    /* a width known only at run time (shfl_scan's blockDim.x / warpSize):
     * the segment masks are computed; it must be a power of two, as in CUDA */
    bool wconst = !wn || fe_const_eval(L->c, wn, &w);
    fe_val wrun = {0};
    if (!wconst) {
        wrun = fe_convert(L, fe_rvalue(L, wn), fe_ty(TY_U32), wn->tok);
        w = 0;
    }
    if (wconst && (w <= 0 || w > 32 || (w & (w - 1)))) {
        fe_error(L->c, call->tok, CVM_SYNTAX, "the width of %s must be a power of two up to 32", name);
        return true;
    }
    int r = fe_reg(L, fe_rtype_of(L, t, 0));
    const char *tn = fe_elem_name(t->kind);
    if (w == 32) {
        /* PTX reads the lane or offset's low 5 bits: 33 is 1, -1 is 31
         * (a constant below 32 needs no mask) */
        int64_t xc;
        int xr = fe_const_eval(L->c, arg(call, 2), &xc) && xc >= 0 && xc < 32
                     ? x.reg
                     : op2(L, "and", TY_U32, x.reg, kint(L, TY_U32, 31));
        fe_emit(L, "shfl.%s.%s %%r%d, %%r%d, %%r%d, %%r%d", kind, tn, r, v.reg, xr, m.reg);
        return shfl_result(L, pair, t, r, out);
    }
    fe_val lane = sreg(L, "unit_pos_plane");
    fe_val wm = wconst ? fe_const_int(L, TY_U32, w - 1) : wrun;
    if (!wconst) {
        fe_val one = fe_const_int(L, TY_U32, 1);
        wm.reg = fe_reg(L, RT(TY_U32, 1, 0));
        fe_emit(L, "sub.u32 %%r%d, %%r%d, %%r%d", wm.reg, wrun.reg, one.reg);
    }
    int lo = fe_reg(L, RT(TY_U32, 1, 0)); /* lane within the segment */
    fe_emit(L, "and.u32 %%r%d, %%r%d, %%r%d", lo, lane.reg, wm.reg);
    if (kind[0] == 'i') {
        fe_val nm = wconst ? fe_const_int(L, TY_U32, ~(w - 1)) : wm;
        if (!wconst) {
            nm.reg = fe_reg(L, RT(TY_U32, 1, 0));
            fe_emit(L, "not.u32 %%r%d, %%r%d", nm.reg, wm.reg);
        }
        int seg = fe_reg(L, RT(TY_U32, 1, 0)), src = fe_reg(L, RT(TY_U32, 1, 0)), idx = fe_reg(L, RT(TY_U32, 1, 0));
        fe_emit(L, "and.u32 %%r%d, %%r%d, %%r%d", seg, lane.reg, nm.reg);
        fe_emit(L, "and.u32 %%r%d, %%r%d, %%r%d", src, x.reg, wm.reg);
        fe_emit(L, "or.u32 %%r%d, %%r%d, %%r%d", idx, seg, src);
        fe_emit(L, "shfl.idx.%s %%r%d, %%r%d, %%r%d, %%r%d", tn, r, v.reg, idx, m.reg);
        return shfl_result(L, pair, t, r, out);
    }
    /* the source lane as PTX's shfl.sync with c = ((32 - w) << 8) | 31 finds
     * it (the offset's low 5 bits; up: not before the segment's first lane,
     * down and bfly: not past its last), else the lane itself: then one
     * shfl.idx, which reads no lane CUDA would not read */
    int x5 = op2(L, "and", TY_U32, x.reg, kint(L, TY_U32, 31)), cand, bad;
    if (kind[0] == 'u') {
        bad = cmp2(L, "lt", TY_U32, lo, x5);
        cand = op2(L, "sub", TY_U32, lane.reg, x5);
    } else if (kind[0] == 'x') {
        cand = op2(L, "xor", TY_U32, lane.reg, x5);
        bad = cmp2(L, "gt", TY_U32, cand, op2(L, "or", TY_U32, lane.reg, wm.reg));
    } else {
        fe_val wv = wconst ? fe_const_int(L, TY_U32, w) : wrun;
        bad = cmp2(L, "ge", TY_U32, op2(L, "add", TY_U32, lo, x5), wv.reg);
        cand = op2(L, "add", TY_U32, lane.reg, x5);
    }
    int src = pick(L, TY_U32, bad, lane.reg, cand);
    fe_emit(L, "shfl.idx.%s %%r%d, %%r%d, %%r%d, %%r%d", tn, r, v.reg, src, m.reg);
    return shfl_result(L, pair, t, r, out);
}

static bool warp_call(fe_lower *L, fe_node *call, const char *name, fe_val *out)
{
    if (shfl_call(L, call, name, out))
        return true;
    bool any = strcmp(name, "__any_sync") == 0, all = strcmp(name, "__all_sync") == 0;
    bool ballot = strcmp(name, "__ballot_sync") == 0;
    if (any || all || ballot) {
        if (!want_args(L, call, name, 2, 2))
            return true;
        L->uses_plane = true;
        fe_val m = mask_arg(L, arg(call, 0));
        fe_val p = fe_cond_bool(L, arg(call, 1));
        int r = fe_reg(L, ballot ? RT(TY_U32, 1, 0) : RT(TY_BOOL, 1, 0));
        if (ballot)
            fe_emit(L, "vote.ballot.u32 %%r%d, %%r%d, %%r%d", r, p.reg, m.reg);
        else
            fe_emit(L, "vote.%s %%r%d, %%r%d, %%r%d", any ? "any" : "all", r, p.reg, m.reg);
        *out = ballot ? fe_rv(fe_ty(TY_U32), r) : fe_convert(L, fe_rv(fe_ty(TY_BOOL), r), fe_ty(TY_I32), call->tok);
        return true;
    }
    if (strcmp(name, "__activemask") == 0) {
        L->uses_plane = true;
        int r = fe_reg(L, RT(TY_U32, 1, 0));
        fe_emit(L, "activemask.u32 %%r%d", r);
        *out = fe_rv(fe_ty(TY_U32), r);
        return true;
    }
    if (strcmp(name, "__syncwarp") == 0) {
        L->uses_plane = true;
        fe_val m = nargs(call) ? mask_arg(L, arg(call, 0)) : fe_const_int(L, TY_U32, 0xffffffffll);
        fe_emit(L, "sync_plane %%r%d", m.reg);
        *out = fe_rv(fe_ty(TY_VOID), 0);
        return true;
    }
    if (strcmp(name, "__match_all_sync") == 0) { /* the mask if every member lane's v is equal, else 0; *pred */
        if (!want_args(L, call, name, 3, 3))
            return true;
        L->uses_plane = true;
        fe_val m = mask_arg(L, arg(call, 0));
        fe_val v = fe_rvalue(L, arg(call, 1));
        v = fe_convert(L, v, fe_ty(fe_unqual(v.ty)->size == 8 ? TY_U64 : TY_U32), call->tok);
        fe_val p = fe_rvalue(L, arg(call, 2));
        if (p.ty->kind != TY_PTR || !fe_is_int(p.ty->base)) {
            fe_error(L->c, arg(call, 2)->tok, CVM_SYNTAX, "__match_all_sync's third argument is an int *");
            return true;
        }
        int r = fe_reg(L, RT(TY_U32, 1, 0));
        fe_emit(L, "match.all.u32 %%r%d, %%r%d, %%r%d", r, v.reg, m.reg);
        int same = fe_reg(L, RT(TY_BOOL, 1, 0));
        fe_emit(L, "ne.u32 %%r%d, %%r%d, %%r%d", same, r, fe_const_int(L, TY_U32, 0).reg);
        fe_store(L, (fe_val){p.ty->base, p.reg, LV_MEM, 0, false, false, false, false}, fe_rv(fe_ty(TY_BOOL), same),
                 call->tok);
        *out = fe_rv(fe_ty(TY_U32), r);
        return true;
    }
    static const struct { const char *name, *op; } red[] = {
        {"__reduce_add_sync", "add"}, {"__reduce_min_sync", "min"}, {"__reduce_max_sync", "max"},
        {"__reduce_and_sync", "and"}, {"__reduce_or_sync", "or"}, {"__reduce_xor_sync", "xor"},
        {"__match_any_sync", "match.any"},
    };
    for (size_t i = 0; i < sizeof red / sizeof red[0]; i++) {
        if (strcmp(name, red[i].name) != 0)
            continue;
        if (!want_args(L, call, name, 2, 2))
            return true;
        L->uses_plane = true;
        fe_val m = mask_arg(L, arg(call, 0));
        fe_val v = fe_rvalue(L, arg(call, 1));
        bool match = strcmp(red[i].op, "match.any") == 0;
        fe_type *t = fe_is_signed(v.ty) && !match ? fe_ty(TY_I32) : fe_ty(TY_U32);
        if (match && fe_unqual(v.ty)->size == 8)
            t = fe_ty(TY_U64);
        v = fe_convert(L, v, t, call->tok);
        int r = fe_reg(L, RT(match ? TY_U32 : t->kind, 1, 0));
        if (match)
            fe_emit(L, "match.any.u32 %%r%d, %%r%d, %%r%d", r, v.reg, m.reg);
        else
            fe_emit(L, "reduce.%s.%s %%r%d, %%r%d, %%r%d", red[i].op, fe_elem_name(t->kind), r, v.reg, m.reg);
        *out = fe_rv(match ? fe_ty(TY_U32) : t, r);
        return true;
    }
    return false;
}

static bool bits_call(fe_lower *L, fe_node *call, const char *name, fe_val *out)
{
    static const struct { const char *name, *op; fe_kind t; } tab[] = {
        {"__popc", "popc", TY_U32}, {"__popcll", "popc", TY_U64}, {"__clz", "clz", TY_I32},
        {"__clzll", "clz", TY_I64}, {"__brev", "brev", TY_U32}, {"__brevll", "brev", TY_U64},
        {"__ffs", "ffs", TY_U32}, {"__ffsll", "ffs", TY_U64},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        if (strcmp(name, tab[i].name) != 0)
            continue;
        if (!want_args(L, call, name, 1, 1))
            return true;
        fe_type *t = fe_ty(tab[i].t);
        fe_val a = fe_convert(L, fe_rvalue(L, arg(call, 0)), t, call->tok);
        const char *tn = fe_elem_name(t->kind);
        if (strcmp(tab[i].op, "brev") == 0) {
            int r = fe_reg(L, RT(t->kind, 1, 0));
            fe_emit(L, "brev.%s %%r%d, %%r%d", tn, r, a.reg);
            *out = fe_rv(t, r);
            return true;
        }
        if (strcmp(tab[i].op, "ffs") == 0) { /* ctz + 1, 0 for 0 */
            int z = fe_reg(L, RT(TY_U32, 1, 0)), p = fe_reg(L, RT(TY_U32, 1, 0));
            int isz = fe_reg(L, RT(TY_BOOL, 1, 0)), r = fe_reg(L, RT(TY_I32, 1, 0));
            fe_val one = fe_const_int(L, TY_U32, 1), zero = fe_const_int(L, t->kind, 0);
            fe_val zi = fe_const_int(L, TY_U32, 0);
            fe_emit(L, "ctz.%s %%r%d, %%r%d", tn, z, a.reg);
            fe_emit(L, "add.u32 %%r%d, %%r%d, %%r%d", p, z, one.reg);
            fe_emit(L, "eq.%s %%r%d, %%r%d, %%r%d", tn, isz, a.reg, zero.reg);
            int s = fe_reg(L, RT(TY_U32, 1, 0));
            fe_emit(L, "select.u32 %%r%d, %%r%d, %%r%d, %%r%d", s, zi.reg, p, isz);
            fe_emit(L, "cvt.i32 %%r%d, %%r%d", r, s);
            *out = fe_rv(fe_ty(TY_I32), r);
            return true;
        }
        int c = fe_reg(L, RT(TY_U32, 1, 0)), r = fe_reg(L, RT(TY_I32, 1, 0));
        fe_emit(L, "%s.%s %%r%d, %%r%d", tab[i].op, tn, c, a.reg);
        fe_emit(L, "cvt.i32 %%r%d, %%r%d", r, c);
        *out = fe_rv(fe_ty(TY_I32), r);
        return true;
    }
    return false;
}


/* __byte_perm(x, y, s): byte n of the result is byte ((s >> 4n) & 7) of
 * the eight bytes y:x (x holds bytes 0..3), as CUDA's default PRMT mode. */
static fe_val byte_perm(fe_lower *L, fe_node *call)
{
    int x = fe_convert(L, fe_rvalue(L, arg(call, 0)), fe_ty(TY_U32), call->tok).reg;
    int y = fe_convert(L, fe_rvalue(L, arg(call, 1)), fe_ty(TY_U32), call->tok).reg;
    int s = fe_convert(L, fe_rvalue(L, arg(call, 2)), fe_ty(TY_U32), call->tok).reg;
    int x64 = fe_convert(L, fe_rv(fe_ty(TY_U32), x), fe_ty(TY_U64), call->tok).reg;
    int y64 = fe_convert(L, fe_rv(fe_ty(TY_U32), y), fe_ty(TY_U64), call->tok).reg;
    int v = op2(L, "or", TY_U64, op2(L, "shl", TY_U64, y64, kint(L, TY_U64, 32)), x64);
    int r = kint(L, TY_U32, 0);
    for (int n = 0; n < 4; n++) {
        int sel = op2(L, "and", TY_U32, op2(L, "shr", TY_U32, s, kint(L, TY_U32, 4 * n)), kint(L, TY_U32, 7));
        int sh = op2(L, "shl", TY_U64, fe_convert(L, fe_rv(fe_ty(TY_U32), sel), fe_ty(TY_U64), call->tok).reg,
                     kint(L, TY_U64, 3));
        int b = op2(L, "and", TY_U64, op2(L, "shr", TY_U64, v, sh), kint(L, TY_U64, 0xff));
        int b32 = fe_convert(L, fe_rv(fe_ty(TY_U64), b), fe_ty(TY_U32), call->tok).reg;
        r = op2(L, "or", TY_U32, r, op2(L, "shl", TY_U32, b32, kint(L, TY_U32, 8 * n)));
    }
    return fe_rv(fe_ty(TY_U32), r);
}

/* The halving adds of two 32-bit integers, (x + y [+ 1]) >> 1 without
 * overflow (the sum in 64 bits): __hadd and __rhadd on int, __uhadd and
 * __urhadd on unsigned. */
static fe_val halving_add(fe_lower *L, fe_node *call, fe_val x, fe_val y, bool is_signed, bool round)
{
    const fe_kind k = is_signed ? TY_I32 : TY_U32, w = is_signed ? TY_I64 : TY_U64;
    int a = fe_convert(L, fe_convert(L, x, fe_ty(k), call->tok), fe_ty(w), call->tok).reg;
    int b = fe_convert(L, fe_convert(L, y, fe_ty(k), call->tok), fe_ty(w), call->tok).reg;
    int sum = op2(L, "add", w, a, b);
    if (round)
        sum = op2(L, "add", w, sum, kint(L, w, 1));
    int half = op2(L, "shr", w, sum, kint(L, TY_U32, 1)); /* arithmetic for i64 */
    return fe_convert(L, fe_rv(fe_ty(w), half), fe_ty(k), call->tok);
}

/* __mul24/__umul24 (low 32 bits of the product of the low 24 bits, sign-
 * extended for __mul24), __sad/__usad (|x - y| + z, without overflow). */
static bool int_misc_call(fe_lower *L, fe_node *call, const char *name, fe_val *out)
{
    if (strcmp(name, "__byte_perm") == 0) {
        if (want_args(L, call, name, 3, 3))
            *out = byte_perm(L, call);
        return true;
    }
    bool mul24 = strcmp(name, "__mul24") == 0, umul24 = strcmp(name, "__umul24") == 0;
    if (mul24 || umul24) {
        if (!want_args(L, call, name, 2, 2))
            return true;
        fe_kind k = mul24 ? TY_I32 : TY_U32;
        int ab[2];
        for (int i = 0; i < 2; i++) {
            int a = fe_convert(L, fe_rvalue(L, arg(call, i)), fe_ty(k), call->tok).reg;
            if (mul24) /* shr of i32 is arithmetic */
                ab[i] = op2(L, "shr", k, op2(L, "shl", k, a, kint(L, TY_U32, 8)), kint(L, TY_U32, 8));
            else
                ab[i] = op2(L, "and", k, a, kint(L, k, 0xffffff));
        }
        *out = fe_rv(fe_ty(k), op2(L, "mul", k, ab[0], ab[1]));
        return true;
    }
    bool rhadd = strcmp(name, "__rhadd") == 0, uhadd = strcmp(name, "__uhadd") == 0,
         urhadd = strcmp(name, "__urhadd") == 0;
    if (rhadd || uhadd || urhadd) {
        if (want_args(L, call, name, 2, 2))
            *out = halving_add(L, call, fe_rvalue(L, arg(call, 0)), fe_rvalue(L, arg(call, 1)), rhadd,
                               !uhadd);
        return true;
    }
    bool sad = strcmp(name, "__sad") == 0, usad = strcmp(name, "__usad") == 0;
    if (sad || usad) {
        if (!want_args(L, call, name, 3, 3))
            return true;
        fe_kind k = sad ? TY_I32 : TY_U32;
        int x = fe_convert(L, fe_rvalue(L, arg(call, 0)), fe_ty(k), call->tok).reg;
        int y = fe_convert(L, fe_rvalue(L, arg(call, 1)), fe_ty(k), call->tok).reg;
        int z = fe_convert(L, fe_rvalue(L, arg(call, 2)), fe_ty(TY_U32), call->tok).reg;
        int gt = fe_reg(L, RT(TY_BOOL, 1, 0));
        fe_emit(L, "gt.%s %%r%d, %%r%d, %%r%d", fe_elem_name(k), gt, x, y);
        int xu = fe_convert(L, fe_rv(fe_ty(k), x), fe_ty(TY_U32), call->tok).reg;
        int yu = fe_convert(L, fe_rv(fe_ty(k), y), fe_ty(TY_U32), call->tok).reg;
        int d1 = op2(L, "sub", TY_U32, xu, yu), d2 = op2(L, "sub", TY_U32, yu, xu);
        int d = fe_reg(L, RT(TY_U32, 1, 0));
        fe_emit(L, "select.u32 %%r%d, %%r%d, %%r%d, %%r%d", d, d1, d2, gt); /* d = gt ? d1 : d2 */
        *out = fe_rv(fe_ty(TY_U32), op2(L, "add", TY_U32, d, z));
        return true;
    }
    return false;
}

static bool bitcast_call(fe_lower *L, fe_node *call, const char *name, fe_val *out)
{
    static const struct { const char *name; fe_kind from, to; } tab[] = {
        {"__float_as_int", TY_F32, TY_I32}, {"__int_as_float", TY_I32, TY_F32},
        {"__float_as_uint", TY_F32, TY_U32}, {"__uint_as_float", TY_U32, TY_F32},
        {"__double_as_longlong", TY_F64, TY_I64}, {"__longlong_as_double", TY_I64, TY_F64},
        {"__half_as_ushort", TY_F16, TY_U16}, {"__ushort_as_half", TY_U16, TY_F16},
        {"__half_as_short", TY_F16, TY_I16}, {"__short_as_half", TY_I16, TY_F16},
        {"__bfloat16_as_ushort", TY_BF16, TY_U16}, {"__ushort_as_bfloat16", TY_U16, TY_BF16},
        {"__bfloat16_as_short", TY_BF16, TY_I16}, {"__short_as_bfloat16", TY_I16, TY_BF16},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        if (strcmp(name, tab[i].name) != 0)
            continue;
        if (!want_args(L, call, name, 1, 1))
            return true;
        fe_val a = fe_convert(L, fe_rvalue(L, arg(call, 0)), fe_ty(tab[i].from), call->tok);
        int r = fe_reg(L, RT(tab[i].to, 1, 0));
        fe_emit(L, "bitcast.%s %%r%d, %%r%d", fe_elem_name(tab[i].to), r, a.reg);
        *out = fe_rv(fe_ty(tab[i].to), r);
        return true;
    }
    return false;
}

/* min/max/abs overloads on the common type of the arguments; the typed
 * ones (umin, llmax, ullmin, llabs ...) convert their arguments to their
 * parameters' type first, as CUDA declares them (umax(-1, 5) is
 * 4294967295). */
static bool minmax_call(fe_lower *L, fe_node *call, const char *name, fe_val *out)
{
    static const struct { const char *name; fe_kind k; } typed[] = {
        {"umin", TY_U32}, {"umax", TY_U32}, {"llmin", TY_I64}, {"llmax", TY_I64}, {"ullmin", TY_U64},
        {"ullmax", TY_U64}, {"llabs", TY_I64}, {"labs", TY_I64}};
    fe_kind fixed = TY_VOID;
    for (size_t i = 0; i < sizeof typed / sizeof typed[0]; i++)
        if (strcmp(name, typed[i].name) == 0)
            fixed = typed[i].k;
    const size_t n = strlen(name);
    bool is_min = strcmp(name, "min") == 0 || (fixed != TY_VOID && n > 3 && !strcmp(name + n - 3, "min"));
    bool is_max = strcmp(name, "max") == 0 || (fixed != TY_VOID && n > 3 && !strcmp(name + n - 3, "max"));
    bool is_abs = strcmp(name, "abs") == 0 || strcmp(name, "llabs") == 0 || strcmp(name, "labs") == 0;
    if (!is_min && !is_max && !is_abs)
        return false;
    if (!want_args(L, call, name, is_abs ? 1 : 2, is_abs ? 1 : 2))
        return true;
    fe_val a = fe_rvalue(L, arg(call, 0));
    if (fixed != TY_VOID)
        a = fe_convert(L, a, fe_ty(fixed), call->tok);
    if (is_abs) {
        fe_type *t = fe_is_int(a.ty) ? fe_promote(a.ty) : fe_unqual(a.ty);
        a = fe_convert(L, a, t, call->tok);
        int r = fe_reg(L, fe_rtype_of(L, t, 0));
        fe_emit(L, "abs.%s %%r%d, %%r%d", fe_elem_name(t->kind), r, a.reg);
        *out = fe_rv(t, r);
        return true;
    }
    fe_val b = fe_rvalue(L, arg(call, 1));
    if (fixed != TY_VOID)
        b = fe_convert(L, b, fe_ty(fixed), call->tok);
    fe_type *t = fe_common(a.ty, b.ty);
    a = fe_convert(L, a, t, call->tok);
    b = fe_convert(L, b, t, call->tok);
    int r = fe_reg(L, fe_rtype_of(L, t, 0));
    fe_emit(L, "%s.%s %%r%d, %%r%d, %%r%d", is_min ? "min" : "max", fe_elem_name(t->kind), r, a.reg, b.reg);
    *out = fe_rv(t, r);
    return true;
}

static bool sync_call(fe_lower *L, fe_node *call, const char *name, fe_val *out)
{
    *out = fe_rv(fe_ty(TY_VOID), 0);
    if (strcmp(name, "__syncthreads") == 0) {
        fe_emit(L, "sync_cube");
        return true;
    }
    const char *pred = strcmp(name, "__syncthreads_count") == 0 ? "count"
                       : strcmp(name, "__syncthreads_and") == 0 ? "and"
                       : strcmp(name, "__syncthreads_or") == 0 ? "or" : NULL;
    if (pred) {
        if (!want_args(L, call, name, 1, 1))
            return true;
        fe_val p = fe_cond_bool(L, arg(call, 0));
        bool count = pred[0] == 'c';
        int r = fe_reg(L, count ? RT(TY_U32, 1, 0) : RT(TY_BOOL, 1, 0));
        fe_emit(L, "sync_cube.%s %%r%d, %%r%d", pred, r, p.reg);
        *out = fe_convert(L, fe_rv(count ? fe_ty(TY_U32) : fe_ty(TY_BOOL), r), fe_ty(TY_I32), call->tok);
        return true;
    }
    const char *scope = strcmp(name, "__threadfence_block") == 0 ? "cube"
                        : strcmp(name, "__threadfence") == 0 ? "device"
                        : strcmp(name, "__threadfence_system") == 0 ? "system" : NULL;
    if (scope) {
        fe_emit(L, "fence.seq_cst.%s", scope);
        return true;
    }
    return false;
}

static bool misc_call(fe_lower *L, fe_node *call, const char *name, fe_val *out)
{
    if (strncmp(name, "make_", 5) == 0) {
        fe_ctx *c = L->c;
        (void)c;
        fe_node fake = *call;
        fake.kind = N_CAST;
        fake.op = 'F';
        /* the type named after make_ is a builtin vector or struct: lowered as its constructor */
        fe_type *t = fe_lookup_type(L->c, name + 5);
        if (!t)
            return false;
        fake.ty = t;
        if (t->kind == TY_VEC) {
            *out = fe_gen(L, &fake);
            return true;
        }
        if (t->kind == TY_STRUCT) { /* float3 and friends: a local temporary */
            uint32_t off = L->local_size = (L->local_size + 3) / 4 * 4;
            L->local_size += t->size;
            int p = fe_reg(L, RT(TY_PTR, 1, SP_LOCAL));
            fe_emit(L, "const.ptr.local %%r%d, %u", p, off);
            fe_node *a = call->args;
            for (fe_member *m = t->members; m && a; m = m->next, a = a->next) {
                fe_val v = fe_convert(L, fe_rvalue(L, a), m->ty, a->tok);
                fe_val q = fe_ptr_add(L, fe_rv(fe_ty(TY_I8), p), fe_const_int(L, TY_I64, m->offset), 1, a->tok);
                fe_emit(L, "st.%s [%%r%d], %%r%d", fe_elem_name(m->ty->kind), q.reg, v.reg);
            }
            *out = (fe_val){t, p, LV_MEM, 0, false, false, false, false};
            return true;
        }
        return false;
    }
    static const struct { const char *name, *op; int n; } hops[] = {
        {"__hadd", "add", 2}, {"__hsub", "sub", 2}, {"__hmul", "mul", 2}, {"__hdiv", "div", 2},
        {"__hfma", "fma", 3}, {"__hneg", "neg", 1}, {"__habs", "abs", 1},
        {"__hmax", "max", 2}, {"__hmin", "min", 2},
        {"__heq", "eq", 2}, {"__hne", "ne", 2}, {"__hlt", "lt", 2}, {"__hle", "le", 2},
        {"__hgt", "gt", 2}, {"__hge", "ge", 2}, {"__hisnan", "isnan", 1},
    };
    for (size_t i = 0; i < sizeof hops / sizeof hops[0]; i++) {
        if (strcmp(name, hops[i].name) != 0)
            continue;
        if (!want_args(L, call, name, hops[i].n, hops[i].n))
            return true;
        fe_val a[3];
        fe_type *t = NULL;
        for (int j = 0; j < hops[i].n; j++) {
            a[j] = fe_rvalue(L, arg(call, j));
            t = t ? t : (a[j].ty->kind == TY_BF16 ? fe_ty(TY_BF16) : fe_ty(TY_F16));
        }
        if (i == 0 && fe_is_int(a[0].ty) && fe_is_int(a[1].ty)) { /* int __hadd(int, int) */
            *out = halving_add(L, call, a[0], a[1], true, false);
            return true;
        }
        bool cmp = i >= 9; /* comparisons: a bool */
        int r = fe_reg(L, RT(cmp ? TY_BOOL : t->kind, 1, 0));
        const char *tn = fe_elem_name(t->kind);
        for (int j = 0; j < hops[i].n; j++)
            a[j] = fe_convert(L, a[j], t, call->tok);
        if (hops[i].n == 1)
            fe_emit(L, "%s.%s %%r%d, %%r%d", hops[i].op, tn, r, a[0].reg);
        else if (hops[i].n == 2)
            fe_emit(L, "%s.%s %%r%d, %%r%d, %%r%d", hops[i].op, tn, r, a[0].reg, a[1].reg);
        else
            fe_emit(L, "%s.%s %%r%d, %%r%d, %%r%d, %%r%d", hops[i].op, tn, r, a[0].reg, a[1].reg, a[2].reg);
        *out = cmp ? fe_rv(fe_ty(TY_BOOL), r) : fe_rv(t, r);
        return true;
    }
    if (strcmp(name, "__builtin_expect") == 0 || strcmp(name, "__builtin_assume_aligned") == 0) {
        if (want_args(L, call, name, 2, 3)) /* hints: the value of the first argument */
            *out = fe_rvalue(L, arg(call, 0));
        return true;
    }
    if (strcmp(name, "__builtin_inff") == 0 || strcmp(name, "__builtin_huge_valf") == 0 ||
        strcmp(name, "__builtin_inf") == 0 || strcmp(name, "__builtin_huge_val") == 0) {
        if (want_args(L, call, name, 0, 0)) /* INFINITY, HUGE_VALF (float); HUGE_VAL (double) */
            *out = fe_const_float(L, strcmp(name, "__builtin_inff") == 0 || strcmp(name, "__builtin_huge_valf") == 0
                                         ? TY_F32 : TY_F64, INFINITY);
        return true;
    }
    if (strcmp(name, "__builtin_nanf") == 0 || strcmp(name, "__builtin_nan") == 0 ||
        strcmp(name, "nanf") == 0 || strcmp(name, "nan") == 0) {
        /* NAN is __builtin_nanf(""): the default quiet NaN (a payload string is not read) */
        if (!want_args(L, call, name, 1, 1))
            return true;
        if (arg(call, 0)->kind != N_STR) {
            fe_error(L->c, call->tok, CVM_UNSUPPORTED, "%s takes a string literal", name);
            return true;
        }
        *out = fe_const_float(L, name[strlen(name) - 1] == 'f' ? TY_F32 : TY_F64, NAN);
        return true;
    }
    if (strcmp(name, "sincosf") == 0 || strcmp(name, "sincos") == 0) {
        /* sincosf(x, &s, &c): the pointers name lvalues; registers after inlining */
        if (!want_args(L, call, name, 3, 3))
            return true;
        fe_type *t = fe_ty(name[6] == 'f' ? TY_F32 : TY_F64);
        fe_val x = fe_convert(L, fe_rvalue(L, arg(call, 0)), t, call->tok);
        for (int i = 1; i <= 2; i++) {
            fe_node *a = arg(call, i);
            fe_val dst;
            if (a->kind == N_UNARY && a->op == '&') {
                dst = fe_gen(L, a->a);
            } else {
                fe_val p = fe_rvalue(L, a);
                dst = (fe_val){p.ty->kind == TY_PTR ? p.ty->base : t, p.reg, LV_MEM, 0, false, false, false, false};
            }
            int r = fe_reg(L, RT(t->kind, 1, 0));
            fe_emit(L, "%s.%s %%r%d, %%r%d", i == 1 ? "sin" : "cos", fe_elem_name(t->kind), r, x.reg);
            fe_store(L, dst, fe_rv(t, r), a->tok);
        }
        *out = fe_rv(fe_ty(TY_VOID), 0);
        return true;
    }
    /* loads and stores with cache hints: the hint has no meaning on the VM */
    static const char *const ld_hint[] = {"__ldg", "__ldcg", "__ldca", "__ldcs", "__ldlu", "__ldcv"};
    static const char *const st_hint[] = {"__stwb", "__stcg", "__stcs", "__stwt"};
    for (size_t i = 0; i < sizeof ld_hint / sizeof ld_hint[0] + sizeof st_hint / sizeof st_hint[0]; i++) {
        bool is_ld = i < sizeof ld_hint / sizeof ld_hint[0];
        if (strcmp(name, is_ld ? ld_hint[i] : st_hint[i - sizeof ld_hint / sizeof ld_hint[0]]) != 0)
            continue;
        if (!want_args(L, call, name, is_ld ? 1 : 2, is_ld ? 1 : 2))
            return true;
        fe_val p = fe_rvalue(L, arg(call, 0));
        if (p.ty->kind != TY_PTR || p.ty->base->kind == TY_VOID) {
            fe_error(L->c, call->tok, CVM_SYNTAX, "%s needs a pointer to a value", name);
            return true;
        }
        fe_val at = {p.ty->base, p.reg, LV_MEM, 0, false, false, false, false};
        if (is_ld) {
            *out = fe_load(L, at);
        } else {
            fe_val v = fe_convert(L, fe_rvalue(L, arg(call, 1)), fe_unqual(p.ty->base), call->tok);
            fe_store(L, at, v, call->tok);
            *out = fe_rv(fe_ty(TY_VOID), 0);
        }
        return true;
    }
    if (strcmp(name, "__saturatef") == 0) {
        if (!want_args(L, call, name, 1, 1))
            return true;
        fe_val a = fe_convert(L, fe_rvalue(L, arg(call, 0)), fe_ty(TY_F32), call->tok);
        fe_val z = fe_const_float(L, TY_F32, 0), o = fe_const_float(L, TY_F32, 1);
        int r = fe_reg(L, RT(TY_F32, 1, 0));
        fe_emit(L, "clamp.f32 %%r%d, %%r%d, %%r%d, %%r%d", r, a.reg, z.reg, o.reg);
        *out = fe_rv(fe_ty(TY_F32), r);
        return true;
    }
    static const struct { const char *name, *op; fe_kind t; } fp[] = {
        {"isnan", "isnan", TY_VOID}, {"isinf", "isinf", TY_VOID}, {"isfinite", "isfinite", TY_VOID},
        {"__isnanf", "isnan", TY_F32}, {"__isinff", "isinf", TY_F32}, {"__finitef", "isfinite", TY_F32},
        {"signbit", "", TY_VOID},
    };
    for (size_t i = 0; i < sizeof fp / sizeof fp[0]; i++) {
        if (strcmp(name, fp[i].name) != 0 || !fp[i].op[0])
            continue;
        if (!want_args(L, call, name, 1, 1))
            return true;
        fe_val a = fe_rvalue(L, arg(call, 0));
        if (!fe_is_float(a.ty))
            a = fe_convert(L, a, fe_ty(TY_F64), call->tok);
        int r = fe_reg(L, RT(TY_BOOL, 1, 0));
        fe_emit(L, "%s.%s %%r%d, %%r%d", fp[i].op, fe_elem_name(fe_unqual(a.ty)->kind), r, a.reg);
        *out = fe_rv(fe_ty(TY_BOOL), r);
        return true;
    }
    if (strcmp(name, "__umulhi") == 0 || strcmp(name, "__mulhi") == 0 || strcmp(name, "__umul64hi") == 0 ||
        strcmp(name, "__mul64hi") == 0) {
        if (!want_args(L, call, name, 2, 2))
            return true;
        fe_kind k = name[2] == 'u' ? (strstr(name, "64") ? TY_U64 : TY_U32) : (strstr(name, "64") ? TY_I64 : TY_I32);
        fe_val a = fe_convert(L, fe_rvalue(L, arg(call, 0)), fe_ty(k), call->tok);
        fe_val b = fe_convert(L, fe_rvalue(L, arg(call, 1)), fe_ty(k), call->tok);
        int r = fe_reg(L, RT(k, 1, 0));
        fe_emit(L, "mulhi.%s %%r%d, %%r%d, %%r%d", fe_elem_name(k), r, a.reg, b.reg);
        *out = fe_rv(fe_ty(k), r);
        return true;
    }
    static const struct { const char *name; fe_kind from, to; } to_half[] = {
        {"__int2half_rn", TY_I32, TY_F16}, {"__uint2half_rn", TY_U32, TY_F16},
        {"__short2half_rn", TY_I16, TY_F16}, {"__ushort2half_rn", TY_U16, TY_F16},
        {"__ll2half_rn", TY_I64, TY_F16}, {"__ull2half_rn", TY_U64, TY_F16}, {"__double2half", TY_F64, TY_F16},
        {"__int2bfloat16_rn", TY_I32, TY_BF16}, {"__uint2bfloat16_rn", TY_U32, TY_BF16},
        {"__short2bfloat16_rn", TY_I16, TY_BF16}, {"__ushort2bfloat16_rn", TY_U16, TY_BF16},
        {"__ll2bfloat16_rn", TY_I64, TY_BF16}, {"__ull2bfloat16_rn", TY_U64, TY_BF16},
        {"__double2bfloat16", TY_F64, TY_BF16}};
    for (size_t i = 0; i < sizeof to_half / sizeof to_half[0]; i++)
        if (strcmp(name, to_half[i].name) == 0) { /* the argument as the named type, then one rounding */
            if (!want_args(L, call, name, 1, 1))
                return true;
            fe_val v = fe_convert(L, fe_rvalue(L, arg(call, 0)), fe_ty(to_half[i].from), call->tok);
            *out = fe_convert(L, v, fe_ty(to_half[i].to), call->tok);
            return true;
        }
    if (strcmp(name, "__nanosleep") == 0) { /* a hint: the VM's planes yield on their own */
        if (!want_args(L, call, name, 1, 1))
            return true;
        fe_rvalue(L, arg(call, 0));
        *out = fe_rv(fe_ty(TY_VOID), 0);
        return true;
    }
    if (strcmp(name, "__float2half") == 0 || strcmp(name, "__float2half_rn") == 0 ||
        strcmp(name, "__half2float") == 0 || strcmp(name, "__float2bfloat16") == 0 ||
        strcmp(name, "__bfloat162float") == 0 || strcmp(name, "__float2bfloat16_rn") == 0 ||
        strcmp(name, "__int2float_rn") == 0 || strcmp(name, "__uint2float_rn") == 0 ||
        strcmp(name, "__double2float_rn") == 0) {
        if (!want_args(L, call, name, 1, 1))
            return true;
        fe_kind k = strstr(name, "2half") ? TY_F16 : strstr(name, "2bfloat16") ? TY_BF16 : TY_F32;
        *out = fe_convert(L, fe_rvalue(L, arg(call, 0)), fe_ty(k), call->tok);
        return true;
    }
    if (strcmp(name, "__trap") == 0 || strcmp(name, "abort") == 0) {
        fe_emit(L, "trap \"__trap() at %s:%u\"", fe_escape(L->c, L->c->files[call->tok->file]), call->tok->line);
        *out = fe_rv(fe_ty(TY_VOID), 0);
        return true;
    }
    if (strcmp(name, "malloc") == 0 || strcmp(name, "free") == 0) {
        fe_error(L->c, call->tok, CVM_UNSUPPORTED, "device-side malloc is not supported in kernels");
        return true;
    }
    return false;
}

/*
 * printf's format with each `%s` of a string literal folded in (its width
 * and precision applied, a % in it doubled); keep[] gets the arguments the
 * other conversions take, in order (a `*` width or precision takes one of
 * its own). False after an error.
 */
static bool printf_fold(fe_lower *L, fe_node *call, const fe_node *f, fe_buf *fmt, fe_node **keep,
                        unsigned *nkeep)
{
    fe_node *a = f->next;
    for (const char *p = f->name; *p;) {
        size_t j = 1;
        if (*p != '%' || p[1] == '%') {
            j = *p == '%' ? 2 : 1;
            fe_buf_add(L->c, fmt, p, j);
            p += j;
            continue;
        }
        unsigned stars = 0;
        while (p[j] && strchr("-+ #0123456789.*", p[j]))
            stars += p[j++] == '*';
        size_t flags = j;
        while (p[j] && strchr("hlLqjzt", p[j]))
            j++;
        if (p[j] == 's' && stars) {
            fe_error(L->c, call->tok, CVM_UNSUPPORTED, "printf's %%s with a '*' width or precision is not supported");
            return false;
        }
        for (; stars && a; stars--, a = a->next)
            keep[(*nkeep)++] = a;
        if (p[j] != 's' || !a) { /* the VM formats it, or says it is missing */
            j += p[j] != 0;
            fe_buf_add(L->c, fmt, p, j);
            p += j;
            if (a)
                keep[(*nkeep)++] = a;
            a = a ? a->next : NULL;
            continue;
        }
        if (a->kind != N_STR || flags > 20) {
            fe_error(L->c, a->tok, CVM_UNSUPPORTED,
                     "printf's %%s takes a string literal (the string behind a pointer is not read)");
            return false;
        }
        char spec[32], text[1024];
        snprintf(spec, sizeof spec, "%.*ss", (int)flags, p);
        snprintf(text, sizeof text, spec, a->name);
        for (const char *t = text; *t; t++) /* a % of the text is no conversion */
            fe_buf_add(L->c, fmt, *t == '%' ? "%%" : t, *t == '%' ? 2 : 1);
        p += j + 1;
        a = a->next;
    }
    for (; a; a = a->next)
        keep[(*nkeep)++] = a;
    return true;
}

/* printf(format, ...): one `print` with the format as a .cbs string and the
 * arguments after C's default promotions. */
static void printf_call(fe_lower *L, fe_node *call)
{
    fe_node *f = call->args, *keep[256];
    if (!f || f->kind != N_STR) {
        fe_error(L->c, call->tok, CVM_UNSUPPORTED, "printf needs a string literal format");
        return;
    }
    unsigned nkeep = 0, nargs = 0;
    for (fe_node *x = f->next; x; x = x->next)
        nargs++;
    if (nargs > 253) { /* print's operand words: the format, then the arguments */
        fe_error(L->c, call->tok, CVM_LIMIT, "too many printf arguments (%u; at most 253)", nargs);
        return;
    }
    fe_buf fmt = {0}, regs = {0}, s = {0};
    if (printf_fold(L, call, f, &fmt, keep, &nkeep)) {
        for (unsigned i = 0; i < nkeep; i++) {
            fe_val v = fe_rvalue(L, keep[i]);
            if (fe_is_float(v.ty) && v.ty->kind != TY_F64)
                v = fe_convert(L, v, fe_ty(TY_F64), keep[i]->tok); /* C's default promotions */
            else if (fe_is_int(v.ty) && v.ty->size < 4)
                v = fe_convert(L, v, fe_ty(TY_I32), keep[i]->tok);
            fe_buf_printf(L->c, &regs, ", %%r%d", v.reg);
        }
        /* the format as a .cbs string: escape quotes, backslashes and control bytes */
        for (const char *p = fmt.p ? fmt.p : ""; *p; p++) {
            unsigned char ch = (unsigned char)*p;
            if (ch == '"' || ch == '\\')
                fe_buf_printf(L->c, &s, "\\%c", ch);
            else if (ch == '\n')
                fe_buf_add(L->c, &s, "\\n", 2);
            else if (ch < 32 || ch >= 127)
                fe_buf_printf(L->c, &s, "\\x%02x", ch);
            else
                fe_buf_add(L->c, &s, (const char *)&ch, 1);
        }
        fe_buf_printf(L->c, &L->body, "    print \"%s\"%s\n", s.p ? s.p : "", regs.p ? regs.p : "");
        L->ninsn++;
    }
    fe_buf_free(L->c, &s);
    fe_buf_free(L->c, &fmt);
    fe_buf_free(L->c, &regs);
}

static bool print_call(fe_lower *L, fe_node *call, const char *name, fe_val *out)
{
    *out = fe_rv(fe_ty(TY_I32), 0);
    if (strcmp(name, "printf") == 0) {
        printf_call(L, call);
        return true;
    }
    if (strcmp(name, "assert") == 0 || strcmp(name, "__assert") == 0) {
        if (!want_args(L, call, name, 1, 1))
            return true;
        fe_val c = fe_cond_bool(L, call->args);
        fe_emit(L, "assert %%r%d, \"%s:%u\"", c.reg, fe_escape(L->c, L->c->files[call->tok->file]),
                call->tok->line);
        *out = fe_rv(fe_ty(TY_VOID), 0);
        return true;
    }
    if (strcmp(name, "__cvm_assert") == 0) { /* <assert.h>'s assert(e): (e, #e, __FILE__, __LINE__) */
        if (!want_args(L, call, name, 4, 4))
            return true;
        fe_node *text = arg(call, 1);
        fe_val c = fe_cond_bool(L, call->args);
        fe_emit(L, "assert %%r%d, \"%s:%u: `%s`\"", c.reg, fe_escape(L->c, L->c->files[call->tok->file]),
                call->tok->line, text->kind == N_STR ? fe_escape(L->c, text->name) : "?");
        *out = fe_rv(fe_ty(TY_VOID), 0);
        return true;
    }
    return false;
}

/* The warp functions before CUDA 9 (__shfl_down(v, d), __ballot(p), ...):
 * their _sync form with the full mask, as they behave on a converged warp. */
static bool legacy_warp_call(fe_lower *L, fe_node *call, const char *name, fe_val *out)
{
    static const char *const legacy[] = {"__shfl", "__shfl_up", "__shfl_down", "__shfl_xor",
                                         "__any", "__all", "__ballot"};
    for (size_t i = 0; i < sizeof legacy / sizeof legacy[0]; i++) {
        if (strcmp(name, legacy[i]) != 0)
            continue;
        fe_node *mask = fe_alloc(L->c, sizeof *mask), *callee = fe_alloc(L->c, sizeof *callee);
        fe_node *sync = fe_alloc(L->c, sizeof *sync);
        if (!mask || !callee || !sync)
            return true;
        *mask = (fe_node){.kind = N_INT, .tok = call->tok, .ival = 0xffffffffu, .is_unsigned = true,
                          .next = call->args};
        *callee = *call->a;
        callee->name = fe_fmt(L->c, "%s_sync", name);
        *sync = *call;
        sync->a = callee;
        sync->args = mask;
        return fe_builtin_call(L, sync, callee->name, out);
    }
    return false;
}

/* x of float type k converted to f (a float or int kind) */
static int conv(fe_lower *L, fe_node *call, fe_kind from, int x, fe_kind to)
{
    return fe_convert(L, fe_rv(fe_ty(from), x), fe_ty(to), call->tok).reg;
}

/*
 * Float-to-integer conversions with a rounding mode,
 * __{float,double}2{int,uint,ll,ull}_{rn,rz,rd,ru} and lrint, llrint,
 * lround, llround (f or double): the rounding op (rint, trunc, floor,
 * ceil, round) then cvt, which saturates and takes NaN to 0 as PTX's
 * cvt.rni/rzi/rmi/rpi do.
 */
static bool round_convert_call(fe_lower *L, fe_node *call, const char *name, fe_val *out)
{
    static const struct { const char *prefix; fe_kind from; } from[] = {
        {"__float2", TY_F32}, {"__double2", TY_F64}, {"__half2", TY_F16}, {"__bfloat162", TY_BF16}};
    static const struct { const char *name; fe_kind to; } to[] = {
        {"int_", TY_I32}, {"uint_", TY_U32}, {"ll_", TY_I64}, {"ull_", TY_U64}, {"short_", TY_I16},
        {"ushort_", TY_U16}};
    static const struct { const char *suffix, *op; } mode[] = {
        {"rn", "rint"}, {"rz", "trunc"}, {"rd", "floor"}, {"ru", "ceil"}};
    fe_kind fk = TY_VOID, tk = TY_VOID;
    const char *op = NULL;
    for (size_t i = 0; i < sizeof from / sizeof from[0] && !op; i++) {
        size_t n = strlen(from[i].prefix);
        if (strncmp(name, from[i].prefix, n) != 0)
            continue;
        for (size_t j = 0; j < 6 && !op; j++) {
            if (to[j].to == TY_I16 || to[j].to == TY_U16) /* __half2short_rz: of half and bf16 only */
                if (from[i].from != TY_F16 && from[i].from != TY_BF16)
                    continue;
            size_t m = strlen(to[j].name);
            if (strncmp(name + n, to[j].name, m) != 0)
                continue;
            for (size_t k = 0; k < 4 && !op; k++)
                if (strcmp(name + n + m, mode[k].suffix) == 0)
                    fk = from[i].from, tk = to[j].to, op = mode[k].op;
        }
    }
    static const struct { const char *name, *op; fe_kind to; } lr[] = {
        {"lrint", "rint", TY_I64}, {"llrint", "rint", TY_I64}, {"lround", "round", TY_I64},
        {"llround", "round", TY_I64}};
    for (size_t i = 0; i < sizeof lr / sizeof lr[0] && !op; i++) {
        size_t n = strlen(lr[i].name);
        if (strncmp(name, lr[i].name, n) == 0 && (!name[n] || (name[n] == 'f' && !name[n + 1])))
            fk = name[n] ? TY_F32 : TY_F64, tk = lr[i].to, op = lr[i].op;
    }
    if (!op)
        return false;
    if (!want_args(L, call, name, 1, 1))
        return true;
    int x = fe_convert(L, fe_rvalue(L, arg(call, 0)), fe_ty(fk), call->tok).reg;
    if (fk == TY_F16 || fk == TY_BF16) /* a half or bf16 is exact in float: round there */
        x = conv(L, call, fk, x, TY_F32), fk = TY_F32;
    *out = fe_rv(fe_ty(tk), conv(L, call, fk, op1(L, op, fk, x), tk));
    return true;
}

/*
 * Math functions built from other ops: fdim (x - y when x > y, +0
 * otherwise, NaN when either is), signbit (the sign bit, as an int),
 * ldexpf and scalbnf (x * 2^n with one rounding: the product of x and 2^n
 * is exact in double for n clamped to [-300, 300], which any float
 * result saturates within), exp10 (pow(10, x): the same value, within
 * pow's bounds), __fdividef (a correctly rounded x / y, except that for
 * 2^126 < |y| < 2^128 it gives x * +-0, 0 or NaN, as the Programming
 * Guide says the GPU's does).
 */
static bool built_math_call(fe_lower *L, fe_node *call, const char *name, fe_val *out)
{
    const bool fdim = strcmp(name, "fdim") == 0 || strcmp(name, "fdimf") == 0;
    const bool ldexp = strcmp(name, "ldexpf") == 0 || strcmp(name, "scalbnf") == 0;
    const bool exp10 = strcmp(name, "exp10") == 0 || strcmp(name, "exp10f") == 0 ||
                       strcmp(name, "__exp10f") == 0;
    const bool signbit = strcmp(name, "signbit") == 0, fdividef = strcmp(name, "__fdividef") == 0;
    if (!fdim && !ldexp && !exp10 && !signbit && !fdividef)
        return false;
    const int nargs = fdim || ldexp || fdividef ? 2 : 1;
    if (!want_args(L, call, name, nargs, nargs))
        return true;
    fe_val a = fe_rvalue(L, arg(call, 0));
    fe_kind k = name[strlen(name) - 1] == 'f' || (fe_is_float(a.ty) && fe_unqual(a.ty)->kind == TY_F32)
                    ? TY_F32 : TY_F64;
    int x = fe_convert(L, a, fe_ty(k), call->tok).reg;
    if (signbit) {
        fe_kind u = k == TY_F32 ? TY_U32 : TY_U64;
        int bits = fe_reg(L, RT(u, 1, 0));
        fe_emit(L, "bitcast.%s %%r%d, %%r%d", fe_elem_name(u), bits, x);
        int sb = op2(L, "shr", u, bits, kint(L, u, k == TY_F32 ? 31 : 63));
        *out = fe_convert(L, fe_rv(fe_ty(u), sb), fe_ty(TY_I32), call->tok);
        return true;
    }
    if (exp10) {
        *out = fe_rv(fe_ty(k), op2(L, "pow", k, fe_const_float(L, k, 10.0).reg, x));
        return true;
    }
    if (fdividef) { /* x / y, but x * (+-0) for 2^126 < |y| < 2^128, as CUDA documents */
        int y = fe_convert(L, fe_rvalue(L, arg(call, 1)), fe_ty(TY_F32), call->tok).reg;
        int ay = op1(L, "abs", TY_F32, y);
        int big = op2(L, "and", TY_BOOL, cmp2(L, "gt", TY_F32, ay, fe_const_float(L, TY_F32, 0x1p126).reg),
                      cmp2(L, "lt", TY_F32, ay, fe_const_float(L, TY_F32, INFINITY).reg));
        int zero = op2(L, "copysign", TY_F32, fe_const_float(L, TY_F32, 0.0).reg, y);
        *out = fe_rv(fe_ty(TY_F32), pick(L, TY_F32, big, op2(L, "mul", TY_F32, x, zero), op2(L, "div", TY_F32, x, y)));
        return true;
    }
    if (fdim) {
        int y = fe_convert(L, fe_rvalue(L, arg(call, 1)), fe_ty(k), call->tok).reg;
        int diff = pick(L, k, cmp2(L, "gt", k, x, y), op2(L, "sub", k, x, y), fe_const_float(L, k, 0.0).reg);
        int nan = op2(L, "or", TY_BOOL, cmp2(L, "ne", k, x, x), cmp2(L, "ne", k, y, y));
        *out = fe_rv(fe_ty(k), pick(L, k, nan, op2(L, "add", k, x, y), diff));
        return true;
    }
    int n = fe_convert(L, fe_rvalue(L, arg(call, 1)), fe_ty(TY_I32), call->tok).reg;
    n = op2(L, "max", TY_I32, op2(L, "min", TY_I32, n, kint(L, TY_I32, 300)), kint(L, TY_I32, -300));
    int e = conv(L, call, TY_I32, op2(L, "add", TY_I32, n, kint(L, TY_I32, 1023)), TY_U64);
    int pw = fe_reg(L, RT(TY_F64, 1, 0));
    fe_emit(L, "bitcast.f64 %%r%d, %%r%d", pw, op2(L, "shl", TY_U64, e, kint(L, TY_U64, 52)));
    int prod = op2(L, "mul", TY_F64, conv(L, call, TY_F32, x, TY_F64), pw);
    *out = fe_rv(fe_ty(TY_F32), conv(L, call, TY_F64, prod, TY_F32));
    return true;
}

/* A char4 or uchar4 as its four bytes in one int or unsigned (byte 0 the
 * lowest, as in memory); any other value as it is. */
static fe_val bytes_as_word(fe_lower *L, fe_val v)
{
    const fe_type *t = fe_unqual(v.ty);
    if (t->kind != TY_VEC || t->len * t->base->size != 4 || !fe_is_int(t->base))
        return v; /* char4, uchar4, short2, ushort2 */
    const fe_kind k = fe_is_signed(t->base) ? TY_I32 : TY_U32;
    int r = fe_reg(L, RT(k, 1, 0));
    fe_emit(L, "bitcast.%s %%r%d, %%r%d", fe_elem_name(k), r, v.reg);
    return fe_rv(fe_ty(k), r);
}

/*
 * __funnelshift_l/lc/r/rc(lo, hi, s): the high (l) or low (r) 32 bits of
 * the 64-bit hi:lo shifted by s & 31 (lc, rc: by min(s, 32)); __dp4a(a,
 * b, c): c plus the four products of a's and b's bytes (signed for int
 * or char4 operands, unsigned for unsigned or uchar4 ones); __dp2a_lo/hi
 * (a, b, c): c plus the products of a's two 16-bit halves with b's bytes
 * 0 and 1 (lo) or 2 and 3 (hi), signed alike (int, short2, char4).
 */
static bool int_extra_call(fe_lower *L, fe_node *call, const char *name, fe_val *out)
{
    if (strncmp(name, "__funnelshift_", 14) == 0) {
        const char *m = name + 14;
        const bool left = m[0] == 'l', clamp = m[1] == 'c';
        if ((m[0] != 'l' && m[0] != 'r') || (m[1] && (m[1] != 'c' || m[2])))
            return false;
        if (!want_args(L, call, name, 3, 3))
            return true;
        int lo = fe_convert(L, fe_rvalue(L, arg(call, 0)), fe_ty(TY_U32), call->tok).reg;
        int hi = fe_convert(L, fe_rvalue(L, arg(call, 1)), fe_ty(TY_U32), call->tok).reg;
        int sh = fe_convert(L, fe_rvalue(L, arg(call, 2)), fe_ty(TY_U32), call->tok).reg;
        sh = clamp ? op2(L, "min", TY_U32, sh, kint(L, TY_U32, 32)) : op2(L, "and", TY_U32, sh, kint(L, TY_U32, 31));
        int v = op2(L, "or", TY_U64, op2(L, "shl", TY_U64, conv(L, call, TY_U32, hi, TY_U64), kint(L, TY_U64, 32)),
                    conv(L, call, TY_U32, lo, TY_U64));
        int s64 = conv(L, call, TY_U32, sh, TY_U64);
        int r = left ? op2(L, "shr", TY_U64, op2(L, "shl", TY_U64, v, s64), kint(L, TY_U64, 32))
                     : op2(L, "shr", TY_U64, v, s64);
        *out = fe_rv(fe_ty(TY_U32), conv(L, call, TY_U64, r, TY_U32));
        return true;
    }
    const bool dp2 = strcmp(name, "__dp2a_lo") == 0 || strcmp(name, "__dp2a_hi") == 0;
    if (strcmp(name, "__dp4a") != 0 && !dp2)
        return false;
    if (!want_args(L, call, name, 3, 3))
        return true;
    fe_val a = bytes_as_word(L, fe_rvalue(L, arg(call, 0))), b = bytes_as_word(L, fe_rvalue(L, arg(call, 1)));
    const bool sgn = !(fe_is_int(a.ty) && !fe_is_signed(a.ty) && fe_is_int(b.ty) && !fe_is_signed(b.ty));
    const fe_kind k = sgn ? TY_I32 : TY_U32;
    int x = fe_convert(L, a, fe_ty(k), call->tok).reg, y = fe_convert(L, b, fe_ty(k), call->tok).reg;
    int acc = fe_convert(L, fe_rvalue(L, arg(call, 2)), fe_ty(k), call->tok).reg;
    const int first = dp2 && name[7] == 'h' ? 2 : 0; /* b's first byte */
    for (int i = 0; i < (dp2 ? 2 : 4); i++) { /* a field to the top, then back down: shr of i32 is arithmetic */
        const int abits = dp2 ? 16 : 8;
        int xi = op2(L, "shr", k, op2(L, "shl", k, x, kint(L, TY_U32, 32 - abits * (i + 1))),
                     kint(L, TY_U32, 32 - abits));
        int yi = op2(L, "shr", k, op2(L, "shl", k, y, kint(L, TY_U32, 24 - 8 * (first + i))), kint(L, TY_U32, 24));
        acc = op2(L, "add", k, acc, op2(L, "mul", k, xi, yi));
    }
    *out = fe_rv(fe_ty(k), acc);
    return true;
}

bool fe_builtin_call(fe_lower *L, fe_node *call, const char *name, fe_val *out)
{
    static const char *const rejected[] = {"cudaMalloc", "cudaDeviceSynchronize", "cudaMemcpy"};
    memset(out, 0, sizeof *out);
    bool handled = false;
    for (size_t i = 0; i < sizeof rejected / sizeof rejected[0] && !handled; i++)
        if (strcmp(name, rejected[i]) == 0) {
            fe_error(L->c, call->tok, CVM_UNSUPPORTED, "'%s' is a host API function; not callable in kernels", name);
            handled = true;
        }
    handled = handled || sync_call(L, call, name, out) || atomic_call(L, call, name, out) ||
              warp_call(L, call, name, out) || bits_call(L, call, name, out) ||
              int_misc_call(L, call, name, out) || bitcast_call(L, call, name, out) ||
              minmax_call(L, call, name, out) || round_convert_call(L, call, name, out) ||
              built_math_call(L, call, name, out) || int_extra_call(L, call, name, out) ||
              math_call(L, call, name, out) || print_call(L, call, name, out) ||
              fe_half2_call(L, call, name, out) || misc_call(L, call, name, out) ||
              fe_cg_call(L, call, name, out) || legacy_warp_call(L, call, name, out);
    /* a call reported as an error still has a value its caller can use */
    if (handled && !out->ty)
        *out = fe_zero(L);
    return handled;
}

