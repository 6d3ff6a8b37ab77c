/*
 * pp_macro.c - the macro table, #define parsing and macro expansion.
 *
 * Expansion follows Prosser's algorithm as the C standard describes it:
 * every token carries a hide set, the macros it may no longer expand to.
 * An object-like macro's replacement gets the name's hide set plus the
 * macro; a function-like one the intersection of the hide sets of its name
 * and closing parenthesis plus the macro. The replacement is pushed in
 * front of the remaining input and rescanned from there, so a macro
 * expanding to the name of a function-like macro takes its arguments from
 * the text after the call. A name whose macro is in its own hide set stays
 * "painted blue" for good, wherever it is later rescanned.
 */
#include "pp_int.h"

#include <string.h>

static uint32_t hash_name(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h % PP_NBUCKETS;
}

pp_macro *cvm_fe_pp_macro_find(pp *p, const char *name, size_t len)
{
    for (pp_macro *m = p->macros[hash_name(name, len)]; m; m = m->next)
        if (m->len == len && memcmp(m->name, name, len) == 0)
            return m;
    return NULL;
}

void cvm_fe_pp_macro_remove(pp *p, const char *name, size_t len)
{
    for (pp_macro **pm = &p->macros[hash_name(name, len)]; *pm; pm = &(*pm)->next)
        if ((*pm)->len == len && memcmp((*pm)->name, name, len) == 0) {
            *pm = (*pm)->next;
            return;
        }
}

void cvm_fe_pp_macro_add(pp *p, pp_macro *m)
{
    cvm_fe_pp_macro_remove(p, m->name, m->len);
    uint32_t h = hash_name(m->name, m->len);
    m->next = p->macros[h];
    p->macros[h] = m;
}

/* ---- #define ---- */

/* A copy in perm of the token, unlinked. */
static pp_tok *perm_copy(pp *p, const pp_tok *t)
{
    pp_tok *r = cvm_fe_pp_alloc(p, &p->perm, sizeof *r);
    if (!r)
        return NULL;
    *r = *t;
    r->next = NULL;
    r->hs = NULL;
    r->text = cvm_fe_pp_strdup(p, &p->perm, t->text, t->len);
    return r->text ? r : NULL;
}

/* Parameter list after "NAME(": fills m->params, m->nparams, m->variadic;
 * *pt moves past the ')'. */
static cvm_status parse_params(pp *p, pp_macro *m, pp_tok **pt, const pp_tok *name)
{
    pp_tok *t = *pt, **tail = (pp_tok **)&m->params;
    if (t && cvm_fe_pp_is(t, ")")) {
        *pt = t->next;
        return CVM_OK;
    }
    for (;;) {
        if (!t)
            return cvm_fe_pp_error(p, CVM_SYNTAX, name, "missing ')' in the parameter list of macro \"%.*s\"",
                                   (int)name->len, name->text);
        pp_tok *pn = t;
        if (cvm_fe_pp_is(t, "...")) {
            static const pp_tok va = {.kind = PP_IDENT, .text = "__VA_ARGS__", .len = 11};
            pn = (pp_tok *)&va;
            m->variadic = true;
        } else if (t->kind != PP_IDENT || cvm_fe_pp_is(t, "__VA_ARGS__")) {
            return cvm_fe_pp_error(p, CVM_SYNTAX, t, "expected a parameter name, found \"%.*s\"",
                                   (int)t->len, t->text);
        } else if (t->next && cvm_fe_pp_is(t->next, "...")) {
            m->variadic = true; /* GNU named variadic parameter */
            t = t->next;
        }
        for (const pp_tok *q = m->params; q; q = q->next)
            if (q->len == pn->len && memcmp(q->text, pn->text, pn->len) == 0)
                return cvm_fe_pp_error(p, CVM_SYNTAX, t, "duplicate macro parameter \"%.*s\"",
                                       (int)pn->len, pn->text);
        if (m->nparams == UINT16_MAX)
            return cvm_fe_pp_error(p, CVM_LIMIT, t, "too many macro parameters");
        if (!(*tail = perm_copy(p, pn)))
            return p->st;
        tail = &(*tail)->next;
        m->nparams++;
        t = t->next;
        if (t && cvm_fe_pp_is(t, ")")) {
            *pt = t->next;
            return CVM_OK;
        }
        if (!t || !cvm_fe_pp_is(t, ",") || m->variadic)
            return cvm_fe_pp_error(p, CVM_SYNTAX, t ? t : name,
                                   "expected ',' or ')' in the parameter list of macro \"%.*s\"",
                                   (int)name->len, name->text);
        t = t->next;
    }
}

