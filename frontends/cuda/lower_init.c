/*
 * lower_init.c - initialization and construction for the CUDA frontend's
 * lowering (docs/lowering.md, docs/cuda.md "The subset"): braced lists
 * into memory (value-initializing what they leave out, brace elision),
 * default initialization of structs and arrays of them (constructors,
 * default member initializers, a loop for large arrays), constructor
 * selection and calls, converting constructors, and T(args) temporaries.
 * lower.c calls in for declarations, assignments and returns.
 */
#include "lower.h"

#include <string.h>

static void init_element(fe_lower *L, fe_val addr, fe_type *t, fe_node **e);
static void init_elided_members(fe_lower *L, fe_val addr, fe_type *t, fe_node **e, fe_tok *at);
static void construct_at(fe_lower *L, fe_val obj, fe_type *t, fe_val *vals, int n, const fe_tok *at);

/* The first constructor template of struct t, or NULL. */
static fe_template *ctor_templates(const fe_type *t)
{
    return t->kind == TY_STRUCT ? fe_member_template(t, fe_struct_base_name(t)) : NULL;
}

/* A user-declared constructor of struct t, a template one too (not the
 * implicit one that default member initializers make). */
static bool user_ctor(const fe_type *t)
{
    for (const fe_node *m = t->kind == TY_STRUCT ? t->methods : NULL; m; m = m->next)
        if (m->is_ctor)
            return true;
    return ctor_templates(t) != NULL;
}

/* How well constructor m fits arguments of these types; -1: not at all.
 * *cross (if not NULL): how many of the fits are FE_FIT_CROSS. */
static int ctor_score(const fe_node *m, fe_type **types, int n, bool conv, int *cross)
{
    int score = 0, i = 0;
    for (const fe_node *p = m->params; p && i < n && score >= 0; p = p->next, i++) {
        int k = fe_arg_score_conv(types[i], p->ty, conv);
        score = k < 0 ? -1 : score + fe_fit_summed(k, cross);
    }
    return score;
}

/* The instance of a constructor template of t that arguments of these
 * types deduce and fit better than *score (then updated); NULL if none. */
static fe_node *ctor_template_instance(fe_lower *L, fe_type *t, fe_type **types, int n, bool conv, int *score,
                                       const fe_tok *at)
{
    fe_node *best = NULL;
    for (fe_template *tp = ctor_templates(t); tp && !L->c->err; tp = tp->next) {
        fe_type *targs[8] = {0};
        int64_t tvals[8] = {0};
        if (strcmp(tp->name, fe_struct_base_name(t)) != 0 || !fe_deduce(L->c, tp, types, n, targs, tvals, 0))
            continue;
        fe_node *fn = fe_instantiate(L->c, tp, targs, tvals, tp->nparams, at);
        int s = fn && fn->is_ctor && fe_params_match(fn, n) ? ctor_score(fn, types, n, conv, NULL) : -1;
        if (s > *score) {
            best = fn;
            *score = s;
        }
    }
    return best;
}

/* Has struct t a user constructor taking one t (a copy constructor)? */
static bool copy_ctor(fe_ctx *c, fe_type *t)
{
    t = fe_unqual(t);
    for (fe_node *m = t->kind == TY_STRUCT ? t->methods : NULL; m; m = m->next)
        if (m->is_ctor && m->params && !m->params->next && m->params->ty &&
            fe_same_type(fe_unqual(fe_no_ref(c, m->params->ty)), t))
            return true;
    return false;
}

/* A loop over the bytes [0, bytes) from the address in register base,
 * `step` at a time: byte_loop_begin emits its head and gives the register
 * holding base + offset (p) for the body; byte_loop_end closes it. */
typedef struct byte_loop {
    int off, step, p;
} byte_loop;

static byte_loop byte_loop_begin(fe_lower *L, int base, uint64_t bytes, uint32_t step)
{
    byte_loop b = {fe_reg(L, RT(TY_I64, 1, 0)), fe_reg(L, RT(TY_I64, 1, 0)), fe_reg(L, L->rtypes[base])};
    int lim = fe_reg(L, RT(TY_I64, 1, 0)), done = fe_reg(L, RT(TY_BOOL, 1, 0));
    fe_emit(L, "const.i64 %%r%d, 0", b.off);
    fe_emit(L, "const.i64 %%r%d, %llu", lim, (unsigned long long)bytes);
    fe_emit(L, "const.i64 %%r%d, %u", b.step, step);
    fe_emit(L, "loop");
    fe_emit(L, "ge.i64 %%r%d, %%r%d, %%r%d", done, b.off, lim);
    fe_emit(L, "if %%r%d", done);
    fe_emit(L, "break");
    fe_emit(L, "end");
    fe_emit(L, "ptr.add.%s %%r%d, %%r%d, %%r%d", fe_tname_of(L, b.p), b.p, base, b.off);
    return b;
}

