/*
 * lower_tmpl.c - the module's kernels: every selected __global__ function,
 * and the template instances named with --kernel ("reduce<256>",
 * "scale<float, 4>").
 *
 * An instance's integer template parameters become comptime parameters of
 * one bytecode kernel per template and type arguments ("reduce<blockSize>",
 * "scale<float, ITEMS>"), so instances that differ only in integers share
 * a kernel and the launch supplies the value (cvm_kernel_get_instance maps
 * "reduce<256>" to it). That needs a body that uses the parameters as
 * values only. Where C++ needs the value while compiling (an array bound,
 * another template's argument, static_assert, if constexpr, a case label)
 * the comptime attempt fails to compile, and the instance is compiled
 * again with every argument folded in, as a kernel named by the instance.
 */
#include "lower.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The comptime kernel's name: type arguments spelled out, integer parameters by name. */
static const char *comptime_name(fe_ctx *c, const fe_template *t, fe_type **targs, unsigned mask)
{
    fe_buf b = {0};
    fe_buf_printf(c, &b, "%s<", t->name);
    for (int i = 0; i < t->nparams; i++) {
        char ty[128];
        if (mask >> i & 1u)
            snprintf(ty, sizeof ty, "%s", t->pnames[i]);
        else if (targs[i])
            fe_type_str(targs[i], ty, sizeof ty);
        else
            snprintf(ty, sizeof ty, "?");
        fe_buf_printf(c, &b, "%s%s", i ? ", " : "", ty);
    }
    fe_buf_printf(c, &b, ">");
    const char *name = b.p ? fe_strndup(c, b.p, b.len) : NULL;
    fe_buf_free(c, &b);
    return name;
}

/*
 * Compiles template t's instance with its integer parameters as comptime
 * parameters; true when done (or already done for another instance).
 * False, with no error and nothing written, when the body needs a value
 * while compiling or the template has no integer parameters.
 */
static bool comptime_kernel(fe_lower *L, fe_template *t, fe_type **targs, const int64_t *tvals)
{
    fe_ctx *c = L->c;
    unsigned mask = 0;
    for (int i = 0; i < t->nparams; i++)
        if (!t->pis_type[i] && t->ptypes[i] && fe_is_int(t->ptypes[i]) && t->ptypes[i]->kind != TY_STRUCT)
            mask |= 1u << i;
    if (!mask || t->is_struct)
        return false;
    for (const fe_tinst *i = t->insts; i; i = i->next)
        if (i->fn)
            return false; /* explicit specializations: each instance folded, so they are found */
    const char *name = comptime_name(c, t, targs, mask);
    if (!name)
        return false;
    for (int i = 0; i < L->nemitted; i++)
        if (strcmp(L->emitted[i], name) == 0)
            return true;
    if (L->nemitted == (int)(sizeof L->emitted / sizeof L->emitted[0]))
        return false;
    cvm_diag saved;
    memset(&saved, 0, sizeof saved);
    if (c->diag)
        saved = *c->diag;
    size_t out_len = L->out->len;
    c->inst_comptime = mask;
    fe_node *fn = fe_instantiate(c, t, targs, tvals, t->nparams, NULL);
    c->inst_comptime = 0;
    if (fn && !c->err && (fn->storage & FE_S_GLOBAL)) {
        L->ct_tmpl = t;
        L->ct_mask = mask;
        fe_lower_kernel(L, fn, name);
        L->ct_tmpl = NULL;
        L->ct_mask = 0;
    }
    if (c->err || !fn || !(fn->storage & FE_S_GLOBAL)) {
        if (c->err_status == CVM_OUT_OF_MEMORY)
            return true;
        c->err = false;
        c->err_status = CVM_OK;
        if (c->diag)
            *c->diag = saved;
        L->out->len = out_len;
        if (L->out->p)
            L->out->p[out_len] = 0;
        return false;
    }
    L->emitted[L->nemitted++] = name;
    return true;
}

static bool wanted(const char *name, const char *const *kernels, uint32_t n)
{
    if (!n)
        return true;
    for (uint32_t i = 0; i < n; i++)
        if (kernels[i] && strcmp(kernels[i], name) == 0)
            return true;
    return false;
}

static void instance_kernel(fe_lower *L, fe_template *t, fe_type **targs, const int64_t *tvals, int k,
                            const char *spec);

