/*
 * lower_expr.c - expressions to .cbs instructions (docs/lowering.md,
 * "Expressions", "Memory"): pointer arithmetic as ptr.add of byte offsets,
 * members and elements, operators, and short-circuit operators that never
 * evaluate a memory read, a call or a side effect speculatively
 * (if-lowering). Conversions, loads and stores are lower_conv.c's, calls
 * lower_call.c's.
 */
#include "lower.h"

#include <math.h>
#include <string.h>

fe_val fe_zero(fe_lower *L)
{
    fe_val z = fe_const_int(L, TY_I32, 0);
    z.fill = true;
    z.is_null = true; /* `int *p = {}` */
    return z;
}

fe_val fe_const_int(fe_lower *L, fe_kind k, int64_t v)
{
    fe_type *t = fe_ty(k);
    int r = fe_reg(L, fe_rtype_of(L, t, 0));
    if (k == TY_BOOL)
        fe_emit(L, "const.bool %%r%d, %d", r, v != 0);
    else if (fe_is_signed(t))
        fe_emit(L, "const.%s %%r%d, %lld", fe_elem_name(k), r, (long long)v);
    else if (k >= TY_F16)
        return fe_const_float(L, k, (double)v);
    else {
        uint64_t mask = t->size == 8 ? ~0ull : ((1ull << (t->size * 8)) - 1);
        fe_emit(L, "const.%s %%r%d, %llu", fe_elem_name(k), r, (unsigned long long)((uint64_t)v & mask));
    }
    return fe_rv(t, r);
}

fe_val fe_const_float(fe_lower *L, fe_kind k, double v)
{
    fe_type *t = fe_ty(k);
    int r = fe_reg(L, fe_rtype_of(L, t, 0));
    if (isnan(v))
        fe_emit(L, "const.%s %%r%d, nan", fe_elem_name(k), r);
    else if (isinf(v))
        fe_emit(L, "const.%s %%r%d, %sinf", fe_elem_name(k), r, v < 0 ? "-" : "");
    else
        fe_emit(L, "const.%s %%r%d, %a", fe_elem_name(k), r, k == TY_F32 ? (double)(float)v : v);
    return fe_rv(t, r);
}

fe_var *fe_lookup(fe_lower *L, const char *name)
{
    for (fe_var *v = L->vars; v; v = v->next)
        if (strcmp(v->name, name) == 0)
            return v;
    return NULL;
}

/* The address of a memory variable (shared, local, symbols), made at its use. */
fe_val fe_addr_of_var(fe_lower *L, fe_var *v)
{
    if (!v->mem)
        return v->val;
    fe_val a = {v->ty, 0, LV_MEM, 0, v->ty->is_volatile, false, false, false};
    switch (v->mem) {
    case MEM_SHARED:
    case MEM_LOCAL: {
        int sp = v->mem == MEM_SHARED ? SP_SHARED : SP_LOCAL;
        a.reg = fe_reg(L, RT(TY_PTR, 1, sp));
        fe_emit(L, "const.%s %%r%d, %u", fe_tname_of(L, a.reg), a.reg,
                v->decl ? fe_shared_offset(L, v->decl) : v->offset);
        break;
    }
    case MEM_DYNSHARED: {
        int o = fe_reg(L, RT(TY_I32, 1, 0)), z = fe_reg(L, RT(TY_PTR, 1, SP_SHARED));
        a.reg = fe_reg(L, RT(TY_PTR, 1, SP_SHARED));
        fe_emit(L, "sreg.i32 %%r%d, dyn_shared_base", o);
        fe_emit(L, "const.ptr.shared %%r%d, 0", z);
        fe_emit(L, "ptr.add.ptr.shared %%r%d, %%r%d, %%r%d", a.reg, z, o);
        break;
    }
    default: {
        int sp = v->mem == MEM_GSYM ? SP_GLOBAL : SP_CONST;
        a.reg = fe_reg(L, RT(TY_PTR, 1, sp));
        fe_emit(L, "sym.%s %%r%d, %s", fe_tname_of(L, a.reg), a.reg, v->sym);
        break;
    }
    }
    return a;
}

/* ---- pointers ---- */

fe_val fe_ptr_add(fe_lower *L, fe_val p, fe_val idx, int sign, const fe_tok *at)
{
    /* p is an address (LV_MEM or pointer rvalue); idx a byte offset when p.ty is not a pointer */
    fe_val off = fe_convert(L, idx, fe_ty(TY_I64), at);
    uint32_t scale = 1;
    if (p.lv == LV_NONE && p.ty->kind == TY_PTR)
        scale = p.ty->base->size ? p.ty->base->size : 1;
    if (scale != 1) {
        fe_val s = fe_const_int(L, TY_I64, scale);
        int r = fe_reg(L, RT(TY_I64, 1, 0));
        fe_emit(L, "mul.i64 %%r%d, %%r%d, %%r%d", r, off.reg, s.reg);
        off.reg = r;
    }
    if (sign < 0) {
        int r = fe_reg(L, RT(TY_I64, 1, 0));
        fe_emit(L, "neg.i64 %%r%d, %%r%d", r, off.reg);
        off.reg = r;
    }
    int r = fe_reg(L, L->rtypes[p.reg]);
    fe_emit(L, "ptr.add.%s %%r%d, %%r%d, %%r%d", fe_tname_of(L, r), r, p.reg, off.reg);
    fe_val out = p;
    out.reg = r;
    return out;
}

/* p[i] / *(p + i): an lvalue in memory. */
static fe_val index_of(fe_lower *L, fe_val base, fe_node *ie, const fe_tok *at)
{
    if (base.lv == LV_MEM && base.ty->kind == TY_ARRAY) {
        fe_type *et = base.ty->base;
        fe_val p = fe_rv(fe_ptr_to(L->c, et), base.reg);
        fe_val q = fe_ptr_add(L, p, fe_rvalue(L, ie), 1, at);
        fe_val lv = {et, q.reg, LV_MEM, 0, base.vol || et->is_volatile, false, false, false};
        return lv;
    }
    base = fe_load(L, base);
    if (base.ty->kind != TY_PTR) {
        fe_error(L->c, at, CVM_SYNTAX, "subscripted value is not an array or pointer");
        return fe_bad(L);
    }
    fe_val q = fe_ptr_add(L, base, fe_rvalue(L, ie), 1, at);
    fe_val lv = {base.ty->base, q.reg, LV_MEM, 0, base.ty->base->is_volatile, false, false, false};
    return lv;
}

static fe_val member_of(fe_lower *L, fe_val base, fe_node *e)
{
    fe_type *t = base.ty;
    const char *name = e->name;
    if (t->kind == TY_VEC) {
        int idx = strcmp(name, "x") == 0 ? 0 : strcmp(name, "y") == 0 ? 1 : strcmp(name, "z") == 0 ? 2
                  : strcmp(name, "w") == 0 ? 3 : -1;
        if (idx < 0 || (uint32_t)idx >= t->len) {
            fe_error(L->c, e->tok, CVM_SYNTAX, "no member named '%s' in '%s'", name, t->name);
            return fe_bad(L);
        }
        if (base.lv == LV_MEM) {
            fe_val q = fe_ptr_add(L, fe_rv(fe_ty(TY_I8), base.reg), fe_const_int(L, TY_I64, idx * (int)t->base->size), 1, e->tok);
            fe_val lv = {t->base, q.reg, LV_MEM, 0, base.vol, false, false, false};
            return lv;
        }
        fe_val v = {t->base, base.reg, base.lv == LV_REG ? LV_ELEM : LV_ELEM, idx, false, false, false, false};
        if (base.lv == LV_NONE) /* extract from a temporary */
            return fe_load(L, v);
        return v;
    }
    if (t->kind == TY_DIM3) {
        int idx = name[0] - 'x';
        if (idx < 0 || idx > 2 || name[1]) {
            fe_error(L->c, e->tok, CVM_SYNTAX, "no member named '%s' in 'dim3'", name);
            return fe_bad(L);
        }
        fe_val q = fe_ptr_add(L, fe_rv(fe_ty(TY_I8), base.reg), fe_const_int(L, TY_I64, idx * 4), 1, e->tok);
        fe_val lv = {fe_ty(TY_U32), q.reg, LV_MEM, 0, base.vol, false, false, false};
        return lv;
    }
    if (t->kind != TY_STRUCT || base.lv != LV_MEM) {
        fe_error(L->c, e->tok, CVM_SYNTAX, "member reference to '%s' of a non-struct value", name);
        return fe_bad(L);
    }
    if (e->owner && !fe_to_base(L, &base, fe_unqual(e->owner), e->tok)) { /* d.B::x */
        char bn[128];
        fe_type_str(e->owner, bn, sizeof bn);
        fe_error(L->c, e->tok, CVM_SYNTAX, "'%s' is not a base class of '%s'", bn, t->name);
        return fe_bad(L);
    }
    if (e->owner && e->is_member_init) /* B(args) in a constructor's list: the base itself */
        return base;
    t = base.ty;
    uint32_t off;
    bool ambiguous = false;
    const fe_member *m = fe_member_lookup(t, name, strlen(name), &off, &ambiguous);
    fe_type *named = !m && !ambiguous && e->is_member_init ? fe_base_named(t, name) : NULL;
    if (named) { /* Base(args) of a template base Base<T> in a constructor's list */
        fe_to_base(L, &base, named, e->tok);
        return base;
    }
    if (ambiguous) {
        fe_error(L->c, e->tok, CVM_SYNTAX, "member '%s' is found in more than one base class of '%s' "
                 "(ambiguous); qualify it (obj.B::%s)", name, t->name, name);
        return fe_bad(L);
    }
    if (m) {
        fe_val q = fe_ptr_add(L, fe_rv(fe_ty(TY_I8), base.reg), fe_const_int(L, TY_I64, off), 1, e->tok);
        fe_val lv = {m->ty, q.reg, LV_MEM, 0, base.vol || m->ty->is_volatile, false, false, false};
        return lv;
    }
    const fe_tname *st = fe_static_constant(t, name, strlen(name));
    if (st) /* c.N, p->N of a static constant: its value (the object is evaluated all the same) */
        return st->value_expr ? fe_gen(L, st->value_expr) : fe_const_int(L, st->ty->kind, st->value);
    fe_error(L->c, e->tok, CVM_SYNTAX, "no member named '%s' in '%s'", name, t->name);
    return fe_bad(L);
}

