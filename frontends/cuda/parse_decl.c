/*
 * parse_decl.c - templates in the CUDA frontend's parser: recorded as
 * token ranges, instantiated by re-reading them (functions, structs cached
 * per argument list), explicit specializations and instantiations,
 * template argument deduction; and host code set aside. Struct bodies and
 * enums are parse_struct.c's.
 */
#include "parse.h"

#include <stdio.h>
#include <string.h>

/* The canonical name of an instance: Name<int, 4>. */
static const char *inst_name(fe_ctx *c, const fe_template *t, fe_type **targs, const int64_t *tvals, int n)
{
    char name[256];
    size_t len = (size_t)snprintf(name, sizeof name, "%s<", t->name);
    for (int k = 0; k < n && len < sizeof name; k++) {
        char a[128];
        if (t->pis_type[k] && targs[k])
            fe_type_str(targs[k], a, sizeof a);
        else
            snprintf(a, sizeof a, "%lld", (long long)tvals[k]);
        len += (size_t)snprintf(name + len, sizeof name - len, "%s%s", k ? ", " : "", a);
    }
    if (len < sizeof name)
        snprintf(name + len, sizeof name - len, ">");
    return fe_strndup(c, name, strlen(name));
}

/*
 * `template <> struct Name<args> { ... };` (the samples' SharedMemory<double>):
 * parsed now and recorded as the instance for those arguments, so every use
 * of Name<args> gets it instead of the primary template.
 */
static void explicit_specialization(fe_ctx *c, fe_tok *at)
{
    const bool is_class = fe_tok_is(fe_p_next(c), "class"); /* struct / class */
    fe_tok *nt = fe_p_expect_ident(c);
    if (c->err)
        return;
    const char *pname = fe_p_tok_name(c, nt);
    fe_template *t = fe_find_template(c, pname);
    if (!t || !t->is_struct || !fe_p_is(c, "<")) {
        fe_error(c, nt, CVM_UNSUPPORTED, "explicit specialization of '%s', which is not a struct template "
                 "declared before it", pname);
        return;
    }
    fe_type *targs[8];
    int64_t tvals[8];
    int n = fe_template_defaults(c, t, targs, tvals, fe_p_template_args(c, targs, tvals));
    if (!c->err && n != t->nparams)
        fe_error(c, nt, CVM_SYNTAX, "template '%s' takes %d arguments, %d given", t->name, t->nparams, n);
    for (int k = 0; k < n && !c->err; k++)
        if (t->pis_type[k] != (targs[k] != NULL))
            fe_error(c, nt, CVM_SYNTAX, "template argument %d of '%s' must be %s", k + 1, t->name,
                     t->pis_type[k] ? "a type" : "an integer constant");
    for (fe_tinst *i = t->insts; i && !c->err; i = i->next) {
        bool same = true;
        for (int k = 0; k < n && same; k++)
            same = t->pis_type[k] ? fe_same_type(i->targs[k], targs[k]) : i->tvals[k] == tvals[k];
        if (same)
            fe_error(c, at, CVM_SYNTAX, "explicit specialization of '%s' after its first use", t->name);
    }
    fe_tinst *inst = fe_alloc(c, sizeof *inst);
    fe_type *ty = fe_alloc(c, sizeof *ty);
    if (c->err || !inst || !ty)
        return;
    ty->kind = TY_STRUCT;
    ty->align = 1;
    ty->tmpl = t;
    ty->name = t->name;
    for (int k = 0; k < n; k++) {
        inst->targs[k] = targs[k];
        inst->tvals[k] = tvals[k];
    }
    inst->ty = ty;
    inst->next = t->insts;
    t->insts = inst;
    fe_tname *saved = c->tnames;
    fe_p_push_tname(c, t->name, ty, false, 0);
    ty->is_class = is_class;
    if (fe_p_is(c, ":"))
        fe_p_base_clause(c, ty);
    if (fe_p_expect(c, "{"))
        fe_p_struct_body(c, ty);
    c->tnames = saved;
    ty->name = inst_name(c, t, targs, tvals, n);
    for (fe_type *q = ty->copies; q; q = q->next_copy)
        q->name = ty->name;
    fe_p_expect(c, ";");
}

static bool same_args(const fe_template *t, const fe_tinst *i, fe_type **targs, const int64_t *tvals)
{
    for (int k = 0; k < t->nparams; k++)
        if (t->pis_type[k] ? !targs[k] || !i->targs[k] || !fe_same_type(i->targs[k], targs[k])
                           : i->tvals[k] != tvals[k])
            return false;
    return true;
}

/* template <> T f<args>(params) { ... } (or f(params), the arguments deduced
 * from the parameter types): used by fe_instantiate for those arguments. */
static void function_specialization(fe_ctx *c)
{
    unsigned storage = 0;
    uint32_t lb = 0;
    fe_type *base = fe_p_declspec(c, &storage, &lb);
    fe_tok *nt = NULL;
    fe_type *ty = fe_p_declarator(c, base ? base : fe_ty(TY_I32), &nt);
    if (c->err)
        return;
    const char *name = nt ? fe_p_tok_name(c, nt) : "";
    fe_template *t = nt ? fe_find_template(c, name) : NULL;
    if (!t || t->is_struct) {
        fe_error(c, nt ? nt : fe_p_peek(c), CVM_UNSUPPORTED,
                 "explicit specialization of '%s', which is not a function template declared before it", name);
        return;
    }
    fe_type *targs[8] = {0};
    int64_t tvals[8] = {0};
    int n = fe_p_is(c, "<") ? fe_template_defaults(c, t, targs, tvals, fe_p_template_args(c, targs, tvals)) : -1;
    if (!fe_p_is(c, "(")) {
        fe_error(c, fe_p_peek(c), CVM_SYNTAX, "expected '(' after the name of the specialized function");
        return;
    }
    fe_node *f = fe_p_function(c, ty, nt, storage, lb);
    if (c->err || !f)
        return;
    if (n < 0) { /* arguments deduced from the parameter types */
        fe_type *types[32] = {0};
        int np = 0;
        for (fe_node *p = f->params; p && np < 32; p = p->next)
            types[np++] = p->ty;
        if (!fe_deduce(c, t, types, np, targs, tvals, 0)) {
            fe_error(c, nt, CVM_SYNTAX, "cannot deduce the template arguments of this specialization of "
                     "'%s'; name them: %s<...>(...)", name, name);
            return;
        }
        n = t->nparams;
    }
    if (n != t->nparams) {
        fe_error(c, nt, CVM_SYNTAX, "template '%s' takes %d arguments, %d given", t->name, t->nparams, n);
        return;
    }
    for (fe_tinst *i = t->insts; i; i = i->next)
        if (i->fn && same_args(t, i, targs, tvals)) {
            fe_error(c, nt, CVM_SYNTAX, "redefinition of the specialization of '%s'", name);
            return;
        }
    fe_tinst *inst = fe_alloc(c, sizeof *inst);
    if (!inst)
        return;
    for (int k = 0; k < n; k++) {
        inst->targs[k] = targs[k];
        inst->tvals[k] = tvals[k];
    }
    inst->fn = f;
    inst->next = t->insts;
    t->insts = inst;
}

