/*
 * parse_cxx.c - the C++ constructs of the parser beyond C and structs:
 * lambdas (closure types whose operator() is the body), static constexpr
 * members (S::N), std::numeric_limits<T>, obj.f<args>() of member
 * templates, range-based for (as an indexed for), and constexpr functions
 * in constant expressions. Shares parse.c's cursor through parse.h.
 */
#include "parse_short.h"

#include <float.h>
#include <math.h>
#include <string.h>

static fe_node *new_bin(fe_ctx *c, int op, fe_tok *t, fe_node *a, fe_node *b) { return fe_p_new_bin(c, op, t, a, b); }

/*
 * The body of a constexpr function run at compile time: integer locals
 * (the ce_ slots, innermost last), assignments and ++/--, if, for, while,
 * do, break, continue, return. Anything else (memory, switch, floats) makes
 * the call not a constant. Values are integers kept in their types' range
 * (const_eval.c); the statement count is bounded so a loop that does not
 * end cannot hang the compiler.
 */
enum { CE_NEXT, CE_RETURN, CE_BREAK, CE_CONTINUE, CE_FAIL };
#define CE_MAX_STEPS 1000000
/* Statements of all evaluations of one compile: 200 calls just under the
 * bound above took 51 s under ASan (the fuzzer's). */
#define CE_MAX_TOTAL 10000000

/* The slot of local or parameter e, or -1. */
static int ce_slot(fe_ctx *c, fe_node *e)
{
    if (!e || e->kind != N_IDENT)
        return -1;
    for (int i = c->ce_n - 1; i >= 0; i--)
        if (strcmp(c->ce_names[i], e->name) == 0)
            return i;
    return -1;
}

/* A new local or parameter of type ty (NULL: auto, the value's kind k). */
static void ce_bind(fe_ctx *c, const char *name, const fe_type *ty, int64_t v, fe_kind k)
{
    const fe_kind kind = ty && (fe_is_int((fe_type *)ty) || ty->kind == TY_BOOL) ? ty->kind : k;
    c->ce_names[c->ce_n] = name;
    c->ce_kinds[c->ce_n] = kind;
    c->ce_vals[c->ce_n++] = fe_const_norm(v, kind);
}

static bool ce_expr(fe_ctx *c, fe_node *e, int64_t *out);

/* Does e change a variable (x = e, ++x, x--, a, b) somewhere inside? */
static bool has_effects(const fe_node *e)
{
    if (!e)
        return false;
    switch (e->kind) {
    case N_ASSIGN: case N_PREINC: case N_PREDEC: case N_POSTINC: case N_POSTDEC: case N_COMMA:
        return true;
    case N_BIN: case N_COND:
        return has_effects(e->a) || has_effects(e->b) || has_effects(e->c);
    case N_UNARY: case N_CAST:
        return has_effects(e->a);
    default:
        return false;
    }
}

/*
 * e's value and integer type where its operands change variables
 * (`while (e-- > 0)`, `if ((n >>= 1) != 0)`): && || and ?: evaluate as C++
 * does, in order and short-circuited; another operator's operands are
 * evaluated left to right into temporaries, then the operator over them.
 */