/* ---- purity: may this expression be evaluated speculatively? ---- */

bool fe_pure(fe_lower *L, fe_node *e)
{
    if (!e)
        return true;
    switch (e->kind) {
    case N_INT: case N_FLOAT: case N_BOOL: case N_SIZEOF:
        return true;
    case N_IDENT: {
        fe_var *v = fe_lookup(L, e->name);
        return !v || (v->val.lv == LV_REG && !v->mem); /* registers; builtins like warpSize */
    }
    case N_MEMBER:
        if (e->a->kind == N_IDENT && !fe_lookup(L, e->a->name)) /* threadIdx.x */
            return true;
        return e->a->kind == N_IDENT && fe_pure(L, e->a) && fe_lookup(L, e->a->name)->ty->kind == TY_VEC;
    case N_BIN:
        if (e->op == '/' || e->op == '%')
            return false; /* integer division by zero faults in checked mode */
        return fe_pure(L, e->a) && fe_pure(L, e->b);
    case N_UNARY:
        return e->op != '*' && e->op != '&' && fe_pure(L, e->a);
    case N_CAST:
        return e->op != 'F' && fe_pure(L, e->a);
    case N_COND:
        return fe_pure(L, e->a) && fe_pure(L, e->b) && fe_pure(L, e->c);
    default:
        return false;
    }
}

/* ---- operators ---- */

static const char *cmp_name(int op)
{
    switch (op) {
    case '<': return "lt";
    case '>': return "gt";
    case FE_OP2('<', '='): return "le";
    case FE_OP2('>', '='): return "ge";
    case FE_OP2('=', '='): return "eq";
    default: return "ne";
    }
}

static const char *arith_name(int op)
{
    switch (op) {
    case '+': return "add";
    case '-': return "sub";
    case '*': return "mul";
    case '/': return "div";
    case '%': return "rem";
    case '&': return "and";
    case '|': return "or";
    case '^': return "xor";
    case FE_OP2('<', '<'): return "shl";
    default: return "shr";
    }
}

static bool is_cmp(int op)
{
    return op == '<' || op == '>' || op == FE_OP2('<', '=') || op == FE_OP2('>', '=') ||
           op == FE_OP2('=', '=') || op == FE_OP2('!', '=');
}

/* a OP b on loaded values, with C's conversions. */
/* p == NULL (eq) or p != NULL. Only global pointers can be null: shared,
 * local and constant ones point into their space (offset 0 is an object). */
fe_val fe_null_test(fe_lower *L, fe_val p, bool eq, const fe_tok *at)
{
    int r = fe_reg(L, RT(TY_BOOL, 1, 0));
    if (p.ty->kind != TY_PTR) {
        fe_error(L->c, at, CVM_SYNTAX, "comparison of a pointer with an integer");
        return fe_rv(fe_ty(TY_BOOL), r);
    }
    if (fe_space_of(L, p.reg) != SP_GLOBAL) {
        fe_emit(L, "const.bool %%r%d, %d", r, eq ? 0 : 1);
        return fe_rv(fe_ty(TY_BOOL), r);
    }
    int z = fe_reg(L, RT(TY_PTR, 1, SP_GLOBAL));
    fe_emit(L, "const.ptr.global %%r%d, 0", z);
    fe_emit(L, "%s.ptr.global %%r%d, %%r%d, %%r%d", eq ? "eq" : "ne", r, p.reg, z);
    return fe_rv(fe_ty(TY_BOOL), r);
}

static fe_val binop(fe_lower *L, int op, fe_val a, fe_val b, const fe_tok *at, fe_node *mul_hint)
{
    a = fe_load(L, a);
    b = fe_load(L, b);
    if (a.ty->kind == TY_PTR || b.ty->kind == TY_PTR) {
        if ((op == '+' || op == '-') && a.ty->kind == TY_PTR && fe_is_int(b.ty))
            return fe_ptr_add(L, a, b, op == '-' ? -1 : 1, at);
        if (op == '+' && b.ty->kind == TY_PTR && fe_is_int(a.ty))
            return fe_ptr_add(L, b, a, 1, at);
        if (op == '-' && a.ty->kind == TY_PTR && b.ty->kind == TY_PTR) {
            int d = fe_reg(L, RT(TY_I64, 1, 0));
            fe_emit(L, "ptr.diff.i64 %%r%d, %%r%d, %%r%d", d, a.reg, b.reg);
            fe_val s = fe_const_int(L, TY_I64, a.ty->base->size ? a.ty->base->size : 1);
            int q = fe_reg(L, RT(TY_I64, 1, 0));
            fe_emit(L, "div.i64 %%r%d, %%r%d, %%r%d", q, d, s.reg);
            return fe_rv(fe_ty(TY_I64), q);
        }
        if ((op == FE_OP2('=', '=') || op == FE_OP2('!', '=')) && (a.is_null || b.is_null))
            return fe_null_test(L, a.is_null ? b : a, op == FE_OP2('=', '='), at);
        if (is_cmp(op) && a.ty->kind == TY_PTR && b.ty->kind == TY_PTR) {
            fe_type *ab = fe_unqual(a.ty->base), *bb = fe_unqual(b.ty->base);
            if (ab->kind == TY_STRUCT && bb->kind == TY_STRUCT && !fe_same_type(ab, bb)) {
                if (fe_derives(ab, bb)) /* a D * and a B *: compared as B *, at the base's offset */
                    a = fe_ptr_to_base(L, a, b.ty, at);
                else if (fe_derives(bb, ab))
                    b = fe_ptr_to_base(L, b, a.ty, at);
            }
            int r = fe_reg(L, RT(TY_BOOL, 1, 0));
            fe_emit(L, "%s.%s %%r%d, %%r%d, %%r%d", cmp_name(op), fe_tname_of(L, a.reg), r, a.reg, b.reg);
            return fe_rv(fe_ty(TY_BOOL), r);
        }
        fe_error(L->c, at, CVM_UNSUPPORTED, "unsupported pointer operation");
        return fe_bad(L);
    }
    if (fe_is_half_pair(a.ty) || fe_is_half_pair(b.ty))
        return fe_half2_binop(L, op, a, b, at);
    if (!fe_is_arith(a.ty) || !fe_is_arith(b.ty)) {
        fe_error(L->c, at, CVM_SYNTAX, "invalid operands to a binary operator");
        return fe_bad(L);
    }
    bool shift = op == FE_OP2('<', '<') || op == FE_OP2('>', '>');
    if (shift) {
        fe_type *t = fe_promote(a.ty);
        if (!fe_is_int(t) || !fe_is_int(b.ty)) {
            fe_error(L->c, at, CVM_SYNTAX, "shift of a non-integer");
            return fe_bad(L);
        }
        a = fe_convert(L, a, t, at);
        fe_val n = fe_convert(L, b, fe_ty(t->size == 8 ? TY_U64 : TY_U32), at);
        int r = fe_reg(L, fe_rtype_of(L, t, 0));
        fe_emit(L, "%s.%s %%r%d, %%r%d, %%r%d", arith_name(op), fe_elem_name(t->kind), r, a.reg, n.reg);
        return fe_rv(t, r);
    }
    fe_type *t = fe_common(a.ty, b.ty);
    if ((op == '%' || op == '&' || op == '|' || op == '^') && fe_is_float(t)) {
        fe_error(L->c, at, CVM_SYNTAX, "invalid operands to '%c' (float)", op);
        return fe_bad(L);
    }
    a = fe_convert(L, a, t, at);
    b = fe_convert(L, b, t, at);
    if (is_cmp(op)) {
        int r = fe_reg(L, RT(TY_BOOL, 1, 0));
        fe_emit(L, "%s.%s %%r%d, %%r%d, %%r%d", cmp_name(op), fe_elem_name(t->kind), r, a.reg, b.reg);
        return fe_rv(fe_ty(TY_BOOL), r);
    }
    (void)mul_hint;
    int r = fe_reg(L, fe_rtype_of(L, t, 0));
    fe_emit(L, "%s.%s %%r%d, %%r%d, %%r%d", arith_name(op), fe_elem_name(t->kind), r, a.reg, b.reg);
    return fe_rv(t, r);
}

