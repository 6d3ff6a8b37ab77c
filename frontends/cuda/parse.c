/*
 * parse.c - recursive descent from tokens to the AST, for the C++ subset
 * of docs/cuda.md: declarations with CUDA qualifiers, structs, enums,
 * typedef/using, namespaces (flattened), templates (kept as token ranges
 * and re-parsed per instance by fe_instantiate), expressions; statements and
 * local declarations are in parse_stmt.c, structs and templates in
 * parse_decl.c, the newer C++ constructs in parse_cxx.c, module-scope
 * declarations and function definitions in parse_top.c.
 *
 * Names that denote types or constants (typedefs, struct tags, enumerators,
 * template arguments, const integers with constant initializers) live on a
 * stack of fe_tname; a block pops what it pushed. Variables and functions
 * are resolved later, by the lowering; a variable's entry on the stack only
 * hides outer names and records its declared type, for decltype.
 */
#include "parse.h"

#include <stdio.h>
#include <float.h>
#include <math.h>
#include <string.h>

static fe_node *expr(fe_ctx *c);
static fe_node *assign(fe_ctx *c);
static fe_type *declspec(fe_ctx *c, unsigned *storage, uint32_t *launch_bound);
static fe_type *declarator(fe_ctx *c, fe_type *ty, fe_tok **name_tok);

/* ---- tokens ---- */

bool fe_tok_is(const fe_tok *t, const char *s)
{
    size_t n = strlen(s);
    return (t->kind == TK_PUNCT || t->kind == TK_IDENT) && t->len == n && memcmp(t->s, s, n) == 0;
}

static fe_tok *peek(fe_ctx *c) { return c->err || c->pos >= c->ntoks ? &c->eof : &c->toks[c->pos]; }
static fe_tok *peek_at(fe_ctx *c, uint32_t k)
{
    return c->err || c->pos + k >= c->ntoks ? &c->eof : &c->toks[c->pos + k];
}
static fe_tok *next(fe_ctx *c)
{
    fe_tok *t = peek(c);
    if (t->kind != TK_EOF)
        c->pos++;
    return t;
}
static bool is(fe_ctx *c, const char *s) { return fe_tok_is(peek(c), s); }
static bool accept(fe_ctx *c, const char *s)
{
    if (!is(c, s))
        return false;
    c->pos++;
    return true;
}
static fe_tok *expect(fe_ctx *c, const char *s)
{
    fe_tok *t = peek(c);
    if (!fe_tok_is(t, s)) {
        if (t->kind == TK_EOF && !c->err)
            fe_error(c, c->ntoks ? &c->toks[c->ntoks - 1] : NULL, CVM_SYNTAX,
                     "expected '%s' at end of input", s);
        else if (strcmp(s, ";") == 0 && c->pos > 0 && c->pos <= c->ntoks &&
                 (c->toks[c->pos - 1].line != t->line || c->toks[c->pos - 1].file != t->file)) {
            fe_tok after = c->toks[c->pos - 1]; /* just past the statement's last token */
            after.col += after.len;
            fe_error(c, &after, CVM_SYNTAX, "expected ';' after the expression");
        } else
            fe_error(c, t, CVM_SYNTAX, "expected '%s' before '%.*s'", s, (int)t->len, t->s);
        return t;
    }
    c->pos++;
    return t;
}
static const char *tok_name(fe_ctx *c, const fe_tok *t) { return fe_strndup(c, t->s, t->len); }
static fe_tok *expect_ident(fe_ctx *c)
{
    fe_tok *t = peek(c);
    if (t->kind != TK_IDENT) {
        fe_error(c, t, CVM_SYNTAX, "expected an identifier before '%.*s'", (int)t->len, t->s);
        return t;
    }
    c->pos++;
    return t;
}

static fe_node *new_node(fe_ctx *c, fe_nk kind, fe_tok *tok)
{
    fe_node *n = fe_alloc(c, sizeof *n);
    if (!n) {
        static fe_node dummy;
        memset(&dummy, 0, sizeof dummy);
        dummy.kind = N_EMPTY;
        dummy.tok = &c->eof;
        return &dummy;
    }
    n->kind = kind;
    n->tok = tok;
    n->using_on = c->using_on;
    n->decl_on = c->decl_on;
    return n;
}

static void unsupported(fe_ctx *c, fe_tok *t, const char *what)
{
    fe_error(c, t, CVM_UNSUPPORTED, "%s", what);
}

/* ---- names of types and constants ---- */

static fe_tname *lookup(fe_ctx *c, const char *s, size_t n)
{
    for (fe_tname *t = c->tnames; t; t = t->next)
        if (strlen(t->name) == n && memcmp(t->name, s, n) == 0)
            return t;
    return NULL;
}

/* The declared type of the array that e names (a variable, a member, an
 * element of an array of arrays), known while parsing; else NULL and the
 * lowering types e (a parameter `float a[5]` is a pointer: its declared
 * type says so). */
static fe_type *array_named(fe_ctx *c, const fe_node *e)
{
    if (e->kind == N_INDEX) {
        fe_type *t = array_named(c, e->a);
        return t && t->base->kind == TY_ARRAY ? t->base : NULL;
    }
    if (e->kind != N_IDENT || e->qual || !e->name)
        return NULL;
    const fe_tname *v = lookup(c, e->name, strlen(e->name));
    const fe_type *t = v ? v->var_ty : NULL;
    return t && t->kind == TY_ARRAY && t->len && !t->is_ref && !fe_is_auto(t) && !fe_has_decltype(t)
               ? v->var_ty : NULL;
}

static fe_tname *push_tname(fe_ctx *c, const char *name, fe_type *ty, bool is_value, int64_t v)
{
    fe_tname *t = fe_alloc(c, sizeof *t);
    if (!t)
        return NULL;
    t->name = name;
    t->ty = ty;
    t->is_value = is_value;
    t->value = v;
    t->next = c->tnames;
    c->tnames = t;
    return t;
}

/* A variable declaration hides outer type names and constants of its
 * name, and records its declared type for decltype(name) (declspec). */
static fe_tname *declare_var(fe_ctx *c, const char *name, fe_type *ty)
{
    fe_tname *t = push_tname(c, name, NULL, false, 0);
    if (t)
        t->var_ty = ty;
    return t;
}

static void shadow(fe_ctx *c, const char *name) { (void)declare_var(c, name, NULL); }

fe_template *fe_find_template(fe_ctx *c, const char *name)
{
    for (fe_template *t = c->templates; t; t = t->next)
        if (strcmp(t->name, name) == 0)
            return t;
    return NULL;
}

static const char *const type_keywords[] = {
    "void", "bool", "char", "short", "int", "long", "signed", "unsigned", "float", "double",
    "struct", "class", "union", "enum", "const", "volatile", "typename", "auto", "__half",
    "__nv_bfloat16", "__restrict__", "constexpr", "static", "extern", "inline",
    "__forceinline__", "__noinline__", "__device__", "__global__", "__host__", "__shared__",
    "__constant__", "__launch_bounds__", "__align__", "register", "__inline__", "typedef",
    "decltype",
    "alignas", "__managed__", "__grid_constant__",
};

static bool is_typename(fe_ctx *c, fe_tok *t);

/* Struct s's member type (typedef, using) named by token nt, its own or
 * a base's (a nearer one first), or NULL. */
static fe_type *member_type_of(const fe_type *s, const fe_tok *nt)
{
    for (fe_tname *m = (s->origin ? s->origin : s)->mtypes; m; m = m->next)
        if (strlen(m->name) == nt->len && memcmp(m->name, nt->s, nt->len) == 0)
            return m->ty;
    for (const fe_member *b = s->members; b; b = b->next) {
        fe_type *t = b->is_base ? member_type_of(b->ty, nt) : NULL;
        if (t)
            return t;
    }
    return NULL;
}

/* The member type named at peek_at(c, k) when a struct qualifies it
 * (S::type, T::value_type with T bound to a struct), else NULL. */