static bool ce_value(fe_ctx *c, fe_node *e, int64_t *out, fe_kind *kind)
{
    if (!has_effects(e))
        return fe_const_eval_kind(c, e, out, kind);
    if (e->kind == N_ASSIGN || e->kind == N_PREINC || e->kind == N_PREDEC || e->kind == N_POSTINC ||
        e->kind == N_POSTDEC) {
        const int i = ce_slot(c, e->a);
        *kind = i >= 0 ? c->ce_kinds[i] : TY_I64;
        return ce_expr(c, e, out);
    }
    if (e->kind == N_COMMA)
        return ce_value(c, e->a, out, kind) && ce_value(c, e->b, out, kind);
    if (e->kind == N_COND) { /* the picked operand, in the type both make when the other is pure */
        int64_t cond;
        fe_kind ck;
        if (!ce_value(c, e->a, &cond, &ck))
            return false;
        fe_node *pick = cond ? e->b : e->c, *other = cond ? e->c : e->b;
        if (has_effects(other))
            return ce_value(c, pick, out, kind);
        fe_node copy = *e, one = *e, val = *pick;
        if (!ce_value(c, pick, out, kind) || c->ce_n == 64)
            return false;
        const int base = c->ce_n;
        ce_bind(c, "\x01" "p", NULL, *out, *kind);
        val.kind = N_IDENT;
        val.name = "\x01" "p";
        one.kind = N_INT; /* the condition as it came out: true for the picked b */
        one.ival = cond != 0;
        one.ty = NULL;
        copy.a = &one;
        if (cond)
            copy.b = &val;
        else
            copy.c = &val;
        const bool good = fe_const_eval_kind(c, &copy, out, kind);
        c->ce_n = base;
        return good;
    }
    if (e->kind == N_BIN && (e->op == FE_OP2('&', '&') || e->op == FE_OP2('|', '|'))) {
        if (!ce_value(c, e->a, out, kind))
            return false;
        const bool a = *out != 0;
        if (a == (e->op == FE_OP2('|', '|'))) {
            *out = a;
        } else {
            if (!ce_value(c, e->b, out, kind))
                return false;
            *out = *out != 0;
        }
        *kind = TY_BOOL;
        return true;
    }
    static const char *const temp[2] = {"\x01" "a", "\x01" "b"}; /* names no source can write */
    const int base = c->ce_n;
    fe_node copy = *e, names[2];
    fe_node **slot[2] = {&copy.a, &copy.b};
    bool good = true;
    for (int k = 0; k < 2 && good; k++) {
        int64_t v;
        fe_kind vk;
        if (!*slot[k] || !(good = c->ce_n < 64 && ce_value(c, *slot[k], &v, &vk)))
            continue;
        names[k] = **slot[k];
        names[k].kind = N_IDENT;
        names[k].name = temp[k];
        ce_bind(c, temp[k], NULL, v, vk);
        *slot[k] = &names[k];
    }
    good = good && fe_const_eval_kind(c, &copy, out, kind);
    c->ce_n = base;
    return good;
}

/* an expression with the side effects a constexpr body has (x = e, x += e, ++x, a, b) */
static bool ce_expr(fe_ctx *c, fe_node *e, int64_t *out)
{
    if (!e)
        return false;
    if (e->kind == N_COMMA)
        return ce_expr(c, e->a, out) && ce_expr(c, e->b, out);
    if (e->kind == N_ASSIGN) { /* the value converted to the variable's type */
        int i = ce_slot(c, e->a);
        int64_t v;
        fe_kind k;
        fe_node bin = *e; /* x op= y as x op y, y's changes made (r *= n--) */
        bin.kind = N_BIN;
        if (i < 0 || !(e->op == '=' ? ce_expr(c, e->b, &v) : ce_value(c, &bin, &v, &k)))
            return false;
        c->ce_vals[i] = *out = fe_const_norm(v, c->ce_kinds[i]);
        return true;
    }
    if (e->kind == N_PREINC || e->kind == N_PREDEC || e->kind == N_POSTINC || e->kind == N_POSTDEC) {
        int i = ce_slot(c, e->a);
        if (i < 0)
            return false;
        int64_t old = c->ce_vals[i];
        c->ce_vals[i] = fe_const_norm(
            (int64_t)((uint64_t)old + (e->kind == N_PREINC || e->kind == N_POSTINC ? 1u : (uint64_t)-1)), c->ce_kinds[i]);
        *out = e->kind == N_PREINC || e->kind == N_PREDEC ? c->ce_vals[i] : old;
        return true;
    }
    fe_kind k;
    return ce_value(c, e, out, &k);
}

static int ce_stmt(fe_ctx *c, fe_node *s, int64_t *ret);

static int ce_loop(fe_ctx *c, fe_node *s, int64_t *ret)
{
    int64_t v;
    fe_node *cond = s->kind == N_FOR ? s->b : s->a;
    for (bool first = true;; first = false) {
        if (cond && !(s->kind == N_DO && first)) {
            if (!ce_expr(c, cond, &v))
                return CE_FAIL;
            if (!v)
                return CE_NEXT;
        }
        int k = s->d ? ce_stmt(c, s->d, ret) : CE_NEXT;
        if (k == CE_BREAK)
            return CE_NEXT;
        if (k == CE_RETURN || k == CE_FAIL)
            return k;
        if (s->kind == N_FOR && s->c && !ce_expr(c, s->c, &v))
            return CE_FAIL;
    }
}

