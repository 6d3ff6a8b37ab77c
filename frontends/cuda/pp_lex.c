/*
 * pp_lex.c - the preprocessor's arenas and tokenizer.
 *
 * The tokenizer reads preprocessing tokens straight from the source text.
 * Line continuations (backslash-newline) are skipped wherever they occur,
 * so every token keeps the physical line and column of its first
 * character; a token spelled across a continuation gets a copy of its text
 * without it. Comments count as whitespace; a newline inside a block
 * comment does not end a directive, as in C.
 */
#include "pp_int.h"

#include <string.h>

#define CHUNK_SIZE (64u << 10)

void *cvm_fe_pp_alloc(pp *p, pp_arena *a, size_t size)
{
    size = (size + 7) & ~(size_t)7;
    pp_chunk *c = a->head;
    if (!c || c->size - c->used < size) {
        size_t data = size > CHUNK_SIZE ? size : CHUNK_SIZE;
        size_t total = sizeof(pp_chunk) + data;
        if (p->arena_bytes + total > PP_MAX_ARENA) {
            cvm_fe_pp_error(p, CVM_LIMIT, NULL,
                            "preprocessing needs more than %u MiB (runaway macro expansion?)",
                            PP_MAX_ARENA >> 20);
            return NULL;
        }
        c = cvm_bc_alloc(p->fn, p->user, total);
        if (!c) {
            cvm_fe_pp_error(p, CVM_OUT_OF_MEMORY, NULL, "out of memory while preprocessing");
            return NULL;
        }
        c->size = data;
        c->next = a->head;
        a->head = c;
        a->bytes += total;
        p->arena_bytes += total;
    }
    void *r = (char *)(c + 1) + c->used;
    c->used += size;
    return r;
}

void cvm_fe_pp_arena_free(pp *p, pp_arena *a)
{
    while (a->head) {
        pp_chunk *c = a->head;
        a->head = c->next;
        size_t total = sizeof(pp_chunk) + c->size;
        p->arena_bytes -= total;
        cvm_bc_free(p->fn, p->user, c, total);
    }
    a->bytes = 0;
}

char *cvm_fe_pp_strdup(pp *p, pp_arena *a, const char *s, size_t n)
{
    char *r = cvm_fe_pp_alloc(p, a, n + 1);
    if (r) {
        memcpy(r, s, n);
        r[n] = 0;
    }
    return r;
}

pp_tok *cvm_fe_pp_tok_copy(pp *p, const pp_tok *t)
{
    pp_tok *r = cvm_fe_pp_alloc(p, &p->tmp, sizeof *r);
    if (r) {
        *r = *t;
        r->next = NULL;
    }
    return r;
}

bool cvm_fe_pp_is(const pp_tok *t, const char *s)
{
    size_t n = strlen(s);
    return t->len == n && memcmp(t->text, s, n) == 0;
}

void cvm_fe_pp_lex_init(pp_lexer *lx, const char *text, size_t len, const char *fname)
{
    memset(lx, 0, sizeof *lx);
    lx->buf = text;
    lx->len = len;
    lx->line = lx->col = 1;
    lx->fname = fname;
    lx->bol = true;
}

/* Position after any continuations starting at q. */
static size_t past_splices(const pp_lexer *lx, size_t q)
{
    while (q < lx->len && lx->buf[q] == '\\') {
        size_t r = q + 1;
        if (r < lx->len && lx->buf[r] == '\r')
            r++;
        if (r >= lx->len || lx->buf[r] != '\n')
            break;
        q = r + 1;
    }
    return q;
}

/* The k-th character ahead, continuations skipped; -1 past the end. */
static int look(const pp_lexer *lx, unsigned k)
{
    size_t q = lx->pos;
    for (;;) {
        q = past_splices(lx, q);
        if (q >= lx->len)
            return -1;
        if (k == 0)
            return (unsigned char)lx->buf[q];
        k--;
        q++;
    }
}

/* Moves the position onto the next real character (over continuations). */
static void settle(pp_lexer *lx)
{
    size_t q = past_splices(lx, lx->pos);
    for (size_t i = lx->pos; i < q; i++)
        if (lx->buf[i] == '\n') {
            lx->line++;
            lx->col = 1;
        }
    lx->pos = q;
}

static void adv(pp_lexer *lx)
{
    settle(lx);
    if (lx->pos >= lx->len)
        return;
    if (lx->buf[lx->pos] == '\n') {
        lx->line++;
        lx->col = 1;
    } else {
        lx->col++;
    }
    lx->pos++;
}

static bool ident_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c >= 0x80;
}

static bool ident_char(int c) { return ident_start(c) || (c >= '0' && c <= '9'); }
static bool digit(int c) { return c >= '0' && c <= '9'; }

/* Whitespace and comments before a token; notes newlines and spaces. */
static cvm_status skip_space(pp *p, pp_lexer *lx, bool *space)
{
    for (;;) {
        int c = look(lx, 0);
        if (c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r') {
            adv(lx);
            *space = true;
        } else if (c == '\n') {
            settle(lx);
            if (!lx->bol)
                lx->eol_line = lx->line;
            adv(lx);
            lx->bol = true;
            *space = false;
        } else if (c == '/' && look(lx, 1) == '/') {
            while ((c = look(lx, 0)) != -1 && c != '\n')
                adv(lx);
            *space = true;
        } else if (c == '/' && look(lx, 1) == '*') {
            settle(lx);
            pp_tok at = {.fname = lx->fname, .line = (uint32_t)(lx->line + lx->line_delta),
                         .col = lx->col};
            adv(lx);
            adv(lx);
            while (!(look(lx, 0) == '*' && look(lx, 1) == '/')) {
                if (look(lx, 0) == -1)
                    return cvm_fe_pp_error(p, CVM_SYNTAX, &at, "unterminated comment");
                adv(lx);
            }
            adv(lx);
            adv(lx);
            *space = true;
        } else {
            return CVM_OK;
        }
    }
}

