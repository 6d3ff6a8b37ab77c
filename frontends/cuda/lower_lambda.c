/*
 * lower_lambda.c - a lambda's captures in the CUDA frontend's lowering
 * (docs/cuda.md "C++ in kernels"): where the lambda expression is
 * evaluated, the names its body will see, with copies of the variables
 * captured by value (listed, init-captures, or read under a `=` default).
 * The body itself is inlined where the closure is called (lower.c
 * fe_call_fn, with these names).
 */
#include "lower.h"

#include <string.h>

/* The names a lambda body reads (unqualified identifiers, those of
 * lambdas inside it too), each once, up to 256. */
typedef struct name_set {
    const char *v[256];
    int n;
    bool full; /* a name did not fit */
} name_set;

static void body_names(const fe_node *e, name_set *s);

static void body_names_list(const fe_node *e, name_set *s)
{
    for (; e; e = e->next)
        body_names(e, s);
}

static void body_names(const fe_node *e, name_set *s)
{
    if (e->kind == N_IDENT && !e->qual && e->name) {
        int i = 0;
        while (i < s->n && strcmp(s->v[i], e->name) != 0)
            i++;
        if (i == s->n && s->n < 256)
            s->v[s->n++] = e->name;
        else if (i == s->n)
            s->full = true;
    }
    if (e->kind == N_LAMBDA && e->ty && e->ty->methods) {
        body_names_list(e->ty->methods->captures, s);
        if (e->ty->methods->body)
            body_names(e->ty->methods->body, s);
    }
    const fe_node *kids[] = {e->a, e->b, e->c, e->d, e->args};
    for (size_t k = 0; k < sizeof kids / sizeof kids[0]; k++)
        body_names_list(kids[k], s);
}

/* The local variable `name` of the function being lowered that a lambda
 * can capture: not a data member bound for `this` (reached through it),
 * nor a __shared__ or module-scope variable (static storage). */
static fe_var *capturable(fe_lower *L, const char *name)
{
    for (fe_var *v = L->vars; v && v != L->globals; v = v->next)
        if (strcmp(v->name, name) == 0)
            return v->is_member || (v->mem && v->mem != MEM_LOCAL) ? NULL : v;
    return NULL;
}

/* Prepends to env a variable `name` holding a copy of val (a by-value
 * capture; const unless the lambda is mutable), made here. */
static fe_var *capture_copy(fe_lower *L, fe_var *env, const char *name, fe_val val, bool is_const,
                            const fe_tok *at)
{
    fe_var *k = fe_alloc(L->c, sizeof *k);
    if (!k || L->c->err)
        return env;
    fe_type *t = fe_unqual(fe_no_ref(L->c, val.ty));
    if (t->is_lambda) /* [f] of a mutable lambda f: a copy that counts apart */
        t = fe_closure_copy(L, t, at);
    fe_val copy;
    if (val.lv == LV_MEM) {
        copy = fe_local_temp(L, t);
        fe_copy_construct(L, copy, val, t, at);
    } else {
        fe_val v = fe_load(L, val);
        copy = (fe_val){t, fe_reg(L, L->rtypes[v.reg]), LV_REG, 0, false, false, false, false};
        fe_emit(L, "mov.%s %%r%d, %%r%d", fe_tname_of(L, copy.reg), copy.reg, v.reg);
    }
    k->name = name;
    k->ty = is_const ? fe_qualified(L->c, t, true, false) : t;
    copy.ty = k->ty;
    k->val = copy;
    k->by_copy = true;
    k->next = env;
    return k;
}

/* Copies of the by-value captures of env down to base, made here over
 * base in the same order; captures by reference are kept. */
static fe_var *copy_captures(fe_lower *L, const fe_var *env, const fe_var *base, const fe_tok *at)
{
    if (!env || env == base || L->c->err)
        return (fe_var *)base;
    fe_var *under = copy_captures(L, env->next, base, at);
    if (!env->by_copy) {
        fe_var *k = fe_alloc(L->c, sizeof *k);
        if (!k)
            return under;
        *k = *env;
        k->next = under;
        return k;
    }
    return capture_copy(L, under, env->name, env->val, env->ty->is_const, at);
}

/*
 * A copy of closure t made here (a by-value parameter, `auto g = f;`): a
 * mutable lambda's copy gets a closure type of its own whose by-value
 * captures are copies of t's as they are now, so the copy and the original
 * count apart, as in C++ (they shared the captures). Other closures are
 * returned as they are: their copies cannot change.
 */
fe_type *fe_closure_copy(fe_lower *L, fe_type *t, const fe_tok *at)
{
    fe_type *root = t->origin ? t->origin : t;
    if (t->kind != TY_STRUCT || !root->is_lambda || !root->methods || !root->methods->is_mutable || !root->lambda_env)
        return t;
    fe_type *nt = fe_alloc(L->c, sizeof *nt);
    if (!nt)
        return t;
    *nt = *root;
    nt->origin = nt->copies = nt->next_copy = NULL;
    nt->lambda_sites = NULL;
    nt->lambda_env = copy_captures(L, root->lambda_env, root->lambda_base, at);
    return t->is_const || t->is_volatile ? fe_qualified(L->c, nt, t->is_const, t->is_volatile) : nt;
}

/*
 * The names a lambda's body sees, made where the lambda is evaluated: the
 * names here, and over them a copy of each variable captured by value
 * (named in the list, or read by the body under a `=` default), so later
 * changes here do not reach the lambda; init-captures evaluated here.
 * Captures by reference are the names themselves.
 */