static bool is_mul(const fe_node *n) { return n && n->kind == N_BIN && n->op == '*'; }

/* The type struct st converts to as an operand of a built-in operator
 * beside one of type `other`: its conversion operator's (of several, the
 * one to `other`, else the first to an arithmetic type or pointer); int
 * when it has none (the conversion then fails with a message). */
static fe_type *conversion_type(fe_lower *L, const fe_type *st, const fe_type *other)
{
    fe_type *first = NULL;
    uint32_t off;
    bool amb;
    const fe_type *owner = fe_method_scope(st, "operator()conv", &off, &amb); /* a base's */
    st = owner ? owner : st;
    for (const fe_node *m = st->methods; m; m = m->next) {
        if (!m->is_conversion || !m->body || (m->is_explicit && !L->explicit_cast))
            continue;
        fe_type *r = fe_unqual(fe_no_ref(L->c, m->ty));
        if (other && fe_same_type(r, fe_unqual((fe_type *)other)))
            return r;
        if (!first && (fe_is_arith(r) || r->kind == TY_PTR))
            first = r;
    }
    return first ? first : fe_ty(TY_I32);
}

/* Operand v of a built-in operator beside one of type `other`: a struct
 * through its conversion operator (s += w with operator float()). */
fe_val fe_by_conversion(fe_lower *L, fe_val v, const fe_type *other, const fe_tok *at)
{
    return v.ty->kind == TY_STRUCT ? fe_convert(L, v, conversion_type(L, v.ty, other), at) : v;
}

/* A binary operator on values; on a struct, its overloaded operator. */
static fe_val any_binop(fe_lower *L, int code, fe_val a, fe_val b, const fe_tok *at)
{
    if (a.ty->kind != TY_STRUCT && b.ty->kind != TY_STRUCT && a.ty->kind != TY_VEC && b.ty->kind != TY_VEC)
        return binop(L, code, a, b, at, NULL);
    char op[3] = {(char)(code & 0xff), (char)(code >> 8), 0};
    fe_val args[2] = {a, b}, out;
    if (fe_call_operator(L, at, op, args, 2, &out)) /* also float4 operators of helper_math.h style */
        return out;
    if (a.ty->kind != TY_STRUCT && b.ty->kind != TY_STRUCT)
        return binop(L, code, a, b, at, NULL);
    /* a struct that converts to a scalar (SharedMemory<T> + i, w * w with
     * operator float()): to its conversion's own type, then the usual
     * arithmetic conversions */
    a = fe_by_conversion(L, a, b.ty, at);
    if (!L->c->err)
        b = fe_by_conversion(L, b, a.ty, at);
    if (L->c->err)
        return fe_bad(L);
    return binop(L, code, a, b, at, NULL);
}

/*
 * --fmad=true: `x op y` where op is + or - and one side is a float product
 * written in the expression (used once, by construction) becomes one fma,
 * as nvcc contracts: a*b+c, c+a*b, a*b-c (fma(a, b, -c)), c-a*b
 * (fma(-a, b, c)). xv: the already evaluated left side (compound
 * assignment) or NULL. Operands are evaluated once, left to right; when
 * the types do not allow the contraction (not float, or the sum in a wider
 * type than the product) the plain multiply and add are emitted. False,
 * with nothing emitted, when the form does not apply.
 */
static bool contract(fe_lower *L, int op, fe_node *xn, const fe_val *xv, fe_node *yn, const fe_tok *at,
                     fe_val *out)
{
    if (!L->c->fmad || (op != '+' && op != '-'))
        return false;
    bool mul_left = !xv && is_mul(xn);
    if (!mul_left && !is_mul(yn))
        return false;
    fe_node *m = mul_left ? xn : yn;
    fe_val other = {0}, a, b;
    if (!mul_left)
        other = xv ? fe_load(L, *xv) : fe_rvalue(L, xn);
    a = fe_rvalue(L, m->a);
    b = fe_rvalue(L, m->b);
    if (mul_left)
        other = fe_rvalue(L, yn);
    fe_type *mt = fe_is_arith(a.ty) && fe_is_arith(b.ty) ? fe_common(a.ty, b.ty) : NULL;
    if (!mt || (mt->kind != TY_F32 && mt->kind != TY_F64) || !fe_is_arith(other.ty) ||
        fe_common(mt, other.ty)->kind != mt->kind) {
        fe_val p = any_binop(L, '*', a, b, m->tok);
        *out = mul_left ? any_binop(L, op, p, other, at) : any_binop(L, op, other, p, at);
        return true;
    }
    a = fe_convert(L, a, mt, at);
    b = fe_convert(L, b, mt, at);
    other = fe_convert(L, other, mt, at);
    const char *tn = fe_elem_name(mt->kind);
    if (op == '-') { /* a*b - c: negate c; c - a*b: negate a */
        fe_val *neg = mul_left ? &other : &a;
        int r = fe_reg(L, fe_rtype_of(L, mt, 0));
        fe_emit(L, "neg.%s %%r%d, %%r%d", tn, r, neg->reg);
        neg->reg = r;
    }
    int r = fe_reg(L, fe_rtype_of(L, mt, 0));
    fe_emit(L, "fma.%s %%r%d, %%r%d, %%r%d, %%r%d", tn, r, a.reg, b.reg, other.reg);
    *out = fe_rv(mt, r);
    return true;
}


/* A struct object as a condition: its operator bool (explicit too), or
 * another conversion's value tested. */
static fe_val struct_truth(fe_lower *L, fe_val v, const fe_tok *at)
{
    const bool was = L->explicit_cast;
    L->explicit_cast = true; /* a condition may use an explicit operator bool */
    fe_type *t = conversion_type(L, v.ty, fe_ty(TY_BOOL));
    L->explicit_cast = t->kind == TY_BOOL || was; /* ... and no other explicit one */
    v = fe_convert(L, v, t, at);
    L->explicit_cast = was;
    if (L->c->err)
        return fe_bad(L);
    return v.ty->kind == TY_PTR ? fe_null_test(L, v, false, at) : fe_convert(L, v, fe_ty(TY_BOOL), at);
}

fe_val fe_cond_bool(fe_lower *L, fe_node *e)
{
    if (e->kind == N_STR) /* a string's address is never null: assert(ok && "why") */
        return fe_const_int(L, TY_BOOL, 1);
    return fe_truth(L, fe_rvalue(L, e), e->tok);
}

/* A loaded value as a condition (a bool register). */
fe_val fe_truth(fe_lower *L, fe_val v, const fe_tok *at)
{
    if (v.ty->kind == TY_BOOL)
        return v;
    if (v.ty->kind == TY_PTR)
        return fe_null_test(L, v, false, at);
    if (v.ty->kind == TY_STRUCT && v.lv == LV_MEM)
        return struct_truth(L, v, at);
    if (!fe_is_arith(v.ty)) {
        fe_error(L->c, at, CVM_SYNTAX, "a condition must be a number, bool or pointer");
        return v;
    }
    return fe_convert(L, v, fe_ty(TY_BOOL), at);
}