static int param_index(const pp_macro *m, const pp_tok *t)
{
    int i = 0;
    if (t->kind != PP_IDENT)
        return -1;
    for (const pp_tok *q = m->params; q; q = q->next, i++)
        if (q->len == t->len && memcmp(q->text, t->text, t->len) == 0)
            return i;
    return -1;
}

/* Copies the replacement list into perm, marking parameters, and checks
 * the placement of # and ##. */
static cvm_status parse_body(pp *p, pp_macro *m, pp_tok *t)
{
    pp_tok **tail = (pp_tok **)&m->body;
    bool first = true;
    for (; t; t = t->next) {
        pp_tok *c = perm_copy(p, t);
        if (!c)
            return p->st;
        c->flags &= (uint8_t)~PPF_BOL;
        if (first)
            c->flags &= (uint8_t)~PPF_SPACE;
        int pi = m->funclike ? param_index(m, t) : -1;
        if (pi >= 0) {
            c->flags |= PPF_PARAM;
            c->param = (uint16_t)pi;
        } else if (cvm_fe_pp_is(t, "__VA_ARGS__")) {
            return cvm_fe_pp_error(p, CVM_SYNTAX, t,
                                   "__VA_ARGS__ can only appear in the expansion of a variadic macro");
        }
        if (m->funclike && cvm_fe_pp_is(t, "#") && (!t->next || param_index(m, t->next) < 0))
            return cvm_fe_pp_error(p, CVM_SYNTAX, t, "'#' is not followed by a macro parameter");
        if (cvm_fe_pp_is(t, "##") && (first || !t->next))
            return cvm_fe_pp_error(p, CVM_SYNTAX, t,
                                   "'##' cannot appear at either end of a macro expansion");
        *tail = c;
        tail = &c->next;
        first = false;
    }
    return CVM_OK;
}

cvm_status cvm_fe_pp_define(pp *p, pp_tok *line, const pp_tok *at)
{
    pp_tok *name = line;
    if (!name)
        return cvm_fe_pp_error(p, CVM_SYNTAX, at, "no macro name given in #define directive");
    if (name->kind != PP_IDENT)
        return cvm_fe_pp_error(p, CVM_SYNTAX, name, "macro names must be identifiers");
    if (cvm_fe_pp_is(name, "defined") || cvm_fe_pp_is(name, "__VA_ARGS__"))
        return cvm_fe_pp_error(p, CVM_SYNTAX, name, "\"%.*s\" cannot be used as a macro name",
                               (int)name->len, name->text);
    pp_macro *m = cvm_fe_pp_alloc(p, &p->perm, sizeof *m);
    if (!m)
        return p->st;
    memset(m, 0, sizeof *m);
    m->name = cvm_fe_pp_strdup(p, &p->perm, name->text, name->len);
    if (!m->name)
        return p->st;
    m->len = name->len;
    pp_tok *t = name->next;
    if (t && cvm_fe_pp_is(t, "(") && !(t->flags & PPF_SPACE)) {
        m->funclike = true;
        t = t->next;
        cvm_status st = parse_params(p, m, &t, name);
        if (st)
            return st;
    } else if (t && !(t->flags & PPF_SPACE)) {
        return cvm_fe_pp_error(p, CVM_SYNTAX, t, "missing whitespace after the macro name");
    }
    cvm_status st = parse_body(p, m, t);
    if (st)
        return st;
    cvm_fe_pp_macro_add(p, m);
    return CVM_OK;
}

/* ---- hide sets ---- */

static bool hs_has(const pp_hideset *h, const pp_macro *m)
{
    for (; h; h = h->next)
        if (h->m == m)
            return true;
    return false;
}

/* a ∪ b (shares b). */
static const pp_hideset *hs_union(pp *p, const pp_hideset *a, const pp_hideset *b)
{
    const pp_hideset *r = b;
    for (; a; a = a->next) {
        if (hs_has(b, a->m))
            continue;
        pp_hideset *n = cvm_fe_pp_alloc(p, &p->tmp, sizeof *n);
        if (!n)
            return NULL;
        n->m = a->m;
        n->next = (pp_hideset *)r;
        r = n;
    }
    return r;
}