static void byte_loop_end(fe_lower *L, byte_loop b)
{
    fe_emit(L, "continuing");
    fe_emit(L, "add.i64 %%r%d, %%r%d, %%r%d", b.off, b.off, b.step);
    fe_emit(L, "end");
}

/* Zeroes `size` bytes at dst with a loop (one store a word, or a byte when
 * the size is odd): a large aggregate's `= {}` without a store per element. */
static void zero_loop(fe_lower *L, fe_val dst, uint32_t size)
{
    const bool words = size % 4 == 0 && dst.ty->align >= 4;
    const char *et = words ? "u32" : "u8";
    int z = fe_reg(L, RT(words ? TY_U32 : TY_U8, 1, 0));
    fe_emit(L, "const.%s %%r%d, 0", et, z);
    byte_loop b = byte_loop_begin(L, dst.reg, size, words ? 4u : 1u);
    fe_emit(L, "st.%s [%%r%d], %%r%d", et, b.p, z);
    byte_loop_end(L, b);
}

/* Does initializer e of an element of type t leave out the element's
 * braces (C's brace elision: `float a[2][2] = {1, 2, 3}`): e is not a
 * braced list, and t an array (not a char array from a string) or a
 * struct without constructors that e's value is not. */
static bool elided(fe_lower *L, const fe_type *t, fe_node *e)
{
    if (e->kind == N_INITLIST)
        return false;
    if (e->kind == N_STR) /* a string fills a char array, and starts a struct or array holding one */
        return t->kind == TY_ARRAY ? !fe_is_char_array(t) : t->kind == TY_STRUCT && !user_ctor(t);
    if (t->kind == TY_ARRAY)
        return true;
    return t->kind == TY_STRUCT && !user_ctor(t) && fe_type_of(L, e)->kind != TY_STRUCT;
}

/* Initializes the aggregate t at addr from the list of initializers at
 * *e without braces of its own (elided), taking as many as its elements
 * and members need and advancing *e past them; what the list runs out
 * before is value-initialized. */
static void init_elided(fe_lower *L, fe_val addr, fe_type *t, fe_node **e)
{
    fe_node empty = {.kind = N_INITLIST, .tok = (*e)->tok};
    if (t->kind == TY_ARRAY) {
        for (uint32_t i = 0; i < t->len && !L->c->err; i++) {
            fe_val a = fe_ptr_add(L, addr, fe_const_int(L, TY_I64, (int64_t)i * t->base->size), 1, empty.tok);
            if (*e) {
                init_element(L, a, t->base, e);
            } else if ((uint64_t)(t->len - i) * t->base->size >= 256 && !fe_has_ctor(t->base)) {
                a.lv = LV_MEM, a.ty = t->base;
                zero_loop(L, a, (t->len - i) * t->base->size); /* the rest of a large array */
                return;
            } else {
                fe_init_mem(L, a, t->base, &empty);
            }
        }
        return;
    }
    init_elided_members(L, addr, t, e, empty.tok);
}

/* The members of struct t at addr, in order, from the list at *e (init_elided). */
static void init_elided_members(fe_lower *L, fe_val addr, fe_type *t, fe_node **e, fe_tok *at)
{
    fe_node empty = {.kind = N_INITLIST, .tok = at};
    if (t->is_union) { /* its first member, as a braced list would set */
        if (!*e || !t->members) {
            fe_init_mem(L, addr, t, &empty);
            return;
        }
        fe_val a = addr;
        init_element(L, a, t->members->ty, e);
        return;
    }
    for (fe_member *m = t->members; m && !L->c->err; m = m->next) {
        fe_val a = fe_ptr_add(L, addr, fe_const_int(L, TY_I64, m->offset), 1, empty.tok);
        if (*e)
            init_element(L, a, m->ty, e);
        else if (m->init)
            fe_init_member(L, addr, t, m, a);
        else
            fe_init_mem(L, a, m->ty, &empty);
    }
}

