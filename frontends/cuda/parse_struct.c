/*
 * parse_struct.c - struct bodies and enums in the CUDA frontend's parser:
 * members (with a pre-scan of the body for the names member functions
 * above a declaration see), member functions, constructors with member
 * initializers, operators and conversion operators, static constants and
 * member types, anonymous unions; enumerators (an enum class's its own).
 */
#include "parse.h"

#include <stdio.h>
#include <string.h>


/* `__align__(N)` or `alignas(N)` at the cursor: N, consumed; else 0. */
uint32_t fe_p_alignment(fe_ctx *c)
{
    if (!fe_p_accept(c, "__align__") && !fe_p_accept(c, "alignas"))
        return 0;
    fe_p_expect(c, "(");
    uint32_t a = fe_p_const_dim(c, fe_p_peek(c));
    fe_p_expect(c, ")");
    return a;
}

/*
 * `: public B, private C<T>` before a struct's body: each base class
 * becomes a member of t (fe_member.is_base), ahead of t's own members, in
 * the order written. Access is not checked (as for members); a virtual
 * base, a base of a union, and a base that is not a complete struct are
 * errors at the base.
 */
void fe_p_base_clause(fe_ctx *c, fe_type *t)
{
    fe_tok *colon = fe_p_next(c);
    if (t->is_union) {
        fe_p_unsupported(c, colon, "a union cannot have a base class");
        return;
    }
    fe_member **link = &t->members;
    while (*link)
        link = &(*link)->next;
    do {
        fe_tok *virt = NULL;
        for (;;)
            if (fe_p_is(c, "virtual"))
                virt = fe_p_next(c);
            else if (!fe_p_accept(c, "public") && !fe_p_accept(c, "private") && !fe_p_accept(c, "protected"))
                break;
        fe_tok *at = fe_p_peek(c);
        if (virt) {
            fe_p_unsupported(c, virt, "virtual base classes are not supported in kernels");
            return;
        }
        if (!fe_p_typename_at(c, 0)) {
            fe_error(c, at, CVM_SYNTAX, "expected a base class name, found '%.*s'", (int)at->len, at->s);
            return;
        }
        fe_type *b = fe_p_type_name(c);
        if (c->err)
            return;
        char bn[128];
        fe_type_str(b, bn, sizeof bn);
        if (b->kind != TY_STRUCT || b->cg || b->is_lambda || b->is_ref) {
            fe_error(c, at, CVM_SYNTAX, "'%s' is not a struct or class: it cannot be a base class", bn);
            return;
        }
        if (b->is_union) {
            fe_error(c, at, CVM_SYNTAX, "'%s' is a union: a union cannot be a base class", bn);
            return;
        }
        if (!b->complete) {
            fe_error(c, at, CVM_SYNTAX, "base class '%s' is incomplete (declared but not defined before '%s')",
                     bn, t->name);
            return;
        }
        for (const fe_member *m = t->members; m; m = m->next)
            if (m->is_base && fe_same_type(m->ty, b)) {
                fe_error(c, at, CVM_SYNTAX, "'%s' is a direct base class of '%s' twice", bn, t->name);
                return;
            }
        t->nbases += 1 + b->nbases;
        if (t->nbases > 1024) { /* struct S2 : S0, S1 ... with S1 : S0: each level doubles them */
            fe_error(c, at, CVM_LIMIT, "'%s' has more than 1024 base class subobjects (bases of bases "
                     "counted, once for each path)", t->name);
            return;
        }
        fe_member *m = fe_alloc(c, sizeof *m);
        if (!m)
            return;
        m->name = "";
        m->ty = fe_qualified(c, b, false, false);
        m->is_base = true;
        *link = m;
        link = &m->next;
    } while (fe_p_accept(c, ","));
    if (!fe_p_is(c, "{"))
        fe_error(c, fe_p_peek(c), CVM_SYNTAX, "expected '{' after the base classes of '%s'", t->name);
}

/* The names the bases of struct s give s's body and its members defined
 * outside it: each base's static constants, member types and data
 * members (its own bases' first, so that a nearer one hides them), until
 * the struct's '}' (fe_tname.member). */
void fe_p_push_base_names(fe_ctx *c, const fe_type *s)
{
    for (const fe_member *m = s->members; m; m = m->next) {
        if (!m->is_base)
            continue;
        const fe_type *b = m->ty, *root = b->origin ? b->origin : b;
        fe_p_push_base_names(c, b);
        for (fe_tname *k = root->statics; k; k = k->next) {
            fe_tname *n = fe_p_push_tname(c, k->name, k->ty, true, k->value);
            if (n)
                n->member = true;
        }
        for (fe_tname *k = root->mtypes; k; k = k->next) {
            fe_tname *n = fe_p_push_tname(c, k->name, k->ty, false, 0);
            if (n)
                n->member = true;
        }
        fe_p_declare_members(c, b);
    }
}

