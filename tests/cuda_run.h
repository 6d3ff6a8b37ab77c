/*
 * cuda_run.h - the harness of the CUDA corpus tests (test_cuda.c,
 * test_cuda_samples.c): a launch's buffers and arguments bound by
 * parameter name, comparisons that keep the first mismatch as the reason,
 * and the per-case driver (compile one kernel, run it at each size, one
 * TAP line per size).
 */
#ifndef CVM_TEST_CUDA_RUN_H
#define CVM_TEST_CUDA_RUN_H

#include "kern.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXB 16

/* One launch: what it allocated, its arguments by name, and why it failed. */
typedef struct run {
    cvm_module *mod;
    const cvm_kernel *k;
    cvm_buffer *bufs[MAXB];
    int nbufs;
    void *mem[64];
    int nmem;
    struct {
        const char *name;
        cvm_arg arg;
        int optional; /* comptime values a compiler may also fold into the instance */
    } args[MAXB];
    int nargs;
    /* comptime values the instance's name gives (cvm_kernel_get_instance), by parameter */
    int64_t ct[MAXB];
    int has_ct[MAXB];
    char why[512];
} run;

static uint64_t rng = 1;

static inline uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}
static inline float rndf(float lo, float hi) { return lo + (hi - lo) * (float)(rnd() % 1000000) / 1e6f; }
static inline int rndi(int lo, int hi) { return lo + (int)(rnd() % (uint32_t)(hi - lo + 1)); }

static inline int fail(run *r, const char *fmt, ...) TAP_FMT(2, 3);
static inline int fail(run *r, const char *fmt, ...)
{
    if (r->why[0])
        return 0; /* keep the first reason */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why, sizeof r->why, fmt, ap);
    va_end(ap);
    return 0;
}

/* Zeroed memory released at the end of the run. */
static inline void *mem(run *r, size_t bytes)
{
    void *p = calloc(1, bytes ? bytes : 1);
    if (!p || r->nmem == (int)(sizeof r->mem / sizeof r->mem[0])) {
        free(p);
        fprintf(stderr, "test_cuda: out of memory\n");
        exit(1);
    }
    r->mem[r->nmem++] = p;
    return p;
}
#define NEW(r, T, n) ((T *)mem((r), sizeof(T) * (size_t)(n)))

/* A buffer argument `name` (filled from init when non-NULL). */
static inline cvm_buffer *arg_buf(run *r, const char *name, size_t bytes, const void *init)
{
    cvm_buffer *b = kern_buf(name, bytes ? bytes : 1, init);
    if (!b || r->nbufs == MAXB || r->nargs == MAXB) {
        fail(r, "cannot create buffer %s", name);
        if (b)
            cvm_buffer_free(b);
        return NULL;
    }
    r->bufs[r->nbufs++] = b;
    r->args[r->nargs].name = name;
    r->args[r->nargs].arg = kern_arg_buf(b);
    r->args[r->nargs++].optional = 0;
    return b;
}

static inline void arg_val(run *r, const char *name, const void *p, size_t size, int optional)
{
    if (r->nargs == MAXB) {
        fail(r, "too many arguments");
        return;
    }
    void *copy = mem(r, size);
    memcpy(copy, p, size);
    r->args[r->nargs].name = name;
    r->args[r->nargs].arg = kern_arg_bytes(copy, size);
    r->args[r->nargs++].optional = optional;
}
static inline void arg_i32(run *r, const char *name, int32_t v) { arg_val(r, name, &v, 4, 0); }
static inline void arg_u32(run *r, const char *name, uint32_t v) { arg_val(r, name, &v, 4, 0); }
static inline void arg_f32(run *r, const char *name, float v) { arg_val(r, name, &v, 4, 0); }

