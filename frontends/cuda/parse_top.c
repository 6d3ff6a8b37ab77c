/*
 * parse_top.c - the parser's top level: module-scope declarations
 * (functions, variables, typedefs, extern "C"), function definitions with
 * their parameters, constructor initializers and bodies, member functions
 * defined outside their struct, and the check that a definition does not
 * repeat one. Shares parse.c's cursor and declaration parsers through
 * parse.h.
 */
#include "parse_short.h"

#include <string.h>

static void unsupported(fe_ctx *c, fe_tok *t, const char *what) { fe_p_unsupported(c, t, what); }
static fe_tname *lookup(fe_ctx *c, const char *s, size_t n) { return fe_p_lookup(c, s, n); }
static fe_tname *push_tname(fe_ctx *c, const char *name, fe_type *ty, bool is_value, int64_t v)
{
    return fe_p_push_tname(c, name, ty, is_value, v);
}
static fe_tname *declare_var(fe_ctx *c, const char *name, fe_type *ty) { return fe_p_declare_var(c, name, ty); }
static fe_type *declspec(fe_ctx *c, unsigned *storage, uint32_t *lb) { return fe_p_declspec(c, storage, lb); }
static fe_type *declarator(fe_ctx *c, fe_type *ty, fe_tok **nt) { return fe_p_declarator(c, ty, nt); }
static fe_node *assign(fe_ctx *c) { return fe_p_assign(c); }
static fe_node *args_list(fe_ctx *c) { return fe_p_args_list(c); }
static void module_decl(fe_ctx *c);

/* ---- parameter lists ---- */

/* Inside a parameter list: does the function end `) [const] [noexcept]
 * = default;` or `= delete;`? (A defaulted or deleted move constructor or
 * assignment is left unused, as copies are member by member anyway.) */
static bool defaulted_after(fe_ctx *c)
{
    uint32_t p = c->pos;
    for (int depth = 0; p < c->ntoks; p++) {
        const fe_tok *t = &c->toks[p];
        if (fe_tok_is(t, "(")) {
            depth++;
        } else if (fe_tok_is(t, ")")) {
            if (depth-- == 0)
                break;
        } else if (t->kind == TK_EOF || fe_tok_is(t, ";") || fe_tok_is(t, "{")) {
            return false;
        }
    }
    for (p++; p < c->ntoks && (fe_tok_is(&c->toks[p], "const") || fe_tok_is(&c->toks[p], "noexcept")); p++)
        ;
    return p + 1 < c->ntoks && fe_tok_is(&c->toks[p], "=") &&
           (fe_tok_is(&c->toks[p + 1], "default") || fe_tok_is(&c->toks[p + 1], "delete"));
}

fe_node *fe_p_param_list(fe_ctx *c)
{
    fe_node head = {0}, *tail = &head;
    expect(c, "(");
    if (is(c, "void") && fe_tok_is(peek_at(c, 1), ")"))
        next(c);
    while (!c->err && !is(c, ")")) {
        if (is(c, "...")) {
            unsupported(c, peek(c), "variadic functions are not supported in kernels");
            break;
        }
        unsigned st = 0;
        fe_tok *at = peek(c);
        fe_type *bt = declspec(c, &st, NULL);
        fe_tok *nt = NULL;
        fe_type *t = declarator(c, bt ? bt : fe_auto_type(), &nt); /* auto: generic lambdas */
        if (fe_has_decltype(t)) {
            unsupported(c, at, "decltype in a parameter type is not supported in kernels; name the type");
            break;
        }
        if (t->is_rref && !c->inst_depth && !c->fn_inst && !defaulted_after(c)) {
            /* int &&, S &&: overloads against const & would need value categories */
            unsupported(c, nt ? nt : at, "rvalue reference parameters are supported only in templates, as "
                        "forwarding references (template <class F> void f(F &&f)); take a const reference");
            break;
        }
        if (t->kind == TY_ARRAY && !t->is_ref) /* array parameters are pointers; T (&a)[N] is not */
            t = fe_ptr_to(c, t->base);
        fe_node *p = new_node(c, N_DECL, nt ? nt : at);
        p->ty = t;
        p->name = nt ? tok_name(c, nt) : NULL;
        if (accept(c, "="))
            p->a = assign(c); /* default argument */
        tail = tail->next = p;
        if (!accept(c, ","))
            break;
    }
    expect(c, ")");
    return head.next;
}