static int ce_stmt(fe_ctx *c, fe_node *s, int64_t *ret)
{
    int64_t v;
    if (++c->ce_steps > CE_MAX_STEPS)
        return CE_FAIL;
    if (++c->ce_total > CE_MAX_TOTAL) {
        if (c->ce_total == CE_MAX_TOTAL + 1)
            fe_error(c, s->tok, CVM_LIMIT, "constexpr evaluation ran more than %d statements in this file; "
                     "compute the values outside the kernel and pass them in", CE_MAX_TOTAL);
        return CE_FAIL;
    }
    switch (s->kind) {
    case N_BLOCK: {
        int base = c->ce_n, k = CE_NEXT;
        for (fe_node *i = s->args; i && k == CE_NEXT; i = i->next)
            k = ce_stmt(c, i, ret);
        if (s->op != 'D') /* a declaration group has no scope of its own */
            c->ce_n = base;
        return k;
    }
    case N_DECL: {
        fe_kind k = TY_I32;
        if (c->ce_n == 64 || !s->name || (s->ty && !fe_is_int(s->ty) && s->ty->kind != TY_BOOL) ||
            s->storage & (FE_S_STATIC | FE_S_SHARED) || (s->a && !fe_const_eval_kind(c, s->a, &v, &k) &&
                                                          !ce_expr(c, s->a, &v)))
            return CE_FAIL;
        ce_bind(c, s->name, s->ty, s->a ? v : 0, k);
        return CE_NEXT;
    }
    case N_EXPR:
        return ce_expr(c, s->a, &v) ? CE_NEXT : CE_FAIL;
    case N_IF:
        if (!ce_expr(c, s->a, &v))
            return CE_FAIL;
        return v ? ce_stmt(c, s->b, ret) : s->c ? ce_stmt(c, s->c, ret) : CE_NEXT;
    case N_FOR: {
        int base = c->ce_n, k = s->a ? ce_stmt(c, s->a, ret) : CE_NEXT;
        if (k == CE_NEXT)
            k = ce_loop(c, s, ret);
        c->ce_n = base;
        return k;
    }
    case N_WHILE:
    case N_DO:
        return ce_loop(c, s, ret);
    case N_RETURN:
        return s->a && ce_expr(c, s->a, ret) ? CE_RETURN : CE_FAIL;
    case N_BREAK:
        return CE_BREAK;
    case N_CONTINUE:
        return CE_CONTINUE;
    case N_EMPTY:
    case N_STATIC_ASSERT:
        return CE_NEXT;
    default:
        return CE_FAIL;
    }
}

/* f(args) of a constexpr function (cdiv(n, 32) in an array bound): its
 * body run with the arguments' values. */
bool fe_p_const_call(fe_ctx *c, fe_node *e, int64_t *out, fe_kind *kind)
{
    if (e->a->kind != N_IDENT || c->ce_depth >= 16)
        return false;
    fe_node *f = NULL;
    for (int pass = 0; pass < 2 && !f; pass++) /* in a template instance: its own functions, then the module's */
        for (f = pass ? c->ce_funcs : c->funcs; f; f = f->next)
            if (f->body && (f->storage & FE_S_CONSTEXPR) && strcmp(f->name, e->a->name) == 0)
                break;
    if (!f || !f->body || f->body->kind != N_BLOCK)
        return false;
    int64_t vals[16];
    fe_kind kinds[16];
    int n = 0;
    fe_node *p = f->params, *a = e->args;
    for (; p && a; p = p->next, a = a->next) {
        if (n == 16 || !p->name || !fe_const_eval_kind(c, a, &vals[n], &kinds[n]))
            return false;
        n++;
    }
    if (p || a || c->ce_n + n > 64)
        return false;
    int base = c->ce_n;
    p = f->params;
    for (int i = 0; i < n; i++, p = p->next)
        ce_bind(c, p->name, p->ty, vals[i], kinds[i]); /* each argument converted to its parameter's type */
    if (c->ce_depth++ == 0)
        c->ce_steps = 0;
    bool okv = ce_stmt(c, f->body, out) == CE_RETURN;
    c->ce_depth--;
    c->ce_n = base;
    *kind = f->ty && fe_is_int(f->ty) ? f->ty->kind : TY_I64; /* auto: a 64-bit integer */
    *out = fe_const_norm(*out, *kind);
    return okv;
}

/* A lambda's capture list after its '[', through the ']': the default
 * (f->cap_default) and the named captures in f->captures; an
 * init-capture's name is declared for the body (lower_expr.c copies the
 * captures by value where the lambda is evaluated). */
