/*
 * lower_call.c - which function a call names (docs/cuda.md "Overloading",
 * namespaces): how well each argument fits each candidate, the namespaces
 * a call sees (its own outward, using-directives, argument-dependent
 * lookup), the function template instances that compete with the plain
 * functions and their ranking, then member, static-member and operator
 * calls resolved the same way, and the call expressions themselves
 * (f(args), obj.f(args), S::f(args), member templates, a lambda's
 * operator()). The chosen function is inlined by lower.c fe_call_fn.
 */
#include "lower.h"

#include <stdio.h>
#include <string.h>

bool fe_params_match(fe_node *fn, int nargs)
{
    int n = 0, req = 0;
    for (fe_node *p = fn->params; p; p = p->next) {
        n++;
        if (!p->a)
            req = n;
    }
    return nargs >= req && nargs <= n;
}

/* C++'s promotions: bool, char and short (signed or not) to int, float to
 * double. They rank between an exact match and a conversion, so of f(bool)
 * and f(int) a char takes f(int), whichever is declared first. */
static bool promotes(const fe_type *at, const fe_type *pt)
{
    if (pt->kind == TY_I32)
        return at->kind == TY_BOOL || at->kind == TY_I8 || at->kind == TY_U8 || at->kind == TY_I16 ||
               at->kind == TY_U16;
    return pt->kind == TY_F64 && at->kind == TY_F32;
}

/* Pointees a pointer does not convert between without a cast (float and
 * int); void, pointers to pointers and bases convert or are judged later. */
static bool unrelated(fe_type *ab, fe_type *pb)
{
    return ab->kind != TY_PTR && pb->kind != TY_PTR && ab->kind != TY_VOID && pb->kind != TY_VOID &&
           !fe_same_type(ab, pb) && !fe_derives(ab, pb);
}

/* How well an argument of type `at` fits a parameter of type `pt` (FE_FIT_*);
 * -1: not at all. conv: a struct parameter may be built by a converting
 * constructor (the last resort: fe_lower.ctor_conv). */
int fe_arg_score_conv(fe_type *at, fe_type *pt, bool conv)
{
    if (fe_is_auto(pt))
        return FE_FIT_AUTO;
    if (pt->cg == CG_GROUP && at->cg >= CG_BLOCK && at->cg <= CG_COALESCED)
        return FE_FIT_PROMOTE;
    const bool plain_ref = pt->is_ref && !pt->is_const && !pt->is_rref;
    at = fe_unqual(at);
    pt = fe_unqual(pt);
    if (plain_ref && fe_is_arith(at) && fe_is_arith(pt) && at->kind != pt->kind)
        return -1; /* an int & does not bind a short (a const int & would bind a temporary) */
    if (at->kind == TY_ARRAY && pt->kind == TY_ARRAY) /* T (&a)[N] */
        return fe_same_type(at, pt) ? FE_FIT_EXACT : -1;
    if (at->kind == TY_ARRAY && (pt->kind != TY_PTR || !fe_same_type(at->base, pt->base)))
        return pt->kind == TY_PTR && !unrelated(fe_unqual(at->base), fe_unqual(pt->base)) ? FE_FIT_CONVERT : -1;
    if ((at->kind == TY_ARRAY || at->kind == TY_PTR) && pt->kind == TY_PTR && fe_same_type(at->base, pt->base) &&
        at->base->is_const != pt->base->is_const) /* adding const ranks below none; dropping it is the last resort */
        return pt->base->is_const ? FE_FIT_PROMOTE : FE_FIT_USER;
    if (at->kind == TY_ARRAY)
        return FE_FIT_EXACT; /* T[n] for T *: exact, as in C++ */
    if (fe_same_type(at, pt) || (at->kind == TY_STRUCT && pt->kind == TY_STRUCT && fe_same_type(pt, at)))
        return FE_FIT_EXACT;
    if (fe_dim3_pair(at, pt) || fe_derives(at, pt))
        return FE_FIT_PROMOTE; /* a derived struct to its base: below an exact match */
    uint32_t off;
    bool amb;
    const fe_type *convs = at->kind == TY_STRUCT ? fe_method_scope(at, "operator()conv", &off, &amb) : NULL;
    if ((at->kind == TY_STRUCT) != (pt->kind == TY_STRUCT)) {
        /* a struct with a conversion operator (its own or a base's) may still fit a scalar parameter */
        if (convs)
            for (fe_node *m = convs->methods; m; m = m->next)
                if (m->is_conversion)
                    return FE_FIT_USER;
        return conv && fe_converts_to(at, pt) ? FE_FIT_USER : -1; /* a struct parameter built from the value */
    }
    if (fe_is_arith(at) && fe_is_arith(pt))
        return promotes(at, pt) ? FE_FIT_PROMOTE : fe_is_float(at) == fe_is_float(pt) ? FE_FIT_CONVERT : FE_FIT_CROSS;
    if (at->kind == TY_STRUCT && pt->kind == TY_STRUCT) { /* another struct: through a conversion to it alone */
        for (fe_node *m = convs ? convs->methods : NULL; m; m = m->next)
            if (m->is_conversion && fe_same_type(fe_unqual(m->ty), pt))
                return FE_FIT_USER;
        return conv && fe_converts_to(at, pt) ? FE_FIT_USER : -1;
    }
    if (at->kind == TY_PTR && pt->kind == TY_PTR) {
        fe_type *ab = fe_unqual(at->base), *pb = fe_unqual(pt->base);
        if (fe_derives(ab, pb))
            return FE_FIT_PROMOTE; /* D * to B * */
        return unrelated(ab, pb) ? -1 : FE_FIT_CROSS; /* of f(const int *) and f(const void *), a float * takes the latter */
    }
    if ((at->kind == TY_PTR) != (pt->kind == TY_PTR))
        return -1;
    return FE_FIT_USER;
}

int fe_arg_score(fe_type *at, fe_type *pt) { return fe_arg_score_conv(at, pt, false); }

int fe_fit_summed(int fit, int *cross)
{
    if (fit != FE_FIT_CROSS)
        return fit;
    if (cross)
        ++*cross;
    return FE_FIT_CONVERT;
}