fe_type *fe_p_struct_spec(fe_ctx *c)
{
    fe_tok *kw = fe_p_next(c); /* struct / class / union */
    bool is_union = fe_tok_is(kw, "union");
    fe_tok *name = NULL;
    if (fe_p_peek(c)->kind == TK_IDENT && !fe_p_is(c, "__align__") && !fe_p_is(c, "alignas"))
        name = fe_p_next(c);
    uint32_t align = fe_p_alignment(c); /* struct alignas(16) P */
    if (!name && fe_p_peek(c)->kind == TK_IDENT)
        name = fe_p_next(c);
    fe_type *t = NULL;
    const bool at_namespace = !c->body_depth && !c->inst_depth;
    if (name) {
        fe_tname *n = fe_p_lookup(c, name->s, name->len);
        if (n && n->ty && n->ty->kind == TY_STRUCT && (!fe_p_is(c, "{") || !n->ty->complete))
            t = n->ty;
        if (at_namespace && fe_p_is(c, "{") && n && n->ty && n->ty->kind == TY_STRUCT && n->ty->complete &&
            n->ty->def_ns) {
            const char *ns = c->ns ? c->ns : "";
            c->err_kept = true; /* a second definition, not host code */
            if (strcmp(n->ty->def_ns, ns) == 0)
                fe_error(c, name, CVM_SYNTAX, "redefinition of struct '%s'", n->ty->name);
            else
                fe_p_unsupported(c, name, fe_fmt(c, "'%s' is defined in namespace '%s' and in namespace '%s': a "
                                                    "type keeps one name across namespaces here; rename one",
                                                 n->ty->name, *n->ty->def_ns ? n->ty->def_ns : "(the file's)",
                                                 *ns ? ns : "(the file's)"));
            return n->ty;
        }
        if (t && t->is_union != is_union) {
            fe_error(c, name, CVM_SYNTAX, "'%s' was declared as a %s", t->name, t->is_union ? "union" : "struct");
            return t;
        }
    }
    if (!t) {
        t = fe_alloc(c, sizeof *t);
        if (!t)
            return fe_ty(TY_I32);
        t->kind = TY_STRUCT;
        t->align = align ? align : 1;
        t->is_union = is_union;
        t->name = name ? fe_p_tok_name(c, name) : is_union ? "union" : "struct";
        t->def_ns = at_namespace ? (c->ns ? c->ns : "") : NULL;
        if (name)
            fe_p_push_tname(c, t->name, t, false, 0);
    }
    if (fe_tok_is(kw, "class") && !t->complete)
        t->is_class = true;
    if (fe_p_is(c, ":"))
        fe_p_base_clause(c, t);
    if (fe_p_accept(c, "{"))
        fe_p_struct_body(c, t);
    return t;
}

bool fe_p_fn_specifier(const fe_tok *t)
{
    static const char *const kw[] = {"__device__", "__host__", "inline", "__forceinline__",
                                     "__inline__", "__noinline__", "constexpr", "static", "explicit"};
    for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++)
        if (fe_tok_is(t, kw[i]))
            return true;
    return false;
}

/* Member function, constructor or conversion operator of t, at the '(' of its parameters. */
static fe_node *member_function(fe_ctx *c, fe_type *t, fe_type *ret, fe_tok *nt, unsigned storage,
                                bool ctor, bool conv)
{
    fe_node *f = fe_p_function(c, ret, nt, storage | FE_S_DEVICE, 0);
    f->owner = t;
    f->is_ctor = ctor;
    f->is_conversion = conv;
    f->is_operator = nt->len > 8 && memcmp(nt->s, "operator", 8) == 0;
    return f;
}

/* Appends member function f to a struct's list at *link, unless it is
 * defaulted or deleted (nothing to call: copies are member by member). */
/* Adds member function f to the list at *link; a defaulted or deleted one
 * (nothing to call) goes to the list at *dlink instead, for
 * moves_with_user_copy. */
static void add_method(fe_node ***link, fe_node ***dlink, fe_node *f)
{
    if (!f)
        return;
    fe_node ***to = f->is_defaulted ? dlink : link;
    **to = f;
    *to = &f->next;
}

/* ~Name() {} or = default: nothing to run. A destructor with a body would
 * have to run at every scope exit, which is not implemented. */
static void destructor(fe_ctx *c, fe_type *t)
{
    fe_tok *tilde = fe_p_next(c);
    fe_p_expect_ident(c);
    fe_p_expect(c, "(");
    fe_p_accept(c, "void");
    fe_p_expect(c, ")");
    while (fe_p_accept(c, "noexcept") || fe_p_accept(c, "override"))
        ;
    if (fe_p_accept(c, "=")) { /* = default / = delete */
        fe_p_expect_ident(c);
        fe_p_expect(c, ";");
        return;
    }
    t->nonpod = true; /* a user-provided destructor: not POD for layout */
    if (fe_p_accept(c, "{") && !fe_p_accept(c, "}")) {
        fe_p_unsupported(c, tilde, "destructors with a body are not supported in kernels (an empty one is fine)");
        return;
    }
    fe_p_accept(c, ";");
}

/* static constexpr int N = 4; (or static const): a constant named in the
 * struct's member functions (pushed until the struct's end) and as S::N. */