/* ---- top level ---- */

static void skip_balanced(fe_ctx *c)
{
    /* skips one declaration: up to ';' at depth 0 or a closing '}' at depth 0 */
    int depth = 0;
    while (!c->err && peek(c)->kind != TK_EOF) {
        fe_tok *t = next(c);
        if (fe_tok_is(t, "{") || fe_tok_is(t, "(") || fe_tok_is(t, "["))
            depth++;
        else if (fe_tok_is(t, "}") || fe_tok_is(t, ")") || fe_tok_is(t, "]")) {
            depth--;
            if (depth == 0 && fe_tok_is(t, "}") && !is(c, ";"))
                return;
        } else if (depth == 0 && fe_tok_is(t, ";"))
            return;
    }
}

static fe_node *function(fe_ctx *c, fe_type *ret, fe_tok *nt, unsigned storage, uint32_t lb)
{
    fe_node *f = new_node(c, N_FUNC, nt);
    f->name = tok_name(c, nt);
    f->ns = c->decl_ns ? c->decl_ns : c->ns ? c->ns : ""; /* a::f defined outside a: a's */
    f->is_friend = c->in_friend;
    f->ty = ret;
    f->storage = storage;
    f->launch_bound = lb;
    fe_tname *saved = c->tnames;
    f->params = fe_p_param_list(c);
    for (fe_node *p = f->params; p; p = p->next)
        if (p->name)
            declare_var(c, p->name, p->ty);
    for (;;)
        if (accept(c, "const"))
            f->is_const_fn = true;
        else if (!accept(c, "noexcept") && !accept(c, "__restrict__"))
            break;
    if (accept(c, "->")) /* auto f(...) -> T */
        f->ty = type_name(c);
    fe_node inits = {0}, *itail = &inits;
    if (accept(c, ":")) { /* constructor: member initializers become assignments */
        do {
            /* a base class: B(a), Base<T, 4>{a}, or a template base's own name, Base(a) */
            fe_tok *m = peek(c);
            const bool delegate = m->len == strlen(f->name) && memcmp(m->s, f->name, m->len) == 0;
            fe_type *base = !delegate && m->kind == TK_IDENT && fe_p_typename_at(c, 0) ? type_name(c) : NULL;
            fe_template *named = base || m->kind != TK_IDENT ? NULL : fe_find_template(c, tok_name(c, m));
            if (!base)
                m = expect_ident(c);
            const bool base_init = base || (named && named->is_struct);
            bool brace = is(c, "{");
            if (!accept(c, "{"))
                expect(c, "(");
            fe_node *args = NULL;
            if (brace) {
                fe_node head = {0}, *tail = &head;
                while (!c->err && !is(c, "}")) {
                    tail = tail->next = assign(c);
                    if (!accept(c, ","))
                        break;
                }
                args = head.next;
                expect(c, "}");
            } else {
                args = args_list(c);
            }
            /* S() : S(0, 0): a delegating constructor builds *this */
            /* this->m: the member, even where a parameter has its name (V(float x) : x(x)) */
            fe_node *lhs = new_node(c, N_ARROW, m), *self = new_node(c, N_THIS, m);
            lhs->a = self;
            lhs->name = base ? (base->name ? base->name : "base") : tok_name(c, m);
            lhs->owner = base;
            lhs->is_member_init = true; /* names a member, or a base (lower_expr.c member_of) */
            if (delegate) {
                fe_node *deref = new_node(c, N_UNARY, m);
                deref->op = '*';
                deref->a = self;
                lhs = deref;
            }
            fe_node *as = new_node(c, N_ASSIGN, m);
            as->op = '=';
            as->a = lhs;
            as->b = args ? args : new_node(c, N_INT, m);
            as->is_member_init = true; /* construct_at skips the member's default initialization */
            if (delegate || base_init || !args || args->next) { /* m(a, b), m(): by its type's constructor, or zero */
                fe_node *make = new_node(c, N_CAST, m);
                make->op = 'F';
                make->args = args;
                make->is_member_init = true; /* the type is the member's (lower_expr.c assignment) */
                as->b = make;
            }
            fe_node *st = new_node(c, N_EXPR, m);
            st->a = as;
            itail = itail->next = st;
        } while (!c->err && accept(c, ","));
    }
    if (is(c, "{")) {
        /* a host-only body is never compiled for the device: no device rules */
        const bool was_host = c->host_body;
        c->host_body = (storage & FE_S_HOST) && !(storage & (FE_S_DEVICE | FE_S_GLOBAL));
        f->body = fe_p_compound(c);
        c->host_body = was_host;
        if (inits.next && f->body) {
            itail->next = f->body->args;
            f->body->args = inits.next;
        }
    } else if (is(c, "=") && (fe_tok_is(peek_at(c, 1), "default") || fe_tok_is(peek_at(c, 1), "delete"))) {
        /* S() = default: an empty body (member initializers still run); a
         * defaulted copy or assignment is what copies do anyway, and a
         * deleted function stays a declaration, so either is left unused */
        next(c);
        if (fe_tok_is(next(c), "default") && !f->params) {
            f->body = new_node(c, N_BLOCK, peek(c));
            f->is_default_body = true; /* not user-provided: the layout stays a POD's (type.c) */
        } else
            f->is_defaulted = true;
        expect(c, ";");
    } else {
        expect(c, ";");
    }
    c->tnames = saved;
    return f;
}

