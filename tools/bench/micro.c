/*
 * micro.c - a quick per-kernel timer for interpreter work (not part of
 * `make bench`): runs the kernels of kernels/bench.cu on small shapes
 * through the public API and prints the median time per launch and per
 * element, so one change can be measured in seconds and profiled with
 * `perf record` or callgrind. Outputs are checked against plain loops for
 * the cases where that is one line; `make bench` checks them all.
 *
 *   micro [-t threads] [-r runs] [-u] [case...]   (-u: unchecked mode)
 *
 * MICRO_N sets the element count of vadd, saxpy and sum (default 2^20),
 * MICRO_CUBE the cube size of vadd and saxpy (default 256), MICRO_COLS the
 * row length of softmax (default 1024; the rows make 2^18 elements), MICRO_T
 * the side of transpose's square (default 1024, a multiple of 32), MICRO_SRC
 * another CUDA file to compile instead of kernels/bench.cu (variants of
 * its kernels under the same names and parameters), MICRO_PW the
 * plane width of every launch (default: the kernel's requirement, else 32),
 * MICRO_MM the side of matmul's square (default 256, a multiple of 16),
 * MICRO_NOCHECK=1 skips the output check (for MICRO_SRC variants that
 * leave out part of a kernel's work, to time the rest).
 */
#include "../../vm/cubevm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static cvm_device *dev;
static cvm_stream *st;
static cvm_module *mod;
static int unchecked;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void die(const char *what, const cvm_diag *d)
{
    fprintf(stderr, "micro: %s: %s\n", what, d->message);
    exit(1);
}

static cvm_buffer *buf(size_t n, const float *init)
{
    cvm_diag d = {0};
    cvm_buffer *b;
    if (cvm_buffer_create(dev, n * 4, "b", &b, &d) != CVM_OK)
        die("buffer", &d);
    if (init && cvm_buffer_write(st, b, 0, init, n * 4, &d) != CVM_OK)
        die("write", &d);
    return b;
}

static cvm_arg ab(cvm_buffer *b) { cvm_arg a = {CVM_ARG_BUFFER, b, 0, NULL, 0}; return a; }
static cvm_arg av(const void *p) { cvm_arg a = {CVM_ARG_BYTES, NULL, 0, p, 4}; return a; }

static void launch(const char *name, uint32_t gx, uint32_t gy, uint32_t bx, uint32_t by,
                   const cvm_arg *args, uint32_t n)
{
    cvm_diag d = {0};
    const cvm_kernel *k;
    cvm_launch_config lc = {0};
    lc.grid[0] = gx, lc.grid[1] = gy, lc.block[0] = bx, lc.block[1] = by;
    lc.unchecked = unchecked;
    if (getenv("MICRO_PW")) lc.plane_width = (uint32_t)atoi(getenv("MICRO_PW"));
    if (cvm_kernel_get(mod, name, &k, &d) != CVM_OK || cvm_launch(st, k, &lc, args, n, &d) != CVM_OK)
        die(name, &d);
}

static void sync_or_die(void)
{
    cvm_diag d = {0};
    if (cvm_stream_sync(st, &d) != CVM_OK)
        die("sync", &d);
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static float *rnd(size_t n, unsigned seed)
{
    float *p = malloc(n * 4);
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (float)((seed >> 8) & 0xffff) / 65536.0f * 2.0f - 1.0f;
    }
    return p;
}

static void check(const char *name, cvm_buffer *b, const float *want, size_t n, float tol)
{
    cvm_diag d = {0};
    float *got = malloc(n * 4);
    if (cvm_buffer_read(st, b, 0, got, n * 4, &d) != CVM_OK)
        die("read", &d);
    for (size_t i = 0; i < n; i++)
        if (!(fabsf(got[i] - want[i]) <= tol * (1 + fabsf(want[i])))) {
            fprintf(stderr, "micro: %s: element %zu is %g, expected %g\n", name, i, got[i], want[i]);
            exit(1);
        }
    free(got);
}