/* template __global__ void k<float>(float *); (explicit instantiation):
 * without --kernel, the module compiles these instances. */
static void explicit_instantiation(fe_ctx *c)
{
    unsigned storage = 0;
    uint32_t lb = 0;
    fe_type *base = fe_p_declspec(c, &storage, &lb);
    fe_tok *nt = NULL;
    fe_p_declarator(c, base ? base : fe_ty(TY_I32), &nt);
    if (c->err)
        return;
    const char *name = nt ? fe_p_tok_name(c, nt) : "";
    fe_template *t = nt ? fe_find_template(c, name) : NULL;
    if (!t || t->is_struct) {
        if (t && t->is_struct) { /* template struct S<float>; nothing to do */
            while (!c->err && !fe_p_accept(c, ";") && fe_p_peek(c)->kind != TK_EOF)
                fe_p_next(c);
            return;
        }
        fe_error(c, nt ? nt : fe_p_peek(c), CVM_SYNTAX,
                 "explicit instantiation of '%s', which is not a template declared before it", name);
        return;
    }
    fe_tinst *inst = fe_alloc(c, sizeof *inst);
    if (!inst)
        return;
    int n = fe_p_is(c, "<") ? fe_p_template_args(c, inst->targs, inst->tvals) : -1;
    n = fe_template_defaults(c, t, inst->targs, inst->tvals, n);
    uint32_t params = c->pos;
    fe_p_skip_balanced(c); /* the parameter list and the ';' */
    if (n < 0) { /* deduced from the parameter types */
        uint32_t end = c->pos;
        c->pos = params;
        fe_node *f = fe_p_function(c, base ? base : fe_ty(TY_I32), nt, storage, lb);
        c->pos = end;
        fe_type *types[32] = {0};
        int np = 0;
        for (fe_node *p = f ? f->params : NULL; p && np < 32; p = p->next)
            types[np++] = p->ty;
        if (c->err || !fe_deduce(c, t, types, np, inst->targs, inst->tvals, 0)) {
            if (!c->err)
                fe_error(c, nt, CVM_SYNTAX, "cannot deduce the template arguments of this instantiation of "
                         "'%s'; name them: %s<...>(...)", name, name);
            return;
        }
        n = t->nparams;
    }
    if (n != t->nparams) {
        fe_error(c, nt, CVM_SYNTAX, "template '%s' takes %d arguments, %d given", t->name, t->nparams, n);
        return;
    }
    inst->tmpl = t;
    if (storage & FE_S_GLOBAL) {
        inst->next = c->explicit_insts;
        c->explicit_insts = inst;
    }
}

static bool names_parameter(const fe_ctx *c, const fe_template *t, int i, uint32_t from, uint32_t to);

/*
 * Moves past a default template argument without reading it: to the ','
 * or '>' that ends it at depth 0 of brackets, where '<' opens a level
 * after the name of a template (Vec<T, 4>) and is less-than elsewhere. A
 * '>>' that closes the last level and the parameter list is split as a
 * template-id's is, leaving the list's '>'.
 */
static void skip_default(fe_ctx *c)
{
    int angle = 0, paren = 0;
    for (;;) {
        fe_tok *t = fe_p_peek(c);
        if (t->kind == TK_EOF)
            return;
        if (paren == 0 && angle == 0 && (fe_tok_is(t, ",") || fe_tok_is(t, ">") || fe_tok_is(t, ">>")))
            return;
        if (fe_tok_is(t, "(") || fe_tok_is(t, "[") || fe_tok_is(t, "{")) {
            paren++;
        } else if (fe_tok_is(t, ")") || fe_tok_is(t, "]") || fe_tok_is(t, "}")) {
            if (paren-- == 0)
                return;
        } else if (paren == 0 && fe_tok_is(t, "<")) {
            const fe_tok *prev = c->pos ? &c->toks[c->pos - 1] : NULL;
            char name[128];
            if (prev && prev->kind == TK_IDENT && prev->len < sizeof name) {
                memcpy(name, prev->s, prev->len);
                name[prev->len] = 0;
                angle += fe_find_template(c, name) != NULL;
            }
        } else if (paren == 0 && fe_tok_is(t, ">")) {
            angle--;
        } else if (paren == 0 && fe_tok_is(t, ">>")) {
            if (angle == 1) { /* Vec<T, 4>>: the first '>' is ours, the second the list's */
                fe_p_split(c, t);
                return;
            }
            angle -= 2;
        }
        fe_p_next(c);
    }
}