/* (a ∩ b) ∪ {m} */
static const pp_hideset *hs_call(pp *p, const pp_hideset *a, const pp_hideset *b, const pp_macro *m)
{
    pp_hideset *r = cvm_fe_pp_alloc(p, &p->tmp, sizeof *r);
    if (!r)
        return NULL;
    r->m = m;
    r->next = NULL;
    for (; a; a = a->next) {
        if (a->m == m || !hs_has(b, a->m))
            continue;
        pp_hideset *n = cvm_fe_pp_alloc(p, &p->tmp, sizeof *n);
        if (!n)
            return NULL;
        n->m = a->m;
        n->next = r;
        r = n;
    }
    return r;
}

/* ---- reading tokens ---- */

cvm_status cvm_fe_pp_next(pp *p, pp_tok **out)
{
    if (p->pending) {
        *out = p->pending;
        p->pending = p->pending->next;
        (*out)->next = NULL;
        return CVM_OK;
    }
    if (p->no_lexer || p->nsrcs == 0) {
        /* fresh each time: it may be pushed back onto the pending list */
        pp_tok *t = cvm_fe_pp_alloc(p, &p->tmp, sizeof *t);
        if (!t)
            return p->st;
        memset(t, 0, sizeof *t);
        t->kind = PP_EOF;
        t->text = "";
        t->flags = PPF_BOL;
        *out = t;
        return CVM_OK;
    }
    pp_src *s = &p->srcs[p->nsrcs - 1];
    if (s->ahead) {
        *out = s->ahead;
        s->ahead = NULL;
        return CVM_OK;
    }
    return cvm_fe_pp_lex(p, &s->lx, &p->tmp, out);
}

static void push_front(pp *p, pp_tok *t)
{
    t->next = p->pending;
    p->pending = t;
}

/* ---- substitution ---- */

typedef struct call {
    const pp_macro *m;
    const pp_tok *name;
    pp_tok **args;       /* nparams raw argument lists (NULL when empty) */
    pp_tok **expanded;   /* fully expanded, computed on first use */
    bool *have_expanded;
    uint32_t nargs;      /* given (variadic: may be nparams - 1) */
} call;

typedef struct tlist {
    pp_tok *head, **tail, *last;
} tlist;

static void tl_init(tlist *l)
{
    l->head = l->last = NULL;
    l->tail = &l->head;
}

static void tl_add(tlist *l, pp_tok *t)
{
    t->next = NULL;
    *l->tail = t;
    l->tail = &t->next;
    l->last = t;
}

/* Appends copies of list's tokens, the first one's spacing taken from
 * `like` when given; returns false on allocation failure. */
static bool tl_add_copies(pp *p, tlist *l, const pp_tok *list, const pp_tok *like)
{
    for (bool first = true; list; list = list->next, first = false) {
        pp_tok *c = cvm_fe_pp_tok_copy(p, list);
        if (!c)
            return false;
        if (first && like)
            c->flags = (uint8_t)((c->flags & ~PPF_SPACE) | (like->flags & PPF_SPACE));
        tl_add(l, c);
    }
    return true;
}

/* Removes the last token of l (l->last), returning it. */
static pp_tok *tl_pop(tlist *l)
{
    pp_tok **pp_ = &l->head, *prev = NULL;
    while (*pp_ && *pp_ != l->last) {
        prev = *pp_;
        pp_ = &(*pp_)->next;
    }
    pp_tok *t = l->last;
    *pp_ = NULL;
    l->tail = pp_;
    l->last = prev;
    return t;
}

/* The # operator: the argument's spelling as a string literal. */
static pp_tok *stringize(pp *p, const pp_tok *arg, const pp_tok *hash)
{
    size_t n = 3;
    for (const pp_tok *t = arg; t; t = t->next)
        n += 2 * (size_t)t->len + 1;
    char *s = cvm_fe_pp_alloc(p, &p->tmp, n);
    pp_tok *r = cvm_fe_pp_tok_copy(p, hash);
    if (!s || !r)
        return NULL;
    size_t k = 0;
    s[k++] = '"';
    for (const pp_tok *t = arg; t; t = t->next) {
        if (t != arg && (t->flags & (PPF_SPACE | PPF_BOL)))
            s[k++] = ' ';
        bool lit = t->kind == PP_STRING || t->kind == PP_CHAR;
        for (uint32_t i = 0; i < t->len; i++) {
            if (lit && (t->text[i] == '"' || t->text[i] == '\\'))
                s[k++] = '\\';
            s[k++] = t->text[i];
        }
    }
    s[k++] = '"';
    s[k] = 0;
    r->text = s;
    r->len = (uint32_t)k;
    r->kind = PP_STRING;
    return r;
}

