/*
 * lavapipe.c - the `lavapipe` contender of `make bench` (informative):
 * the same kernels (kernels/bench.cu, CUDA frontend) and launch shapes as
 * the cubevm contender, run on the vulkan device with Mesa's lavapipe
 * (VK_DRIVER_FILES is pointed at it unless already set), i.e. another CPU
 * implementation of the same bytecode: SPIR-V compiled by LLVM inside
 * Mesa. LP_NUM_THREADS is set to --threads so both use the same cores.
 * Kernels the vulkan device refuses (plane width, missing ops) are "n/a"
 * with the device's reason. Timed like cubevm: enqueue + sync.
 */
#include "bench.h"
#include "../../vm/cubevm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LVP_ICD "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"
#define SUM_CUBES 1024

static cvm_device *dev;
static cvm_module *mod;
static cvm_stream *st;
static cvm_buffer *in[2], *out, *part;
static float *host;
static int tried;

static void why_of(char *why, size_t len, const char *what, const cvm_diag *d)
{
    snprintf(why, len, "%.60s: %.200s", what, d->message[0] ? d->message : cvm_status_str(d->status));
}

/* Opens lavapipe and loads bench.cu once; PREP_UNAVAILABLE with the reason if it cannot. */
static int open_once(char *why, size_t whylen)
{
    static char reason[300];
    if (tried) {
        snprintf(why, whylen, "%s", reason);
        return dev && mod ? PREP_OK : PREP_UNAVAILABLE;
    }
    tried = 1;
    char path[1024], threads[16], *src = malloc(65536);
    cvm_diag d = {0};
    snprintf(threads, sizeof threads, "%d", g_threads);
    setenv("LP_NUM_THREADS", threads, 1);
    if (access(LVP_ICD, R_OK) == 0)
        setenv("VK_DRIVER_FILES", LVP_ICD, 0);
    snprintf(path, sizeof path, "%s/tools/bench/kernels/bench.cu", g_root);
    FILE *f = fopen(path, "rb");
    size_t len = f && src ? fread(src, 1, 65535, f) : 0;
    if (f)
        fclose(f);
    void *bytes = NULL;
    size_t size = 0;
    cvm_device_limits lim;
    if (!len)
        snprintf(reason, sizeof reason, "cannot read %.250s", path);
    else if (cvm_compile_cuda(src, len, path, NULL, &bytes, &size, &d) != CVM_OK)
        why_of(reason, sizeof reason, "compiling bench.cu", &d);
    else if (cvm_device_open("vulkan", NULL, &dev, &d) != CVM_OK)
        why_of(reason, sizeof reason, "vulkan", &d);
    else if (cvm_device_limits_get(dev, &lim, &d) != CVM_OK || strcmp(lim.profile, "lavapipe"))
        snprintf(reason, sizeof reason, "the vulkan device is %s, not lavapipe", lim.profile);
    else if (cvm_module_load(dev, bytes, size, &mod, &d) != CVM_OK)
        why_of(reason, sizeof reason, "loading bench.cu on vulkan", &d);
    cvm_free_bytes(bytes);
    free(src);
    if (dev)
        st = cvm_device_stream(dev);
    snprintf(why, whylen, "%s", reason);
    return dev && mod ? PREP_OK : PREP_UNAVAILABLE;
}

static cvm_arg abuf(cvm_buffer *b) { cvm_arg a = {CVM_ARG_BUFFER, b, 0, NULL, 0}; return a; }
static cvm_arg aval(const void *p, size_t n) { cvm_arg a = {CVM_ARG_BYTES, NULL, 0, p, n}; return a; }

static int launch(const char *kname, uint32_t gx, uint32_t gy, uint32_t bx, uint32_t by,
                  const cvm_arg *args, uint32_t nargs, cvm_diag *d)
{
    const cvm_kernel *k;
    cvm_launch_config lc = {0};
    lc.grid[0] = gx;
    lc.grid[1] = gy;
    lc.block[0] = bx;
    lc.block[1] = by;
    if (cvm_kernel_get(mod, kname, &k, d) != CVM_OK)
        return -1;
    return cvm_launch(st, k, &lc, args, nargs, d) == CVM_OK ? 0 : -1;
}