static fe_type *member_type_at(fe_ctx *c, uint32_t k)
{
    if (k < 2 || !fe_tok_is(peek_at(c, k - 1), "::"))
        return NULL;
    fe_tok *q = peek_at(c, k - 2), *nt = peek_at(c, k);
    fe_tname *qn = q->kind == TK_IDENT && nt->kind == TK_IDENT ? lookup(c, q->s, q->len) : NULL;
    fe_type *s = qn && !qn->is_value ? qn->ty : NULL;
    return s && s->kind == TY_STRUCT ? member_type_of(s, nt) : NULL;
}

/* Does struct template tp's definition declare a type named like nt
 * (using nt =, typedef ... nt;, struct nt)? */
static bool template_declares_type(fe_ctx *c, const fe_template *tp, const fe_tok *nt)
{
    for (uint32_t i = tp->tok_begin + 1; i + 1 < tp->tok_end && i + 1 < c->ntoks; i++) {
        const fe_tok *q = &c->toks[i];
        if (q->kind != TK_IDENT || q->len != nt->len || memcmp(q->s, nt->s, nt->len) != 0)
            continue;
        if ((fe_tok_is(q - 1, "using") && fe_tok_is(q + 1, "=")) || fe_tok_is(q - 1, "struct") ||
            fe_tok_is(q - 1, "class"))
            return true;
        for (const fe_tok *b = q - 1; fe_tok_is(q + 1, ";") && b > c->toks + tp->tok_begin; b--) {
            if (fe_tok_is(b, ";") || fe_tok_is(b, "{") || fe_tok_is(b, "}"))
                break;
            if (fe_tok_is(b, "typedef"))
                return true;
        }
    }
    return false;
}

/* Is the (possibly qualified: Outer::Name) name at peek_at(c, k) a type?
 * Tmpl<args>::name is one only where the template declares that member
 * type: (Cfg<4>::kTile + 1) is an expression. */
static bool typename_at(fe_ctx *c, uint32_t k)
{
    if (fe_tok_is(peek_at(c, k), "::") && peek_at(c, k + 1)->kind == TK_IDENT)
        k++; /* ::P */
    while (peek_at(c, k)->kind == TK_IDENT && fe_tok_is(peek_at(c, k + 1), "::"))
        k += 2;
    const fe_tok *t = peek_at(c, k);
    fe_tname *n = t->kind == TK_IDENT && fe_tok_is(peek_at(c, k + 1), "<") ? lookup(c, t->s, t->len) : NULL;
    const fe_template *tp = n && !n->ty && !n->is_value ? fe_find_template(c, n->name) : NULL;
    if (tp && tp->is_struct && !tp->is_alias) {
        uint32_t j = k + 1;
        for (int depth = 0; peek_at(c, j)->kind != TK_EOF; j++) { /* to the '>' closing the arguments */
            const fe_tok *q = peek_at(c, j);
            if (fe_tok_is(q, ";") || fe_tok_is(q, "{"))
                break;
            depth += fe_tok_is(q, "<") + fe_tok_is(q, "(") - fe_tok_is(q, ">") - fe_tok_is(q, ")") -
                     2 * fe_tok_is(q, ">>");
            if (depth <= 0)
                break;
        }
        if (fe_tok_is(peek_at(c, j + 1), "::") && peek_at(c, j + 2)->kind == TK_IDENT &&
            !fe_tok_is(peek_at(c, j + 3), "::"))
            return template_declares_type(c, tp, peek_at(c, j + 2));
    }
    return is_typename(c, peek_at(c, k)) || member_type_at(c, k);
}

static bool is_typename(fe_ctx *c, fe_tok *t)
{
    if (t->kind != TK_IDENT)
        return false;
    if (fe_p_is_type_trait(c, t) || fe_p_is_enable_if(c, t))
        return true;
    for (size_t i = 0; i < sizeof type_keywords / sizeof type_keywords[0]; i++)
        if (fe_tok_is(t, type_keywords[i]))
            return true;
    fe_tname *n = lookup(c, t->s, t->len);
    if (n && !n->ty && !n->is_value && t >= c->toks && t + 1 < c->toks + c->ntoks &&
        fe_tok_is(t + 1, "<")) { /* a struct template's name */
        fe_template *tp = fe_find_template(c, n->name);
        return tp && tp->is_struct;
    }
    if (n && n->ty && n->ty->tmpl && t >= c->toks && t + 1 < c->toks + c->ntoks && fe_tok_is(t + 1, "<"))
        return true; /* Name<...> inside the template's own body */
    if (n && n->ty && n->ty->cg == CG_FAMILY) /* plus<int>, thread_block_tile<32>; else a plain name */
        return t >= c->toks && t + 1 < c->toks + c->ntoks && fe_tok_is(t + 1, "<");
    return n && n->ty && !n->is_value;
}

/* ---- constant expressions ---- */

static uint32_t const_dim(fe_ctx *c, fe_tok *at)
{
    fe_node *e = assign(c);
    int64_t v = 0;
    if (!c->err && fe_const_eval(c, e, &v) && v > (1 << 28)) {
        fe_error(c, at, CVM_LIMIT, "array size %lld is more than 2^28 elements (the compiler's limit)", (long long)v);
        return 1;
    }
    if (!c->err && (!fe_const_eval(c, e, &v) || v <= 0)) {
        fe_error(c, at, CVM_SYNTAX, "array size must be a positive integer constant");
        return 1;
    }
    return (uint32_t)v;
}

/* ---- types ---- */

static int template_args(fe_ctx *c, fe_type **targs, int64_t *tvals);
static fe_type *type_name(fe_ctx *c);

/* thread_block_tile<N> (family 0) or plus<T>, less<T>, ... (1..6) */
static fe_type *cg_template_type(fe_ctx *c, uint32_t family, fe_tok *at)
{
    fe_type *targs[8];
    int64_t tvals[8];
    int n = template_args(c, targs, tvals);
    if (family == 0) {
        int64_t v = tvals[0];
        if (n != 1 || targs[0] || v < 1 || v > 32 || (v & (v - 1))) {
            fe_error(c, at, CVM_UNSUPPORTED, "thread_block_tile<N> needs N a power of two up to 32");
            return fe_ty(TY_I32);
        }
        return fe_cg_type(c, CG_TILE, (uint32_t)v, NULL);
    }
    if (n != 1 || !targs[0] || !fe_is_arith(targs[0])) {
        fe_error(c, at, CVM_SYNTAX, "a cooperative_groups operator takes one arithmetic type");
        return fe_ty(TY_I32);
    }
    return fe_cg_type(c, CG_PLUS + (int)family - 1, 0, targs[0]);
}

/* Skips C++ attributes ([[maybe_unused]], [[likely]]): they change nothing here. */
static void skip_attributes(fe_ctx *c)
{
    while (is(c, "[") && fe_tok_is(peek_at(c, 1), "[")) {
        c->pos += 2;
        while (!c->err && peek(c)->kind != TK_EOF && !(is(c, "]") && fe_tok_is(peek_at(c, 1), "]")))
            next(c);
        expect(c, "]");
        expect(c, "]");
    }
}