static void capture_list(fe_ctx *c, fe_node *f)
{
    fe_node **link = &f->captures;
    while (!c->err && !accept(c, "]")) {
        fe_tok *at = peek(c);
        if (accept(c, "=")) {
            f->cap_default = '=';
        } else if (is(c, "&") && peek_at(c, 1)->kind != TK_IDENT) {
            next(c);
            f->cap_default = '&';
        } else if (accept(c, "this")) {
            /* the object by reference: `this` is seen as it is */
        } else if (is(c, "*") && fe_tok_is(peek_at(c, 1), "this")) {
            fe_p_unsupported(c, at, "capturing *this by value is not supported in kernels; capture this");
            return;
        } else {
            fe_node *k = new_node(c, N_IDENT, at);
            k->op = accept(c, "&") ? '&' : 0;
            fe_tok *name = expect_ident(c);
            if (c->err)
                return;
            k->name = tok_name(c, name);
            if (is(c, "...")) {
                fe_p_unsupported(c, peek(c), "capturing a parameter pack is not supported in kernels");
                return;
            }
            const bool paren = is(c, "("), brace = is(c, "{");
            if (accept(c, "=") || accept(c, "(") || accept(c, "{")) { /* x = e, x(e), x{e} */
                k->b = fe_p_assign(c);
                if (paren || brace)
                    expect(c, paren ? ")" : "}");
            }
            *link = k;
            link = &k->next;
        }
        if (!accept(c, ",")) {
            expect(c, "]");
            break;
        }
    }
}

/*
 * [captures](params) specifiers -> ret { body }: a closure type (an empty
 * struct) whose one method, operator(), is the body, lowered where it is
 * called with the names of the place the lambda was evaluated: captures
 * by reference are those names themselves, captures by value copies made
 * there (lower_expr.c capture_env).
 */
fe_node *fe_p_lambda(fe_ctx *c)
{
    fe_tok *t = next(c); /* [ */
    fe_node *f = new_node(c, N_FUNC, t);
    fe_tname *saved = c->tnames;
    capture_list(c, f);
    while (accept(c, "__device__") || accept(c, "__host__"))
        ;
    for (fe_node *k = f->captures; k; k = k->next)
        if (k->b)
            fe_p_declare_var(c, k->name, NULL); /* [v = x * 2]: v is the body's */
    f->name = "operator()";
    f->storage = FE_S_DEVICE;
    if (is(c, "("))
        f->params = fe_p_param_list(c);
    for (fe_node *p = f->params; p && !c->err; p = p->next)
        if (p->name)
            fe_p_declare_var(c, p->name, p->ty);
    for (;;) {
        if (accept(c, "mutable"))
            f->is_mutable = true;
        else if (!accept(c, "constexpr") && !accept(c, "noexcept") && !accept(c, "__device__") &&
                 !accept(c, "__host__"))
            break;
    }
    if (accept(c, "->"))
        f->ty = type_name(c); /* else NULL: deduced from the first return */
    if (!is(c, "{")) {
        fe_error(c, peek(c), CVM_SYNTAX, "expected the body of the lambda");
        c->tnames = saved;
        return new_node(c, N_INT, t);
    }
    f->body = fe_p_compound(c);
    c->tnames = saved;
    fe_type *ty = fe_alloc(c, sizeof *ty);
    fe_node *n = new_node(c, N_LAMBDA, t);
    if (!ty || !n)
        return n ? n : new_node(c, N_INT, t);
    ty->kind = TY_STRUCT;
    ty->name = fe_fmt(c, "lambda at %u:%u", t->line, t->col);
    ty->is_lambda = true;
    ty->align = 1;
    fe_struct_layout(ty);
    ty->complete = true;
    ty->methods = f;
    f->owner = ty;
    n->ty = ty;
    return n;
}

/* The static constant `name` of struct st, or of its bases (a nearer one first). */
const fe_tname *fe_static_constant(const fe_type *st, const char *name, size_t len)
{
    const fe_type *root = st->origin ? st->origin : st;
    for (const fe_tname *s = root->statics; s; s = s->next)
        if (strlen(s->name) == len && memcmp(s->name, name, len) == 0)
            return s;
    for (const fe_member *m = st->members; m; m = m->next) {
        const fe_tname *s = m->is_base ? fe_static_constant(m->ty, name, len) : NULL;
        if (s)
            return s;
    }
    return NULL;
}

/* S::name of a static constexpr integer member of struct type st (or of
 * its bases); B::x of a data member of a base: this->B::x. */
