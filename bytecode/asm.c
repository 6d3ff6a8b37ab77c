/*
 * asm.c - the assembler: .cbs text (docs/asm.md) to a module.
 *
 * One pass over the lines. The module is built in growable arrays owned by
 * the assembler, then serialized with cvm_bc_module_write and read back
 * with cvm_bc_module_read, so the caller gets the same one-blob module that
 * loading a .cbc file gives, and the two can never differ. Errors are
 * "file:line:col: error: message" with the position also in the diag.
 */
#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- growable arrays and name tables ---- */

typedef struct vec {
    void *p;
    uint32_t n, cap;
} vec;

typedef struct tok {
    const char *s;
    uint32_t n, col;
    char kind; /* 'w' word, 's' string, or the punctuation character; 0 at end of line */
} tok;

typedef struct regname {
    const char *s;
    uint32_t n;
} regname;

typedef struct strref {
    uint32_t off, len;
} strref;

/* Open hashing of u32 indexes (stored +1); the caller compares keys. */
typedef struct table {
    uint32_t *slot;
    uint32_t cap, n;
} table;

typedef struct kstate {
    vec params, regs, regnames, code; /* cvm_bc_param, cvm_bc_type, regname, uint32_t */
    table regtab;
    uint32_t name, flags, plane_width, shared, local, max_cube;
    uint32_t ninsns;
    bool body_started;
    vec scope_stack, inline_stack; /* open scopes and inlined calls: uint32_t indexes */
    uint32_t first_line, first_col;
    vec pos; /* per instruction: its line and its mnemonic's column (uint32_t pairs) */
} kstate;

typedef struct as {
    cvm_alloc_fn fn;
    void *user;
    const char *file;
    cvm_diag *diag;
    cvm_status st;
    bool oom;
    /* current line */
    const char *line;
    size_t line_len;
    uint32_t lineno, pos;
    /* module under construction */
    vec pool, strs;       /* string bytes; strref */
    table strtab;
    vec kernels;          /* cvm_bc_kernel (arrays filled at .end) */
    vec kstates;          /* kstate of every kernel, freed at the end */
    vec symbols, data;    /* cvm_bc_symbol; uint8_t */
    vec files, lines, scopes, inlines, vars;
    uint32_t const_size;
    bool raw_data, auto_data;
    kstate *k;            /* kernel being assembled, NULL outside */
    vec scratch;          /* decoded string literal */
} as;

static void *vec_push(as *a, vec *v, size_t esz, uint32_t count)
{
    if (a->oom)
        return NULL;
    if (count == 0) /* callers only test for NULL (out of memory) */
        return v;
    if (v->cap - v->n < count) {
        uint64_t cap = v->cap ? v->cap : 8;
        while (cap - v->n < count)
            cap *= 2;
        if (cap * esz > ((size_t)1 << 32)) {
            a->oom = true;
            return NULL;
        }
        void *np = a->fn(a->user, v->p, (size_t)v->cap * esz, (size_t)cap * esz);
        if (!np) {
            a->oom = true;
            return NULL;
        }
        v->p = np;
        v->cap = (uint32_t)cap;
    }
    void *at = (char *)v->p + (size_t)v->n * esz;
    memset(at, 0, esz * count);
    v->n += count;
    return at;
}

static void vec_free(as *a, vec *v, size_t esz)
{
    if (v->p)
        a->fn(a->user, v->p, (size_t)v->cap * esz, 0);
    memset(v, 0, sizeof *v);
}

static uint32_t hash_bytes(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h;
}

typedef bool (*key_eq)(as *a, uint32_t idx, const char *s, size_t n);

/* Finds key s; returns the slot (0 = empty) through *slot for insertion. */
static uint32_t table_find(as *a, table *t, key_eq eq, const char *s, size_t n, uint32_t **slot)
{
    if (!t->cap)
        return UINT32_MAX;
    uint32_t i = hash_bytes(s, n) & (t->cap - 1);
    while (t->slot[i]) {
        if (eq(a, t->slot[i] - 1, s, n))
            return t->slot[i] - 1;
        i = (i + 1) & (t->cap - 1);
    }
    if (slot)
        *slot = &t->slot[i];
    return UINT32_MAX;
}

typedef void (*key_of)(as *a, uint32_t idx, const char **s, size_t *n);

/* Inserts index idx (not present); grows at half load. */
static void table_add(as *a, table *t, key_eq eq, key_of key, uint32_t idx)
{
    if ((t->n + 1) * 2 > t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 64;
        uint32_t *ns = a->oom ? NULL : a->fn(a->user, NULL, 0, (size_t)cap * 4);
        if (!ns) {
            a->oom = true;
            return;
        }
        memset(ns, 0, (size_t)cap * 4);
        table old = *t;
        t->slot = ns;
        t->cap = cap;
        t->n = 0;
        for (uint32_t i = 0; i < old.cap; i++)
            if (old.slot[i])
                table_add(a, t, eq, key, old.slot[i] - 1);
        if (old.slot)
            a->fn(a->user, old.slot, (size_t)old.cap * 4, 0);
    }
    const char *s;
    size_t n;
    key(a, idx, &s, &n);
    uint32_t *slot = NULL;
    table_find(a, t, eq, s, n, &slot);
    *slot = idx + 1;
    t->n++;
}

static void table_free(as *a, table *t)
{
    if (t->slot)
        a->fn(a->user, t->slot, (size_t)t->cap * 4, 0);
    memset(t, 0, sizeof *t);
}

/* ---- strings ---- */

static void str_key(as *a, uint32_t idx, const char **s, size_t *n)
{
    strref *r = (strref *)a->strs.p + idx;
    /* The pool is still unallocated when only empty strings were added. */
    *s = a->pool.p ? (const char *)a->pool.p + r->off : "";
    *n = r->len;
}
static bool str_eq(as *a, uint32_t idx, const char *s, size_t n)
{
    const char *k;
    size_t kn;
    str_key(a, idx, &k, &kn);
    return kn == n && memcmp(k, s, n) == 0;
}

/* Appends a string to the table (always a new entry). */
static uint32_t str_add(as *a, const char *s, size_t n)
{
    uint32_t off = a->pool.n;
    char *dst = vec_push(a, &a->pool, 1, (uint32_t)n);
    strref *r = vec_push(a, &a->strs, sizeof *r, 1);
    if (!dst || !r)
        return 0;
    memcpy(dst, s, n);
    *r = (strref){off, (uint32_t)n};
    uint32_t idx = a->strs.n - 1;
    if (table_find(a, &a->strtab, str_eq, s, n, NULL) == UINT32_MAX)
        table_add(a, &a->strtab, str_eq, str_key, idx);
    return idx;
}

/* The index of the first string equal to s, added if new. */
static uint32_t intern(as *a, const char *s, size_t n)
{
    uint32_t i = table_find(a, &a->strtab, str_eq, s, n, NULL);
    return i != UINT32_MAX ? i : str_add(a, s, n);
}

/* ---- diagnostics ---- */

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static cvm_status err(as *a, uint32_t col, const char *fmt, ...)
{
    if (a->st)
        return a->st;
    a->st = CVM_SYNTAX;
    if (a->diag) {
        char msg[400];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        cvm_diag_set(a->diag, CVM_SYNTAX, "%s:%u:%u: error: %s", a->file, a->lineno, col, msg);
        snprintf(a->diag->file, sizeof a->diag->file, "%s", a->file);
        a->diag->line = a->lineno;
        a->diag->col = col;
    }
    return CVM_SYNTAX;
}

