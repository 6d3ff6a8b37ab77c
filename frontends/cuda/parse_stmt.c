/*
 * parse_stmt.c - the statements of a function body and the declarations
 * inside it (locals, their initializers, static and extern __shared__
 * arrays). Shares parse.c's cursor through parse.h.
 */
#include "parse.h"

#include <string.h>

/* ---- declarations inside functions ---- */

fe_node *fe_p_initializer(fe_ctx *c)
{
    fe_tok *t = fe_p_peek(c);
    if (!fe_p_accept(c, "{"))
        return fe_p_assign(c);
    fe_node *n = fe_p_new_node(c, N_INITLIST, t);
    fe_node head = {0}, *tail = &head;
    while (!c->err && !fe_p_is(c, "}")) {
        fe_tok *desig = NULL;
        if (fe_p_is(c, ".") && fe_p_peek_at(c, 1)->kind == TK_IDENT &&
            (fe_tok_is(fe_p_peek_at(c, 2), "=") || fe_tok_is(fe_p_peek_at(c, 2), "{"))) {
            fe_p_next(c); /* .member = value, .member{value} (C++20, C99) */
            desig = fe_p_next(c);
            fe_p_accept(c, "=");
        } else if (fe_p_is(c, "[")) {
            fe_p_unsupported(c, fe_p_peek(c), "array designators ([i] = value) are C, not C++; "
                             "list the elements in order");
            break;
        }
        tail = tail->next = fe_p_initializer(c);
        if (desig) {
            tail->desig = fe_p_tok_name(c, desig);
            tail->desig_tok = desig;
        }
        if (!fe_p_accept(c, ","))
            break;
    }
    fe_p_expect(c, "}");
    n->args = head.next;
    return n;
}

/* `T a[] = {...}` or `char s[] = "..."`: the array's length is the
 * initializer's (its elements, or the string and its terminating NUL);
 * any other type as it is. */
fe_type *fe_p_sized_by_init(fe_ctx *c, fe_type *ty, const fe_node *init)
{
    if (!ty || ty->kind != TY_ARRAY || ty->len || !init)
        return ty;
    uint32_t n = 0;
    if (init->kind == N_INITLIST) {
        for (const fe_node *a = init->args; a; a = a->next)
            n++;
    } else if (init->kind == N_STR && fe_is_char_array(ty)) {
        n = init->ival < UINT32_MAX ? (uint32_t)init->ival + 1 : 0; /* its bytes, embedded NULs too */
    } else {
        return ty;
    }
    return n ? fe_array_of(c, ty->base, n) : ty;
}

/* A definition of an array whose length neither its brackets nor an
 * initializer give (`int a[];`) is an error; an extern declaration names
 * an array defined elsewhere (or extern __shared__ memory). */
void fe_p_check_unsized(fe_ctx *c, const fe_node *d)
{
    if (d->ty && d->ty->kind == TY_ARRAY && !d->ty->len && !(d->storage & (FE_S_EXTERN | FE_S_TYPEDEF)) &&
        !c->err && !c->host_body)
        fe_error(c, d->tok, CVM_SYNTAX,
                 d->a ? "array '%s' has an empty initializer: an array of no elements is not supported"
                      : "array '%s' has no size: give its length or an initializer", d->name);
}

/* An initializer made of constants alone (literals, constant names, their
 * arithmetic and casts, braced lists of them): what a static local, set
 * once before the kernel runs, may have. */
static bool const_init(fe_ctx *c, fe_node *e)
{
    int64_t v;
    switch (e ? e->kind : N_INT) {
    case N_INT: case N_FLOAT: case N_BOOL: case N_SIZEOF:
        return true;
    case N_IDENT:
        return fe_const_eval(c, e, &v);
    case N_INITLIST:
        for (fe_node *a = e->args; a; a = a->next)
            if (!const_init(c, a))
                return false;
        return true;
    case N_UNARY: case N_BIN: case N_COND:
        return const_init(c, e->a) && (e->kind == N_UNARY || const_init(c, e->b)) &&
               (e->kind != N_COND || const_init(c, e->c));
    case N_CAST:
        return e->op != 'F' && const_init(c, e->a);
    default:
        return false;
    }
}