static void template_kernel(fe_lower *L, const char *spec)
{
    /* "name<args>": the arguments are parsed by the parser (types or constants) */
    fe_ctx *c = L->c;
    const char *lt = strchr(spec, '<');
    size_t n = strlen(spec);
    if (!lt || n < 3 || spec[n - 1] != '>') {
        if (!lt && fe_find_template(c, spec))
            fe_error(c, NULL, CVM_NOT_FOUND,
                     "'%s' is a kernel template; name an instance: --kernel '%s<...>'", spec, spec);
        else
            fe_error(c, NULL, CVM_NOT_FOUND, "no __global__ function named '%s'", spec);
        return;
    }
    char *name = fe_strndup(c, spec, (size_t)(lt - spec));
    fe_template *t = name ? fe_find_template(c, name) : NULL;
    if (!t) {
        fe_error(c, NULL, CVM_NOT_FOUND, "no kernel template named '%s'", name ? name : spec);
        return;
    }
    fe_type *targs[8];
    int64_t tvals[8];
    int k = 0;
    const char *p = lt + 1;
    while (*p && *p != '>' && k < 8) {
        while (*p == ' ')
            p++;
        const char *s = p;
        while (*p && *p != ',' && *p != '>')
            p++;
        const char *e = p;
        while (e > s && e[-1] == ' ')
            e--;
        char *arg = fe_strndup(c, s, (size_t)(e - s));
        if (!arg)
            return;
        int64_t v = 0;
        bool above = false;
        const bool integer = fe_int_targ(arg, strlen(arg), &v, &above);
        targs[k] = NULL;
        tvals[k] = v;
        const fe_type *pt = k < t->nparams && !t->pis_type[k] ? t->ptypes[k] : NULL;
        if (integer && pt && fe_is_int(pt) &&
            !fe_targ_fits(fe_is_signed(pt), pt->kind == TY_BOOL ? 1 : pt->size * 8, v, above)) {
            char tn[64];
            fe_type_str(pt, tn, sizeof tn);
            fe_error(c, NULL, CVM_SYNTAX, "template argument '%s' of '%s' is out of range for '%s'", arg,
                     spec, tn);
            return;
        }
        if (!integer) {
            fe_kind sk;
            if (fe_scalar_type_name(arg, strlen(arg), &sk)) /* unsigned char, uint32_t, long long int */
                targs[k] = fe_ty(sk);
            if (!targs[k]) /* a struct, typedef or vector type of the file: k<Relu>, k<float4> */
                targs[k] = fe_lookup_type(c, arg);
            if (!targs[k]) {
                fe_error(c, NULL, CVM_SYNTAX, "cannot read template argument '%s' of '%s'", arg, spec);
                return;
            }
        }
        k++;
        if (*p == ',')
            p++;
    }
    instance_kernel(L, t, targs, tvals, k, spec);
}

/* Template t's instance named spec: a comptime kernel or a folded one. */
static void instance_kernel(fe_lower *L, fe_template *t, fe_type **targs, const int64_t *tvals, int k,
                            const char *spec)
{
    fe_ctx *c = L->c;
    int64_t vals[8] = {0};
    for (int i = 0; i < k && i < 8; i++)
        vals[i] = tvals[i];
    int given = k;
    k = fe_template_defaults(c, t, targs, vals, k);
    tvals = vals;
    /* with defaults the name lacks arguments an instance lookup needs: fold, named as asked */
    if (given == t->nparams && comptime_kernel(L, t, targs, tvals))
        return;
    fe_node *fn = fe_instantiate(c, t, targs, tvals, k, NULL);
    if (fn && !(fn->storage & FE_S_GLOBAL))
        fe_error(c, fn->tok, CVM_SYNTAX, "'%s' is not a __global__ function", spec);
    if (fn && !c->err)
        fe_lower_kernel(L, fn, spec);
}

/* The canonical name of an explicit instantiation: "k<float, 4>". */
static const char *explicit_name(fe_ctx *c, const fe_tinst *i)
{
    fe_buf b = {0};
    fe_buf_printf(c, &b, "%s<", i->tmpl->name);
    for (int k = 0; k < i->tmpl->nparams; k++) {
        char ty[128];
        if (i->targs[k])
            fe_type_str(i->targs[k], ty, sizeof ty);
        else
            snprintf(ty, sizeof ty, "%lld", (long long)i->tvals[k]);
        if (i->targs[k] && i->targs[k]->kind == TY_I64)
            snprintf(ty, sizeof ty, "long long");
        else if (i->targs[k] && i->targs[k]->kind == TY_U64)
            snprintf(ty, sizeof ty, "unsigned long long");
        fe_buf_printf(c, &b, "%s%s", k ? ", " : "", ty);
    }
    fe_buf_printf(c, &b, ">");
    const char *name = b.p ? fe_strndup(c, b.p, b.len) : NULL;
    fe_buf_free(c, &b);
    return name;
}

/* The name of a __global__ function template (the first declared), or NULL. */
static const char *global_template(fe_ctx *c)
{
    const char *found = NULL;
    for (const fe_template *t = c->templates; t; t = t->next) {
        for (uint32_t i = t->tok_begin; !t->is_struct && i < t->tok_end && i < c->ntoks; i++) {
            if (fe_tok_is(&c->toks[i], "("))
                break;
            if (fe_tok_is(&c->toks[i], "__global__"))
                found = t->name; /* the list is newest first: keep going to the first */
        }
    }
    return found;
}