/* One element or member of type t at addr from the list at *e: its own
 * braced list or expression, or (elided) the next several. */
static void init_element(fe_lower *L, fe_val addr, fe_type *t, fe_node **e)
{
    if (elided(L, t, *e)) {
        init_elided(L, addr, t, e);
        return;
    }
    fe_init_mem(L, addr, t, *e);
    *e = (*e)->next;
}

/* Stores an initializer into memory at `addr` of type t: an expression, or
 * a braced list (elements and members not listed are value-initialized:
 * zero, their default member initializer, or their default constructor,
 * aggregates element by element, so a declaration that runs again in a
 * loop starts from zero again; a struct with a constructor is built by
 * the one the list's values choose, as in C++). */
/* A char array from a string literal (`char s[] = "abc";`): its bytes,
 * its NUL, and zeros to the end, as in C++ (which, unlike C, has no room
 * for a string whose NUL does not fit). */
const fe_node *fe_string_init(const fe_type *t, const fe_node *init)
{
    if (!fe_is_char_array(t))
        return NULL;
    if (init->kind == N_INITLIST && init->args && !init->args->next)
        init = init->args; /* char s[4] = {"abc"} */
    return init->kind == N_STR ? init : NULL;
}

bool fe_string_fits(fe_ctx *c, const fe_type *t, const fe_node *init)
{
    const uint64_t n = (uint64_t)init->ival;
    if (n + 1 > t->len) {
        fe_error(c, init->tok, CVM_SYNTAX, "initializer string of %llu characters and its NUL does not fit "
                 "in an array of %u", (unsigned long long)n, t->len);
        return false;
    }
    return true;
}

static void init_string(fe_lower *L, fe_val addr, fe_type *t, const fe_node *init)
{
    const uint64_t n = (uint64_t)init->ival;
    if (!fe_string_fits(L->c, t, init))
        return;
    for (uint32_t i = 0; i < t->len && !L->c->err; i++) {
        fe_val a = fe_ptr_add(L, addr, fe_const_int(L, TY_I64, i), 1, init->tok);
        a.lv = LV_MEM, a.ty = t->base;
        fe_store(L, a, fe_const_int(L, t->base->kind, i < n ? (int8_t)init->name[i] : 0), init->tok);
    }
}