/* How well function f fits arguments of these types (a NULL type: a braced
 * list, fits any parameter); -1: not at all. *cross (if not NULL): how
 * many of the fits are FE_FIT_CROSS. */
static int overload_score(const fe_node *f, fe_type **types, int nargs, bool conv, const bool *rv, bool strict,
                          int *cross)
{
    /* strict: a const argument does not bind to a plain reference (not for
     * template instances, whose T & of a const argument deduces const T,
     * nor members, whose callers pass values) */
    int score = f->body ? 1 : 0;
    int i = 0;
    for (const fe_node *p = f->params; p && i < nargs && score >= 0; p = p->next, i++) {
        int k = types && types[i] ? fe_arg_score_conv(types[i], p->ty, conv) : 0;
        if (types && types[i] && ((strict && types[i]->is_const) || (rv && rv[i])) && p->ty->is_ref &&
            !p->ty->is_const && !(p->ty->is_rref && !types[i]->is_const))
            k = -1; /* a const object, or a temporary, does not bind to a plain reference */
        score = k < 0 ? -1 : score + fe_fit_summed(k, cross);
    }
    return score;
}

/* Parameters of f that bind a const reference to an argument that is not
 * const: of h(float &) and h(const float &), a plain float takes the first. */
static int const_ref_binds(const fe_node *f, fe_type **types, int nargs, const bool *rv)
{
    int n = 0, i = 0;
    for (const fe_node *p = f->params; p && i < nargs; p = p->next, i++)
        n += types && types[i] && p->ty->is_ref && p->ty->is_const && !types[i]->is_const && !(rv && rv[i]);
    return n;
}

/* How far f's parameters are from the arguments in derivations: a D
 * argument for a B parameter (B &, B *) counts B's depth; of two that fit
 * alike, the nearer base wins, as C++ ranks such conversions. */
static int base_steps(const fe_node *f, fe_type **types, int nargs)
{
    int n = 0, i = 0;
    for (const fe_node *p = f->params; p && i < nargs; p = p->next, i++) {
        const fe_type *a = types ? types[i] : NULL, *q = p->ty;
        if (a && q && a->kind == TY_PTR && q->kind == TY_PTR)
            a = a->base, q = q->base;
        const int k = a && q ? fe_base_depth(fe_unqual((fe_type *)a), fe_unqual((fe_type *)q)) : -1;
        n += k > 0 ? k : 0;
    }
    return n;
}

/* Namespaces a call's candidates come from (call_ns); NULL: every one. */
typedef struct ns_set {
    const char *v[24];
    int n;
} ns_set;

static bool ns_has(const ns_set *s, const char *ns)
{
    for (int i = 0; s && i < s->n; i++)
        if (ns && strcmp(s->v[i], ns) == 0)
            return true;
    return !s;
}

/* The best overload named `name` in a function list for arguments of these
 * types; ns: only those of these namespaces (NULL: any). */
static fe_node *best_overload(fe_node *list, const char *name, fe_type **types, int nargs, bool methods,
                              bool conv, int self_const, const ns_set *ns, const bool *rv)
{
    fe_node *best = NULL;
    int best_score = -1, best_binds = 0, best_steps = 0, best_cross = 0;
    for (fe_node *f = list; f; f = f->next) {
        if (strcmp(f->name, name) != 0 || !fe_params_match(f, nargs) || (methods && f->is_ctor) ||
            !ns_has(ns, f->ns))
            continue;
        int cross = 0;
        const int score = overload_score(f, types, nargs, conv, methods ? NULL : rv, !methods, &cross),
                  binds = const_ref_binds(f, types, nargs, methods ? NULL : rv);
        /* of two that fit alike, the one whose constness is the object's
         * (int get() const and int get() on a const or a plain object) */
        const bool as_const = self_const >= 0 && best && score == best_score &&
                              f->is_const_fn == (self_const == 1) && best->is_const_fn != (self_const == 1);
        const int steps = base_steps(f, types, nargs);
        const bool tie = best && score == best_score, fewer_cross = tie && cross < best_cross;
        const bool as_ref = tie && cross == best_cross && binds < best_binds;
        const bool nearer = tie && cross == best_cross && binds == best_binds && steps < best_steps;
        if (score > best_score || as_const || fewer_cross || as_ref || nearer) {
            best = f;
            best_score = score;
            best_binds = binds;
            best_steps = steps;
            best_cross = cross;
        }
    }
    return best;
}

static fe_node *find_func(fe_lower *L, const char *name, fe_type **types, int nargs, const ns_set *ns,
                          const bool *rv)
{
    fe_node *best = best_overload(L->c->funcs, name, types, nargs, false, L->ctor_conv, -1, ns, rv);
    if (best && !best->body) {
        /* a prototype: find the definition with the same name, arity and namespace */
        for (fe_node *f = L->c->funcs; f; f = f->next)
            if (f->body && strcmp(f->name, name) == 0 && fe_params_match(f, nargs) && ns_has(ns, f->ns))
                return f;
        return NULL; /* declared only (headers): a builtin may implement it */
    }
    return best;
}

/* The one function of a call's name cannot take an argument: a pointer
 * to another pointee type, or a value of another type for a plain
 * reference. Say which (an error, true), rather than that no function
 * fits. */
static bool say_mismatch(fe_lower *L, fe_node *call, const fe_node *f)
{
    const fe_node *p = f->params;
    for (fe_node *a = call->args; a && p; a = a->next, p = p->next) {
        fe_type *at = fe_type_of(L, a), *pt = p->ty;
        if (!at || fe_arg_score(at, pt) >= 0)
            continue;
        char from[128], to[128];
        fe_type_str(fe_unqual(at), from, sizeof from);
        fe_type_str(fe_unqual(pt), to, sizeof to);
        if (fe_unqual(at)->kind == TY_PTR && fe_unqual(pt)->kind == TY_PTR) {
            fe_error(L->c, call->tok, CVM_SYNTAX, "cannot convert '%s' to '%s' without a cast", from, to);
            return true;
        }
        if (pt->is_ref && !pt->is_const && !pt->is_rref && fe_is_arith(fe_unqual(at))) {
            fe_error(L->c, call->tok, CVM_SYNTAX, "a '%s &' cannot bind to a value of type '%s'", to, from);
            return true;
        }
    }
    return false;
}