static bool static_const(fe_ctx *c, fe_type *t, fe_tok *nt, fe_type *mt)
{
    bool brace = fe_p_accept(c, "{");
    if (!brace)
        fe_p_expect(c, "=");
    fe_tok *at = fe_p_peek(c);
    int64_t v = 0;
    if (!fe_const_eval(c, fe_p_assign(c), &v)) {
        if (!c->err)
            fe_error(c, at, CVM_UNSUPPORTED, "a static member must be initialized with an integer constant");
        return false;
    }
    if (brace)
        fe_p_expect(c, "}");
    fe_tname *s = fe_alloc(c, sizeof *s);
    if (!s)
        return false;
    fe_type *root = t->origin ? t->origin : t;
    s->name = fe_p_tok_name(c, nt);
    s->ty = fe_unqual(mt);
    s->value = v;
    s->is_value = true;
    s->next = root->statics;
    root->statics = s;
    fe_tname *named = fe_p_push_tname(c, s->name, s->ty, true, v);
    if (named)
        named->member = true;
    return true;
}

/* static constexpr float eps = 1e-5f; (or double): a named value, its
 * initializer converted to the member's type wherever the name is used
 * (in the struct's member functions, until the struct's end, and S::eps;
 * lower_expr.c finds it for bodies above the declaration). */
static bool static_float(fe_ctx *c, fe_type *t, fe_tok *nt, fe_type *mt)
{
    bool brace = fe_p_accept(c, "{");
    if (!brace)
        fe_p_expect(c, "=");
    fe_node *cast = fe_p_new_node(c, N_CAST, nt);
    cast->ty = fe_unqual(mt);
    cast->a = fe_p_assign(c);
    if (brace)
        fe_p_expect(c, "}");
    fe_tname *s = fe_alloc(c, sizeof *s);
    if (c->err || !s)
        return false;
    fe_type *root = t->origin ? t->origin : t;
    s->name = fe_p_tok_name(c, nt);
    s->ty = cast->ty;
    s->value_expr = cast;
    s->next = root->statics;
    root->statics = s;
    fe_tname *named = fe_p_push_tname(c, s->name, NULL, false, 0); /* a value, not a type */
    if (named) {
        named->member = true;
        named->value_expr = cast;
        named->var_ty = mt;
    }
    return true;
}

/* typedef T name; or using name = T; in struct t: a type named in the
 * struct's body (until its '}') and as S::name. */
static void member_type(fe_ctx *c, fe_type *t, const char *name, fe_type *ty)
{
    fe_tname *s = fe_alloc(c, sizeof *s);
    if (!s)
        return;
    fe_type *root = t->origin ? t->origin : t;
    s->name = name;
    s->ty = ty;
    s->next = root->mtypes;
    root->mtypes = s;
    fe_tname *named = fe_p_push_tname(c, name, ty, false, 0);
    if (named)
        named->member = true;
}

/* At a struct's '}': its static constants' and member types' names end;
 * other names its body declared (nested structs) stay. */
static void end_member_names(fe_ctx *c, fe_tname *outer)
{
    fe_tname *keep[256];
    int n = 0;
    for (fe_tname *q = c->tnames; q && q != outer; q = q->next)
        if (!q->member && n < 256)
            keep[n++] = q;
    c->tnames = outer;
    while (n-- > 0) {
        keep[n]->next = c->tnames;
        c->tnames = keep[n];
    }
}

/* The data members of s (an anonymous union's as s's own) hide outer
 * names of theirs in a member function's body defined outside s. */
void fe_p_declare_members(fe_ctx *c, const fe_type *s)
{
    for (const fe_member *m = s->members; m; m = m->next) {
        if (m->is_base)
            continue; /* fe_p_push_base_names */
        if (m->anon) {
            fe_p_declare_members(c, m->ty);
            continue;
        }
        fe_tname *hide = fe_p_declare_var(c, m->name, m->ty);
        if (hide)
            hide->member = true;
    }
}

/* Words that make a member declaration declare no data member of the
 * struct (a type, a static, a friend, a nested struct's members). */
static bool names_no_data_member(const fe_tok *t)
{
    /* not `static`: a static constant is named as a member too (lower_expr.c member_static) */
    static const char *const words[] = {"typedef", "using", "friend", "template", "enum",
                                        "struct", "class", "union", "static_assert", "virtual", "operator",
                                        NULL};
    for (int i = 0; words[i]; i++)
        if (fe_tok_is(t, words[i]))
            return true;
    return false;
}

/*
 * At a struct body's '{': the names of the data members it declares
 * (static constants too), so that a member function defined before a
 * member's declaration sees the member and not an outer constant or type
 * of its name (a member function's body is a complete-class context). The names are only
 * hidden here; the declarations themselves come in order. A member
 * declaration holds no '(' outside its initializers (a member function,
 * a constructor); its declarators are the identifiers outside brackets,
 * parentheses and template arguments followed by ';' ',' '=' '[' or '{'.
 */
/* From the `open` token at peek `from`, *end at its matching `close`;
 * false at the end of input. */
