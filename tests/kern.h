/*
 * kern.h - shared helpers for the behaviour tests (control flow, memory,
 * scheduling, plane ops, conformance): assemble .cbs text, load it on the
 * "cpu" device, launch a kernel and wait, all through the public API only.
 *
 *   kern_open();                                    once, before anything else
 *   cvm_buffer *b = kern_buf("out", bytes, NULL);   zero-filled (or from data)
 *   cvm_arg args[] = { kern_arg_buf(b), kern_arg_u32(&n) };
 *   cvm_launch_config cfg = kern_cfg(grid, block);
 *   st = kern_exec(src, "name", &cfg, args, 2, &d); launch + sync, diag filled
 *   kern_read(b, dst, bytes);  kern_close();
 *
 * Header-only and static, like tap.h: each test is one program. Scalar
 * argument pointers must stay valid until kern_exec returns.
 */
#ifndef CVM_TEST_KERN_H
#define CVM_TEST_KERN_H

#include "../vm/cubevm.h"
#include "tap.h"

#include <stdlib.h>

static cvm_device *kern_dev;

/*
 * Joins a NULL-terminated list of text pieces (long kernels are written as
 * several literals: ISO C caps one string literal at 4095 characters).
 * Returns a malloc'ed string or NULL.
 */
static inline char *kern_join(const char *const *parts)
{
    size_t n = 1;
    for (size_t i = 0; parts[i]; i++)
        n += strlen(parts[i]);
    char *s = malloc(n), *w = s;
    for (size_t i = 0; s && parts[i]; i++) {
        size_t k = strlen(parts[i]);
        memcpy(w, parts[i], k);
        w += k;
    }
    if (s)
        *w = 0;
    return s;
}

static inline int kern_open(void)
{
    cvm_diag d;
    memset(&d, 0, sizeof d);
    if (cvm_device_open("cpu", NULL, &kern_dev, &d) != CVM_OK) {
        diag("cannot open the cpu device: %s", d.message);
        return 0;
    }
    return 1;
}

static inline void kern_close(void)
{
    if (kern_dev)
        cvm_device_close(kern_dev);
    kern_dev = NULL;
}

static inline cvm_stream *kern_stream(void) { return cvm_device_stream(kern_dev); }

/* Assembles and loads `src`; NULL (with a diag line naming `what`) on error. */
static inline cvm_module *kern_load(const char *src, const char *what, cvm_diag *d)
{
    void *bytes = NULL;
    size_t size = 0;
    cvm_module *mod = NULL;
    cvm_status st = cvm_assemble(src, strlen(src), what, &bytes, &size, d);
    if (st != CVM_OK) {
        diag("%s: assemble: %s (%s:%u:%u)", what, d->message, d->file, d->line, d->col);
        return NULL;
    }
    st = cvm_module_load(kern_dev, bytes, size, &mod, d);
    cvm_free_bytes(bytes);
    if (st != CVM_OK) {
        diag("%s: load: %s: %s", what, cvm_status_str(st), d->message);
        return NULL;
    }
    return mod;
}

/* Compiles CUDA source `src` (as file `file`, default options) and loads
 * it; NULL (with a diag line) on error. */
static inline cvm_module *kern_load_cuda(const char *src, const char *file, cvm_diag *d)
{
    void *bytes = NULL;
    size_t size = 0;
    cvm_module *mod = NULL;
    cvm_status st = cvm_compile_cuda(src, strlen(src), file, NULL, &bytes, &size, d);
    if (st == CVM_OK) {
        st = cvm_module_load(kern_dev, bytes, size, &mod, d);
        cvm_free_bytes(bytes);
    }
    if (st != CVM_OK)
        diag("%s: compile and load: %s: %s", file, cvm_status_str(st), d->message);
    return st == CVM_OK ? mod : NULL;
}

/* A buffer of `size` bytes named `name`, filled from `init` when non-NULL. */
static inline cvm_buffer *kern_buf(const char *name, size_t size, const void *init)
{
    cvm_buffer *b = NULL;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    if (cvm_buffer_create(kern_dev, size, name, &b, &d) != CVM_OK) {
        diag("buffer %s: %s", name, d.message);
        return NULL;
    }
    if (init && cvm_buffer_write(kern_stream(), b, 0, init, size, &d) != CVM_OK) {
        diag("buffer %s write: %s", name, d.message);
        cvm_buffer_free(b);
        return NULL;
    }
    return b;
}