void fe_p_template_decl(fe_ctx *c)
{
    fe_tok *t = fe_p_next(c); /* template */
    if (!fe_p_is(c, "<")) {
        explicit_instantiation(c);
        return;
    }
    fe_template *tp = fe_alloc(c, sizeof *tp);
    int gap = -1; /* the first parameter without a default after one with a default */
    if (!tp)
        return;
    tp->ns = c->ns ? c->ns : "";
    fe_p_expect(c, "<");
    fe_tname *outer_names = c->tnames; /* the parameters, named for the defaults after them */
    const int splits = c->nsplits; /* `= Vec<T, 4>>`: the '>>' a default splits is made whole again */
    while (!c->err && !fe_p_is(c, ">")) {
        if (tp->nparams == 8) {
            fe_error(c, t, CVM_LIMIT, "more than 8 template parameters");
            return;
        }
        int i = tp->nparams++;
        if (fe_p_accept(c, "typename") || fe_p_accept(c, "class")) {
            tp->pis_type[i] = true;
        } else {
            unsigned st = 0;
            const uint32_t from = c->pos;
            fe_tok *at = fe_p_peek(c);
            tp->ptypes[i] = fe_p_declspec(c, &st, NULL);
            if (!c->err && names_parameter(c, tp, i, from, c->pos)) {
                fe_p_unsupported(c, at, "a template value parameter whose type is a template parameter "
                                 "(template <class T, T v>) is not supported; give it an integer type");
                return;
            }
        }
        if (fe_p_is(c, "...")) {
            fe_p_unsupported(c, fe_p_peek(c), "variadic templates (template <class... Ts>) are not supported "
                             "in kernels; write an overload per argument count");
            return;
        }
        tp->pnames[i] = fe_p_tok_name(c, fe_p_expect_ident(c));
        if (fe_p_accept(c, "=")) {
            /* a default argument: read here, or when it names an earlier
             * parameter, skipped here and read at each use with the
             * arguments bound */
            fe_tok *at = fe_p_peek(c);
            const uint32_t from = c->pos;
            const int mark = c->nsplits;
            tp->has_def[i] = true;
            tp->pdef_pos[i] = from;
            skip_default(c); /* its extent: one naming an earlier parameter is not read here */
            tp->pdef_dep[i] = names_parameter(c, tp, i, from, c->pos);
            if (!tp->pdef_dep[i]) { /* (stand-ins would instantiate Wrap<int> for class U = Wrap<T>) */
                c->pos = from;
                fe_p_unsplit(c, mark);
                if (tp->pis_type[i]) {
                    tp->pdef_ty[i] = fe_p_type_name(c);
                } else if (!fe_const_eval(c, fe_parse_shift(c), &tp->pdef_val[i]) && !c->err) {
                    fe_error(c, at, CVM_UNSUPPORTED, "a default template argument must be an integer constant");
                    return;
                }
            }
        } else if (i > 0 && tp->has_def[i - 1] && gap < 0) {
            gap = i; /* a function template's may be deduced (template <int N = 4, class T>) */
        }
        if (tp->pnames[i])
            fe_p_push_tname(c, tp->pnames[i], tp->pis_type[i] ? fe_ty(TY_I32) : tp->ptypes[i], !tp->pis_type[i], 1);
        if (!fe_p_accept(c, ","))
            break;
    }
    c->tnames = outer_names;
    fe_p_expect(c, ">");
    fe_p_unsplit(c, splits); /* a default parsed again from its tokens splits it again */
    const bool is_function = !fe_p_is(c, "struct") && !fe_p_is(c, "class") && !fe_p_is(c, "union") &&
                             !fe_p_is(c, "using");
    if (gap >= 0 && !is_function) {
        fe_error(c, t, CVM_SYNTAX, "template parameter '%s' needs a default after one with a default",
                 tp->pnames[gap]);
        return;
    }
    if (tp->nparams == 0 && (fe_p_is(c, "struct") || fe_p_is(c, "class"))) {
        explicit_specialization(c, t);
        return;
    }
    if (tp->nparams == 0) {
        function_specialization(c);
        return;
    }
    if (c->tmpl_owner && fe_p_is(c, "friend")) {
        if (fe_tok_is(fe_p_peek_at(c, 1), "struct") || fe_tok_is(fe_p_peek_at(c, 1), "class")) {
            fe_p_skip_balanced(c); /* template <class U> friend struct W;: changes nothing */
            return;
        }
        fe_p_unsupported(c, fe_p_peek(c), "friend templates are not supported; declare the function "
                         "template at namespace scope");
        return;
    }
    if (fe_p_is(c, "using") && fe_p_peek_at(c, 1)->kind == TK_IDENT && fe_tok_is(fe_p_peek_at(c, 2), "=")) {
        /* an alias template: instances parse the type with the arguments bound */
        fe_p_next(c);
        fe_tok *name = fe_p_next(c);
        fe_p_next(c); /* = */
        if (c->tmpl_owner) {
            fe_p_unsupported(c, t, "alias templates inside a struct are not supported; declare it at "
                             "namespace scope");
            return;
        }
        tp->name = fe_p_tok_name(c, name);
        tp->is_struct = tp->is_alias = true;
        tp->scope = c->tnames; /* its names are those visible here, not where it is used */
        tp->tok_begin = c->pos;
        fe_p_skip_balanced(c);
        tp->tok_end = c->pos - 1; /* the ';' */
        tp->next = c->templates;
        c->templates = tp;
        fe_p_push_tname(c, tp->name, NULL, false, 0);
        return;
    }
    { /* a variable template: `constexpr T pi = T(3.14);`, an '=' or '{' before any '(' */
        int depth = 0;
        for (uint32_t k = 0; fe_p_peek_at(c, k)->kind != TK_EOF; k++) {
            fe_tok *q = fe_p_peek_at(c, k);
            if (fe_tok_is(q, "(") || fe_tok_is(q, ";") || fe_tok_is(q, "struct") || fe_tok_is(q, "class") ||
                fe_tok_is(q, "union") || (fe_tok_is(q, "{") && depth == 0 && !k))
                break;
            depth += fe_tok_is(q, "<") - fe_tok_is(q, ">") - 2 * fe_tok_is(q, ">>");
            if (depth == 0 && k > 0 && (fe_tok_is(q, "=") || fe_tok_is(q, "{")) &&
                fe_p_peek_at(c, k - 1)->kind == TK_IDENT) {
                if (c->tmpl_owner) {
                    fe_p_unsupported(c, t, "variable templates inside a struct are not supported");
                    return;
                }
                tp->name = fe_p_tok_name(c, fe_p_peek_at(c, k - 1));
                tp->is_var = true;
                tp->scope = c->tnames;
                tp->tok_begin = c->pos;
                fe_p_skip_balanced(c);
                tp->tok_end = c->pos;
                tp->next = c->templates;
                c->templates = tp;
                return;
            }
        }
    }
    tp->tok_begin = c->pos;
    /* the declared name: the identifier before the first '(' (functions) or after struct */
    uint32_t k = 0;
    fe_tok *name = NULL;
    const char *opname = NULL; /* a function template of an operator: "operator+" */
    const bool a_struct = fe_tok_is(fe_p_peek(c), "struct") || fe_tok_is(fe_p_peek(c), "class");
    while (fe_p_peek_at(c, k)->kind != TK_EOF && !fe_tok_is(fe_p_peek_at(c, k), "(") &&
           !fe_tok_is(fe_p_peek_at(c, k), "{") && !fe_tok_is(fe_p_peek_at(c, k), ";") &&
           !(a_struct && fe_tok_is(fe_p_peek_at(c, k), ":"))) { /* struct D : B<T>: D, before its bases */
        if ((fe_tok_is(fe_p_peek_at(c, k), "__launch_bounds__") || fe_tok_is(fe_p_peek_at(c, k), "__align__") ||
             fe_tok_is(fe_p_peek_at(c, k), "alignas")) &&
            fe_tok_is(fe_p_peek_at(c, k + 1), "(")) {
            /* `void __launch_bounds__(BM * BN) name(`: the parentheses are not the parameters */
            int depth = 0;
            k++;
            do {
                fe_tok *p = fe_p_peek_at(c, k++);
                if (p->kind == TK_EOF)
                    break;
                depth += fe_tok_is(p, "(") - fe_tok_is(p, ")");
            } while (depth > 0);
            continue;
        }
        if (fe_tok_is(fe_p_peek_at(c, k), "operator")) { /* operator+ ... operator(): its punctuators */
            fe_tok *op = fe_p_peek_at(c, k + 1);
            const bool pair = (fe_tok_is(op, "(") && fe_tok_is(fe_p_peek_at(c, k + 2), ")")) ||
                              (fe_tok_is(op, "[") && fe_tok_is(fe_p_peek_at(c, k + 2), "]"));
            if (op->kind == TK_PUNCT && op->len <= 3) {
                opname = fe_fmt(c, "operator%.*s", pair ? 2 : (int)op->len,
                                pair ? (fe_tok_is(op, "(") ? "()" : "[]") : op->s);
                name = fe_p_peek_at(c, k);
                k += pair ? 3 : 2;
                break;
            }
        }
        if (fe_p_peek_at(c, k)->kind == TK_IDENT)
            name = fe_p_peek_at(c, k);
        k++;
    }
    tp->is_struct = fe_tok_is(fe_p_peek(c), "struct") || fe_tok_is(fe_p_peek(c), "class");
    if (!name) {
        fe_error(c, t, CVM_SYNTAX, "cannot find the name of this template");
        return;
    }
    tp->name = opname ? opname : fe_p_tok_name(c, name);
    if (!opname && name > c->toks + 1 && fe_tok_is(name - 1, "::")) { /* template ... a::f(...): a's */
        const fe_tok *q = name - 2;
        while (q > c->toks + 1 && q->kind == TK_IDENT && fe_tok_is(q - 1, "::") && (q - 2)->kind == TK_IDENT)
            q -= 2;
        char qual[256];
        size_t ql = 0;
        for (; q < name - 1 && ql < sizeof qual; q += 2)
            ql += (size_t)snprintf(qual + ql, sizeof qual - ql, "%s%.*s", ql ? "::" : "", (int)q->len, q->s);
        const char *ns = ql < sizeof qual ? fe_p_namespace_of(c, qual) : NULL;
        if (ns)
            tp->ns = ns;
    }
    if (!tp->is_struct && name > c->toks + 1 && fe_tok_is(name - 1, "::") && fe_tok_is(name - 2, ">")) {
        fe_error(c, name, CVM_UNSUPPORTED, "a member of a struct template defined outside the struct "
                 "(Box<T>::%s) is not supported; define it inside the struct", tp->name);
        return;
    }
    uint32_t sk = 1; /* the struct's name, after any __align__(n) or alignas(n) */
    while (tp->is_struct && (fe_tok_is(fe_p_peek_at(c, sk), "__align__") || fe_tok_is(fe_p_peek_at(c, sk), "alignas")))
        for (int depth = 0; fe_p_peek_at(c, ++sk)->kind != TK_EOF;) {
            depth += fe_tok_is(fe_p_peek_at(c, sk), "(") - fe_tok_is(fe_p_peek_at(c, sk), ")");
            if (!depth) {
                sk++;
                break;
            }
        }
    if (tp->is_struct && fe_tok_is(fe_p_peek_at(c, sk + 1), "<")) { /* template <class T> struct P<T *> */
        fe_error(c, fe_p_peek_at(c, sk), CVM_UNSUPPORTED, "partial specialization of struct template '%s' is "
                 "not supported; write an explicit specialization (template <> struct %s<...>) for each "
                 "argument list used, or select with if constexpr", fe_p_tok_name(c, fe_p_peek_at(c, sk)),
                 fe_p_tok_name(c, fe_p_peek_at(c, sk)));
        return;
    }
    fe_p_skip_balanced(c);
    tp->tok_end = c->pos;
    if (c->tmpl_owner && !tp->is_struct) { /* a member function template */
        fe_type *root = c->tmpl_owner->origin ? c->tmpl_owner->origin : c->tmpl_owner;
        tp->owner = c->tmpl_owner;
        tp->scope = c->tnames; /* the enclosing struct template's arguments */
        tp->next = root->mtemplates;
        root->mtemplates = tp;
        return;
    }
    if (c->tmpl_owner) {
        fe_p_unsupported(c, t, "nested struct templates are not supported");
        return;
    }
    tp->next = c->templates;
    c->templates = tp;
    if (tp->is_struct)
        fe_p_push_tname(c, tp->name, NULL, false, 0);
}