static bool skip_group(fe_ctx *c, uint32_t *end, uint32_t from, const char *open, const char *close)
{
    int d = 0;
    for (*end = from;; (*end)++) {
        const fe_tok *b = fe_p_peek_at(c, *end);
        if (b->kind == TK_EOF)
            return false;
        d += fe_tok_is(b, open) - fe_tok_is(b, close);
        if (d == 0)
            return true;
    }
}

/* A plain enum's enumerators, from peek k (after `enum`) to its '}':
 * the identifiers right after its '{' or a ',' in it, hidden as members. */
static void prescan_enumerators(fe_ctx *c, uint32_t k)
{
    while (fe_p_peek_at(c, k)->kind != TK_EOF && !fe_tok_is(fe_p_peek_at(c, k), "{") &&
           !fe_tok_is(fe_p_peek_at(c, k), ";"))
        k++;
    for (int depth = 0; fe_p_peek_at(c, k)->kind != TK_EOF; k++) {
        const fe_tok *q = fe_p_peek_at(c, k), *before = fe_p_peek_at(c, k - 1);
        depth += fe_tok_is(q, "{") + fe_tok_is(q, "(") - fe_tok_is(q, "}") - fe_tok_is(q, ")");
        if (depth <= 0)
            return;
        if (depth == 1 && q->kind == TK_IDENT && (fe_tok_is(before, "{") || fe_tok_is(before, ","))) {
            fe_tname *hide = fe_p_declare_var(c, fe_p_tok_name(c, q), NULL);
            if (hide)
                hide->member = true;
        }
    }
}

static void prescan_members(fe_ctx *c, uint32_t k)
{
    for (;;) {
        const fe_tok *first = fe_p_peek_at(c, k);
        if (first->kind == TK_EOF || fe_tok_is(first, "}"))
            return;
        if ((fe_tok_is(first, "public") || fe_tok_is(first, "private") || fe_tok_is(first, "protected")) &&
            fe_tok_is(fe_p_peek_at(c, k + 1), ":")) {
            k += 2;
            continue;
        }
        if ((fe_tok_is(first, "union") || fe_tok_is(first, "struct")) && fe_tok_is(fe_p_peek_at(c, k + 1), "{"))
            prescan_members(c, k + 2); /* an anonymous union's members are the struct's */
        if (fe_tok_is(first, "enum") && !fe_tok_is(fe_p_peek_at(c, k + 1), "class") &&
            !fe_tok_is(fe_p_peek_at(c, k + 1), "struct"))
            prescan_enumerators(c, k + 1);
        /* the member declaration from k: its end, whether it is a function */
        uint32_t end = k, names[64];
        int depth = 0, angle = 0, n = 0;
        bool func = false, init = false, other = false, braced = false, ctor_list = false;
        for (;; end++) {
            const fe_tok *q = fe_p_peek_at(c, end);
            if (q->kind == TK_EOF)
                return;
            if (depth == 0 && !init && names_no_data_member(q))
                other = true;
            if (depth == 0 && !init && (fe_tok_is(q, "alignas") || fe_tok_is(q, "__align__")) &&
                fe_tok_is(fe_p_peek_at(c, end + 1), "(")) { /* alignas(16) float v[4];: not a function */
                if (!skip_group(c, &end, end + 1, "(", ")"))
                    return;
                continue;
            }
            if (depth == 0 && (fe_tok_is(q, ";") || fe_tok_is(q, "}")))
                break;
            if (depth == 0 && func && fe_tok_is(q, ":") && fe_tok_is(fe_p_peek_at(c, end - 1), ")"))
                ctor_list = true; /* S(int s) : a(s), b{s} {: the body is the brace after the list */
            if (depth == 0 && fe_tok_is(q, "{") && func && ctor_list && end > k &&
                (fe_p_peek_at(c, end - 1)->kind == TK_IDENT || fe_tok_is(fe_p_peek_at(c, end - 1), ">"))) {
                depth++; /* b{s}: an initializer of the list */
                continue;
            }
            if (depth == 0 && fe_tok_is(q, "{") && func) { /* a function's body */
                if (!skip_group(c, &end, end, "{", "}"))
                    return;
                end++;
                break;
            }
            if (depth == 0 && !init && fe_tok_is(q, "("))
                func = true;
            if (depth == 0 && angle == 0 && !init && q->kind == TK_IDENT && n < 64) {
                const fe_tok *after = fe_p_peek_at(c, end + 1);
                if (fe_tok_is(after, ";") || fe_tok_is(after, ",") || fe_tok_is(after, "=") ||
                    fe_tok_is(after, "[") || fe_tok_is(after, "{"))
                    names[n++] = end;
            }
            if (depth == 0 && !init) {
                angle += fe_tok_is(q, "<") - fe_tok_is(q, ">") - 2 * fe_tok_is(q, ">>");
                angle = angle < 0 ? 0 : angle;
            }
            if (depth == 0 && angle == 0 && !init && (fe_tok_is(q, "=") || (fe_tok_is(q, "{") && !func))) {
                init = true;
                braced = fe_tok_is(q, "{");
            }
            depth += fe_tok_is(q, "(") + fe_tok_is(q, "[") + fe_tok_is(q, "{") - fe_tok_is(q, ")") -
                     fe_tok_is(q, "]") - fe_tok_is(q, "}");
            if (depth == 0 && init && braced && fe_tok_is(q, ","))
                init = false; /* int a{1}, b;: the next declarator (after `= expr` a comma may be a
                               * template argument's, Mx<1, 2>::v, so the rest is not scanned) */
        }
        if (!func && !other)
            for (int i = 0; i < n; i++) {
                fe_tname *hide = fe_p_declare_var(c, fe_p_tok_name(c, fe_p_peek_at(c, names[i])), NULL);
                if (hide)
                    hide->member = true;
            }
        if (fe_tok_is(fe_p_peek_at(c, end), "}") && !func)
            return;
        k = end + (fe_tok_is(fe_p_peek_at(c, end), ";") || !func);
    }
}