/* a && b, a || b: and.bool/or.bool when b is pure, else an if writing one register. */
static fe_val logical(fe_lower *L, fe_node *e)
{
    bool is_and = e->op == FE_OP2('&', '&');
    fe_val a = fe_cond_bool(L, e->a);
    if (fe_pure(L, e->b)) {
        fe_val b = fe_cond_bool(L, e->b);
        int r = fe_reg(L, RT(TY_BOOL, 1, 0));
        fe_emit(L, "%s.bool %%r%d, %%r%d, %%r%d", is_and ? "and" : "or", r, a.reg, b.reg);
        return fe_rv(fe_ty(TY_BOOL), r);
    }
    int t = fe_reg(L, RT(TY_BOOL, 1, 0));
    fe_emit(L, "mov.bool %%r%d, %%r%d", t, a.reg);
    int test = t;
    if (!is_and) {
        test = fe_reg(L, RT(TY_BOOL, 1, 0));
        fe_emit(L, "not.bool %%r%d, %%r%d", test, t);
    }
    fe_emit(L, "if %%r%d", test);
    L->depth++;
    fe_val b = fe_cond_bool(L, e->b);
    fe_emit(L, "mov.bool %%r%d, %%r%d", t, b.reg);
    L->depth--;
    fe_emit(L, "end");
    return fe_rv(fe_ty(TY_BOOL), t);
}

static fe_type *cond_type(fe_lower *L, fe_node *e)
{
    fe_type *a = fe_type_of(L, e->b), *b = fe_type_of(L, e->c);
    fe_type *ua = fe_unqual(fe_no_ref(L->c, a)), *ub = fe_unqual(fe_no_ref(L->c, b));
    if (fe_is_arith(a) && fe_is_arith(b)) /* two of one type keep it (char, bool: no promotion) */
        return ua->kind == ub->kind ? ua : fe_common(a, b);
    if (ua->kind == TY_PTR && ub->kind == TY_PTR) { /* c ? pd : pb: a B * */
        if (fe_derives(fe_unqual(ua->base), fe_unqual(ub->base)))
            return ub;
        if (fe_derives(fe_unqual(ub->base), fe_unqual(ua->base)))
            return ua;
    }
    if (fe_derives(ua, ub)) /* c ? d : b: a B */
        return ub;
    if (fe_derives(ub, ua))
        return ua;
    if (a->kind == TY_ARRAY)
        return fe_ptr_to(L->c, a->base);
    return fe_unqual(a);
}

/* `c ? p : q` of two structs of one type: the address of the one c picks
 * (an lvalue, as in C++ when both are; a struct a call returns lives in a
 * local temporary), so nothing is copied until the result is used. */
static fe_val struct_conditional(fe_lower *L, fe_node *e, fe_val c, fe_type *t)
{
    fe_type *tb = fe_unqual(fe_no_ref(L->c, fe_type_of(L, e->b))), *tc = fe_unqual(fe_no_ref(L->c, fe_type_of(L, e->c)));
    if ((!fe_same_type(tb, t) && !fe_derives(tb, t)) || (!fe_same_type(tc, t) && !fe_derives(tc, t))) {
        char a[128], b[128];
        fe_type_str(t, a, sizeof a);
        fe_type_str(fe_type_of(L, e->c), b, sizeof b);
        fe_error(L->c, e->tok, CVM_SYNTAX, "operands of '?:' have different types '%s' and '%s'%s", a, b,
                 fe_closures_apart(tb, tc));
        return fe_bad(L);
    }
    fe_emit(L, "if %%r%d", c.reg);
    fe_val a = fe_as_base(L, fe_gen(L, e->b), t, e->tok); /* a D: its B */
    int r = fe_reg(L, L->rtypes[a.reg]);
    fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, r), r, a.reg);
    fe_emit(L, "else");
    fe_val b = fe_as_base(L, fe_gen(L, e->c), t, e->tok);
    if (L->rtypes[b.reg] != L->rtypes[r]) {
        fe_error(L->c, e->tok, CVM_UNSUPPORTED,
                 "'?:' between structs in different memory spaces; copy one into a local first");
        return fe_bad(L);
    }
    fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, r), r, b.reg);
    fe_emit(L, "end");
    return (fe_val){t, r, LV_MEM, 0, a.vol || b.vol, false, false, a.temp && b.temp}; /* c ? T(1) : T(2): a temporary */
}

/* c ? a : b as an lvalue in memory (a reference bound to it, returned):
 * the address of either, a and b memory lvalues of one type and space. */
fe_val fe_lvalue(fe_lower *L, fe_node *e)
{
    int64_t k;
    if (e->kind != N_COND || fe_const_eval(L->c, e->a, &k))
        return e->kind == N_COND ? fe_lvalue(L, k ? e->b : e->c) : fe_gen(L, e);
    fe_type *t = fe_unqual(fe_type_of(L, e->b));
    if (!fe_same_type(t, fe_unqual(fe_type_of(L, e->c))))
        return fe_gen(L, e);
    fe_val c = fe_cond_bool(L, e->a);
    fe_emit(L, "if %%r%d", c.reg);
    fe_val a = fe_lvalue(L, e->b);
    int r = fe_reg(L, a.lv == LV_MEM ? L->rtypes[a.reg] : RT(TY_PTR, 1, SP_LOCAL));
    if (a.lv == LV_MEM)
        fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, r), r, a.reg);
    fe_emit(L, "else");
    fe_val b = fe_lvalue(L, e->c);
    if (a.lv != LV_MEM || b.lv != LV_MEM || L->rtypes[b.reg] != L->rtypes[r]) {
        fe_error(L->c, e->tok, CVM_UNSUPPORTED, "a '?:' used as a reference needs both operands in one "
                 "memory space (members, array elements), not in registers; use if/else");
        return fe_bad(L);
    }
    fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, r), r, b.reg);
    fe_emit(L, "end");
    return (fe_val){t, r, LV_MEM, 0, a.vol || b.vol, false, false, false};
}

/* (c ? a : b) op= v of scalars: v once, then the assignment in the branch c picks. */
static fe_val cond_assignment(fe_lower *L, fe_node *e)
{
    fe_val v = fe_load(L, fe_gen(L, e->b));
    int r = fe_reg(L, L->rtypes[v.reg]);
    fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, r), r, v.reg);
    fe_var *tmp = fe_alloc(L->c, sizeof *tmp);
    fe_node *id = fe_alloc(L->c, sizeof *id);
    if (!tmp || !id)
        return fe_bad(L);
    tmp->name = " rhs"; /* no source name has a space */
    tmp->ty = v.ty;
    tmp->val = (fe_val){v.ty, r, LV_NONE, 0, false, false, false, false};
    fe_var *saved = L->vars;
    tmp->next = L->vars;
    L->vars = tmp;
    *id = (fe_node){.kind = N_IDENT, .tok = e->tok, .name = tmp->name};
    fe_node as[2];
    for (int i = 0; i < 2; i++)
        as[i] = (fe_node){.kind = N_ASSIGN, .tok = e->tok, .op = e->op, .a = i ? e->a->c : e->a->b, .b = id};
    /* the expression's value: the one the assigned variable now holds */
    fe_type *rt = fe_unqual(fe_type_of(L, e->a));
    const int res = fe_reg(L, fe_rtype_of(L, rt, 0));
    fe_val c = fe_cond_bool(L, e->a->a);
    fe_emit(L, "if %%r%d", c.reg);
    for (int i = 0; i < 2 && !L->c->err; i++) {
        if (i)
            fe_emit(L, "else");
        fe_val got = fe_convert(L, fe_rvalue(L, &as[i]), rt, e->tok);
        fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, res), res, got.reg);
    }
    fe_emit(L, "end");
    L->vars = saved;
    return (fe_val){rt, res, LV_NONE, 0, false, false, false, false};
}

/* The type of e when typing it costs nothing and makes nothing: a literal,
 * a variable, a cast of one, a sign; else NULL. The operand a constant
 * condition does not pick is typed only so (typing it aside lowers it: an
 * instance it calls would be made, `N > 0 ? f<N - 1>() : 0` would recurse). */
static fe_type *plain_type(fe_lower *L, fe_node *e)
{
    switch (e->kind) {
    case N_INT: case N_FLOAT: case N_BOOL: case N_IDENT:
        return fe_type_of(L, e);
    case N_CAST:
        return e->op != 'F' && plain_type(L, e->a) ? e->ty : NULL;
    case N_UNARY:
        return (e->op == '-' || e->op == '+') && plain_type(L, e->a) ? fe_type_of(L, e) : NULL;
    default:
        return NULL;
    }
}