/* Declaration specifiers: qualifiers, storage, and the base type. */
static fe_type *declspec(fe_ctx *c, unsigned *storage, uint32_t *launch_bound)
{
    int nshort = 0, nlong = 0, nint = 0;
    bool is_signed = false, is_unsigned = false, is_const = false, is_volatile = false;
    fe_type *ty = NULL;
    fe_kind base = TY_VOID;
    bool have = false;
    for (;;) {
        skip_attributes(c);
        if (!have && !ty && is(c, "::") && peek_at(c, 1)->kind == TK_IDENT && typename_at(c, 1))
            next(c); /* ::P: the file's P */
        fe_tok *t = peek(c);
        if (t->kind != TK_IDENT)
            break;
        if (fe_tok_is(t, "const")) is_const = true;
        else if (fe_tok_is(t, "volatile")) is_volatile = true;
        else if (fe_tok_is(t, "__global__")) *storage |= FE_S_GLOBAL;
        else if (fe_tok_is(t, "__device__") || fe_tok_is(t, "__managed__")) *storage |= FE_S_DEVICE;
        else if (fe_tok_is(t, "__host__")) *storage |= FE_S_HOST;
        else if (fe_tok_is(t, "__shared__")) *storage |= FE_S_SHARED;
        else if (fe_tok_is(t, "__constant__")) *storage |= FE_S_CONSTANT;
        else if (fe_tok_is(t, "extern")) *storage |= FE_S_EXTERN;
        else if (fe_tok_is(t, "static")) *storage |= FE_S_STATIC;
        else if (fe_tok_is(t, "typedef")) *storage |= FE_S_TYPEDEF;
        else if (fe_tok_is(t, "constexpr")) { *storage |= FE_S_CONSTEXPR; is_const = true; }
        else if (fe_tok_is(t, "inline") || fe_tok_is(t, "__forceinline__") ||
                 fe_tok_is(t, "__noinline__") || fe_tok_is(t, "__inline__") ||
                 fe_tok_is(t, "register") || fe_tok_is(t, "__restrict__") ||
                 fe_tok_is(t, "typename") || fe_tok_is(t, "__grid_constant__") ||
                 fe_tok_is(t, "friend")) { /* friend: struct_body parses friends as namespace-scope */
        } else if (fe_tok_is(t, "__launch_bounds__")) {
            next(c);
            expect(c, "(");
            fe_tok *at = peek(c);
            int64_t v = 0;
            uint32_t n = 1;
            if (!fe_const_eval(c, assign(c), &v) || v <= 0 || v > INT32_MAX) {
                if (!c->err)
                    fe_error(c, at, CVM_SYNTAX, "__launch_bounds__ takes the most threads per block, a positive "
                             "integer constant");
            } else {
                n = (uint32_t)v;
            }
            while (accept(c, ","))
                assign(c);
            if (launch_bound)
                *launch_bound = n;
            expect(c, ")");
            continue;
        } else if (fe_tok_is(t, "decltype")) { /* resolved where the lowering knows e's type */
            next(c);
            expect(c, "(");
            if (is(c, "auto")) {
                unsupported(c, t, "decltype(auto) is not supported in kernels; use auto");
                return fe_ty(TY_I32);
            }
            const uint32_t start = c->pos;
            fe_tok *x = peek(c);
            fe_node *e = fe_p_expr(c);
            /* decltype(x) of a variable whose declared type is known here:
             * that type, const and all (a constant's name parses as its
             * value: the token says); else resolved by the lowering */
            fe_tname *v = c->pos == start + 1 && x->kind == TK_IDENT ? lookup(c, x->s, x->len) : NULL;
            expect(c, ")");
            if (v && v->var_ty && !fe_is_auto(v->var_ty) && !fe_has_decltype(v->var_ty) && !v->var_ty->is_ref)
                ty = v->var_ty;
            else
                ty = e ? fe_decltype_of(c, e) : fe_ty(TY_I32);
            have = true;
            continue;
        } else if (fe_tok_is(t, "__align__") || fe_tok_is(t, "alignas")) {
            next(c);
            expect(c, "(");
            assign(c);
            expect(c, ")");
            continue;
        } else if (fe_tok_is(t, "signed")) { is_signed = true; have = true; }
        else if (fe_tok_is(t, "unsigned")) { is_unsigned = true; have = true; }
        else if (fe_tok_is(t, "short")) { nshort++; have = true; }
        else if (fe_tok_is(t, "long")) { nlong++; have = true; }
        else if (fe_tok_is(t, "int")) { nint++; have = true; }
        else if (fe_tok_is(t, "char")) { base = TY_I8; have = true; }
        else if (fe_tok_is(t, "bool")) { base = TY_BOOL; have = true; }
        else if (fe_tok_is(t, "float")) { base = TY_F32; have = true; }
        else if (fe_tok_is(t, "double")) { base = TY_F64; have = true; }
        else if (fe_tok_is(t, "void")) { base = TY_VOID; have = true; ty = fe_ty(TY_VOID); }
        else if (fe_tok_is(t, "auto")) { ty = NULL; have = true; base = TY_VOID; *storage |= 0x10000u; }
        else if (fe_tok_is(t, "struct") || fe_tok_is(t, "class") || fe_tok_is(t, "union")) {
            ty = fe_p_struct_spec(c);
            have = true;
            continue;
        } else if (fe_tok_is(t, "enum")) {
            ty = fe_p_enum_spec(c);
            have = true;
            continue;
        } else if (!have && !ty) {
            /* a type name, possibly qualified (std::size_t, cg::thread_block) */
            uint32_t k = 0;
            while (peek_at(c, k)->kind == TK_IDENT && fe_tok_is(peek_at(c, k + 1), "::"))
                k += 2;
            fe_tok *nt = peek_at(c, k);
            if (fe_p_is_enable_if(c, nt)) {
                unsupported(c, nt, "std::enable_if (SFINAE) is not supported; choose with if constexpr "
                            "or an explicit specialization, check with static_assert");
                return fe_ty(TY_I32);
            }
            if (fe_p_is_type_trait(c, nt)) { /* std::conditional_t<B, T, F> */
                c->pos += k;
                ty = fe_p_type_trait(c);
                have = true;
                continue;
            }
            fe_type *mty = member_type_at(c, k);
            if (mty) { /* S::type, T::value_type */
                c->pos += k;
                ty = mty;
                have = true;
                next(c);
                continue;
            }
            fe_tname *n = nt->kind == TK_IDENT ? lookup(c, nt->s, nt->len) : NULL;
            fe_template *tp = n && !n->is_value && fe_tok_is(peek_at(c, k + 1), "<")
                                  ? (!n->ty ? fe_find_template(c, n->name) : n->ty->tmpl) : NULL;
            if (tp && tp->is_struct) { /* Name<args> */
                c->pos += k + 1;
                fe_type *targs[8];
                int64_t tvals[8];
                int na = template_args(c, targs, tvals);
                ty = fe_instantiate_struct(c, tp, targs, tvals, na, nt);
                have = true;
                fe_type *inner = is(c, "::") && peek_at(c, 1)->kind == TK_IDENT && ty && ty->kind == TY_STRUCT
                                   ? member_type_of(ty, peek_at(c, 1)) : NULL;
                if (inner) { /* Box<float>::value_type */
                    ty = inner;
                    c->pos += 2;
                }
                continue;
            }
            if (!n || !n->ty || n->is_value)
                break;
            if (n->ty->cg == CG_FAMILY) {
                if (!fe_tok_is(peek_at(c, k + 1), "<"))
                    break;
                c->pos += k + 1;
                ty = cg_template_type(c, n->ty->len, nt);
                have = true;
                continue;
            }
            c->pos += k;
            ty = n->ty;
            have = true;
        } else {
            break;
        }
        next(c);
    }
    if (!ty) {
        if (base == TY_I8)
            ty = fe_ty(is_unsigned ? TY_U8 : TY_I8);
        else if (base != TY_VOID)
            ty = fe_ty(base);
        else if (nshort)
            ty = fe_ty(is_unsigned ? TY_U16 : TY_I16);
        else if (nlong)
            ty = fe_ty(is_unsigned ? TY_U64 : TY_I64);
        else if (nint || is_unsigned || is_signed)
            ty = fe_ty(is_unsigned ? TY_U32 : TY_I32);
        else if (*storage & 0x10000u)
            ty = NULL; /* auto: the lowering takes the initializer's type */
        else if (!have) {
            fe_tok *t = peek(c);
            const char *why = t->kind == TK_IDENT ? fe_unsupported_name(t->s, t->len) : NULL;
            if (why)
                unsupported(c, t, why);
            else
                fe_error(c, t, CVM_SYNTAX, "expected a type before '%.*s'", (int)t->len, t->s);
            ty = fe_ty(TY_I32);
        } else {
            ty = fe_ty(TY_VOID);
        }
    }
    if (ty)
        ty = fe_qualified(c, ty, is_const || ty->is_const, is_volatile || ty->is_volatile);
    return ty;
}