/* The cubevm contender's launches (tools/bench/cvm.c), case by case. */
static int enqueue(const bench_case *bc, cvm_diag *d)
{
    static int iv[12];
    uint32_t blocks = (uint32_t)((bc->out_count + 255) / 256), lblocks = (uint32_t)((bc->len + 255) / 256);
    switch (bc->kind) {
    case K_POOL: {
        int v[9] = {bc->n, bc->h, bc->w, bc->c, bc->oh, bc->ow, bc->k, bc->s, bc->p};
        memcpy(iv, v, sizeof v);
        cvm_arg a[11] = {abuf(in[0]), abuf(out)};
        for (int i = 0; i < 9; i++)
            a[2 + i] = aval(&iv[i], 4);
        return launch("max_pool2d_nhwc", blocks, 1, 256, 1, a, 11, d);
    }
    case K_VADD: {
        iv[0] = (int)bc->len;
        cvm_arg a[4] = {abuf(in[0]), abuf(in[1]), abuf(out), aval(&iv[0], 4)};
        return launch("vadd", lblocks, 1, 256, 1, a, 4, d);
    }
    case K_SAXPY: {
        iv[0] = (int)bc->len;
        cvm_arg a[5] = {aval(&bc->alpha, 4), abuf(in[0]), abuf(in[1]), abuf(out), aval(&iv[0], 4)};
        return launch("saxpy", lblocks, 1, 256, 1, a, 5, d);
    }
    case K_SUM: {
        iv[0] = (int)bc->len;
        iv[1] = SUM_CUBES;
        cvm_arg a[3] = {abuf(in[0]), abuf(part), aval(&iv[0], 4)};
        cvm_arg b[3] = {abuf(part), abuf(out), aval(&iv[1], 4)};
        if (launch("sum_partial", SUM_CUBES, 1, 256, 1, a, 3, d))
            return -1;
        return launch("sum_final", 1, 1, 256, 1, b, 3, d);
    }
    case K_SOFTMAX: {
        iv[0] = bc->cols;
        cvm_arg a[3] = {abuf(in[0]), abuf(out), aval(&iv[0], 4)};
        return launch("softmax_rows", (uint32_t)bc->rows, 1, 256, 1, a, 3, d);
    }
    case K_TRANSPOSE: {
        iv[0] = bc->rows;
        iv[1] = bc->cols;
        cvm_arg a[4] = {abuf(in[0]), abuf(out), aval(&iv[0], 4), aval(&iv[1], 4)};
        return launch("transpose", (uint32_t)(bc->cols + 31) / 32, (uint32_t)(bc->rows + 31) / 32,
                      32, 8, a, 4, d);
    }
    case K_CONV: {
        int v[7] = {bc->n, bc->ci, bc->co, bc->h, bc->w, bc->k, bc->p};
        memcpy(iv, v, sizeof v);
        cvm_arg a[10] = {abuf(in[0]), abuf(in[1]), abuf(out)};
        for (int i = 0; i < 7; i++)
            a[3 + i] = aval(&iv[i], 4);
        return launch("conv2d_nchw", blocks, 1, 256, 1, a, 10, d);
    }
    case K_MATMUL: {
        iv[0] = bc->rows;
        cvm_arg a[4] = {abuf(in[0]), abuf(in[1]), abuf(out), aval(&iv[0], 4)};
        return launch("matmul", (uint32_t)bc->rows / 16, (uint32_t)bc->rows / 16, 16, 16, a, 4, d);
    }
    case K_LAUNCH:
        return launch("empty", 1, 1, 32, 1, NULL, 0, d);
    }
    return -1;
}

static void lvp_teardown(const bench_case *bc)
{
    (void)bc;
    for (int i = 0; i < 2; i++) {
        if (in[i])
            cvm_buffer_free(in[i]);
        in[i] = NULL;
    }
    if (out)
        cvm_buffer_free(out);
    if (part)
        cvm_buffer_free(part);
    out = part = NULL;
    free(host);
    host = NULL;
}

/* Buffers for the case, and one run so a kernel the device refuses is n/a from the start. */
static int lvp_setup(const bench_case *bc, char *why, size_t whylen)
{
    cvm_diag d = {0};
    int r = open_once(why, whylen);
    if (r != PREP_OK)
        return r;
    size_t n_out = bc->out_count ? bc->out_count : 1;
    for (int i = 0; i < bc->n_in; i++)
        if (cvm_buffer_create(dev, bc->in_count[i] * 4, "in", &in[i], &d) != CVM_OK ||
            cvm_buffer_write(st, in[i], 0, bc->in[i], bc->in_count[i] * 4, &d) != CVM_OK)
            goto fail;
    if (cvm_buffer_create(dev, n_out * 4, "out", &out, &d) != CVM_OK ||
        cvm_buffer_create(dev, SUM_CUBES * 4, "partial", &part, &d) != CVM_OK)
        goto fail;
    host = xalloc(n_out * 4);
    if (enqueue(bc, &d) == 0 && cvm_stream_sync(st, &d) == CVM_OK)
        return PREP_OK;
    if (d.status == CVM_UNSUPPORTED || d.status == CVM_LIMIT) {
        why_of(why, whylen, "refused by the vulkan device", &d);
        lvp_teardown(bc);
        return PREP_NA;
    }
fail:
    why_of(why, whylen, "setup", &d);
    lvp_teardown(bc);
    return PREP_UNAVAILABLE;
}

static double lvp_run(const bench_case *bc, char *why, size_t whylen)
{
    cvm_diag d = {0};
    double t0 = now_ms();
    if (enqueue(bc, &d) || cvm_stream_sync(st, &d) != CVM_OK) {
        why_of(why, whylen, "launch", &d);
        return -1;
    }
    return now_ms() - t0;
}

static const float *lvp_output(const bench_case *bc)
{
    cvm_diag d = {0};
    if (bc->kind == K_LAUNCH) {
        host[0] = 0;
        return host;
    }
    if (cvm_buffer_read(st, out, 0, host, bc->out_count * 4, &d) != CVM_OK)
        return NULL;
    return host;
}

void lavapipe_global_fini(void)
{
    if (mod)
        cvm_module_free(mod);
    if (dev)
        cvm_device_close(dev);
    mod = NULL;
    dev = NULL;
}

contender lavapipe_contender = {"lavapipe", lvp_setup, lvp_run, lvp_output, lvp_teardown,
                                "lavapipe: bench.cu through cubevm's SPIR-V backend on Mesa's "
                                "lavapipe (vulkan device), LP_NUM_THREADS = --threads"};