fe_node *fe_p_static_member(fe_ctx *c, fe_type *st, fe_tok *name)
{
    fe_type *root = st->origin ? st->origin : st;
    fe_template *mt = root->mtemplates;
    while (mt && (strlen(mt->name) != name->len || memcmp(mt->name, name->s, name->len) != 0))
        mt = mt->next;
    if (is(c, "(") || (mt && is(c, "<"))) { /* Cfg<64>::f(args), S::f<float>(x): a static member function */
        fe_node *n = new_node(c, N_IDENT, name);
        n->name = tok_name(c, name);
        n->ty = st;
        if (is(c, "<")) { /* of a member function template, its arguments named */
            n->targs = fe_alloc(c, sizeof *n->targs * 8);
            n->tvals = fe_alloc(c, sizeof *n->tvals * 8);
            if (n->targs && n->tvals)
                n->ntargs = fe_p_template_args(c, n->targs, n->tvals);
        }
        return n;
    }
    const fe_tname *s = fe_static_constant(st, name->s, name->len);
    if (s && s->value_expr)
        return fe_p_static_value(c, s, name);
    if (s) {
        fe_node *n = new_node(c, N_INT, name);
        n->ival = (uint64_t)s->value;
        n->ty = s->ty;
        return n;
    }
    uint32_t off;
    if (c->body_depth && fe_find_member(st, name->s, name->len, &off)) { /* B::x in a member function */
        fe_node *n = new_node(c, N_ARROW, name), *self = new_node(c, N_THIS, name);
        n->a = self;
        n->name = tok_name(c, name);
        n->owner = st;
        return n;
    }
    fe_error(c, name, CVM_UNSUPPORTED, "'%.*s' is not a static constexpr member of '%s'",
             (int)name->len, name->s, st->name ? st->name : "struct");
    return new_node(c, N_INT, name);
}

/* std::numeric_limits<T>::max() and friends: constants of T. */
fe_node *fe_p_numeric_limits(fe_ctx *c)
{
    fe_tok *at = next(c);
    expect(c, "<");
    fe_type *t = fe_unqual(fe_p_targ_type(c));
    expect(c, ">");
    expect(c, "::");
    fe_tok *m = expect_ident(c);
    if (accept(c, "(")) /* max() or the digits member */
        expect(c, ")");
    if (c->err)
        return new_node(c, N_INT, at);
    bool flt = t->kind == TY_F32, dbl = t->kind == TY_F64;
    const bool count = fe_tok_is(m, "digits") || fe_tok_is(m, "digits10") || fe_tok_is(m, "is_signed") ||
                       fe_tok_is(m, "is_integer"); /* an int (a bool) of any T */
    fe_node *n = new_node(c, (flt || dbl) && !count ? N_FLOAT : N_INT, m);
    n->ty = count ? fe_ty(fe_tok_is(m, "is_signed") || fe_tok_is(m, "is_integer") ? TY_BOOL : TY_I32) : t;
    n->is_float32 = flt && !count;
    unsigned bits = t->size * 8;
    bool sgn = fe_is_signed(t);
    uint64_t umax = bits >= 64 ? ~0ull : (1ull << bits) - 1, smax = umax >> 1;
    if ((flt || dbl) && fe_tok_is(m, "max")) n->fval = flt ? FLT_MAX : DBL_MAX;
    else if ((flt || dbl) && fe_tok_is(m, "min")) n->fval = flt ? FLT_MIN : DBL_MIN;
    else if ((flt || dbl) && fe_tok_is(m, "lowest")) n->fval = flt ? -FLT_MAX : -DBL_MAX;
    else if ((flt || dbl) && fe_tok_is(m, "epsilon")) n->fval = flt ? FLT_EPSILON : DBL_EPSILON;
    else if ((flt || dbl) && fe_tok_is(m, "infinity")) n->fval = HUGE_VAL;
    else if ((flt || dbl) && fe_tok_is(m, "denorm_min")) n->fval = flt ? 1.40129846e-45 : 4.9406564584124654e-324;
    else if (fe_is_int(t) && fe_tok_is(m, "max")) n->ival = sgn ? smax : umax;
    else if (fe_is_int(t) && (fe_tok_is(m, "min") || fe_tok_is(m, "lowest"))) n->ival = sgn ? ~smax : 0;
    else if (fe_tok_is(m, "digits")) /* the mantissa's bits, the value bits of an integer */
        n->ival = flt ? 24 : dbl ? 53 : t->kind == TY_BOOL ? 1 : sgn ? bits - 1 : bits;
    else if (fe_tok_is(m, "digits10")) /* decimal digits kept: floor((digits - 1) log10 2), floor(digits log10 2) */
        n->ival = flt ? 6 : dbl ? 15 : t->kind == TY_BOOL ? 0 : (uint64_t)((sgn ? bits - 1 : bits) * 0.30102999566398120);
    else if (fe_tok_is(m, "is_signed"))
        n->ival = flt || dbl || sgn;
    else if (fe_tok_is(m, "is_integer"))
        n->ival = fe_is_int(t);
    else
        fe_error(c, m, CVM_UNSUPPORTED, "numeric_limits<T>::%.*s is not supported (max, min, lowest, "
                 "epsilon, infinity, denorm_min, digits, digits10, is_signed, is_integer)", (int)m->len, m->s);
    if (n->kind == N_INT && t->kind == TY_BOOL && !count)
        n->ival = fe_tok_is(m, "max");
    return n;
}