/* The length of the nearest namespace enclosing both a and b ("" the file's: 0). */
static size_t common_ns(const char *a, const char *b)
{
    for (size_t n = strlen(a); n; n = fe_ns_parent(a, n))
        if (strncmp(a, b, n) == 0 && (!b[n] || (b[n] == ':' && b[n + 1] == ':')))
            return n;
    return 0;
}

/* Does namespace ns define a free function or function template `name`? */
static bool ns_defines(fe_ctx *c, const char *ns, const char *name)
{
    for (const fe_node *f = c->funcs; f; f = f->next)
        if (f->ns && strcmp(f->ns, ns) == 0 && strcmp(f->name, name) == 0)
            return true;
    for (const fe_template *t = c->templates; t; t = t->next)
        if (!t->is_struct && !t->is_var && !t->owner && t->ns && strcmp(t->ns, ns) == 0 &&
            strcmp(t->name, name) == 0)
            return true;
    return false;
}

static void ns_add(ns_set *s, const char *ns)
{
    if (!ns_has(s, ns) && s->n < 24)
        s->v[s->n++] = ns;
}

/* Qualified lookup of `name` in namespace ns found nothing of ns's own:
 * the namespaces its using-directives (and inline namespaces) nominate
 * that define it, and where one does not, those it nominates in turn
 * (C++ [namespace.qual]: B::g finds A::g through `namespace B { using
 * namespace A; }`, E::f an f of an inline namespace of E). Each directive
 * is followed once (*seen: bit i for using_ns[i]), so directives that name
 * each other in a cycle end. */
static void add_nominated(fe_ctx *c, const char *ns, const char *name, ns_set *out, uint32_t *seen)
{
    for (int i = 0; i < c->nusing; i++)
        if (!c->using_local[i] && !(*seen >> i & 1) && strcmp(c->using_at[i], ns) == 0) {
            *seen |= 1u << i;
            if (ns_defines(c, c->using_ns[i], name))
                ns_add(out, c->using_ns[i]);
            else
                add_nominated(c, c->using_ns[i], name, out, seen);
        }
}

/* The using-directives in effect at a call, as (where written, namespace
 * named) pairs: the namespaces' and the function bodies' in force where
 * the call is written (its using_on), and for each, those written in the
 * namespace it names, as if written where it is (C++: directives are
 * transitive). */
typedef struct directives {
    const char *at[256], *ns[256];
    int n;
} directives;

static void add_directive(directives *d, const char *at, const char *ns)
{
    for (int i = 0; i < d->n; i++)
        if (strcmp(d->at[i], at) == 0 && strcmp(d->ns[i], ns) == 0)
            return;
    if (d->n < 256) {
        d->at[d->n] = at;
        d->ns[d->n++] = ns;
    }
}

static void directives_in_effect(const fe_ctx *c, uint16_t using_on, directives *d)
{
    d->n = 0;
    for (int i = 0; i < c->nusing; i++)
        if (!c->using_local[i] || (using_on >> i & 1))
            add_directive(d, c->using_at[i], c->using_ns[i]);
    for (int k = 0; k < d->n; k++)
        for (int i = 0; i < c->nusing; i++)
            if (!c->using_local[i] && strcmp(c->using_at[i], d->ns[k]) == 0)
                add_directive(d, d->at[k], c->using_ns[i]);
}

/* The namespace the function being lowered is defined in: a member's is
 * its struct's, a lambda's the function's it is written in. */
static const char *current_ns(fe_lower *L)
{
    if (L->init_ns && L->frame == L->init_frame)
        return L->init_ns;
    for (const fe_frame *f = L->frame; f; f = f->up) {
        const fe_type *o = f->fn ? f->fn->owner : NULL;
        if (o && o->is_lambda)
            continue;
        if (o && (o->def_ns || (o->origin && o->origin->def_ns)))
            return o->def_ns ? o->def_ns : o->origin->def_ns;
        if (o && o->tmpl && o->tmpl->ns)
            return o->tmpl->ns;
        if (f->fn && f->fn->ns && !o)
            return f->fn->ns;
    }
    return L->kernel_ns ? L->kernel_ns : "";
}

/*
 * The namespaces whose functions named `name` a call sees, its callee
 * written as `callee` (its qual: NULL unqualified, "" for ::f; its
 * using_on and decl_on: the function-body directives and declarations in
 * force there) in the function being lowered, with arguments of these
 * types: the innermost of
 * its namespace and the enclosing ones (joined with the qualifier) that
 * defines the name, the file's level joined by the namespaces of
 * using-directives; unqualified, also the namespaces of struct arguments'
 * types (argument-dependent lookup). NULL: every namespace (the file
 * declares none, or none defines the name). A name defined only in
 * namespaces out of reach gets an empty set, so builtins answer it.
 */