void fe_init_mem(fe_lower *L, fe_val addr, fe_type *t, fe_node *init)
{
    fe_val dst = addr;
    dst.lv = LV_MEM;
    dst.ty = t;
    const fe_node *str = fe_string_init(t, init);
    if (str) {
        init_string(L, addr, t, str);
        return;
    }
    if (init->kind != N_INITLIST) {
        if (t->kind == TY_VEC && fe_is_arith(fe_type_of(L, init))) {
            fe_error(L->c, fe_leftmost(init), CVM_UNSUPPORTED,
                     "a vector member or element needs its own braces here ({{1, 2, 3, 4}, ...}): brace "
                     "elision into a vector type is not supported");
            return;
        }
        fe_val v = fe_as_base(L, fe_gen(L, init), t, init->tok); /* a B from a D: its B */
        if (!fe_in_memory(t))
            v = fe_load(L, v);
        if (t->kind == TY_STRUCT && v.lv == LV_MEM && fe_same_type(fe_unqual(v.ty), fe_unqual(t)))
            fe_copy_construct(L, dst, v, fe_unqual(t), init->tok); /* S c = s; */
        else
            fe_store(L, dst, v, init->tok);
        return;
    }
    fe_node empty = {.kind = N_INITLIST, .tok = init->tok};
    if (t->kind != TY_STRUCT && !fe_no_designators(L->c, init))
        return;
    if (!init->args && fe_in_memory(t) && !fe_has_ctor(t) && t->size >= 256) { /* `float a[128][128] = {}` */
        zero_loop(L, dst, t->size);
        return;
    }
    if (t->kind == TY_ARRAY) {
        uint32_t i = 0;
        fe_node *e = init->args;
        for (; e && i < t->len && !L->c->err; i++) {
            fe_val a = fe_ptr_add(L, addr, fe_const_int(L, TY_I64, (int64_t)i * t->base->size), 1, e->tok);
            init_element(L, a, t->base, &e);
        }
        if (e && t->len) {
            fe_error(L->c, fe_leftmost(e), CVM_SYNTAX, "too many initializers for an array of %u elements",
                     t->len);
            return;
        }
        if (i < t->len && (uint64_t)(t->len - i) * t->base->size >= 256 && !fe_has_ctor(t->base)) {
            fe_val a = fe_ptr_add(L, addr, fe_const_int(L, TY_I64, (int64_t)i * t->base->size), 1, init->tok);
            a.lv = LV_MEM, a.ty = t->base;
            zero_loop(L, a, (t->len - i) * t->base->size); /* {1, 2} of a large array */
            return;
        }
        for (; i < t->len && !L->c->err; i++) { /* the rest: value-initialized */
            fe_val a = fe_ptr_add(L, addr, fe_const_int(L, TY_I64, (int64_t)i * t->base->size), 1, init->tok);
            fe_init_mem(L, a, t->base, &empty);
        }
        return;
    }
    if (t->kind == TY_STRUCT && user_ctor(t) && fe_no_designators(L->c, init)) {
        fe_val vals[32];
        int n = 0;
        for (fe_node *e = init->args; e && n < 32; e = e->next)
            vals[n++] = fe_gen(L, e);
        if (n == 1)
            vals[0] = fe_as_base(L, vals[0], t, init->tok); /* B b{d} */
        if (n == 1 && vals[0].lv == LV_MEM && fe_same_type(fe_unqual(vals[0].ty), t) &&
            (vals[0].temp || !copy_ctor(L->c, t)))
            fe_store(L, dst, vals[0], init->tok); /* P b{a}: the implicit copy, or P b{P(1)}: elided */
        else
            construct_at(L, dst, t, vals, n, init->tok);
        return;
    }
    bool plain = t->kind == TY_STRUCT && !t->is_union;
    for (fe_member *m = plain ? t->members : NULL; m; m = m->next)
        plain = plain && !m->anon;
    for (const fe_node *e = plain ? init->args : NULL; e; e = e->next)
        plain = plain && !e->desig;
    if (plain) { /* members in order, with brace elision (struct Q { float a[2]; int n; } q = {1, 2, 3}) */
        fe_node *e = init->args;
        init_elided_members(L, addr, t, &e, init->tok);
        if (e && !L->c->err)
            fe_error(L->c, fe_leftmost(e), CVM_SYNTAX, "too many initializers for '%s'", t->name);
        return;
    }
    if (t->kind == TY_STRUCT) {
        fe_node **slots = fe_init_slots(L->c, t, init);
        uint32_t i = 0;
        for (fe_member *m = t->members; m && slots && !L->c->err; m = m->next, i++) {
            if (!fe_init_sets(t, init, slots, (int)i))
                continue;
            fe_val a = fe_ptr_add(L, addr, fe_const_int(L, TY_I64, m->offset), 1, init->tok);
            if (slots[i])
                fe_init_mem(L, a, m->ty, slots[i]);
            else if (m->init) /* its default member initializer */
                fe_init_member(L, addr, t, m, a);
            else
                fe_init_mem(L, a, m->ty, &empty);
        }
        return;
    }
    if (t->kind == TY_VEC) { /* `{a, b, c, d}` */
        fe_store(L, dst, fe_vec_build(L, t, init->args, init->tok), init->tok);
        return;
    }
    if (init->args && init->args->next) {
        fe_error(L->c, fe_leftmost(init->args->next), CVM_SYNTAX, "too many initializers for a scalar");
        return;
    }
    fe_val v = init->args ? fe_gen(L, init->args) : fe_zero(L);
    fe_store(L, dst, init->args && !fe_in_memory(t) ? fe_load(L, v) : v, init->tok);
}

/* The value of a register variable's initializer: `x = v`, `x{v}`, `x{}`
 * (zero); of a vector t, `v = {a, b, c, d}` element by element. */
fe_val fe_scalar_init(fe_lower *L, fe_type *t, fe_node *init)
{
    if (init->kind != N_INITLIST)
        return fe_rvalue(L, init);
    if (!fe_no_designators(L->c, init))
        return fe_zero(L);
    if (t->kind == TY_VEC)
        return fe_vec_build(L, t, init->args, init->tok);
    if (init->args && init->args->next) {
        fe_error(L->c, fe_leftmost(init->args->next), CVM_SYNTAX, "too many initializers for a scalar");
        return fe_zero(L);
    }
    if (!init->args)
        return fe_zero(L);
    fe_val v = fe_rvalue(L, init->args);
    if (fe_is_int(fe_unqual(t)) && fe_is_float(fe_unqual(v.ty))) /* C++: no narrowing in braces */
        fe_error(L->c, fe_leftmost(init->args), CVM_SYNTAX, "narrowing conversion from a float to an "
                 "integer in a braced list; convert it explicitly");
    return v;
}

