/*
 * lex.c - the CUDA frontend's tokenizer: preprocessed text to tokens.
 *
 * Input is the preprocessor's output: GNU line markers (`# 12 "file.cu"`)
 * set the position of the following lines, `#pragma` lines become one
 * TK_PRAGMA token (the parser reads `#pragma unroll`), and any other
 * directive left over is an error (it means the text was not preprocessed).
 */
#include "fe.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct lexer {
    fe_ctx *c;
    const char *p, *end, *line_start;
    uint32_t file, line;
} lexer;

static const char *const puncts[] = {
    "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=",
    "-=", "*=", "/=", "%=", "&=", "|=", "^=", "::", "+", "-", "*", "/", "%", "&", "|", "^", "~",
    "!", "<", ">", "=", "?", ":", ";", ",", ".", "(", ")", "[", "]", "{", "}", "#",
};

static uint32_t add_file(fe_ctx *c, const char *name, size_t n)
{
    for (uint32_t i = 0; i < c->nfiles; i++)
        if (strlen(c->files[i]) == n && memcmp(c->files[i], name, n) == 0)
            return i;
    if (c->nfiles == c->capfiles) {
        uint32_t cap = c->capfiles ? c->capfiles * 2 : 8;
        const char **f = fe_alloc(c, sizeof *f * cap);
        if (!f)
            return 0;
        if (c->files)
            memcpy(f, c->files, sizeof *f * c->nfiles);
        c->files = f;
        c->capfiles = cap;
    }
    c->files[c->nfiles] = fe_strndup(c, name, n);
    return c->nfiles++;
}

static fe_tok *new_tok(lexer *L, fe_tk kind, const char *s, size_t n)
{
    fe_ctx *c = L->c;
    if (c->ntoks + 1 >= c->captoks) {
        uint32_t cap = c->captoks ? c->captoks * 2 : 1024;
        fe_tok *t = fe_alloc(c, sizeof *t * cap);
        if (!t)
            return &c->eof;
        if (c->toks)
            memcpy(t, c->toks, sizeof *t * c->ntoks);
        c->toks = t;
        c->captoks = cap;
    }
    fe_tok *t = &c->toks[c->ntoks++];
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->s = s;
    t->len = (uint32_t)n;
    t->file = L->file;
    t->line = L->line;
    t->col = (uint32_t)(s - L->line_start) + 1;
    t->line_start = L->line_start;
    return t;
}

static void lex_error(lexer *L, const char *at, const char *msg)
{
    fe_tok t;
    memset(&t, 0, sizeof t);
    t.file = L->file;
    t.line = L->line;
    t.col = (uint32_t)(at - L->line_start) + 1;
    fe_error(L->c, &t, CVM_SYNTAX, "%s", msg);
}

/* `# 12 "file" flags` or `#line 12 "file"`: p is after '#'. */
static bool line_marker(lexer *L, const char *p)
{
    while (p < L->end && (*p == ' ' || *p == '\t'))
        p++;
    if (L->end - p > 4 && memcmp(p, "line", 4) == 0)
        p += 4;
    while (p < L->end && (*p == ' ' || *p == '\t'))
        p++;
    if (p >= L->end || !isdigit((unsigned char)*p))
        return false;
    unsigned long n = strtoul(p, NULL, 10);
    while (p < L->end && isdigit((unsigned char)*p))
        p++;
    while (p < L->end && (*p == ' ' || *p == '\t'))
        p++;
    if (p < L->end && *p == '"') {
        const char *q = ++p;
        while (q < L->end && *q != '"' && *q != '\n')
            q++;
        L->file = add_file(L->c, p, (size_t)(q - p));
    }
    L->line = (uint32_t)n - 1; /* the newline ending the marker advances it */
    return true;
}