/* Parameter types a and b are one type for overloading: references and
 * qualifiers below the top level count; kinds that stand for two C
 * spellings here (long and long long, char and signed char) count as
 * different, as their overloads are (an enum has its name). */
static bool same_param_type(const fe_type *a, const fe_type *b, bool top)
{
    if (a->kind != b->kind || a->is_ref != b->is_ref)
        return false;
    if ((!top || a->is_ref) && (a->is_const != b->is_const || a->is_volatile != b->is_volatile))
        return false;
    switch (a->kind) {
    case TY_PTR: return same_param_type(a->base, b->base, false);
    case TY_ARRAY: case TY_VEC: return a->len == b->len && same_param_type(a->base, b->base, false);
    case TY_STRUCT: return fe_same_type(a, b);
    case TY_I8: case TY_I64: case TY_U64: return false;
    default: return a->name == b->name || (a->name && b->name && !strcmp(a->name, b->name));
    }
}

/* Same name and parameter types: one function (an overload differs in its
 * parameters). */
static bool same_signature(const fe_node *f, const fe_node *g)
{
    if (strcmp(f->name, g->name) != 0)
        return false;
    const fe_node *p = f->params, *q = g->params;
    for (; p && q; p = p->next, q = q->next)
        if (!p->ty || !q->ty || !same_param_type(p->ty, q->ty, true))
            return false;
    return !p && !q;
}

/* A module-scope function, after a check that a definition does not
 * repeat one: a second body of one function, or a second kernel of one
 * name (kernels are named by their plain names, so __global__ functions
 * do not overload). */