static fe_val conditional(fe_lower *L, fe_node *e)
{
    int64_t k;
    if (fe_const_eval(L->c, e->a, &k)) { /* the operand it picks, of both operands' type */
        fe_val v = fe_rvalue(L, k ? e->b : e->c);
        fe_type *other = L->c->err ? NULL : plain_type(L, k ? e->c : e->b);
        if (other && fe_is_arith(other) && fe_is_arith(v.ty) && fe_unqual(v.ty)->kind != fe_unqual(other)->kind)
            return fe_convert(L, v, fe_common(v.ty, other), e->tok);
        return v;
    }
    fe_type *t = cond_type(L, e);
    fe_val c = fe_cond_bool(L, e->a);
    if (t->kind == TY_VOID) {
        fe_emit(L, "if %%r%d", c.reg);
        fe_rvalue(L, e->b);
        fe_emit(L, "else");
        fe_rvalue(L, e->c);
        fe_emit(L, "end");
        return fe_rv(t, 0);
    }
    if (t->kind == TY_STRUCT)
        return struct_conditional(L, e, c, t);
    if (fe_pure(L, e->b) && fe_pure(L, e->c)) {
        fe_val a = fe_convert(L, fe_rvalue(L, e->b), t, e->tok);
        fe_val b = fe_convert(L, fe_rvalue(L, e->c), t, e->tok);
        if (t->kind == TY_PTR && fe_space_of(L, a.reg) != fe_space_of(L, b.reg)) {
            fe_error(L->c, e->tok, CVM_UNSUPPORTED, "'?:' between pointers to different memory spaces");
            return a;
        }
        int r = fe_reg(L, L->rtypes[a.reg]);
        fe_emit(L, "select.%s %%r%d, %%r%d, %%r%d, %%r%d", fe_tname_of(L, r), r, a.reg, b.reg, c.reg);
        return fe_rv(t, r);
    }
    fe_emit(L, "if %%r%d", c.reg);
    fe_val a = fe_convert(L, fe_rvalue(L, e->b), t, e->tok);
    int r = fe_reg(L, L->rtypes[a.reg]);
    fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, r), r, a.reg);
    fe_emit(L, "else");
    fe_val b = fe_convert(L, fe_rvalue(L, e->c), t, e->tok);
    if (L->rtypes[b.reg] != L->rtypes[r]) {
        fe_error(L->c, e->tok, CVM_UNSUPPORTED, "'?:' between pointers to different memory spaces");
        return a;
    }
    fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, r), r, b.reg);
    fe_emit(L, "end");
    return fe_rv(t, r);
}

/* The operand types of c ? a : b, references and qualifiers dropped, if
 * they are one type (the conditional is then an lvalue), else NULL. */
static fe_type *cond_lvalue_type(fe_lower *L, const fe_node *e)
{
    fe_type *a = fe_type_of(L, e->b), *b = fe_type_of(L, e->c);
    if (!a || !b)
        return NULL;
    a = fe_unqual(fe_no_ref(L->c, a));
    b = fe_unqual(fe_no_ref(L->c, b));
    return fe_same_type(a, b) ? a : NULL;
}

static fe_val incdec(fe_lower *L, fe_node *e);

/* (c ? a : b)++ and friends on scalars of one type: the one c picks. */
static fe_val cond_incdec(fe_lower *L, fe_node *e)
{
    int64_t known;
    fe_node pick = *e;
    if (fe_const_eval(L->c, e->a->a, &known)) {
        pick.a = known ? e->a->b : e->a->c;
        return incdec(L, &pick);
    }
    fe_type *t = cond_lvalue_type(L, e->a);
    if (!t) {
        fe_error(L->c, e->tok, CVM_SYNTAX, "operand of ++/-- is not assignable (the '?:' operands differ in type)");
        return fe_bad(L);
    }
    const int res = fe_reg(L, fe_rtype_of(L, t, 0));
    fe_val c = fe_cond_bool(L, e->a->a);
    fe_emit(L, "if %%r%d", c.reg);
    for (int i = 0; i < 2 && !L->c->err; i++) {
        if (i)
            fe_emit(L, "else");
        pick.a = i ? e->a->c : e->a->b;
        fe_val got = fe_convert(L, fe_load(L, incdec(L, &pick)), t, e->tok);
        fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, res), res, got.reg);
    }
    fe_emit(L, "end");
    return fe_rv(t, res);
}

static fe_val incdec(fe_lower *L, fe_node *e)
{
    if (e->a->kind == N_COND && fe_unqual(fe_type_of(L, e->a))->kind != TY_STRUCT)
        return cond_incdec(L, e);
    fe_val lv = fe_gen(L, e->a);
    if (lv.lv == LV_NONE) {
        fe_error(L->c, e->tok, CVM_SYNTAX, "operand of ++/-- is not assignable");
        return fe_bad(L);
    }
    bool post = e->kind == N_POSTINC || e->kind == N_POSTDEC;
    bool inc = e->kind == N_POSTINC || e->kind == N_PREINC;
    if (lv.ty->kind == TY_STRUCT) { /* its operator++() or, postfix, operator++(int) */
        fe_val args[2] = {lv, fe_const_int(L, TY_I32, 0)}, out;
        if (fe_call_operator(L, e->tok, inc ? "++" : "--", args, post ? 2 : 1, &out))
            return out;
        fe_error(L->c, e->tok, CVM_SYNTAX, "no %s operator%s%s for '%s'", post ? "postfix" : "prefix",
                 inc ? "++" : "--", post ? "(int)" : "()", lv.ty->name);
        return fe_bad(L);
    }
    fe_val old = fe_load(L, lv);
    if (post && lv.lv != LV_MEM) { /* keep the old value: the register is about to change */
        int r = fe_reg(L, L->rtypes[old.reg]);
        fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, r), r, old.reg);
        old.reg = r;
    }
    fe_val one = fe_const_int(L, TY_I32, 1);
    fe_val nv = binop(L, inc ? '+' : '-', old, one, e->tok, NULL);
    fe_store(L, lv, nv, e->tok);
    return post ? old : fe_convert(L, nv, lv.ty, e->tok);
}

/*
 * E1 = E2 and E1 @= E2 on scalars and vectors evaluate E2 first, as C++17
 * sequences them (`a[i++] = i` stores the old i; nvcc's default dialect is
 * C++17): E2's value, then E1's lvalue. Structs (operator=), a contracted
 * `x += a * b` under --fmad and user operator@= keep E1 first.
 */
static bool rhs_first(fe_lower *L, fe_node *e)
{
    const fe_type *lt = fe_type_of(L, e->a);
    if (!lt || lt->is_ref)
        lt = lt ? lt->base : NULL;
    if (!lt || lt->kind == TY_STRUCT || lt->kind == TY_DIM3 || lt->kind == TY_VOID)
        return false;
    if (e->op == '=')
        return true;
    return lt->kind != TY_VEC && !(L->c->fmad && (e->op == '+' || e->op == '-'));
}

/* Evaluating e changes nothing but may read (no ++, --, assignment or call). */
static bool no_effects(const fe_node *e)
{
    if (!e)
        return true;
    switch (e->kind) {
    case N_INT: case N_FLOAT: case N_BOOL: case N_SIZEOF: case N_STR: case N_IDENT: case N_THIS:
        return true;
    case N_MEMBER: case N_ARROW: case N_UNARY:
        return no_effects(e->a);
    case N_INDEX: case N_BIN:
        return no_effects(e->a) && no_effects(e->b);
    case N_COND:
        return no_effects(e->a) && no_effects(e->b) && no_effects(e->c);
    case N_CAST:
        return e->op != 'F' && no_effects(e->a);
    default:
        return false;
    }
}

/* `x = {a, b, ...}`: the list makes a value of x's type (as a declaration's
 * initializer would), then the assignment stores it (through a struct's
 * operator= where it has one). */
static fe_val assign_list(fe_lower *L, fe_node *e)
{
    fe_val lv = fe_gen(L, e->a);
    if (lv.lv == LV_NONE) {
        fe_error(L->c, e->tok, CVM_SYNTAX, "expression is not assignable");
        return fe_bad(L);
    }
    if (lv.ty->is_const) {
        fe_error(L->c, e->tok, CVM_SYNTAX, "cannot assign to a const object");
        return fe_bad(L);
    }
    fe_val v = fe_initlist_value(L, lv.ty, e->b), out;
    if (L->c->err)
        return fe_bad(L);
    fe_val args[2] = {lv, v};
    if (lv.ty->kind == TY_STRUCT && fe_call_operator(L, e->tok, "=", args, 2, &out))
        return out;
    fe_store(L, lv, v, e->tok);
    return lv;
}