cvm_status fe_lower_module(fe_ctx *c, const char *const *kernels, uint32_t nkernels, fe_buf *out)
{
    fe_lower lw;
    memset(&lw, 0, sizeof lw);
    fe_lower *L = &lw;
    L->c = c;
    L->out = out;
    c->lw = L;
    for (uint32_t i = 0; i < c->nfiles; i++)
        fe_buf_printf(c, out, ".file %u \"%s\"\n", i, fe_escape(c, c->files[i]));
    for (fe_node *d = c->globals; d && !c->err; d = d->next)
        fe_module_var(L, d);
    int count = 0;
    for (fe_node *f = c->funcs; f && !c->err; f = f->next) {
        if (!(f->storage & FE_S_GLOBAL) || !f->body || !wanted(f->name, kernels, nkernels))
            continue;
        fe_lower_kernel(L, f, f->name);
        count++;
    }
    for (uint32_t i = 0; i < nkernels && !c->err; i++) {
        bool found = false;
        for (uint32_t j = 0; j < i && kernels[i]; j++)
            found = found || (kernels[j] && strcmp(kernels[j], kernels[i]) == 0); /* asked twice: once */
        for (fe_node *f = c->funcs; f; f = f->next)
            if ((f->storage & FE_S_GLOBAL) && f->body && kernels[i] && strcmp(f->name, kernels[i]) == 0)
                found = true;
        if (!found && kernels[i]) {
            template_kernel(L, kernels[i]);
            count++;
        }
    }
    if (!nkernels) { /* explicit instantiations, in source order */
        fe_tinst *rev = NULL;
        for (fe_tinst *i = c->explicit_insts, *nx; i; i = nx) {
            nx = i->next;
            i->next = rev;
            rev = i;
        }
        c->explicit_insts = rev;
        for (fe_tinst *i = rev; i && !c->err; i = i->next) {
            const char *name = explicit_name(c, i);
            if (name)
                instance_kernel(L, i->tmpl, i->targs, i->tvals, i->tmpl->nparams, name);
            count++;
        }
    }
    if (!c->err && count == 0) {
        const char *tmpl = global_template(c);
        if (tmpl)
            fe_error(c, NULL, CVM_NOT_FOUND, "no __global__ kernel to compile; kernel templates "
                     "need an instance: --kernel '%s<...>'", tmpl);
        else
            fe_error(c, NULL, CVM_NOT_FOUND, "no __global__ kernel to compile");
    }
    fe_buf_free(c, &L->body);
    fe_buf_free(c, &L->regs);
    return c->err ? c->err_status : CVM_OK;
}

/* Is f, named by a call, a user function none of whose overloads is constexpr? */
static bool plain_function(fe_lower *L, const char *name)
{
    bool named = false;
    for (const fe_node *f = L->c->funcs; f; f = f->next)
        if (f->name && strcmp(f->name, name) == 0) {
            if (f->storage & FE_S_CONSTEXPR)
                return false;
            named = true;
        }
    return named;
}

/*
 * The part of a condition that does not fold which makes it no constant:
 * a name holding a run-time value (a parameter, a local, a module
 * variable, not const; not inside sizeof) or a call of a user function
 * that is not constexpr. NULL when there is none: the evaluator cannot
 * fold it for its own reasons (floating values, std::min, a member
 * function), and the condition is left unchecked rather than refused.
 */
static const fe_node *runtime_part(fe_lower *L, const fe_node *e)
{
    if (!e || e->kind == N_SIZEOF)
        return NULL;
    if (e->kind == N_IDENT && e->name && !e->qual) { /* a const one may be a constant the evaluator cannot read */
        const fe_var *v = fe_lookup(L, e->name);
        return v && v->ty && !v->ty->is_const ? e : NULL;
    }
    if (e->kind == N_CALL) {
        if (e->a && e->a->kind == N_IDENT && e->a->name && !e->a->qual && plain_function(L, e->a->name))
            return e;
    } else {
        const fe_node *r = runtime_part(L, e->a);
        if (!r)
            r = runtime_part(L, e->b);
        if (!r)
            r = runtime_part(L, e->c);
        if (r)
            return r;
    }
    for (const fe_node *a = e->args; a; a = a->next) {
        const fe_node *r = runtime_part(L, a);
        if (r)
            return r;
    }
    return NULL;
}

const char *fe_not_constant(fe_lower *L, const fe_node *cond, const fe_tok **at)
{
    const fe_node *why = runtime_part(L, cond);
    if (!why)
        return NULL;
    *at = why->tok;
    return why->kind == N_CALL ? fe_fmt(L->c, "'%s' is not constexpr", why->a->name)
                               : fe_fmt(L->c, "'%s' holds a run-time value", why->name);
}
