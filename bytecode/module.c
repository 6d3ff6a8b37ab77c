/*
 * module.c - the .cbc reader and writer (layout: docs/format.md).
 *
 * The writer is deterministic: one module gives one byte string. The reader
 * does structural checks only (header, section table, counts against the
 * bytes that remain, string bounds, the content hash); opcodes, types and
 * nesting are cvm_bc_verify's job. It runs its parser twice over the input:
 * once to check everything and measure the arrays, once to fill a single
 * owned blob, so a corrupted count can never cause an allocation larger
 * than a small multiple of the input size.
 */
#include "bc.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { SEC_STRINGS = 1, SEC_KERNELS, SEC_SYMBOLS, SEC_DATA, SEC_DEBUG, SEC_HASH, SEC_LIMIT };
static const char *const sec_names[SEC_LIMIT] = {
    [SEC_STRINGS] = "strings", [SEC_KERNELS] = "kernels", [SEC_SYMBOLS] = "symbols",
    [SEC_DATA] = "data",       [SEC_DEBUG] = "debug",     [SEC_HASH] = "hash",
};

#define HEADER_SIZE 16u
#define SECTION_ENTRY 12u
#define KERNEL_FIXED 36u
#define PARAM_SIZE 16u
#define SYMBOL_SIZE 24u
#define KF_KNOWN (CVM_KF_FIXED_WIDTH | CVM_KF_USES_F64 | CVM_KF_USES_F16)
/* The blob starts with its own size so that free needs nothing else. */
#define BLOB_HEAD 64u

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint32_t align4(uint32_t x) { return (x + 3u) & ~3u; }

/* ---- writer ---- */

typedef struct wbuf {
    cvm_alloc_fn fn;
    void *user;
    uint8_t *p;
    size_t len, cap;
    bool oom;
} wbuf;

static void put(wbuf *b, const void *src, size_t n)
{
    if (b->oom || n == 0)
        return;
    if (b->cap - b->len < n) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->len < n)
            cap *= 2;
        uint8_t *np = b->fn(b->user, b->p, b->cap, cap);
        if (!np) {
            b->oom = true;
            return;
        }
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->len, src, n);
    b->len += n;
}

