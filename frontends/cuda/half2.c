/*
 * half2.c - the paired half types of cuda_fp16.h and cuda_bf16.h:
 * __half2 and __nv_bfloat162 are lines of two f16 (bf16) elements, so
 * the paired intrinsics (__hadd2, __hfma2 ...) and the h2 operators are
 * one element-wise instruction on the line, each element rounded once as
 * the scalar __hadd would round it. Conversions to and from float pairs
 * are cvt on lines; the halves are extract/build.
 */
#include "lower.h"

#include <string.h>

static fe_val bad(fe_lower *L) { return fe_rv(fe_ty(TY_I32), fe_reg(L, RT(TY_I32, 1, 0))); }

bool fe_is_half_pair(const fe_type *t)
{
    return t && t->kind == TY_VEC && t->len == 2 && (t->base->kind == TY_F16 || t->base->kind == TY_BF16);
}

/* the pair type of element kind k (__half2 or __nv_bfloat162) */
static fe_type *pair_of(fe_lower *L, fe_kind k)
{
    return fe_lookup_type(L->c, k == TY_BF16 ? "__nv_bfloat162" : "__half2");
}

static fe_node *nth(fe_node *call, int i)
{
    fe_node *a = call->args;
    while (a && i-- > 0)
        a = a->next;
    return a;
}

static bool nargs_ok(fe_lower *L, fe_node *call, const char *name, int n)
{
    int k = 0;
    for (fe_node *a = call->args; a; a = a->next)
        k++;
    if (k != n) {
        fe_error(L->c, call->tok, CVM_SYNTAX, "'%s' takes %d argument%s, %d given", name, n, n == 1 ? "" : "s", k);
        return false;
    }
    return true;
}

/* a pair argument; pt: the pair type wanted, or NULL to take the argument's own */
static fe_val pair_arg(fe_lower *L, fe_node *a, fe_type *pt)
{
    fe_val v = fe_rvalue(L, a);
    if (L->c->err)
        return bad(L);
    if (!fe_is_half_pair(v.ty) || (pt && v.ty->base->kind != pt->base->kind)) {
        char s[128];
        fe_type_str(v.ty, s, sizeof s);
        fe_error(L->c, a->tok, CVM_SYNTAX, "'%s' is not %s", s, pt ? pt->name : "a __half2 or __nv_bfloat162");
        return bad(L);
    }
    return v;
}

static fe_val build(fe_lower *L, fe_type *pt, fe_val lo, fe_val hi, const fe_tok *at)
{
    lo = fe_convert(L, lo, pt->base, at);
    hi = fe_convert(L, hi, pt->base, at);
    int r = fe_reg(L, fe_rtype_of(L, pt, 0));
    fe_emit(L, "build.%s %%r%d, %%r%d, %%r%d", fe_tname_of(L, r), r, lo.reg, hi.reg);
    return fe_rv(pt, r);
}

static fe_val half_of(fe_lower *L, fe_val p, int idx)
{
    int r = fe_reg(L, fe_rtype_of(L, p.ty->base, 0));
    fe_emit(L, "extract.%s %%r%d, %%r%d, %d", fe_tname_of(L, r), r, p.reg, idx);
    return fe_rv(p.ty->base, r);
}

/* element-wise a OP b (OP: add sub mul div max min), or -a, |a| */
static fe_val pair_op(fe_lower *L, const char *op, fe_val *v, int n)
{
    int r = fe_reg(L, fe_rtype_of(L, v[0].ty, 0));
    const char *tn = fe_tname_of(L, r);
    if (n == 1)
        fe_emit(L, "%s.%s %%r%d, %%r%d", op, tn, r, v[0].reg);
    else if (n == 2)
        fe_emit(L, "%s.%s %%r%d, %%r%d, %%r%d", op, tn, r, v[0].reg, v[1].reg);
    else
        fe_emit(L, "%s.%s %%r%d, %%r%d, %%r%d, %%r%d", op, tn, r, v[0].reg, v[1].reg, v[2].reg);
    return fe_rv(fe_unqual(v[0].ty), r);
}