/* `operator` followed by an operator's punctuators: a token named
 * "operator+=", "operator[]", "operator()" ... (conversion operators are
 * parsed by struct_body). */
static fe_tok *operator_name(fe_ctx *c)
{
    fe_tok *kw = next(c);
    fe_tok *t = peek(c);
    char text[8];
    size_t n = 0;
    if (t->kind != TK_PUNCT) {
        fe_error(c, t, CVM_SYNTAX, "expected an operator after 'operator'");
        return kw;
    }
    if ((fe_tok_is(t, "(") && fe_tok_is(peek_at(c, 1), ")")) ||
        (fe_tok_is(t, "[") && fe_tok_is(peek_at(c, 1), "]"))) {
        text[n++] = t->s[0];
        text[n++] = peek_at(c, 1)->s[0];
        next(c);
        next(c);
    } else {
        if (t->len > 3) {
            fe_error(c, t, CVM_SYNTAX, "expected an operator after 'operator'");
            return kw;
        }
        memcpy(text, t->s, t->len);
        n = t->len;
        next(c);
    }
    fe_tok *nt = fe_alloc(c, sizeof *nt);
    if (!nt)
        return kw;
    *nt = *kw;
    char *name = fe_fmt(c, "operator%.*s", (int)n, text);
    nt->s = name ? name : "operator";
    nt->len = (uint32_t)strlen(nt->s);
    return nt;
}

/* Declarator: pointers, reference, name, array dimensions. Function
 * declarators are handled by the callers (they see the '('). */
static fe_type *declarator(fe_ctx *c, fe_type *ty, fe_tok **name_tok)
{
    for (;;) {
        if (accept(c, "*")) {
            ty = fe_ptr_to(c, ty);
            for (;;) {
                if (accept(c, "const"))
                    ty = fe_qualified(c, ty, true, ty->is_volatile);
                else if (accept(c, "volatile"))
                    ty = fe_qualified(c, ty, ty->is_const, true);
                else if (!accept(c, "__restrict__") && !accept(c, "__restrict"))
                    break;
            }
        } else if (accept(c, "&")) {
            ty = fe_ref_to(c, ty);
            while (accept(c, "__restrict__") || accept(c, "__restrict"))
                ;
        } else if (accept(c, "&&")) { /* T &&: a reference that also binds a temporary */
            ty = fe_ref_to(c, ty);
            ty->is_rref = true;
        } else {
            break;
        }
    }
    *name_tok = NULL;
    c->decl_owner = NULL;
    c->decl_ns = NULL;
    if (peek(c)->kind == TK_IDENT && !is(c, "operator")) {
        char qual[256];
        size_t ql = 0;
        while (fe_tok_is(peek_at(c, 1), "::") && peek_at(c, 2)->kind == TK_IDENT) {
            c->decl_owner = peek(c); /* S of S::f: a member defined outside its struct */
            ql += (size_t)snprintf(qual + ql, ql < sizeof qual ? sizeof qual - ql : 0, "%s%.*s", ql ? "::" : "",
                                   (int)peek(c)->len, peek(c)->s);
            c->pos += 2; /* a::f: f of namespace a, defined outside it (decl_ns) */
        }
        if (ql && ql < sizeof qual)
            c->decl_ns = fe_p_namespace_of(c, qual);
        if (is(c, "operator")) { /* S::operator+ */
            *name_tok = operator_name(c);
            return ty;
        }
        *name_tok = next(c);
    } else if (is(c, "operator")) {
        *name_tok = operator_name(c);
        return ty;
    } else if (is(c, "(") && fe_tok_is(peek_at(c, 1), "&") && peek_at(c, 2)->kind == TK_IDENT &&
               fe_tok_is(peek_at(c, 3), ")") && fe_tok_is(peek_at(c, 4), "[")) {
        c->pos += 2; /* (&a)[N]: a reference to an array */
        *name_tok = next(c);
        next(c);
        fe_tok *none = NULL;
        fe_type *arr = declarator(c, ty, &none);
        return arr->kind == TY_ARRAY ? fe_ref_to(c, arr) : arr;
    } else if (is(c, "(") && fe_tok_is(peek_at(c, 1), "*")) {
        /* (*p)[N] is a pointer to an array, (*f)(args) a function pointer */
        unsigned i = 2;
        while (i < 16 && !fe_tok_is(peek_at(c, i), ")") && peek_at(c, i)->kind != TK_EOF)
            i++;
        if (fe_tok_is(peek_at(c, i + 1), "["))
            unsupported(c, peek(c), "pointers to arrays (T (*p)[N]) are not supported in kernels; "
                                    "use T *p and index p[i * N + j]");
        else
            unsupported(c, peek(c), "function pointers are not supported in kernels");
        return ty;
    }
    /* dimensions: int a[2][3] is an array of 2 arrays of 3 */
    uint32_t dims[8];
    int nd = 0;
    while (accept(c, "[")) {
        fe_tok *at = peek(c);
        uint32_t d = 0;
        if (!is(c, "]"))
            d = const_dim(c, at);
        expect(c, "]");
        if (nd < 8)
            dims[nd++] = d;
        else
            fe_error(c, at, CVM_LIMIT, "more than 8 array dimensions");
    }
    for (int i = nd; i-- > 0;)
        ty = fe_array_of(c, ty, dims[i]);
    return ty;
}

/* ---- expressions ---- */

static fe_node *new_bin(fe_ctx *c, int op, fe_tok *t, fe_node *a, fe_node *b)
{
    fe_node *n = new_node(c, N_BIN, t);
    n->op = op;
    n->a = a;
    n->b = b;
    return n;
}

static int op_code(const fe_tok *t) { return t->len == 1 ? t->s[0] : FE_OP2(t->s[0], t->s[1]); }

static fe_node *args_list(fe_ctx *c)
{
    fe_node head = {0}, *tail = &head;
    while (!c->err && !is(c, ")")) {
        tail = tail->next = is(c, "{") ? fe_p_initializer(c) : assign(c); /* f({a, b}) */
        if (!accept(c, ","))
            break;
    }
    expect(c, ")");
    return head.next;
}

/* A type in a cast, sizeof or template argument: specifiers + abstract declarator. */
static fe_type *type_name(fe_ctx *c)
{
    unsigned st = 0;
    fe_type *t = declspec(c, &st, NULL);
    fe_tok *nt = NULL;
    t = declarator(c, t ? t : fe_ty(TY_I32), &nt);
    if (nt)
        fe_error(c, nt, CVM_SYNTAX, "unexpected name in a type");
    return t;
}

void fe_p_split(fe_ctx *c, fe_tok *t)
{
    t->s++;
    t->len = 1;
    t->col++;
    if (c->nsplits < 256)
        c->splits[c->nsplits++] = t;
}

void fe_p_unsplit(fe_ctx *c, int mark)
{
    while (c->nsplits > mark) {
        fe_tok *t = c->splits[--c->nsplits];
        t->s--;
        t->len = 2;
        t->col--;
    }
}

/* `<` args `>` of a template-id; returns the count. */
static fe_node *binary(fe_ctx *c, int min_prec);

/* A type as a template argument: one the parser knows now (a decltype the
 * lowering resolves later would compare as no type at all). */
static fe_type *targ_type(fe_ctx *c)
{
    fe_tok *at = peek(c);
    fe_type *t = type_name(c);
    if (fe_has_decltype(t) && !c->err)
        fe_error(c, at, CVM_UNSUPPORTED, "decltype of this expression in a template argument is not "
                 "supported (decltype of a variable declared with its type is); name the type");
    return t;
}