static void add_func(fe_ctx *c, fe_node *f)
{
    fe_node **link = &c->funcs;
    for (; *link; link = &(*link)->next) {
        const fe_node *g = *link;
        if (!f || !f->body || !g->body || !f->name || !g->name)
            continue;
        if ((f->storage & FE_S_GLOBAL) && (g->storage & FE_S_GLOBAL) && strcmp(f->name, g->name) == 0) {
            fe_error(c, f->tok, CVM_SYNTAX, "redefinition of kernel '%s' (kernels are named by their plain "
                     "names: a __global__ function cannot be overloaded)", f->name);
            return;
        }
        if (same_signature(f, g) && (!f->ns || !g->ns || strcmp(f->ns, g->ns) == 0)) {
            if (!c->in_friend && !f->is_friend)
                fe_error(c, f->tok, CVM_SYNTAX, "redefinition of '%s'", f->name);
            return;
        }
    }
    *link = f;
}

void fe_p_add_func(fe_ctx *c, fe_node *f) { add_func(c, f); }

static void toplevel(fe_ctx *c)
{
    fe_tok *t = peek(c);
    if (fe_tok_is(t, "}")) {
        fe_error(c, t, CVM_SYNTAX, "extraneous closing brace ('}')");
        return;
    }
    if (t->kind == TK_PRAGMA || accept(c, ";")) {
        if (t->kind == TK_PRAGMA)
            next(c);
        return;
    }
    const bool inline_ns = fe_tok_is(t, "inline") && fe_tok_is(peek_at(c, 1), "namespace");
    if (inline_ns)
        t = peek_at(c, 1), next(c);
    if (fe_tok_is(t, "namespace")) {
        next(c);
        if (peek(c)->kind == TK_IDENT && fe_tok_is(peek_at(c, 1), "=")) {
            fe_p_namespace_alias(c); /* namespace x = a::b; (cg = cooperative_groups names no file namespace) */
            skip_balanced(c);
            return;
        }
        accept(c, "inline");
        const char *outer = c->ns ? c->ns : "", *path = outer;
        while (peek(c)->kind == TK_IDENT) { /* namespace a::b { (C++17) */
            fe_tok *part = next(c);
            path = *path ? fe_fmt(c, "%s::%.*s", path, (int)part->len, part->s)
                         : fe_strndup(c, part->s, part->len);
            if (!is(c, "::") || peek_at(c, 1)->kind != TK_IDENT)
                break;
            next(c);
        }
        fe_p_declare_namespace(c, path); /* an anonymous namespace is its enclosing one */
        if (inline_ns && path != outer) /* its names are its enclosing namespace's too */
            fe_p_add_directive(c, outer, path, false, peek(c));
        c->ns = path;
        expect(c, "{");
        while (!c->err && !is(c, "}") && peek(c)->kind != TK_EOF)
            toplevel(c);
        expect(c, "}");
        c->ns = outer;
        return;
    }
    if (fe_tok_is(t, "using")) {
        next(c);
        if (is(c, "namespace")) {
            fe_p_using_namespace(c, 1);
            skip_balanced(c);
            return;
        }
        if (peek(c)->kind == TK_IDENT && fe_tok_is(peek_at(c, 1), "::"))
            fe_p_using_decl(c);
        fe_tok *nt = expect_ident(c);
        if (accept(c, "=")) {
            fe_type *ty = type_name(c);
            push_tname(c, tok_name(c, nt), ty, false, 0);
            expect(c, ";");
        } else {
            skip_balanced(c); /* using std::min; */
        }
        return;
    }
    if (fe_tok_is(t, "template")) {
        fe_p_template_decl(c);
        return;
    }
    if (accept(c, "static_assert")) {
        c->pos--;
        fe_p_stmt(c);
        return;
    }
    if (fe_tok_is(t, "extern") && peek_at(c, 1)->kind == TK_STR && peek_at(c, 1)->str &&
        (strcmp(peek_at(c, 1)->str, "C") == 0 || strcmp(peek_at(c, 1)->str, "C++") == 0)) {
        c->pos += 2; /* extern "C": linkage is irrelevant here */
        if (accept(c, "{")) {
            while (!c->err && !is(c, "}") && peek(c)->kind != TK_EOF)
                toplevel(c);
            expect(c, "}");
            return;
        }
    }
    if (!fe_p_host_decl(c))
        module_decl(c);
}