/* Does a token of [from, to) name one of template t's parameters before i? */
static bool names_parameter(const fe_ctx *c, const fe_template *t, int i, uint32_t from, uint32_t to)
{
    for (uint32_t p = from; p < to && p < c->ntoks; p++)
        for (int k = 0; k < i; k++)
            if (c->toks[p].kind == TK_IDENT && t->pnames[k] && fe_tok_is(&c->toks[p], t->pnames[k]))
                return true;
    return false;
}

/* Template t's default argument k into targs[k] / tvals[k], the arguments
 * before it given; false after an error. */
static bool default_argument(fe_ctx *c, const fe_template *t, int k, fe_type **targs, int64_t *tvals)
{
    if (!t->pdef_dep[k]) {
        targs[k] = t->pis_type[k] ? t->pdef_ty[k] : NULL;
        tvals[k] = t->pis_type[k] ? 0 : t->pdef_val[k];
        return true;
    }
    const uint32_t saved_pos = c->pos;
    const int splits = c->nsplits;
    fe_tname *saved = c->tnames;
    if (t->scope)
        c->tnames = t->scope;
    for (int i = 0; i < k; i++)
        fe_p_push_tname(c, t->pnames[i], t->pis_type[i] ? targs[i] : t->ptypes[i], !t->pis_type[i], tvals[i]);
    c->pos = t->pdef_pos[k];
    fe_tok *at = fe_p_peek(c);
    if (t->pis_type[k]) {
        targs[k] = fe_p_type_name(c);
        tvals[k] = 0;
    } else {
        targs[k] = NULL;
        if (!fe_const_eval(c, fe_parse_shift(c), &tvals[k]) && !c->err)
            fe_error(c, at, CVM_UNSUPPORTED, "a default template argument must be an integer constant");
    }
    c->pos = saved_pos;
    fe_p_unsplit(c, splits);
    c->tnames = saved;
    return !c->err;
}

int fe_template_defaults(fe_ctx *c, const fe_template *t, fe_type **targs, int64_t *tvals, int n)
{
    if (n < 0 || n >= t->nparams || !t->has_def[n])
        return n;
    for (int k = n; k < t->nparams; k++)
        if (!default_argument(c, t, k, targs, tvals))
            return n;
    return t->nparams;
}