/* One declaration statement: a list of N_DECL (chained by next) in an N_BLOCK-less list. */

static fe_node *declaration(fe_ctx *c, fe_type *base, unsigned storage)
{
    fe_node head = {0}, *tail = &head;
    do {
        fe_tok *nt = NULL;
        fe_tok *at = fe_p_peek(c);
        if (fe_p_is(c, "[") || (fe_p_is(c, "&") && fe_tok_is(fe_p_peek_at(c, 1), "["))) {
            fe_p_unsupported(c, at, "structured bindings (auto [a, b] = ...) are not supported in kernels; "
                             "index the array or name the members");
            break;
        }
        fe_type *ty = base ? fe_p_declarator(c, base, &nt) : fe_p_declarator(c, fe_ty(TY_VOID), &nt);
        if (!base && ty->kind != TY_VOID)
            fe_error(c, at, CVM_SYNTAX, "'auto' needs an initializer of its own type");
        if (!nt) {
            if (!c->err)
                fe_error(c, at, CVM_SYNTAX, "expected a name in the declaration");
            break;
        }
        fe_node *d = fe_p_new_node(c, N_DECL, nt);
        d->name = fe_p_tok_name(c, nt);
        d->ty = base ? ty : NULL;
        d->storage = storage;
        /* a static local keeps its value between calls, in global memory;
         * a const one cannot change, so it is the same as a const local */
        const fe_type *elem = ty;
        while (elem && elem->kind == TY_ARRAY)
            elem = elem->base;
        if ((storage & FE_S_STATIC) && !(storage & (FE_S_SHARED | FE_S_TYPEDEF)) &&
            !(elem && elem->is_const) && !c->err && !c->host_body)
            fe_error(c, nt, CVM_UNSUPPORTED,
                     "static local variable '%s' is not supported (it would keep its value between "
                     "calls); use a __device__ variable, or make it const", d->name);
        if (!base && ty->is_ref)
            d->op = '&'; /* auto &x = ...: a reference */
        if (fe_p_accept(c, "=") || fe_p_is(c, "{")) {
            d->a = fe_p_initializer(c);
            d->ty = fe_p_sized_by_init(c, d->ty, d->a);
            if ((storage & FE_S_STATIC) && !(storage & (FE_S_SHARED | FE_S_TYPEDEF)) && !c->host_body &&
                !c->err && !const_init(c, d->a))
                fe_error(c, nt, CVM_UNSUPPORTED,
                         "static local variable '%s' needs a constant initializer (it is set once, "
                         "before any call)", d->name);
        } else if (fe_p_is(c, "(")) {
            fe_p_next(c); /* direct initialization: T x(args) */
            fe_node *n = fe_p_new_node(c, N_CAST, nt);
            n->ty = ty;
            n->op = 'F';
            n->args = fe_p_args_list(c);
            d->a = n;
        }
        fe_p_check_unsized(c, d);
        if (storage & FE_S_TYPEDEF) {
            fe_p_push_tname(c, d->name, ty, false, 0);
        } else {
            int64_t v;
            if (ty && ty->is_const && fe_is_int(ty) && d->a && fe_const_eval(c, d->a, &v)) {
                fe_tname *k = fe_p_push_tname(c, d->name, fe_unqual(ty), true, v);
                if (k)
                    k->var_ty = ty; /* decltype(n): const int */
            } else {
                fe_tname *k = fe_p_declare_var(c, d->name, d->ty);
                if (k && fe_p_const_array(d, storage))
                    k->const_decl = d; /* dims[1] as a constant */
            }
            tail = tail->next = d;
        }
    } while (fe_p_accept(c, ","));
    fe_p_expect(c, ";");
    fe_node *blk = fe_p_new_node(c, N_BLOCK, head.next ? head.next->tok : fe_p_peek(c));
    blk->args = head.next;
    blk->op = 'D'; /* a declaration group: no scope of its own */
    return blk;
}