fe_val fe_half2_binop(fe_lower *L, int op, fe_val a, fe_val b, const fe_tok *at)
{
    const char *name = op == '+' ? "add" : op == '-' ? "sub" : op == '*' ? "mul" : op == '/' ? "div" : NULL;
    bool cmp = op == '<' || op == '>' || op == FE_OP2('<', '=') || op == FE_OP2('>', '=') ||
               op == FE_OP2('=', '=') || op == FE_OP2('!', '=');
    if (cmp && fe_is_half_pair(a.ty) && fe_is_half_pair(b.ty)) {
        fe_error(L->c, at, CVM_UNSUPPORTED, "comparisons of paired halves (__half2, __nv_bfloat162) are not "
                 "supported in kernels; compare the halves (__low2half, __high2half)");
        return bad(L);
    }
    if (!name || !fe_is_half_pair(a.ty) || !fe_is_half_pair(b.ty) || a.ty->base->kind != b.ty->base->kind) {
        char s[128], t[128];
        fe_type_str(a.ty, s, sizeof s);
        fe_type_str(b.ty, t, sizeof t);
        fe_error(L->c, at, CVM_SYNTAX, "invalid operands to a binary operator ('%s' and '%s')", s, t);
        return bad(L);
    }
    fe_val v[2] = {fe_load(L, a), fe_load(L, b)};
    return pair_op(L, name, v, 2);
}

fe_val fe_half2_neg(fe_lower *L, fe_val a)
{
    fe_val v = fe_load(L, a);
    return pair_op(L, "neg", &v, 1);
}

/* element-wise intrinsics on pairs of either kind */
static bool arith_call(fe_lower *L, fe_node *call, const char *name, fe_val *out)
{
    static const struct { const char *name, *op; int n; } tab[] = {
        {"__hadd2", "add", 2}, {"__hsub2", "sub", 2}, {"__hmul2", "mul", 2}, {"__h2div", "div", 2},
        {"__hfma2", "fma", 3}, {"__hneg2", "neg", 1}, {"__habs2", "abs", 1}, {"__hmax2", "max", 2},
        {"__hmin2", "min", 2}, {"__hadd2_rn", "add", 2}, {"__hmul2_rn", "mul", 2},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        if (strcmp(name, tab[i].name) != 0)
            continue;
        if (!nargs_ok(L, call, name, tab[i].n))
            return true;
        fe_val v[3];
        for (int j = 0; j < tab[i].n && !L->c->err; j++)
            v[j] = pair_arg(L, nth(call, j), j ? v[0].ty : NULL);
        *out = L->c->err ? bad(L) : pair_op(L, tab[i].op, v, tab[i].n);
        return true;
    }
    return false;
}

/* making pairs: from two halves, two floats, one value twice, a float2 */
static bool make_call(fe_lower *L, fe_node *call, const char *name, fe_val *out)
{
    static const struct { const char *name; fe_kind k; int n; } tab[] = {
        {"__halves2half2", TY_F16, 2}, {"__floats2half2_rn", TY_F16, 2}, {"make_half2", TY_F16, 2},
        {"__float2half2_rn", TY_F16, 1}, {"__half2half2", TY_F16, 1}, {"__halves2bfloat162", TY_BF16, 2},
        {"__floats2bfloat162_rn", TY_BF16, 2}, {"make_bfloat162", TY_BF16, 2},
        {"__float2bfloat162_rn", TY_BF16, 1}, {"__bfloat162bfloat162", TY_BF16, 1},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        if (strcmp(name, tab[i].name) != 0)
            continue;
        if (!nargs_ok(L, call, name, tab[i].n))
            return true;
        fe_type *pt = pair_of(L, tab[i].k);
        fe_val lo = fe_rvalue(L, nth(call, 0));
        fe_val hi = tab[i].n == 2 ? fe_rvalue(L, nth(call, 1)) : lo;
        *out = L->c->err ? bad(L) : build(L, pt, lo, hi, call->tok);
        return true;
    }
    return false;
}