static void put32(wbuf *b, uint32_t v)
{
    uint8_t q[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(b, q, 4);
}
static void put8(wbuf *b, uint8_t v) { put(b, &v, 1); }
static void pad4(wbuf *b)
{
    while (b->len % 4)
        put8(b, 0);
}

static void write_strings(wbuf *b, const cvm_bc_module *m)
{
    put32(b, m->nstrings);
    for (uint32_t i = 0; i < m->nstrings; i++) {
        put32(b, m->strings[i].len);
        put(b, m->strings[i].data, m->strings[i].len);
    }
}

static void write_kernels(wbuf *b, const cvm_bc_module *m)
{
    put32(b, m->nkernels);
    for (uint32_t i = 0; i < m->nkernels; i++) {
        const cvm_bc_kernel *k = &m->kernels[i];
        uint32_t fixed[9] = {k->name,      k->flags,    k->plane_width, k->shared_bytes, k->local_bytes,
                             k->max_cube, k->nparams, k->nregs,       k->ncode};
        for (int j = 0; j < 9; j++)
            put32(b, fixed[j]);
        for (uint32_t j = 0; j < k->nparams; j++) {
            const cvm_bc_param *p = &k->params[j];
            put32(b, p->name);
            put8(b, p->kind);
            put8(b, p->elem);
            put8(b, p->line);
            put8(b, p->access);
            put32(b, p->size);
            put32(b, p->align);
        }
        for (uint32_t j = 0; j < k->nregs; j++) {
            put8(b, k->regs[j].elem);
            put8(b, k->regs[j].line);
        }
        pad4(b);
        for (uint32_t j = 0; j < k->ncode; j++)
            put32(b, k->code[j]);
    }
}

static void write_symbols(wbuf *b, const cvm_bc_module *m)
{
    put32(b, m->nsymbols);
    for (uint32_t i = 0; i < m->nsymbols; i++) {
        const cvm_bc_symbol *s = &m->symbols[i];
        put32(b, s->name);
        put8(b, s->space);
        put8(b, s->elem);
        put8(b, 0);
        put8(b, 0);
        put32(b, s->size);
        put32(b, s->align);
        put32(b, s->init_off);
        put32(b, s->init_size);
    }
}

static void write_data(wbuf *b, const cvm_bc_module *m)
{
    put32(b, m->ndata);
    put32(b, m->const_size);
    put(b, m->data, m->ndata);
}

static bool has_debug(const cvm_bc_debug *d)
{
    return d->nfiles || d->nlines || d->nscopes || d->ninlines || d->nvars;
}

static void write_debug(wbuf *b, const cvm_bc_debug *d)
{
    put32(b, d->nfiles);
    put32(b, d->nlines);
    put32(b, d->nscopes);
    put32(b, d->ninlines);
    put32(b, d->nvars);
    for (uint32_t i = 0; i < d->nfiles; i++)
        put32(b, d->files[i]);
    for (uint32_t i = 0; i < d->nlines; i++) {
        const cvm_bc_dline *l = &d->lines[i];
        uint32_t w[5] = {l->kernel, l->pc, l->file, l->line, l->col};
        for (int j = 0; j < 5; j++)
            put32(b, w[j]);
    }
    for (uint32_t i = 0; i < d->nscopes; i++) {
        const cvm_bc_dscope *s = &d->scopes[i];
        uint32_t w[4] = {s->kernel, s->start_pc, s->end_pc, s->parent};
        for (int j = 0; j < 4; j++)
            put32(b, w[j]);
    }
    for (uint32_t i = 0; i < d->ninlines; i++) {
        const cvm_bc_dinline *s = &d->inlines[i];
        uint32_t w[8] = {s->kernel, s->callee, s->file, s->line, s->col, s->start_pc, s->end_pc, s->parent};
        for (int j = 0; j < 8; j++)
            put32(b, w[j]);
    }
    for (uint32_t i = 0; i < d->nvars; i++) {
        const cvm_bc_dvar *v = &d->vars[i];
        uint32_t w[6] = {v->kernel, v->name, v->scope, v->reg, v->start_pc, v->end_pc};
        for (int j = 0; j < 6; j++)
            put32(b, w[j]);
    }
}

/*
 * The content hash covers the id, size and bytes of every section but debug
 * and hash, so stripping debug info keeps a module's identity (cache key).
 */
static void section_hash(const uint8_t *file, const uint32_t (*tab)[3], unsigned n, uint8_t out[32],
                         wbuf *scratch)
{
    scratch->len = 0;
    for (unsigned i = 0; i < n; i++) {
        if (tab[i][0] == SEC_DEBUG || tab[i][0] == SEC_HASH)
            continue;
        put32(scratch, tab[i][0]);
        put32(scratch, tab[i][2]);
        put(scratch, file + tab[i][1], tab[i][2]);
    }
    cvm_bc_sha256(scratch->p ? scratch->p : (const uint8_t *)"", scratch->len, out);
}

cvm_status cvm_bc_module_write(cvm_bc_module *mod, void **out_bytes, size_t *out_size, cvm_diag *diag)
{
    cvm_status st = CVM_OK;
    wbuf b = {mod ? mod->alloc : NULL, mod ? mod->alloc_user : NULL, NULL, 0, 0, false};
    wbuf h = b;
    if (!mod || !out_bytes || !out_size)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_bc_module_write: NULL argument");
    if (!b.fn)
        b.fn = h.fn = cvm_default_alloc;
    unsigned nsec = has_debug(&mod->debug) ? 6 : 5;
    uint32_t tab[6][3];
    for (unsigned i = 0; i < HEADER_SIZE + nsec * SECTION_ENTRY; i++)
        put8(&b, 0);
    unsigned s = 0;
    for (unsigned id = SEC_STRINGS; id < SEC_LIMIT; id++) {
        if (id == SEC_DEBUG && nsec == 5)
            continue;
        pad4(&b);
        tab[s][0] = id;
        tab[s][1] = (uint32_t)b.len;
        switch (id) {
        case SEC_STRINGS: write_strings(&b, mod); break;
        case SEC_KERNELS: write_kernels(&b, mod); break;
        case SEC_SYMBOLS: write_symbols(&b, mod); break;
        case SEC_DATA: write_data(&b, mod); break;
        case SEC_DEBUG: write_debug(&b, &mod->debug); break;
        case SEC_HASH:
            if (!b.oom)
                section_hash(b.p, (const uint32_t(*)[3])tab, s, mod->hash, &h);
            put(&b, mod->hash, 32);
            break;
        }
        tab[s][2] = (uint32_t)(b.len - tab[s][1]);
        s++;
    }
    if (b.oom || h.oom || b.len > UINT32_MAX) {
        st = cvm_diag_set(diag, b.len > UINT32_MAX ? CVM_LIMIT : CVM_OUT_OF_MEMORY,
                          "cannot write module: %s", b.len > UINT32_MAX ? "larger than 4 GiB" : "out of memory");
        goto fail;
    }
    uint8_t *p = b.p;
    uint32_t hd[4] = {CVM_BC_MAGIC, CVM_BC_VERSION_MAJOR | (uint32_t)CVM_BC_VERSION_MINOR << 16,
                      cvm_bc_optable_hash(), nsec};
    for (unsigned i = 0; i < 4; i++)
        for (unsigned j = 0; j < 4; j++)
            p[4 * i + j] = (uint8_t)(hd[i] >> (8 * j));
    for (unsigned i = 0; i < nsec; i++)
        for (unsigned w = 0; w < 3; w++)
            for (unsigned j = 0; j < 4; j++)
                p[HEADER_SIZE + SECTION_ENTRY * i + 4 * w + j] = (uint8_t)(tab[i][w] >> (8 * j));
    /* Shrinking keeps the block the caller frees exactly out_size bytes long. */
    uint8_t *fit = b.fn(b.user, b.p, b.cap, b.len);
    if (!fit) {
        st = cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "cannot write module: out of memory");
        goto fail;
    }
    *out_bytes = fit;
    *out_size = b.len;
    if (h.p)
        h.fn(h.user, h.p, h.cap, 0);
    return CVM_OK;
fail:
    if (b.p)
        b.fn(b.user, b.p, b.cap, 0);
    if (h.p)
        h.fn(h.user, h.p, h.cap, 0);
    return st;
}

