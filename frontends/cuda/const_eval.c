/*
 * const_eval.c - integer constant expressions at compile time (array
 * bounds, template arguments, enumerators, case labels, static_assert,
 * if constexpr, constexpr variables and functions): C++'s promotions and
 * usual arithmetic conversions on 64-bit values kept in their type's
 * range, elements of const integer arrays. The parser's, through parse.h.
 */
#include "parse.h"

#include <string.h>

/* Declaration d (with its storage) declares an array of integers whose
 * elements are constants: const or constexpr, a braced initializer. */
bool fe_p_const_array(const fe_node *d, unsigned storage)
{
    const fe_type *elem = d->ty;
    while (elem && elem->kind == TY_ARRAY)
        elem = elem->base;
    return d->ty && d->ty->kind == TY_ARRAY && elem && fe_is_int((fe_type *)elem) && d->a &&
           d->a->kind == N_INITLIST && (elem->is_const || (storage & FE_S_CONSTEXPR));
}

/* The initializer (NULL: zero, past the braced list) and type of the
 * element of a const integer array that e names: dims, dims[1], t[i][j]. */
static bool const_element(fe_ctx *c, const fe_node *e, const fe_node **init, const fe_type **ty)
{
    int64_t i;
    if (e->kind == N_IDENT && e->const_decl) {
        *init = e->const_decl->a;
        *ty = e->const_decl->ty;
        return true;
    }
    if (e->kind != N_INDEX || !const_element(c, e->a, init, ty) || (*ty)->kind != TY_ARRAY ||
        !fe_const_eval(c, e->b, &i) || i < 0 || i >= (int64_t)(*ty)->len)
        return false;
    *ty = (*ty)->base;
    if (!*init)
        return true;
    if ((*init)->kind != N_INITLIST)
        return false; /* brace elision: not followed */
    const fe_node *x = (*init)->args;
    for (; x && !x->desig && i > 0; x = x->next)
        i--;
    if (x && x->desig)
        return false;
    *init = x;
    return true;
}

int64_t fe_const_norm(int64_t v, fe_kind k)
{
    switch (k) {
    case TY_BOOL: return v != 0;
    case TY_I8: return (int8_t)(uint8_t)v;
    case TY_I16: return (int16_t)(uint16_t)v;
    case TY_I32: return (int32_t)(uint32_t)v;
    case TY_U8: return (uint8_t)v;
    case TY_U16: return (uint16_t)v;
    case TY_U32: return (uint32_t)v;
    default: return v;
    }
}

static fe_kind promoted(fe_kind k)
{
    return k == TY_BOOL || k == TY_I8 || k == TY_I16 || k == TY_U8 || k == TY_U16 ? TY_I32 : k;
}

static bool kind_unsigned(fe_kind k) { return k == TY_U32 || k == TY_U64; } /* of a promoted kind */

/* The usual arithmetic conversions of two integer kinds. */
static fe_kind common_kind(fe_kind a, fe_kind b)
{
    a = promoted(a);
    b = promoted(b);
    if (a == b)
        return a;
    const int ra = a == TY_I64 || a == TY_U64, rb = b == TY_I64 || b == TY_U64;
    if (kind_unsigned(a) == kind_unsigned(b))
        return ra >= rb ? a : b;
    const fe_kind u = kind_unsigned(a) ? a : b, sg = kind_unsigned(a) ? b : a;
    const int ru = u == a ? ra : rb, rs = u == a ? rb : ra;
    return ru >= rs ? u : sg; /* a wider signed type holds every value of the unsigned one */
}

static bool const_binary(fe_ctx *c, fe_node *e, int64_t *out, fe_kind *kind)
{
    int64_t a, b;
    fe_kind ka, kb;
    if (!fe_const_eval_kind(c, e->a, &a, &ka) || !fe_const_eval_kind(c, e->b, &b, &kb))
        return false;
    if (e->op == FE_OP2('&', '&') || e->op == FE_OP2('|', '|')) {
        *kind = TY_BOOL;
        *out = e->op == FE_OP2('&', '&') ? a && b : a || b;
        return true;
    }
    if (e->op == FE_OP2('<', '<') || e->op == FE_OP2('>', '>')) { /* the left operand's promoted type */
        const fe_kind k = promoted(ka);
        const int width = k == TY_I64 || k == TY_U64 ? 64 : 32;
        b = fe_const_norm(b, promoted(kb));
        if (b < 0 || b >= width || (kind_unsigned(promoted(kb)) && (uint64_t)b >= (uint64_t)width))
            return false; /* undefined in C++: left to the VM's shift */
        a = fe_const_norm(a, k);
        *kind = k;
        if (e->op == FE_OP2('<', '<'))
            *out = fe_const_norm((int64_t)((uint64_t)a << b), k);
        else
            *out = kind_unsigned(k) ? fe_const_norm((int64_t)((uint64_t)(k == TY_U32 ? (uint32_t)a : (uint64_t)a) >> b), k)
                                    : fe_const_norm(a >> b, k);
        return true;
    }
    const fe_kind k = common_kind(ka, kb);
    const bool u = kind_unsigned(k);
    a = fe_const_norm(a, k);
    b = fe_const_norm(b, k);
    const uint64_t ua = k == TY_U32 ? (uint32_t)a : (uint64_t)a, ub = k == TY_U32 ? (uint32_t)b : (uint64_t)b;
    *kind = k;
    switch (e->op) {
    case '+': *out = fe_const_norm((int64_t)(ua + ub), k); return true;
    case '-': *out = fe_const_norm((int64_t)(ua - ub), k); return true;
    case '*': *out = fe_const_norm((int64_t)(ua * ub), k); return true;
    case '/':
    case '%':
        if (!b || (!u && a == INT64_MIN && b == -1))
            return false;
        if (u)
            *out = fe_const_norm((int64_t)(e->op == '/' ? ua / ub : ua % ub), k);
        else
            *out = fe_const_norm(e->op == '/' ? a / b : a % b, k);
        return true;
    case '&': *out = fe_const_norm(a & b, k); return true;
    case '|': *out = fe_const_norm(a | b, k); return true;
    case '^': *out = fe_const_norm(a ^ b, k); return true;
    default:
        break;
    }
    *kind = TY_BOOL;
    switch (e->op) {
    case '<': *out = u ? ua < ub : a < b; return true;
    case '>': *out = u ? ua > ub : a > b; return true;
    case FE_OP2('<', '='): *out = u ? ua <= ub : a <= b; return true;
    case FE_OP2('>', '='): *out = u ? ua >= ub : a >= b; return true;
    case FE_OP2('=', '='): *out = a == b; return true;
    case FE_OP2('!', '='): *out = a != b; return true;
    default: return false;
    }
}