/*
 * <type_traits>, built in as numeric_limits is (the struct templates behind
 * them need partial specialization): the value traits below as bool
 * constants (`std::is_same<T, float>::value`, `std::is_same_v<T, float>`,
 * for `if constexpr` and static_assert), and the type traits
 * conditional, remove_const, remove_volatile, remove_cv,
 * remove_reference, remove_cvref, decay and remove_pointer (`::type` or
 * `_t`). Only as std::name (a kernel's own is_same is its own).
 */
static const char *const value_traits[] = {"is_same", "is_floating_point", "is_integral", "is_signed",
                                           "is_unsigned", "is_arithmetic", "is_pointer", "is_const",
                                           "is_void", "is_reference", "is_volatile"};
static const char *const type_traits[] = {"conditional", "remove_const", "remove_volatile", "remove_cv",
                                          "remove_reference", "remove_cvref", "decay", "remove_pointer"};

/* Index of trait name t in list (with suffix "_v" or "_t" when sfx), or -1. */
static int trait_index(const fe_tok *t, const char *const *list, size_t n, const char *sfx, bool *suffixed)
{
    for (size_t i = 0; i < n; i++) {
        const size_t len = strlen(list[i]);
        if (t->len == len && memcmp(t->s, list[i], len) == 0) {
            *suffixed = false;
            return (int)i;
        }
        if (t->len == len + 2 && memcmp(t->s, list[i], len) == 0 && memcmp(t->s + len, sfx, 2) == 0) {
            *suffixed = true;
            return (int)i;
        }
    }
    return -1;
}

/* t is `std::trait` (or `cuda::std::trait`) followed by '<': t - 2 is std. */
static bool std_qualified(fe_ctx *c, const fe_tok *t)
{
    return t >= c->toks + 2 && t + 1 < c->toks + c->ntoks && fe_tok_is(t - 1, "::") && fe_tok_is(t - 2, "std") &&
           fe_tok_is(t + 1, "<");
}

bool fe_p_is_value_trait(fe_ctx *c, const fe_tok *t)
{
    bool sfx;
    return std_qualified(c, t) &&
           trait_index(t, value_traits, sizeof value_traits / sizeof value_traits[0], "_v", &sfx) >= 0;
}

bool fe_p_is_enable_if(fe_ctx *c, const fe_tok *t)
{
    return std_qualified(c, t) && (fe_tok_is(t, "enable_if") || fe_tok_is(t, "enable_if_t"));
}

bool fe_p_is_type_trait(fe_ctx *c, const fe_tok *t)
{
    bool sfx;
    return std_qualified(c, t) &&
           trait_index(t, type_traits, sizeof type_traits / sizeof type_traits[0], "_t", &sfx) >= 0;
}

/* `::value` or `::type` after trait `at`'s argument list. */
static void trait_member(fe_ctx *c, const fe_tok *at, const char *want)
{
    expect(c, "::");
    fe_tok *m = expect_ident(c);
    if (!c->err && !fe_tok_is(m, want))
        fe_error(c, m, CVM_UNSUPPORTED, "std::%.*s<...>::%.*s: only ::%s is supported", (int)at->len, at->s,
                 (int)m->len, m->s, want);
}

/* is_same: the same type with the same qualifiers, at every level of a
 * pointer or array (fe_same_type looks through the pointee's). */
static bool exact_same(const fe_type *a, const fe_type *b)
{
    if (a->is_const != b->is_const || a->is_volatile != b->is_volatile || a->is_ref != b->is_ref)
        return false;
    if (a->kind == TY_PTR && b->kind == TY_PTR)
        return exact_same(a->base, b->base);
    if (a->kind == TY_ARRAY && b->kind == TY_ARRAY)
        return a->len == b->len && exact_same(a->base, b->base);
    return fe_same_type(a, b);
}