fe_node *fe_instantiate(fe_ctx *c, fe_template *t, fe_type **targs_in, const int64_t *tvals_in, int n,
                        const fe_tok *where)
{
    fe_type *targs[8] = {0};
    int64_t tvals[8] = {0};
    for (int k = 0; k < n && k < 8; k++) {
        targs[k] = targs_in[k];
        tvals[k] = tvals_in[k];
    }
    n = fe_template_defaults(c, t, targs, tvals, n);
    if (n != t->nparams) {
        fe_error(c, where, CVM_SYNTAX, "template '%s' takes %d arguments, %d given", t->name,
                 t->nparams, n);
        return NULL;
    }
    if (!c->inst_comptime)
        for (fe_tinst *i = t->insts; i; i = i->next)
            if (i->fn && same_args(t, i, targs, tvals))
                return i->fn; /* an explicit specialization */
    uint32_t saved_pos = c->pos;
    const int splits = c->nsplits;
    fe_tname *saved = c->tnames;
    fe_node *saved_funcs = c->funcs;
    const char *saved_ns = c->ns;
    const uint16_t using_on = c->using_on; /* no function body's directives reach a template */
    const uint32_t decl_on = c->decl_on;
    c->using_on = 0;
    c->decl_on = 0;
    c->ns = t->ns; /* the instance is defined where the template is */
    unsigned comptime = c->inst_comptime;
    c->inst_comptime = 0;
    if (t->scope)
        c->tnames = t->scope;
    for (int i = 0; i < n; i++) {
        if (t->pis_type[i] != (targs[i] != NULL)) {
            fe_error(c, where, CVM_SYNTAX, "template argument %d of '%s' must be %s", i + 1,
                     t->name, t->pis_type[i] ? "a type" : "an integer constant");
            c->ns = saved_ns;
            c->using_on = using_on;
            c->decl_on = decl_on;
            return NULL;
        }
        if (comptime >> i & 1u) /* a run-time value the lowering binds: hides outer names */
            fe_p_push_tname(c, t->pnames[i], NULL, false, 0);
        else
            fe_p_push_tname(c, t->pnames[i], t->pis_type[i] ? targs[i] : t->ptypes[i], !t->pis_type[i],
                            tvals[i]);
    }
    c->pos = t->tok_begin;
    fe_node *const saved_ce = c->ce_funcs;
    if (!saved_ce)
        c->ce_funcs = saved_funcs;
    c->funcs = NULL;
    c->fn_inst++;
    unsigned storage = 0;
    uint32_t lb = 0, k = 0;
    fe_node *f = NULL;
    while (t->owner && fe_p_fn_specifier(fe_p_peek_at(c, k)))
        k++;
    if (t->owner && fe_tok_is(fe_p_peek_at(c, k), fe_struct_base_name(t->owner)) &&
        fe_tok_is(fe_p_peek_at(c, k + 1), "(")) { /* a constructor template: [explicit ...] Name( */
        c->pos += k;
        f = fe_p_function(c, fe_ty(TY_VOID), fe_p_next(c), FE_S_DEVICE, 0);
        if (f)
            f->is_ctor = true;
    } else {
        fe_type *base = fe_p_declspec(c, &storage, &lb);
        fe_tok *nt = NULL;
        fe_type *ty = fe_p_declarator(c, base ? base : fe_ty(TY_I32), &nt);
        if (!base && !c->err && nt && fe_p_is(c, "(") && ty->kind != TY_I32)
            fe_p_unsupported(c, nt, "an 'auto' function returning a pointer or reference is not supported; "
                             "name the return type");
        else if (!c->err && nt && fe_p_is(c, "("))
            f = fe_p_function(c, base ? ty : NULL, nt, storage | (t->owner ? FE_S_DEVICE : 0), lb); /* auto: deduced */
        else if (!c->err)
            fe_error(c, where, CVM_UNSUPPORTED, "only function templates are supported");
    }
    c->fn_inst--;
    if (f && t->owner)
        f->owner = t->owner;
    fe_node *made = c->funcs; /* friend functions of struct templates first instantiated here */
    c->funcs = saved_funcs;
    c->ce_funcs = saved_ce;
    while (made) {
        fe_node *nx = made->next;
        made->next = NULL;
        fe_p_add_func(c, made);
        made = nx;
    }
    c->pos = saved_pos;
    fe_p_unsplit(c, splits);
    c->tnames = saved;
    c->ns = saved_ns;
    c->using_on = using_on;
    c->decl_on = decl_on;
    return f;
}

/* Binds template t's first n parameters to these arguments as names, on
 * top of c->tnames; false, with an error and the names as they were, when
 * an argument is of the wrong kind (a type for a value or back). */
static bool bind_targs(fe_ctx *c, const fe_template *t, fe_type **targs, const int64_t *tvals, int n,
                       const fe_tok *where)
{
    fe_tname *before = c->tnames;
    for (int i = 0; i < n; i++) {
        if (t->pis_type[i] != (targs[i] != NULL)) {
            fe_error(c, where, CVM_SYNTAX, "template argument %d of '%s' must be %s", i + 1, t->name,
                     t->pis_type[i] ? "a type" : "an integer constant");
            c->tnames = before;
            return false;
        }
        fe_p_push_tname(c, t->pnames[i], t->pis_type[i] ? targs[i] : t->ptypes[i], !t->pis_type[i], tvals[i]);
    }
    return true;
}

fe_node *fe_var_template_value(fe_ctx *c, fe_template *t, fe_type **targs_in, const int64_t *tvals_in, int n,
                               fe_tok *where)
{
    fe_type *targs[8] = {0};
    int64_t tvals[8] = {0};
    for (int k = 0; k < n && k < 8; k++)
        targs[k] = targs_in[k], tvals[k] = tvals_in[k];
    n = fe_template_defaults(c, t, targs, tvals, n);
    fe_node *cast = fe_p_new_node(c, N_CAST, where);
    if (n != t->nparams) {
        fe_error(c, where, CVM_SYNTAX, "template '%s' takes %d arguments, %d given", t->name, t->nparams, n);
        return cast;
    }
    uint32_t saved_pos = c->pos;
    const int splits = c->nsplits;
    fe_tname *saved = c->tnames;
    c->tnames = t->scope;
    if (!bind_targs(c, t, targs, tvals, n, where)) {
        c->tnames = saved;
        return cast;
    }
    c->pos = t->tok_begin;
    unsigned storage = 0;
    fe_type *base = fe_p_declspec(c, &storage, NULL);
    fe_tok *nt = NULL;
    fe_type *ty = fe_p_declarator(c, base ? base : fe_ty(TY_I32), &nt);
    fe_node *init = NULL;
    if (fe_p_is(c, "{"))
        init = fe_p_initializer(c);
    else if (fe_p_accept(c, "="))
        init = fe_p_initializer(c);
    c->pos = saved_pos;
    fe_p_unsplit(c, splits);
    c->tnames = saved;
    if (!c->err && (!init || init->kind == N_INITLIST)) {
        fe_error(c, where, CVM_UNSUPPORTED, "variable template '%s': only `= value` initializers are supported",
                 t->name);
        return cast;
    }
    cast->ty = fe_unqual(ty); /* the value, converted to the declared type */
    cast->a = init;
    return cast;
}

/* Alias template t's type for these arguments (defaults applied): its type
 * parsed with the parameters bound, as a struct template's body is. */