/* The struct S whose member S::name the token names as a qualifier: a
 * complete struct that is no template or instance of one, else NULL. */
static fe_type *member_owner(fe_ctx *c, const fe_tok *q)
{
    fe_tname *n = q ? lookup(c, q->s, q->len) : NULL;
    fe_type *s = n && !n->is_value ? n->ty : NULL;
    return s && s->kind == TY_STRUCT && s->complete && !s->tmpl && !s->origin && !s->is_lambda ? s : NULL;
}

/*
 * `T S::f(params) {...}` or `S::S(params) : inits {...}` at namespace
 * scope: the body of member function f (a constructor) declared in struct
 * S without one. The definition takes the declaration's place in S's
 * methods (static stays static); S's static constants, member types and
 * data members are visible in the body, as inside the struct (a member
 * hides an outer constant of its name).
 */
static void member_definition(fe_ctx *c, fe_type *s, fe_type *ret, fe_tok *nt, unsigned storage, uint32_t lb,
                              bool ctor)
{
    fe_tname *saved = c->tnames;
    fe_p_push_base_names(c, s);
    for (fe_tname *k = s->statics; k; k = k->next)
        push_tname(c, k->name, k->ty, k->is_value, k->value);
    for (fe_tname *k = s->mtypes; k; k = k->next)
        push_tname(c, k->name, k->ty, false, 0);
    fe_p_declare_members(c, s);
    fe_node *f = function(c, ret, nt, storage | FE_S_DEVICE, lb);
    c->tnames = saved;
    if (c->err)
        return;
    f->owner = s;
    f->is_ctor = ctor;
    f->is_operator = nt->len > 8 && memcmp(nt->s, "operator", 8) == 0;
    f->is_conversion = strcmp(f->name, "operator()conv") == 0;
    for (fe_node *m = s->methods; m; m = m->next) {
        if (m->is_const_fn != f->is_const_fn)
            continue; /* float &get(int) and const float &get(int) const are two */
        if (f->is_conversion && (!m->is_conversion || !fe_same_type(m->ty, f->ty)))
            continue; /* operator float() and operator int() are two */
        if (!m->body && m->is_ctor == ctor && same_signature(m, f)) {
            if (!f->body) /* a second declaration */
                return;
            /* default arguments are the declaration's */
            for (fe_node *p = f->params, *q = m->params; p && q; p = p->next, q = q->next)
                if (!p->a)
                    p->a = q->a;
            /* in place: copies of S made before its '}' share the list */
            const unsigned stat = m->storage & FE_S_STATIC;
            const bool is_explicit = m->is_explicit;
            fe_node *next = m->next;
            *m = *f;
            m->next = next;
            m->storage |= stat;
            m->is_explicit = is_explicit;
            return;
        }
        if (m->body && m->is_ctor == ctor && same_signature(m, f)) {
            fe_error(c, nt, CVM_SYNTAX, "redefinition of '%s::%s'", s->name, f->name);
            return;
        }
    }
    fe_error(c, nt, CVM_SYNTAX, "'%s' has no member function '%s' declared with these parameters", s->name,
             f->name);
}

/* Before the declaration specifiers: `S::S(` (after any function
 * specifiers), a constructor of struct S defined outside it, or `S::operator
 * T(`, a conversion operator; neither has a return type in front. */
