/*
 * lower_module.c - module-scope __device__ and __constant__ variables of
 * the CUDA frontend: their .global/.constant directives and the bytes of
 * their initializers, which must be constant expressions (literals,
 * + - * /, casts, const variables) evaluated here in the C types.
 */
#include "lower.h"

#include <stdio.h>
#include <string.h>

/* A constant number: kind 0 integer (i), 1 float, 2 double (d). */
typedef struct cnum { int kind; int64_t i; double d; } cnum;

static double cnum_d(cnum v) { return v.kind ? v.d : (double)v.i; }

/* double to integer, saturating (as the VM's conversions; NaN gives 0) */
static int64_t d2i(double d)
{
    if (d != d)
        return 0;
    if (d >= 9223372036854775807.0)
        return INT64_MAX;
    if (d <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)d;
}

/* Constant expressions of module-scope initializers: literals, + - * /,
 * casts and const variables, in the C types (float arithmetic in float). */
static bool const_num(fe_ctx *c, fe_node *e, cnum *out, int depth)
{
    if (!e || depth > 32)
        return false;
    if (e->kind != N_IDENT && fe_const_eval(c, e, &out->i)) {
        out->kind = 0;
        return true;
    }
    switch (e->kind) {
    case N_FLOAT:
        out->kind = e->is_float32 ? 1 : 2;
        out->d = e->is_float32 ? (double)(float)e->fval : e->fval;
        return true;
    case N_UNARY: {
        if ((e->op != '-' && e->op != '+') || !const_num(c, e->a, out, depth + 1))
            return false;
        if (e->op == '-') {
            if (out->kind)
                out->d = -out->d;
            else
                out->i = (int64_t)(0 - (uint64_t)out->i);
        }
        return true;
    }
    case N_BIN: {
        cnum a, b;
        if ((e->op != '+' && e->op != '-' && e->op != '*' && e->op != '/') || !const_num(c, e->a, &a, depth + 1) ||
            !const_num(c, e->b, &b, depth + 1) || (!a.kind && !b.kind))
            return false; /* integer forms are fe_const_eval's */
        double x = cnum_d(a), y = cnum_d(b), r = 0;
        out->kind = a.kind > b.kind ? a.kind : b.kind;
        if (out->kind == 1) { /* float arithmetic, rounded once */
            float fx = (float)x, fy = (float)y;
            r = e->op == '+' ? fx + fy : e->op == '-' ? fx - fy : e->op == '*' ? fx * fy : fx / fy;
            r = (double)(float)r;
        } else {
            r = e->op == '+' ? x + y : e->op == '-' ? x - y : e->op == '*' ? x * y : x / y;
        }
        out->d = r;
        return true;
    }
    case N_CAST: {
        fe_node *x = e->op == 'F' ? e->args : e->a;
        if (!x || (e->op == 'F' && x->next) || !fe_is_arith(e->ty) || !const_num(c, x, out, depth + 1))
            return false;
        if (fe_is_float(e->ty)) {
            double d = cnum_d(*out);
            out->kind = e->ty->kind == TY_F64 ? 2 : 1;
            out->d = out->kind == 1 ? (double)(float)d : d;
        } else if (out->kind) {
            out->i = d2i(out->d);
            out->kind = 0;
        }
        return true;
    }
    case N_IDENT:
        for (fe_node *g = c->globals; g; g = g->next)
            if (strcmp(g->name, e->name) == 0)
                return g->ty->is_const && g->a && g->a->kind != N_INITLIST && fe_is_arith(g->ty) &&
                       const_num(c, g->a, out, depth + 1);
        return false;
    default:
        return false;
    }
}

static void put_scalar(uint8_t *p, fe_type *t, fe_node *e, fe_ctx *c)
{
    cnum v = {0, 0, 0};
    if (!const_num(c, e, &v, 0)) {
        fe_error(c, e->tok, CVM_UNSUPPORTED, "initializer of a module-scope variable must be a constant expression");
        return;
    }
    double dv = cnum_d(v);
    int64_t iv = v.kind ? d2i(v.d) : v.i;
    switch (t->kind) {
    case TY_F32: { /* a NaN folded here is the canonical one, as the VM's (docs/numerics.md) */
        float f = (float)dv;
        uint32_t u = dv != dv ? 0x7fc00000u : 0;
        if (dv == dv)
            memcpy(&u, &f, 4);
        memcpy(p, &u, 4);
        break;
    }
    case TY_F64: {
        uint64_t u = dv != dv ? UINT64_C(0x7ff8000000000000) : 0;
        if (dv == dv)
            memcpy(&u, &dv, 8);
        memcpy(p, &u, 8);
        break;
    }
    case TY_F16: case TY_BF16:
        fe_error(c, e->tok, CVM_UNSUPPORTED, "initialized module-scope half variables are not supported");
        break;
    default: {
        uint64_t u = (uint64_t)iv;
        for (uint32_t i = 0; i < t->size && i < 8; i++)
            p[i] = (uint8_t)(u >> (8 * i));
        break;
    }
    }
}

