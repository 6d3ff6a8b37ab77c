/*
 * compile.c - cvm_compile_cuda: the CUDA C frontend's driver and the small
 * utilities its stages share (arena, text buffers, diagnostics).
 *
 * Pipeline: cvm_fe_pp (pp.c) -> fe_lex -> fe_parse -> fe_lower (.cbs text)
 * -> cvm_bc_assemble -> cvm_bc_verify -> cvm_bc_module_write. The text
 * route lets the assembler and verifier check every kernel the compiler
 * writes; a failure there is an internal compiler error, reported as such.
 */
#include "../../vm/cubevm.h"
#include "../../bytecode/c_numbers.h"
#include "fe.h"
#include "lower.h"
#include "pp.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena ---- */

struct fe_chunk {
    fe_chunk *next;
    size_t size, used;
    /* payload follows, 16-byte aligned */
};

#define CHUNK_HDR ((sizeof(fe_chunk) + 15) & ~(size_t)15)
#define CHUNK_SIZE ((size_t)64 * 1024)

void *fe_alloc(fe_ctx *c, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    fe_chunk *k = c->chunks;
    if (!k || k->size - k->used < size) {
        size_t cap = size > CHUNK_SIZE ? size : CHUNK_SIZE;
        k = cvm_bc_alloc(c->alloc, c->alloc_user, CHUNK_HDR + cap);
        if (!k) {
            fe_error(c, NULL, CVM_OUT_OF_MEMORY, "out of memory");
            return NULL;
        }
        k->size = cap;
        k->next = c->chunks;
        c->chunks = k;
    }
    void *p = (char *)k + CHUNK_HDR + k->used;
    k->used += size;
    memset(p, 0, size);
    return p;
}

static void arena_free(fe_ctx *c)
{
    while (c->chunks) {
        fe_chunk *k = c->chunks;
        c->chunks = k->next;
        cvm_bc_free(c->alloc, c->alloc_user, k, CHUNK_HDR + k->size);
    }
}

char *fe_strndup(fe_ctx *c, const char *s, size_t n)
{
    char *p = fe_alloc(c, n + 1);
    if (p)
        memcpy(p, s, n);
    return p;
}

char *fe_fmt(fe_ctx *c, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    if ((size_t)n < sizeof tmp)
        return fe_strndup(c, tmp, (size_t)n);
    char *big = fe_alloc(c, (size_t)n + 1); /* a long name: formatted whole, never cut */
    if (!big)
        return fe_strndup(c, "", 0);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return big;
}

/* s as the inside of a .cbs string literal (quotes, backslashes and control bytes escaped). */
const char *fe_escape(fe_ctx *c, const char *s)
{
    size_t n = 0;
    for (const char *p = s; *p; p++)
        n += (*p == '"' || *p == '\\') ? 2 : ((unsigned char)*p < 0x20 || *p == 0x7f) ? 4 : 1;
    char *out = fe_alloc(c, n + 1), *w = out;
    if (!out)
        return "";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            *w++ = '\\';
            *w++ = (char)*p;
        } else if (*p < 0x20 || *p == 0x7f) {
            w += snprintf(w, 5, "\\x%02x", *p);
        } else {
            *w++ = (char)*p;
        }
    }
    *w = 0;
    return out;
}

/* ---- growable text ---- */

void fe_buf_add(fe_ctx *c, fe_buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = cvm_bc_alloc(c->alloc, c->alloc_user, cap);
        if (!p) {
            fe_error(c, NULL, CVM_OUT_OF_MEMORY, "out of memory");
            return;
        }
        if (b->p)
            memcpy(p, b->p, b->len);
        cvm_bc_free(c->alloc, c->alloc_user, b->p, b->cap);
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

void fe_buf_printf(fe_ctx *c, fe_buf *b, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof tmp) { /* long strings (print formats): format again into place */
        char *big = cvm_bc_alloc(c->alloc, c->alloc_user, (size_t)n + 1);
        if (!big) {
            fe_error(c, NULL, CVM_OUT_OF_MEMORY, "out of memory");
            return;
        }
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        fe_buf_add(c, b, big, (size_t)n);
        cvm_bc_free(c->alloc, c->alloc_user, big, (size_t)n + 1);
        return;
    }
    fe_buf_add(c, b, tmp, (size_t)n);
}