static int template_args(fe_ctx *c, fe_type **targs, int64_t *tvals)
{
    int n = 0;
    expect(c, "<");
    while (!c->err && !is(c, ">") && !is(c, ">>")) {
        if (n == 8) {
            fe_error(c, peek(c), CVM_LIMIT, "more than 8 template arguments");
            break;
        }
        targs[n] = NULL;
        tvals[n] = 0;
        uint32_t q = 0; /* a qualified member type, T::value_type, is a type too */
        while (peek_at(c, q)->kind == TK_IDENT && fe_tok_is(peek_at(c, q + 1), "::"))
            q += 2;
        /* Op::Mul and Cfg<2>::n are values */
        if ((is_typename(c, peek(c)) && !fe_tok_is(peek_at(c, 1), "::") && typename_at(c, 0)) || member_type_at(c, q)) {
            targs[n] = targ_type(c);
        } else {
            /* a constant: any binary operator but '>', which ends the list
             * (`conditional_t<sizeof(T) == 4, ...>`; C++ wants `(a > b)`) */
            fe_tok *at = peek(c);
            const bool in_targs = c->in_targs;
            c->in_targs = true;
            fe_node *e = binary(c, 1);
            c->in_targs = in_targs;
            if (!fe_const_eval(c, e, &tvals[n]) && !c->err)
                fe_error(c, at, CVM_SYNTAX, "template argument must be a type or an integer constant");
        }
        n++;
        if (!accept(c, ","))
            break;
    }
    if (is(c, ">>")) /* split '>>' closing two template lists */
        fe_p_split(c, peek(c));
    else
        expect(c, ">");
    return n;
}

static fe_node *primary(fe_ctx *c)
{
    bool global = false; /* ::f(x): the file's f, not a member's */
    if (is(c, "::") && peek_at(c, 1)->kind == TK_IDENT)
        next(c), global = true;
    uint32_t q = 0;
    while (peek_at(c, q)->kind == TK_IDENT && fe_tok_is(peek_at(c, q + 1), "::"))
        q += 2;
    fe_tok *last = peek_at(c, q);
    bool tmpl_use = false; /* name<...> followed by '(' or a name: a template, not a comparison */
    if (!q && fe_tok_is(peek_at(c, 1), "<")) {
        int depth = 0;
        for (uint32_t k = 1; k < 64; k++) {
            fe_tok *x = peek_at(c, k);
            if (x->kind == TK_EOF || fe_tok_is(x, ";") || fe_tok_is(x, "{"))
                break;
            depth += fe_tok_is(x, "<") - fe_tok_is(x, ">") - 2 * fe_tok_is(x, ">>");
            if (depth <= 0) {
                tmpl_use = fe_tok_is(peek_at(c, k + 1), "(") || peek_at(c, k + 1)->kind == TK_IDENT;
                break;
            }
        }
    }
    const char *why = last->kind == TK_IDENT && (q || tmpl_use) ? fe_unsupported_name(last->s, last->len) : NULL;
    if (why) { /* wmma::fragment<...>, tex2D<float>(...) */
        unsupported(c, last, why);
        return new_node(c, N_INT, last);
    }
    fe_tok *t = peek(c);
    if (q == 2 && fe_tok_is(t, "std") && (fe_tok_is(last, "move") || fe_tok_is(last, "forward"))) {
        /* std::move(x), std::forward<T>(x): x itself (references bind as they would to x) */
        c->pos += q + 1;
        if (accept(c, "<")) {
            type_name(c);
            expect(c, ">");
        }
        expect(c, "(");
        fe_node *e = assign(c);
        expect(c, ")");
        return e;
    }
    if ((fe_tok_is(last, "min") || fe_tok_is(last, "max")) && fe_tok_is(peek_at(c, q + 1), "<") &&
        typename_at(c, q + 2) && !fe_find_template(c, tok_name(c, last))) {
        /* std::min<long long>(a, b): the builtin of the arguments converted to the type */
        c->pos += q + 2;
        fe_type *ty = type_name(c);
        expect(c, ">");
        expect(c, "(");
        fe_node *call = new_node(c, N_CALL, last), *callee = new_node(c, N_IDENT, last);
        callee->name = tok_name(c, last);
        call->a = callee;
        call->args = args_list(c);
        for (fe_node **a = &call->args; *a; a = &(*a)->next) {
            fe_node *cast = new_node(c, N_CAST, (*a)->tok);
            cast->ty = ty;
            cast->a = *a;
            cast->next = (*a)->next;
            (*a)->next = NULL;
            *a = cast;
        }
        return call;
    }
    if (!q && t->kind == TK_IDENT && fe_tok_is(peek_at(c, 1), "<")) { /* pi<float>: a variable template */
        fe_template *vt = fe_find_template(c, tok_name(c, t));
        if (vt && vt->is_var && !lookup(c, t->s, t->len)) {
            next(c);
            fe_type *targs[8];
            int64_t tvals[8];
            int na = template_args(c, targs, tvals);
            return fe_var_template_value(c, vt, targs, tvals, na, t);
        }
    }
    if (accept(c, "(")) {
        const bool in_targs = c->in_targs; /* Cfg<(N >> 1)> shifts */
        c->in_targs = false;
        fe_node *e = expr(c);
        c->in_targs = in_targs;
        expect(c, ")");
        return e;
    }
    if (t->kind == TK_INT || t->kind == TK_CHAR) {
        next(c);
        fe_node *n = new_node(c, N_INT, t);
        n->ival = t->ival;
        n->is_unsigned = t->is_unsigned;
        n->is_long = t->is_long;
        n->is_float32 = t->nondecimal; /* hex/octal: may be unsigned */
        if (t->kind == TK_CHAR)
            n->ty = fe_ty(TY_I8);
        return n;
    }
    if (t->kind == TK_FLOAT) {
        next(c);
        fe_node *n = new_node(c, N_FLOAT, t);
        n->fval = t->fval;
        n->is_float32 = t->is_float32;
        return n;
    }
    if (t->kind == TK_STR) {
        next(c);
        fe_node *n = new_node(c, N_STR, t);
        /* adjacent literals concatenate: their bytes (embedded NULs too), counted first and
         * copied once (copying the string so far for each piece was quadratic: 5 GB) */
        uint64_t total = t->ival;
        uint32_t k = 0;
        for (; peek_at(c, k)->kind == TK_STR && total <= FE_MAX_STRING; k++)
            total += peek_at(c, k)->ival;
        if (total > FE_MAX_STRING) {
            fe_error(c, t, CVM_LIMIT, "a string literal of more than %u MiB", FE_MAX_STRING >> 20);
            return n;
        }
        char *s = fe_alloc(c, (size_t)total + 1);
        if (!s)
            return n;
        size_t at = 0;
        for (fe_tok *u = t;; u = next(c)) {
            memcpy(s + at, u->str, (size_t)u->ival);
            at += (size_t)u->ival;
            if (peek(c)->kind != TK_STR)
                break;
        }
        s[at] = 0;
        n->ival = total; /* the bytes without the final NUL (sizeof) */
        n->name = s;
        return n;
    }
    if (fe_tok_is(t, "true") || fe_tok_is(t, "false")) {
        next(c);
        fe_node *n = new_node(c, N_BOOL, t);
        n->ival = fe_tok_is(t, "true");
        return n;
    }
    if (fe_tok_is(t, "this")) {
        next(c);
        return new_node(c, N_THIS, t);
    }
    if (fe_tok_is(t, "nullptr") || fe_tok_is(t, "NULL")) {
        next(c);
        fe_node *n = new_node(c, N_INT, t);
        return n;
    }
    if (fe_tok_is(t, "goto")) {
        unsupported(c, t, "goto is not supported in kernels; use structured control flow (break, continue, return)");
        return new_node(c, N_INT, t);
    }
    if (fe_tok_is(t, "new") || fe_tok_is(t, "delete")) {
        unsupported(c, t, "device-side malloc is not supported in kernels");
        return new_node(c, N_INT, t);
    }
    if (fe_tok_is(t, "throw")) {
        unsupported(c, t, "exceptions are not supported in kernels");
        return new_node(c, N_INT, t);
    }
    if (fe_tok_is(t, "static_cast") || fe_tok_is(t, "reinterpret_cast") ||
        fe_tok_is(t, "const_cast")) {
        next(c);
        expect(c, "<");
        fe_node *n = new_node(c, N_CAST, t);
        n->ty = type_name(c);
        if (fe_tok_is(t, "reinterpret_cast"))
            n->op = 'R'; /* the address kept: no base class adjustment */
        expect(c, ">");
        expect(c, "(");
        n->a = expr(c);
        expect(c, ")");
        return n;
    }
    if (fe_tok_is(t, "["))
        return fe_p_lambda(c);
    if (fe_tok_is(t, "dynamic_cast")) {
        unsupported(c, t, "dynamic_cast is not supported in kernels");
        return new_node(c, N_INT, t);
    }
    if (fe_tok_is(last, "numeric_limits") && fe_tok_is(peek_at(c, q + 1), "<")) { /* std::numeric_limits<T> */
        c->pos += q;
        return fe_p_numeric_limits(c);
    }
    if (fe_p_is_value_trait(c, last)) { /* std::is_same<T, float>::value */
        c->pos += q;
        return fe_p_value_trait(c);
    }
    bool qualified_value = false, member_type = false;
    if (t->kind == TK_IDENT && fe_tok_is(peek_at(c, 1), "::")) { /* S::N of a static constexpr member */
        fe_tname *sn = lookup(c, t->s, t->len);
        if (sn && !sn->is_value && sn->ty && sn->ty->kind == TY_STRUCT && peek_at(c, 2)->kind == TK_IDENT &&
            !fe_tok_is(peek_at(c, 3), "::") && !fe_tok_is(peek_at(c, 3), "(")) {
            c->pos += 2;
            return fe_p_static_member(c, sn->ty, next(c));
        }
    }
    if (t->kind == TK_IDENT && fe_tok_is(peek_at(c, 1), "::")) { /* cg::plus<int>(), Mode::On */
        uint32_t k = 0;
        while (peek_at(c, k)->kind == TK_IDENT && fe_tok_is(peek_at(c, k + 1), "::"))
            k += 2;
        const fe_tname *owner = k >= 2 ? lookup(c, peek_at(c, k - 2)->s, peek_at(c, k - 2)->len) : NULL;
        if (is_typename(c, peek_at(c, k))) {
            c->pos += k;
            t = peek(c);
        } else if (owner && !owner->is_value && owner->ty && owner->ty->kind == TY_STRUCT &&
                   !fe_tok_is(peek_at(c, k + 1), "(") && !fe_tok_is(peek_at(c, k + 1), "<")) {
            c->pos += k; /* ns::S::N, ns::Alias::value: a static member of S (found as a qualified type is) */
            return fe_p_static_member(c, owner->ty, next(c));
        } else if (member_type_at(c, k)) {
            member_type = true; /* S::t(x): a functional cast to a member type (declspec reads S::t) */
        } else {
            qualified_value = true;
        }
    }
    if (t->kind == TK_IDENT && !qualified_value && (member_type || is_typename(c, t))) {
        /* functional cast or constructor call: float(x), float4{...} */
        fe_type *ty = type_name(c);
        if (ty->kind == TY_STRUCT && is(c, "::") && peek_at(c, 1)->kind == TK_IDENT) { /* Cfg<64>::kTile */
            next(c);
            return fe_p_static_member(c, ty, next(c));
        }
        fe_node *n = new_node(c, N_CAST, t);
        n->ty = ty;
        if (accept(c, "(")) {
            n->args = args_list(c);
        } else if (is(c, "{")) { /* T{a, b}, T{.m = v} */
            n->args = fe_p_initializer(c)->args;
        } else {
            fe_error(c, peek(c), CVM_SYNTAX, "expected '(' after a type name in an expression");
        }
        n->op = 'F'; /* functional form: args instead of a */
        return n;
    }
    if (t->kind == TK_IDENT) {
        next(c);
        /* qualified names: cg::sync, std::min -> the last component; S::f of a struct S is kept;
         * a::f of the file's namespace a keeps a (fe_p_namespace_of) */
        fe_type *scope = NULL;
        char qual[256];
        size_t ql = 0;
        while (is(c, "::") && peek_at(c, 1)->kind == TK_IDENT) {
            fe_tname *outer = lookup(c, t->s, t->len);
            scope = outer && !outer->is_value && outer->ty && outer->ty->kind == TY_STRUCT ? outer->ty : NULL;
            ql += (size_t)snprintf(qual + ql, ql < sizeof qual ? sizeof qual - ql : 0, "%s%.*s", ql ? "::" : "",
                                   (int)t->len, t->s);
            next(c);
            t = next(c);
        }
        fe_tname *tn = NULL;
        if (ql && ql + t->len + 2 < sizeof qual) { /* E::X of an enum: its own constant (ns::E::X too) */
            snprintf(qual + ql, sizeof qual - ql, "::%.*s", (int)t->len, t->s);
            for (const char *rest = qual; rest && !tn; rest = strstr(rest, "::") ? strstr(rest, "::") + 2 : NULL) {
                const size_t ns_len = rest > qual ? (size_t)(rest - qual) - 2 : 0; /* ns of ns::E::X */
                for (fe_tname *x = strstr(rest, "::") ? c->tnames : NULL; x && !tn; x = x->next)
                    if (x->is_value && strcmp(x->name, rest) == 0 &&
                        (!ns_len || (x->def_ns && strlen(x->def_ns) == ns_len && memcmp(x->def_ns, qual, ns_len) == 0)))
                        tn = x;
            }
            qual[ql] = 0;
        }
        if (!tn)
            tn = lookup(c, t->s, t->len);
        if (tn && tn->is_value) {
            fe_node *n = new_node(c, N_INT, t);
            n->ival = (uint64_t)tn->value;
            n->ty = tn->ty;
            return n;
        }
        if (tn && tn->value_expr)
            return fe_p_static_value(c, tn, t);
        fe_node *n = new_node(c, N_IDENT, t);
        n->name = tok_name(c, t);
        n->ty = scope; /* S::f(args): a static member function of S */
        n->const_decl = tn && !scope ? tn->const_decl : NULL;
        if (global && !ql)
            n->qual = "";
        else if (ql && ql < sizeof qual && !scope)
            n->qual = fe_p_namespace_of(c, qual);
        if (is(c, "<") && (fe_find_template(c, n->name) || strcmp(n->name, "tiled_partition") == 0)) {
            fe_type *targs[8];
            int64_t tvals[8];
            int k = template_args(c, targs, tvals);
            n->ntargs = k;
            n->targs = fe_alloc(c, sizeof *n->targs * 8);
            n->tvals = fe_alloc(c, sizeof *n->tvals * 8);
            if (n->targs && n->tvals) {
                memcpy(n->targs, targs, sizeof *targs * (size_t)k);
                memcpy(n->tvals, tvals, sizeof *tvals * (size_t)k);
            }
        }
        return n;
    }
    fe_error(c, t, CVM_SYNTAX, t->kind == TK_EOF ? "unexpected end of input in an expression"
                                                  : "expected an expression before '%.*s'",
             (int)t->len, t->s);
    return new_node(c, N_INT, t);
}