/* ---- reader ---- */

typedef struct reader {
    const uint8_t *file;
    size_t size;
    uint32_t sec_off[SEC_LIMIT], sec_size[SEC_LIMIT];
    bool present[SEC_LIMIT];
    uint32_t pos, end; /* cursor and end of the current section */
    const char *sec;
    cvm_diag *diag;
    /* measure pass: blob == NULL and `used` counts bytes; fill pass: arrays go into blob */
    uint8_t *blob;
    size_t used;
    cvm_bc_module *mod; /* NULL in the measure pass */
    cvm_alloc_fn fn;
    void *user;
    uint32_t nstrings, nkernels;
} reader;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static cvm_status bad(reader *r, uint32_t off, const char *fmt, ...)
{
    if (!r->diag)
        return CVM_MALFORMED;
    char msg[440];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cvm_diag_set(r->diag, CVM_MALFORMED, "offset %u: %s", (unsigned)off, msg);
    r->diag->has_offset = 1;
    r->diag->offset = off;
    return CVM_MALFORMED;
}

static cvm_status get32(reader *r, uint32_t *v, const char *what)
{
    if (r->end - r->pos < 4)
        return bad(r, r->pos, "%s section ends inside %s", r->sec, what);
    *v = rd32(r->file + r->pos);
    r->pos += 4;
    return CVM_OK;
}

/* Space in the blob for n items of `size` bytes (n already bounded by the input). */
static void *take(reader *r, size_t n, size_t size)
{
    size_t at = (r->used + 7) & ~(size_t)7;
    r->used = at + n * size;
    return r->blob ? r->blob + at : NULL;
}

/* A count of items of at least `each` input bytes: must fit in what remains of the section. */
static cvm_status count(reader *r, uint32_t *n, uint32_t each, const char *what)
{
    uint32_t at = r->pos;
    cvm_status st = get32(r, n, what);
    if (st == CVM_OK && *n > (r->end - r->pos) / each)
        st = bad(r, at, "%s %u needs at least %llu bytes but %u remain in the %s section", what, *n,
                 (unsigned long long)*n * each, r->end - r->pos, r->sec);
    return st;
}