/* ---- lexer ---- */

static bool is_punct(char c) { return c == ',' || c == '[' || c == ']' || c == '='; }
static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

/* The next token of the current line; kind 0 at the end (or a comment). */
static tok next(as *a)
{
    while (a->pos < a->line_len && is_space(a->line[a->pos]))
        a->pos++;
    tok t = {a->line + a->pos, 0, a->pos + 1, 0};
    if (a->pos >= a->line_len || a->line[a->pos] == ';')
        return t;
    char c = a->line[a->pos];
    if (is_punct(c)) {
        t.kind = c;
        t.n = 1;
        a->pos++;
        return t;
    }
    if (c == '"') {
        uint32_t p = a->pos + 1;
        while (p < a->line_len && a->line[p] != '"')
            p += a->line[p] == '\\' && p + 1 < a->line_len ? 2 : 1;
        t.kind = p < a->line_len ? 's' : '!'; /* '!' = unterminated string */
        t.n = (p < a->line_len ? p + 1 : p) - a->pos;
        a->pos += t.n;
        return t;
    }
    while (a->pos < a->line_len && !is_space(a->line[a->pos]) && !is_punct(a->line[a->pos]) &&
           a->line[a->pos] != ';' && a->line[a->pos] != '"')
        a->pos++;
    t.kind = 'w';
    t.n = a->pos - (t.col - 1);
    return t;
}

static tok peek(as *a)
{
    uint32_t save = a->pos;
    tok t = next(a);
    a->pos = save;
    return t;
}

static bool tok_is(tok t, const char *w) { return t.kind == 'w' && strlen(w) == t.n && memcmp(t.s, w, t.n) == 0; }

static cvm_status expect_end(as *a)
{
    tok t = next(a);
    if (t.kind)
        return err(a, t.col, "unexpected '%.*s' at the end of the line", (int)t.n, t.s);
    return CVM_OK;
}