static fe_type *alias_instance(fe_ctx *c, fe_template *t, fe_type **targs, const int64_t *tvals,
                               const fe_tok *where)
{
    if (c->inst_depth >= 32) {
        fe_error(c, where, CVM_LIMIT, "template instantiation of '%s' nested more than 32 deep", t->name);
        return fe_ty(TY_I32);
    }
    uint32_t saved_pos = c->pos;
    const int splits = c->nsplits;
    fe_tname *saved = c->tnames;
    c->tnames = t->scope;
    if (!bind_targs(c, t, targs, tvals, t->nparams, where)) {
        c->tnames = saved;
        return fe_ty(TY_I32);
    }
    c->pos = t->tok_begin;
    c->inst_depth++;
    fe_type *ty = fe_p_type_name(c);
    c->inst_depth--;
    if (!c->err && c->pos != t->tok_end)
        fe_error(c, fe_p_peek(c), CVM_SYNTAX, "expected ';' after the type of alias template '%s'", t->name);
    c->pos = saved_pos;
    fe_p_unsplit(c, splits);
    c->tnames = saved;
    if (!ty || c->err)
        return fe_ty(TY_I32);
    fe_tinst *inst = fe_alloc(c, sizeof *inst);
    if (inst) {
        for (int k = 0; k < t->nparams; k++)
            inst->targs[k] = targs[k], inst->tvals[k] = tvals[k];
        inst->ty = ty;
        inst->next = t->insts;
        t->insts = inst;
    }
    return ty;
}

fe_type *fe_instantiate_struct(fe_ctx *c, fe_template *t, fe_type **targs_in, const int64_t *tvals_in, int n,
                               const fe_tok *where)
{
    fe_type *targs[8] = {0};
    int64_t tvals[8] = {0};
    for (int k = 0; k < n && k < 8; k++) {
        targs[k] = targs_in[k];
        tvals[k] = tvals_in[k];
    }
    n = fe_template_defaults(c, t, targs, tvals, n);
    if (n != t->nparams) {
        fe_error(c, where, CVM_SYNTAX, "template '%s' takes %d arguments, %d given", t->name,
                 t->nparams, n);
        return fe_ty(TY_I32);
    }
    for (fe_tinst *i = t->insts; i; i = i->next) {
        bool same = true;
        for (int k = 0; k < n && same; k++)
            same = t->pis_type[k] ? targs[k] && fe_same_type(i->targs[k], targs[k]) : i->tvals[k] == tvals[k];
        if (same)
            return i->ty;
    }
    if (t->is_alias)
        return alias_instance(c, t, targs, tvals, where);
    fe_tinst *inst = fe_alloc(c, sizeof *inst);
    fe_type *ty = fe_alloc(c, sizeof *ty);
    if (!inst || !ty)
        return fe_ty(TY_I32);
    if (c->inst_depth >= 32) {
        fe_error(c, where, CVM_LIMIT, "template instantiation of '%s' nested more than 32 deep", t->name);
        return fe_ty(TY_I32);
    }
    ty->kind = TY_STRUCT;
    ty->align = 1;
    ty->tmpl = t;
    ty->name = t->name; /* constructors inside are named after the template */
    for (int k = 0; k < n; k++) {
        inst->targs[k] = targs[k];
        inst->tvals[k] = tvals[k];
    }
    inst->ty = ty;
    inst->next = t->insts;
    t->insts = inst;
    uint32_t saved_pos = c->pos;
    const int splits = c->nsplits;
    fe_tname *saved = c->tnames;
    if (!bind_targs(c, t, targs, tvals, n, where))
        return ty;
    fe_p_push_tname(c, t->name, ty, false, 0);
    c->pos = t->tok_begin;
    ty->is_class = fe_tok_is(fe_p_next(c), "class"); /* struct / class */
    c->inst_depth++; /* the bases too: S<N> : S<N + 1> instantiates without end */
    while (!c->err && !fe_p_is(c, "{") && fe_p_peek(c)->kind != TK_EOF) { /* the name, __align__(n), bases */
        if (fe_p_is(c, ":")) {
            fe_p_base_clause(c, ty);
            continue;
        }
        uint32_t a = fe_p_alignment(c);
        if (a > ty->align)
            ty->align = a;
        else if (!a)
            fe_p_next(c);
    }
    if (fe_p_accept(c, "{"))
        fe_p_struct_body(c, ty);
    else
        fe_error(c, where, CVM_SYNTAX, "template '%s' has no definition", t->name);
    c->inst_depth--;
    ty->name = inst_name(c, t, targs, tvals, n);
    for (fe_type *q = ty->copies; q; q = q->next_copy)
        q->name = ty->name;
    c->pos = saved_pos;
    fe_p_unsplit(c, splits);
    c->tnames = saved;
    return ty;
}

/* The token after the '(' that opens function template t's parameters. */
static uint32_t params_start(fe_ctx *c, const fe_template *t)
{
    uint32_t i = t->tok_begin;
    if (strncmp(t->name, "operator", 8) == 0 && t->name[8]) { /* operator+ (, operator() ( */
        const uint32_t nop = !strcmp(t->name + 8, "()") || !strcmp(t->name + 8, "[]") ? 2 : 1;
        while (i + nop + 1 < t->tok_end &&
               !(fe_tok_is(&c->toks[i], "operator") && fe_tok_is(&c->toks[i + nop + 1], "(")))
            i++;
        return i + nop + 2;
    }
    while (i < t->tok_end && !(c->toks[i].kind == TK_IDENT && fe_tok_is(&c->toks[i], t->name) &&
                               i + 1 < t->tok_end && fe_tok_is(&c->toks[i + 1], "(")))
        i++;
    return i + 2;
}

/* The number of function parameters of function template t: *nmin
 * without those that have a default, *nmax with them. */
static void template_arity(fe_ctx *c, const fe_template *t, int *nmin, int *nmax)
{
    uint32_t i = params_start(c, t);
    int params = 0, defaults = 0, depth = 0;
    bool any = false, has_default = false;
    for (; i < t->tok_end; i++) {
        fe_tok *tk = &c->toks[i];
        if (depth == 0 && fe_tok_is(tk, ")"))
            break;
        if (fe_tok_is(tk, "(") || fe_tok_is(tk, "<") || fe_tok_is(tk, "[") || fe_tok_is(tk, "{"))
            depth++;
        else if (fe_tok_is(tk, ")") || fe_tok_is(tk, ">") || fe_tok_is(tk, "]") || fe_tok_is(tk, "}"))
            depth--;
        else if (fe_tok_is(tk, ">>"))
            depth -= 2;
        if (depth == 0 && fe_tok_is(tk, ",")) {
            params++;
            defaults += has_default;
            has_default = false;
        } else if (depth == 0 && fe_tok_is(tk, "=")) {
            has_default = true;
        } else if (!fe_tok_is(tk, "void") || any) {
            any = true;
        }
    }
    if (any) {
        params++;
        defaults += has_default;
    }
    *nmin = params - defaults;
    *nmax = params;
}