static const ns_set *call_ns(fe_lower *L, const char *name, const fe_node *callee, fe_type **types,
                             int nargs, ns_set *out)
{
    fe_ctx *c = L->c;
    const char *qual = callee->qual;
    out->n = 0;
    if (!c->nns)
        return NULL;
    const char *cur = current_ns(L);
    if (qual && !*qual) {
        if (ns_defines(c, "", name))
            ns_add(out, "");
        else
            add_nominated(c, "", name, out, &(uint32_t){0});
        return out;
    }
    directives dirs = {.n = 0};
    if (!qual)
        directives_in_effect(c, callee->using_on, &dirs);
    for (int i = 0; !qual && i < c->ndecl; i++) /* a body's `using a::f;`: found first, hiding other f */
        if (c->decl_local[i] && (callee->decl_on >> i & 1) && strcmp(c->decl_name[i], name) == 0 &&
            ns_defines(c, c->decl_from[i], name))
            ns_add(out, c->decl_from[i]);
    for (size_t n = strlen(cur); !out->n;) {
        const char *path = !qual ? fe_strndup(c, cur, n)
                           : n   ? fe_fmt(c, "%.*s::%s", (int)n, cur, qual)
                                 : qual;
        if (path && ns_defines(c, path, name))
            ns_add(out, path);
        else if (path && qual)
            add_nominated(c, path, name, out, &(uint32_t){0});
        /* a directive seen from inside the namespace it is written in: its names join the
         * nearest namespace enclosing both that one and the one it names (C++) */
        for (int i = 0; !qual && i < dirs.n; i++)
            if (fe_ns_encloses(dirs.at[i], cur) && common_ns(dirs.at[i], dirs.ns[i]) == n &&
                ns_defines(c, dirs.ns[i], name))
                ns_add(out, dirs.ns[i]);
        for (int i = 0; !qual && i < c->ndecl; i++) /* using a::f; of a namespace */
            if (!c->decl_local[i] && strlen(c->decl_at[i]) == n &&
                strncmp(c->decl_at[i], cur, n) == 0 && strcmp(c->decl_name[i], name) == 0 &&
                ns_defines(c, c->decl_from[i], name))
                ns_add(out, c->decl_from[i]);
        if (!n)
            break;
        n = fe_ns_parent(cur, n);
    }
    for (int i = 0; !qual && i < nargs && i < 32; i++) { /* argument-dependent lookup */
        const fe_type *t = types[i];
        while (t && (t->kind == TY_PTR || t->kind == TY_ARRAY))
            t = t->base;
        const char *ns = t && t->kind == TY_STRUCT ? (t->def_ns ? t->def_ns : t->origin ? t->origin->def_ns : NULL)
                                                   : NULL;
        if (ns && ns_defines(c, ns, name))
            ns_add(out, ns);
    }
    if (out->n)
        return out;
    bool anywhere = false;
    for (int i = 0; i < c->nns && !anywhere; i++)
        anywhere = ns_defines(c, c->nss[i], name);
    return anywhere || qual ? out : NULL; /* out of reach: none (builtins); unknown: every one */
}

/* How far a deduced template argument is from a plain type: pointer
 * levels and struct template instances. Of two templates that fit alike,
 * the one deducing the plainer arguments is the more specialized (T * over
 * T for an int *, Vec<T> over T for a Vec<float>). */
static int targ_depth(const fe_type *t)
{
    int d = 0;
    for (; t && (t->kind == TY_PTR || t->kind == TY_ARRAY); t = t->base)
        d++;
    return d + (t && t->kind == TY_STRUCT && (t->tmpl || t->origin));
}

/*
 * The best instance of the function templates named `name` for arguments
 * of these types (the first nexplicit template arguments given in the
 * call, the rest deduced), its fit in *score; NULL when none deduces (an
 * instance with another parameter count, score -1, when only such). Of
 * instances that fit alike, the more specialized template's: plainer
 * deduced arguments (targ_depth: f(T *) over f(T), f(Vec<T, N>) over
 * f(T)), then fewer template parameters (g(T, T) over g(T, U)).
 */
/*
 * Template tp's instance for these arguments, or NULL. Instantiating a
 * candidate that overload resolution may not choose must not fail the
 * compile (C++ instantiates only the chosen one's body): an error while
 * parsing it drops the candidate and is forgotten.
 */
static fe_node *try_instance(fe_lower *L, fe_template *tp, fe_type **targs, int64_t *tvals, int n,
                             const fe_tok *at, cvm_diag *first_err, cvm_status *first_st)
{
    fe_ctx *c = L->c;
    cvm_diag saved;
    memset(&saved, 0, sizeof saved);
    if (c->diag)
        saved = *c->diag;
    fe_node *inst = fe_instantiate(c, tp, targs, tvals, n, at);
    if (c->err && c->err_status != CVM_OUT_OF_MEMORY && !c->err_kept) {
        if (!*first_st) { /* reported if no candidate is left */
            *first_st = c->err_status;
            if (c->diag)
                *first_err = *c->diag;
        }
        c->err = false;
        c->err_status = CVM_OK;
        if (c->diag)
            *c->diag = saved;
        return NULL;
    }
    return inst;
}

static fe_node *best_template(fe_lower *L, fe_node *call, const char *name, fe_type **types, int nargs,
                              int nexplicit, const ns_set *ns, const bool *rv, bool others, int *score,
                              int *binds)
{
    fe_node *best = NULL, *fallback = NULL;
    int best_np = 0, best_depth = 0;
    cvm_diag first_err;
    cvm_status first_st = CVM_OK;
    memset(&first_err, 0, sizeof first_err);
    *score = -1;
    *binds = 0;
    fe_type *plain[32]; /* deduction from the values' types: T of a const float is float */
    fe_type *unq[32];   /* fits scored without const: T & of a const P deduces const P */
    bool any_const = false;
    for (int i = 0; i < nargs; i++) {
        plain[i] = types[i] && types[i]->kind != TY_STRUCT ? fe_unqual(types[i]) : types[i];
        unq[i] = types[i] ? fe_unqual(types[i]) : NULL;
        any_const |= plain[i] != types[i] || (types[i] && types[i]->is_const);
    }
    for (fe_template *tp = L->c->templates; tp && !L->c->err; tp = tp->next) {
        if (tp->is_struct || tp->is_var || tp->owner || strcmp(tp->name, name) != 0 || nexplicit > tp->nparams ||
            !ns_has(ns, tp->ns))
            continue;
        /* first from the values' types, then (T & of a const P: T is const P) as written */
        for (int as_written = 0; as_written < 1 + any_const && !L->c->err; as_written++) {
            fe_type *targs[8] = {0};
            int64_t tvals[8] = {0};
            for (int k = 0; k < nexplicit; k++)
                targs[k] = call->a->targs[k], tvals[k] = call->a->tvals[k];
            fe_node *inst = NULL;
            const fe_tok *at = call ? call->tok : NULL;
            if (nexplicit < tp->nparams) { /* f(x) of template <class T> f(T); f<3>(x): the rest deduced */
                if (fe_deduce(L->c, tp, as_written ? types : plain, nargs, targs, tvals, nexplicit))
                    inst = try_instance(L, tp, targs, tvals, tp->nparams, at, &first_err, &first_st);
                else if (nexplicit) /* f<3>(): the rest from their defaults */
                    inst = try_instance(L, tp, targs, tvals, nexplicit, at, &first_err, &first_st);
                else
                    continue;
            } else {
                inst = try_instance(L, tp, targs, tvals, nexplicit, at, &first_err, &first_st);
            }
            if (inst && !fe_params_match(inst, nargs) && !fallback)
                fallback = inst; /* deduced, but takes another count: the call says so */
            if (!inst || !fe_params_match(inst, nargs))
                continue;
            const int s = overload_score(inst, unq, nargs, false, rv, false, NULL), b = const_ref_binds(inst, unq, nargs, rv);
            int depth = 0;
            for (int k = nexplicit; k < tp->nparams && k < 8; k++)
                depth += targ_depth(targs[k]);
            if (s > *score || (s == *score && (b < *binds || (b == *binds && (depth < best_depth ||
                                                                             (depth == best_depth && tp->nparams < best_np)))))) {
                best = inst;
                *score = s;
                *binds = b;
                best_np = tp->nparams;
                best_depth = depth;
            }
        }
    }
    if (*score < 0 && !fallback && first_st && !others && !L->c->err) { /* nothing left: the first error */
        L->c->err = true;
        L->c->err_status = first_st;
        if (L->c->diag)
            *L->c->diag = first_err;
    }
    return *score >= 0 ? best : fallback;
}