fe_val fe_initlist_value(fe_lower *L, fe_type *t, fe_node *init)
{
    t = fe_unqual(t);
    if (!fe_in_memory(t))
        return fe_convert(L, fe_scalar_init(L, t, init), t, init->tok);
    /* an aggregate: a temporary (so `p = {p.b, p.a}` reads p before any
     * member changes), filled as a declaration's initializer fills it */
    fe_val tmp = fe_local_temp(L, t);
    fe_init_mem(L, tmp, t, init);
    return tmp;
}

/* The constructor of struct t that converts a value of type `from` (a
 * non-struct, or another struct) implicitly: one taking one argument of an
 * arithmetic type for an arithmetic value, of a pointer type for a
 * pointer, or of struct `from` itself (one user conversion, as in C++;
 * `explicit` is not checked). NULL if none. */
fe_node *fe_converting_ctor(fe_type *from, fe_type *t)
{
    from = fe_unqual(from);
    if (t->kind != TY_STRUCT || fe_same_type(from, t))
        return NULL;
    for (fe_node *m = t->methods; m; m = m->next) {
        if (!m->is_ctor || !m->params || !fe_params_match(m, 1) || !m->params->ty)
            continue;
        const fe_type *p = fe_unqual(m->params->ty);
        if ((fe_is_arith(from) && fe_is_arith(p)) || (from->kind == TY_PTR && p->kind == TY_PTR) ||
            (from->kind == TY_STRUCT && p->kind == TY_STRUCT && fe_same_type(p, from)))
            return m;
    }
    return NULL;
}

/* Can a value of type `from` become a struct t implicitly: by a converting
 * constructor, or by a constructor template (which one, and whether its
 * body takes the value, is known once it is instantiated: construct_at). */
bool fe_converts_to(fe_type *from, fe_type *t)
{
    return fe_converting_ctor(from, t) ||
           (t->kind == TY_STRUCT && ctor_templates(t) && !fe_same_type(fe_unqual(from), t));
}

bool fe_construct_from(fe_lower *L, fe_val dst, fe_type *t, fe_val v, const fe_tok *at)
{
    t = fe_unqual(t);
    if (!fe_converting_ctor(v.ty, t)) { /* or a constructor template deduced from the value: S b = 4; */
        int score = -1;
        fe_type *types[1] = {fe_unqual(v.ty)};
        if (fe_same_type(types[0], t) || !ctor_template_instance(L, t, types, 1, false, &score, at))
            return false;
    }
    if (v.ty->kind != TY_STRUCT && v.lv != LV_NONE)
        v = fe_load(L, v);
    dst.lv = LV_MEM;
    dst.ty = t;
    construct_at(L, dst, t, &v, 1, at);
    return true;
}

fe_val fe_struct_value(fe_lower *L, fe_val v, fe_type *t, const fe_tok *at)
{
    t = fe_unqual(t);
    if (v.lv == LV_MEM && fe_same_type(fe_unqual(v.ty), t))
        return v;
    fe_val tmp = fe_local_temp(L, t);
    if (!fe_construct_from(L, tmp, t, v, at)) {
        char a[128], b[128];
        fe_type_str(v.ty, a, sizeof a);
        fe_type_str(t, b, sizeof b);
        fe_error(L->c, at, CVM_SYNTAX, "cannot convert '%s' to '%s'", a, b);
    }
    return tmp;
}

/* T(args) for a struct T: a temporary in local memory, made by a constructor
 * or, without one, member by member from the arguments (zero when none). */
/* A new object of struct type t at dst as a copy of the object at src:
 * by t's copy constructor when it has one and src is not a temporary
 * (whose copy C++17 elides), else member by member. */
/* Does copying a t run a user copy constructor: its own, or a member's
 * (an implicit copy constructor copies each member by its own)? */