fe_node *fe_p_value_trait(fe_ctx *c)
{
    fe_tok *at = next(c);
    bool v = false;
    const int k = trait_index(at, value_traits, sizeof value_traits / sizeof value_traits[0], "_v", &v);
    expect(c, "<");
    fe_type *a = fe_p_targ_type(c), *b = NULL;
    if (k == 0) {
        expect(c, ",");
        b = fe_p_targ_type(c);
    }
    expect(c, ">");
    if (!v)
        trait_member(c, at, "value");
    fe_node *n = new_node(c, N_BOOL, at);
    if (c->err || !a || (k == 0 && !b))
        return n;
    const fe_type *u = fe_unqual(a);
    const bool flt = u->kind == TY_F32 || u->kind == TY_F64;
    const bool integral = fe_is_int(u) || u->kind == TY_BOOL;
    bool r = false;
    switch (k) {
    case 0: r = exact_same(a, b); break;
    case 1: r = flt && !a->is_ref; break;
    case 2: r = integral && !a->is_ref; break;
    case 3: r = !a->is_ref && (flt || (integral && fe_is_signed(u))); break;
    case 4: r = !a->is_ref && integral && !fe_is_signed(u); break;
    case 5: r = !a->is_ref && (flt || integral); break;
    case 6: r = !a->is_ref && u->kind == TY_PTR; break;
    case 7: r = !a->is_ref && a->is_const; break;
    case 8: r = u->kind == TY_VOID; break;
    case 9: r = a->is_ref; break;
    default: r = !a->is_ref && a->is_volatile; break;
    }
    n->ival = r;
    return n;
}

/* A copy of t with the qualifiers or reference cleared as asked. */
static fe_type *requalify(fe_ctx *c, fe_type *t, bool drop_const, bool drop_volatile, bool drop_ref)
{
    if ((!drop_const || !t->is_const) && (!drop_volatile || !t->is_volatile) && (!drop_ref || !t->is_ref))
        return t;
    fe_type *q = fe_alloc(c, sizeof *q);
    if (!q)
        return t;
    *q = *t;
    if (drop_const)
        q->is_const = false;
    if (drop_volatile)
        q->is_volatile = false;
    if (drop_ref)
        q->is_ref = false;
    return q;
}

fe_type *fe_p_type_trait(fe_ctx *c)
{
    fe_tok *at = next(c);
    bool t_form = false;
    const int k = trait_index(at, type_traits, sizeof type_traits / sizeof type_traits[0], "_t", &t_form);
    fe_type *targs[8] = {0};
    int64_t tvals[8] = {0};
    const int n = fe_p_template_args(c, targs, tvals);
    if (!t_form)
        trait_member(c, at, "type");
    const int want = k == 0 ? 3 : 1;
    if (!c->err && (n != want || (k == 0 ? targs[0] || !targs[1] || !targs[2] : !targs[0]))) {
        fe_error(c, at, CVM_SYNTAX, k == 0 ? "std::conditional takes a constant and two types"
                                           : "std::%.*s takes one type", (int)at->len, at->s);
        return fe_ty(TY_I32);
    }
    if (c->err)
        return fe_ty(TY_I32);
    fe_type *t = targs[0];
    switch (k) {
    case 0: return tvals[0] ? targs[1] : targs[2];
    case 1: return requalify(c, t, true, false, false);
    case 2: return requalify(c, t, false, true, false);
    case 3: return requalify(c, t, true, true, false);
    case 4: return requalify(c, t, false, false, true);
    case 5: return requalify(c, t, true, true, true);
    case 6: /* decay: no reference or qualifiers; an array is a pointer to its element */
        t = requalify(c, t, true, true, true);
        return t->kind == TY_ARRAY ? fe_ptr_to(c, t->base) : t;
    default: return t->kind == TY_PTR ? t->base : t;
    }
}

/* At '<' after obj.name: true when a template argument list closes before
 * a '(' (obj.f<3>(), obj.f<float, 2>(x)) rather than a comparison. */
bool fe_p_member_targs_ahead(fe_ctx *c)
{
    int depth = 0;
    for (uint32_t k = 0; k < 64; k++) {
        fe_tok *t = peek_at(c, k);
        if (t->kind == TK_EOF || fe_tok_is(t, ";") || fe_tok_is(t, "{") || fe_tok_is(t, "&&") ||
            fe_tok_is(t, "||") || fe_tok_is(t, "?") || fe_tok_is(t, "="))
            return false;
        depth += fe_tok_is(t, "<") - fe_tok_is(t, ">");
        if (fe_tok_is(t, ">>"))
            depth -= 2;
        if (depth <= 0)
            return fe_tok_is(peek_at(c, k + 1), "(");
    }
    return false;
}