static const char *const puncts3[] = {"...", "<<=", ">>=", "->*"};
static const char *const puncts2[] = {"->", "++", "--", "<<", ">>", "<=", ">=", "==",
                                      "!=", "&&", "||", "*=", "/=", "%=", "+=", "-=",
                                      "&=", "^=", "|=", "##", "::", ".*"};

/* Length of the punctuator at the position, 0 if none. */
static unsigned punct_len(const pp_lexer *lx)
{
    int c0 = look(lx, 0), c1 = look(lx, 1), c2 = look(lx, 2);
    for (size_t i = 0; i < sizeof puncts3 / sizeof puncts3[0]; i++)
        if (c0 == puncts3[i][0] && c1 == puncts3[i][1] && c2 == puncts3[i][2])
            return 3;
    for (size_t i = 0; i < sizeof puncts2 / sizeof puncts2[0]; i++)
        if (c0 == puncts2[i][0] && c1 == puncts2[i][1])
            return 2;
    return c0 > 0 && strchr("[](){}.&*+-~!/%<>^|?:;=,#", c0) ? 1 : 0;
}

/* A character or string literal whose quote is `q`; position on the quote. */
static uint8_t literal(pp_lexer *lx, int q)
{
    adv(lx);
    for (;;) {
        int c = look(lx, 0);
        if (c == -1 || c == '\n')
            return PP_BADLIT;
        adv(lx);
        if (c == q)
            return q == '"' ? PP_STRING : PP_CHAR;
        if (c == '\\' && look(lx, 0) != '\n' && look(lx, 0) != -1)
            adv(lx);
    }
}

/* Length of an encoding prefix (L, u, U, u8) directly before a quote. */
static unsigned literal_prefix(const pp_lexer *lx)
{
    int c0 = look(lx, 0), c1 = look(lx, 1);
    if ((c0 == 'L' || c0 == 'U' || c0 == 'u') && (c1 == '"' || c1 == '\''))
        return 1;
    if (c0 == 'u' && c1 == '8' && (look(lx, 2) == '"' || look(lx, 2) == '\''))
        return 2;
    return 0;
}

/* Scans one token body; returns its kind. */
static uint8_t scan(pp_lexer *lx)
{
    int c = look(lx, 0);
    unsigned n = literal_prefix(lx);
    if (n) {
        while (n--)
            adv(lx);
        return literal(lx, look(lx, 0));
    }
    if (ident_start(c)) {
        while (ident_char(look(lx, 0)))
            adv(lx);
        return PP_IDENT;
    }
    if (digit(c) || (c == '.' && digit(look(lx, 1)))) {
        /* pp-number, with exponent signs and C++14 digit separators */
        for (;;) {
            int d = look(lx, 0);
            if ((d == 'e' || d == 'E' || d == 'p' || d == 'P') &&
                (look(lx, 1) == '+' || look(lx, 1) == '-')) {
                adv(lx);
                adv(lx);
            } else if (d == '\'' && ident_char(look(lx, 1))) {
                adv(lx);
                adv(lx);
            } else if (ident_char(d) || d == '.') {
                adv(lx);
            } else {
                return PP_NUMBER;
            }
        }
    }
    if (c == '"' || c == '\'')
        return literal(lx, c);
    n = punct_len(lx);
    if (n) {
        while (n--)
            adv(lx);
        return PP_PUNCT;
    }
    adv(lx);
    return PP_OTHER;
}

/* Token text from raw source [a, b): the source itself unless it holds a
 * continuation, which the copy leaves out. */
static const char *spelling(pp *p, pp_arena *ar, const pp_lexer *lx, size_t a, size_t b,
                            uint32_t *out_len)
{
    if (!memchr(lx->buf + a, '\\', b - a)) {
        *out_len = (uint32_t)(b - a);
        return lx->buf + a;
    }
    char *s = cvm_fe_pp_alloc(p, ar, b - a + 1);
    if (!s)
        return NULL;
    size_t n = 0;
    for (size_t i = a; i < b;) {
        size_t j = past_splices(lx, i);
        if (j != i) {
            i = j;
            continue;
        }
        s[n++] = lx->buf[i++];
    }
    s[n] = 0;
    *out_len = (uint32_t)n;
    return s;
}

cvm_status cvm_fe_pp_lex(pp *p, pp_lexer *lx, pp_arena *a, pp_tok **out)
{
    bool space = false;
    cvm_status st = skip_space(p, lx, &space);
    if (st)
        return st;
    settle(lx);
    pp_tok *t = cvm_fe_pp_alloc(p, a, sizeof *t);
    if (!t)
        return p->st;
    memset(t, 0, sizeof *t);
    t->fname = lx->fname;
    t->line = (uint32_t)(lx->line + lx->line_delta);
    t->col = lx->col;
    t->flags = (uint8_t)((lx->bol ? PPF_BOL : 0) | (space ? PPF_SPACE : 0));
    lx->bol = false;
    size_t start = lx->pos;
    if (start >= lx->len) {
        t->kind = PP_EOF;
        t->flags |= PPF_BOL;
        t->text = "";
        *out = t;
        return CVM_OK;
    }
    t->kind = scan(lx);
    t->text = spelling(p, a, lx, start, lx->pos, &t->len);
    if (!t->text)
        return p->st;
    *out = t;
    return CVM_OK;
}