static bool copies_by_ctor(fe_ctx *c, fe_type *t)
{
    while (t->kind == TY_ARRAY)
        t = t->base;
    if (t->kind != TY_STRUCT)
        return false;
    if (copy_ctor(c, t))
        return true;
    for (fe_member *m = t->members; m; m = m->next)
        if (!t->is_union && copies_by_ctor(c, m->ty))
            return true;
    return false;
}

void fe_copy_construct(fe_lower *L, fe_val dst, fe_val src, fe_type *t, const fe_tok *at)
{
    if (t->kind != TY_STRUCT || src.temp || !copies_by_ctor(L->c, t)) {
        fe_copy_mem(L, dst, src, t);
        return;
    }
    dst.lv = LV_MEM;
    dst.ty = t;
    if (copy_ctor(L->c, t)) {
        construct_at(L, dst, t, &src, 1, at);
        return;
    }
    for (fe_member *m = t->members; m && !L->c->err; m = m->next) { /* member by member, each by its own */
        fe_val d = fe_ptr_add(L, dst, fe_const_int(L, TY_I64, m->offset), 1, at);
        fe_val s = fe_ptr_add(L, src, fe_const_int(L, TY_I64, m->offset), 1, at);
        d.lv = s.lv = LV_MEM;
        d.ty = s.ty = m->ty;
        if (m->ty->kind == TY_STRUCT)
            fe_copy_construct(L, d, s, m->ty, at);
        else
            fe_copy_mem(L, d, s, m->ty); /* arrays of such structs: bytes (not followed) */
    }
}

fe_val fe_construct(fe_lower *L, fe_type *t, fe_node *args, const fe_tok *at)
{
    for (fe_node *a = args; a; a = a->next)
        if (a->desig) { /* T{.m = v}: an aggregate initialized from its braced list */
            fe_node list = {.kind = N_INITLIST, .tok = (fe_tok *)at, .args = args};
            fe_val obj = fe_local_temp(L, t);
            fe_init_mem(L, obj, t, &list);
            return obj;
        }
    fe_val vals[32];
    int n = 0;
    for (fe_node *a = args; a; a = a->next) {
        if (n == 32) {
            fe_error(L->c, a->tok, CVM_LIMIT, "more than 32 arguments");
            return fe_const_int(L, TY_I32, 0);
        }
        vals[n++] = fe_gen(L, a);
    }
    if (n == 1)
        vals[0] = fe_as_base(L, vals[0], t, at); /* B(d), a constructor's B(other) */
    if (n == 1 && vals[0].lv == LV_MEM && fe_same_type(fe_unqual(vals[0].ty), fe_unqual(t)) &&
        (vals[0].temp || !copy_ctor(L->c, t)))
        return vals[0]; /* copy: T(x) of a T, without a copy constructor to run */
    fe_val obj = fe_local_temp(L, t);
    construct_at(L, obj, t, vals, n, at);
    return obj;
}

/* Does default-initializing a t run code: a struct with a constructor or
 * a default member initializer, or an array of such, or a struct holding
 * one? (Its other bytes stay as they are, as in C++.) */
bool fe_has_ctor(fe_type *t)
{
    while (t->kind == TY_ARRAY)
        t = t->base;
    if (user_ctor(t))
        return true;
    for (fe_member *m = t->kind == TY_STRUCT ? t->members : NULL; m; m = m->next)
        if (m->init || fe_has_ctor(m->ty))
            return true; /* default member initializers run as an implicit constructor */
    return false;
}

bool fe_nonempty_default(fe_type *t)
{
    while (t->kind == TY_ARRAY)
        t = t->base;
    if (t->kind != TY_STRUCT)
        return false;
    for (fe_member *m = t->members; m; m = m->next)
        if (m->init || fe_nonempty_default(m->ty))
            return true;
    for (fe_node *m = t->methods; m; m = m->next)
        if (m->is_ctor && fe_params_match(m, 0) && (!m->body || m->body->args))
            return true; /* a default constructor with initializers or statements (or none defined) */
    return false;
}

/* Default-initializes the object of type t at addr (fe_has_ctor(t)): a
 * struct by its default constructor (or its default member initializers),
 * an array element by element (a loop past eight elements). Runs each
 * time the declaration does, so an array declared in a loop starts over. */