static fe_val assignment(fe_lower *L, fe_node *e)
{
    if (e->b->kind == N_INITLIST)
        return assign_list(L, e);
    int64_t known;
    if (e->a->kind == N_COND && fe_const_eval(L->c, e->a->a, &known)) { /* (1 ? x : y) = v: x = v */
        fe_node pick = *e;
        pick.a = known ? e->a->b : e->a->c;
        return assignment(L, &pick);
    }
    if (e->a->kind == N_COND && fe_unqual(fe_type_of(L, e->a))->kind != TY_STRUCT) {
        if (!cond_lvalue_type(L, e->a)) { /* (c ? i : f) = v: a prvalue in C++ */
            fe_error(L->c, e->tok, CVM_SYNTAX, "expression is not assignable (the '?:' operands differ in type)");
            return fe_bad(L);
        }
        return cond_assignment(L, e); /* (c ? a : b) = v */
    }
    if (e->b->kind == N_CAST && e->b->is_member_init) { /* m(a, b) or S(a, b) in a constructor */
        fe_val lv = fe_gen(L, e->a);
        fe_type *t = fe_unqual(lv.ty);
        if (t->kind != TY_STRUCT && !e->b->args && lv.lv != LV_NONE) { /* x(): zero, a null pointer */
            fe_store(L, lv, fe_zero(L), e->tok);
            return lv;
        }
        if (lv.lv != LV_MEM || t->kind != TY_STRUCT) {
            fe_error(L->c, e->tok, CVM_SYNTAX, "'%s' is initialized with several values but is no struct",
                     e->a->name ? e->a->name : "member");
            return fe_bad(L);
        }
        fe_store(L, lv, fe_construct(L, t, e->b->args, e->b->tok), e->tok);
        return lv;
    }
    if (e->is_member_init && fe_unqual(fe_type_of(L, e->a))->kind == TY_STRUCT) {
        /* m(x) or m{x} of a struct member: initialized by its constructor
         * (a copy constructor for another of its type), not its operator= */
        fe_val lv = fe_gen(L, e->a);
        if (lv.lv == LV_MEM) {
            fe_store(L, lv, fe_construct(L, fe_unqual(lv.ty), e->b, e->b->tok), e->tok);
            return lv;
        }
    }
    fe_val early = {0};
    const bool first = rhs_first(L, e);
    if (first) {
        early = fe_load(L, fe_gen(L, e->b));
        /* the value may sit in a variable's register that E1 changes (a[i++] = i) */
        if (!no_effects(e->a)) {
            int r = fe_reg(L, fe_rtype_of(L, early.ty, 0));
            fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, r), r, early.reg);
            early.reg = r;
        }
    }
    fe_val lv = fe_gen(L, e->a);
    if (lv.lv == LV_MEM && lv.ty->kind == TY_STRUCT) {
        char op[4] = {0};
        int k = 0;
        if (e->op != '=') {
            op[k++] = (char)(e->op & 0xff);
            if (e->op >> 8)
                op[k++] = (char)(e->op >> 8);
        }
        op[k] = '=';
        fe_val args[2] = {lv, fe_gen(L, e->b)}, out;
        if (fe_call_operator(L, e->tok, op, args, 2, &out))
            return out;
        if (e->op != '=') {
            fe_error(L->c, e->tok, CVM_SYNTAX, "no operator%s for '%s'", op, lv.ty->name);
            return fe_bad(L);
        }
        fe_val src = fe_as_base(L, args[1], lv.ty, e->tok);
        if (src.lv == LV_MEM && src.ty->kind == TY_STRUCT && fe_same_type(fe_unqual(src.ty), fe_unqual(lv.ty))) {
            fe_assign_struct(L, lv, src, fe_unqual(lv.ty), e->tok); /* bases' and members' operator= run */
            return lv;
        }
        fe_store(L, lv, args[1].ty->kind == TY_STRUCT ? args[1] : fe_load(L, args[1]), e->tok);
        return lv;
    }
    if (lv.lv == LV_NONE) {
        fe_error(L->c, e->tok, CVM_SYNTAX, "expression is not assignable");
        return fe_bad(L);
    }
    if (lv.ty->kind == TY_VEC && e->op != '=') { /* v += w with a user operator+=(float4 &, float4) */
        char op[4] = {(char)(e->op & 0xff), (char)(e->op >> 8), 0, 0};
        op[strlen(op)] = '=';
        fe_val pair[2] = {{lv.ty, 0, LV_NONE, 0, false, false, false, false}, {fe_type_of(L, e->b), 0, LV_NONE, 0, false, false, false, false}};
        if (fe_find_func(L, NULL, fe_fmt(L->c, "operator%s", op), pair, 2)) {
            fe_val args[2] = {lv, fe_gen(L, e->b)}, out;
            if (fe_call_operator(L, e->tok, op, args, 2, &out))
                return out;
        }
    }
    if (lv.ty->is_const && lv.lv != LV_NONE && e->op) {
        fe_error(L->c, e->tok, CVM_SYNTAX, "cannot assign to a const object");
        return fe_bad(L);
    }
    fe_val v;
    if (e->op == '=') {
        v = first ? early : fe_gen(L, e->b);
        if (!first && lv.ty->kind != TY_STRUCT && lv.ty->kind != TY_DIM3)
            v = fe_load(L, v);
    } else {
        fe_val old = fe_load(L, lv);
        if (first)
            v = binop(L, e->op, old, fe_by_conversion(L, early, old.ty, e->tok), e->tok, NULL);
        else if (!contract(L, e->op, NULL, &old, e->b, e->tok, &v))
            v = binop(L, e->op, old, fe_by_conversion(L, fe_rvalue(L, e->b), old.ty, e->tok), e->tok, NULL);
    }
    fe_store(L, lv, v, e->tok);
    return lv;
}

/* fe_convert for a cast: a pointer may change its pointee type there. */
static fe_val explicit_convert(fe_lower *L, fe_val v, fe_type *t, const fe_tok *at)
{
    const bool was = L->explicit_cast;
    L->explicit_cast = true;
    v = fe_convert(L, v, t, at);
    L->explicit_cast = was;
    return v;
}

fe_tok *fe_leftmost(fe_node *e)
{
    while (e->a && (e->kind == N_BIN || e->kind == N_COND || e->kind == N_INDEX || e->kind == N_MEMBER ||
                    e->kind == N_ARROW || e->kind == N_POSTINC || e->kind == N_POSTDEC ||
                    e->kind == N_ASSIGN || e->kind == N_COMMA))
        e = e->a;
    return e->tok;
}

fe_val fe_vec_build(fe_lower *L, fe_type *t, fe_node *args, const fe_tok *at)
{
    int regs[4];
    unsigned i = 0;
    if (args && !args->next && args->kind != N_INITLIST) { /* {w} of a w of the type: a copy */
        fe_type *at1 = fe_type_of(L, args);
        if (at1 && fe_same_type(fe_unqual(at1), t))
            return fe_convert(L, fe_rvalue(L, args), t, args->tok);
    }
    for (fe_node *a = args; a; a = a->next, i++) {
        if (i == t->len) {
            char b[128];
            fe_type_str(t, b, sizeof b);
            fe_error(L->c, fe_leftmost(a), CVM_SYNTAX, "too many initializers for '%s' (it has %u elements)",
                     b, t->len);
            return fe_bad(L);
        }
        regs[i] = fe_convert(L, fe_rvalue(L, a), t->base, a->tok).reg;
    }
    for (; i < t->len; i++) /* the rest is zero, as in an aggregate */
        regs[i] = fe_convert(L, fe_zero(L), t->base, at).reg;
    int r = fe_reg(L, fe_rtype_of(L, t, 0));
    if (t->len == 2)
        fe_emit(L, "build.%s %%r%d, %%r%d, %%r%d", fe_tname_of(L, r), r, regs[0], regs[1]);
    else
        fe_emit(L, "build.%s %%r%d, %%r%d, %%r%d, %%r%d, %%r%d", fe_tname_of(L, r), r, regs[0],
                regs[1], regs[2], regs[3]);
    return fe_rv(t, r);
}

/*
 * A cast to a reference to t: the operand's object seen as a t, its bits
 * reinterpreted, never converted (`(int &)x` is x's bits). The object is
 * in memory: an array element, a member, *p, or a variable the cast made
 * live there (lower.c scan_taken, as for `&x`). The same type needs
 * nothing; the access checks alignment as any access does.
 */