void fe_buf_free(fe_ctx *c, fe_buf *b)
{
    cvm_bc_free(c->alloc, c->alloc_user, b->p, b->cap);
    memset(b, 0, sizeof *b);
}

/* ---- diagnostics ---- */

void fe_error(fe_ctx *c, const fe_tok *tok, cvm_status st, const char *fmt, ...)
{
    if (c->err)
        return;
    c->err = true;
    c->err_status = st;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cvm_diag *d = c->diag;
    if (!d)
        return;
    memset(d, 0, sizeof *d);
    d->status = st;
    if (tok && tok->file < c->nfiles) {
        const char *file = c->files[tok->file];
        snprintf(d->file, sizeof d->file, "%s", file);
        d->line = tok->line;
        d->col = tok->col;
        snprintf(d->message, sizeof d->message, "%s:%u:%u: error: %s", file, tok->line, tok->col,
                 msg);
    } else if (c->nfiles) { /* no position: the file being compiled */
        snprintf(d->file, sizeof d->file, "%s", c->files[0]);
        snprintf(d->message, sizeof d->message, "%s: error: %s", c->files[0], msg);
    } else {
        snprintf(d->message, sizeof d->message, "error: %s", msg);
    }
}

/* ---- the driver ---- */

static cvm_status split_defines(fe_ctx *c, const cvm_compile_options *o, cvm_fe_define **out)
{
    *out = NULL;
    if (!o || !o->define_count)
        return CVM_OK;
    cvm_fe_define *d = fe_alloc(c, sizeof *d * o->define_count);
    if (!d)
        return c->err_status;
    for (uint32_t i = 0; i < o->define_count; i++) {
        const char *s = o->defines[i] ? o->defines[i] : "";
        const char *eq = strchr(s, '=');
        d[i].name = eq ? fe_strndup(c, s, (size_t)(eq - s)) : s;
        d[i].value = eq ? eq + 1 : NULL;
    }
    *out = d;
    return c->err ? c->err_status : CVM_OK;
}

/*
 * Warnings from the verifier's divergence analysis of the generated code:
 * a cube barrier (__syncthreads and its _count/_and/_or forms,
 * cg::sync of a block) that not every live thread of the block reaches,
 * because it sits under a condition that depends on the thread. Lanes that
 * returned before it do not count (the VM, like current GPUs, lets exited
 * threads out of barriers), so `if (i >= n) return; __syncthreads();` is
 * quiet. One warning per source position (inlined copies share it).
 */
static void barrier_warnings(const cvm_bc_module *bc, const cvm_bc_verified *ver,
                             const cvm_compile_options *opts)
{
    uint32_t seen[64][2];
    int nseen = 0;
    for (uint32_t k = 0; k < bc->nkernels; k++) {
        const cvm_bc_vkernel *vk = &ver->kernels[k];
        uint8_t *classes = NULL; /* made for a kernel with a candidate */
        bool tried = false;
        for (uint32_t pc = 0; pc < vk->ninsns; pc++) {
            const cvm_bc_opinfo *oi = cvm_bc_op_info(bc->kernels[k].code[vk->insns[pc].word] & 0xffffu);
            const char *file = NULL;
            uint32_t line = 0, col = 0;
            if (!oi || !(oi->flags & CVM_OPF_BARRIER) || vk->insns[pc].live_uni <= CVM_UNI_CUBE)
                continue;
            if (!tried) { /* a flag in shared memory read after a barrier is the cube's */
                cvm_diag ignored;
                tried = true;
                classes = malloc(vk->ninsns);
                if (classes && cvm_bc_barrier_classes(bc, ver, k, classes, &ignored) != CVM_OK) {
                    free(classes); /* then warn as the verifier's classes say */
                    classes = NULL;
                }
            }
            if ((classes && classes[pc] <= CVM_UNI_CUBE) || !cvm_bc_debug_line(bc, k, pc, &file, &line, &col) ||
                !file)
                continue;
            bool dup = false;
            for (int i = 0; i < nseen; i++)
                dup |= seen[i][0] == line && seen[i][1] == col;
            if (dup)
                continue;
            if (nseen < 64) {
                seen[nseen][0] = line;
                seen[nseen++][1] = col;
            }
            cvm_diag w;
            memset(&w, 0, sizeof w);
            snprintf(w.file, sizeof w.file, "%s", file);
            w.line = line;
            w.col = col;
            snprintf(w.message, sizeof w.message,
                     "%.200s:%u:%u: warning: barrier under a condition that depends on the thread "
                     "index: threads that skip it are not waited for (undefined behaviour in CUDA)",
                     file, line, col);
            opts->warning(opts->warning_user, &w);
        }
        free(classes);
    }
}

