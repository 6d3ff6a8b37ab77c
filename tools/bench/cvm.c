/*
 * cvm.c - the cubevm contenders of `make bench`: kernels/bench.cu compiled
 * with the CUDA frontend, run through the public API (vm/cubevm.h) on one
 * device with cvm_config.threads = --threads. `cubevm` is the default tier
 * (CVM_TIER_DEFAULT: CUBEVM_JIT's choice, auto when unset);
 * `cubevm-interp` forces the interpreter (CVM_TIER_INTERP) and
 * `cubevm-native` native code through LLVM (CVM_TIER_NATIVE). All run on
 * the same buffers.
 */
#include "bench.h"
#include "../../vm/cubevm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cvm_device *dev;
static cvm_module *mod;
static cvm_stream *st;
static cvm_buffer *buf_in[2], *buf_out, *buf_part;
static float *host_out;
static int users;            /* contenders holding the case's buffers */
static double enqueue_rate;  /* launches per second, launch case */
static int tier;             /* cvm_launch_config.tier of the contender running */

#define SUM_CUBES 1024
#define WARM_TIER_RUNS 17

static void set_why(char *why, size_t len, const char *what, const cvm_diag *d)
{
    snprintf(why, len, "%s: %s", what, d->message[0] ? d->message : cvm_status_str(d->status));
}

int cubevm_global_init(char *why, size_t whylen)
{
    char path[1024];
    cvm_diag d = { 0 };
    snprintf(path, sizeof path, "%s/tools/bench/kernels/bench.cu", g_root);
    FILE *f = fopen(path, "rb");
    if (!f) { snprintf(why, whylen, "cannot open %s", path); return -1; }
    static char src[65536];
    size_t len = fread(src, 1, sizeof src - 1, f);
    fclose(f);
    void *bytes = NULL;
    size_t size = 0;
    cvm_config cfg = { 0 };
    cfg.threads = (uint32_t)g_threads;
    if (cvm_compile_cuda(src, len, path, NULL, &bytes, &size, &d) != CVM_OK) {
        set_why(why, whylen, "compiling bench.cu", &d);
        return -1;
    }
    if (cvm_device_open("cpu", &cfg, &dev, &d) != CVM_OK ||
        cvm_module_load(dev, bytes, size, &mod, &d) != CVM_OK) {
        set_why(why, whylen, "loading bench.cu", &d);
        cvm_free_bytes(bytes);
        return -1;
    }
    cvm_free_bytes(bytes);
    st = cvm_device_stream(dev);
    return 0;
}

void cubevm_global_fini(void)
{
    if (mod) cvm_module_free(mod);
    if (dev) cvm_device_close(dev);
    mod = NULL;
    dev = NULL;
}

double cubevm_enqueue_per_s(void) { return enqueue_rate; }

static cvm_arg abuf(cvm_buffer *b) { cvm_arg a = { CVM_ARG_BUFFER, b, 0, NULL, 0 }; return a; }
static cvm_arg aval(const void *p, size_t n) { cvm_arg a = { CVM_ARG_BYTES, NULL, 0, p, n }; return a; }

static int launch(const char *kname, uint32_t gx, uint32_t gy, uint32_t bx, uint32_t by,
                  const cvm_arg *args, uint32_t nargs, cvm_diag *d)
{
    const cvm_kernel *k;
    cvm_launch_config lc = { 0 };
    lc.grid[0] = gx; lc.grid[1] = gy;
    lc.block[0] = bx; lc.block[1] = by;
    lc.tier = tier;
    if (cvm_kernel_get(mod, kname, &k, d) != CVM_OK) return -1;
    return cvm_launch(st, k, &lc, args, nargs, d) == CVM_OK ? 0 : -1;
}