static void put_init(uint8_t *img, fe_type *t, fe_node *e, fe_ctx *c);

/* The default member initializers inside a t at img (arrays element by
 * element, a union's defaulted member); the rest stays zero. */
static void put_defaults(uint8_t *img, fe_type *t, fe_ctx *c)
{
    if (t->kind == TY_ARRAY) {
        for (uint32_t i = 0; i < t->len && fe_nonempty_default(t->base); i++)
            put_defaults(img + (size_t)i * t->base->size, t->base, c);
        return;
    }
    if (t->kind != TY_STRUCT)
        return;
    int i = 0, only = t->is_union ? fe_union_default(t) : -1;
    for (fe_member *m = t->members; m; m = m->next, i++) {
        if (only >= 0 && i != only)
            continue;
        if (m->init)
            put_init(img + m->offset, m->ty, m->init, c);
        else
            put_defaults(img + m->offset, m->ty, c);
    }
}

/* The members of a struct without unions, anonymous members or
 * designators in order from the list at *x (brace elision as in
 * lower.c init_elided); false for others. */
static bool plain_members(const fe_type *t, const fe_node *e)
{
    bool plain = t->kind == TY_STRUCT && !t->is_union;
    for (const fe_member *m = plain ? t->members : NULL; m; m = m->next)
        plain = plain && !m->anon;
    for (const fe_node *a = plain && e ? e->args : NULL; a; a = a->next)
        plain = plain && !a->desig;
    return plain;
}

/* One element or member of type t at img from the list at *x: its own
 * braces or value, or without braces (an array, or a struct of plain
 * members: a struct value is no constant here) the next several. */
static void put_element(uint8_t *img, fe_type *t, fe_node **x, fe_ctx *c)
{
    if (t->kind == TY_STRUCT && t->is_union && t->members && (*x)->kind != N_INITLIST) {
        put_element(img, t->members->ty, x, c); /* a union from its first member */
        return;
    }
    if ((*x)->kind == N_INITLIST || ((*x)->kind == N_STR && fe_is_char_array(t)) ||
        (t->kind != TY_ARRAY && !plain_members(t, NULL))) {
        put_init(img, t, *x, c);
        *x = (*x)->next;
        return;
    }
    if (t->kind == TY_ARRAY) {
        for (uint32_t i = 0; i < t->len; i++)
            if (*x)
                put_element(img + (size_t)i * t->base->size, t->base, x, c);
            else
                put_defaults(img + (size_t)i * t->base->size, t->base, c);
        return;
    }
    for (fe_member *m = t->members; m; m = m->next)
        if (*x)
            put_element(img + m->offset, m->ty, x, c);
        else if (m->init) /* its default member initializer; the rest stays zero */
            put_init(img + m->offset, m->ty, m->init, c);
        else
            put_defaults(img + m->offset, m->ty, c);
}

static void put_init(uint8_t *img, fe_type *t, fe_node *e, fe_ctx *c)
{
    const fe_node *str = fe_string_init(t, e);
    if (str) {
        if (fe_string_fits(c, t, str)) /* char s[] = "abc": its bytes, the rest zero */
            memcpy(img, str->name, (size_t)str->ival);
        return;
    }
    if (e->kind != N_INITLIST) {
        if (fe_is_arith(t))
            put_scalar(img, t, e, c);
        else
            fe_error(c, e->tok, CVM_UNSUPPORTED, "unsupported initializer of a module-scope variable");
        return;
    }
    fe_node *x = e->args;
    if (plain_members(t, e)) {
        for (fe_member *m = t->members; m; m = m->next)
            if (x)
                put_element(img + m->offset, m->ty, &x, c);
            else if (m->init) /* its default member initializer; the rest stays zero */
                put_init(img + m->offset, m->ty, m->init, c);
            else
                put_defaults(img + m->offset, m->ty, c);
        if (x)
            fe_error(c, x->tok, CVM_SYNTAX, "too many initializers for '%s'", t->name);
    } else if (t->kind == TY_STRUCT) {
        fe_node **slots = fe_init_slots(c, t, e);
        int i = 0;
        for (fe_member *m = t->members; slots && m; m = m->next, i++) {
            if (!fe_init_sets(t, e, slots, i))
                continue;
            if (slots[i])
                put_init(img + m->offset, m->ty, slots[i], c);
            else if (m->init) /* its default member initializer; the rest stays zero */
                put_init(img + m->offset, m->ty, m->init, c);
            else
                put_defaults(img + m->offset, m->ty, c);
        }
    } else if (!fe_no_designators(c, e)) {
        return;
    } else if (t->kind == TY_ARRAY) {
        uint32_t i = 0;
        for (; x && i < t->len; i++)
            put_element(img + (size_t)i * t->base->size, t->base, &x, c);
        for (; i < t->len; i++)
            put_defaults(img + (size_t)i * t->base->size, t->base, c);
        if (x && t->len)
            fe_error(c, x->tok, CVM_SYNTAX, "too many initializers for an array of %u elements", t->len);
    } else if (x) {
        put_init(img, t, x, c);
    }
}