/* The module with loop-invariant instructions moved out of loops
 * (bytecode/opt.c), read back and verified: a rejected result is a
 * compiler bug, reported as the internal error it is. */
static cvm_status optimized(const cvm_bc_module *bc, const cvm_bc_verified *ver, void **out_bytes,
                            size_t *out_size, cvm_diag *inner)
{
    cvm_status st = cvm_bc_optimize(bc, ver, out_bytes, out_size, NULL, inner);
    cvm_bc_module *back = NULL;
    cvm_bc_verified *vback = NULL;
    if (st == CVM_OK)
        st = cvm_bc_module_read(*out_bytes, *out_size, bc->alloc, bc->alloc_user, &back, inner);
    if (st == CVM_OK)
        st = cvm_bc_verify(back, &vback, inner);
    if (vback)
        cvm_bc_verified_free(back, vback);
    if (back)
        cvm_bc_module_free(back);
    if (st != CVM_OK && *out_bytes) {
        cvm_bc_free(bc->alloc, bc->alloc_user, *out_bytes, *out_size);
        *out_bytes = NULL;
        *out_size = 0;
    }
    return st;
}

/* Assembles, verifies, optimizes and serializes the generated text. */
static cvm_status finish(fe_ctx *c, const fe_buf *text, const cvm_compile_options *opts,
                         void **out_bytes, size_t *out_size, cvm_diag *diag)
{
    cvm_bc_module *bc = NULL;
    cvm_bc_verified *ver = NULL;
    cvm_diag inner;
    memset(&inner, 0, sizeof inner);
    cvm_status st = cvm_bc_assemble(text->p, text->len, "<cuda frontend output>", c->alloc,
                                    c->alloc_user, &bc, &inner);
    if (st == CVM_OK)
        st = cvm_bc_verify(bc, &ver, &inner);
    if (st == CVM_OK && opts && opts->no_opt)
        st = cvm_bc_module_write(bc, out_bytes, out_size, &inner);
    else if (st == CVM_OK)
        st = optimized(bc, ver, out_bytes, out_size, &inner);
    if (st == CVM_OK && opts && opts->warning)
        barrier_warnings(bc, ver, opts);
    if (ver)
        cvm_bc_verified_free(bc, ver);
    if (bc)
        cvm_bc_module_free(bc);
    if (st != CVM_OK && st != CVM_OUT_OF_MEMORY) {
        cvm_diag_set(diag, CVM_INTERNAL, "internal compiler error: generated bytecode rejected: %s",
                     inner.message);
        return CVM_INTERNAL;
    }
    if (st != CVM_OK && diag)
        *diag = inner;
    return st;
}

/* The compile itself, its arguments checked (cvm_compile_cuda). */
static cvm_status compile_here(const char *src, size_t len, const char *filename,
                               const cvm_compile_options *opts, void **out_bytes, size_t *out_size,
                               cvm_diag *diag)
{
    *out_bytes = NULL;
    *out_size = 0;
    if (!filename)
        filename = "<input>";
    fe_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    fe_ctx *c = &ctx;
    c->alloc = cvm_default_alloc;
    c->diag = diag;
    c->fmad = opts ? opts->fmad : 0;
    c->debug_vars = opts && opts->no_opt;
    char *pp_text = NULL;
    size_t pp_len = 0;
    fe_buf out = {0};
    cvm_fe_define *defs = NULL;
    cvm_status st = split_defines(c, opts, &defs);
    if (st)
        goto fail;
    cvm_fe_pp_opts po = {0};
    po.include_dirs = opts ? opts->include_dirs : NULL;
    po.ninclude_dirs = opts ? opts->include_dir_count : 0;
    po.defines = defs;
    po.ndefines = opts ? opts->define_count : 0;
    po.alloc = c->alloc;
    po.implicit_cuda_runtime = 1; /* as nvcc: M_PI, size_t, FLT_MAX without an include */
    st = cvm_fe_pp(src, len, filename, &po, &pp_text, &pp_len, diag);
    if (st)
        goto fail;
    st = fe_lex(c, pp_text, pp_len, filename);
    if (st)
        goto fail;
    fe_parse(c);
    if (c->err) {
        st = c->err_status;
        goto fail;
    }
    st = fe_lower_module(c, opts ? opts->kernels : NULL, opts ? opts->kernel_count : 0, &out);
    if (st)
        goto fail;
    st = finish(c, &out, opts, out_bytes, out_size, diag);
fail:
    fe_buf_free(c, &out);
    if (pp_text)
        cvm_bc_free(c->alloc, c->alloc_user, pp_text, pp_len + 1);
    arena_free(c);
    return st;
}