static inline int kern_read(cvm_buffer *b, void *dst, size_t size)
{
    cvm_diag d;
    memset(&d, 0, sizeof d);
    if (cvm_buffer_read(kern_stream(), b, 0, dst, size, &d) != CVM_OK ||
        cvm_stream_sync(kern_stream(), &d) != CVM_OK) {
        diag("buffer read: %s", d.message);
        return 0;
    }
    return 1;
}

static inline cvm_arg kern_arg_buf(cvm_buffer *b)
{
    cvm_arg a;
    memset(&a, 0, sizeof a);
    a.kind = CVM_ARG_BUFFER;
    a.buffer = b;
    return a;
}

static inline cvm_arg kern_arg_view(cvm_buffer *b, size_t offset)
{
    cvm_arg a = kern_arg_buf(b);
    a.offset = offset;
    return a;
}

static inline cvm_arg kern_arg_bytes(const void *p, size_t size)
{
    cvm_arg a;
    memset(&a, 0, sizeof a);
    a.kind = CVM_ARG_BYTES;
    a.bytes = p;
    a.size = size;
    return a;
}

static inline cvm_arg kern_arg_u32(const uint32_t *p) { return kern_arg_bytes(p, sizeof *p); }

/* The bound kern_cfg gives every test launch: KERN_TIMEOUT_S, unless a
 * test raises it for a device whose launches include a compile
 * (test_vulkan_cuda.c). */
#define KERN_TIMEOUT_S 10.0
static double kern_timeout_s = KERN_TIMEOUT_S;

static inline cvm_launch_config kern_cfg(uint32_t grid, uint32_t block)
{
    cvm_launch_config c;
    memset(&c, 0, sizeof c);
    c.grid[0] = grid;
    c.block[0] = block;
    /* every test launch is bounded: a broken scheduler fails instead of hanging */
    c.timeout_s = kern_timeout_s;
    return c;
}

/* Launches kernel `name` of `mod` once and waits, then frees `mod`: the
 * launch status, or the sync status (a fault) when the launch was accepted. */
static inline cvm_status kern_run(cvm_module *mod, const char *name, const cvm_launch_config *cfg,
                                  const cvm_arg *args, uint32_t nargs, cvm_diag *d)
{
    const cvm_kernel *k = NULL;
    cvm_status st = cvm_kernel_get(mod, name, &k, d);
    if (st == CVM_OK)
        st = cvm_launch(kern_stream(), k, cfg, args, nargs, d);
    if (st == CVM_OK)
        st = cvm_stream_sync(kern_stream(), d);
    else
        diag("%s: launch: %s: %s", name, cvm_status_str(st), d->message);
    cvm_module_free(mod);
    return st;
}

/*
 * Loads `src`, launches kernel `name` once and waits. Returns the launch
 * status, or the sync status (a fault) when the launch was accepted.
 * `d` receives the details; a load error is reported as a TAP diag line.
 */
static inline cvm_status kern_exec(const char *src, const char *name, const cvm_launch_config *cfg,
                            const cvm_arg *args, uint32_t nargs, cvm_diag *d)
{
    memset(d, 0, sizeof *d);
    cvm_module *mod = kern_load(src, name, d);
    if (!mod)
        return d->status != CVM_OK ? d->status : CVM_INTERNAL;
    return kern_run(mod, name, cfg, args, nargs, d);
}

/* kern_exec for a module already in .cbc bytes. */
static inline cvm_status kern_exec_bytes(const void *bytes, size_t size, const char *name,
                                         const cvm_launch_config *cfg, const cvm_arg *args,
                                         uint32_t nargs, cvm_diag *d)
{
    cvm_module *mod = NULL;
    memset(d, 0, sizeof *d);
    cvm_status st = cvm_module_load(kern_dev, bytes, size, &mod, d);
    if (st != CVM_OK) {
        diag("%s: load: %s: %s", name, cvm_status_str(st), d->message);
        return st;
    }
    return kern_run(mod, name, cfg, args, nargs, d);
}

#endif