/* The ## operator on two tokens (either may be a placemarker). */
static cvm_status paste(pp *p, pp_tok *l, const pp_tok *r, const pp_tok *where, pp_tok **out)
{
    if (l->kind == PP_PLACEMARKER) {
        *out = cvm_fe_pp_tok_copy(p, r);
        return *out ? CVM_OK : p->st;
    }
    if (r->kind == PP_PLACEMARKER) {
        *out = l;
        return CVM_OK;
    }
    char *s = cvm_fe_pp_alloc(p, &p->tmp, (size_t)l->len + r->len + 1);
    if (!s)
        return p->st;
    memcpy(s, l->text, l->len);
    memcpy(s + l->len, r->text, r->len);
    s[l->len + r->len] = 0;
    pp_lexer lx;
    cvm_fe_pp_lex_init(&lx, s, (size_t)l->len + r->len, where->fname);
    pp_tok *t;
    cvm_status st = cvm_fe_pp_lex(p, &lx, &p->tmp, &t);
    if (st)
        return st;
    if (t->kind == PP_EOF || t->kind == PP_BADLIT || t->len != l->len + r->len || t->flags & PPF_SPACE)
        return cvm_fe_pp_error(p, CVM_SYNTAX, where,
                               "pasting \"%.*s\" and \"%.*s\" does not give a valid preprocessing token",
                               (int)l->len, l->text, (int)r->len, r->text);
    t->flags = l->flags;
    t->hs = l->hs;
    *out = t;
    return CVM_OK;
}

static const pp_tok *arg_expanded(pp *p, call *c, uint16_t i, cvm_status *st)
{
    if (!c->have_expanded[i]) {
        *st = cvm_fe_pp_expand_list(p, c->args[i], &c->expanded[i]);
        if (*st)
            return NULL;
        c->have_expanded[i] = true;
    }
    return c->expanded[i];
}

/* `a ## b` with l holding the result so far: pastes b's first token. */
static cvm_status subst_paste(pp *p, call *c, tlist *l, const pp_tok *b)
{
    const pp_tok *rhs = b;
    static const pp_tok marker = {.kind = PP_PLACEMARKER, .text = ""};
    if (b->flags & PPF_PARAM) {
        rhs = c->args[b->param];
        /* GNU `, ## __VA_ARGS__`: no pasting; the comma goes when the
         * variable arguments are empty */
        if (c->m->variadic && b->param == c->m->nparams - 1 && l->last &&
            cvm_fe_pp_is(l->last, ",")) {
            if (!rhs)
                tl_pop(l);
            return tl_add_copies(p, l, rhs, NULL) ? CVM_OK : p->st;
        }
        if (!rhs)
            rhs = &marker;
    }
    pp_tok *lhs = l->last ? tl_pop(l) : (pp_tok *)&marker, *res;
    cvm_status st = paste(p, lhs, rhs, c->name, &res);
    if (st)
        return st;
    tl_add(l, res);
    /* the rest of an argument follows the pasted token; a body token is one
     * token (the body after it is subst's to copy: copying it here too
     * emitted it twice, `a##1 + 100` as `x1 + 100 + 100`) */
    if (!(b->flags & PPF_PARAM))
        return CVM_OK;
    return tl_add_copies(p, l, rhs->next, NULL) ? CVM_OK : p->st;
}