/* A line starting with '#': marker, pragma, or an error. Returns the end of the line. */
static const char *directive(lexer *L, const char *hash)
{
    const char *eol = hash;
    while (eol < L->end && *eol != '\n')
        eol++;
    const char *p = hash + 1;
    while (p < eol && (*p == ' ' || *p == '\t'))
        p++;
    if (eol - p >= 6 && memcmp(p, "pragma", 6) == 0) {
        p += 6;
        while (p < eol && (*p == ' ' || *p == '\t'))
            p++;
        new_tok(L, TK_PRAGMA, p, (size_t)(eol - p));
        return eol;
    }
    if (!line_marker(L, hash + 1))
        lex_error(L, hash, "preprocessor directive left after preprocessing");
    return eol;
}

static int hexval(int ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    ch = tolower(ch);
    return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/* One escape after the backslash at *pp; advances. */
/* The value of the escape sequence after a backslash at *pp (advanced past
 * it): a byte, or -1 for an octal or hex escape past 0xff (an error, as in
 * C++). */
static int escape(const char **pp, const char *end)
{
    const char *p = *pp;
    int ch = p < end ? *p++ : 0;
    unsigned v = (unsigned)ch;
    switch (ch) {
    case 'n': v = '\n'; break;
    case 't': v = '\t'; break;
    case 'r': v = '\r'; break;
    case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7':
        v = (unsigned)(ch - '0');
        for (int i = 0; i < 2 && p < end && *p >= '0' && *p <= '7'; i++)
            v = v * 8 + (unsigned)(*p++ - '0');
        break;
    case 'x':
        v = 0;
        while (p < end && hexval(*p) >= 0) {
            v = v * 16 + (unsigned)hexval(*p++);
            if (v > 0xff) /* saturates: the digits go on, the value is out of range */
                v = 0x100;
        }
        break;
    case 'a': v = 7; break;
    case 'b': v = 8; break;
    case 'f': v = 12; break;
    case 'v': v = 11; break;
    default: break;
    }
    *pp = p;
    return (ch == 'x' || (ch >= '0' && ch <= '7')) && v > 0xff ? -1 : (int)(v & 0xff);
}

static const char *lex_number(lexer *L, const char *p)
{
    const char *s = p;
    bool is_float = false;
    bool hex = p + 1 < L->end && p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    if (hex)
        p += 2;
    while (p < L->end) {
        int ch = (unsigned char)*p;
        if (isalnum(ch) || ch == '.' || ch == '\'') {
            if (ch == '.')
                is_float = true;
            if (!hex && (ch == 'e' || ch == 'E') && p + 1 < L->end &&
                (p[1] == '+' || p[1] == '-')) {
                is_float = true;
                p += 2;
                continue;
            }
            if (hex && (ch == 'p' || ch == 'P')) {
                is_float = true;
                if (p + 1 < L->end && (p[1] == '+' || p[1] == '-'))
                    p++;
            }
            if (!hex && (ch == 'e' || ch == 'E'))
                is_float = true;
            p++;
        } else {
            break;
        }
    }
    char buf[128];
    size_t n = 0;
    for (const char *q = s; q < p && n < sizeof buf - 1; q++)
        if (*q != '\'')
            buf[n++] = *q;
    buf[n] = 0;
    fe_tok *t = new_tok(L, is_float ? TK_FLOAT : TK_INT, s, (size_t)(p - s));
    char *e = NULL;
    if (is_float) {
        t->fval = strtod(buf, &e);
        for (; e && *e; e++) {
            if (*e == 'f' || *e == 'F')
                t->is_float32 = true;
            else if (*e != 'l' && *e != 'L')
                break;
        }
    } else {
        int base = hex ? 16 : (buf[0] == '0' && buf[1] == 'b') ? 2 : (buf[0] == '0') ? 8 : 10;
        t->ival = strtoull(base == 2 ? buf + 2 : buf, &e, base);
        for (; e && *e; e++) {
            if (*e == 'u' || *e == 'U')
                t->is_unsigned = true;
            else if (*e == 'l' || *e == 'L')
                t->is_long = true;
            else
                break;
        }
        t->nondecimal = base != 10;
    }
    if (e && *e)
        lex_error(L, s, "malformed number");
    return p;
}

static const char *lex_quoted(lexer *L, const char *p)
{
    char q = *p;
    const char *s = p++, *e = p;
    while (e < L->end && *e != q && *e != '\n') /* the end first: the bytes fit in as many */
        e += *e == '\\' && e + 1 < L->end && e[1] != '\n' ? 2 : 1;
    if (e >= L->end || *e != q) {
        lex_error(L, s, q == '"' ? "unterminated string" : "unterminated character constant");
        return L->end;
    }
    char *tmp = fe_alloc(L->c, (size_t)(e - p) + 1);
    size_t n = 0;
    if (!tmp)
        return L->end;
    while (p < e) {
        const char *at = p;
        int ch = (unsigned char)*p++;
        if (ch == '\\' && (ch = escape(&p, e)) < 0) {
            lex_error(L, at, "octal or hex escape sequence out of range (a char holds 0 to 0xff)");
            return L->end;
        }
        tmp[n++] = (char)ch;
    }
    p++;
    fe_tok *t = new_tok(L, q == '"' ? TK_STR : TK_CHAR, s, (size_t)(p - s));
    if (q == '"') {
        tmp[n] = 0;
        t->str = tmp;
        t->ival = n; /* its bytes, embedded NULs too */
    } else {
        t->ival = n ? (uint64_t)(unsigned char)tmp[0] : 0;
    }
    return p;
}

cvm_status fe_lex(fe_ctx *c, const char *text, size_t len, const char *filename)
{
    lexer L = {c, text, text + len, text, 0, 1};
    L.file = add_file(c, filename, strlen(filename));
    bool bol = true;
    const char *p = text;
    while (p < L.end && !c->err) {
        char ch = *p;
        if (ch == '\n') {
            p++;
            L.line++;
            L.line_start = p;
            bol = true;
            continue;
        }
        if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v') {
            p++;
            continue;
        }
        if (ch == '\\' && p + 1 < L.end && p[1] == '\n') {
            p++;
            continue;
        }
        if (ch == '/' && p + 1 < L.end && p[1] == '/') {
            while (p < L.end && *p != '\n')
                p++;
            continue;
        }
        if (ch == '/' && p + 1 < L.end && p[1] == '*') {
            const char *s = p;
            p += 2;
            while (p + 1 < L.end && !(p[0] == '*' && p[1] == '/')) {
                if (*p == '\n') {
                    L.line++;
                    L.line_start = p + 1;
                }
                p++;
            }
            if (p + 1 >= L.end) {
                lex_error(&L, s, "unterminated comment");
                break;
            }
            p += 2;
            continue;
        }
        if (ch == '#' && bol) {
            p = directive(&L, p);
            continue;
        }
        bol = false;
        if (isdigit((unsigned char)ch) || (ch == '.' && p + 1 < L.end && isdigit((unsigned char)p[1]))) {
            p = lex_number(&L, p);
            continue;
        }
        if (isalpha((unsigned char)ch) || ch == '_') {
            const char *s = p;
            while (p < L.end && (isalnum((unsigned char)*p) || *p == '_'))
                p++;
            new_tok(&L, TK_IDENT, s, (size_t)(p - s));
            continue;
        }
        if (ch == '"' || ch == '\'') {
            p = lex_quoted(&L, p);
            continue;
        }
        size_t i;
        for (i = 0; i < sizeof puncts / sizeof puncts[0]; i++) {
            size_t n = strlen(puncts[i]);
            if ((size_t)(L.end - p) >= n && memcmp(p, puncts[i], n) == 0)
                break;
        }
        if (i == sizeof puncts / sizeof puncts[0]) {
            lex_error(&L, p, "stray character in program");
            break;
        }
        size_t n = strlen(puncts[i]);
        new_tok(&L, TK_PUNCT, p, n);
        p += n;
    }
    fe_tok *e = new_tok(&L, TK_EOF, L.end, 0);
    c->eof = *e;
    return c->err ? c->err_status : CVM_OK;
}
