/*
 * lower_class.c - base classes in the CUDA frontend's lowering (docs/cuda.md
 * "Inheritance"): a derived struct holds each base as a subobject at the
 * offset the layout gave it (type.c fe_struct_layout), so converting a D
 * object, pointer or reference to one of its bases is an address plus that
 * offset (minus it for static_cast down to D), and a member function of a
 * base runs with `this` at the base's subobject. The member lookup itself
 * is type.c's for data members (fe_member_lookup); member functions are
 * found here, in the struct that declares the name nearest to D.
 */
#include "lower.h"

#include <string.h>

bool fe_derives(const fe_type *d, const fe_type *b)
{
    uint32_t off;
    bool amb;
    return d && b && d->kind == TY_STRUCT && b->kind == TY_STRUCT && !fe_same_type(d, b) &&
           fe_base_of(d, b, &off, &amb);
}

int fe_base_depth(const fe_type *d, const fe_type *b)
{
    if (!d || !b || d->kind != TY_STRUCT || b->kind != TY_STRUCT)
        return -1;
    if (fe_same_type(d, b))
        return 0;
    int best = -1;
    for (const fe_member *m = d->members; m; m = m->next) {
        int k = m->is_base ? fe_base_depth(m->ty, b) : -1;
        if (k >= 0 && (best < 0 || k + 1 < best))
            best = k + 1;
    }
    return best;
}

/* A copy of t with the const and volatile of `like` (a base seen through a const D stays const). */
static fe_type *with_quals(fe_lower *L, fe_type *t, const fe_type *like)
{
    return fe_qualified(L->c, fe_unqual(t), like->is_const, like->is_volatile);
}

/* The error of a base reached twice (struct D : B, C with C : B). */
static void ambiguous_base(fe_lower *L, const fe_type *d, const fe_type *b, const fe_tok *at)
{
    char dn[128], bn[128];
    fe_type_str(d, dn, sizeof dn);
    fe_type_str(b, bn, sizeof bn);
    fe_error(L->c, at, CVM_SYNTAX, "'%s' is an ambiguous base of '%s' (it has two subobjects of that type)", bn,
             dn);
}

bool fe_to_base(fe_lower *L, fe_val *v, fe_type *b, const fe_tok *at)
{
    fe_type *d = v->ty;
    if (d->kind != TY_STRUCT || b->kind != TY_STRUCT || v->lv != LV_MEM)
        return false;
    if (fe_same_type(d, b))
        return true;
    uint32_t off = 0;
    bool amb = false;
    if (!fe_base_of(d, b, &off, &amb))
        return false;
    if (amb) {
        ambiguous_base(L, d, b, at);
        return true;
    }
    fe_val q = off ? fe_ptr_add(L, fe_rv(fe_ty(TY_I8), v->reg), fe_const_int(L, TY_I64, off), 1, at) : *v;
    v->reg = q.reg;
    v->ty = with_quals(L, b, d);
    v->temp = false;
    return true;
}

fe_val fe_as_base(fe_lower *L, fe_val v, fe_type *t, const fe_tok *at)
{
    if (t && v.lv == LV_MEM && fe_derives(v.ty, fe_unqual(t)))
        fe_to_base(L, &v, fe_unqual(t), at);
    return v;
}

fe_val fe_ptr_to_base(fe_lower *L, fe_val p, fe_type *to, const fe_tok *at)
{
    fe_type *from = p.ty->base, *want = to->base;
    uint32_t off = 0;
    bool amb = false, down = false;
    if (!fe_base_of(from, want, &off, &amb)) {
        if (!fe_base_of(want, from, &off, &amb))
            return fe_rv(to, p.reg);
        down = true; /* static_cast<D *>(b) */
    }
    if (amb) {
        ambiguous_base(L, down ? want : from, down ? from : want, at);
        return fe_rv(to, p.reg);
    }
    if (!off)
        return fe_rv(to, p.reg);
    fe_val q = fe_ptr_add(L, fe_rv(fe_ty(TY_I8), p.reg), fe_const_int(L, TY_I64, off), down ? -1 : 1, at);
    if (fe_space_of(L, p.reg) != SP_GLOBAL) /* only a global pointer can be null */
        return fe_rv(to, q.reg);
    /* a null pointer stays null, as C++ converts it */
    int z = fe_reg(L, RT(TY_PTR, 1, SP_GLOBAL)), nz = fe_reg(L, RT(TY_BOOL, 1, 0)), r = fe_reg(L, L->rtypes[p.reg]);
    fe_emit(L, "const.ptr.global %%r%d, 0", z);
    fe_emit(L, "ne.ptr.global %%r%d, %%r%d, %%r%d", nz, p.reg, z);
    fe_emit(L, "select.ptr.global %%r%d, %%r%d, %%r%d, %%r%d", r, q.reg, p.reg, nz);
    return fe_rv(to, r);
}