/* Enqueues the case's launches (no sync). */
static int enqueue(const bench_case *bc, cvm_diag *d)
{
    static int iv[12];
    uint32_t blocks;
    switch (bc->kind) {
    case K_POOL: {
        int v[11] = { bc->n, bc->h, bc->w, bc->c, bc->oh, bc->ow, bc->k, bc->s, bc->p };
        memcpy(iv, v, sizeof v);
        cvm_arg a[11] = { abuf(buf_in[0]), abuf(buf_out) };
        for (int i = 0; i < 9; i++) a[2 + i] = aval(&iv[i], 4);
        blocks = (uint32_t)((bc->out_count + 255) / 256);
        return launch("max_pool2d_nhwc", blocks, 1, 256, 1, a, 11, d);
    }
    case K_VADD: {
        iv[0] = (int)bc->len;
        cvm_arg a[4] = { abuf(buf_in[0]), abuf(buf_in[1]), abuf(buf_out), aval(&iv[0], 4) };
        return launch("vadd", (uint32_t)((bc->len + 255) / 256), 1, 256, 1, a, 4, d);
    }
    case K_SAXPY: {
        iv[0] = (int)bc->len;
        cvm_arg a[5] = { aval(&bc->alpha, 4), abuf(buf_in[0]), abuf(buf_in[1]), abuf(buf_out),
                         aval(&iv[0], 4) };
        return launch("saxpy", (uint32_t)((bc->len + 255) / 256), 1, 256, 1, a, 5, d);
    }
    case K_SUM: {
        iv[0] = (int)bc->len;
        iv[1] = SUM_CUBES;
        cvm_arg a[3] = { abuf(buf_in[0]), abuf(buf_part), aval(&iv[0], 4) };
        cvm_arg b[3] = { abuf(buf_part), abuf(buf_out), aval(&iv[1], 4) };
        if (launch("sum_partial", SUM_CUBES, 1, 256, 1, a, 3, d)) return -1;
        return launch("sum_final", 1, 1, 256, 1, b, 3, d);
    }
    case K_SOFTMAX: {
        iv[0] = bc->cols;
        cvm_arg a[3] = { abuf(buf_in[0]), abuf(buf_out), aval(&iv[0], 4) };
        return launch("softmax_rows", (uint32_t)bc->rows, 1, 256, 1, a, 3, d);
    }
    case K_TRANSPOSE: {
        iv[0] = bc->rows; iv[1] = bc->cols;
        cvm_arg a[4] = { abuf(buf_in[0]), abuf(buf_out), aval(&iv[0], 4), aval(&iv[1], 4) };
        return launch("transpose", (uint32_t)(bc->cols + 31) / 32, (uint32_t)(bc->rows + 31) / 32,
                      32, 8, a, 4, d);
    }
    case K_CONV: {
        int v[7] = { bc->n, bc->ci, bc->co, bc->h, bc->w, bc->k, bc->p };
        memcpy(iv, v, sizeof v);
        cvm_arg a[10] = { abuf(buf_in[0]), abuf(buf_in[1]), abuf(buf_out) };
        for (int i = 0; i < 7; i++) a[3 + i] = aval(&iv[i], 4);
        return launch("conv2d_nchw", (uint32_t)((bc->out_count + 255) / 256), 1, 256, 1, a, 10, d);
    }
    case K_MATMUL: {
        iv[0] = bc->rows;
        cvm_arg a[4] = { abuf(buf_in[0]), abuf(buf_in[1]), abuf(buf_out), aval(&iv[0], 4) };
        return launch("matmul", (uint32_t)bc->rows / 16, (uint32_t)bc->rows / 16, 16, 16, a, 4, d);
    }
    case K_LAUNCH:
        return launch("empty", 1, 1, 32, 1, NULL, 0, d);
    }
    return -1;
}

/* The median of 7 rounds of 2000 launches queued back to back (one round
 * alone varied 3x from run to run). */
static void measure_enqueue(const bench_case *bc)
{
    cvm_diag d = { 0 };
    const int n = 2000;
    double rate[7];
    for (int k = 0; k < 7; k++) {
        double t0 = now_ms();
        for (int i = 0; i < n; i++)
            if (enqueue(bc, &d)) break;
        double t1 = now_ms();
        cvm_stream_sync(st, &d);
        rate[k] = n / ((t1 - t0) / 1000.0);
    }
    for (int i = 1; i < 7; i++) /* insertion sort */
        for (int j = i; j > 0 && rate[j - 1] > rate[j]; j--) {
            double t = rate[j]; rate[j] = rate[j - 1]; rate[j - 1] = t;
        }
    enqueue_rate = rate[3];
}

static double cvm_run(const bench_case *bc, char *why, size_t whylen);