fe_template *fe_find_template_for(fe_ctx *c, const char *name, int nargs)
{
    fe_template *first = NULL;
    for (fe_template *t = c->templates; t; t = t->next) {
        if (strcmp(t->name, name) != 0)
            continue;
        if (t->is_struct)
            return t;
        int nmin, nmax;
        template_arity(c, t, &nmin, &nmax);
        if (nargs >= nmin && nargs <= nmax)
            return t;
        if (!first)
            first = t;
    }
    return first;
}

/* The instance arguments of struct type d if it is an instance of struct
 * template st (Box<float> of Box), else NULL. */
static const fe_tinst *instance_of(const fe_template *st, const fe_type *d)
{
    const fe_type *root = d->origin ? d->origin : d;
    if (d->kind != TY_STRUCT)
        return NULL;
    if (d->tmpl != st && root->tmpl != st) { /* a base's, as C++ deduces Base<T> from a D (the first) */
        for (const fe_member *m = d->members; m; m = m->next) {
            const fe_tinst *i = m->is_base ? instance_of(st, m->ty) : NULL;
            if (i)
                return i;
        }
        return NULL;
    }
    for (const fe_tinst *i = st->insts; i; i = i->next)
        if (i->ty == d || i->ty == root)
            return i;
    return NULL;
}

/* Deduces from `Name<A, B>` at token i (Name a struct template) against
 * argument type d: each template argument written as a lone parameter
 * name of t takes the instance's argument there. */
static void deduce_template_id(fe_ctx *c, fe_template *t, uint32_t i, const fe_type *d, fe_type **targs,
                               int64_t *tvals, bool *got)
{
    fe_tok *name = &c->toks[i];
    fe_template *st = fe_find_template(c, fe_p_tok_name(c, name));
    const fe_tinst *inst = st && st->is_struct ? instance_of(st, d) : NULL;
    if (!inst)
        return;
    int depth = 0, pos = 0;
    for (uint32_t j = i + 2; j < t->tok_end && pos < st->nparams; j++) {
        fe_tok *tk = &c->toks[j];
        if (fe_tok_is(tk, "<") || fe_tok_is(tk, "(")) {
            depth++;
        } else if ((fe_tok_is(tk, ">") || fe_tok_is(tk, ")")) && depth > 0) {
            depth--;
        } else if (fe_tok_is(tk, ">") || fe_tok_is(tk, ">>")) {
            break;
        } else if (fe_tok_is(tk, ",") && depth == 0) {
            pos++;
        } else if (tk->kind == TK_IDENT && depth == 0) {
            fe_tok *before = &c->toks[j - 1], *after = &c->toks[j + 1];
            bool alone = (fe_tok_is(before, "<") || fe_tok_is(before, ",")) &&
                         (fe_tok_is(after, ",") || fe_tok_is(after, ">") || fe_tok_is(after, ">>"));
            for (int k = 0; alone && k < t->nparams; k++) {
                if (got[k] || strlen(t->pnames[k]) != tk->len || memcmp(t->pnames[k], tk->s, tk->len) != 0 ||
                    t->pis_type[k] != st->pis_type[pos])
                    continue;
                targs[k] = t->pis_type[k] ? inst->targs[pos] : NULL;
                tvals[k] = t->pis_type[k] ? 0 : inst->tvals[pos];
                got[k] = true;
            }
        }
    }
}

/* The argument type d as the parameter written from the template-id at
 * token i sees it: as many pointer or array levels dropped as there are
 * stars and '[' after its closing '>' (Vec<T, N> *v of a Vec<float, 4> *
 * or of a Vec<float, 4>[2], Vec<T, N> v[]); NULL when d has fewer. */
static const fe_type *after_template_id_stars(const fe_ctx *c, const fe_template *t, uint32_t i,
                                              const fe_type *d)
{
    uint32_t j = i + 1;
    for (int depth = 0; j < t->tok_end; j++) { /* to the '>' that closes Name< */
        const fe_tok *tk = &c->toks[j];
        depth += fe_tok_is(tk, "<") || fe_tok_is(tk, "(") ? 1 : fe_tok_is(tk, ">>") ? -2
                 : fe_tok_is(tk, ">") || fe_tok_is(tk, ")") ? -1 : 0;
        if (depth <= 0)
            break;
    }
    for (j++; j < t->tok_end && !fe_tok_is(&c->toks[j], ",") && !fe_tok_is(&c->toks[j], ")"); j++)
        if (fe_tok_is(&c->toks[j], "*") || fe_tok_is(&c->toks[j], "[")) {
            if (d->kind != TY_PTR && d->kind != TY_ARRAY)
                return NULL;
            d = d->base;
        }
    return d;
}

/* Template argument deduction for a call f(args) of a function template,
 * after the first `nexplicit` arguments given in targs/tvals (f<3>(x)):
 * each type parameter T is read off the first function parameter spelled
 * with T (T, const T &, T *, ...), dropping as many pointer levels as the
 * parameter has stars after T; a parameter spelled Name<..., T, N> (or
 * Name<T, N> *) with a struct template Name takes T and N from the
 * argument's instance (the pointee's); the
 * rest take their defaults. False when a parameter cannot be deduced. */