/* One declarator without an initializer (range-based for): `auto &x` keeps its '&' in op. */
static fe_node *declaration_head(fe_ctx *c, fe_type *base, unsigned storage)
{
    fe_tok *nt = NULL, *at = peek(c);
    fe_type *ty = fe_p_declarator(c, base ? base : fe_ty(TY_VOID), &nt);
    if (!nt) {
        if (!c->err)
            fe_error(c, at, CVM_SYNTAX, "expected a name in the declaration");
        return NULL;
    }
    fe_node *d = new_node(c, N_DECL, nt);
    d->name = tok_name(c, nt);
    d->ty = base ? ty : NULL;
    d->storage = storage;
    if (!base && ty->is_ref)
        d->op = '&';
    fe_p_shadow(c, d->name);
    return d;
}

/* After `for (`: a ':' at depth 0 before the ')' makes a range-based for. */
bool fe_p_range_for_ahead(fe_ctx *c)
{
    int depth = 0;
    for (uint32_t k = 0; k < 256; k++) {
        fe_tok *t = peek_at(c, k);
        if (t->kind == TK_EOF || (depth == 0 && (fe_tok_is(t, ";") || fe_tok_is(t, "?"))))
            return false;
        if (fe_tok_is(t, "(") || fe_tok_is(t, "[") || fe_tok_is(t, "{"))
            depth++;
        else if (fe_tok_is(t, ")") || fe_tok_is(t, "]") || fe_tok_is(t, "}"))
            if (--depth < 0)
                return false;
        if (depth == 0 && fe_tok_is(t, ":"))
            return true;
    }
    return false;
}

/*
 * for (T x : arr) body, over an array whose size the type gives, as
 *   for (int __range_i = 0; __range_i < sizeof arr / sizeof arr[0]; ++__range_i) { T x = arr[__range_i]; body }
 * (the range expression is evaluated at each step; the 'R' sizeof checks it is an array).
 */
void fe_p_range_for(fe_ctx *c, fe_node *n)
{
    fe_tok *t = n->tok;
    unsigned st = 0;
    fe_type *base = fe_p_declspec(c, &st, NULL);
    fe_node *var = declaration_head(c, base, st);
    expect(c, ":");
    fe_node *list = NULL; /* for (int v : {1, 2, 3}): over an array of the list's values */
    fe_tok *lt = peek(c);
    if (is(c, "{")) {
        if (!var || !var->ty || fe_is_auto(var->ty)) {
            fe_error(c, lt, CVM_UNSUPPORTED, "a range-based for over a braced list needs the element's "
                     "type: for (int v : {1, 2, 3}), not auto");
            return;
        }
        list = new_node(c, N_DECL, lt);
        list->name = "__range_list";
        list->a = fe_p_initializer(c);
        fe_type *elem = fe_qualified(c, fe_no_ref(c, var->ty), true, false);
        list->ty = fe_p_sized_by_init(c, fe_array_of(c, elem, 0), list->a);
    }
    fe_node *range = list ? new_node(c, N_IDENT, lt) : fe_p_expr(c);
    if (list)
        range->name = list->name;
    expect(c, ")");
    fe_node *idx = new_node(c, N_DECL, t), *zero = new_node(c, N_INT, t);
    idx->name = "__range_i";
    idx->ty = fe_ty(TY_I32);
    idx->a = zero;
    n->a = new_node(c, N_BLOCK, t);
    n->a->op = 'D';
    n->a->args = idx;
    if (list) { /* declared before the index, in the loop's own block */
        list->next = idx;
        n->a->args = list;
    }
    fe_node *i1 = new_node(c, N_IDENT, t), *i2 = new_node(c, N_IDENT, t), *i3 = new_node(c, N_IDENT, t);
    i1->name = i2->name = i3->name = "__range_i";
    fe_node *all = new_node(c, N_SIZEOF, t), *one = new_node(c, N_SIZEOF, t), *first = new_node(c, N_INDEX, t);
    all->a = range;
    all->op = 'R';
    first->a = range;
    first->b = new_node(c, N_INT, t);
    one->a = first;
    n->b = new_bin(c, '<', t, i1, new_bin(c, '/', t, all, one));
    n->c = new_node(c, N_PREINC, t);
    n->c->a = i2;
    fe_node *elem = new_node(c, N_INDEX, t);
    elem->a = range;
    elem->b = i3;
    if (var)
        var->a = elem;
    fe_node *body = new_node(c, N_BLOCK, t);
    body->args = var;
    if (var)
        var->next = fe_p_stmt(c);
    n->d = body;
}