static bool starts_decl(fe_ctx *c);

/* After `if (`: an init statement (a ';' before the closing ')') or a
 * declaration as the condition (`T name =` at the top level), as opposed
 * to an expression (`Tr<float>::v == 4`, `x = f()`, `float(x) > 0`). */
static bool if_declaration(fe_ctx *c)
{
    int depth = 0;
    bool decl = false;
    for (uint32_t k = 0;; k++) {
        fe_tok *x = fe_p_peek_at(c, k);
        if (x->kind == TK_EOF)
            return false;
        depth += fe_tok_is(x, "(") + fe_tok_is(x, "[") + fe_tok_is(x, "{") - fe_tok_is(x, ")") -
                 fe_tok_is(x, "]") - fe_tok_is(x, "}");
        if (depth < 0)
            return decl;
        if (depth == 0 && fe_tok_is(x, ";"))
            return true;
        if (depth == 0 && fe_tok_is(x, "=") && k >= 2 && fe_p_peek_at(c, k - 1)->kind == TK_IDENT) {
            fe_tok *before = fe_p_peek_at(c, k - 2);
            decl = decl || ((before->kind == TK_IDENT || fe_tok_is(before, "*") || fe_tok_is(before, "&") ||
                             fe_tok_is(before, ">")) && starts_decl(c));
        }
    }
}

static bool starts_decl(fe_ctx *c)
{
    const uint32_t start = fe_tok_is(fe_p_peek(c), "::") && fe_p_peek_at(c, 1)->kind == TK_IDENT; /* ::P p; */
    uint32_t k = start;
    while (fe_p_peek_at(c, k)->kind == TK_IDENT && fe_tok_is(fe_p_peek_at(c, k + 1), "::"))
        k += 2; /* cg::thread_block b; */
    fe_tok *t = fe_p_peek_at(c, k);
    if (!fe_p_is_typename(c, t))
        return k > start && fe_p_typename_at(c, start); /* S::type x; */
    /* `T(...)`/`T{...}` is an expression (functional cast); `T x` a declaration */
    if (fe_p_lookup(c, t->s, t->len) && (fe_tok_is(fe_p_peek_at(c, k + 1), "(") || fe_tok_is(fe_p_peek_at(c, k + 1), "{")))
        return false;
    if (fe_tok_is(fe_p_peek_at(c, k + 1), "<")) { /* `Cfg<4>::put(out);` calls a static member */
        int depth = 0, parens = 0; /* a '>' inside parentheses closes nothing: Cfg<(3 > 1)> */
        for (k++;; k++) {
            fe_tok *x = fe_p_peek_at(c, k);
            if (x->kind == TK_EOF || fe_tok_is(x, ";") || fe_tok_is(x, "{"))
                return true;
            parens += fe_tok_is(x, "(") - fe_tok_is(x, ")");
            if (!parens)
                depth += fe_tok_is(x, "<") - fe_tok_is(x, ">") - 2 * fe_tok_is(x, ">>");
            if (depth <= 0)
                break;
        }
        return !(fe_tok_is(fe_p_peek_at(c, k + 1), "::") && fe_p_peek_at(c, k + 2)->kind == TK_IDENT &&
                 fe_tok_is(fe_p_peek_at(c, k + 3), "("));
    }
    return true;
}

/* ---- statements ---- */

/* Does the statement declare a struct, union or enum type and nothing
 * else (`struct S {...};`, `enum E : int {...};`, `struct S;`)? Then it
 * is a local type declaration; `struct S s;`, `struct {...} s;` and
 * `struct S *p = ...;` declare variables. */