/* Binds the arguments to the kernel's parameters by name, launches and waits. */
static inline int launch(run *r, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t bx, uint32_t by,
                  uint32_t bz, uint32_t shared)
{
    if (r->why[0])
        return 0;
    cvm_kernel_info ki;
    cvm_kernel_info_get(r->k, &ki);
    cvm_arg args[MAXB];
    int used[MAXB] = {0};
    if (ki.param_count > MAXB)
        return fail(r, "kernel has %u parameters", ki.param_count);
    for (uint32_t i = 0; i < ki.param_count; i++) {
        cvm_param_info p;
        cvm_kernel_param(r->k, i, &p);
        int j = 0;
        while (j < r->nargs && strcmp(r->args[j].name, p.name) != 0)
            j++;
        if (j == r->nargs && p.kind == CVM_PARAM_COMPTIME && r->has_ct[i] && p.size <= 8) {
            uint8_t *b = mem(r, 8); /* the instance's value, little-endian, in the parameter's size */
            for (uint32_t k = 0; k < 8; k++)
                b[k] = (uint8_t)((uint64_t)r->ct[i] >> (8 * k));
            args[i] = kern_arg_bytes(b, p.size);
            continue;
        }
        if (j == r->nargs)
            return fail(r, "kernel parameter '%s' has no argument in the test", p.name);
        args[i] = r->args[j].arg;
        used[j] = 1;
    }
    for (int j = 0; j < r->nargs; j++)
        if (!used[j] && !r->args[j].optional)
            return fail(r, "the kernel has no parameter '%s'", r->args[j].name);
    cvm_launch_config cfg = kern_cfg(gx, bx);
    cfg.grid[1] = gy;
    cfg.grid[2] = gz;
    cfg.block[1] = by;
    cfg.block[2] = bz;
    cfg.shared_bytes = shared;
    /* CVM_TEST_RACECHECK=1, CVM_TEST_INITCHECK=1: the corpus under the race and
     * uninitialized-read checkers (tests/test_checkers_corpus.sh: every kernel here
     * is correct code, so a fault reported is the checker's error or a corpus bug) */
    const char *rc = getenv("CVM_TEST_RACECHECK"), *ic = getenv("CVM_TEST_INITCHECK");
    cfg.racecheck = rc && *rc && strcmp(rc, "0") != 0;
    cfg.initcheck = ic && *ic && strcmp(ic, "0") != 0;
    static int said;
    if ((cfg.racecheck || cfg.initcheck) && !said++) /* the script looks for this */
        diag("checks on:%s%s", cfg.racecheck ? " race" : "", cfg.initcheck ? " init" : "");
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_status st = cvm_launch(kern_stream(), r->k, &cfg, args, ki.param_count, &d);
    if (st == CVM_OK)
        st = cvm_stream_sync(kern_stream(), &d);
    if (st != CVM_OK)
        return fail(r, "launch: %s: %s%s", cvm_status_str(st), d.message,
                    d.has_fault && d.fault.line ? " (with a source line)" : "");
    return 1;
}
#define LAUNCH1(r, g, b) launch((r), (g), 1, 1, (b), 1, 1, 0)

static inline void get(run *r, cvm_buffer *b, void *dst, size_t bytes)
{
    if (r->why[0] || !b)
        return;
    if (!kern_read(b, dst, bytes))
        fail(r, "reading back a buffer failed");
}