fe_node *fe_find_func(fe_lower *L, fe_node *call, const char *name, fe_val *args, int nargs)
{
    fe_type *types[32] = {0};
    bool rv[32] = {0}; /* an argument is a temporary */
    bool named = false;
    for (fe_node *f = L->c->funcs; f && !named; f = f->next)
        named = strcmp(f->name, name) == 0;
    int ncall = 0;
    for (fe_node *a = call ? call->args : NULL; a; a = a->next)
        ncall++;
    fe_template *tp = call && call->a->kind == N_IDENT ? fe_find_template_for(L->c, name, ncall) : NULL;
    named |= tp != NULL;
    if (call && named) {
        nargs = 0;
        for (fe_node *a = call->args; a; a = a->next, nargs++)
            if (nargs < 32)
                types[nargs] = fe_type_of_arg(L, a, true, &rv[nargs]); /* const lvalues stay const */
    } else if (call) {
        nargs = 0;
        for (fe_node *a = call->args; a; a = a->next)
            nargs++;
    } else if (args) {
        for (int i = 0; i < nargs && i < 32; i++)
            types[i] = args[i].ty;
    }
    if (nargs > 32)
        nargs = 32;
    bool braced = false; /* f({a, b}): the list has no type to choose an overload by */
    for (fe_node *a = call ? call->args : NULL; a; a = a->next)
        braced |= a->kind == N_INITLIST;
    if (braced) { /* templates do not count: a braced list deduces nothing */
        int candidates = 0;
        for (fe_node *f = L->c->funcs; f; f = f->next)
            candidates += f->body && strcmp(f->name, name) == 0 && fe_params_match(f, nargs);
        if (candidates > 1) {
            fe_error(L->c, call->tok, CVM_UNSUPPORTED, "a braced argument of overloaded '%s' is not supported; "
                     "name its type (T{a, b})", name);
            return NULL;
        }
    }
    int nexplicit = call && call->a->kind == N_IDENT ? call->a->ntargs : 0;
    ns_set nsbuf;
    const ns_set *ns = call && call->a->kind == N_IDENT ? call_ns(L, name, call->a, types, nargs, &nsbuf) : NULL;
    fe_node *best = nexplicit ? NULL : find_func(L, name, types, nargs, ns, rv);
    if (!tp || nargs > 32)
        return best;
    /* a template instance beats a plain function only by fitting the
     * arguments better (clamp(float...) of template <class T> clamp(T...)
     * beside clamp(int...)); at a tie the plain function wins, as in C++ */
    const int plain = best ? overload_score(best, types, nargs, L->ctor_conv, rv, true, NULL) : -1;
    const int plain_binds = best ? const_ref_binds(best, types, nargs, rv) : 0;
    if (best && plain >= FE_FIT_EXACT * nargs + 1 && !plain_binds)
        return best; /* every argument exactly: nothing fits better */
    int score = -1, binds = 0;
    fe_node *inst = best_template(L, call, name, types, nargs, nexplicit, ns, rv, best != NULL, &score, &binds);
    return inst && (score > plain || (score == plain && binds < plain_binds) || !best) ? inst : best;
}

/* Calls member function `name` of struct st chosen by overload resolution on
 * the arguments, on *self (NULL for a static member); false if it has none. */
static bool call_member(fe_lower *L, const fe_tok *at, fe_type *st, fe_val *self, const char *name,
                        fe_val *args, int n, fe_val *out)
{
    fe_type *types[32] = {0};
    if (!fe_method_owner(L, self, &st, name, at)) { /* declared in a base: on its subobject */
        *out = fe_bad(L);
        return true;
    }
    for (int i = 0; i < n && i < 32; i++) /* const dropped: a generic lambda's auto & takes a const P */
        types[i] = args[i].ty && args[i].ty->kind != TY_STRUCT ? fe_unqual(fe_arg_type(L, args[i])) : args[i].ty;
    const int self_const = self ? self->ty->is_const : -1;
    fe_node *m = best_overload(st->methods, name, types, n, true, false, self_const, NULL, NULL);
    fe_template *tp = fe_member_template(st, name);
    fe_type *targs[8] = {0};
    int64_t tvals[8] = {0};
    const bool deduces = tp && n <= 32 && fe_deduce(L->c, tp, types, n, targs, tvals, 0);
    /* the member template's instance where it fits better: a plain one
     * wins a tie, and one taking every argument exactly is not compared
     * (the template is not instantiated for nothing); a non-const one is
     * no candidate on a const object */
    const int plain = m ? overload_score(m, types, n, false, NULL, false, NULL) : -1;
    if (m && deduces && plain < FE_FIT_EXACT * n + 1) {
        fe_node *inst = fe_instantiate(L->c, tp, targs, tvals, tp->nparams, at);
        if (inst && !L->c->err && fe_params_match(inst, n) && (self_const != 1 || inst->is_const_fn) &&
            overload_score(inst, types, n, false, NULL, false, NULL) > plain)
            m = inst;
    }
    if (!m && !deduces) /* the last resort, unless a member template deduces from the arguments as they are */
        m = best_overload(st->methods, name, types, n, true, true, self_const, NULL, NULL);
    if (!m)
        return false;
    if (!m->body) {
        fe_error(L->c, at, CVM_SYNTAX, "member function '%s::%s' is declared but not defined (define it in "
                 "the struct, or as %s::%s outside it)", st->name, name, st->name, name);
        *out = (fe_val){fe_ty(TY_I32), fe_const_int(L, TY_I32, 0).reg, LV_NONE, 0, false, false, false, false};
        return true;
    }
    *out = fe_call_fn(L, at, m, self, args, n);
    return true;
}