/* Has t, or a member or element inside it, a user constructor? */
static bool user_ctor_inside(const fe_type *t)
{
    while (t->kind == TY_ARRAY)
        t = t->base;
    for (const fe_node *m = t->kind == TY_STRUCT ? t->methods : NULL; m; m = m->next)
        if (m->is_ctor)
            return true;
    for (const fe_member *m = t->kind == TY_STRUCT ? t->members : NULL; m; m = m->next)
        if (user_ctor_inside(m->ty))
            return true;
    return false;
}

void fe_module_var(fe_lower *L, fe_node *d)
{
    fe_ctx *c = L->c;
    fe_var *v = fe_alloc(c, sizeof *v);
    if (!v)
        return;
    v->name = d->name;
    v->ty = d->ty;
    if (fe_has_decltype(d->ty)) {
        fe_error(c, d->tok, CVM_UNSUPPORTED, "decltype in the type of a module-scope variable is not supported; "
                 "name the type");
        return;
    }
    v->next = L->globals;
    L->globals = v;
    if (d->storage & FE_S_SHARED) { /* placed in each kernel that uses it (fe_addr_of_var) */
        v->mem = (d->storage & FE_S_EXTERN) ? MEM_DYNSHARED : MEM_SHARED;
        if (v->mem == MEM_DYNSHARED && d->ty->kind != TY_ARRAY)
            v->ty = fe_array_of(c, d->ty, 0);
        if (v->mem == MEM_SHARED)
            v->decl = d;
        if (d->a)
            fe_error(c, d->tok, CVM_SYNTAX, "__shared__ variables cannot have an initializer");
        else if (fe_nonempty_default(d->ty))
            fe_error(c, d->tok, CVM_SYNTAX, "a __shared__ variable of a type with default member "
                     "initializers or a non-empty default constructor is not allowed (shared memory is not "
                     "initialized; CUDA refuses it too): assign the members after the declaration");
        return;
    }
    if (user_ctor_inside(d->ty) && (d->a || fe_nonempty_default(d->ty))) { /* no constructor runs at load */
        fe_error(c, d->tok, CVM_UNSUPPORTED, "a module-scope variable of a type with a constructor "
                 "needs dynamic initialization, which CUDA does not allow for __device__ and "
                 "__constant__ variables: set its members with default member initializers instead");
        return;
    }
    bool is_const = (d->storage & FE_S_CONSTANT) != 0;
    v->mem = is_const ? MEM_CSYM : MEM_GSYM;
    v->sym = d->name;
    fe_type *e = d->ty;
    while (e->kind == TY_ARRAY)
        e = e->base;
    const char *elem = fe_is_arith(e) ? fe_elem_name(e->kind) : "bytes";
    uint32_t size = d->ty->size ? d->ty->size : 1;
    const uint64_t limit = is_const ? CVM_BC_MAX_CONST : 1ull << 30; /* the verifier's: space with alignment */
    L->sym_bytes[is_const] += (uint64_t)size + (d->ty->align < 4 ? 4 : d->ty->align);
    if (L->sym_bytes[is_const] > limit) {
        fe_error(c, d->tok, CVM_LIMIT, "the module's %s variables take more than %llu bytes with '%s' (the VM's "
                 "limit%s)", is_const ? "__constant__" : "__device__", (unsigned long long)limit, d->name,
                 is_const ? "; CUDA's is 64 KiB" : "");
        return;
    }
    fe_buf_printf(c, L->out, ".%s \"%s\" %s %u %u", is_const ? "constant" : "global", d->name, elem,
                  size, d->ty->align < 4 ? 4 : d->ty->align);
    if (d->a || fe_nonempty_default(d->ty)) { /* an initializer, or default member initializers */
        uint8_t *img = cvm_bc_alloc(c->alloc, c->alloc_user, size);
        if (!img) {
            fe_error(c, d->tok, CVM_OUT_OF_MEMORY, "out of memory");
            return;
        }
        memset(img, 0, size);
        if (d->a)
            put_init(img, d->ty, d->a, c);
        else
            put_defaults(img, d->ty, c);
        fe_buf_printf(c, L->out, " = 0x");
        for (uint32_t i = 0; i < size; i++)
            fe_buf_printf(c, L->out, "%02x", img[i]);
        cvm_bc_free(c->alloc, c->alloc_user, img, size);
    }
    fe_buf_printf(c, L->out, "\n");
}