int main(int argc, char **argv)
{
    int threads = 1, runs = 5, ai = 1;
    for (; ai < argc && argv[ai][0] == '-'; ai++) {
        if (!strcmp(argv[ai], "-t") && ai + 1 < argc) threads = atoi(argv[++ai]);
        else if (!strcmp(argv[ai], "-r") && ai + 1 < argc) runs = atoi(argv[++ai]);
        else if (!strcmp(argv[ai], "-u")) unchecked = 1;
    }
    cvm_diag d = {0};
    const char *path = getenv("MICRO_SRC") ? getenv("MICRO_SRC") : "tools/bench/kernels/bench.cu";
    FILE *f = fopen(path, "rb");
    static char src[65536];
    if (!f) { fprintf(stderr, "micro: cannot open %s (run from the repository root)\n", path); return 1; }
    size_t len = fread(src, 1, sizeof src - 1, f);
    fclose(f);
    void *bytes;
    size_t size;
    cvm_config cfg = {0};
    cfg.threads = (uint32_t)threads;
    if (cvm_compile_cuda(src, len, path, NULL, &bytes, &size, &d) != CVM_OK) die("compile", &d);
    if (cvm_device_open("cpu", &cfg, &dev, &d) != CVM_OK) die("open", &d);
    if (cvm_module_load(dev, bytes, size, &mod, &d) != CVM_OK) die("load", &d);
    cvm_free_bytes(bytes);
    st = cvm_device_stream(dev);

    const char *all[] = {"vadd", "saxpy", "sum", "softmax", "transpose", "pool2", "pool5", "conv", "matmul", "launch"};
    const char **cases = ai < argc ? (const char **)argv + ai : all;
    int ncases = ai < argc ? argc - ai : (int)(sizeof all / sizeof *all);
    for (int ci = 0; ci < ncases; ci++) {
        const char *c = cases[ci];
        int N = getenv("MICRO_N") ? atoi(getenv("MICRO_N")) : 1 << 20, iv[12];
        if (N < 1) {
            fprintf(stderr, "micro: MICRO_N must be a positive element count\n");
            return 2;
        }
        float alpha = 1.5f;
        cvm_buffer *a = NULL, *b = NULL, *o = NULL, *p = NULL;
        float *ha = NULL, *hb = NULL, *want = NULL;
        size_t nout = 0;
        double elems = 0, ms[1024];
        if (runs > 1024) runs = 1024;
        cvm_arg args[12];
        for (int r = -1; r < runs; r++) {
            double t0 = now_ms();
            if (!strcmp(c, "vadd") || !strcmp(c, "saxpy")) {
                if (!a) {
                    ha = rnd(N, 1), hb = rnd(N, 2), want = malloc(N * 4), nout = N, elems = N;
                    for (int i = 0; i < N; i++) want[i] = c[0] == 'v' ? ha[i] + hb[i] : alpha * ha[i] + hb[i];
                    a = buf(N, ha), b = buf(N, hb), o = buf(N, NULL), iv[0] = N;
                    sync_or_die();
                    t0 = now_ms();
                }
                int cube = getenv("MICRO_CUBE") ? atoi(getenv("MICRO_CUBE")) : 256;
                if (cube < 1 || cube > 1024) {
                    fprintf(stderr, "micro: MICRO_CUBE must be 1 to 1024\n");
                    return 2;
                }
                if (c[0] == 'v') {
                    args[0] = ab(a), args[1] = ab(b), args[2] = ab(o), args[3] = av(&iv[0]);
                    launch("vadd", (N + cube - 1) / cube, 1, cube, 1, args, 4);
                } else {
                    args[0] = av(&alpha), args[1] = ab(a), args[2] = ab(b), args[3] = ab(o), args[4] = av(&iv[0]);
                    launch("saxpy", (N + cube - 1) / cube, 1, cube, 1, args, 5);
                }
            } else if (!strcmp(c, "sum")) {
                if (!a) { ha = rnd(N, 1), a = buf(N, ha), p = buf(1024, NULL), o = buf(1, NULL), iv[0] = N, iv[1] = 1024, elems = N; sync_or_die(); t0 = now_ms(); }
                args[0] = ab(a), args[1] = ab(p), args[2] = av(&iv[0]);
                launch("sum_partial", 1024, 1, 256, 1, args, 3);
                args[0] = ab(p), args[1] = ab(o), args[2] = av(&iv[1]);
                launch("sum_final", 1, 1, 256, 1, args, 3);
            } else if (!strcmp(c, "softmax")) {
                int cols = getenv("MICRO_COLS") ? atoi(getenv("MICRO_COLS")) : 1024, rows = (256 * 1024) / cols;
                if (!a) { ha = rnd((size_t)rows * cols, 1), a = buf((size_t)rows * cols, ha), o = buf((size_t)rows * cols, NULL), iv[0] = cols, elems = (double)rows * cols; sync_or_die(); t0 = now_ms(); }
                args[0] = ab(a), args[1] = ab(o), args[2] = av(&iv[0]);
                launch("softmax_rows", rows, 1, 256, 1, args, 3);
            } else if (!strcmp(c, "transpose")) {
                int n = getenv("MICRO_T") ? atoi(getenv("MICRO_T")) : 1024;
                if (!a) {
                    ha = rnd((size_t)n * n, 1), want = malloc((size_t)n * n * 4), nout = (size_t)n * n, elems = nout;
                    for (int y = 0; y < n; y++) for (int x = 0; x < n; x++) want[(size_t)x * n + y] = ha[(size_t)y * n + x];
                    a = buf((size_t)n * n, ha), o = buf((size_t)n * n, NULL), iv[0] = n, iv[1] = n; sync_or_die(); t0 = now_ms();
                }
                args[0] = ab(a), args[1] = ab(o), args[2] = av(&iv[0]), args[3] = av(&iv[1]);
                launch("transpose", n / 32, n / 32, 32, 8, args, 4);
            } else if (!strcmp(c, "pool2") || !strcmp(c, "pool5")) {
                int k5 = c[4] == '5', n = 1, h = 128, w = 128, ch = 32;
                int k = k5 ? 5 : 2, s = k5 ? 1 : 2, pd = k5 ? 2 : 0, oh = (h + 2 * pd - k) / s + 1, ow = (w + 2 * pd - k) / s + 1;
                int v[9] = {n, h, w, ch, oh, ow, k, s, pd};
                if (!a) { memcpy(iv, v, sizeof v); ha = rnd((size_t)n * h * w * ch, 1); a = buf((size_t)n * h * w * ch, ha); nout = (size_t)n * oh * ow * ch; o = buf(nout, NULL); elems = nout; sync_or_die(); t0 = now_ms(); }
                args[0] = ab(a), args[1] = ab(o);
                for (int i = 0; i < 9; i++) args[2 + i] = av(&iv[i]);
                launch("max_pool2d_nhwc", (uint32_t)((nout + 255) / 256), 1, 256, 1, args, 11);
            } else if (!strcmp(c, "conv")) {
                int v[7] = {1, 16, 16, 64, 64, 3, 1};
                size_t nin = 16 * 64 * 64, nw = 16 * 16 * 9;
                if (!a) { memcpy(iv, v, sizeof v); ha = rnd(nin, 1), hb = rnd(nw, 2); a = buf(nin, ha), b = buf(nw, hb); nout = nin; o = buf(nout, NULL); elems = nout; sync_or_die(); t0 = now_ms(); }
                args[0] = ab(a), args[1] = ab(b), args[2] = ab(o);
                for (int i = 0; i < 7; i++) args[3 + i] = av(&iv[i]);
                launch("conv2d_nchw", (uint32_t)((nout + 255) / 256), 1, 256, 1, args, 10);
            } else if (!strcmp(c, "matmul")) {
                int n = getenv("MICRO_MM") ? atoi(getenv("MICRO_MM")) : 256;
                if (!a) { ha = rnd((size_t)n * n, 1), hb = rnd((size_t)n * n, 2); a = buf((size_t)n * n, ha), b = buf((size_t)n * n, hb), o = buf((size_t)n * n, NULL); iv[0] = n; elems = (double)n * n; sync_or_die(); t0 = now_ms(); }
                args[0] = ab(a), args[1] = ab(b), args[2] = ab(o), args[3] = av(&iv[0]);
                launch("matmul", n / 16, n / 16, 16, 16, args, 4);
            } else if (!strcmp(c, "launch")) {
                elems = 1;
                for (int i = 0; i < 99; i++) { launch("empty", 1, 1, 32, 1, NULL, 0); sync_or_die(); }
                launch("empty", 1, 1, 32, 1, NULL, 0);
            } else {
                fprintf(stderr, "micro: unknown case %s\n", c);
                return 1;
            }
            sync_or_die();
            if (r >= 0) ms[r] = (now_ms() - t0) / (!strcmp(c, "launch") ? 100 : 1);
        }
        if (want && !getenv("MICRO_NOCHECK")) check(c, o, want, nout, 1e-6f);
        qsort(ms, (size_t)runs, sizeof *ms, cmpd);
        printf("%-10s median %9.3f ms  min %9.3f  %8.2f ns/elem\n", c, ms[runs / 2], ms[0],
               ms[runs / 2] * 1e6 / elems);
        fflush(stdout);
        cvm_buffer *bs[4] = {a, b, o, p};
        for (int i = 0; i < 4; i++) if (bs[i]) cvm_buffer_free(bs[i]);
        free(ha), free(hb), free(want);
    }
    cvm_module_free(mod);
    cvm_device_close(dev);
    return 0;
}