bool fe_ref_to_derived(fe_lower *L, fe_val *v, fe_type *to, const fe_tok *at)
{
    fe_type *b = v->ty;
    uint32_t off = 0;
    bool amb = false;
    if (v->lv != LV_MEM || b->kind != TY_STRUCT || to->kind != TY_STRUCT || fe_same_type(b, to) ||
        !fe_base_of(to, b, &off, &amb))
        return false;
    if (amb) {
        ambiguous_base(L, to, b, at);
        return true;
    }
    if (off)
        v->reg = fe_ptr_add(L, fe_rv(fe_ty(TY_I8), v->reg), fe_const_int(L, TY_I64, off), -1, at).reg;
    v->ty = to;
    v->temp = false;
    return true;
}

fe_type *fe_base_named(const fe_type *t, const char *name)
{
    for (const fe_member *m = t->kind == TY_STRUCT ? t->members : NULL; m; m = m->next) {
        const fe_type *b = m->ty, *root = b->origin ? b->origin : b;
        if (m->is_base && ((b->name && strcmp(b->name, name) == 0) ||
                           (root->tmpl && strcmp(root->tmpl->name, name) == 0)))
            return m->ty;
    }
    return NULL;
}

/* Does struct t itself declare a member function or member function template `name`? */
static bool declares_method(const fe_type *t, const char *name)
{
    for (const fe_node *m = t->methods; m; m = m->next)
        if (strcmp(m->name, name) == 0)
            return true;
    return fe_member_template(t, name) != NULL;
}

const fe_type *fe_method_scope(const fe_type *t, const char *name, uint32_t *off, bool *ambiguous)
{
    *off = 0;
    *ambiguous = false;
    if (declares_method(t, name))
        return t;
    if (strcmp(name, "operator=") == 0)
        return NULL; /* a struct's own implicit assignment hides its bases' */
    const fe_type *found = NULL;
    for (const fe_member *m = t->kind == TY_STRUCT ? t->members : NULL; m; m = m->next) {
        uint32_t inner = 0;
        bool amb = false;
        const fe_type *s = m->is_base ? fe_method_scope(m->ty, name, &inner, &amb) : NULL;
        if (amb || (s && found)) {
            *ambiguous = true;
            return NULL;
        }
        if (s) {
            found = s;
            *off = m->offset + inner;
        }
    }
    return found;
}

bool fe_method_owner(fe_lower *L, fe_val *obj, fe_type **st, const char *name, const fe_tok *at)
{
    uint32_t off = 0;
    bool amb = false;
    const fe_type *s = fe_method_scope(*st, name, &off, &amb);
    if (amb) {
        fe_error(L->c, at, CVM_SYNTAX, "member function '%s' is found in more than one base class of '%s' "
                 "(ambiguous); qualify it (B::%s)", name, (*st)->name, name);
        return false;
    }
    if (!s || s == *st)
        return true;
    fe_type *base = (fe_type *)s;
    if (obj) {
        if (off)
            obj->reg = fe_ptr_add(L, fe_rv(fe_ty(TY_I8), obj->reg), fe_const_int(L, TY_I64, off), 1, at).reg;
        obj->ty = with_quals(L, base, obj->ty);
        obj->temp = false;
        *st = obj->ty;
    } else {
        *st = base;
    }
    return true;
}

/* Has struct t a user copy assignment operator (operator= taking a t)? */
static bool user_assign(const fe_type *t)
{
    for (const fe_node *m = t->methods; m; m = m->next)
        if (strcmp(m->name, "operator=") == 0 && m->params && !m->params->next && m->params->ty &&
            fe_same_type(fe_unqual(m->params->ty), t))
            return true;
    return false;
}

/* Does assigning a t run a user operator=: its own, or a base's or a
 * member's (an implicit copy assignment assigns each by its own)? */
static bool assigns_by_operator(const fe_type *t)
{
    while (t->kind == TY_ARRAY)
        t = t->base;
    if (t->kind != TY_STRUCT || t->is_union)
        return false;
    if (user_assign(t))
        return true;
    for (const fe_member *m = t->members; m; m = m->next)
        if (assigns_by_operator(m->ty))
            return true;
    return false;
}

void fe_assign_struct(fe_lower *L, fe_val dst, fe_val src, fe_type *t, const fe_tok *at)
{
    dst.lv = src.lv = LV_MEM;
    dst.ty = src.ty = t;
    if (!assigns_by_operator(t)) {
        fe_copy_mem(L, dst, src, t);
        return;
    }
    if (t->kind == TY_ARRAY) {
        for (uint32_t i = 0; i < t->len && !L->c->err; i++) {
            fe_val off = fe_const_int(L, TY_I64, (int64_t)i * t->base->size);
            fe_assign_struct(L, fe_ptr_add(L, dst, off, 1, at), fe_ptr_add(L, src, off, 1, at), t->base, at);
        }
        return;
    }
    fe_val out;
    if (user_assign(t)) {
        fe_call_method(L, at, dst, "operator=", &src, 1, &out);
        return;
    }
    for (const fe_member *m = t->members; m && !L->c->err; m = m->next) { /* bases first, in order */
        fe_val off = fe_const_int(L, TY_I64, m->offset);
        fe_assign_struct(L, fe_ptr_add(L, dst, off, 1, at), fe_ptr_add(L, src, off, 1, at), m->ty, at);
    }
}