/* Is e a floating expression by its form alone (a float literal, a cast to
 * a float type, arithmetic with one)? Names are not looked up. */
static bool floating(const fe_node *e)
{
    if (!e)
        return false;
    switch (e->kind) {
    case N_FLOAT: return true;
    case N_CAST: return e->ty && (e->ty->kind == TY_F32 || e->ty->kind == TY_F64 || e->ty->kind == TY_F16 ||
                                  e->ty->kind == TY_BF16);
    case N_UNARY: return e->op != '!' && floating(e->a);
    case N_BIN: /* a comparison or logical operator gives a bool */
        if (e->op == '<' || e->op == '>' || e->op == FE_OP2('<', '=') || e->op == FE_OP2('>', '=') ||
            e->op == FE_OP2('=', '=') || e->op == FE_OP2('!', '=') || e->op == FE_OP2('&', '&') ||
            e->op == FE_OP2('|', '|'))
            return false;
        return floating(e->a) || floating(e->b);
    case N_COND: return floating(e->b) || floating(e->c);
    default: return false;
    }
}

bool fe_const_eval_kind(fe_ctx *c, fe_node *e, int64_t *out, fe_kind *kind)
{
    int64_t a = 0;
    fe_kind ka = TY_I32;
    if (!e)
        return false;
    switch (e->kind) {
    case N_INT:
        *kind = fe_is_int(fe_ty(fe_literal_kind(e))) ? fe_literal_kind(e) : TY_I64;
        *out = fe_const_norm((int64_t)e->ival, *kind);
        return true;
    case N_BOOL:
        *kind = TY_BOOL;
        *out = e->ival != 0;
        return true;
    case N_SIZEOF:
        if (!e->ty)
            return false;
        *kind = TY_U64;
        *out = e->ty->size;
        return true;
    case N_CAST:
        if (!fe_const_eval_kind(c, e->a, &a, &ka) || !fe_is_int(e->ty))
            return false;
        *kind = e->ty->kind;
        *out = fe_const_norm(a, *kind);
        return true;
    case N_UNARY:
        if (!fe_const_eval_kind(c, e->a, &a, &ka))
            return false;
        *kind = promoted(ka);
        switch (e->op) {
        case '-': *out = fe_const_norm((int64_t)(0 - (uint64_t)a), *kind); return true;
        case '+': *out = fe_const_norm(a, *kind); return true;
        case '~': *out = fe_const_norm(~a, *kind); return true;
        case '!': *kind = TY_BOOL; *out = !a; return true;
        default: return false;
        }
    case N_COND: {
        int64_t other;
        fe_kind kb;
        if (!fe_const_eval_kind(c, e->a, &a, &ka) || !fe_const_eval_kind(c, a ? e->b : e->c, out, kind))
            return false;
        /* the type is both operands' common type; the other is not evaluated
         * (N == 0 ? 1 : 64 / N), but a floating one makes no integer constant */
        if (fe_const_eval_kind(c, a ? e->c : e->b, &other, &kb)) {
            if (kb != *kind) {
                *kind = common_kind(*kind, kb);
                *out = fe_const_norm(*out, *kind);
            }
        } else if (floating(a ? e->c : e->b)) {
            return false; /* true ? 3 : 0.5 is the double 3.0 */
        }
        return true;
    }
    case N_IDENT: /* a parameter or local of the constexpr function being evaluated */
        for (int i = c->ce_n - 1; i >= 0; i--)
            if (strcmp(c->ce_names[i], e->name) == 0) {
                *kind = c->ce_kinds[i];
                *out = c->ce_vals[i];
                return true;
            }
        return false;
    case N_CALL:
        return fe_p_const_call(c, e, out, kind);
    case N_INDEX: { /* an element of a const integer array */
        const fe_node *init;
        const fe_type *ty;
        if (!const_element(c, e, &init, &ty) || !fe_is_int((fe_type *)ty))
            return false;
        *kind = ty->kind;
        if (!init) {
            *out = 0;
            return true;
        }
        if (!fe_const_eval_kind(c, (fe_node *)init, &a, &ka))
            return false;
        *out = fe_const_norm(a, *kind);
        return true;
    }
    case N_BIN:
        return const_binary(c, e, out, kind);
    default:
        return false;
    }
}

bool fe_const_eval(fe_ctx *c, fe_node *e, int64_t *out)
{
    fe_kind k;
    return fe_const_eval_kind(c, e, out, &k);
}