static cvm_status str_index(reader *r, uint32_t at, uint32_t idx, const char *what)
{
    if (idx >= r->nstrings)
        return bad(r, at, "%s: string index %u out of range (%u strings)", what, idx, r->nstrings);
    return CVM_OK;
}

static void enter(reader *r, unsigned id)
{
    r->pos = r->sec_off[id];
    r->end = r->sec_off[id] + r->sec_size[id];
    r->sec = sec_names[id];
}

static cvm_status leave(reader *r)
{
    if (r->pos != r->end)
        return bad(r, r->pos, "%u unexpected bytes at the end of the %s section", r->end - r->pos, r->sec);
    return CVM_OK;
}

/* Header and section table; fills sec_off/sec_size. */
static cvm_status read_layout(reader *r)
{
    const uint8_t *f = r->file;
    if (r->size < HEADER_SIZE)
        return bad(r, 0, "file of %zu bytes is shorter than the %u-byte header", r->size, HEADER_SIZE);
    if (r->size > UINT32_MAX)
        return bad(r, 0, "file larger than 4 GiB");
    if (rd32(f) != CVM_BC_MAGIC) {
        bool text = true; /* .cbs text or CUDA C under another name: say so */
        for (int i = 0; i < 4; i++)
            text = text && ((f[i] >= 0x20 && f[i] < 0x7f) || f[i] == '\n' || f[i] == '\t' || f[i] == '\r');
        return bad(r, 0, "bad magic 0x%08x (not a .cbc module%s)", rd32(f),
                   text ? "; it looks like text: assembly text needs the .cbs extension, CUDA C .cu" : "");
    }
    unsigned major = f[4] | f[5] << 8, minor = f[6] | f[7] << 8;
    if (major != CVM_BC_VERSION_MAJOR || minor > CVM_BC_VERSION_MINOR)
        return bad(r, 4, "format version %u.%u is not supported (this reader: %u.%u)", major, minor,
                   CVM_BC_VERSION_MAJOR, CVM_BC_VERSION_MINOR);
    if (rd32(f + 8) != cvm_bc_optable_hash())
        return bad(r, 8, "op-table hash 0x%08x does not match this build's 0x%08x", rd32(f + 8),
                   cvm_bc_optable_hash());
    uint32_t n = rd32(f + 12);
    if (n > SEC_LIMIT - 1 || n > (r->size - HEADER_SIZE) / SECTION_ENTRY)
        return bad(r, 12, "section count %u is impossible", n);
    uint64_t expect = align4(HEADER_SIZE + n * SECTION_ENTRY); /* 64 bits: no wrap near 4 GiB */
    uint32_t prev = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t at = HEADER_SIZE + i * SECTION_ENTRY;
        uint32_t id = rd32(f + at), off = rd32(f + at + 4), size = rd32(f + at + 8);
        if (id == 0 || id >= SEC_LIMIT)
            return bad(r, at, "unknown section id %u", id);
        if (id <= prev)
            return bad(r, at, "section %s out of order (ids must increase)", sec_names[id]);
        if (off > r->size || size > r->size - off)
            return bad(r, at + 4, "section %s [%u, +%u) lies outside the %zu-byte file", sec_names[id],
                       off, size, r->size);
        if (off < expect)
            return bad(r, at + 4, "section %s at %u overlaps the previous section or the header (ends at %llu)",
                       sec_names[id], off, (unsigned long long)expect);
        if (off != expect)
            return bad(r, at + 4, "section %s at %u, expected %llu (sections are packed, 4-aligned)",
                       sec_names[id], off, (unsigned long long)expect);
        for (uint32_t p = prev ? r->sec_off[prev] + r->sec_size[prev] : HEADER_SIZE + n * SECTION_ENTRY;
             p < off; p++)
            if (f[p])
                return bad(r, p, "nonzero padding byte before section %s", sec_names[id]);
        r->present[id] = true;
        r->sec_off[id] = off;
        r->sec_size[id] = size;
        expect = ((uint64_t)off + size + 3) & ~(uint64_t)3;
        prev = id;
    }
    for (unsigned id = SEC_STRINGS; id < SEC_LIMIT; id++)
        if (!r->present[id] && id != SEC_DEBUG)
            return bad(r, 12, "required section %s is missing", sec_names[id]);
    uint32_t last = r->sec_off[SEC_HASH] + r->sec_size[SEC_HASH];
    if (r->size != last)
        return bad(r, last, "%zu bytes after the last section", r->size - last);
    if (r->sec_size[SEC_HASH] != 32)
        return bad(r, r->sec_off[SEC_HASH], "hash section is %u bytes, expected 32", r->sec_size[SEC_HASH]);
    return CVM_OK;
}