bool fe_deduce(fe_ctx *c, fe_template *t, fe_type **types, int nargs, fe_type **targs, int64_t *tvals,
               int nexplicit)
{
    if (t->is_struct)
        return false;
    bool got[8] = {0};
    for (int k = 0; k < t->nparams; k++) {
        got[k] = k < nexplicit;
        if (!got[k]) {
            targs[k] = NULL;
            tvals[k] = 0;
        }
    }
    uint32_t i = params_start(c, t);
    int arg = 0, depth = 0, bracket = 0; /* the parameter's array dimensions so far */
    for (; i < t->tok_end && arg < nargs; i++) {
        fe_tok *tk = &c->toks[i];
        if (tk->kind == TK_IDENT && depth == 0 && i + 1 < t->tok_end && fe_tok_is(&c->toks[i + 1], "<") &&
            types[arg]) {
            const fe_type *d = after_template_id_stars(c, t, i, fe_no_ref(c, types[arg]));
            if (d)
                deduce_template_id(c, t, i, d, targs, tvals, got);
        }
        if (tk->kind == TK_IDENT && fe_tok_is(tk - 1, "[") && i + 1 < t->tok_end && fe_tok_is(tk + 1, "]") &&
            types[arg]) { /* T (&a)[N]: N is the argument array's length there */
            const fe_type *d = fe_no_ref(c, types[arg]);
            for (int b = 1; b < bracket && d->kind == TY_ARRAY; b++)
                d = d->base;
            for (int k = 0; k < t->nparams && d->kind == TY_ARRAY; k++)
                if (!t->pis_type[k] && !got[k] && strlen(t->pnames[k]) == tk->len &&
                    memcmp(t->pnames[k], tk->s, tk->len) == 0) {
                    tvals[k] = d->len;
                    got[k] = true;
                }
        }
        bracket += fe_tok_is(tk, "[") && depth == 0;
        if (fe_tok_is(tk, "(") || fe_tok_is(tk, "<") || fe_tok_is(tk, "["))
            depth++;
        else if (fe_tok_is(tk, ")") && depth == 0)
            break;
        else if (fe_tok_is(tk, ">>"))
            depth -= 2;
        else if (fe_tok_is(tk, ")") || fe_tok_is(tk, ">") || fe_tok_is(tk, "]"))
            depth--;
        else if (fe_tok_is(tk, ",") && depth == 0) {
            arg++;
            bracket = 0;
        } else if (tk->kind == TK_IDENT && depth == 0) {
            for (int k = 0; k < t->nparams; k++) {
                if (!t->pis_type[k] || got[k] || strlen(t->pnames[k]) != tk->len ||
                    memcmp(t->pnames[k], tk->s, tk->len) != 0 || !types[arg])
                    continue;
                int stars = 0, dims = 0;
                bool ref_array = false; /* T (&a)[N]: T is the element type */
                for (uint32_t j = i + 1, nest = 0; j < t->tok_end && (nest || (!fe_tok_is(&c->toks[j], ",") &&
                                                                      !fe_tok_is(&c->toks[j], ")"))); j++) {
                    const fe_tok *q = &c->toks[j];
                    ref_array |= fe_tok_is(q, "(") && fe_tok_is(q + 1, "&");
                    dims += fe_tok_is(q, "[");
                    nest += fe_tok_is(q, "(") - (nest && fe_tok_is(q, ")"));
                    stars += fe_tok_is(q, "*");
                }
                fe_type *d = fe_no_ref(c, types[arg]);
                if (d->is_nullptr && (stars || ref_array))
                    return false; /* nullptr deduces no T *; a T its own type (std::nullptr_t's stand-in) */
                for (; ref_array && dims > 0 && d->kind == TY_ARRAY; dims--)
                    d = d->base;
                if (ref_array && dims)
                    return false;
                if (d->kind == TY_ARRAY)
                    d = fe_ptr_to(c, d->base);
                for (; stars > 0 && d->kind == TY_PTR; stars--)
                    d = d->base;
                if (stars)
                    return false;
                targs[k] = fe_qualified(c, fe_no_ref(c, d), false, d->is_volatile);
                got[k] = true;
            }
        }
    }
    for (int k = 0; k < t->nparams; k++) {
        if (got[k])
            continue;
        if (!t->has_def[k] || !default_argument(c, t, k, targs, tvals)) /* not deducible: the default */
            return false;
    }
    return true;
}

/* ---- host code ---- */

void fe_p_host_name(fe_ctx *c, fe_tok *name, bool is_func)
{
    fe_hostname *h = fe_alloc(c, sizeof *h);
    if (!h || !name)
        return;
    h->name = fe_p_tok_name(c, name);
    h->is_func = is_func;
    h->next = c->host_names;
    c->host_names = h;
}

const fe_hostname *fe_host_name(fe_ctx *c, const char *name, bool is_func)
{
    for (const fe_hostname *h = c->host_names; h; h = h->next)
        if (h->is_func == is_func && strcmp(h->name, name) == 0)
            return h;
    return NULL;
}

/* True when the declaration ahead carries no CUDA qualifier and declares no
 * type: host code in nvcc's eyes (or a plain constant kernels may use). */
static bool unqualified(fe_ctx *c)
{
    static const char *const marks[] = {"__global__", "__device__", "__host__", "__constant__",
                                        "__shared__", "__managed__", "typedef", "struct", "class",
                                        "union", "enum", "template", "operator", "static_assert"};
    for (uint32_t k = 0;; k++) {
        fe_tok *t = fe_p_peek_at(c, k);
        if (t->kind == TK_EOF || fe_tok_is(t, ";") || fe_tok_is(t, "{") || fe_tok_is(t, "=") ||
            fe_tok_is(t, "("))
            return k > 0;
        for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
            if (fe_tok_is(t, marks[i]))
                return false;
    }
}

/* The declared name: the identifier before the first '(' (or '=' / ';'). */
static fe_tok *host_decl_name(fe_ctx *c)
{
    fe_tok *name = NULL;
    for (uint32_t k = 0;; k++) {
        fe_tok *t = fe_p_peek_at(c, k);
        if (t->kind == TK_EOF || fe_tok_is(t, ";") || fe_tok_is(t, "{") || fe_tok_is(t, "=") ||
            fe_tok_is(t, "("))
            return name;
        if (t->kind == TK_IDENT)
            name = t;
    }
}

/*
 * .cu files from the CUDA samples and textbooks carry their host program:
 * main(), helpers calling the runtime API, `kernel<<<grid, block>>>(...)`
 * launches, host variables. nvcc compiles that code for the CPU; here it is
 * parsed when it can be (an unqualified constant or helper a kernel may use)
 * and skipped when it cannot, so the file compiles unmodified. A kernel
 * that calls or reads what was skipped gets a diagnostic naming it.
 */
bool fe_p_host_decl(fe_ctx *c)
{
    if (!unqualified(c))
        return false;
    uint32_t start = c->pos;
    fe_tname *tnames = c->tnames;
    fe_node *funcs = c->funcs, *globals = c->globals;
    fe_node *ftail = NULL, *gtail = NULL;
    for (fe_node *f = funcs; f; f = f->next)
        ftail = f;
    for (fe_node *g = globals; g; g = g->next)
        gtail = g;
    cvm_diag saved;
    memset(&saved, 0, sizeof saved);
    if (c->diag)
        saved = *c->diag;
    fe_tok *name = host_decl_name(c);
    bool is_func = fe_tok_is(fe_p_peek_at(c, 0), "(") || (name && name + 1 < c->toks + c->ntoks &&
                                                           fe_tok_is(name + 1, "("));
    fe_p_declaration(c);
    if (!c->err || c->err_status == CVM_OUT_OF_MEMORY || c->err_kept)
        return true;
    /* not the subset: forget what the attempt declared and skip it */
    c->err = false;
    c->err_status = CVM_OK;
    if (c->diag)
        *c->diag = saved;
    c->pos = start;
    c->tnames = tnames;
    if (ftail)
        ftail->next = NULL;
    else
        c->funcs = NULL;
    if (gtail)
        gtail->next = NULL;
    else
        c->globals = NULL;
    fe_p_skip_balanced(c);
    fe_p_host_name(c, name, is_func);
    return true;
}
