/*
 * lower_conv.c - values between types and in memory (docs/lowering.md,
 * "Types", "Memory"): C's conversions as cvt (a struct through its
 * conversion operator or constructor, a pointer to a base at its offset,
 * a null pointer constant), loads and stores by the pointer register's
 * space. The rest of the expressions are lower_expr.c's.
 */
#include "lower.h"

#include <string.h>

/* ---- conversions ---- */

/* A struct to another type through its conversion operator: the one of the
 * exact type first, then one of the same kind (pointer, arithmetic). */
static fe_val convert_struct(fe_lower *L, fe_val v, fe_type *to, const fe_tok *at)
{
    fe_node *pick = NULL;
    fe_type *st = v.ty; /* a base's conversion operators are the derived struct's */
    if (!fe_method_owner(L, &v, &st, "operator()conv", at))
        return fe_bad(L);
    for (fe_node *m = v.ty->methods; m; m = m->next) {
        if (!m->is_conversion || !m->body || (m->is_explicit && !L->explicit_cast))
            continue; /* explicit: casts and conditions (struct_truth) only */
        fe_type *r = fe_unqual(m->ty);
        if (fe_same_type(r, to) && (!pick || !fe_same_type(fe_unqual(pick->ty), to) ||
                                    (r->kind == TY_PTR && r->base->is_const == to->base->is_const)))
            pick = m;
        else if (!pick && ((r->kind == TY_PTR) == (to->kind == TY_PTR)))
            pick = m;
    }
    if (!pick) {
        char a[128], b[128];
        fe_type_str(v.ty, a, sizeof a);
        fe_type_str(to, b, sizeof b);
        fe_error(L->c, at, CVM_SYNTAX, "cannot convert '%s' to '%s'", a, b);
        return fe_bad(L);
    }
    fe_val r = fe_call_fn(L, at, pick, &v, NULL, 0);
    return fe_convert(L, r, to, at);
}

/* Has struct st (or a base) a conversion operator to struct type t? */
static bool converts_by_operator(const fe_type *st, const fe_type *t)
{
    uint32_t off;
    bool amb;
    const fe_type *owner = st->kind == TY_STRUCT ? fe_method_scope(st, "operator()conv", &off, &amb) : NULL;
    for (const fe_node *m = owner ? owner->methods : NULL; m; m = m->next)
        if (m->is_conversion && m->body && m->ty && fe_same_type(fe_unqual(m->ty), t))
            return true;
    return false;
}

fe_val fe_convert(fe_lower *L, fe_val v, fe_type *to, const fe_tok *at)
{
    fe_type *from = v.ty;
    if (v.lv != LV_NONE)
        v = fe_load(L, v), from = v.ty;
    to = fe_unqual(to);
    if (to->kind == TY_VOID)
        return v;
    if (from->kind == TY_STRUCT && v.lv == LV_MEM && !fe_same_type(fe_unqual(from), to))
        return convert_struct(L, v, to, at);
    if (to->kind == TY_PTR && from->kind == TY_PTR && !L->reinterpret &&
        (fe_derives(fe_unqual(from->base), fe_unqual(to->base)) ||
         (L->explicit_cast && fe_derives(fe_unqual(to->base), fe_unqual(from->base)))))
        return fe_ptr_to_base(L, v, to, at); /* D * to B *, static_cast<D *>(b) */
    if (to->kind == TY_PTR && from->kind == TY_PTR && !L->explicit_cast && to->base->kind != TY_VOID &&
        from->base->kind != TY_VOID && !fe_same_type(fe_unqual(from->base), fe_unqual(to->base))) {
        char a[128], b[128]; /* as C++: a pointer changes its pointee type only in a cast */
        fe_type_str(from, a, sizeof a);
        fe_type_str(to, b, sizeof b);
        fe_error(L->c, at, CVM_SYNTAX, "cannot convert '%s' to '%s' without a cast", a, b);
        return fe_rv(to, v.reg);
    }
    if (fe_same_type(fe_unqual(from), to) || (to->kind == TY_PTR && from->kind == TY_PTR)) {
        v.ty = to;
        return v;
    }
    if (fe_is_arith(from) && fe_is_arith(to)) {
        if (fe_unqual(from)->kind == to->kind)
            return fe_rv(to, v.reg);
        int r = fe_reg(L, fe_rtype_of(L, to, 0));
        fe_emit(L, "cvt.%s %%r%d, %%r%d", fe_elem_name(to->kind), r, v.reg);
        return fe_rv(to, r);
    }
    if (to->kind == TY_BOOL && from->kind == TY_PTR)
        return fe_null_test(L, v, false, at);
    if (to->kind == TY_PTR && v.is_null) { /* a null pointer is a global one */
        int r = fe_reg(L, RT(TY_PTR, 1, SP_GLOBAL));
        fe_emit(L, "const.ptr.global %%r%d, 0", r);
        return fe_rv(to, r);
    }
    if (to->kind == TY_PTR && from->kind != TY_PTR) {
        fe_error(L->c, at, CVM_UNSUPPORTED, "integer to pointer conversion is not supported in kernels");
        return fe_rv(to, v.reg);
    }
    if (to->kind == TY_VEC && fe_is_arith(from) && v.fill) { /* a default zero: every element */
        fe_val s = fe_convert(L, v, to->base, at);
        int r = fe_reg(L, fe_rtype_of(L, to, 0));
        fe_emit(L, "splat.%s %%r%d, %%r%d", fe_tname_of(L, r), r, s.reg);
        return fe_rv(to, r);
    }
    if (to->kind == TY_STRUCT && fe_converts_to(from, to)) /* static_cast<S>(4), (S)5: its constructor */
        return fe_struct_value(L, v, to, at);
    char a[128], b[128];
    fe_type_str(from, a, sizeof a);
    fe_type_str(to, b, sizeof b);
    if (to->kind == TY_VEC && fe_is_arith(from)) /* nvcc: no suitable constructor */
        fe_error(L->c, at, CVM_SYNTAX,
                 "cannot convert '%s' to '%s': CUDA's vector types have no conversion from a "
                 "scalar (make_%s with every element)", a, b, b);
    else
        fe_error(L->c, at, CVM_SYNTAX, "cannot convert '%s' to '%s'", a, b);
    return fe_rv(to, v.reg);
}

