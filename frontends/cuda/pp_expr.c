/*
 * pp_expr.c - the integer constant expressions of #if and #elif.
 *
 * `defined X` and `defined(X)` are replaced before macro expansion (and
 * also handled if an expansion produces them); the expanded tokens are
 * then evaluated by recursive descent in intmax_t / uintmax_t (64-bit
 * here), with C's usual arithmetic conversions between the two. Unknown
 * identifiers are 0, `true` is 1 and `false` 0 (C++). Operands that are not
 * evaluated (the skipped side of &&, || and ?:) may divide by zero.
 * Signed overflow wraps; INTMAX_MIN / -1 is INTMAX_MIN.
 */
#include "pp_int.h"

#include <string.h>

typedef struct val {
    uint64_t v;
    bool uns;
} val;

typedef struct ev {
    pp *p;
    const pp_tok *t;   /* next token, NULL at the end */
    const pp_tok *at;  /* the directive, for errors at the end of the line */
    unsigned depth;    /* unary and ?: operands the evaluation is inside (bounded: it recurses) */
} ev;

/* The deepest nesting of parentheses, unary operators and ?: an #if
 * expression may have (the evaluator recurses per level). */
#define PP_EXPR_MAX_DEPTH 1500

static cvm_status cond(ev *e, bool live, val *out);

static bool is_op(const pp_tok *t, const char *s)
{
    return t && t->kind == PP_PUNCT && cvm_fe_pp_is(t, s);
}

static cvm_status bad_token(ev *e)
{
    if (!e->t)
        return cvm_fe_pp_error(e->p, CVM_SYNTAX, e->at, "#%.*s expression ends unexpectedly",
                               (int)e->at->len, e->at->text);
    return cvm_fe_pp_error(e->p, CVM_SYNTAX, e->t, "token \"%.*s\" is not valid in a preprocessor expression",
                           (int)e->t->len, e->t->text);
}

/* ---- literals ---- */

static int digit_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return 99;
}