static bool ctor_definition(fe_ctx *c)
{
    uint32_t k = 0;
    while (fe_p_fn_specifier(peek_at(c, k)))
        k++;
    const uint32_t specs = k;
    while (peek_at(c, k)->kind == TK_IDENT && fe_tok_is(peek_at(c, k + 1), "::") &&
           peek_at(c, k + 2)->kind == TK_IDENT && fe_tok_is(peek_at(c, k + 3), "::"))
        k += 2; /* geo::P::P(: namespaces are flattened */
    fe_tok *q = peek_at(c, k), *nt = peek_at(c, k + 2);
    const bool qualified = q->kind == TK_IDENT && fe_tok_is(peek_at(c, k + 1), "::");
    const bool conv = qualified && fe_tok_is(nt, "operator") && fe_p_is_typename(c, peek_at(c, k + 3));
    fe_type *s = qualified && ((nt->kind == TK_IDENT && nt->len == q->len && memcmp(nt->s, q->s, q->len) == 0 &&
                                fe_tok_is(peek_at(c, k + 3), "(")) || conv)
                     ? member_owner(c, q) : NULL;
    if (!s)
        return false;
    unsigned storage = 0;
    for (uint32_t i = 0; i < specs; i++)
        if (fe_tok_is(peek_at(c, i), "__device__") || fe_tok_is(peek_at(c, i), "__host__"))
            storage |= FE_S_DEVICE;
    c->pos += k + 2;
    if (!conv) {
        member_definition(c, s, fe_ty(TY_VOID), next(c), storage, 0, true);
        return true;
    }
    fe_tok *op = next(c), *name = fe_alloc(c, sizeof *name);
    fe_type *ret = type_name(c);
    if (!name || c->err)
        return true;
    *name = *op; /* named as inside the struct (parse_decl.c) */
    name->s = "operator()conv";
    name->len = (uint32_t)strlen(name->s);
    member_definition(c, s, ret, name, storage, 0, false);
    return true;
}