fe_val fe_load(fe_lower *L, fe_val v)
{
    if (v.lv == LV_NONE)
        return v;
    if (v.lv == LV_REG)
        return fe_rv(v.ty, v.reg);
    if (v.lv == LV_ELEM) {
        int r = fe_reg(L, fe_rtype_of(L, v.ty, 0));
        fe_emit(L, "extract.%s %%r%d, %%r%d, %d", fe_tname_of(L, r), r, v.reg, v.elem);
        return fe_rv(v.ty, r);
    }
    fe_type *t = v.ty;
    if (t->kind == TY_ARRAY) /* decay: the address is the value */
        return fe_rv(fe_ptr_to(L->c, t->base), v.reg);
    if (t->kind == TY_STRUCT || t->kind == TY_DIM3)
        return v; /* aggregates stay in memory */
    int sp = fe_space_of(L, v.reg);
    int r = fe_reg(L, fe_rtype_of(L, t, t->kind == TY_PTR ? SP_GLOBAL : 0));
    (void)sp;
    fe_emit(L, "%s.%s %%r%d, [%%r%d]", v.vol ? "ld.volatile" : "ld", fe_tname_of(L, r), r, v.reg);
    return fe_rv(fe_unqual(t), r);
}

/* Copies an aggregate between memory locations, scalar by scalar. */
void fe_copy_mem(fe_lower *L, fe_val dst, fe_val src, fe_type *t)
{
    if (t->kind == TY_STRUCT || t->kind == TY_ARRAY || t->kind == TY_DIM3) {
        if (t->kind == TY_DIM3) {
            for (int i = 0; i < 3; i++) {
                fe_val d = fe_ptr_add(L, dst, fe_const_int(L, TY_I64, i * 4), 1, NULL);
                fe_val s = fe_ptr_add(L, src, fe_const_int(L, TY_I64, i * 4), 1, NULL);
                d.ty = s.ty = fe_ty(TY_U32);
                fe_copy_mem(L, d, s, fe_ty(TY_U32));
            }
            return;
        }
        if (t->kind == TY_ARRAY) {
            for (uint32_t i = 0; i < t->len && !L->c->err; i++) {
                fe_val off = fe_const_int(L, TY_I64, (int64_t)i * t->base->size);
                fe_val d = fe_ptr_add(L, dst, off, 1, NULL), s = fe_ptr_add(L, src, off, 1, NULL);
                fe_copy_mem(L, d, s, t->base);
            }
            return;
        }
        for (fe_member *m = t->members; m && !L->c->err; m = m->next) {
            fe_val off = fe_const_int(L, TY_I64, m->offset);
            fe_val d = fe_ptr_add(L, dst, off, 1, NULL), s = fe_ptr_add(L, src, off, 1, NULL);
            fe_copy_mem(L, d, s, m->ty);
        }
        return;
    }
    fe_val s = src;
    s.lv = LV_MEM;
    s.ty = t;
    fe_val x = fe_load(L, s);
    int r = x.reg;
    fe_emit(L, "%s.%s [%%r%d], %%r%d", dst.vol ? "st.volatile" : "st", fe_tname_of(L, r), dst.reg, r);
}