static fe_val ref_cast(fe_lower *L, fe_node *e, fe_type *t)
{
    fe_val lv = fe_gen(L, e->a);
    if (L->c->err)
        return fe_bad(L);
    if (lv.lv != LV_NONE && fe_same_type(fe_unqual(lv.ty), fe_unqual(t))) {
        lv.ty = t; /* const_cast<float &>(r), static_cast<const float &>(x) */
        return lv;
    }
    if (e->op != 'R' && lv.lv == LV_MEM && (fe_to_base(L, &lv, fe_unqual(t), e->tok) ||
                                            fe_ref_to_derived(L, &lv, fe_unqual(t), e->tok))) {
        lv.ty = t; /* static_cast<B &>(d), static_cast<const D &>(*this) */
        return lv;
    }
    if (lv.lv != LV_MEM) {
        fe_error(L->c, e->tok, CVM_UNSUPPORTED, lv.lv == LV_NONE
                     ? "a cast to a reference type needs an object (an lvalue), not a value"
                     : "a cast to a reference type of another type needs an object in memory; cast a "
                       "variable, an array element or a member");
        return fe_bad(L);
    }
    if (t->kind == TY_VOID || !t->size) {
        fe_error(L->c, e->tok, CVM_SYNTAX, "cannot cast to a reference to an incomplete type");
        return fe_bad(L);
    }
    lv.ty = t;
    lv.vol = lv.vol || t->is_volatile;
    return lv;
}

static fe_val cast(fe_lower *L, fe_node *e)
{
    fe_type *t = fe_resolve_decltype(L, e->ty);
    if (e->op == 'F' && t->kind == TY_STRUCT)
        return fe_construct(L, t, e->args, e->tok);
    if (e->op == 'F') { /* T(args) / T{args} */
        int n = 0;
        fe_node *a0 = e->args;
        for (fe_node *a = e->args; a; a = a->next)
            n++;
        if (t->kind == TY_VEC && n <= (int)t->len) /* float4{a, b}, float4{}: the rest zero */
            return fe_vec_build(L, t, e->args, e->tok);
        if (n == 0 && fe_is_arith(t))
            return fe_const_int(L, t->kind, 0);
        if (n != 1 || !fe_is_scalar(t)) {
            fe_error(L->c, e->tok, CVM_UNSUPPORTED, "this constructor call is not supported");
            return fe_bad(L);
        }
        return explicit_convert(L, fe_rvalue(L, a0), t, e->tok); /* T(x): a cast, as (T)x */
    }
    if (t->is_ref) /* (int &)x, reinterpret_cast<float4 &>(s[i]), const_cast<float &>(r) */
        return ref_cast(L, e, fe_no_ref(L->c, t));
    fe_val v = fe_rvalue(L, e->a);
    if (t->kind == TY_VOID)
        return fe_rv(t, 0);
    if (t->kind == TY_STRUCT && v.lv == LV_MEM && fe_same_type(fe_unqual(v.ty), fe_unqual(t)))
        return v;
    if (t->kind == TY_STRUCT && v.lv == LV_MEM && fe_derives(v.ty, fe_unqual(t))) {
        fe_val tmp = fe_local_temp(L, fe_unqual(t)); /* (B)d, static_cast<B>(d): a copy of its B */
        fe_copy_construct(L, tmp, fe_as_base(L, v, t, e->tok), fe_unqual(t), e->tok);
        return tmp;
    }
    const bool was = L->reinterpret;
    L->reinterpret = e->op == 'R';
    v = explicit_convert(L, v, t, e->tok);
    L->reinterpret = was;
    return v;
}

/* +v, -v, ~v of an arithmetic value, promoted. */
static fe_val arith_unary(fe_lower *L, int op, fe_val v, const fe_tok *at)
{
    if (!fe_is_arith(v.ty)) {
        fe_error(L->c, at, CVM_SYNTAX, "invalid operand to unary '%c'", op);
        return fe_bad(L);
    }
    fe_type *t = fe_is_int(v.ty) ? fe_promote(v.ty) : fe_unqual(v.ty);
    v = fe_convert(L, v, t, at);
    if (op == '+')
        return v;
    if (op == '~' && !fe_is_int(t)) {
        fe_error(L->c, at, CVM_SYNTAX, "invalid operand to '~' (float)");
        return fe_bad(L);
    }
    int r = fe_reg(L, fe_rtype_of(L, t, 0));
    fe_emit(L, "%s.%s %%r%d, %%r%d", op == '-' ? "neg" : "not", fe_elem_name(t->kind), r, v.reg);
    return fe_rv(t, r);
}

/* &x: the address of a variable in memory. */
static fe_val address_of(fe_lower *L, fe_node *e)
{
    fe_val lv = fe_gen(L, e->a);
    if (lv.lv != LV_MEM && lv.ty->kind == TY_PTR) {
        fe_error(L->c, e->tok, CVM_UNSUPPORTED, "taking the address of a pointer to shared or local "
                 "memory is not supported (only pointers to global memory can be stored in memory)");
        return fe_bad(L);
    }
    if (lv.lv != LV_MEM) {
        fe_error(L->c, e->tok, CVM_UNSUPPORTED,
                 "taking the address of a register variable is not supported; use a reference");
        return fe_bad(L);
    }
    return fe_rv(fe_ptr_to(L->c, lv.ty), lv.reg);
}

/* !b of a bool register. */
static fe_val logical_not(fe_lower *L, fe_val b)
{
    if (L->c->err)
        return fe_bad(L);
    int r = fe_reg(L, RT(TY_BOOL, 1, 0));
    fe_emit(L, "not.bool %%r%d, %%r%d", r, b.reg);
    return fe_rv(fe_ty(TY_BOOL), r);
}

static fe_val unary(fe_lower *L, fe_node *e)
{
    if (e->op == '-' || e->op == '+' || e->op == '~') {
        /* the operand first, then its type: typing it aside first (fe_type_of) made
         * - - - x exponential, each level lowering its operand twice */
        fe_val a = fe_gen(L, e->a), out;
        char op[2] = {(char)e->op, 0};
        if ((a.ty->kind == TY_VEC || a.ty->kind == TY_STRUCT) && fe_call_operator(L, e->tok, op, &a, 1, &out))
            return out; /* -v with a user operator-(float4), -s of a struct's */
        if (a.ty->kind == TY_VEC && e->op == '-' && fe_is_half_pair(a.ty))
            return fe_half2_neg(L, a);
        if (a.ty->kind == TY_STRUCT) { /* -w: of its conversion's value */
            fe_val v = fe_convert(L, a, conversion_type(L, a.ty, NULL), e->tok);
            return L->c->err ? fe_bad(L) : arith_unary(L, e->op, v, e->tok);
        }
        return arith_unary(L, e->op, fe_load(L, a), e->tok);
    }
    if (e->op == '&')
        return address_of(L, e);
    if (e->op == '!' && e->a->kind == N_STR)
        return logical_not(L, fe_cond_bool(L, e->a));
    /* the operand once, then its type (typing it aside first made ! ! ! x and
     * * & * & x exponential, as it did - - - x) */
    fe_val a = fe_gen(L, e->a), out;
    char op[2] = {(char)e->op, 0};
    if ((a.ty->kind == TY_VEC || a.ty->kind == TY_STRUCT) && fe_call_operator(L, e->tok, op, &a, 1, &out))
        return out; /* !v, *s with a user operator */
    if (a.ty->kind == TY_STRUCT) {
        if (e->op == '!' && a.lv == LV_MEM) /* !opt: its conversion to bool */
            return L->c->err ? fe_bad(L) : logical_not(L, struct_truth(L, a, e->tok));
        fe_error(L->c, e->tok, CVM_SYNTAX, "no operator%s for '%s'", op, a.ty->name);
        return fe_bad(L);
    }
    switch (e->op) {
    case '*': {
        fe_val p = fe_load(L, a);
        if (p.ty->kind != TY_PTR) {
            fe_error(L->c, e->tok, CVM_SYNTAX, "indirection requires a pointer operand");
            return fe_bad(L);
        }
        fe_val lv = {p.ty->base, p.reg, LV_MEM, 0, p.ty->base->is_volatile, false, false, false};
        return lv;
    }
    case '!':
        return logical_not(L, fe_truth(L, fe_load(L, a), e->tok));
    default:
        return arith_unary(L, e->op, fe_load(L, a), e->tok);
    }
}

/* An integer literal with C's type for its value and suffixes; a zero is
 * also a null pointer constant (0, 0u, NULL, nullptr), of its own type. */
static fe_val literal_int(fe_lower *L, fe_node *e)
{
    uint64_t v = e->ival;
    fe_val out = fe_const_int(L, fe_literal_kind(e), (int64_t)v);
    out.is_null = v == 0 && (!e->ty || fe_is_int(e->ty));
    if (out.is_null && fe_tok_is(e->tok, "nullptr"))
        out.is_null = FE_NULLPTR;
    return out;
}

/* The type argument v has in overload resolution and deduction: nullptr's
 * is a pointer that fits any pointer parameter (a conversion) and deduces
 * no T *, never a number. */