fe_var *fe_capture_env(fe_lower *L, fe_node *f)
{
    fe_var *env = L->vars;
    const bool is_const = !f->is_mutable;
    for (fe_node *k = f->captures; k && !L->c->err; k = k->next) {
        if (k->b && k->op == '&') { /* [&r = x] */
            fe_val v = fe_gen(L, k->b);
            fe_var *r = fe_alloc(L->c, sizeof *r);
            if (v.lv == LV_NONE)
                fe_error(L->c, k->tok, CVM_SYNTAX, "a reference capture must be initialized with an lvalue");
            if (!r || L->c->err)
                return env;
            *r = (fe_var){.name = k->name, .ty = v.ty, .val = v, .next = env};
            env = r;
        } else if (k->b) { /* [v = x * 2] */
            env = capture_copy(L, env, k->name, fe_gen(L, k->b), is_const, k->tok);
        } else if (k->op != '&') { /* [x] */
            fe_var *v = capturable(L, k->name);
            if (!v)
                fe_error(L->c, k->tok, CVM_SYNTAX, "'%s' in the capture list is not a local variable", k->name);
            else
                env = capture_copy(L, env, k->name, fe_addr_of_var(L, v), is_const, k->tok);
        }
    }
    if (f->cap_default != '=' || !f->body)
        return env;
    name_set names = {.n = 0};
    body_names(f->body, &names);
    if (names.full) {
        fe_error(L->c, f->tok, CVM_LIMIT, "a [=] lambda's body names more than 256 identifiers; list its "
                 "captures ([a, b, &c])");
        return env;
    }
    for (int i = 0; i < names.n && !L->c->err; i++) {
        bool listed = false;
        for (fe_node *k = f->captures; k && !listed; k = k->next)
            listed = strcmp(k->name, names.v[i]) == 0;
        for (fe_node *q = f->params; q && !listed; q = q->next) /* its own parameter, not a capture */
            listed = q->name && strcmp(q->name, names.v[i]) == 0;
        fe_var *v = listed ? NULL : capturable(L, names.v[i]);
        if (v)
            env = capture_copy(L, env, names.v[i], fe_addr_of_var(L, v), is_const, f->tok);
    }
    return env;
}

/* The call path of an evaluation: the call sites of the inlined frames. */
typedef struct fe_closure_site {
    const fe_tok *sites[32];
    int n;
    fe_type *ty;
    struct fe_closure_site *next;
} fe_closure_site;

/*
 * The closure type an evaluation of a lambda expression makes (lambda: the
 * type the parser gave it). Its captures are names on its type, so two
 * closures alive at once need two types: the expression evaluated on
 * another path of inlined calls (a function that makes it, called from two
 * places: `mk(1)` and `mk(10)`) makes a type of its own, and every
 * evaluation on one path the same one. An evaluation for its type alone
 * (fe_type_of, whose code is dropped) and the one that emits the code are
 * on one path, so a template deduced from the first is given the second's
 * closure. Paths deeper than 32 calls share their last 32.
 */
fe_type *fe_closure_type(fe_lower *L, fe_type *lambda)
{
    fe_closure_site here = {.n = 0};
    for (const fe_frame *f = L->frame; f && here.n < 32; f = f->up)
        here.sites[here.n++] = f->site;
    for (fe_closure_site *k = lambda->lambda_sites; k; k = k->next)
        if (k->n == here.n && memcmp(k->sites, here.sites, sizeof here.sites[0] * (size_t)here.n) == 0)
            return k->ty;
    fe_closure_site *k = fe_alloc(L->c, sizeof *k);
    fe_type *ty = lambda;
    if (!k)
        return NULL;
    if (lambda->lambda_sites) { /* another path: a type of its own */
        ty = fe_alloc(L->c, sizeof *ty);
        if (!ty)
            return NULL;
        *ty = *lambda;
        ty->origin = ty->copies = ty->next_copy = NULL;
        ty->lambda_sites = NULL;
    }
    *k = here;
    k->ty = ty;
    k->next = lambda->lambda_sites;
    lambda->lambda_sites = k;
    return ty;
}

/* The type of a parameter declared `param` that receives arg: arg's own
 * closure type where both are closure types of one lambda expression (a
 * template deduced from a typing evaluation, given a later one's closure),
 * else param. */
fe_type *fe_closure_of(fe_lower *L, fe_type *param, fe_type *arg)
{
    if (param->kind != TY_STRUCT || !param->is_lambda || param->is_ref || !arg || arg->kind != TY_STRUCT ||
        !arg->is_lambda || arg->methods != param->methods)
        return param;
    fe_type *t = fe_no_ref(L->c, arg);
    return fe_qualified(L->c, t, param->is_const, param->is_volatile);
}

/* The end of an error message between types a and b: a note when they are
 * closure types of one lambda expression made through different calls
 * (which cannot be one type here, fe_closure_type), else "". */
const char *fe_closures_apart(const fe_type *a, const fe_type *b)
{
    a = a && a->origin ? a->origin : a;
    b = b && b->origin ? b->origin : b;
    if (a && b && a != b && a->kind == TY_STRUCT && b->kind == TY_STRUCT && a->is_lambda && b->is_lambda &&
        a->methods == b->methods)
        return " (closures one lambda expression made through different calls: each keeps its captures on "
               "a type of its own here, so they cannot share one; docs/cuda.md, Lambdas)";
    return "";
}