static fe_type *struct_members(fe_ctx *c, fe_type *t);

static void moves_with_user_copy(fe_ctx *c, const fe_type *t, const fe_node *defaulted);

fe_type *fe_p_struct_body(fe_ctx *c, fe_type *t)
{
    fe_type *outer = c->cur_struct;
    c->body_depth++;
    c->cur_struct = t;
    struct_members(c, t);
    c->cur_struct = outer;
    c->body_depth--;
    return t;
}

static fe_type *struct_members(fe_ctx *c, fe_type *t)
{
    fe_tname *outer_names = c->tnames;
    fe_p_push_base_names(c, t);
    prescan_members(c, 0);
    fe_member **link = &t->members;
    while (*link) /* after the bases (fe_p_base_clause) */
        link = &(*link)->next;
    fe_node **mlink = &t->methods, *defaulted = NULL, **dlink = &defaulted;
    bool public_access = !t->is_class;
    while (!c->err && !fe_p_is(c, "}")) {
        if (fe_p_accept(c, ";"))
            continue;
        if (fe_p_is(c, "public") || fe_p_is(c, "private") || fe_p_is(c, "protected")) {
            public_access = fe_tok_is(fe_p_next(c), "public");
            fe_p_expect(c, ":");
            continue;
        }
        if (fe_p_is(c, "virtual")) {
            fe_p_unsupported(c, fe_p_peek(c), "virtual functions are not supported in kernels");
            break;
        }
        uint32_t fk = 0; /* `friend`, after any __host__ __device__ inline */
        while (fe_p_fn_specifier(fe_p_peek_at(c, fk)))
            fk++;
        if (fe_tok_is(fe_p_peek_at(c, fk), "friend")) {
            /* `friend struct X;` and a friend function's declaration change
             * nothing here (access is not checked); a friend defined in the
             * body is a namespace-scope function (the hidden-friend
             * operators of vector types), one per instance of a template
             * (declspec skips the word) */
            fe_tok *ft = fe_p_peek_at(c, fk), *after = fe_p_peek_at(c, fk + 1);
            bool body = false;
            int depth = 0;
            for (uint32_t k = fk + 1; fe_p_peek_at(c, k)->kind != TK_EOF; k++) {
                fe_tok *q = fe_p_peek_at(c, k);
                if (depth == 0 && fe_tok_is(q, ";"))
                    break;
                if (depth == 0 && fe_tok_is(q, "{")) {
                    body = true;
                    break;
                }
                if (depth == 0 && fe_tok_is(q, "}")) {
                    fe_error(c, q, CVM_SYNTAX, "expected ';' after the friend declaration");
                    return t;
                }
                depth += fe_tok_is(q, "(") - fe_tok_is(q, ")");
            }
            if (fe_tok_is(after, "template")) {
                fe_p_unsupported(c, ft, "friend templates are not supported; declare the function template "
                                 "at namespace scope");
                break;
            }
            if (body && !fe_tok_is(after, "struct") && !fe_tok_is(after, "class")) {
                c->in_friend = true;
                fe_p_module_decl(c);
                c->in_friend = false;
            } else {
                fe_p_skip_balanced(c);
            }
            continue;
        }
        if (fe_p_is(c, "template")) {
            fe_type *outer = c->tmpl_owner;
            c->tmpl_owner = t;
            fe_p_template_decl(c);
            c->tmpl_owner = outer;
            continue;
        }
        if (fe_p_is(c, "using") && fe_p_peek_at(c, 1)->kind == TK_IDENT && fe_tok_is(fe_p_peek_at(c, 2), "=")) {
            fe_p_next(c);
            const char *name = fe_p_tok_name(c, fe_p_next(c));
            fe_p_next(c); /* = */
            fe_type *ty = fe_p_type_name(c);
            fe_p_expect(c, ";");
            if (!c->err)
                member_type(c, t, name, ty);
            continue;
        }
        if (fe_p_is(c, "using")) {
            fe_p_unsupported(c, fe_p_peek(c), "using-declarations in a struct are not supported (only "
                             "member type aliases: using name = type;)");
            return t;
        }
        unsigned storage = 0;
        uint32_t save = c->pos;
        while (fe_p_fn_specifier(fe_p_peek(c)))
            fe_p_next(c);
        fe_tok *start = fe_p_peek(c);
        if (fe_tok_is(start, "~")) {
            destructor(c, t);
            continue;
        }
        /* constructor `Name (`, conversion operator `operator T ()` */
        bool ctor = fe_tok_is(start, t->name) && fe_tok_is(fe_p_peek_at(c, 1), "(");
        bool conv = fe_tok_is(start, "operator") && fe_p_is_typename(c, fe_p_peek_at(c, 1));
        if (ctor || conv) {
            bool is_explicit = false;
            for (uint32_t k = save; k < c->pos; k++) {
                if (fe_tok_is(&c->toks[k], "__host__") || fe_tok_is(&c->toks[k], "__device__"))
                    storage |= FE_S_DEVICE;
                is_explicit |= fe_tok_is(&c->toks[k], "explicit");
            }
            fe_p_next(c);
            fe_type *ret = fe_ty(TY_VOID);
            fe_tok *nt = start;
            if (conv) {
                ret = fe_p_type_name(c);
                nt = fe_alloc(c, sizeof *nt);
                if (!nt)
                    return t;
                *nt = *start;
                nt->s = "operator()conv";
                nt->len = (uint32_t)strlen(nt->s);
            }
            if (!fe_p_is(c, "(")) {
                fe_error(c, fe_p_peek(c), CVM_SYNTAX, "expected '(' in this member function");
                return t;
            }
            fe_node *made = member_function(c, t, ret, nt, storage, ctor, conv);
            fe_type *p0 = made && ctor && made->params ? made->params->ty : NULL;
            if (p0 && !p0->is_ref && p0->kind == TY_STRUCT && fe_same_type(fe_unqual(p0), t) &&
                (!made->params->next || made->params->next->a)) { /* S(S s): copying s would call itself */
                fe_error(c, made->params->tok, CVM_SYNTAX, "a constructor cannot take its own class by value; "
                         "take a const reference: %s(const %s &)", t->name, t->name);
                return t;
            }
            for (const fe_node *p = made && ctor && !made->is_defaulted ? made->params : NULL; p && !c->err; p = p->next)
                if (p->ty && p->ty->is_rref)
                    fe_p_unsupported(c, p->tok, "a constructor taking an rvalue reference (a move constructor) is "
                                     "not supported: objects are copied here; remove it or take a const reference");
            if (c->err)
                return t;
            made->is_explicit = conv && is_explicit;
            add_method(&mlink, &dlink, made);
            fe_p_accept(c, ";");
            continue;
        }
        c->pos = save;
        fe_type *base = fe_p_declspec(c, &storage, NULL);
        const fe_tok *tag = c->pos >= save + 3 && save + 2 < c->ntoks ? &c->toks[save] : NULL;
        if (base && base->kind == TY_STRUCT && tag &&
            (fe_tok_is(tag, "struct") || fe_tok_is(tag, "class") || fe_tok_is(tag, "union")) &&
            tag[1].kind == TK_IDENT && fe_tok_is(&tag[2], "{"))
            member_type(c, t, fe_p_tok_name(c, &tag[1]), base); /* struct In {...}: also Box<int>::In */
        if (!base && !c->err) { /* auto: a member function whose return type is deduced or trailing */
            fe_tok *nt = NULL;
            fe_type *mt = fe_p_declarator(c, fe_ty(TY_I32), &nt);
            if (!nt || !fe_p_is(c, "(") || mt->kind != TY_I32) {
                fe_p_unsupported(c, nt ? nt : fe_p_peek(c), "'auto' members are not supported in kernels "
                                 "(a member function may return auto)");
                return t;
            }
            add_method(&mlink, &dlink, member_function(c, t, NULL, nt, storage, false, false));
            fe_p_accept(c, ";");
            continue;
        }
        if (!base)
            return t;
        if (base->kind == TY_STRUCT && base->complete && !base->cg && fe_p_is(c, ";") &&
            (!strcmp(base->name, "union") || !strcmp(base->name, "struct"))) {
            /* union { float4 v; float a[4]; }; its members are named as ours */
            fe_member *m = fe_alloc(c, sizeof *m);
            if (!m)
                return t;
            m->name = "";
            m->ty = base;
            m->anon = true;
            *link = m;
            link = &m->next;
            fe_p_expect(c, ";");
            continue;
        }
        bool first = true, method = false;
        do {
            fe_tok *nt = NULL;
            fe_type *mt = fe_p_declarator(c, base, &nt);
            if (first && nt && fe_p_is(c, "(")) {
                add_method(&mlink, &dlink, member_function(c, t, mt, nt, storage, false, false));
                method = true;
                break;
            }
            first = false;
            if (!nt)
                break;
            if ((storage & FE_S_STATIC) && fe_is_int(mt) && (fe_p_is(c, "=") || fe_p_is(c, "{"))) {
                if (!static_const(c, t, nt, mt))
                    return t;
                continue;
            }
            if ((storage & FE_S_STATIC) && mt->is_const && (mt->kind == TY_F32 || mt->kind == TY_F64) &&
                (fe_p_is(c, "=") || fe_p_is(c, "{"))) {
                if (!static_float(c, t, nt, mt))
                    return t;
                continue;
            }
            if (fe_has_decltype(mt)) {
                fe_p_unsupported(c, nt, "decltype in a member type is not supported in kernels; name the type");
                return t;
            }
            if (mt->is_ref && !(storage & (FE_S_STATIC | FE_S_TYPEDEF))) {
                fe_p_unsupported(c, nt, "reference members are not supported in kernels (the struct would hold "
                                 "a copy); hold a pointer, or pass the object to the member functions");
                return t;
            }
            if (storage & FE_S_TYPEDEF) {
                member_type(c, t, fe_p_tok_name(c, nt), mt);
                continue;
            }
            if (storage & FE_S_STATIC) {
                fe_p_unsupported(c, nt, "static data members other than integer constants (static constexpr "
                                 "int N = 4;) are not supported");
                return t;
            }
            const fe_type *whole = mt;
            while (whole->kind == TY_ARRAY)
                whole = whole->base;
            if (whole->kind == TY_STRUCT && !whole->complete && !mt->is_ref) {
                /* struct S { S s; }, a type declared but not yet defined: no size */
                char tn[128];
                fe_type_str(whole, tn, sizeof tn);
                fe_error(c, nt, CVM_SYNTAX, "field '%.*s' has incomplete type '%s' (%s)", (int)nt->len, nt->s, tn,
                         whole == t ? "a struct cannot contain itself; use a pointer"
                                    : "its definition is not complete here; use a pointer");
                return t;
            }
            fe_member *m = fe_alloc(c, sizeof *m);
            if (!m)
                return t;
            if (!public_access)
                t->nonpod = true; /* a private or protected data member: not POD for layout (g++) */
            m->name = fe_p_tok_name(c, nt);
            m->ty = mt;
            *link = m;
            link = &m->next;
            fe_tname *hide = fe_p_declare_var(c, m->name, mt); /* hides outer names in later member functions */
            if (hide)
                hide->member = true;
            if (fe_p_is(c, ":")) {
                fe_p_unsupported(c, nt, "bit-fields are not supported in kernels; use a whole integer "
                                 "member and shifts and masks");
                return t;
            }
            if (fe_p_accept(c, "=") || fe_p_is(c, "{")) /* default member initializer: T x = v; */
                m->init = fe_p_initializer(c);    /* T x{v}, x{}, x = {v}, float a[3] = {1, 2, 3} */
        } while (fe_p_accept(c, ","));
        if (method)
            fe_p_accept(c, ";");
        else
            fe_p_expect(c, ";");
    }
    fe_p_expect(c, "}");
    end_member_names(c, outer_names);
    moves_with_user_copy(c, t, defaulted);
    fe_struct_layout(t);
    return t;
}