/* Two hex digits the caller has checked. (Not sscanf: the text need not be NUL-terminated.) */
static unsigned hex2(const char *s)
{
    unsigned v = 0;
    for (int k = 0; k < 2; k++) {
        char c = s[k];
        v = v * 16 + (unsigned)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return v;
}

/* Decodes a string token into a scratch buffer (n bytes at most 1 MiB). */
static cvm_status unquote(as *a, tok t, char **out, size_t *out_n, vec *scratch)
{
    if (t.kind == '!')
        return err(a, t.col, "unterminated string");
    if (t.kind != 's')
        return err(a, t.col, "expected a string");
    scratch->n = 0;
    for (uint32_t i = 1; i + 1 < t.n; i++) {
        char c = t.s[i];
        if (c == '\\') {
            char e = t.s[++i];
            if (e == 'n')
                c = '\n';
            else if (e == 't')
                c = '\t';
            else if (e == '\\' || e == '"')
                c = e;
            else if (e == 'x' && i + 2 < t.n - 1 + 1 && strchr("0123456789abcdefABCDEF", t.s[i + 1]) &&
                     strchr("0123456789abcdefABCDEF", t.s[i + 2]) && t.s[i + 1] && t.s[i + 2]) {
                unsigned v = hex2(t.s + i + 1);
                if (v == 0)
                    return err(a, t.col + i - 1, "strings cannot contain NUL (\\x00)");
                c = (char)v;
                i += 2;
            } else {
                return err(a, t.col + i - 1, "unknown escape '\\%c' (use \\n \\t \\\\ \\\" \\xHH)", e);
            }
        }
        char *d = vec_push(a, scratch, 1, 1);
        if (!d)
            return CVM_OUT_OF_MEMORY;
        *d = c;
    }
    *out = scratch->p ? scratch->p : (char *)"";
    *out_n = scratch->n;
    return CVM_OK;
}

/* ---- small parsers ---- */

static vec *scratch_of(as *a);

/* A name: a bare word or a quoted string; returns its string index. */
static cvm_status parse_name(as *a, tok t, const char *what, uint32_t *out)
{
    if (t.kind == 'w') {
        *out = intern(a, t.s, t.n);
        return CVM_OK;
    }
    if (t.kind != 's' && t.kind != '!')
        return err(a, t.col, "expected %s", what);
    char *s;
    size_t n;
    cvm_status st = unquote(a, t, &s, &n, scratch_of(a));
    if (st)
        return st;
    *out = intern(a, s, n);
    return CVM_OK;
}

static cvm_status parse_u64(as *a, tok t, const char *what, uint64_t *out)
{
    uint64_t v = 0;
    bool neg;
    if (t.kind != 'w' || cvm_bc_parse_int(t.s, t.n, &v, &neg) || neg)
        return err(a, t.col, "expected %s (a non-negative integer)%s%.*s%s", what, t.kind ? ", got '" : "",
                   (int)t.n, t.s, t.kind ? "'" : "");
    *out = v;
    return CVM_OK;
}

static cvm_status parse_u32(as *a, tok t, const char *what, uint32_t *out)
{
    uint64_t v = 0;
    cvm_status st = parse_u64(a, t, what, &v);
    if (!st && v > UINT32_MAX)
        return err(a, t.col, "%s %.*s does not fit in 32 bits", what, (int)t.n, t.s);
    *out = (uint32_t)v;
    return st;
}

/* u32 immediates may be written negative (two's complement). */
static cvm_status parse_imm32(as *a, tok t, uint32_t *out)
{
    uint64_t v = 0;
    bool neg = false;
    if (t.kind != 'w' || cvm_bc_parse_int(t.s, t.n, &v, &neg))
        return err(a, t.col, "expected an integer, got '%.*s'", (int)t.n, t.s);
    if (neg ? v > 0x80000000u : v > UINT32_MAX)
        return err(a, t.col, "integer %.*s does not fit in 32 bits", (int)t.n, t.s);
    *out = neg ? (uint32_t)(0u - (uint32_t)v) : (uint32_t)v;
    return CVM_OK;
}

/* ELEM or ELEMxN. */
static bool type_parse(const char *s, size_t n, cvm_bc_type *out)
{
    unsigned line = 1;
    size_t en = n;
    for (size_t i = n; i > 0; i--) {
        if (s[i - 1] >= '0' && s[i - 1] <= '9')
            continue;
        if (s[i - 1] == 'x' && i < n) {
            unsigned v = 0;
            for (size_t j = i; j < n && v < 100; j++)
                v = v * 10 + (unsigned)(s[j] - '0');
            if (v != 2 && v != 4 && v != 8 && v != 16)
                return false;
            line = v;
            en = i - 1;
        }
        break;
    }
    unsigned e = cvm_bc_elem_parse(s, en);
    if (e == CVM_T_NONE)
        return false;
    *out = (cvm_bc_type){(uint8_t)e, (uint8_t)line};
    return true;
}

static cvm_status parse_type(as *a, tok t, cvm_bc_type *out)
{
    if (t.kind != 'w' || !type_parse(t.s, t.n, out))
        return err(a, t.col, "bad type '%.*s'", (int)t.n, t.s);
    return CVM_OK;
}

static bool is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

/* "0x" and an even number of hex digits: a little-endian memory image. */
static cvm_status parse_hexbytes(as *a, tok t)
{
    if (t.kind != 'w' || t.n < 2 || t.s[0] != '0' || t.s[1] != 'x' || t.n % 2)
        return err(a, t.col, "expected initializer bytes as 0x followed by pairs of hex digits");
    for (uint32_t i = 2; i < t.n; i += 2) {
        if (!t.s[i] || !t.s[i + 1] || !strchr("0123456789abcdefABCDEF", t.s[i]) ||
            !strchr("0123456789abcdefABCDEF", t.s[i + 1]))
            return err(a, t.col + i, "bad hex digit in initializer bytes");
        unsigned v = hex2(t.s + i);
        uint8_t *d = vec_push(a, &a->data, 1, 1);
        if (!d)
            return CVM_OUT_OF_MEMORY;
        *d = (uint8_t)v;
    }
    return CVM_OK;
}

/* ---- module directives ---- */

static cvm_status dir_symbol(as *a, tok dir, bool constant)
{
    cvm_bc_symbol s = {0};
    cvm_status st;
    tok t = next(a);
    if ((st = parse_name(a, t, "a symbol name", &s.name)))
        return st;
    tok name = t;
    for (uint32_t i = 0; i < a->symbols.n; i++)
        if (((cvm_bc_symbol *)a->symbols.p)[i].name == s.name)
            return err(a, t.col, "duplicate symbol '%.*s'", (int)t.n, t.s);
    s.space = constant ? CVM_SYM_CONST : CVM_SYM_GLOBAL;
    t = next(a);
    cvm_bc_type ty;
    if (tok_is(t, "bytes"))
        s.elem = 0;
    else if (t.kind == 'w' && type_parse(t.s, t.n, &ty) && ty.line == 1)
        s.elem = ty.elem;
    else
        return err(a, t.col, "bad symbol element type '%.*s' (a scalar type or bytes)", (int)t.n, t.s);
    if ((st = parse_u32(a, next(a), "a symbol size", &s.size)))
        return st;
    t = next(a);
    if ((st = parse_u32(a, t, "a symbol alignment", &s.align)))
        return st;
    if (!is_pow2(s.align) || s.align > 4096)
        return err(a, t.col, "bad align %u (a power of two up to 4096)", s.align);
    t = next(a);
    if (tok_is(t, "init")) { /* explicit placement, the raw data form */
        if (a->auto_data)
            return err(a, t.col, "'init' placement cannot follow automatically placed symbols");
        a->raw_data = true;
        if ((st = parse_u32(a, next(a), "an initializer offset", &s.init_off)) ||
            (st = parse_u32(a, next(a), "an initializer size", &s.init_size)))
            return st;
        if (s.init_off > a->data.n || s.init_size > a->data.n - s.init_off)
            return err(a, t.col, "initializer [%u, +%u) outside the %u data bytes", s.init_off, s.init_size,
                       a->data.n);
    } else {
        if (a->raw_data && (t.kind || constant))
            return err(a, t.col, "after .data, symbols are placed with 'init OFFSET SIZE'");
        uint32_t start = a->data.n;
        if (constant) { /* constants live in the data at their ptr.const address */
            a->auto_data = true;
            uint32_t off = (a->data.n + s.align - 1) & ~(s.align - 1);
            if (!vec_push(a, &a->data, 1, off - a->data.n))
                return CVM_OUT_OF_MEMORY;
            start = off;
        }
        if (t.kind == '=') {
            a->auto_data = true;
            if ((st = parse_hexbytes(a, next(a))))
                return st;
            t = next(a);
        }
        s.init_off = a->data.n > start || constant ? start : 0;
        s.init_size = a->data.n - start;
        if (s.init_size > s.size)
            return err(a, dir.col, "initializer of %u bytes is larger than the symbol (%u)", s.init_size, s.size);
        if (constant) {
            /* The constant space is materialized here: bound it before allocating. */
            if ((uint64_t)a->data.n + (s.size - s.init_size) > CVM_BC_MAX_CONST)
                return err(a, dir.col, "constant '%.*s' of %u bytes does not fit the %u-byte constant space",
                           (int)name.n, name.s, s.size, CVM_BC_MAX_CONST);
            if (!vec_push(a, &a->data, 1, s.size - s.init_size))
                return CVM_OUT_OF_MEMORY;
            if (a->data.n > a->const_size)
                a->const_size = a->data.n;
        }
        if (t.kind)
            return err(a, t.col, "unexpected '%.*s' (expected '= 0x...' or the end of the line)", (int)t.n, t.s);
    }
    cvm_bc_symbol *d = vec_push(a, &a->symbols, sizeof s, 1);
    if (!d)
        return CVM_OUT_OF_MEMORY;
    *d = s;
    return expect_end(a);
}

static cvm_status dir_module(as *a, tok d)
{
    cvm_status st;
    if (tok_is(d, ".file")) {
        uint32_t idx, name;
        tok t = next(a);
        if ((st = parse_u32(a, t, "a file index", &idx)))
            return st;
        if (idx != a->files.n)
            return err(a, t.col, "file index %u out of order (expected %u)", idx, a->files.n);
        tok p = next(a);
        if (p.kind != 's')
            return p.kind == '!' ? err(a, p.col, "unterminated string") : err(a, p.col, "expected a file path string");
        if ((st = parse_name(a, p, "a file path", &name)))
            return st;
        uint32_t *f = vec_push(a, &a->files, 4, 1);
        if (!f)
            return CVM_OUT_OF_MEMORY;
        *f = name;
        return expect_end(a);
    }
    if (tok_is(d, ".string")) {
        tok t = next(a);
        char *s;
        size_t n;
        if ((st = unquote(a, t, &s, &n, scratch_of(a))))
            return st;
        str_add(a, s, n);
        return expect_end(a);
    }
    if (tok_is(d, ".global") || tok_is(d, ".constant"))
        return dir_symbol(a, d, tok_is(d, ".constant"));
    if (tok_is(d, ".data")) {
        if (a->auto_data || a->symbols.n)
            return err(a, d.col, ".data must come before every .global and .constant");
        a->raw_data = true;
        if ((st = parse_hexbytes(a, next(a))))
            return st;
        return expect_end(a);
    }
    if (tok_is(d, ".const_size")) {
        if (a->auto_data || a->symbols.n)
            return err(a, d.col, ".const_size must come before every .global and .constant");
        a->raw_data = true;
        if ((st = parse_u32(a, next(a), "a constant space size", &a->const_size)))
            return st;
        return expect_end(a);
    }
    return err(a, d.col, "unknown directive '%.*s'", (int)d.n, d.s);
}

/* ---- kernels ---- */

static void reg_key(as *a, uint32_t idx, const char **s, size_t *n)
{
    regname *r = (regname *)a->k->regnames.p + idx;
    *s = r->s;
    *n = r->n;
}
static bool reg_eq(as *a, uint32_t idx, const char *s, size_t n)
{
    regname *r = (regname *)a->k->regnames.p + idx;
    return r->n == n && memcmp(r->s, s, n) == 0;
}

static cvm_status dir_kernel(as *a, tok d)
{
    uint32_t name;
    cvm_status st;
    tok t = next(a);
    if ((st = parse_name(a, t, "a kernel name", &name)))
        return st;
    for (uint32_t i = 0; i < a->kernels.n; i++)
        if (((cvm_bc_kernel *)a->kernels.p)[i].name == name)
            return err(a, t.col, "duplicate kernel '%.*s'", (int)t.n, t.s);
    cvm_bc_kernel *k = vec_push(a, &a->kernels, sizeof *k, 1);
    kstate *ks = vec_push(a, &a->kstates, sizeof *ks, 1);
    if (!k || !ks)
        return CVM_OUT_OF_MEMORY;
    k->name = ks->name = name;
    ks->first_line = a->lineno;
    ks->first_col = d.col;
    a->k = ks;
    return expect_end(a);
}

static cvm_status dir_param(as *a)
{
    kstate *k = a->k;
    cvm_bc_param p = {0};
    cvm_status st;
    tok t = next(a);
    if ((st = parse_name(a, t, "a parameter name", &p.name)))
        return st;
    for (uint32_t i = 0; i < k->params.n; i++)
        if (((cvm_bc_param *)k->params.p)[i].name == p.name)
            return err(a, t.col, "duplicate parameter '%.*s'", (int)t.n, t.s);
    if (k->params.n >= CVM_BC_MAX_PARAMS)
        return err(a, t.col, "more than %u parameters", CVM_BC_MAX_PARAMS);
    tok kind = next(a);
    cvm_bc_type ty;
    p.line = 1;
    if (tok_is(kind, "struct")) {
        p.kind = CVM_PARAM_STRUCT;
        if ((st = parse_u32(a, next(a), "a struct size", &p.size)))
            return st;
        t = next(a);
        if ((st = parse_u32(a, t, "a struct alignment", &p.align)))
            return st;
        if (!is_pow2(p.align))
            return err(a, t.col, "bad align %u (a power of two)", p.align);
    } else if (tok_is(kind, "buffer") || tok_is(kind, "scalar") || tok_is(kind, "comptime")) {
        p.kind = tok_is(kind, "buffer") ? CVM_PARAM_BUFFER
                 : tok_is(kind, "scalar") ? CVM_PARAM_SCALAR : CVM_PARAM_COMPTIME;
        t = next(a);
        if ((st = parse_type(a, t, &ty)))
            return st;
        if (p.kind == CVM_PARAM_COMPTIME && ty.line != 1)
            return err(a, t.col, "comptime parameters are scalars");
        p.elem = ty.elem;
        p.line = ty.line;
        p.size = p.align = p.kind == CVM_PARAM_BUFFER ? 8 : cvm_bc_elem_size(ty.elem) * ty.line;
        if (p.kind == CVM_PARAM_BUFFER) {
            t = next(a);
            if (tok_is(t, "read"))
                p.access = CVM_ACCESS_READ;
            else if (tok_is(t, "write"))
                p.access = CVM_ACCESS_WRITE;
            else if (tok_is(t, "readwrite"))
                p.access = CVM_ACCESS_READWRITE;
            else
                return err(a, t.col, "expected read, write or readwrite");
        }
    } else {
        return err(a, kind.col, "unknown parameter kind '%.*s' (buffer, scalar, struct, comptime)", (int)kind.n,
                   kind.s);
    }
    /* size=N align=N: only for layouts that differ from the defaults above */
    for (t = next(a); t.kind; t = next(a)) {
        bool is_size = tok_is(t, "size");
        if (!is_size && !tok_is(t, "align"))
            return err(a, t.col, "unexpected '%.*s' after the parameter", (int)t.n, t.s);
        tok eq = next(a);
        if (eq.kind != '=')
            return err(a, eq.col, "expected '='");
        if ((st = parse_u32(a, next(a), is_size ? "a size" : "an alignment", is_size ? &p.size : &p.align)))
            return st;
    }
    cvm_bc_param *dst = vec_push(a, &k->params, sizeof p, 1);
    if (!dst)
        return CVM_OUT_OF_MEMORY;
    *dst = p;
    return CVM_OK;
}

static cvm_status dir_reg(as *a)
{
    kstate *k = a->k;
    cvm_bc_type ty;
    cvm_status st;
    tok t = next(a);
    if ((st = parse_type(a, t, &ty)))
        return st;
    for (;;) {
        t = next(a);
        if (t.kind != 'w' || t.s[0] != '%' || t.n < 2)
            return err(a, t.col, "expected a register name (%%name)");
        if (table_find(a, &k->regtab, reg_eq, t.s, t.n, NULL) != UINT32_MAX)
            return err(a, t.col, "register '%.*s' declared twice", (int)t.n, t.s);
        if (k->regs.n >= CVM_BC_MAX_REGS)
            return err(a, t.col, "more than %u registers", CVM_BC_MAX_REGS);
        cvm_bc_type *r = vec_push(a, &k->regs, sizeof *r, 1);
        regname *rn = vec_push(a, &k->regnames, sizeof *rn, 1);
        if (!r || !rn)
            return CVM_OUT_OF_MEMORY;
        *r = ty;
        *rn = (regname){t.s, t.n};
        table_add(a, &k->regtab, reg_eq, reg_key, k->regs.n - 1);
        t = next(a);
        if (!t.kind)
            return CVM_OK;
        if (t.kind != ',')
            return err(a, t.col, "expected ',' between registers");
    }
}

static cvm_status reg_ref(as *a, tok t, uint32_t *out)
{
    if (t.kind != 'w' || t.s[0] != '%')
        return err(a, t.col, "expected a register%s%.*s%s", t.kind ? ", got '" : "", (int)t.n, t.s,
                   t.kind ? "'" : "");
    uint32_t i = table_find(a, &a->k->regtab, reg_eq, t.s, t.n, NULL);
    if (i == UINT32_MAX)
        return err(a, t.col, "undeclared register '%.*s'", (int)t.n, t.s);
    *out = i;
    return CVM_OK;
}

static cvm_status loc_args(as *a, uint32_t *file, uint32_t *line, uint32_t *col)
{
    cvm_status st;
    tok t = next(a);
    if ((st = parse_u32(a, t, "a file index", file)))
        return st;
    if (*file >= a->files.n)
        return err(a, t.col, "file index %u is not declared with .file", *file);
    if ((st = parse_u32(a, next(a), "a line number", line)) || (st = parse_u32(a, next(a), "a column", col)))
        return st;
    return CVM_OK;
}

static uint32_t top(vec *v) { return v->n ? ((uint32_t *)v->p)[v->n - 1] : UINT32_MAX; }

/* .loc .scope .endscope .var .inline .endinline */
static cvm_status dir_debug(as *a, tok d)
{
    kstate *k = a->k;
    uint32_t kidx = a->kernels.n - 1, pc = k->ninsns;
    cvm_status st;
    if (tok_is(d, ".loc")) {
        cvm_bc_dline l = {kidx, pc, 0, 0, 0};
        if ((st = loc_args(a, &l.file, &l.line, &l.col)))
            return st;
        cvm_bc_dline *dst = vec_push(a, &a->lines, sizeof l, 1);
        if (!dst)
            return CVM_OUT_OF_MEMORY;
        *dst = l;
    } else if (tok_is(d, ".scope") || tok_is(d, ".inline")) {
        bool sc = tok_is(d, ".scope");
        vec *stack = sc ? &k->scope_stack : &k->inline_stack;
        uint32_t *idx = vec_push(a, stack, 4, 1);
        if (!idx)
            return CVM_OUT_OF_MEMORY;
        if (sc) {
            cvm_bc_dscope *s = vec_push(a, &a->scopes, sizeof *s, 1);
            if (!s)
                return CVM_OUT_OF_MEMORY;
            *s = (cvm_bc_dscope){kidx, pc, pc, stack->n > 1 ? ((uint32_t *)stack->p)[stack->n - 2] : UINT32_MAX};
            *idx = a->scopes.n - 1;
        } else {
            cvm_bc_dinline in = {kidx, 0, 0, 0, 0, pc, pc, stack->n > 1 ? ((uint32_t *)stack->p)[stack->n - 2] : UINT32_MAX};
            if ((st = parse_name(a, next(a), "a callee name", &in.callee)) ||
                (st = loc_args(a, &in.file, &in.line, &in.col)))
                return st;
            cvm_bc_dinline *s = vec_push(a, &a->inlines, sizeof in, 1);
            if (!s)
                return CVM_OUT_OF_MEMORY;
            *s = in;
            *idx = a->inlines.n - 1;
        }
    } else if (tok_is(d, ".endscope") || tok_is(d, ".endinline")) {
        bool sc = tok_is(d, ".endscope");
        vec *stack = sc ? &k->scope_stack : &k->inline_stack;
        if (!stack->n)
            return err(a, d.col, "'%.*s' without an open '%s'", (int)d.n, d.s, sc ? ".scope" : ".inline");
        uint32_t i = ((uint32_t *)stack->p)[--stack->n];
        uint32_t *start = sc ? &((cvm_bc_dscope *)a->scopes.p)[i].start_pc : &((cvm_bc_dinline *)a->inlines.p)[i].start_pc;
        if (*start == pc)
            return err(a, d.col, "empty %s (no instruction since it opened)", sc ? "scope" : "inlined call");
        if (sc) {
            ((cvm_bc_dscope *)a->scopes.p)[i].end_pc = pc;
            /* A variable declared just before .endscope lives nowhere: it is dropped
             * (the binary could not say where its empty range sits in the text). */
            uint32_t kept = 0;
            for (uint32_t v = 0; v < a->vars.n; v++) {
                cvm_bc_dvar dv = ((cvm_bc_dvar *)a->vars.p)[v];
                if (dv.kernel == kidx && dv.scope == i) {
                    if (dv.start_pc == pc)
                        continue;
                    dv.end_pc = pc;
                }
                ((cvm_bc_dvar *)a->vars.p)[kept++] = dv;
            }
            a->vars.n = kept;
        } else {
            ((cvm_bc_dinline *)a->inlines.p)[i].end_pc = pc;
        }
    } else if (tok_is(d, ".var")) {
        cvm_bc_dvar v = {kidx, 0, top(&k->scope_stack), 0, pc, pc};
        if ((st = parse_name(a, next(a), "a variable name", &v.name)) || (st = reg_ref(a, next(a), &v.reg)))
            return st;
        cvm_bc_dvar *dst = vec_push(a, &a->vars, sizeof v, 1);
        if (!dst)
            return CVM_OUT_OF_MEMORY;
        *dst = v;
    } else {
        return err(a, d.col, "unknown directive '%.*s'", (int)d.n, d.s);
    }
    return expect_end(a);
}

static cvm_status dir_attr(as *a, tok d)
{
    kstate *k = a->k;
    cvm_status st;
    tok t = next(a);
    if (tok_is(d, ".uses")) {
        for (; t.kind; t = next(a)) {
            if (tok_is(t, "f64"))
                k->flags |= CVM_KF_USES_F64;
            else if (tok_is(t, "f16"))
                k->flags |= CVM_KF_USES_F16;
            else
                return err(a, t.col, "unknown feature '%.*s' (f64, f16)", (int)t.n, t.s);
        }
        return CVM_OK;
    }
    uint32_t *dst = tok_is(d, ".plane_width") ? &k->plane_width
                    : tok_is(d, ".shared") ? &k->shared
                    : tok_is(d, ".local") ? &k->local : &k->max_cube;
    if ((st = parse_u32(a, t, "a number", dst)))
        return st;
    /* the verifier's limits, here with the position */
    if (dst == &k->shared && k->shared > CVM_BC_MAX_SHARED)
        return err(a, t.col, "%u static shared bytes (limit %u)", k->shared, CVM_BC_MAX_SHARED);
    if (dst == &k->local && k->local > CVM_BC_MAX_LOCAL)
        return err(a, t.col, "%u local bytes per unit (limit %u)", k->local, CVM_BC_MAX_LOCAL);
    if (dst == &k->plane_width) {
        if (!is_pow2(k->plane_width) || k->plane_width > CVM_BC_MAX_PLANE)
            return err(a, t.col, "bad plane width %u (a power of two up to %u)", k->plane_width, CVM_BC_MAX_PLANE);
        t = next(a);
        if (tok_is(t, "hint"))
            return expect_end(a);
        k->flags |= CVM_KF_FIXED_WIDTH;
        if (t.kind)
            return err(a, t.col, "unexpected '%.*s' (expected 'hint' or the end of the line)", (int)t.n, t.s);
        return CVM_OK;
    }
    return expect_end(a);
}

/* ---- instructions ---- */

static unsigned find_op(const char *s, size_t n)
{
    for (unsigned op = 0; op < CVM_OP_LIMIT; op++) {
        const cvm_bc_opinfo *oi = cvm_bc_op_info(op);
        if (oi && strlen(oi->mnemonic) == n && memcmp(oi->mnemonic, s, n) == 0)
            return op;
    }
    return CVM_OP_LIMIT;
}

static unsigned find_name(const char *(*name)(unsigned), unsigned limit, const char *s, size_t n)
{
    for (unsigned i = 1; i < limit; i++)
        if (name(i) && strlen(name(i)) == n && memcmp(name(i), s, n) == 0)
            return i;
    return 0;
}

typedef struct insn {
    unsigned op;
    const cvm_bc_opinfo *oi;
    cvm_bc_type type;
    bool typed; /* type known (explicit or inferred) */
    unsigned order, scope, alog2;
    uint32_t w[CVM_BC_MAX_OPERANDS + 2];
    uint32_t nw;
    uint32_t regs[8]; /* first register operands, for type inference */
    unsigned nregs;
    tok mn;
} insn;

/* Splits MNEMONIC[.ORDER][.SCOPE][.TYPE]. */
static cvm_status parse_mnemonic(as *a, insn *in)
{
    tok t = in->mn;
    size_t cut = t.n;
    in->op = CVM_OP_LIMIT;
    for (;;) { /* the longest prefix ending at a dot that is a mnemonic */
        in->op = find_op(t.s, cut);
        if (in->op != CVM_OP_LIMIT)
            break;
        while (cut > 0 && t.s[cut - 1] != '.')
            cut--;
        if (cut == 0)
            return err(a, t.col, "unknown mnemonic '%.*s'", (int)t.n, t.s);
        cut--;
    }
    in->oi = cvm_bc_op_info(in->op);
    const char *r = t.s + cut;
    size_t rn = t.n - cut;
    while (rn) {
        size_t pn = 1;
        while (pn < rn && r[pn] != '.')
            pn++;
        unsigned o = find_name(cvm_bc_order_name, CVM_ORDER_COUNT, r + 1, pn - 1);
        unsigned s = find_name(cvm_bc_scope_name, CVM_SCOPE_COUNT, r + 1, pn - 1);
        if (o && !in->order && !in->scope && !in->typed)
            in->order = o;
        else if (s && !in->scope && !in->typed)
            in->scope = s;
        else if (!in->typed && type_parse(r + 1, rn - 1, &in->type)) {
            in->typed = true;
            pn = rn;
        } else
            return err(a, t.col + (uint32_t)(r + 1 - t.s), "bad type suffix '%.*s' on '%s'", (int)(rn - 1), r + 1,
                       in->oi->mnemonic);
        r += pn;
        rn -= pn;
    }
    bool ordered = in->oi->flags & CVM_OPF_ORDERED;
    if ((in->order || in->scope) && !ordered)
        return err(a, t.col, "'%s' takes no memory order or scope", in->oi->mnemonic);
    if (ordered && (!in->order || !in->scope))
        return err(a, t.col, "'%s' needs a memory order and a scope (e.g. %s.relaxed.device)", in->oi->mnemonic,
                   in->oi->mnemonic);
    if (in->typed && in->oi->types == CVM_TC_NONE)
        return err(a, t.col, "'%s' takes no type suffix", in->oi->mnemonic);
    return CVM_OK;
}

/* The instruction type when the text leaves it out (ops.def: TYPES, bc.h: rules). */
static cvm_status infer_type(as *a, insn *in)
{
    if (in->typed || in->oi->types == CVM_TC_NONE)
        return CVM_OK;
    const cvm_bc_opinfo *oi = in->oi;
    bool has_d = oi->format[0] == 'd';
    unsigned src = 0;
    if (oi->rule == CVM_RULE_CMP || oi->rule == CVM_RULE_TEST || oi->rule == CVM_RULE_COUNT)
        src = has_d ? 1 : 0;
    else if (oi->rule == CVM_RULE_ST)
        src = 1;
    else if (!has_d)
        src = 8;
    if (src >= in->nregs)
        return err(a, in->mn.col, "'%s' needs a type suffix here", oi->mnemonic);
    in->type = ((cvm_bc_type *)a->k->regs.p)[in->regs[src]];
    in->typed = true;
    return CVM_OK;
}

static cvm_status parse_imm64(as *a, insn *in, tok t)
{
    cvm_status st;
    if ((st = infer_type(a, in)))
        return st;
    unsigned e = in->type.elem, bits = cvm_bc_elem_size(e) * 8;
    uint64_t v = 0;
    if (cvm_bc_elem_is_float(e)) {
        const char *msg = t.kind == 'w' ? cvm_bc_parse_float(t.s, t.n, e, &v) : "expected a float literal";
        if (msg)
            return err(a, t.col, "%s: '%.*s'", msg, (int)t.n, t.s);
    } else if (e == CVM_T_BOOL && (tok_is(t, "true") || tok_is(t, "false"))) {
        v = tok_is(t, "true");
    } else {
        bool neg;
        const char *msg = t.kind == 'w' ? cvm_bc_parse_int(t.s, t.n, &v, &neg) : "expected an integer literal";
        if (msg)
            return err(a, t.col, "%s: '%.*s'", msg, (int)t.n, t.s);
        if (e == CVM_T_BOOL)
            bits = 1;
        uint64_t lim = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
        if (neg ? (bits == 1 || v - 1 > lim >> 1) : v > lim)
            return err(a, t.col, "literal %.*s out of range for %s", (int)t.n, t.s, cvm_bc_elem_name(e));
        v = neg ? (0 - v) & lim : v;
    }
    in->w[in->nw++] = (uint32_t)v;
    in->w[in->nw++] = (uint32_t)(v >> 32);
    return CVM_OK;
}

static cvm_status parse_operand(as *a, insn *in, char letter, bool ptr, tok t)
{
    kstate *k = a->k;
    cvm_status st;
    uint32_t v = 0;
    switch (letter) {
    case 'd':
    case 'r':
        if (ptr) {
            if (t.kind != '[')
                return err(a, t.col, "expected a memory operand [%%reg]");
            t = next(a);
        } else if (t.kind == '[') {
            return err(a, t.col, "unexpected '[': only the pointer of a memory op is written [%%reg]");
        }
        if ((st = reg_ref(a, t, &v)))
            return st;
        if (ptr) {
            tok c = next(a);
            if (c.kind != ']')
                return err(a, c.col, "expected ']'");
        }
        if (in->nregs < 8)
            in->regs[in->nregs++] = v;
        break;
    case 'k':
        return parse_imm64(a, in, t);
    case 'i':
    case 'l':
        if ((st = parse_imm32(a, t, &v)))
            return st;
        break;
    case 's': {
        char *s;
        size_t n;
        if ((st = unquote(a, t, &s, &n, scratch_of(a))))
            return st;
        v = intern(a, s, n);
        break;
    }
    case 'p': {
        const cvm_bc_param *ps = k->params.p;
        for (v = 0; v < k->params.n; v++)
            if (t.kind == 'w' && str_eq(a, ps[v].name, t.s, t.n))
                break;
        if (v == k->params.n) {
            uint64_t idx;
            bool neg;
            if (t.kind != 'w' || cvm_bc_parse_int(t.s, t.n, &idx, &neg))
                return err(a, t.col, "unknown parameter '%.*s'", (int)t.n, t.s);
            if (neg || idx >= k->params.n)
                return err(a, t.col, "parameter index %.*s out of range", (int)t.n, t.s);
            v = (uint32_t)idx;
        }
        break;
    }
    case 'g': {
        const cvm_bc_symbol *ss = a->symbols.p;
        for (v = 0; v < a->symbols.n; v++)
            if (t.kind == 'w' && str_eq(a, ss[v].name, t.s, t.n))
                break;
        if (v == a->symbols.n) {
            uint64_t idx;
            bool neg;
            if (t.kind != 'w' || cvm_bc_parse_int(t.s, t.n, &idx, &neg) || neg || idx >= a->symbols.n)
                return err(a, t.col, "unknown symbol '%.*s'", (int)t.n, t.s);
            v = (uint32_t)idx;
        }
        break;
    }
    case 'x':
        v = t.kind == 'w' ? cvm_bc_sreg_parse(t.s, t.n) : CVM_SREG_COUNT;
        if (v == CVM_SREG_COUNT)
            return err(a, t.col, "unknown special register '%.*s'", (int)t.n, t.s);
        break;
    default:
        return err(a, t.col, "internal: unknown operand format '%c'", letter);
    }
    in->w[in->nw++] = v;
    return CVM_OK;
}

/* Expected operand count for messages: "3" or "at least 1". */
static void count_text(const char *fmt, char *buf, size_t n)
{
    size_t len = strlen(fmt);
    bool star = len && fmt[len - 1] == '*';
    snprintf(buf, n, "%s%zu operand%s", star ? "at least " : "", star ? len - 2 : len,
             (star ? len - 2 : len) == 1 ? "" : "s");
}

static bool ends_operands(as *a, tok t)
{
    if (!t.kind)
        return true;
    if (!tok_is(t, "align"))
        return false;
    uint32_t save = a->pos;
    next(a);
    bool eq = next(a).kind == '=';
    a->pos = save;
    return eq;
}

/* Operands by the op's format; a trailing '*' repeats the letter before it zero or more times. */
static cvm_status parse_operands(as *a, insn *in)
{
    const char *f = in->oi->format;
    size_t flen = strlen(f);
    bool star = flen && f[flen - 1] == '*';
    size_t min = star ? flen - 2 : flen;
    unsigned got = 0;
    bool first_r = true;
    char cnt[40];
    count_text(f, cnt, sizeof cnt);
    for (;;) {
        tok t = peek(a);
        if (got == 0 ? ends_operands(a, t) : t.kind != ',')
            break;
        if (got)
            next(a);
        t = next(a);
        if (got && ends_operands(a, t))
            return err(a, t.col, "expected an operand after ','");
        if (!star && got >= min)
            return err(a, t.col, "too many operands for '%s' (expects %s)", in->oi->mnemonic, cnt);
        char letter = got < min ? f[got] : f[flen - 2];
        bool ptr = (in->oi->flags & CVM_OPF_MEM) && letter == 'r' && first_r;
        if (letter == 'r')
            first_r = false;
        if (in->nw + 2 > CVM_BC_MAX_OPERANDS)
            return err(a, t.col, "more than %u operand words", CVM_BC_MAX_OPERANDS);
        cvm_status st = parse_operand(a, in, letter, ptr, t);
        if (st)
            return st;
        got++;
    }
    if (got < min)
        return err(a, peek(a).col, "'%s' expects %s, got %u", in->oi->mnemonic, cnt, got);
    return CVM_OK;
}

static cvm_status instruction(as *a, tok mn)
{
    insn *in = a->fn(a->user, NULL, 0, sizeof *in);
    cvm_status st = CVM_OK;
    if (!in)
        return CVM_OUT_OF_MEMORY;
    memset(in, 0, sizeof *in);
    in->mn = mn;
    if ((st = parse_mnemonic(a, in)) || (st = parse_operands(a, in)))
        goto done;
    tok t = next(a);
    if (tok_is(t, "align")) {
        uint64_t al = 0;
        tok eq = next(a), v = next(a);
        if (!(in->oi->flags & CVM_OPF_MEM)) {
            st = err(a, t.col, "'%s' takes no align=", in->oi->mnemonic);
            goto done;
        }
        if (eq.kind != '=') {
            st = err(a, eq.col, "expected '=' after align");
            goto done;
        }
        if ((st = parse_u64(a, v, "an alignment", &al)))
            goto done;
        if (!is_pow2(al) || al > 4096) {
            st = err(a, v.col, "bad align %.*s (a power of two up to 4096)", (int)v.n, v.s);
            goto done;
        }
        while (al >>= 1)
            in->alog2++;
        t = next(a);
    }
    if (t.kind) {
        st = err(a, t.col, "unexpected '%.*s' at the end of the instruction", (int)t.n, t.s);
        goto done;
    }
    if ((st = infer_type(a, in)))
        goto done;
    if (in->typed && !(in->oi->types & CVM_TBIT(in->type.elem))) {
        char tn[32];
        snprintf(tn, sizeof tn, "%s", cvm_bc_elem_name(in->type.elem));
        st = err(a, mn.col, "type %s is not allowed for '%s'", tn, in->oi->mnemonic);
        goto done;
    }
    uint32_t *w = vec_push(a, &a->k->code, 4, in->nw + 2);
    if (!w) {
        st = CVM_OUT_OF_MEMORY;
        goto done;
    }
    w[0] = CVM_BC_W0(in->op, in->nw);
    w[1] = in->typed ? CVM_BC_W1(in->type.elem, in->type.line, in->order, in->scope, in->alog2)
                     : CVM_BC_W1(0, 0, in->order, in->scope, in->alog2);
    memcpy(w + 2, in->w, (size_t)in->nw * 4);
    a->k->ninsns++;
    uint32_t *at = vec_push(a, &a->k->pos, 4, 2);
    if (!at) {
        st = CVM_OUT_OF_MEMORY;
        goto done;
    }
    at[0] = a->lineno, at[1] = in->mn.col;
done:
    a->fn(a->user, in, sizeof *in, 0);
    return st;
}

static vec *scratch_of(as *a) { return &a->scratch; }

/* ---- lines, kernels, the module ---- */

static cvm_status end_kernel(as *a, tok d)
{
    kstate *k = a->k;
    uint32_t kidx = a->kernels.n - 1;
    if (k->scope_stack.n)
        return err(a, d.col, "unclosed .scope at .end");
    if (k->inline_stack.n)
        return err(a, d.col, "unclosed .inline at .end");
    for (uint32_t v = 0; v < a->vars.n; v++) {
        cvm_bc_dvar *dv = (cvm_bc_dvar *)a->vars.p + v;
        if (dv->kernel == kidx && dv->scope == UINT32_MAX)
            dv->end_pc = k->ninsns;
    }
    cvm_bc_kernel *out = (cvm_bc_kernel *)a->kernels.p + kidx;
    *out = (cvm_bc_kernel){k->name,      k->flags,    k->plane_width, k->shared,   k->local,
                           k->max_cube,  k->params.n, k->params.p,    k->regs.n,   k->regs.p,
                           k->code.n,    k->code.p};
    a->k = NULL;
    return expect_end(a);
}

static bool is_attr(tok d)
{
    return tok_is(d, ".plane_width") || tok_is(d, ".shared") || tok_is(d, ".local") || tok_is(d, ".max_cube") ||
           tok_is(d, ".uses");
}

static cvm_status kernel_line(as *a, tok d)
{
    kstate *k = a->k;
    if (d.kind != 'w')
        return err(a, d.col, "expected an instruction or directive");
    if (tok_is(d, ".end"))
        return end_kernel(a, d);
    if (tok_is(d, ".param") || is_attr(d)) {
        if (k->body_started)
            return err(a, d.col, "'%.*s' must come before the first .reg or instruction", (int)d.n, d.s);
        return tok_is(d, ".param") ? dir_param(a) : dir_attr(a, d);
    }
    k->body_started = true;
    if (tok_is(d, ".reg"))
        return dir_reg(a);
    if (tok_is(d, ".kernel"))
        return err(a, d.col, ".kernel inside kernel (missing .end?)");
    if (d.s[0] == '.') {
        if (tok_is(d, ".file") || tok_is(d, ".global") || tok_is(d, ".constant") || tok_is(d, ".string") ||
            tok_is(d, ".data") || tok_is(d, ".const_size"))
            return err(a, d.col, "'%.*s' is not allowed inside a kernel (missing .end?)", (int)d.n, d.s);
        return dir_debug(a, d);
    }
    if (k->ninsns >= CVM_BC_MAX_INSNS)
        return err(a, d.col, "more than %u instructions", CVM_BC_MAX_INSNS);
    return instruction(a, d);
}

static cvm_status one_line(as *a)
{
    tok d = next(a);
    if (!d.kind)
        return CVM_OK;
    if (a->k)
        return kernel_line(a, d);
    if (tok_is(d, ".kernel"))
        return dir_kernel(a, d);
    if (d.kind == 'w' && d.s[0] == '.') {
        if (tok_is(d, ".end"))
            return err(a, d.col, ".end without .kernel");
        if (tok_is(d, ".param") || tok_is(d, ".reg") || is_attr(d) || tok_is(d, ".loc") || tok_is(d, ".scope") ||
            tok_is(d, ".endscope") || tok_is(d, ".var") || tok_is(d, ".inline") || tok_is(d, ".endinline"))
            return err(a, d.col, "'%.*s' outside a kernel", (int)d.n, d.s);
        return dir_module(a, d);
    }
    return err(a, d.col, "instruction '%.*s' outside a kernel", (int)d.n, d.s);
}

/* Serializes what was assembled and reads it back as an owned module. */
static cvm_status finish(as *a, cvm_bc_module **out_mod)
{
    cvm_status st;
    void *bytes = NULL;
    size_t size = 0;
    cvm_bc_string *strs = a->fn(a->user, NULL, 0, (size_t)(a->strs.n ? a->strs.n : 1) * sizeof *strs);
    if (!strs)
        return cvm_diag_set(a->diag, CVM_OUT_OF_MEMORY, "%s: out of memory while assembling",
                            a->file);
    for (uint32_t i = 0; i < a->strs.n; i++) {
        strref *r = (strref *)a->strs.p + i;
        strs[i] = (cvm_bc_string){r->len, a->pool.p ? (const char *)a->pool.p + r->off : ""};
    }
    cvm_bc_module m;
    memset(&m, 0, sizeof m);
    m.alloc = a->fn;
    m.alloc_user = a->user;
    m.nstrings = a->strs.n;
    m.strings = strs;
    m.nkernels = a->kernels.n;
    m.kernels = a->kernels.p;
    m.nsymbols = a->symbols.n;
    m.symbols = a->symbols.p;
    m.ndata = a->data.n;
    m.data = a->data.p;
    m.const_size = a->const_size;
    m.debug = (cvm_bc_debug){a->files.n, a->files.p, a->lines.n, a->lines.p, a->scopes.n,
                             a->scopes.p, a->inlines.n, a->inlines.p, a->vars.n, a->vars.p};
    st = cvm_bc_module_write(&m, &bytes, &size, a->diag);
    if (!st)
        st = cvm_bc_module_read(bytes, size, a->fn, a->user, out_mod, a->diag);
    if (bytes)
        a->fn(a->user, bytes, size, 0);
    a->fn(a->user, strs, (size_t)(a->strs.n ? a->strs.n : 1) * sizeof *strs, 0);
    return st;
}

static void release(as *a)
{
    for (uint32_t i = 0; i < a->kstates.n; i++) {
        kstate *k = (kstate *)a->kstates.p + i;
        a->k = k;
        vec_free(a, &k->params, sizeof(cvm_bc_param));
        vec_free(a, &k->regs, sizeof(cvm_bc_type));
        vec_free(a, &k->regnames, sizeof(regname));
        vec_free(a, &k->code, 4);
        vec_free(a, &k->scope_stack, 4);
        vec_free(a, &k->inline_stack, 4);
        vec_free(a, &k->pos, 4);
        table_free(a, &k->regtab);
    }
    vec_free(a, &a->kstates, sizeof(kstate));
    vec_free(a, &a->kernels, sizeof(cvm_bc_kernel));
    vec_free(a, &a->pool, 1);
    vec_free(a, &a->strs, sizeof(strref));
    table_free(a, &a->strtab);
    vec_free(a, &a->symbols, sizeof(cvm_bc_symbol));
    vec_free(a, &a->data, 1);
    vec_free(a, &a->files, 4);
    vec_free(a, &a->lines, sizeof(cvm_bc_dline));
    vec_free(a, &a->scopes, sizeof(cvm_bc_dscope));
    vec_free(a, &a->inlines, sizeof(cvm_bc_dinline));
    vec_free(a, &a->vars, sizeof(cvm_bc_dvar));
    vec_free(a, &a->scratch, 1);
}

/* The source map of the kernels assembled so far (a->kstates), or NULL
 * when out of memory. */
static cvm_bc_srcmap *make_map(as *a)
{
    const uint32_t nk = a->kstates.n;
    uint32_t total = 0;
    for (uint32_t i = 0; i < nk; i++)
        total += ((const kstate *)a->kstates.p)[i].pos.n / 2;
    cvm_bc_srcmap *m = cvm_bc_alloc(a->fn, a->user, sizeof *m);
    if (!m)
        return NULL;
    m->fn = a->fn, m->user = a->user, m->nkernels = nk, m->ninsns = total;
    m->kpos = cvm_bc_alloc(a->fn, a->user, (size_t)(nk ? nk : 1) * 2 * sizeof *m->kpos);
    m->first = cvm_bc_alloc(a->fn, a->user, (size_t)(nk + 1) * sizeof *m->first);
    m->pos = cvm_bc_alloc(a->fn, a->user, (size_t)(total ? total : 1) * 2 * sizeof *m->pos);
    if (!m->kpos || !m->first || !m->pos) {
        cvm_bc_srcmap_free(m);
        return NULL;
    }
    uint32_t at = 0;
    for (uint32_t i = 0; i < nk; i++) {
        const kstate *k = (const kstate *)a->kstates.p + i;
        m->kpos[2 * i] = k->first_line, m->kpos[2 * i + 1] = k->first_col;
        m->first[i] = at;
        if (k->pos.n)
            memcpy(m->pos + 2 * at, k->pos.p, (size_t)k->pos.n * 4);
        at += k->pos.n / 2;
    }
    m->first[nk] = at;
    return m;
}

void cvm_bc_srcmap_free(cvm_bc_srcmap *m)
{
    if (!m)
        return;
    const uint32_t nk = m->nkernels, total = m->ninsns;
    cvm_bc_free(m->fn, m->user, m->kpos, (size_t)(nk ? nk : 1) * 2 * sizeof *m->kpos);
    cvm_bc_free(m->fn, m->user, m->first, (size_t)(nk + 1) * sizeof *m->first);
    cvm_bc_free(m->fn, m->user, m->pos, (size_t)(total ? total : 1) * 2 * sizeof *m->pos);
    cvm_bc_free(m->fn, m->user, m, sizeof *m);
}

bool cvm_bc_srcmap_find(const cvm_bc_srcmap *m, uint32_t kernel, uint32_t pc, uint32_t *line, uint32_t *col)
{
    if (!m || kernel >= m->nkernels)
        return false;
    if (pc == UINT32_MAX || pc >= m->first[kernel + 1] - m->first[kernel]) {
        *line = m->kpos[2 * kernel], *col = m->kpos[2 * kernel + 1];
    } else {
        *line = m->pos[2 * (m->first[kernel] + pc)], *col = m->pos[2 * (m->first[kernel] + pc) + 1];
    }
    return true;
}

cvm_status cvm_bc_assemble(const char *text, size_t len, const char *filename, cvm_alloc_fn fn, void *user,
                           cvm_bc_module **out_mod, cvm_diag *diag)
{
    return cvm_bc_assemble_map(text, len, filename, fn, user, out_mod, NULL, diag);
}

cvm_status cvm_bc_assemble_map(const char *text, size_t len, const char *filename, cvm_alloc_fn fn,
                               void *user, cvm_bc_module **out_mod, cvm_bc_srcmap **out_map,
                               cvm_diag *diag)
{
    if (out_map)
        *out_map = NULL;
    as a;
    memset(&a, 0, sizeof a);
    a.fn = fn ? fn : cvm_default_alloc;
    a.user = user;
    a.file = filename ? filename : "<input>";
    a.diag = diag;
    if (!out_mod || (!text && len))
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_bc_assemble: NULL argument");
    *out_mod = NULL;
    size_t p = 0;
    while (p < len && !a.st && !a.oom) {
        size_t e = p;
        while (e < len && text[e] != '\n')
            e++;
        a.line = text + p;
        a.line_len = e - p;
        a.pos = 0;
        a.lineno++;
        if (memchr(a.line, 0, a.line_len))
            err(&a, (uint32_t)((const char *)memchr(a.line, 0, a.line_len) - a.line) + 1, "NUL byte in the text");
        else if (one_line(&a) != CVM_OK && !a.st)
            a.oom = true; /* the only failure that does not go through err() */
        p = e + 1;
    }
    if (!a.st && !a.oom && a.k) {
        a.lineno = a.k->first_line;
        err(&a, a.k->first_col, "missing .end for this .kernel");
    }
    cvm_status st = a.st;
    if (a.oom)
        st = cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "%s: out of memory while assembling", a.file);
    else if (!st)
        st = finish(&a, out_mod);
    if (!st && out_map && !(*out_map = make_map(&a))) {
        cvm_bc_module_free(*out_mod);
        *out_mod = NULL;
        st = cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "%s: out of memory while assembling", a.file);
    }
    release(&a);
    return st;
}