/* A module-scope declaration: functions, variables, typedefs. */
static void module_decl(fe_ctx *c)
{
    unsigned storage = 0;
    uint32_t lb = 0;
    if (ctor_definition(c))
        return;
    fe_type *base = declspec(c, &storage, &lb);
    if (accept(c, ";"))
        return; /* struct/enum declaration alone */
    for (;;) {
        fe_tok *nt = NULL;
        fe_type *ty = declarator(c, base ? base : fe_ty(TY_I32), &nt);
        if (!base && nt && !c->err && is(c, "(") && ty->kind != TY_I32) {
            unsupported(c, nt, "an 'auto' function returning a pointer or reference is not supported; name "
                               "the return type");
            return;
        }
        if (c->err)
            return;
        if (!nt) {
            fe_error(c, peek(c), CVM_SYNTAX, "expected a declaration before '%.*s'",
                     (int)peek(c)->len, peek(c)->s);
            return;
        }
        if (is(c, "(") && !(storage & FE_S_TYPEDEF)) {
            fe_type *owner = member_owner(c, c->decl_owner);
            if (!base)
                ty = NULL; /* auto f(...): deduced from the first return, or -> T */
            if (owner)
                member_definition(c, owner, ty, nt, storage, lb, false);
            else
                add_func(c, function(c, ty, nt, storage, lb));
            return;
        }
        fe_node *d = new_node(c, N_DECL, nt);
        d->name = tok_name(c, nt);
        d->ty = ty;
        d->storage = storage;
        if (accept(c, "=") || is(c, "{")) {
            d->a = fe_p_initializer(c);
            d->ty = ty = fe_p_sized_by_init(c, ty, d->a);
        }
        if (!base && !c->err) { /* constexpr auto k = 0.5f: a literal's type, an integer constant's int */
            int64_t v;
            fe_node *x = d->a && d->a->kind == N_INITLIST && d->a->args && !d->a->args->next ? d->a->args : d->a;
            if (x && x->kind == N_FLOAT)
                ty = fe_ty(x->is_float32 ? TY_F32 : TY_F64);
            else if (x && x->kind == N_INT) /* C's literal type: 'a', 3u, 0xffffffff, 3L */
                ty = x->ty ? x->ty : fe_ty(fe_literal_kind(x));
            else if (x && x->kind == N_BOOL)
                ty = fe_ty(TY_BOOL);
            else if (x && fe_const_eval(c, x, &v))
                ty = fe_ty(v == (int32_t)v ? TY_I32 : TY_I64);
            else {
                unsupported(c, nt, "a module-scope 'auto' variable needs a literal or integer constant "
                                   "initializer; name the type");
                return;
            }
            d->ty = ty = fe_qualified(c, ty, (storage & FE_S_CONSTEXPR) != 0, false);
        }
        fe_p_check_unsized(c, d);
        if (storage & FE_S_TYPEDEF) {
            push_tname(c, d->name, ty, false, 0);
        } else {
            int64_t v;
            fe_type *elem = ty;
            while (elem->kind == TY_ARRAY)
                elem = elem->base;
            fe_tname *k;
            if (ty->is_const && fe_is_int(ty) && d->a && fe_const_eval(c, d->a, &v) &&
                !(storage & (FE_S_DEVICE | FE_S_CONSTANT))) {
                const fe_tname *was = lookup(c, d->name, strlen(d->name));
                const char *ns = c->ns ? c->ns : "";
                if (was && was->is_value && was->def_ns && !c->inst_depth) {
                    c->err_kept = true; /* a second definition, not host code */
                    if (strcmp(was->def_ns, ns) == 0)
                        fe_error(c, nt, CVM_SYNTAX, "redefinition of '%s'", d->name);
                    else
                        unsupported(c, nt, fe_fmt(c, "'%s' is defined in namespace '%s' and in namespace '%s': a "
                                                     "constant keeps one name across namespaces here; rename one",
                                                  d->name, *was->def_ns ? was->def_ns : "(the file's)",
                                                  *ns ? ns : "(the file's)"));
                    return;
                }
                if ((k = push_tname(c, d->name, fe_unqual(ty), true, v)) != NULL) {
                    k->var_ty = ty; /* decltype(N): const int */
                    k->def_ns = c->inst_depth ? NULL : ns;
                }
            } else if (!(storage & (FE_S_DEVICE | FE_S_CONSTANT | FE_S_SHARED)) && !elem->is_const &&
                     !(storage & FE_S_CONSTEXPR))
                fe_p_host_name(c, nt, false); /* a host variable: kernels cannot use it */
            else {
                /* one variable per name: an extern declaration and a
                 * definition of it make one, two definitions are an error */
                fe_node **link = &c->globals;
                const bool ext = (storage & FE_S_EXTERN) != 0;
                while (*link && strcmp((*link)->name, d->name) != 0)
                    link = &(*link)->next;
                if (*link && !ext && !((*link)->storage & FE_S_EXTERN)) {
                    fe_error(c, nt, CVM_SYNTAX, "redefinition of '%s'", d->name);
                    return;
                }
                if (!*link || !ext) { /* new, or a definition replacing a declaration */
                    d->next = *link ? (*link)->next : NULL;
                    *link = d;
                }
                fe_tname *k2 = declare_var(c, d->name, ty); /* decltype(g) */
                if (k2 && fe_p_const_array(d, storage))
                    k2->const_decl = d; /* dims[1] as a constant */
            }
        }
        if (!accept(c, ","))
            break;
    }
    expect(c, ";");
}

/* ---- for the other parser files (parse.h) ---- */

void fe_p_module_decl(fe_ctx *c) { module_decl(c); }
void fe_p_declaration(fe_ctx *c) { module_decl(c); }
fe_node *fe_p_function(fe_ctx *c, fe_type *ret, fe_tok *nt, unsigned storage, uint32_t lb)
{
    return function(c, ret, nt, storage, lb);
}
void fe_p_toplevel(fe_ctx *c) { toplevel(c); }
void fe_p_skip_balanced(fe_ctx *c) { skip_balanced(c); }