/* A defaulted or deleted move constructor or assignment is left unused:
 * copies are member by member, which is what a defaulted move does. Beside
 * a user-written copy of the same kind it is refused: a move from
 * std::move(x) or a temporary would run that copy here. */
static void moves_with_user_copy(fe_ctx *c, const fe_type *t, const fe_node *defaulted)
{
    for (const fe_node *mv = defaulted; mv && !c->err; mv = mv->next) {
        const fe_type *p = mv->params ? mv->params->ty : NULL;
        if (!mv->is_defaulted || !p || !p->is_rref)
            continue;
        const bool ctor = mv->is_ctor;
        for (const fe_node *cp = t->methods; cp; cp = cp->next) {
            const fe_type *q = cp->params ? cp->params->ty : NULL;
            if (cp->is_ctor == ctor && (ctor || strcmp(cp->name, mv->name) == 0) && q && q->is_ref && !q->is_rref &&
                fe_same_type(fe_unqual(fe_no_ref(c, (fe_type *)q)), t) && cp->body && !cp->is_defaulted) {
                fe_error(c, mv->tok, CVM_UNSUPPORTED, "a defaulted or deleted move %s beside a user-written copy "
                         "%s is not supported (objects are copied here, so a move would run the copy); remove "
                         "the move %s", ctor ? "constructor" : "assignment", ctor ? "constructor" : "assignment",
                         ctor ? "constructor" : "assignment");
                return;
            }
        }
    }
}