static bool type_decl_only(fe_ctx *c)
{
    fe_tok *t = fe_p_peek(c);
    if (!fe_tok_is(t, "struct") && !fe_tok_is(t, "union") && !fe_tok_is(t, "class") && !fe_tok_is(t, "enum"))
        return false;
    uint32_t k = 1, names = 0;
    bool bases = false; /* struct S : B {, enum E : int { */
    for (;;) {
        fe_tok *x = fe_p_peek_at(c, k);
        if (fe_tok_is(x, "{") && names >= 2 && !bases)
            return false; /* struct S s{6}; a variable's braced initializer */
        if (fe_tok_is(x, "{")) {
            for (int depth = 0;; k++) {
                x = fe_p_peek_at(c, k);
                if (x->kind == TK_EOF)
                    return false;
                depth += fe_tok_is(x, "{") - fe_tok_is(x, "}");
                if (depth == 0)
                    return fe_tok_is(fe_p_peek_at(c, k + 1), ";");
            }
        }
        if (fe_tok_is(x, ";"))
            return names <= 1; /* struct S; */
        if (fe_tok_is(x, "alignas") || fe_tok_is(x, "__align__")) {
            k += 2; /* its '(' */
            for (int depth = 1; depth > 0; k++) {
                x = fe_p_peek_at(c, k);
                if (x->kind == TK_EOF)
                    return false;
                depth += fe_tok_is(x, "(") - fe_tok_is(x, ")");
            }
            continue;
        }
        if (x->kind == TK_IDENT && !fe_tok_is(x, "class") && !fe_tok_is(x, "struct"))
            names++; /* not the class of enum class */
        else if (!fe_tok_is(x, "::") && !fe_tok_is(x, ":") && !fe_tok_is(x, "class") && !fe_tok_is(x, "struct"))
            return false;
        bases |= fe_tok_is(x, ":");
        k++;
    }
}

static fe_node *stmt_in(fe_ctx *c);


fe_node *fe_p_stmt(fe_ctx *c)
{
    if (!fe_enter(c, fe_p_peek(c)))
        return NULL;
    fe_node *s = stmt_in(c);
    fe_leave(c);
    return s;
}