/* Calls method `name` of the struct object at obj (LV_MEM); false if it has none. */
bool fe_call_method(fe_lower *L, const fe_tok *at, fe_val obj, const char *name, fe_val *args, int n,
                    fe_val *out)
{
    if (obj.ty->kind != TY_STRUCT || obj.lv != LV_MEM)
        return false;
    return call_member(L, at, obj.ty, &obj, name, args, n, out);
}

/* S::name(args): a member function of struct S called without an object
 * (a static member function); false if S has none of that name. */
bool fe_call_static(fe_lower *L, const fe_tok *at, fe_type *st, const char *name, fe_val *args, int n,
                    fe_val *out)
{
    return call_member(L, at, st, NULL, name, args, n, out);
}

/* An overloaded operator: a method of the first operand or a free function. */
bool fe_call_operator(fe_lower *L, const fe_tok *at, const char *op, fe_val *args, int n, fe_val *out)
{
    char name[16];
    snprintf(name, sizeof name, "operator%s", op);
    if (n >= 1 && fe_call_method(L, at, args[0], name, args + 1, n - 1, out))
        return true;
    fe_type *types[4] = {0};
    for (int i = 0; i < n && i < 4; i++)
        types[i] = args[i].ty;
    fe_node *f = find_func(L, name, types, n, NULL, NULL);
    /* a free operator that needs a user conversion for an operand loses to a
     * member operator template that takes the operands as they are */
    bool converts = false;
    int i = 0;
    for (const fe_node *p = f ? f->params : NULL; p && i < n; p = p->next, i++)
        converts |= types[i] && fe_arg_score(types[i], p->ty) == 0;
    if ((!f || converts) && n >= 1 && fe_member_operator_template(L, at, args[0], name, args + 1, n - 1, out))
        return true;
    /* template <class T> V2<T> operator+(V2<T>, V2<T>): every operator
     * template of the name whose arguments deduce, the best fit chosen
     * (V2 and V3 overloads, (V2<T>, T) beside (T, V2<T>)) */
    int best_score = -1;
    for (fe_template *tp = f ? NULL : L->c->templates; tp && !L->c->err; tp = tp->next) {
        fe_type *targs[8];
        int64_t tvals[8];
        if (tp->is_struct || tp->is_var || tp->owner || strcmp(tp->name, name) != 0 ||
            !fe_deduce(L->c, tp, types, n, targs, tvals, 0))
            continue;
        fe_node *inst = fe_instantiate(L->c, tp, targs, tvals, tp->nparams, at);
        const int score = inst && fe_params_match(inst, n) ? overload_score(inst, types, n, false, NULL, false, NULL) : -1;
        if (score > best_score)
            f = inst, best_score = score;
    }
    if (!f && !L->c->err) { /* the last resort: an operand built by a converting constructor (v + 1.0f) */
        L->ctor_conv = true;
        f = find_func(L, name, types, n, NULL, NULL);
        L->ctor_conv = false;
    }
    if (!f)
        return false;
    if (!f->body) {
        fe_error(L->c, at, CVM_SYNTAX, "'%s' is declared but not defined", name);
        *out = fe_zero(L);
        return true;
    }
    *out = fe_call_fn(L, at, f, NULL, args, n);
    return true;
}

/* ---- calls in expressions ---- */

fe_template *fe_member_template(const fe_type *st, const char *name)
{
    fe_template *t = (st->origin ? st->origin : st)->mtemplates;
    while (t && strcmp(t->name, name) != 0)
        t = t->next;
    return t;
}

/* obj.f(vals) of member function template t, its first nexplicit
 * arguments named (targs/tvals), the rest deduced from the values. */
static fe_val member_template_vals(fe_lower *L, const fe_tok *at, fe_template *t, const fe_val *obj,
                                   fe_val *vals, int n, int nexplicit, fe_type **targs, int64_t *tvals)
{
    fe_type *types[32];
    for (int i = 0; i < n && i < 32; i++)
        types[i] = fe_arg_type(L, vals[i]);
    fe_node *fn = NULL;
    if (nexplicit < t->nparams && fe_deduce(L->c, t, types, n, targs, tvals, nexplicit))
        fn = fe_instantiate(L->c, t, targs, tvals, t->nparams, at);
    else if (nexplicit)
        fn = fe_instantiate(L->c, t, targs, tvals, nexplicit, at);
    else
        fe_error(L->c, at, CVM_SYNTAX, "cannot deduce the template arguments of member '%s'", t->name);
    if (fn && !fn->body && !L->c->err)
        fe_error(L->c, at, CVM_SYNTAX, "member function template '%s' is declared but not defined", t->name);
    if (fn && !obj && !(fn->storage & FE_S_STATIC) && !L->c->err)
        fe_error(L->c, at, CVM_SYNTAX, "member function template '%s' is not static: call it on an object",
                 t->name);
    return fn && !L->c->err ? fe_call_fn(L, at, fn, obj, vals, n) : fe_bad(L);
}