static bool valid_suffix(const char *s, size_t n, bool *uns)
{
    char b[8];
    if (n > 3)
        return false;
    for (size_t i = 0; i < n; i++)
        b[i] = s[i];
    b[n] = 0;
    static const char *const ok[] = {"", "u", "U", "l", "L", "ul", "uL", "Ul", "UL", "lu", "lU",
                                     "Lu", "LU", "ll", "LL", "ull", "uLL", "Ull", "ULL", "llu",
                                     "llU", "LLu", "LLU"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (strcmp(b, ok[i]) == 0) {
            *uns = strchr(b, 'u') || strchr(b, 'U');
            return true;
        }
    return false;
}

static cvm_status number(ev *e, const pp_tok *t, val *out)
{
    char buf[128];
    size_t n = 0;
    for (uint32_t i = 0; i < t->len && n + 1 < sizeof buf; i++)
        if (t->text[i] != '\'')
            buf[n++] = t->text[i];
    buf[n] = 0;
    unsigned base = 10;
    size_t i = 0;
    if (n > 1 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'))
        base = 16, i = 2;
    else if (n > 1 && buf[0] == '0' && (buf[1] == 'b' || buf[1] == 'B'))
        base = 2, i = 2;
    else if (buf[0] == '0')
        base = 8;
    if (strchr(buf, '.') || (base != 16 && strpbrk(buf, "eE")) || (base == 16 && strpbrk(buf, "pP")))
        return cvm_fe_pp_error(e->p, CVM_SYNTAX, t, "floating constant in preprocessor expression");
    uint64_t v = 0;
    bool overflow = false;
    size_t start = i;
    for (; i < n && digit_value(buf[i]) < 16 && (base == 16 || (buf[i] >= '0' && buf[i] <= '9')); i++) {
        unsigned d = (unsigned)digit_value(buf[i]);
        if (d >= base)
            return cvm_fe_pp_error(e->p, CVM_SYNTAX, t, "invalid digit \"%c\" in %s constant", buf[i],
                                   base == 8 ? "octal" : "binary");
        if (v > (UINT64_MAX - d) / base)
            overflow = true;
        v = v * base + d;
    }
    bool uns = false;
    if ((i == start && base != 8) || !valid_suffix(buf + i, n - i, &uns))
        return cvm_fe_pp_error(e->p, CVM_SYNTAX, t, "invalid integer constant \"%.*s\"", (int)t->len,
                               t->text);
    if (overflow || n + 1 >= sizeof buf)
        return cvm_fe_pp_error(e->p, CVM_SYNTAX, t, "integer constant is too large");
    out->v = v;
    out->uns = uns || v > (uint64_t)INT64_MAX; /* too large for intmax_t: unsigned */
    return CVM_OK;
}

/* One character of a literal from s (before end); advances. */
static uint32_t literal_char(const char **ps, const char *end)
{
    const char *s = *ps;
    uint32_t c = (unsigned char)*s++;
    if (c == '\\' && s < end) {
        c = (unsigned char)*s++;
        switch (c) {
        case 'n': c = 10; break;
        case 't': c = 9; break;
        case 'r': c = 13; break;
        case 'a': c = 7; break;
        case 'b': c = 8; break;
        case 'f': c = 12; break;
        case 'v': c = 11; break;
        case 'e': c = 27; break;
        case 'x': case 'u': case 'U': {
            unsigned max = c == 'x' ? 16 : c == 'u' ? 4 : 8, k = 0;
            c = 0;
            for (; s < end && digit_value(*s) < 16 && k < max; s++, k++)
                c = c * 16 + (uint32_t)digit_value(*s);
            break;
        }
        default:
            if (c >= '0' && c <= '7') {
                c -= '0';
                for (int k = 0; k < 2 && s < end && *s >= '0' && *s <= '7'; k++)
                    c = c * 8 + (uint32_t)(*s++ - '0');
            }
        }
    }
    *ps = s;
    return c;
}

static cvm_status character(ev *e, const pp_tok *t, val *out)
{
    const char *s = memchr(t->text, '\'', t->len), *end = t->text + t->len - 1;
    bool plain = s == t->text, u8 = s - t->text == 2;
    bool wide = !plain && !u8;
    s++;
    if (s >= end)
        return cvm_fe_pp_error(e->p, CVM_SYNTAX, t, "empty character constant");
    uint64_t v = 0;
    unsigned count = 0;
    while (s < end) {
        uint32_t c = literal_char(&s, end);
        v = wide ? c : ((v << 8) | (c & 0xff));
        count++;
    }
    if (plain && count == 1)
        v = (uint64_t)(int64_t)(int8_t)(uint8_t)v; /* char is signed */
    else if (plain)
        v = (uint64_t)(int64_t)(int32_t)(uint32_t)v; /* multi-character constant: int */
    out->v = v & (t->text[0] == 'u' && !u8 ? 0xffff : UINT64_MAX);
    out->uns = false;
    return CVM_OK;
}

/* `defined X` or `defined ( X )` at e->t (past "defined"); advances. */
static cvm_status defined_operand(pp *p, const pp_tok **pt, const pp_tok *op, bool *out)
{
    const pp_tok *t = *pt;
    bool paren = is_op(t, "(");
    if (paren)
        t = t->next;
    if (!t || t->kind != PP_IDENT)
        return cvm_fe_pp_error(p, CVM_SYNTAX, t ? t : op, "operator \"defined\" requires an identifier");
    *out = cvm_fe_pp_macro_find(p, t->text, t->len) != NULL;
    t = t->next;
    if (paren) {
        if (!is_op(t, ")"))
            return cvm_fe_pp_error(p, CVM_SYNTAX, t ? t : op, "missing ')' after \"defined\"");
        t = t->next;
    }
    *pt = t;
    return CVM_OK;
}

/* ---- the grammar ---- */

typedef cvm_status (*ev_rule)(ev *e, bool live, val *out);

/* rule one level deeper (unary operands and ?: recurse), an error past
 * PP_EXPR_MAX_DEPTH levels. */
static cvm_status deeper(ev *e, ev_rule rule, bool live, val *out)
{
    if (e->depth >= PP_EXPR_MAX_DEPTH)
        return cvm_fe_pp_error(e->p, CVM_LIMIT, e->t ? e->t : e->at, "#%.*s expression nested more than %d levels "
                               "deep", (int)e->at->len, e->at->text, PP_EXPR_MAX_DEPTH);
    e->depth++;
    cvm_status st = rule(e, live, out);
    e->depth--;
    return st;
}

static cvm_status unary_in(ev *e, bool live, val *out);

static cvm_status unary(ev *e, bool live, val *out) { return deeper(e, unary_in, live, out); }

static cvm_status unary_in(ev *e, bool live, val *out)
{
    const pp_tok *t = e->t;
    cvm_status st;
    if (!t)
        return bad_token(e);
    e->t = t->next;
    if (t->kind == PP_NUMBER)
        return number(e, t, out);
    if (t->kind == PP_CHAR)
        return character(e, t, out);
    if (t->kind == PP_IDENT) {
        bool d = false;
        if (cvm_fe_pp_is(t, "defined")) {
            if ((st = defined_operand(e->p, &e->t, t, &d)))
                return st;
        } else {
            d = cvm_fe_pp_is(t, "true");
        }
        *out = (val){d, false};
        return CVM_OK;
    }
    if (is_op(t, "(")) {
        if ((st = cond(e, live, out)))
            return st;
        while (is_op(e->t, ",")) {
            e->t = e->t->next;
            if ((st = cond(e, live, out)))
                return st;
        }
        if (!is_op(e->t, ")"))
            return e->t ? bad_token(e)
                        : cvm_fe_pp_error(e->p, CVM_SYNTAX, t, "missing ')' in expression");
        e->t = e->t->next;
        return CVM_OK;
    }
    if (is_op(t, "+") || is_op(t, "-") || is_op(t, "~") || is_op(t, "!")) {
        if ((st = unary(e, live, out)))
            return st;
        if (t->text[0] == '-')
            out->v = 0 - out->v;
        else if (t->text[0] == '~')
            out->v = ~out->v;
        else if (t->text[0] == '!')
            *out = (val){out->v == 0, false};
        return CVM_OK;
    }
    e->t = t;
    return bad_token(e);
}

static int precedence(const pp_tok *t)
{
    static const struct {
        const char *op;
        int prec;
    } ops[] = {{"||", 1}, {"&&", 2}, {"|", 3}, {"^", 4}, {"&", 5}, {"==", 6}, {"!=", 6},
               {"<", 7},  {">", 7},  {"<=", 7}, {">=", 7}, {"<<", 8}, {">>", 8}, {"+", 9},
               {"-", 9},  {"*", 10}, {"/", 10}, {"%", 10}};
    if (!t || t->kind != PP_PUNCT)
        return 0;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (cvm_fe_pp_is(t, ops[i].op))
            return ops[i].prec;
    return 0;
}

static uint64_t shift(uint64_t v, bool uns, int64_t n, bool left)
{
    if (n < 0) {
        left = !left;
        n = n == INT64_MIN ? 64 : -n;
    }
    if (n >= 64)
        return left || uns || (int64_t)v >= 0 ? 0 : UINT64_MAX;
    if (left)
        return v << n;
    if (uns || (int64_t)v >= 0)
        return v >> n;
    return ~(~v >> n); /* arithmetic shift of a negative value */
}

static cvm_status apply(ev *e, const pp_tok *op, val l, val r, bool live, val *out)
{
    bool uns = l.uns || r.uns;
    int64_t sl = (int64_t)l.v, sr = (int64_t)r.v;
    char c0 = op->text[0], c1 = op->len > 1 ? op->text[1] : 0;
    *out = (val){0, uns};
    switch (c0) {
    case '*': out->v = l.v * r.v; break;
    case '+': out->v = l.v + r.v; break;
    case '-': out->v = l.v - r.v; break;
    case '/': case '%':
        if (r.v == 0) {
            if (live)
                return cvm_fe_pp_error(e->p, CVM_SYNTAX, op, "division by zero in #if");
        } else if (uns) {
            out->v = c0 == '/' ? l.v / r.v : l.v % r.v;
        } else if (sl == INT64_MIN && sr == -1) {
            out->v = c0 == '/' ? l.v : 0;
        } else {
            out->v = (uint64_t)(c0 == '/' ? sl / sr : sl % sr);
        }
        break;
    case '<': case '>':
        if (c1 == c0) {
            *out = (val){shift(l.v, l.uns, r.uns && r.v > INT64_MAX ? 64 : sr, c0 == '<'), l.uns};
            break;
        }
        {
            bool lt = uns ? l.v < r.v : sl < sr, gt = uns ? l.v > r.v : sl > sr;
            bool res = c0 == '<' ? (c1 == '=' ? !gt : lt) : (c1 == '=' ? !lt : gt);
            *out = (val){res, false};
        }
        break;
    case '=': *out = (val){l.v == r.v, false}; break;
    case '!': *out = (val){l.v != r.v, false}; break;
    case '&': out->v = l.v & r.v; break;
    case '^': out->v = l.v ^ r.v; break;
    case '|': out->v = l.v | r.v; break;
    }
    return CVM_OK;
}

static cvm_status binary(ev *e, int minprec, bool live, val *out)
{
    cvm_status st = unary(e, live, out);
    while (!st) {
        const pp_tok *op = e->t;
        int prec = precedence(op);
        if (prec == 0 || prec < minprec)
            break;
        e->t = op->next;
        val r;
        if (prec <= 2) { /* && and || evaluate their right side only when needed */
            bool lt = out->v != 0;
            bool rlive = live && (prec == 2 ? lt : !lt);
            if ((st = binary(e, prec + 1, rlive, &r)))
                break;
            *out = (val){prec == 2 ? lt && r.v != 0 : lt || r.v != 0, false};
            continue;
        }
        if ((st = binary(e, prec + 1, live, &r)))
            break;
        st = apply(e, op, *out, r, live, out);
    }
    return st;
}

static cvm_status cond_in(ev *e, bool live, val *out);

/* A ?: expression, one level deeper (its operands recurse). */
static cvm_status cond(ev *e, bool live, val *out) { return deeper(e, cond_in, live, out); }

static cvm_status cond_in(ev *e, bool live, val *out)
{
    cvm_status st = binary(e, 1, live, out);
    if (st || !is_op(e->t, "?"))
        return st;
    const pp_tok *q = e->t;
    e->t = q->next;
    bool c = out->v != 0;
    val a, b;
    if ((st = cond(e, live && c, &a)))
        return st;
    while (is_op(e->t, ",")) {
        e->t = e->t->next;
        if ((st = cond(e, live && c, &a)))
            return st;
    }
    if (!is_op(e->t, ":"))
        return e->t ? bad_token(e) : cvm_fe_pp_error(e->p, CVM_SYNTAX, q, "'?' without following ':'");
    e->t = e->t->next;
    if ((st = cond(e, live && !c, &b)))
        return st;
    *out = (val){c ? a.v : b.v, a.uns || b.uns};
    return CVM_OK;
}

/* Replaces `defined X` / `defined(X)` with 1 or 0 before expansion. */
static cvm_status replace_defined(pp *p, pp_tok *line, pp_tok **out)
{
    pp_tok *head = NULL, **tail = &head;
    for (pp_tok *t = line; t;) {
        pp_tok *next = t->next;
        if (t->kind == PP_IDENT && cvm_fe_pp_is(t, "defined")) {
            const pp_tok *after = t->next;
            bool d;
            cvm_status st = defined_operand(p, &after, t, &d);
            if (st)
                return st;
            t->kind = PP_NUMBER;
            t->text = d ? "1" : "0";
            t->len = 1;
            next = (pp_tok *)after;
        }
        *tail = t;
        tail = &t->next;
        *tail = NULL;
        t = next;
    }
    *out = head;
    return CVM_OK;
}

cvm_status cvm_fe_pp_eval(pp *p, pp_tok *line, const pp_tok *at, bool *out_value)
{
    pp_tok *list, *expanded;
    cvm_status st = replace_defined(p, line, &list);
    if (st || (st = cvm_fe_pp_expand_list(p, list, &expanded)))
        return st;
    if (!expanded)
        return cvm_fe_pp_error(p, CVM_SYNTAX, at, "#%.*s with no expression", (int)at->len, at->text);
    ev e = {p, expanded, at, 0};
    val v;
    if ((st = cond(&e, true, &v)))
        return st;
    while (!st && is_op(e.t, ",")) {
        e.t = e.t->next;
        st = cond(&e, true, &v);
    }
    if (st)
        return st;
    if (e.t)
        return cvm_fe_pp_error(p, CVM_SYNTAX, e.t, "missing binary operator before token \"%.*s\"",
                               (int)e.t->len, e.t->text);
    *out_value = v.v != 0;
    return CVM_OK;
}