void fe_store(fe_lower *L, fe_val dst, fe_val v, const fe_tok *at)
{
    fe_type *t = dst.ty;
    if (v.lv == LV_MEM && fe_dim3_pair(fe_unqual(t), fe_unqual(v.ty))) {
        fe_copy_mem(L, dst, v, fe_ty(TY_DIM3));
        return;
    }
    if (t->kind == TY_STRUCT || t->kind == TY_DIM3) {
        v = fe_as_base(L, v, t, at); /* b = d: d's B */
        if (v.lv != LV_MEM || !fe_same_type(fe_unqual(v.ty), fe_unqual(t))) {
            fe_val tmp; /* V2 q = 3.0f;: its converting constructor, built aside (b = b.a reads b) */
            if (fe_construct_from(L, (tmp = fe_local_temp(L, fe_unqual(t))), t, v, at))
                fe_copy_mem(L, dst, tmp, t);
            else if (v.lv == LV_MEM && converts_by_operator(v.ty, fe_unqual(t))) /* R r = q; Q::operator R() */
                fe_copy_mem(L, dst, fe_struct_value(L, convert_struct(L, v, fe_unqual(t), at), t, at), t);
            else
                fe_error(L->c, at, CVM_SYNTAX, "incompatible struct assignment%s",
                         fe_closures_apart(fe_unqual(t), fe_unqual(v.ty)));
            return;
        }
        fe_copy_mem(L, dst, v, t);
        return;
    }
    if (t->kind == TY_ARRAY) {
        fe_error(L->c, at, CVM_SYNTAX, "arrays cannot be assigned");
        return;
    }
    v = fe_convert(L, v, t, at);
    switch (dst.lv) {
    case LV_REG:
        if (t->kind == TY_PTR && fe_space_of(L, dst.reg) != fe_space_of(L, v.reg) &&
            !fe_adopt_space(L, dst.reg, v.reg)) { /* `int *p; p = &x;` is local */
            fe_error(L->c, at, CVM_UNSUPPORTED,
                     "a pointer variable cannot hold pointers to different memory spaces (global, shared, local, constant)");
            return;
        }
        fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, dst.reg), dst.reg, v.reg);
        return;
    case LV_ELEM:
        fe_emit(L, "insert.%s %%r%d, %%r%d, %%r%d, %d", fe_tname_of(L, dst.reg), dst.reg, dst.reg, v.reg,
                dst.elem);
        return;
    case LV_MEM:
        if (fe_space_of(L, dst.reg) == SP_CONST) {
            fe_error(L->c, at, CVM_SYNTAX, "cannot write to __constant__ memory in a kernel");
            return;
        }
        int sp = t->kind == TY_PTR ? fe_space_of(L, v.reg) : SP_NONE;
        if (sp == SP_SHARED || sp == SP_LOCAL || sp == SP_CONST) {
            /* a pointer read back from memory is a global one: this one would fault there */
            fe_error(L->c, at, CVM_UNSUPPORTED,
                     "a pointer to %s memory cannot be stored in memory (an array element, a struct member, a "
                     "variable whose address is taken): pointers read from memory are global ones; keep it in "
                     "a local variable", sp == SP_SHARED ? "shared" : sp == SP_LOCAL ? "local" : "__constant__");
            return;
        }
        fe_emit(L, "%s.%s [%%r%d], %%r%d", dst.vol ? "st.volatile" : "st", fe_tname_of(L, v.reg),
                dst.reg, v.reg);
        return;
    default:
        fe_error(L->c, at, CVM_SYNTAX, "expression is not assignable");
    }
}

/* A reference bound to a value of another arithmetic type: a const T &
 * (or T &&) binds a temporary holding the value converted to T, as in C++
 * (`const float &r = x;` of an int x: later stores to x do not show
 * through r; `float &&a = 5;` is 5.0f); a plain T & cannot bind it. False
 * after that error. */
bool fe_bind_converted(fe_lower *L, fe_val *v, fe_type *rt, const fe_tok *at)
{
    fe_type *want = fe_unqual(fe_no_ref(L->c, rt)), *have = fe_unqual(v->ty);
    /* an enum and its underlying type are the same numbers but other types */
    const bool other_enum = rt->enum_id != v->ty->enum_id;
    if (!fe_is_arith(want) || !fe_is_arith(have) || (fe_same_type(want, have) && !other_enum))
        return true;
    if (!rt->is_const && !rt->is_rref && fe_same_type(want, have))
        return true; /* an int & of a Color: accepted, as enums are ints here (docs/cuda.md) */
    if (!rt->is_const && !rt->is_rref) {
        if (v->lv == LV_NONE)
            return true; /* "must bind to an lvalue", said where it binds */
        char w[128], h[128];
        fe_type_str(want, w, sizeof w);
        fe_type_str(have, h, sizeof h);
        fe_error(L->c, at, CVM_SYNTAX, "a '%s &' cannot bind to an lvalue of type '%s'", w, h);
        return false;
    }
    fe_val t = fe_convert(L, fe_load(L, *v), want, at);
    if (fe_same_type(want, have)) { /* an enum's value: the temporary is a copy of the same bits */
        const int r = fe_reg(L, L->rtypes[t.reg]);
        fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, r), r, t.reg);
        t.reg = r;
    }
    *v = t;
    return true;
}