static cvm_status read_strings(reader *r)
{
    uint32_t n;
    cvm_status st;
    enter(r, SEC_STRINGS);
    if ((st = count(r, &n, 4, "string count")))
        return st;
    r->nstrings = n;
    cvm_bc_string *s = take(r, n, sizeof *s);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t at = r->pos, len;
        if ((st = get32(r, &len, "a string length")))
            return st;
        if (len > r->end - r->pos)
            return bad(r, at, "string %u: length %u runs past the end of the section", i, len);
        const uint8_t *src = r->file + r->pos;
        const uint8_t *nul = memchr(src, 0, len);
        if (nul)
            return bad(r, (uint32_t)(nul - r->file), "string %u contains a NUL byte", i);
        char *dst = take(r, (size_t)len + 1, 1);
        if (s) {
            memcpy(dst, src, len);
            dst[len] = 0;
            s[i].len = len;
            s[i].data = dst;
        }
        r->pos += len;
    }
    if (r->mod) {
        r->mod->nstrings = n;
        r->mod->strings = s;
    }
    return leave(r);
}

static cvm_status read_kernel(reader *r, cvm_bc_kernel *k)
{
    uint32_t f[9], at = r->pos;
    cvm_status st;
    for (int j = 0; j < 9; j++)
        if ((st = get32(r, &f[j], "a kernel header")))
            return st;
    if ((st = str_index(r, at, f[0], "kernel name")))
        return st;
    if (f[1] & ~KF_KNOWN)
        return bad(r, at + 4, "kernel flags 0x%x has unknown bits", f[1]);
    uint32_t left = r->end - r->pos;
    if (f[6] > left / PARAM_SIZE)
        return bad(r, at + 24, "parameter count %u exceeds the bytes left", f[6]);
    left -= f[6] * PARAM_SIZE;
    uint64_t reg_bytes = ((uint64_t)f[7] * 2 + 3) & ~(uint64_t)3; /* types and their padding */
    if (reg_bytes > left)
        return bad(r, at + 28, "register count %u exceeds the bytes left", f[7]);
    left -= (uint32_t)reg_bytes;
    if (f[8] > left / 4)
        return bad(r, at + 32, "code word count %u exceeds the bytes left", f[8]);
    cvm_bc_param *p = take(r, f[6], sizeof *p);
    for (uint32_t j = 0; j < f[6]; j++, r->pos += PARAM_SIZE) {
        const uint8_t *q = r->file + r->pos;
        if ((st = str_index(r, r->pos, rd32(q), "parameter name")))
            return st;
        if (p)
            p[j] = (cvm_bc_param){rd32(q), q[4], q[5], q[6], q[7], rd32(q + 8), rd32(q + 12)};
    }
    cvm_bc_type *t = take(r, f[7], sizeof *t);
    for (uint32_t j = 0; j < f[7]; j++, r->pos += 2)
        if (t)
            t[j] = (cvm_bc_type){r->file[r->pos], r->file[r->pos + 1]};
    for (; r->pos % 4; r->pos++)
        if (r->file[r->pos])
            return bad(r, r->pos, "nonzero padding after the register types");
    uint32_t *c = take(r, f[8], sizeof *c);
    for (uint32_t j = 0; j < f[8]; j++, r->pos += 4)
        if (c)
            c[j] = rd32(r->file + r->pos);
    if (k)
        *k = (cvm_bc_kernel){f[0], f[1], f[2], f[3], f[4], f[5], f[6], p, f[7], t, f[8], c};
    return CVM_OK;
}

static cvm_status read_kernels(reader *r)
{
    uint32_t n;
    cvm_status st;
    enter(r, SEC_KERNELS);
    if ((st = count(r, &n, KERNEL_FIXED, "kernel count")))
        return st;
    r->nkernels = n;
    cvm_bc_kernel *k = take(r, n, sizeof *k);
    for (uint32_t i = 0; i < n; i++)
        if ((st = read_kernel(r, k ? &k[i] : NULL)))
            return st;
    if (r->mod) {
        r->mod->nkernels = n;
        r->mod->kernels = k;
    }
    return leave(r);
}