static fe_node *stmt_in(fe_ctx *c)
{
    fe_p_skip_attributes(c);
    fe_tok *t = fe_p_peek(c);
    if (t->kind == TK_PRAGMA) {
        fe_p_next(c);
        bool unroll = t->len >= 6 && memcmp(t->s, "unroll", 6) == 0;
        fe_node *s = fe_p_stmt(c);
        if (unroll && (s->kind == N_FOR || s->kind == N_WHILE || s->kind == N_DO))
            s->pragma_unroll = true;
        return s;
    }
    if (fe_p_is(c, "{"))
        return fe_p_compound(c);
    if (fe_p_accept(c, ";"))
        return fe_p_new_node(c, N_EMPTY, t);
    if ((fe_tok_is(t, "namespace") && fe_p_peek_at(c, 1)->kind == TK_IDENT && fe_tok_is(fe_p_peek_at(c, 2), "=")) ||
        (fe_tok_is(t, "using") && fe_tok_is(fe_p_peek_at(c, 1), "namespace"))) {
        /* namespace cg = cooperative_groups; using namespace ...: a directive is in force
         * for calls to the end of the block, and for qualifiers and types in the rest of
         * the file (parse_ns.c fe_p_using_namespace) */
        if (fe_tok_is(t, "using"))
            fe_p_using_namespace(c, 2);
        else
            fe_p_next(c), fe_p_namespace_alias(c); /* namespace x = a::b; */
        while (!c->err && !fe_p_is(c, ";") && fe_p_peek(c)->kind != TK_EOF)
            fe_p_next(c);
        fe_p_expect(c, ";");
        return fe_p_new_node(c, N_EMPTY, t);
    }
    if (fe_p_accept(c, "if")) {
        fe_node *n = fe_p_new_node(c, N_IF, t);
        n->is_constexpr = fe_p_accept(c, "constexpr");
        fe_p_expect(c, "(");
        if (if_declaration(c)) {
            fe_p_unsupported(c, fe_p_peek(c), "a declaration in an if condition (if (int t = f(); t > 0)) is "
                             "not supported in kernels; declare the variable before the if");
            return n;
        }
        n->a = fe_p_expr(c);
        fe_p_expect(c, ")");
        n->b = fe_p_stmt(c);
        if (fe_p_accept(c, "else"))
            n->c = fe_p_stmt(c);
        return n;
    }
    if (fe_p_accept(c, "for")) {
        fe_node *n = fe_p_new_node(c, N_FOR, t);
        fe_tname *saved = c->tnames;
        fe_p_expect(c, "(");
        if (starts_decl(c) && fe_p_range_for_ahead(c)) {
            fe_p_range_for(c, n);
            c->tnames = saved;
            return n;
        }
        if (!fe_p_accept(c, ";")) {
            if (starts_decl(c)) {
                unsigned st = 0;
                fe_type *ty = fe_p_declspec(c, &st, NULL);
                n->a = declaration(c, ty, st);
            } else {
                n->a = fe_p_new_node(c, N_EXPR, fe_p_peek(c));
                n->a->a = fe_p_expr(c);
                fe_p_expect(c, ";");
            }
        }
        if (!fe_p_is(c, ";"))
            n->b = fe_p_expr(c);
        fe_p_expect(c, ";");
        if (!fe_p_is(c, ")"))
            n->c = fe_p_expr(c);
        fe_p_expect(c, ")");
        n->d = fe_p_stmt(c);
        c->tnames = saved;
        return n;
    }
    if (fe_p_accept(c, "while")) {
        fe_node *n = fe_p_new_node(c, N_WHILE, t);
        fe_p_expect(c, "(");
        n->a = fe_p_expr(c);
        fe_p_expect(c, ")");
        n->d = fe_p_stmt(c);
        return n;
    }
    if (fe_p_accept(c, "do")) {
        fe_node *n = fe_p_new_node(c, N_DO, t);
        n->d = fe_p_stmt(c);
        fe_p_expect(c, "while");
        fe_p_expect(c, "(");
        n->a = fe_p_expr(c);
        fe_p_expect(c, ")");
        fe_p_expect(c, ";");
        return n;
    }
    if (fe_p_accept(c, "switch")) {
        fe_node *n = fe_p_new_node(c, N_SWITCH, t);
        fe_p_expect(c, "(");
        n->a = fe_p_expr(c);
        fe_p_expect(c, ")");
        n->d = fe_p_stmt(c);
        return n;
    }
    if (fe_p_accept(c, "case")) {
        fe_node *n = fe_p_new_node(c, N_CASE, t);
        n->a = fe_p_conditional(c);
        if (fe_p_accept(c, "...")) /* GNU case ranges */
            n->b = fe_p_conditional(c);
        fe_p_expect(c, ":");
        return n;
    }
    if (fe_p_accept(c, "default")) {
        fe_p_expect(c, ":");
        return fe_p_new_node(c, N_DEFAULT, t);
    }
    if (fe_p_accept(c, "break")) {
        fe_p_expect(c, ";");
        return fe_p_new_node(c, N_BREAK, t);
    }
    if (fe_p_accept(c, "continue")) {
        fe_p_expect(c, ";");
        return fe_p_new_node(c, N_CONTINUE, t);
    }
    if (fe_p_accept(c, "return")) {
        fe_node *n = fe_p_new_node(c, N_RETURN, t);
        if (!fe_p_is(c, ";"))
            n->a = fe_p_is(c, "{") ? fe_p_initializer(c) : fe_p_expr(c);
        fe_p_expect(c, ";");
        return n;
    }
    if (fe_tok_is(t, "goto")) {
        fe_p_unsupported(c, t, "goto is not supported in kernels; use structured control flow (break, continue, return)");
        return fe_p_new_node(c, N_EMPTY, t);
    }
    if (fe_tok_is(t, "try") || fe_tok_is(t, "throw") || fe_tok_is(t, "catch")) {
        fe_p_unsupported(c, t, "exceptions are not supported in kernels");
        return fe_p_new_node(c, N_EMPTY, t);
    }
    if (fe_tok_is(t, "asm") || fe_tok_is(t, "__asm__")) {
        fe_p_unsupported(c, t, "inline PTX assembly (asm) is not supported in kernels");
        return fe_p_new_node(c, N_EMPTY, t);
    }
    if (fe_p_accept(c, "static_assert")) {
        fe_node *n = fe_p_new_node(c, N_STATIC_ASSERT, t);
        fe_p_expect(c, "(");
        n->a = fe_p_assign(c);
        if (fe_p_accept(c, ","))
            n->b = fe_p_assign(c);
        fe_p_expect(c, ")");
        fe_p_expect(c, ";");
        int64_t v = 0;
        /* a condition that does not fold here is judged where it is
         * lowered (lower_tmpl.c fe_not_constant): an error when it reads a
         * run-time value, else left unchecked */
        if (!c->err && fe_const_eval(c, n->a, &v) && !v)
            fe_error(c, t, CVM_SYNTAX, "static assertion failed%s%s", n->b && n->b->kind == N_STR ? ": " : "",
                     n->b && n->b->kind == N_STR ? n->b->name : "");
        return n;
    }
    if (fe_tok_is(t, "using") || fe_tok_is(t, "typedef") || type_decl_only(c)) {
        uint32_t before = c->pos;
        fe_p_toplevel(c); /* local type declarations, using a::f; */
        if (c->pos == before)
            fe_p_next(c);
        return fe_p_new_node(c, N_EMPTY, t);
    }
    if (t->kind == TK_IDENT && fe_tok_is(fe_p_peek_at(c, 1), ":") && !fe_tok_is(t, "default")) {
        fe_p_unsupported(c, t, "labels and goto are not supported in kernels; use structured control flow (break, continue, return)");
        return fe_p_new_node(c, N_EMPTY, t);
    }
    if (t->kind == TK_IDENT && fe_p_peek_at(c, 1)->kind == TK_IDENT && !fe_p_is_typename(c, t) && !fe_p_lookup(c, t->s, t->len)) {
        static const char *const kw[] = {"sizeof", "new", "delete", "throw", "return", "typename", "operator",
                                         "asm", "__asm__", "co_return", "else"};
        bool keyword = false;
        for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++)
            keyword |= fe_tok_is(t, kw[i]);
        fe_tok *u = fe_p_peek_at(c, 2);
        if (!keyword && (fe_tok_is(u, "=") || fe_tok_is(u, ";") || fe_tok_is(u, ",") || fe_tok_is(u, "[") ||
                         fe_tok_is(u, "("))) {
            fe_error(c, t, CVM_SYNTAX, "unknown type name '%.*s'", (int)t->len, t->s);
            return fe_p_new_node(c, N_EMPTY, t);
        }
    }
    if (starts_decl(c)) {
        unsigned st = 0;
        fe_type *ty = fe_p_declspec(c, &st, NULL);
        if (st & FE_S_TYPEDEF) {
            declaration(c, ty, st);
            return fe_p_new_node(c, N_EMPTY, t);
        }
        return declaration(c, ty, st);
    }
    fe_node *n = fe_p_new_node(c, N_EXPR, t);
    n->a = fe_p_expr(c);
    fe_p_expect(c, ";");
    return n;
}

static fe_node *compound_body(fe_ctx *c);

fe_node *fe_p_compound(fe_ctx *c)
{
    const uint16_t using_on = c->using_on; /* a block's using-directives end with it */
    const uint32_t decl_on = c->decl_on;
    c->body_depth++;
    fe_node *n = compound_body(c);
    c->body_depth--;
    c->using_on = using_on;
    c->decl_on = decl_on;
    return n;
}

static fe_node *compound_body(fe_ctx *c)
{
    fe_node *n = fe_p_new_node(c, N_BLOCK, fe_p_peek(c));
    fe_p_expect(c, "{");
    fe_tname *saved = c->tnames;
    fe_node head = {0}, *tail = &head;
    while (!c->err && !fe_p_is(c, "}") && fe_p_peek(c)->kind != TK_EOF)
        tail = tail->next = fe_p_stmt(c);
    fe_p_expect(c, "}");
    c->tnames = saved;
    n->args = head.next;
    return n;
}