static inline uint32_t cdiv(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

/* ---- comparisons (the first mismatch is the reason) ---- */

static inline int same_i32(run *r, const char *what, const int32_t *got, const int32_t *want, size_t n)
{
    for (size_t i = 0; i < n && !r->why[0]; i++)
        if (got[i] != want[i])
            return fail(r, "%s[%zu] = %d, want %d", what, i, got[i], want[i]);
    return !r->why[0];
}

static inline int same_u32(run *r, const char *what, const uint32_t *got, const uint32_t *want, size_t n)
{
    for (size_t i = 0; i < n && !r->why[0]; i++)
        if (got[i] != want[i])
            return fail(r, "%s[%zu] = %u (0x%x), want %u (0x%x)", what, i, got[i], got[i], want[i],
                        want[i]);
    return !r->why[0];
}

/* Bit-exact floats (NaNs equal to NaNs). */
static inline int same_f32(run *r, const char *what, const float *got, const float *want, size_t n)
{
    for (size_t i = 0; i < n && !r->why[0]; i++)
        if (memcmp(&got[i], &want[i], 4) != 0 && !(isnan(got[i]) && isnan(want[i])))
            return fail(r, "%s[%zu] = %.9g, want %.9g (exact)", what, i, got[i], want[i]);
    return !r->why[0];
}

/* |got - want| <= abs_tol + rel_tol * |want| */
static inline int near_f32(run *r, const char *what, const float *got, const double *want, size_t n,
                    double abs_tol, double rel_tol)
{
    for (size_t i = 0; i < n && !r->why[0]; i++) {
        double e = fabs((double)got[i] - want[i]);
        if (!(e <= abs_tol + rel_tol * fabs(want[i])))
            return fail(r, "%s[%zu] = %.9g, want %.9g (abs %g + rel %g)", what, i, got[i],
                        want[i], abs_tol, rel_tol);
    }
    return !r->why[0];
}

static inline float *rand_f32(run *r, size_t n, float lo, float hi)
{
    float *p = NEW(r, float, n);
    for (size_t i = 0; i < n; i++)
        p[i] = rndf(lo, hi);
    return p;
}

static inline int32_t *rand_i32(run *r, size_t n, int lo, int hi)
{
    int32_t *p = NEW(r, int32_t, n);
    for (size_t i = 0; i < n; i++)
        p[i] = rndi(lo, hi);
    return p;
}

/* A sequential float tree: the per-block shared-memory reduction with halving strides. */
static inline float tree_halving(float *s, uint32_t len)
{
    for (uint32_t st = len / 2; st > 0; st >>= 1)
        for (uint32_t t = 0; t < st; t++)
            s[t] += s[t + st];
    return s[0];
}


typedef struct tcase {
    const char *file;   /* under tests/cuda/ */
    const char *kernel; /* kernel or template instance to compile and launch */
    int (*fn)(run *r, uint32_t n);
    uint32_t sizes[4];  /* 0 ends the list */
} tcase;


/* Compiles `c`'s file for its kernel; NULL (with the diagnostic in d) on failure. */
static inline cvm_module *compile_case(const tcase *c, cvm_diag *d)
{
    char path[256], *src = NULL;
    snprintf(path, sizeof path, "tests/cuda/%s", c->file);
    FILE *f = fopen(path, "rb");
    long len = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (src = malloc((size_t)len + 1)) && fread(src, 1, (size_t)len, f) == (size_t)len)
        src[len] = 0;
    else
        len = -1;
    if (f)
        fclose(f);
    if (len < 0) {
        free(src);
        snprintf(d->message, sizeof d->message, "cannot read %s", path);
        return NULL;
    }
    const char *kernels[1] = {c->kernel};
    cvm_compile_options o = {0};
    o.kernels = kernels;
    o.kernel_count = 1;
    void *bytes = NULL;
    size_t size = 0;
    cvm_module *mod = NULL;
    cvm_status st = cvm_compile_cuda(src, (size_t)len, path, &o, &bytes, &size, d);
    free(src);
    if (st == CVM_OK && (st = cvm_module_load(kern_dev, bytes, size, &mod, d)) != CVM_OK) {
        char m[sizeof d->message];
        snprintf(m, sizeof m, "%s", d->message);
        snprintf(d->message, sizeof d->message, "the compiled module does not load: %.400s", m);
    }
    cvm_free_bytes(bytes);
    return st == CVM_OK ? mod : NULL;
}

static inline void run_free(run *r)
{
    for (int i = 0; i < r->nbufs; i++)
        cvm_buffer_free(r->bufs[i]);
    for (int i = 0; i < r->nmem; i++)
        free(r->mem[i]);
}

static inline void run_case(const tcase *c, uint32_t index)
{
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_module *mod = compile_case(c, &d);
    const cvm_kernel *k = NULL;
    int64_t ct[MAXB];
    for (int i = 0; i < MAXB; i++)
        ct[i] = INT64_MIN;
    if (mod && cvm_kernel_get_instance(mod, c->kernel, &k, ct, MAXB, NULL) != CVM_OK) {
        /* the instance may carry its canonical spelling ("scale<float,4>") */
        if (cvm_module_kernel_count(mod) == 1)
            cvm_kernel_get(mod, cvm_module_kernel_name(mod, 0), &k, NULL);
        else
            snprintf(d.message, sizeof d.message, "no kernel '%s' in the compiled module", c->kernel);
    }
    if (!k)
        diag("%s %s: %s", c->file, c->kernel, d.message);
    for (int s = 0; s < 4 && c->sizes[s]; s++) {
        run r;
        memset(&r, 0, sizeof r);
        r.mod = mod;
        r.k = k;
        for (int i = 0; i < MAXB; i++) {
            r.ct[i] = ct[i];
            r.has_ct[i] = ct[i] != INT64_MIN;
        }
        rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)index << 20 ^ c->sizes[s]);
        int pass = k && c->fn(&r, c->sizes[s]);
        ok(pass, "%s %s n=%u%s", c->file, c->kernel, c->sizes[s], k ? "" : " (does not compile)");
        if (k && !pass)
            diag("  %s", r.why);
        run_free(&r);
    }
    cvm_module_free(mod);
}

#endif