static int cvm_setup(const bench_case *bc, char *why, size_t whylen)
{
    cvm_diag d = { 0 };
    if (!dev) { snprintf(why, whylen, "no device"); return PREP_UNAVAILABLE; }
    if (users++ > 0) return PREP_OK;
    for (int i = 0; i < bc->n_in; i++) {
        if (cvm_buffer_create(dev, bc->in_count[i] * 4, "in", &buf_in[i], &d) != CVM_OK ||
            cvm_buffer_write(st, buf_in[i], 0, bc->in[i], bc->in_count[i] * 4, &d) != CVM_OK)
            goto fail;
    }
    if (cvm_buffer_create(dev, (bc->out_count ? bc->out_count : 1) * 4, "out", &buf_out, &d) != CVM_OK ||
        cvm_buffer_create(dev, SUM_CUBES * 4, "partial", &buf_part, &d) != CVM_OK)
        goto fail;
    host_out = xalloc((bc->out_count ? bc->out_count : 1) * 4);
    if (cvm_stream_sync(st, &d) != CVM_OK) goto fail;
    if (bc->kind == K_LAUNCH) measure_enqueue(bc);
    /* Under CUBEVM_JIT=auto (and unset) the default tier compiles a kernel
     * at the first launch after its launches have run 2^22 units: run
     * every case's kernels past that before any timing (sum's partial
     * sums, 2^18 units a launch, compile at the 17th launch; the one-cube
     * kernels of sum's last step and of `launch` stay interpreted). */
    for (int i = 0; i < WARM_TIER_RUNS && bc->kind != K_LAUNCH; i++)
        if (cvm_run(bc, why, whylen) < 0) return PREP_UNAVAILABLE;
    return PREP_OK;
fail:
    set_why(why, whylen, "setup", &d);
    return PREP_UNAVAILABLE;
}

static double cvm_run(const bench_case *bc, char *why, size_t whylen)
{
    cvm_diag d = { 0 };
    double t0 = now_ms();
    if (enqueue(bc, &d) || cvm_stream_sync(st, &d) != CVM_OK) {
        set_why(why, whylen, "launch", &d);
        return -1;
    }
    return now_ms() - t0;
}

static const float *cvm_output(const bench_case *bc)
{
    cvm_diag d = { 0 };
    if (bc->kind == K_LAUNCH) { host_out[0] = 0; return host_out; }
    if (cvm_buffer_read(st, buf_out, 0, host_out, bc->out_count * 4, &d) != CVM_OK) return NULL;
    return host_out;
}

static void cvm_teardown(const bench_case *bc)
{
    (void)bc;
    if (--users > 0) return;
    for (int i = 0; i < 2; i++) { if (buf_in[i]) cvm_buffer_free(buf_in[i]); buf_in[i] = NULL; }
    if (buf_out) cvm_buffer_free(buf_out);
    if (buf_part) cvm_buffer_free(buf_part);
    buf_out = buf_part = NULL;
    free(host_out);
    host_out = NULL;
}

static double run_tier(int t, const bench_case *bc, char *why, size_t whylen)
{
    tier = t;
    double ms = cvm_run(bc, why, whylen);
    tier = CVM_TIER_DEFAULT;
    return ms;
}

static double cvm_run_interp(const bench_case *bc, char *why, size_t whylen)
{
    return run_tier(CVM_TIER_INTERP, bc, why, whylen);
}

static double cvm_run_native(const bench_case *bc, char *why, size_t whylen)
{
    return run_tier(CVM_TIER_NATIVE, bc, why, whylen);
}

/* cubevm-native: unavailable where native code cannot be made. */
static int cvm_setup_native(const bench_case *bc, char *why, size_t whylen)
{
    cvm_diag d = { 0 };
    if (cvm_tier_available(CVM_TIER_NATIVE, &d) != CVM_OK) {
        snprintf(why, whylen, "%s", d.message);
        return PREP_UNAVAILABLE;
    }
    snprintf(cubevm_native_contender.note, sizeof cubevm_native_contender.note,
             "cubevm-native: cvm_launch_config.tier = CVM_TIER_NATIVE, %s", d.message);
    return cvm_setup(bc, why, whylen);
}

contender cubevm_contender = { "cubevm", cvm_setup, cvm_run, cvm_output, cvm_teardown,
                               "cubevm: the default tier (CUBEVM_JIT; unset: auto)" };
contender cubevm_interp_contender = { "cubevm-interp", cvm_setup, cvm_run_interp, cvm_output, cvm_teardown,
                                      "cubevm-interp: the interpreter (cvm_launch_config.tier = CVM_TIER_INTERP)" };
contender cubevm_native_contender = { "cubevm-native", cvm_setup_native, cvm_run_native, cvm_output,
                                      cvm_teardown, "" };