/* The struct named before `::` in a qualified member (d.B::x,
 * this->Base<T>::f()), consumed with its `::`; NULL, nothing consumed,
 * when the member is not qualified. */
static fe_type *member_qualifier(fe_ctx *c)
{
    fe_tok *q = peek(c);
    fe_tname *n = q->kind == TK_IDENT ? lookup(c, q->s, q->len) : NULL;
    if (!n || n->is_value)
        return NULL;
    if (n->ty && n->ty->kind == TY_STRUCT && fe_tok_is(peek_at(c, 1), "::")) {
        c->pos += 2;
        return n->ty;
    }
    fe_template *tp = fe_tok_is(peek_at(c, 1), "<") ? (!n->ty ? fe_find_template(c, n->name) : n->ty->tmpl) : NULL;
    if (!tp || !tp->is_struct)
        return NULL;
    int depth = 0; /* Base<T, 4>:: ahead, not obj.m < x */
    uint32_t k = 1;
    for (; k < 64 && peek_at(c, k)->kind != TK_EOF; k++) {
        depth += fe_tok_is(peek_at(c, k), "<") - fe_tok_is(peek_at(c, k), ">") - 2 * fe_tok_is(peek_at(c, k), ">>");
        if (depth <= 0 || fe_tok_is(peek_at(c, k), ";"))
            break;
    }
    if (depth != 0 || !fe_tok_is(peek_at(c, k + 1), "::"))
        return NULL;
    next(c);
    fe_type *targs[8];
    int64_t tvals[8];
    int na = template_args(c, targs, tvals);
    fe_type *ty = fe_instantiate_struct(c, tp, targs, tvals, na, q);
    expect(c, "::");
    return ty;
}