fe_type *fe_arg_type(fe_lower *L, fe_val v)
{
    if (v.is_null != FE_NULLPTR)
        return v.ty;
    fe_type *t = fe_ptr_to(L->c, fe_ty(TY_VOID));
    t->is_nullptr = true;
    return t;
}

/* A static constant of the struct whose member function is being lowered
 * (a lambda's: its enclosing one's), named in a body above its
 * declaration (the parser folds later uses): its value in *out. */
static bool member_static(fe_lower *L, const char *name, fe_val *out)
{
    for (const fe_frame *f = L->frame; f; f = f->up) {
        const fe_type *o = f->fn ? f->fn->owner : NULL;
        if (o && o->is_lambda)
            continue;
        for (const fe_tname *s = o ? (o->origin ? o->origin : o)->statics : NULL; s; s = s->next)
            if (strcmp(s->name, name) == 0) {
                *out = s->value_expr ? fe_gen(L, s->value_expr) : fe_const_int(L, s->ty->kind, s->value);
                return true;
            }
        return false;
    }
    return false;
}

/* Is v a module-scope variable (not a local, parameter or member)? */
static bool module_var(const fe_lower *L, const fe_var *v)
{
    for (const fe_var *q = L->vars; q && q != L->globals; q = q->next)
        if (q == v)
            return false;
    return true;
}

static fe_val ident(fe_lower *L, fe_node *e)
{
    fe_var *v = fe_lookup(L, e->name);
    if (v && v->ambiguous) {
        fe_error(L->c, e->tok, CVM_SYNTAX, "member '%s' is found in more than one base class (ambiguous); "
                 "qualify it (B::%s)", e->name, e->name);
        return fe_bad(L);
    }
    fe_val out;
    if (v && !module_var(L, v))
        return fe_addr_of_var(L, v);
    if (!e->qual && member_static(L, e->name, &out))
        return out; /* a struct's constant hides the module's variable */
    if (v)
        return fe_addr_of_var(L, v);
    if (fe_builtin_ident(L, e, &out))
        return out;
    if (fe_host_name(L->c, e->name, false))
        fe_error(L->c, e->tok, CVM_SYNTAX, "'%s' is a host variable; kernels use __device__, __constant__ "
                 "or __shared__ variables and their parameters", e->name);
    else if (fe_unsupported_name(e->name, strlen(e->name)))
        fe_error(L->c, e->tok, CVM_UNSUPPORTED, "%s", fe_unsupported_name(e->name, strlen(e->name)));
    else
        fe_error(L->c, e->tok, CVM_SYNTAX, "use of undeclared identifier '%s'", e->name);
    return fe_bad(L);
}

static fe_val gen_in(fe_lower *L, fe_node *e);

fe_val fe_gen(fe_lower *L, fe_node *e)
{
    if (L->c->err || !fe_enter(L->c, e->tok))
        return fe_rv(fe_ty(TY_I32), 0);
    fe_val v = gen_in(L, e);
    fe_leave(L->c);
    return v;
}

static fe_val gen_in(fe_lower *L, fe_node *e)
{
    if (L->c->err)
        return fe_rv(fe_ty(TY_I32), 0);
    switch (e->kind) {
    case N_INT:
        return literal_int(L, e);
    case N_BOOL:
        return fe_const_int(L, TY_BOOL, (int64_t)e->ival);
    case N_FLOAT:
        return fe_const_float(L, e->is_float32 ? TY_F32 : TY_F64, e->fval);
    case N_IDENT:
        return ident(L, e);
    case N_BIN: {
        if (e->op == FE_OP2('&', '&') || e->op == FE_OP2('|', '|'))
            return logical(L, e);
        fe_val c;
        if (contract(L, e->op, e->a, NULL, e->b, e->tok, &c))
            return c;
        fe_val a = fe_rvalue(L, e->a);
        fe_val b = fe_rvalue(L, e->b);
        return any_binop(L, e->op, a, b, e->tok);
    }
    case N_ASSIGN:
        return assignment(L, e);
    case N_UNARY:
        return unary(L, e);
    case N_PREINC: case N_PREDEC: case N_POSTINC: case N_POSTDEC:
        return incdec(L, e);
    case N_COND:
        return conditional(L, e);
    case N_COMMA:
        fe_rvalue(L, e->a);
        return fe_gen(L, e->b);
    case N_CAST:
        return cast(L, e);
    case N_SIZEOF: {
        fe_type *t = e->ty ? e->ty : fe_type_of(L, e->a);
        if (e->op == 'R' && t->kind != TY_ARRAY) { /* range-based for */
            fe_error(L->c, e->a->tok, CVM_UNSUPPORTED,
                     "a range-based for needs an array of known size (not a pointer or a struct)");
            return fe_bad(L);
        }
        return fe_const_int(L, TY_U64, t->size);
    }
    case N_CALL:
        return fe_call_expr(L, e);
    case N_INDEX: {
        fe_val base = fe_gen(L, e->a);
        if (base.ty->kind == TY_STRUCT) {
            fe_val args[2] = {base, fe_gen(L, e->b)}, out;
            if (fe_call_operator(L, e->tok, "[]", args, 2, &out))
                return out;
            base = fe_convert(L, base, fe_ptr_to(L->c, fe_ty(TY_I32)), e->tok); /* T* conversion */
        }
        return index_of(L, base, e->b, e->tok);
    }
    case N_MEMBER: {
        fe_val out;
        if (fe_builtin_member(L, e, &out))
            return out;
        return member_of(L, fe_gen(L, e->a), e);
    }
    case N_ARROW: {
        fe_val p = fe_rvalue(L, e->a);
        if (p.ty->kind != TY_PTR) {
            fe_error(L->c, e->tok, CVM_SYNTAX, "'->' on a non-pointer");
            return fe_bad(L);
        }
        fe_val lv = {p.ty->base, p.reg, LV_MEM, 0, p.ty->base->is_volatile, false, false, false};
        return member_of(L, lv, e);
    }
    case N_STR:
        fe_error(L->c, e->tok, CVM_UNSUPPORTED, "string literals are only supported as printf formats");
        return fe_bad(L);
    case N_LAMBDA: { /* the closure: an empty object; calls resolve names where it was made */
        fe_type *ty = fe_closure_type(L, e->ty);
        if (!ty)
            return fe_bad(L);
        ty->lambda_base = L->vars;
        ty->lambda_env = fe_capture_env(L, ty->methods);
        return fe_construct(L, ty, NULL, e->tok);
    }
    case N_THIS: {
        fe_var *self = fe_lookup(L, "this");
        if (self)
            return self->val;
        fe_error(L->c, e->tok, CVM_UNSUPPORTED, "'this' outside a member function");
        return fe_bad(L);
    }
    case N_INITLIST:
        fe_error(L->c, e->tok, CVM_UNSUPPORTED, "a braced list is only supported as an initializer, "
                 "an assigned or returned value, or an argument of a __device__ function");
        return fe_bad(L);
    default:
        fe_error(L->c, e->tok, CVM_INTERNAL, "internal compiler error: unexpected node %d", (int)e->kind);
        return fe_bad(L);
    }
}

fe_val fe_rvalue(fe_lower *L, fe_node *e) { return fe_load(L, fe_gen(L, e)); }

/* Type of an expression without emitting code: lowered into a scratch
 * body that is thrown away (registers stay declared, unused). */
fe_type *fe_type_of(fe_lower *L, fe_node *e) { return fe_type_of_arg(L, e, false, NULL); }

/* The type of expression e without emitting code; with `qualified`, an
 * lvalue keeps its const (overload resolution: a const float does not
 * bind to float &). */
fe_type *fe_type_of_arg(fe_lower *L, fe_node *e, bool qualified, bool *rvalue)
{
    if (rvalue)
        *rvalue = false;
    if (e->kind == N_INITLIST) /* an argument {a, b}: the parameter's type, once one is chosen */
        return NULL;
    size_t len = L->body.len;
    uint32_t ninsn = L->ninsn;
    int depth = L->depth, constructs = L->constructs;
    fe_val v = fe_gen(L, e);
    L->body.len = len;
    if (L->body.p)
        L->body.p[len] = 0;
    L->ninsn = ninsn;
    L->depth = depth;
    L->constructs = constructs;
    L->loc_line = 0;
    if (rvalue) /* a temporary: binds to a const reference only */
        *rvalue = v.lv == LV_NONE || v.temp;
    if (v.is_null == FE_NULLPTR)
        return fe_arg_type(L, v);
    if (v.lv == LV_NONE || v.ty->kind == TY_ARRAY || v.ty->kind == TY_STRUCT || qualified)
        return v.ty;
    return fe_unqual(v.ty);
}