bool fe_member_operator_template(fe_lower *L, const fe_tok *at, fe_val obj, const char *name, fe_val *args,
                                 int n, fe_val *out)
{
    fe_type *st = obj.ty;
    if (st->kind == TY_STRUCT && obj.lv == LV_MEM && !fe_method_owner(L, &obj, &st, name, at))
        return false;
    fe_template *t = obj.ty->kind == TY_STRUCT && obj.lv == LV_MEM ? fe_member_template(obj.ty, name) : NULL;
    fe_type *targs[8];
    int64_t tvals[8];
    if (!t || n > 32)
        return false;
    *out = member_template_vals(L, at, t, &obj, args, n, 0, targs, tvals);
    return true;
}

/* obj.f(args) of a member function template f: arguments deduced from the call. */
static bool member_template_call(fe_lower *L, fe_node *e, fe_val obj, const char *name, fe_val *out)
{
    fe_template *t = fe_member_template(obj.ty, name);
    if (!t)
        return false;
    fe_val vals[32];
    int n = 0;
    for (fe_node *a = e->args; a; a = a->next) {
        if (n == 32) {
            fe_error(L->c, a->tok, CVM_LIMIT, "more than 32 arguments");
            return false;
        }
        vals[n++] = fe_gen(L, a);
    }
    fe_type *targs[8];
    int64_t tvals[8];
    int nexplicit = e->a->ntargs;
    for (int k = 0; k < nexplicit && k < 8; k++)
        targs[k] = e->a->targs[k], tvals[k] = e->a->tvals[k];
    *out = member_template_vals(L, e->tok, t, &obj, vals, n, nexplicit, targs, tvals);
    return true;
}

/* obj.name(args) / p->name(args) / name(args) inside a member function */
static bool method_call(fe_lower *L, fe_node *e, fe_val obj, const char *name, fe_val *out)
{
    fe_val vals[32];
    int n = 0;
    if (obj.ty->kind != TY_STRUCT || obj.lv != LV_MEM)
        return false;
    fe_type *st = obj.ty;
    if (!fe_method_owner(L, &obj, &st, name, e->tok)) { /* declared in a base: on its subobject */
        *out = fe_bad(L);
        return true;
    }
    int found = 0;
    fe_node *only = NULL; /* the method when one has the name: {a, b} arguments take its parameters' types */
    for (fe_node *m = obj.ty->methods; m; m = m->next)
        if (strcmp(m->name, name) == 0)
            found++, only = m;
    if (!found)
        return member_template_call(L, e, obj, name, out);
    fe_node *p = found == 1 ? only->params : NULL;
    for (fe_node *a = e->args; a; a = a->next, p = p ? p->next : NULL) {
        if (n == 32) {
            fe_error(L->c, a->tok, CVM_LIMIT, "more than 32 arguments");
            return false;
        }
        vals[n++] = fe_arg_value(L, a, p);
    }
    if (fe_call_method(L, e->tok, obj, name, vals, n, out))
        return true;
    if (!L->c->err && fe_member_operator_template(L, e->tok, obj, name, vals, n, out))
        return true; /* set(V2) beside template <class T> set(T *): the template deduced */
    fe_error(L->c, e->tok, CVM_SYNTAX, "no member function '%s' of '%s' takes these arguments", name,
             obj.ty->name);
    *out = fe_bad(L);
    return true;
}

/* Has struct t (or a base of it) a static member function of that name? */
static bool has_static_method(const fe_type *t, const char *name)
{
    const fe_type *root = t->origin ? t->origin : t;
    for (const fe_node *m = root->methods; m; m = m->next)
        if ((m->storage & FE_S_STATIC) && strcmp(m->name, name) == 0)
            return true;
    for (const fe_member *m = t->members; m; m = m->next)
        if (m->is_base && has_static_method(m->ty, name))
            return true;
    return false;
}