static cvm_status subst(pp *p, call *c, tlist *l)
{
    static const pp_tok marker = {.kind = PP_PLACEMARKER, .text = ""};
    const pp_macro *m = c->m;
    tl_init(l);
    for (const pp_tok *b = m->body; b; b = b->next) {
        cvm_status st = CVM_OK;
        if (m->funclike && cvm_fe_pp_is(b, "#")) {
            pp_tok *s = stringize(p, c->args[b->next->param], b);
            if (!s)
                return p->st;
            tl_add(l, s);
            b = b->next;
        } else if (cvm_fe_pp_is(b, "##") && !(b->flags & PPF_PARAM)) {
            st = subst_paste(p, c, l, b->next);
            b = b->next;
        } else if (b->flags & PPF_PARAM) {
            /* operands of ## are used as written, others fully expanded first */
            const pp_tok *a = c->args[b->param];
            if (b->next && cvm_fe_pp_is(b->next, "##") && !(b->next->flags & PPF_PARAM)) {
                if (!a)
                    a = &marker;
            } else {
                a = arg_expanded(p, c, b->param, &st);
            }
            if (!st && !tl_add_copies(p, l, a, b))
                st = p->st;
        } else {
            pp_tok *x = cvm_fe_pp_tok_copy(p, b);
            if (!x)
                return p->st;
            tl_add(l, x);
        }
        if (st)
            return st;
    }
    return CVM_OK;
}

/* Reads "(args)" after a function-like macro's name; *out_rparen is the ')'. */
static cvm_status collect_args(pp *p, call *c, pp_tok **out_rparen)
{
    const pp_macro *m = c->m;
    const pp_tok *name = c->name;
    uint32_t slots = m->nparams ? m->nparams : 1, idx = 0, depth = 0;
    c->args = cvm_fe_pp_alloc(p, &p->tmp, slots * sizeof(pp_tok *));
    c->expanded = cvm_fe_pp_alloc(p, &p->tmp, slots * sizeof(pp_tok *));
    c->have_expanded = cvm_fe_pp_alloc(p, &p->tmp, slots * sizeof(bool));
    if (!c->args || !c->expanded || !c->have_expanded)
        return p->st;
    memset(c->args, 0, slots * sizeof(pp_tok *));
    memset(c->have_expanded, 0, slots * sizeof(bool));
    tlist cur;
    tl_init(&cur);
    for (;;) {
        pp_tok *t;
        cvm_status st = cvm_fe_pp_next(p, &t);
        if (st)
            return st;
        if (t->kind == PP_EOF)
            return cvm_fe_pp_error(p, CVM_SYNTAX, name, "unterminated argument list invoking macro \"%.*s\"",
                                   (int)name->len, name->text);
        if ((t->flags & PPF_BOL) && !(t->flags & PPF_MACRO) && cvm_fe_pp_is(t, "#"))
            return cvm_fe_pp_error(p, CVM_SYNTAX, t,
                                   "preprocessing directives inside the arguments of macro \"%.*s\" are not supported",
                                   (int)name->len, name->text);
        if (t->kind == PP_BADLIT)
            return cvm_fe_pp_badlit(p, t);
        if (cvm_fe_pp_is(t, "(")) {
            depth++;
        } else if (cvm_fe_pp_is(t, ")")) {
            if (depth == 0) {
                *out_rparen = t;
                break;
            }
            depth--;
        } else if (cvm_fe_pp_is(t, ",") && depth == 0 && !(m->variadic && idx + 1 >= m->nparams)) {
            if (idx < slots)
                c->args[idx] = cur.head;
            idx++;
            tl_init(&cur);
            continue;
        }
        tl_add(&cur, t);
    }
    if (idx < slots)
        c->args[idx] = cur.head;
    c->nargs = idx + 1;
    if (m->nparams == 0 && c->nargs == 1 && !c->args[0])
        c->nargs = 0;
    if (c->nargs < m->nparams && !(m->variadic && c->nargs + 1 == m->nparams))
        return cvm_fe_pp_error(p, CVM_SYNTAX, name, "macro \"%.*s\" requires %u arguments, but only %u given",
                               (int)name->len, name->text, m->nparams, c->nargs);
    if (c->nargs > m->nparams)
        return cvm_fe_pp_error(p, CVM_SYNTAX, name, "macro \"%.*s\" passed %u arguments, but takes just %u",
                               (int)name->len, name->text, c->nargs, m->nparams);
    return CVM_OK;
}

/* Gives the replacement the call's position and hide set, drops
 * placemarkers, and puts it in front of the pending input. */