static fe_node *postfix(fe_ctx *c)
{
    fe_node *e = primary(c);
    for (int links = 0;; links++) {
        fe_tok *t = peek(c);
        if (links > FE_MAX_NEST) { /* p[0][0]..., a.b.b...: a tree as deep (later walks recurse) */
            fe_error(c, t, CVM_LIMIT, "nested more than %d levels deep (expressions, statements, or "
                     "terms of one expression); split it", FE_MAX_NEST);
            return e;
        }
        if (accept(c, "(")) {
            fe_node *n = new_node(c, N_CALL, e->tok);
            n->a = e;
            n->args = args_list(c);
            e = n;
        } else if ((is(c, "<") && fe_tok_is(peek_at(c, 1), "<") && fe_tok_is(peek_at(c, 2), "<")) ||
                   (is(c, "<<") && fe_tok_is(peek_at(c, 1), "<"))) {
            unsupported(c, e->tok, "dynamic parallelism (launching a kernel from device code) is not supported");
            return e;
        } else if (accept(c, "[")) {
            fe_node *n = new_node(c, N_INDEX, t);
            n->a = e;
            n->b = expr(c);
            expect(c, "]");
            e = n;
        } else if (accept(c, ".") || accept(c, "->")) {
            fe_node *n = new_node(c, fe_tok_is(t, ".") ? N_MEMBER : N_ARROW, t);
            n->a = e;
            bool tmpl = accept(c, "template"); /* obj.template f<3>() */
            n->owner = member_qualifier(c); /* d.B::x, this->Base<T>::f(): the member of base B */
            fe_tok *m = expect_ident(c);
            n->name = tok_name(c, m);
            n->tok = m;
            e = n;
            if (is(c, "<") && (tmpl || fe_p_member_targs_ahead(c))) { /* obj.f<3>(): a member template */
                fe_type *targs[8];
                int64_t tvals[8];
                int na = template_args(c, targs, tvals);
                n->targs = fe_alloc(c, sizeof *n->targs * 8);
                n->tvals = fe_alloc(c, sizeof *n->tvals * 8);
                if (n->targs && n->tvals) {
                    memcpy(n->targs, targs, sizeof targs);
                    memcpy(n->tvals, tvals, sizeof tvals);
                    n->ntargs = na;
                }
            }
        } else if (accept(c, "++") || accept(c, "--")) {
            fe_node *n = new_node(c, fe_tok_is(t, "++") ? N_POSTINC : N_POSTDEC, t);
            n->a = e;
            e = n;
        } else {
            return e;
        }
    }
}

/* Is a one-word type at peek_at(c, k) followed by '(' or '{' a
 * functional cast (`(float(-1) < x)`), not a C cast's parenthesized type? */
static bool functional_cast_at(fe_ctx *c, uint32_t k)
{
    static const char *const not_alone[] = {"decltype", "typename", "const", "volatile", "struct", "class", "union",
                                            "enum"}; /* (decltype(x))y is a C cast */
    k += fe_tok_is(peek_at(c, k), "::"); /* (::P{2}) */
    const fe_tok *t = peek_at(c, k);
    for (size_t i = 0; i < sizeof not_alone / sizeof not_alone[0]; i++)
        if (fe_tok_is(t, not_alone[i]))
            return false;
    if (t->kind == TK_IDENT && fe_tok_is(peek_at(c, k + 1), "<")) { /* (B<int>().get()), (B<int>{}.v) */
        uint32_t j = k + 1;
        for (int depth = 0; j < k + 64; j++) {
            const fe_tok *q = peek_at(c, j);
            if (q->kind == TK_EOF || fe_tok_is(q, ";") || fe_tok_is(q, "{") || fe_tok_is(q, ")"))
                return false;
            depth += fe_tok_is(q, "<") - fe_tok_is(q, ">") - 2 * fe_tok_is(q, ">>");
            if (depth <= 0)
                break;
        }
        k = j;
    }
    return t->kind == TK_IDENT && (fe_tok_is(peek_at(c, k + 1), "(") || fe_tok_is(peek_at(c, k + 1), "{"));
}

bool fe_enter(fe_ctx *c, const fe_tok *t)
{
    if (c->nest >= FE_MAX_NEST) {
        if (!c->err)
            fe_error(c, t, CVM_LIMIT, "nested more than %d levels deep (expressions, statements, or "
                     "terms of one expression); split it", FE_MAX_NEST);
        return false;
    }
    c->nest++;
    return true;
}

/* in(c) one nesting level deeper (an error past FE_MAX_NEST). */
static fe_node *nested(fe_ctx *c, fe_node *(*in)(fe_ctx *c))
{
    if (!fe_enter(c, peek(c)))
        return new_node(c, N_INT, peek(c));
    fe_node *n = in(c);
    fe_leave(c);
    return n;
}

static fe_node *unary_in(fe_ctx *c);

static fe_node *unary(fe_ctx *c) { return nested(c, unary_in); }

static fe_node *unary_in(fe_ctx *c)
{
    fe_tok *t = peek(c);
    if (accept(c, "++") || accept(c, "--")) {
        fe_node *n = new_node(c, fe_tok_is(t, "++") ? N_PREINC : N_PREDEC, t);
        n->a = unary(c);
        return n;
    }
    if (accept(c, "-") || accept(c, "+") || accept(c, "!") || accept(c, "~") || accept(c, "*") ||
        accept(c, "&")) {
        fe_node *n = new_node(c, N_UNARY, t);
        n->op = t->s[0];
        n->a = unary(c);
        return n;
    }
    if (accept(c, "__builtin_offsetof")) { /* offsetof(type, a.b[2]): a constant */
        fe_node *n = new_node(c, N_INT, t);
        n->ty = fe_ty(TY_U64);
        expect(c, "(");
        fe_type *ty = type_name(c);
        expect(c, ",");
        uint64_t off = 0;
        do {
            fe_tok *m = expect_ident(c);
            if (c->err)
                return n;
            uint32_t foff = 0;
            const fe_member *f = fe_find_member(ty, m->s, m->len, &foff);
            if (!f) {
                fe_error(c, m, CVM_SYNTAX, "offsetof: no member '%.*s' in the type", (int)m->len, m->s);
                return n;
            }
            off += foff;
            ty = f->ty;
            while (accept(c, "[")) {
                fe_tok *at = peek(c);
                int64_t i = 0;
                fe_node *ix = fe_p_expr(c);
                expect(c, "]");
                if (c->err)
                    return n;
                if (!ix || !fe_const_eval(c, ix, &i) || i < 0) {
                    fe_error(c, at, CVM_SYNTAX, "offsetof: an array index must be a constant >= 0");
                    return n;
                }
                if (ty->kind != TY_ARRAY) {
                    fe_error(c, at, CVM_SYNTAX, "offsetof: the member is not an array");
                    return n;
                }
                ty = ty->base;
                off += (uint64_t)i * ty->size;
            }
        } while (accept(c, "."));
        expect(c, ")");
        n->ival = off;
        return n;
    }
    if (accept(c, "alignof") || accept(c, "__alignof__") || accept(c, "_Alignof")) {
        fe_node *n = new_node(c, N_INT, t); /* alignof(type): a constant */
        expect(c, "(");
        fe_type *ty = type_name(c);
        expect(c, ")");
        n->ival = ty->kind == TY_ARRAY ? ty->base->align : ty->align;
        n->ty = fe_ty(TY_U64);
        return n;
    }
    if (accept(c, "sizeof")) {
        fe_node *n = new_node(c, N_SIZEOF, t);
        if (is(c, "(") && typename_at(c, 1)) {
            next(c);
            n->ty = type_name(c);
            expect(c, ")");
            if (n->ty->decltype_expr) { /* sizeof(decltype(e)): sizeof e */
                n->a = n->ty->decltype_expr;
                n->ty = NULL;
            }
        } else {
            n->a = unary(c);
            if (n->a && n->a->kind == N_STR) { /* sizeof "abc": its char array's */
                n->ty = fe_array_of(c, fe_ty(TY_I8), (uint32_t)n->a->ival + 1);
                n->a = NULL;
            } else if (n->a && n->a->kind == N_INDEX && array_named(c, n->a->a)) {
                n->ty = array_named(c, n->a->a)->base; /* sizeof(w[0]) */
                n->a = NULL;
            } else if (n->a && array_named(c, n->a)) { /* sizeof(w): a constant, an array bound too */
                n->ty = array_named(c, n->a);
                n->a = NULL;
            }
        }
        return n;
    }
    if (is(c, "(") && typename_at(c, 1) && !functional_cast_at(c, 1)) {
        /* (type)expr, unless it is a functional cast like (float)(x) handled the same */
        next(c);
        fe_node *n = new_node(c, N_CAST, t);
        n->ty = type_name(c);
        expect(c, ")");
        n->a = unary(c);
        return n;
    }
    return postfix(c);
}