/*
 * enum E {...} and enum class E {...}: each enumerator is a constant named
 * E::X, and also X for a plain enum (a scoped one's X is named only inside
 * its own braces). A plain enumerator at namespace scope whose name another
 * constant has is an error (one name across namespaces, parse_top.c).
 */
fe_type *fe_p_enum_spec(fe_ctx *c)
{
    fe_p_next(c); /* enum */
    const bool scoped = fe_p_accept(c, "class") || fe_p_accept(c, "struct");
    fe_type *under = fe_ty(TY_I32);
    fe_tok *name = fe_p_peek(c)->kind == TK_IDENT ? fe_p_next(c) : NULL;
    const bool fixed = fe_p_accept(c, ":");
    if (fixed) {
        unsigned st = 0;
        under = fe_p_declspec(c, &st, NULL);
    }
    fe_tname *named[256]; /* the enum's names, typed by the values once all are known */
    int nnamed = 0;
    const fe_tname *prev = name && !fe_p_is(c, "{") ? fe_p_lookup(c, name->s, name->len) : NULL;
    if (prev && prev->ty && prev->ty->enum_id && !prev->is_value)
        return prev->ty; /* `enum Color c;` names the enum declared before */
    if (name)
        named[nnamed++] = fe_p_push_tname(c, fe_p_tok_name(c, name), under, false, 0);
    if (!fe_p_accept(c, "{"))
        return under;
    int64_t v = 0, lo = 0, hi = 0;
    bool big = false, full = false; /* a value above INT64_MAX; more names than named[] holds */
    fe_tname *outer = c->tnames;
    const bool at_namespace = !c->body_depth && !c->inst_depth;
    bool past_end = false; /* the value before was the largest one: the next cannot follow it */
    while (!c->err && !fe_p_is(c, "}")) {
        fe_tok *e = fe_p_expect_ident(c);
        if (fe_p_accept(c, "=")) {
            fe_node *x = fe_p_assign(c);
            fe_kind k;
            if (!fe_const_eval_kind(c, x, &v, &k))
                fe_error(c, e, CVM_SYNTAX, "enumerator value must be an integer constant");
            else if (k == TY_U64 && v < 0)
                big = true; /* above INT64_MAX: unsigned long long */
        } else if (past_end && !c->err) {
            fe_error(c, e, CVM_SYNTAX, "enumerator '%.*s' overflows: the one before it has the largest value "
                     "the enum's type holds", (int)e->len, e->s);
            return under;
        }
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        const char *en = fe_p_tok_name(c, e);
        const fe_tname *was = fe_p_lookup(c, e->s, e->len);
        if (!scoped && at_namespace && was && was->is_value && was->def_ns && !c->err) {
            c->err_kept = true;
            fe_error(c, e, CVM_UNSUPPORTED, "'%s' is also a constant or enumerator elsewhere: a plain "
                     "enumerator keeps one name across enums and namespaces here (an enum class keeps "
                     "its own); rename one", en);
            return under;
        }
        fe_tname *q = NULL, *st = !scoped && c->cur_struct ? fe_alloc(c, sizeof *st) : NULL;
        if (name) { /* E::X */
            q = fe_p_push_tname(c, fe_fmt(c, "%s::%s", fe_p_tok_name(c, name), en), under, true, v);
            if (q && scoped)
                q->member = false;
            if (q && at_namespace) /* ns::E::X finds it by this */
                q->def_ns = c->ns ? c->ns : "";
        }
        if (st) { /* an enumerator of a struct's enum: S::X, and found by its bodies above it */
            fe_type *root = c->cur_struct->origin ? c->cur_struct->origin : c->cur_struct;
            *st = (fe_tname){.name = en, .ty = under, .value = v, .is_value = true, .next = root->statics};
            root->statics = st;
        }
        fe_tname *plain = fe_p_push_tname(c, en, under, true, v);
        fe_tname *made[3] = {q, st, plain};
        for (int i = 0; i < 3; i++)
            if (made[i] && nnamed < 256)
                named[nnamed++] = made[i];
            else if (made[i])
                full = true;
        if (plain) {
            plain->member = scoped; /* a scoped one's X ends at the '}' */
            plain->def_ns = scoped || !at_namespace ? NULL : c->ns ? c->ns : "";
        }
        if (fixed) { /* the largest value of the underlying type: the next would not fit */
            const unsigned bits = under->size * 8;
            past_end = fe_is_signed(under) ? v == (int64_t)((UINT64_C(1) << (bits - 1)) - 1)
                                           : (uint64_t)v == (bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1);
        } else { /* no fixed type: values go on as unsigned long long past INT64_MAX (as g++) */
            past_end = big && v == -1;
            big = big || v == INT64_MAX;
        }
        v = (int64_t)((uint64_t)v + 1);
        if (!fe_p_accept(c, ","))
            break;
    }
    fe_p_expect(c, "}");
    if (scoped)
        end_member_names(c, outer);
    if (!fixed && !scoped && (big || lo < INT32_MIN || hi > INT32_MAX)) {
        /* as C++: a type that holds every value (enum { FULL = 0xffffffff }: unsigned) */
        under = fe_ty(big ? TY_U64 : lo >= 0 && hi <= (int64_t)UINT32_MAX ? TY_U32 : TY_I64);
        if (full)
            fe_error(c, fe_p_peek(c), CVM_LIMIT, "an enum whose values need more than int has more than 80 "
                     "enumerators; give it a type (enum E : unsigned {...})");
    }
    /* the enum's own type: a `const int &` bound to a Color lvalue binds a
     * converted temporary, as in C++, instead of aliasing it */
    fe_type *own = fe_alloc(c, sizeof *own);
    if (!own)
        return under;
    *own = *under;
    own->enum_id = own;
    for (int i = 0; i < nnamed; i++)
        named[i]->ty = own;
    return own;
}