static cvm_status push_replacement(pp *p, tlist *l, const pp_tok *name, const pp_hideset *hs)
{
    pp_tok *last = NULL;
    for (pp_tok **pt = &l->head; *pt;) {
        pp_tok *x = *pt;
        if (x->kind == PP_PLACEMARKER) {
            *pt = x->next;
            continue;
        }
        x->flags = (uint8_t)((x->flags & ~(PPF_BOL | PPF_PARAM)) | PPF_MACRO);
        if (x == l->head)
            x->flags = (uint8_t)((x->flags & ~PPF_SPACE) | (name->flags & PPF_SPACE));
        x->fname = name->fname;
        x->line = name->line;
        x->col = name->col;
        x->hs = x->hs ? hs_union(p, x->hs, hs) : hs;
        if (!x->hs)
            return p->st;
        last = x;
        pt = &x->next;
    }
    if (last) {
        last->next = p->pending;
        p->pending = l->head;
    }
    return CVM_OK;
}

/* __FILE__, __LINE__, __COUNTER__ */
static cvm_status expand_builtin(pp *p, const pp_macro *m, const pp_tok *t)
{
    pp_tok *r = cvm_fe_pp_tok_copy(p, t);
    char *s = cvm_fe_pp_alloc(p, &p->tmp, m->builtin == PPB_FILE ? 2 * strlen(t->fname) + 3 : 24);
    if (!r || !s)
        return p->st;
    size_t k = 0;
    if (m->builtin == PPB_FILE) {
        s[k++] = '"';
        for (const char *f = t->fname; *f; f++) {
            if (*f == '"' || *f == '\\')
                s[k++] = '\\';
            s[k++] = *f;
        }
        s[k++] = '"';
        r->kind = PP_STRING;
    } else {
        uint32_t v = m->builtin == PPB_LINE ? t->line : p->counter++;
        char tmp[16];
        int n = 0;
        do
            tmp[n++] = (char)('0' + v % 10);
        while ((v /= 10) != 0);
        while (n)
            s[k++] = tmp[--n];
        r->kind = PP_NUMBER;
    }
    s[k] = 0;
    r->text = s;
    r->len = (uint32_t)k;
    r->flags = (uint8_t)((r->flags & ~PPF_BOL) | PPF_MACRO);
    push_front(p, r);
    return CVM_OK;
}

cvm_status cvm_fe_pp_expand(pp *p, pp_tok *t, bool *expanded)
{
    *expanded = false;
    if (t->kind != PP_IDENT)
        return CVM_OK;
    pp_macro *m = cvm_fe_pp_macro_find(p, t->text, t->len);
    if (!m || hs_has(t->hs, m))
        return CVM_OK;
    if (m->builtin) {
        *expanded = true;
        return expand_builtin(p, m, t);
    }
    call c = {.m = m, .name = t};
    const pp_hideset *hs;
    cvm_status st;
    if (m->funclike) {
        pp_tok *n, *rparen = NULL;
        if ((st = cvm_fe_pp_next(p, &n)))
            return st;
        if (!cvm_fe_pp_is(n, "(") || n->kind != PP_PUNCT) {
            push_front(p, n);
            return CVM_OK;
        }
        if ((st = collect_args(p, &c, &rparen)))
            return st;
        hs = hs_call(p, t->hs, rparen->hs, m);
    } else {
        hs = hs_call(p, t->hs, t->hs, m);
    }
    if (!hs)
        return p->st;
    tlist l;
    if ((st = subst(p, &c, &l)))
        return st;
    *expanded = true;
    return push_replacement(p, &l, t, hs);
}

cvm_status cvm_fe_pp_expand_list(pp *p, pp_tok *list, pp_tok **out)
{
    if (p->expand_depth >= PP_MAX_EXPAND_DEPTH)
        return cvm_fe_pp_error(p, CVM_LIMIT, list, "macro arguments nested more than %u deep",
                               PP_MAX_EXPAND_DEPTH);
    /* the raw list stays intact for # and ## */
    tlist in;
    tl_init(&in);
    if (!tl_add_copies(p, &in, list, NULL))
        return p->st;
    pp_tok *saved = p->pending;
    bool saved_no_lexer = p->no_lexer;
    p->pending = in.head;
    p->no_lexer = true;
    p->expand_depth++;
    tlist r;
    tl_init(&r);
    cvm_status st = CVM_OK;
    for (;;) {
        pp_tok *t;
        bool expanded;
        if ((st = cvm_fe_pp_next(p, &t)) || t->kind == PP_EOF)
            break;
        if ((st = cvm_fe_pp_expand(p, t, &expanded)))
            break;
        if (!expanded)
            tl_add(&r, t);
    }
    p->expand_depth--;
    p->pending = saved;
    p->no_lexer = saved_no_lexer;
    *out = r.head;
    return st;
}