void fe_default_init(fe_lower *L, fe_val addr, fe_type *t, const fe_tok *at)
{
    addr.lv = LV_MEM;
    addr.ty = t;
    if (t->kind != TY_ARRAY) {
        construct_at(L, addr, t, NULL, 0, at);
        return;
    }
    const uint32_t esz = t->base->size;
    if (t->len <= 8) {
        for (uint32_t i = 0; i < t->len && !L->c->err; i++)
            fe_default_init(L, fe_ptr_add(L, addr, fe_const_int(L, TY_I64, (int64_t)i * esz), 1, at), t->base, at);
        return;
    }
    byte_loop b = byte_loop_begin(L, addr.reg, (uint64_t)t->len * esz, esz);
    fe_default_init(L, (fe_val){t->base, b.p, LV_MEM, 0, false, false, false, false}, t->base, at);
    byte_loop_end(L, b);
}

/* Member m of the object at obj (struct st) as a constructor's
 * initializer list leaves it: from its default member initializer, by
 * its type's default constructor, or not at all. */
void fe_default_member(fe_lower *L, fe_val obj, fe_type *st, const fe_member *m, const fe_tok *at)
{
    if (!m->init && !fe_has_ctor(m->ty))
        return;
    fe_val a = fe_ptr_add(L, obj, fe_const_int(L, TY_I64, m->offset), 1, at);
    a.lv = LV_MEM;
    a.ty = m->ty;
    if (!m->init)
        fe_default_init(L, a, m->ty, at); /* a member of a type with its own constructor */
    else
        fe_init_member(L, obj, st, m, a);
}

/* Runs the constructor of t chosen by the arguments on obj, or initializes it member by member. */
static void construct_at(fe_lower *L, fe_val obj, fe_type *t, fe_val *vals, int n, const fe_tok *at)
{
    if (user_ctor(t)) {
        fe_type *types[32] = {0};
        for (int i = 0; i < n; i++)
            types[i] = fe_arg_type(L, vals[i]);
        fe_node *best = NULL;
        int best_score = -1, best_cross = 0;
        /* arguments as they are, else (the last resort) one built by a
         * converting constructor: W w(4.0f) for W(V2); of two that fit
         * alike, fewer int <-> floating conversions */
        for (int conv = 0; conv < 2 && !best; conv++) {
            for (fe_node *m = t->methods; m; m = m->next) {
                int cross = 0;
                int score = m->is_ctor && fe_params_match(m, n) ? ctor_score(m, types, n, conv, &cross) : -1;
                if (score > best_score || (best && score == best_score && cross < best_cross)) {
                    best = m;
                    best_score = score;
                    best_cross = cross;
                }
            }
            /* a template's instance only where it fits better: a plain
             * constructor wins a tie */
            fe_node *inst = n <= 32 && best_score < FE_FIT_EXACT * n ? ctor_template_instance(L, t, types, n, conv, &best_score, at)
                                                           : NULL; /* none fits better than exactly */
            best = inst ? inst : best;
        }
        if (L->c->err)
            return;
        if (!best) {
            fe_error(L->c, at, CVM_SYNTAX, "no constructor of '%s' takes these %d arguments", t->name, n);
            return;
        }
        if (!best->body) {
            fe_error(L->c, at, CVM_SYNTAX, "constructor '%s::%s' is declared but not defined (or deleted)",
                     t->name, t->name);
            return;
        }
        L->ctor_members = best; /* the members first, in order (lower.c ctor_body) */
        fe_call_fn(L, at, best, &obj, vals, n);
        return;
    }
    int i = 0, only = t->is_union ? (n > 0 ? 0 : fe_union_default(t)) : -1;
    for (fe_member *m = t->members; m; m = m->next, i++) {
        if (only >= 0 && i != only)
            continue; /* a union sets one member: the first with arguments, else its default */
        fe_val a = fe_ptr_add(L, obj, fe_const_int(L, TY_I64, m->offset), 1, at);
        a.lv = LV_MEM;
        a.ty = m->ty;
        if (i < n)
            fe_store(L, a, fe_in_memory(m->ty) ? vals[i] : fe_load(L, vals[i]), at);
        else if (m->init) /* its default member initializer */
            fe_init_member(L, obj, t, m, a);
        else if (fe_has_ctor(m->ty))
            fe_default_init(L, a, m->ty, at);
        else if (!fe_in_memory(m->ty))
            fe_store(L, a, fe_zero(L), at);
    }
    if (n > (only >= 0 ? 1 : i))
        fe_error(L->c, at, CVM_SYNTAX, "too many initializers for '%s'", t->name);
}