fe_val fe_call_expr(fe_lower *L, fe_node *e)
{
    fe_val out = fe_rv(fe_ty(TY_I32), 0); /* what a call reported as an error gives */
    if (e->a->kind == N_MEMBER || e->a->kind == N_ARROW) {
        fe_val obj;
        if (e->a->kind == N_MEMBER) {
            obj = fe_gen(L, e->a->a);
        } else {
            fe_val p = fe_rvalue(L, e->a->a);
            obj = (fe_val){p.ty->kind == TY_PTR ? p.ty->base : p.ty, p.reg, LV_MEM, 0, false, false, false, false};
        }
        if (e->a->owner && !fe_to_base(L, &obj, fe_unqual(e->a->owner), e->tok)) { /* this->B::f() */
            char bn[128];
            fe_type_str(e->a->owner, bn, sizeof bn);
            fe_error(L->c, e->tok, CVM_SYNTAX, "'%s' is not a base class of '%s'", bn,
                     obj.ty->name ? obj.ty->name : "this type");
            return fe_bad(L);
        }
        if (fe_builtin_method(L, e, obj, &out) || method_call(L, e, obj, e->a->name, &out))
            return out;
        if (!L->c->err)
            fe_error(L->c, e->tok, CVM_SYNTAX, "no member function named '%s'", e->a->name);
        return fe_bad(L);
    }
    if (e->a->kind != N_IDENT) { /* [&] { ... }(), Op()(a, b): operator() of a temporary */
        fe_val obj = fe_gen(L, e->a);
        if (!L->c->err && obj.ty->kind == TY_STRUCT && method_call(L, e, obj, "operator()", &out))
            return out;
        fe_error(L->c, e->tok, CVM_UNSUPPORTED, "function pointers are not supported in kernels");
        return fe_bad(L);
    }
    const char *name = e->a->name;
    fe_var *self_of = e->a->ty && e->a->ty->kind == TY_STRUCT ? fe_lookup(L, "this") : NULL;
    if (self_of && self_of->val.ty->kind == TY_PTR && fe_derives(self_of->val.ty->base, e->a->ty)) {
        /* B::f(args) in a member function of a struct derived from B: on this object's B */
        fe_val obj = {self_of->val.ty->base, self_of->val.reg, LV_MEM, 0, false, false, false, false};
        if (fe_to_base(L, &obj, e->a->ty, e->tok) && method_call(L, e, obj, name, &out))
            return out;
    }
    if (e->a->ty && e->a->ty->kind == TY_STRUCT) { /* S::f(args) */
        fe_val vals[32];
        int n = 0;
        for (fe_node *a = e->args; a && n < 32; a = a->next)
            vals[n++] = fe_gen(L, a);
        /* a static member function that takes the arguments before a
         * template of the name (C++ prefers the non-template), unless
         * template arguments are named */
        if (!e->a->ntargs && fe_call_static(L, e->tok, e->a->ty, name, vals, n, &out))
            return out;
        fe_template *t = fe_member_template(e->a->ty, name);
        if (t && !L->c->err) { /* S::f(x), S::f<T>(x): a static member function template */
            fe_type *targs[8];
            int64_t tvals[8];
            const int nexplicit = e->a->ntargs;
            for (int k = 0; k < nexplicit && k < 8; k++)
                targs[k] = e->a->targs[k], tvals[k] = e->a->tvals[k];
            return member_template_vals(L, e->tok, t, NULL, vals, n, nexplicit, targs, tvals);
        }
        if (!L->c->err)
            fe_error(L->c, e->tok, CVM_SYNTAX, "'%s' has no member function '%s' taking these arguments",
                     e->a->ty->name ? e->a->ty->name : "struct", name);
        return fe_bad(L);
    }
    /* a::f(x) and ::f(x) name a function of a namespace: no local, member or static member */
    const bool qualified = e->a->qual != NULL;
    fe_var *fv = qualified ? NULL : fe_lookup(L, name);
    if (fv && fe_unqual(fv->ty)->kind == TY_STRUCT) { /* f(args) on a struct object: operator() */
        if (method_call(L, e, fe_addr_of_var(L, fv), "operator()", &out))
            return out;
        fe_error(L->c, e->tok, CVM_SYNTAX, "'%s' is not a function and has no operator()", name);
        return fe_bad(L);
    }
    fe_var *self = qualified ? NULL : fe_lookup(L, "this");
    if (self && self->val.ty->kind == TY_PTR) {
        fe_val obj = {self->val.ty->base, self->val.reg, LV_MEM, 0, false, false, false, false};
        const fe_frame *f = L->frame; /* in a const member function (a lambda's: its enclosing one's) *this is const */
        while (f && f->fn && f->fn->owner && f->fn->owner->is_lambda)
            f = f->up;
        if (f && f->fn && f->fn->is_const_fn)
            obj.ty = fe_qualified(L->c, obj.ty, true, obj.ty->is_volatile);
        if (method_call(L, e, obj, name, &out))
            return out;
    } else if (!qualified && L->frame && L->frame->fn && L->frame->fn->owner &&
               has_static_method(L->frame->fn->owner, name)) {
        /* in a static member function: a sibling static member, unqualified
         * (it hides a free function of that name, as in C++) */
        fe_val vals[32];
        int n = 0;
        for (fe_node *a = e->args; a && n < 32; a = a->next)
            vals[n++] = fe_gen(L, a);
        if (!L->c->err && fe_call_static(L, e->tok, L->frame->fn->owner, name, vals, n, &out))
            return out;
        if (!L->c->err)
            fe_error(L->c, e->tok, CVM_SYNTAX, "no static member function '%s' of '%s' takes these arguments",
                     name, L->frame->fn->owner->name);
        return fe_bad(L);
    }
    fe_node *fn = fe_find_func(L, e, name, NULL, 0);
    if (fn && (fn->storage & FE_S_HOST) && !(fn->storage & FE_S_DEVICE)) {
        fe_error(L->c, e->tok, CVM_SYNTAX, "calling a __host__ function from a %s function is not allowed",
                 L->frame ? "__device__" : "__global__");
        return fe_bad(L);
    }
    if (fn)
        return fe_call_user(L, e, fn);
    if (!L->c->err && !fe_builtin_call(L, e, name, &out)) {
        L->ctor_conv = true; /* the last resort: a struct argument built by a converting constructor */
        fn = fe_find_func(L, e, name, NULL, 0);
        L->ctor_conv = false;
        if (fn && !L->c->err)
            return fe_call_user(L, e, fn);
        /* a user function of that name with another arity */
        int n = 0, want = -1, named = 0;
        fe_node *only = NULL;
        for (fe_node *a = e->args; a; a = a->next)
            n++;
        for (fe_node *f = L->c->funcs; f; f = f->next)
            if (f->body && strcmp(f->name, name) == 0) {
                want = 0;
                for (fe_node *p = f->params; p; p = p->next)
                    want++;
                only = f;
                named++;
            }
        if (named == 1 && n == want && !L->c->err && say_mismatch(L, e, only))
            return fe_bad(L);
        fe_template *tp = fe_find_template(L->c, name);
        if (want < 0 && tp && !tp->is_struct && !L->c->err) {
            fe_error(L->c, e->tok, CVM_SYNTAX,
                     "cannot deduce the template arguments of '%s'; name them: %s<...>(...)", name, name);
            return fe_bad(L);
        }
        if (want >= 0 && !L->c->err) {
            if (n == want)
                fe_error(L->c, e->tok, CVM_SYNTAX, "no function '%s' takes arguments of these types", name);
            else
                fe_error(L->c, e->tok, CVM_SYNTAX, "too %s arguments to function '%s' (%d given, %d expected)",
                         n < want ? "few" : "many", name, n, want);
            return fe_bad(L);
        }
        if (!L->c->err && fe_host_name(L->c, name, true))
            fe_error(L->c, e->tok, CVM_SYNTAX, "calling a __host__ function from a %s function is not allowed",
                     L->frame ? "__device__" : "__global__");
        else if (!L->c->err && fe_unsupported_name(name, strlen(name)))
            fe_error(L->c, e->tok, CVM_UNSUPPORTED, "%s", fe_unsupported_name(name, strlen(name)));
        else if (!L->c->err)
            fe_error(L->c, e->tok, CVM_SYNTAX, "call to undeclared function '%s'", name);
        return fe_bad(L);
    }
    return out;
}