static cvm_status read_symbols_data(reader *r)
{
    uint32_t n, ndata, csize;
    cvm_status st;
    enter(r, SEC_DATA);
    if ((st = get32(r, &ndata, "the data size")) || (st = get32(r, &csize, "the constant size")))
        return st;
    if (ndata > r->end - r->pos)
        return bad(r, r->sec_off[SEC_DATA], "data size %u exceeds the %u bytes of the section", ndata,
                   r->end - r->pos);
    uint8_t *data = take(r, ndata, 1);
    if (data)
        memcpy(data, r->file + r->pos, ndata);
    r->pos += ndata;
    if ((st = leave(r)))
        return st;
    enter(r, SEC_SYMBOLS);
    if ((st = count(r, &n, SYMBOL_SIZE, "symbol count")))
        return st;
    cvm_bc_symbol *s = take(r, n, sizeof *s);
    for (uint32_t i = 0; i < n; i++, r->pos += SYMBOL_SIZE) {
        const uint8_t *q = r->file + r->pos;
        if ((st = str_index(r, r->pos, rd32(q), "symbol name")))
            return st;
        if (q[6] || q[7])
            return bad(r, r->pos + 6, "symbol %u: reserved bytes are not zero", i);
        uint32_t off = rd32(q + 16), isz = rd32(q + 20);
        if (off > ndata || isz > ndata - off)
            return bad(r, r->pos + 16, "symbol %u: initializer [%u, +%u) outside the %u data bytes", i,
                       off, isz, ndata);
        if (s)
            s[i] = (cvm_bc_symbol){rd32(q), q[4], q[5], 0, rd32(q + 8), rd32(q + 12), off, isz};
    }
    if (r->mod) {
        r->mod->nsymbols = n;
        r->mod->symbols = s;
        r->mod->ndata = ndata;
        r->mod->data = data;
        r->mod->const_size = csize;
    }
    return leave(r);
}

/* Reads `n` records of `words` u32 each; `kernel_at` >= 0 marks the field holding a kernel index. */
static cvm_status read_records(reader *r, uint32_t n, unsigned words, int kernel_at, int str_at,
                               const char *what, uint32_t **out)
{
    uint32_t *w = take(r, (size_t)n * words, 4);
    for (uint32_t i = 0; i < n; i++, r->pos += 4 * words) {
        const uint8_t *q = r->file + r->pos;
        if (kernel_at >= 0 && rd32(q + 4 * kernel_at) >= r->nkernels)
            return bad(r, r->pos, "%s %u: kernel index %u out of range", what, i, rd32(q + 4 * kernel_at));
        if (str_at >= 0 && rd32(q + 4 * str_at) >= r->nstrings)
            return bad(r, r->pos + 4 * str_at, "%s %u: string index %u out of range", what, i,
                       rd32(q + 4 * str_at));
        for (unsigned j = 0; w && j < words; j++)
            w[(size_t)i * words + j] = rd32(q + 4 * j);
    }
    *out = w;
    return CVM_OK;
}