/* ---- the compiler's own thread ----
 *
 * The preprocessor, the parser and the lowering recurse once per level of
 * nesting, bounded by FE_MAX_NEST: near the bound, a chain of 1,490
 * assignments takes 3.5 MiB of stack in the -O2 build and 20 MiB in the
 * -O0 ASan build of `make fuzz`. The caller's thread may have far less (a
 * Rust or Go thread 2 MiB or less, a musl thread 128 KiB), so the frontend
 * runs on a thread of its own whose stack is sized for the bound. The
 * stack is address space reserved for the call; only the pages a deep
 * input touches are ever committed. */

#define FE_STACK_BYTES ((size_t)64 << 20)

typedef struct compile_call {
    const char *src;
    size_t len;
    const char *filename;
    const cvm_compile_options *opts;
    void **out_bytes;
    size_t *out_size;
    cvm_diag *diag;
    cvm_status st;
} compile_call;

static void *compile_thread(void *arg)
{
    compile_call *k = arg;
    /* Numbers are read and written as C reads them whatever locale the host
     * set: under setlocale(LC_NUMERIC, "de_DE") strtod stops at the '.' of
     * 1.5f. The thread's own locale changes nothing for the host's threads. */
    (void)cvm_bc_c_numbers_enter();
    k->st = compile_here(k->src, k->len, k->filename, k->opts, k->out_bytes, k->out_size, k->diag);
    return NULL; /* the thread ends here: its locale with it */
}

cvm_status cvm_compile_cuda(const char *src, size_t len, const char *filename,
                            const cvm_compile_options *opts, void **out_bytes, size_t *out_size,
                            cvm_diag *diag)
{
    if (!src || !out_bytes || !out_size)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_compile_cuda: NULL argument");
    if (opts && ((opts->include_dir_count && !opts->include_dirs) || (opts->define_count && !opts->defines) ||
                 (opts->kernel_count && !opts->kernels)))
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_compile_cuda: a count of options with a NULL list");
    for (uint32_t i = 0; opts && i < opts->include_dir_count + opts->define_count + opts->kernel_count; i++) {
        const uint32_t d = i - opts->include_dir_count, k = d - opts->define_count;
        const char *s = i < opts->include_dir_count ? opts->include_dirs[i]
                        : d < opts->define_count    ? opts->defines[d]
                                                    : opts->kernels[k];
        if (!s)
            return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_compile_cuda: a NULL string in the options");
    }
    compile_call k = {src, len, filename, opts, out_bytes, out_size, diag, CVM_OK};
    pthread_attr_t attr;
    pthread_t t;
    int e = pthread_attr_init(&attr);
    if (!e) {
        e = pthread_attr_setstacksize(&attr, FE_STACK_BYTES);
        if (!e)
            e = pthread_create(&t, &attr, compile_thread, &k);
        pthread_attr_destroy(&attr);
    }
    if (e) {
        *out_bytes = NULL;
        *out_size = 0;
        return cvm_diag_set(diag, CVM_OUT_OF_MEMORY,
                            "cvm_compile_cuda: could not start the compiler's thread (a %zu MiB stack): %s",
                            FE_STACK_BYTES >> 20, strerror(e));
    }
    /* The thread uses k on this stack: the wait must not end by a cancellation of the caller. */
    int cancel;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
    pthread_join(t, NULL);
    pthread_setcancelstate(cancel, NULL);
    return k.st;
}