/* float2 <-> pair conversions (each element rounded to nearest even) */
static bool float2_call(fe_lower *L, fe_node *call, const char *name, fe_val *out)
{
    bool to_pair = strcmp(name, "__float22half2_rn") == 0 || strcmp(name, "__float22bfloat162_rn") == 0;
    bool from_pair = strcmp(name, "__half22float2") == 0 || strcmp(name, "__bfloat1622float2") == 0;
    if (!to_pair && !from_pair)
        return false;
    if (!nargs_ok(L, call, name, 1))
        return true;
    fe_type *f2 = fe_lookup_type(L->c, "float2");
    fe_type *to = to_pair ? pair_of(L, strstr(name, "bfloat") ? TY_BF16 : TY_F16) : f2;
    fe_val v = from_pair ? pair_arg(L, call->args, pair_of(L, strstr(name, "bfloat") ? TY_BF16 : TY_F16))
                         : fe_rvalue(L, call->args);
    if (L->c->err) {
        *out = bad(L);
        return true;
    }
    if (to_pair && !fe_same_type(fe_unqual(v.ty), f2)) {
        fe_error(L->c, call->args->tok, CVM_SYNTAX, "'%s' takes a float2", name);
        *out = bad(L);
        return true;
    }
    int r = fe_reg(L, fe_rtype_of(L, to, 0));
    fe_emit(L, "cvt.%s %%r%d, %%r%d", fe_tname_of(L, r), r, v.reg);
    *out = fe_rv(to, r);
    return true;
}

/* taking pairs apart and recombining halves */
static bool halves_call(fe_lower *L, fe_node *call, const char *name, fe_val *out)
{
    static const struct { const char *name; int lo, hi, n; bool f32; } tab[] = {
        /* lo/hi: which half of which argument (arg * 2 + half); hi < 0: a scalar result */
        {"__low2half", 0, -1, 1, false}, {"__high2half", 1, -1, 1, false},
        {"__low2bfloat16", 0, -1, 1, false}, {"__high2bfloat16", 1, -1, 1, false},
        {"__low2float", 0, -1, 1, true}, {"__high2float", 1, -1, 1, true},
        {"__low2half2", 0, 0, 1, false}, {"__high2half2", 1, 1, 1, false},
        {"__low2bfloat162", 0, 0, 1, false}, {"__high2bfloat162", 1, 1, 1, false},
        {"__lowhigh2highlow", 1, 0, 1, false}, {"__lows2half2", 0, 2, 2, false},
        {"__highs2half2", 1, 3, 2, false}, {"__lows2bfloat162", 0, 2, 2, false},
        {"__highs2bfloat162", 1, 3, 2, false},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        if (strcmp(name, tab[i].name) != 0)
            continue;
        if (!nargs_ok(L, call, name, tab[i].n))
            return true;
        fe_val p[2];
        for (int j = 0; j < tab[i].n && !L->c->err; j++)
            p[j] = pair_arg(L, nth(call, j), j ? p[0].ty : NULL);
        if (L->c->err) {
            *out = bad(L);
            return true;
        }
        fe_val lo = half_of(L, p[tab[i].lo / 2], tab[i].lo % 2);
        if (tab[i].hi < 0)
            *out = tab[i].f32 ? fe_convert(L, lo, fe_ty(TY_F32), call->tok) : lo;
        else
            *out = build(L, fe_unqual(p[0].ty), lo, half_of(L, p[tab[i].hi / 2], tab[i].hi % 2), call->tok);
        return true;
    }
    return false;
}

bool fe_half2_call(fe_lower *L, fe_node *call, const char *name, fe_val *out)
{
    if (strncmp(name, "__", 2) != 0 && strncmp(name, "make_", 5) != 0)
        return false;
    return arith_call(L, call, name, out) || make_call(L, call, name, out) || float2_call(L, call, name, out) ||
           halves_call(L, call, name, out);
}