static cvm_status read_debug(reader *r)
{
    uint32_t n[5], at, prev_k = 0, prev_pc = 0;
    cvm_status st;
    if (!r->present[SEC_DEBUG])
        return CVM_OK;
    enter(r, SEC_DEBUG);
    at = r->pos;
    for (int i = 0; i < 5; i++)
        if ((st = get32(r, &n[i], "the debug counts")))
            return st;
    uint64_t need = (uint64_t)n[0] * 4 + (uint64_t)n[1] * 20 + (uint64_t)n[2] * 16 +
                    (uint64_t)n[3] * 32 + (uint64_t)n[4] * 24;
    if (need != r->end - r->pos)
        return bad(r, at, "debug counts need %llu bytes, the section has %u", (unsigned long long)need,
                   r->end - r->pos);
    if (need == 0)
        return bad(r, at, "empty debug section (omit it instead)");
    uint32_t *files, *lines, *scopes, *inl, *vars;
    if ((st = read_records(r, n[0], 1, -1, 0, "debug file", &files)))
        return st;
    uint32_t lines_at = r->pos;
    if ((st = read_records(r, n[1], 5, 0, -1, "line entry", &lines)))
        return st;
    for (uint32_t i = 0; i < n[1]; i++) {
        const uint8_t *q = r->file + lines_at + 20 * i;
        uint32_t k = rd32(q), pc = rd32(q + 4);
        if (i && (k < prev_k || (k == prev_k && pc < prev_pc)))
            return bad(r, lines_at + 20 * i, "line entry %u is not sorted by kernel and pc", i);
        prev_k = k;
        prev_pc = pc;
    }
    if ((st = read_records(r, n[2], 4, 0, -1, "scope", &scopes)) ||
        (st = read_records(r, n[3], 8, 0, 1, "inlined call", &inl)) ||
        (st = read_records(r, n[4], 6, 0, 1, "variable", &vars)))
        return st;
    if (r->mod) {
        cvm_bc_debug *d = &r->mod->debug;
        *d = (cvm_bc_debug){n[0], files, n[1], (cvm_bc_dline *)(void *)lines,
                            n[2], (cvm_bc_dscope *)(void *)scopes, n[3], (cvm_bc_dinline *)(void *)inl,
                            n[4], (cvm_bc_dvar *)(void *)vars};
    }
    return leave(r);
}

static cvm_status read_hash(reader *r)
{
    uint32_t tab[6][3];
    unsigned n = 0;
    for (unsigned id = SEC_STRINGS; id < SEC_LIMIT; id++)
        if (r->present[id]) {
            tab[n][0] = id;
            tab[n][1] = r->sec_off[id];
            tab[n][2] = r->sec_size[id];
            n++;
        }
    wbuf scratch = {r->fn, r->user, NULL, 0, 0, false};
    uint8_t h[32];
    section_hash(r->file, (const uint32_t(*)[3])tab, n, h, &scratch);
    bool oom = scratch.oom;
    if (scratch.p)
        scratch.fn(scratch.user, scratch.p, scratch.cap, 0);
    if (oom)
        return cvm_diag_set(r->diag, CVM_OUT_OF_MEMORY, "out of memory while hashing the module");
    if (memcmp(h, r->file + r->sec_off[SEC_HASH], 32) != 0)
        return bad(r, r->sec_off[SEC_HASH], "content hash does not match the module's contents");
    if (r->mod)
        memcpy(r->mod->hash, h, 32);
    return CVM_OK;
}

static cvm_status parse(reader *r)
{
    cvm_status st;
    r->used = BLOB_HEAD;
    r->mod = take(r, 1, sizeof(cvm_bc_module));
    if ((st = read_strings(r)) || (st = read_kernels(r)) || (st = read_symbols_data(r)) ||
        (st = read_debug(r)))
        return st;
    return r->mod ? read_hash(r) : CVM_OK;
}

cvm_status cvm_bc_module_read(const void *bytes, size_t size, cvm_alloc_fn fn, void *user,
                              cvm_bc_module **out_mod, cvm_diag *diag)
{
    reader r;
    memset(&r, 0, sizeof r);
    r.file = bytes;
    r.size = size;
    r.diag = diag;
    cvm_status st;
    if (!out_mod || (!bytes && size))
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_bc_module_read: NULL argument");
    *out_mod = NULL;
    if (!fn)
        fn = cvm_default_alloc;
    r.fn = fn;
    r.user = user;
    if ((st = read_layout(&r)) || (st = parse(&r)))
        return st;
    size_t total = r.used;
    r.blob = cvm_bc_alloc(fn, user, total);
    if (!r.blob)
        return cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory reading a %zu-byte module", size);
    memcpy(r.blob, &total, sizeof total);
    /* The fill pass sees the same bytes, so it cannot fail but for the hash scratch. */
    st = parse(&r);
    r.mod->alloc = fn;
    r.mod->alloc_user = user;
    r.mod->blob = r.blob;
    if (st) {
        cvm_bc_free(fn, user, r.blob, total);
        return st;
    }
    *out_mod = r.mod;
    return CVM_OK;
}

void cvm_bc_module_free(cvm_bc_module *mod)
{
    if (!mod || !mod->blob)
        return;
    size_t total;
    memcpy(&total, mod->blob, sizeof total);
    cvm_bc_free(mod->alloc, mod->alloc_user, mod->blob, total);
}