static int binprec(const fe_tok *t)
{
    static const struct { const char *op; int prec; } tab[] = {
        {"*", 10}, {"/", 10}, {"%", 10}, {"+", 9}, {"-", 9}, {"<<", 8}, {">>", 8},
        {"<", 7}, {">", 7}, {"<=", 7}, {">=", 7}, {"==", 6}, {"!=", 6}, {"&", 5},
        {"^", 4}, {"|", 3}, {"&&", 2}, {"||", 1},
    };
    if (t->kind != TK_PUNCT)
        return -1;
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (fe_tok_is(t, tab[i].op))
            return tab[i].prec;
    return -1;
}

static fe_node *binary(fe_ctx *c, int min_prec)
{
    fe_node *lhs = unary(c);
    int terms = 0; /* each term of a + b + ... nests the tree one level deeper (later walks recurse) */
    for (;;) {
        fe_tok *t = peek(c);
        int p = binprec(t);
        if (p < min_prec || p < 0 || (c->in_targs && (fe_tok_is(t, ">>") || fe_tok_is(t, ">"))) ||
            !fe_enter(c, t))
            break;
        terms++;
        next(c);
        fe_node *rhs = binary(c, p + 1);
        lhs = new_bin(c, op_code(t), t, lhs, rhs);
    }
    while (terms-- > 0)
        fe_leave(c);
    return lhs;
}

fe_node *fe_parse_shift(fe_ctx *c) { return binary(c, 8); }

static fe_node *conditional(fe_ctx *c)
{
    fe_node *e = binary(c, 1);
    fe_tok *t = peek(c);
    if (!accept(c, "?"))
        return e;
    fe_node *n = new_node(c, N_COND, t);
    n->a = e;
    n->b = expr(c);
    expect(c, ":");
    n->c = assign(c);
    return n;
}

static fe_node *assign_in(fe_ctx *c);

static fe_node *assign(fe_ctx *c) { return nested(c, assign_in); }

static fe_node *assign_in(fe_ctx *c)
{
    fe_node *lhs = conditional(c);
    fe_tok *t = peek(c);
    static const char *const ops[] = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (accept(c, ops[i])) {
            fe_node *n = new_node(c, N_ASSIGN, t);
            n->op = i == 0 ? '=' : (t->len == 3 ? FE_OP2(t->s[0], t->s[1]) : t->s[0]);
            n->a = lhs;
            /* `x = {a, b}` (C++11): the list's value of x's type */
            n->b = i == 0 && is(c, "{") ? fe_p_initializer(c) : assign(c);
            return n;
        }
    }
    return lhs;
}

static fe_node *expr(fe_ctx *c)
{
    fe_node *e = assign(c);
    while (is(c, ",")) {
        fe_tok *t = next(c);
        fe_node *n = new_node(c, N_COMMA, t);
        n->a = e;
        n->b = assign(c);
        e = n;
    }
    return e;
}

void fe_parse(fe_ctx *c)
{
    c->pos = 0;
    fe_builtin_types(c);
    while (!c->err && peek(c)->kind != TK_EOF)
        fe_p_toplevel(c);
}

/* ---- templates ---- */

fe_type *fe_lookup_type(fe_ctx *c, const char *name)
{
    fe_tname *t = lookup(c, name, strlen(name));
    return t && !t->is_value ? t->ty : NULL;
}

/* ---- for parse_decl.c and parse_cxx.c (parse.h) ---- */

fe_node *fe_p_new_node(fe_ctx *c, fe_nk kind, fe_tok *tok) { return new_node(c, kind, tok); }
fe_node *fe_p_new_bin(fe_ctx *c, int op, fe_tok *t, fe_node *a, fe_node *b) { return new_bin(c, op, t, a, b); }
fe_node *fe_p_expr(fe_ctx *c) { return expr(c); }
void fe_p_shadow(fe_ctx *c, const char *name) { shadow(c, name); }
fe_tname *fe_p_declare_var(fe_ctx *c, const char *name, fe_type *ty) { return declare_var(c, name, ty); }

/* A use of static float member s at t: a cast node of its own (lists
 * link nodes through `next`) over the shared initializer, which nothing
 * lists or changes. */
fe_node *fe_p_static_value(fe_ctx *c, const fe_tname *s, fe_tok *t)
{
    fe_node *n = new_node(c, N_CAST, t);
    n->ty = s->value_expr->ty;
    n->a = s->value_expr->a;
    return n;
}

fe_tok *fe_p_peek(fe_ctx *c) { return peek(c); }
fe_tok *fe_p_peek_at(fe_ctx *c, uint32_t k) { return peek_at(c, k); }
fe_tok *fe_p_next(fe_ctx *c) { return next(c); }
bool fe_p_is(fe_ctx *c, const char *s) { return is(c, s); }
bool fe_p_accept(fe_ctx *c, const char *s) { return accept(c, s); }
fe_tok *fe_p_expect(fe_ctx *c, const char *s) { return expect(c, s); }
fe_tok *fe_p_expect_ident(fe_ctx *c) { return expect_ident(c); }
const char *fe_p_tok_name(fe_ctx *c, const fe_tok *t) { return tok_name(c, t); }
void fe_p_unsupported(fe_ctx *c, fe_tok *t, const char *what) { unsupported(c, t, what); }
fe_tname *fe_p_lookup(fe_ctx *c, const char *s, size_t n) { return lookup(c, s, n); }
fe_tname *fe_p_push_tname(fe_ctx *c, const char *name, fe_type *ty, bool is_value, int64_t v)
{
    return push_tname(c, name, ty, is_value, v);
}
bool fe_p_is_typename(fe_ctx *c, fe_tok *t) { return is_typename(c, t); }
uint32_t fe_p_const_dim(fe_ctx *c, fe_tok *at) { return const_dim(c, at); }
fe_type *fe_p_declspec(fe_ctx *c, unsigned *storage, uint32_t *launch_bound)
{
    return declspec(c, storage, launch_bound);
}
fe_type *fe_p_declarator(fe_ctx *c, fe_type *ty, fe_tok **name_tok) { return declarator(c, ty, name_tok); }
fe_type *fe_p_type_name(fe_ctx *c) { return type_name(c); }
fe_type *fe_p_targ_type(fe_ctx *c) { return targ_type(c); }
bool fe_p_typename_at(fe_ctx *c, uint32_t k) { return typename_at(c, k); }
fe_node *fe_p_assign(fe_ctx *c) { return assign(c); }
fe_node *fe_p_conditional(fe_ctx *c) { return conditional(c); }
fe_node *fe_p_args_list(fe_ctx *c) { return args_list(c); }
void fe_p_skip_attributes(fe_ctx *c) { skip_attributes(c); }
int fe_p_template_args(fe_ctx *c, fe_type **targs, int64_t *tvals) { return template_args(c, targs, tvals); }
