/*
 * test_initcheck.c - the uninitialized-read checker
 * (cvm_launch_config.initcheck; vm/init.c): kernels that read shared or
 * local memory before anything wrote it, with the unit, line and offset
 * of the first such read worked out by hand from the kernel's text and
 * inputs, and the same kernels initialized, which must run clean with
 * results a C reference computes. Also: a later cube that skips what
 * cube 0 initialized, dynamic shared memory, a vector load half written,
 * both checkers at once, and the refusals.
 */
#include "kern.h"

#include <stdio.h>

static const char src[] =
    "__global__ void hist(int *out, const int *in, int init)\n"     /* 1 */
    "{\n"                                                            /* 2 */
    "    __shared__ int bins[8];\n"                                  /* 3 */
    "    int t = threadIdx.x;\n"                                     /* 4 */
    "    if ((init == 1 || (init == 2 && blockIdx.x == 0)) && t < 8) bins[t] = 0;\n" /* 5 */
    "    __syncthreads();\n"                                         /* 6 */
    "    atomicAdd(&bins[in[t] & 7], 1);\n"                          /* 7 */
    "    __syncthreads();\n"                                         /* 8 */
    "    if (t < 8) out[blockIdx.x * 8 + t] = bins[t];\n"            /* 9 */
    "}\n"                                                            /* 10 */
    "__global__ void acc(float *out, const float *in, int n, int first)\n" /* 11 */
    "{\n"                                                            /* 12 */
    "    float a[4];\n"                                              /* 13 */
    "    for (int i = first; i < 4; i++) a[i] = 0.0f;\n"             /* 14 */
    "    for (int j = 0; j < n; j++)\n"                              /* 15 */
    "        a[(j + threadIdx.x) % 4] += in[j];\n"                   /* 16 */
    "    out[threadIdx.x] = a[0] + a[1] + a[2] + a[3];\n"            /* 17 */
    "}\n"                                                            /* 18 */
    "__global__ void dyn(int *out, int init)\n"                      /* 19 */
    "{\n"                                                            /* 20 */
    "    extern __shared__ int buf[];\n"                             /* 21 */
    "    int t = threadIdx.x;\n"                                     /* 22 */
    "    if (init || t % 2 == 0) buf[t] = t * 5;\n"                  /* 23 */
    "    __syncthreads();\n"                                         /* 24 */
    "    out[t] = buf[31 - t];\n"                                    /* 25 */
    "}\n"                                                            /* 26 */
    "__global__ void half(float *out)\n"                             /* 27 */
    "{\n"                                                            /* 28 */
    "    __shared__ float2 v;\n"                                     /* 29 */
    "    if (threadIdx.x == 0) v.x = 1.5f;\n"                        /* 30 */
    "    __syncthreads();\n"                                         /* 31 */
    "    float2 w = v;\n"                                            /* 32 */
    "    out[threadIdx.x] = w.x + w.y;\n"                            /* 33 */
    "}\n";                                                           /* 34 */

static cvm_module *mod;

static cvm_status launch(const char *name, uint32_t grid, uint32_t block, uint32_t shared,
                         const cvm_arg *args, uint32_t nargs, int initcheck, int racecheck,
                         cvm_diag *d)
{
    const cvm_kernel *k = NULL;
    memset(d, 0, sizeof *d);
    cvm_status st = cvm_kernel_get(mod, name, &k, d);
    if (st)
        return st;
    cvm_launch_config cfg = kern_cfg(grid, block);
    cfg.shared_bytes = shared;
    cfg.initcheck = initcheck;
    cfg.racecheck = racecheck;
    st = cvm_launch(kern_stream(), k, &cfg, args, nargs, d);
    return st ? st : cvm_stream_sync(kern_stream(), d);
}

/* The fault is an uninitialized read at unit (ux,0,0) of cube (cx,0,0) on
 * `line`, whose message holds `text`. */
static void expect_uninit(const char *what, cvm_status st, const cvm_diag *d, uint32_t cx,
                          uint32_t ux, uint32_t line, const char *text)
{
    ok(st == CVM_FAULT && d->has_fault && strstr(d->message, "uninitialized read: ") &&
       strstr(d->message, text) && d->fault.cube[0] == cx && d->fault.unit[0] == ux &&
       d->fault.line == line, "%s: %s", what, d->message);
}

static void test_hist(void)
{
    enum { CUBES = 3, UNITS = 64 };
    int in[UNITS], want[CUBES * 8] = {0}, got[CUBES * 8];
    for (int t = 0; t < UNITS; t++)
        in[t] = (t * 29 + 5) % 31;
    for (int c = 0; c < CUBES; c++)
        for (int t = 0; t < UNITS; t++)
            want[c * 8 + (in[t] & 7)]++;
    cvm_buffer *bo = kern_buf("out", sizeof got, NULL), *bi = kern_buf("in", sizeof in, in);
    int init = 0;
    cvm_arg a[] = {kern_arg_buf(bo), kern_arg_buf(bi), kern_arg_bytes(&init, 4)};
    cvm_diag d;
    /* unit 0's atomicAdd reads bins[in[0] & 7] = bins[5]: offset 20 */
    char text[64];
    snprintf(text, sizeof text, "this atomic of 4 bytes at shared offset %d reads bytes no unit",
             (in[0] & 7) * 4);
    expect_uninit("atomicAdd on shared bins nobody zeroed", launch("hist", CUBES, UNITS, 0, a, 3, 1, 0, &d),
                  &d, 0, 0, 7, text);
    cvm_status st = launch("hist", CUBES, UNITS, 0, a, 3, 0, 0, &d);
    ok(st == CVM_OK, "the same launch without the check runs (zero-filled here) (%s)", cvm_status_str(st));
    init = 1;
    st = launch("hist", CUBES, UNITS, 0, a, 3, 1, 0, &d);
    int good = kern_read(bo, got, sizeof got) && !memcmp(got, want, sizeof want);
    ok(st == CVM_OK && good, "bins zeroed first: clean, the counts (%s %s)", cvm_status_str(st), d.message);
    st = launch("hist", CUBES, UNITS, 0, a, 3, 1, 1, &d);
    good = kern_read(bo, got, sizeof got) && !memcmp(got, want, sizeof want);
    ok(st == CVM_OK && good, "with the race checker too: clean, the counts (%s %s)", cvm_status_str(st),
       d.message);
    init = 2;
    expect_uninit("only cube 0 zeroes its bins: cube 1 reads what no unit of it wrote (shared memory is "
                  "the cube's own)", launch("hist", CUBES, UNITS, 0, a, 3, 1, 0, &d), &d, 1, 0, 7, text);
    cvm_buffer_free(bo);
    cvm_buffer_free(bi);
}

static void test_local(void)
{
    enum { UNITS = 4, N = 10 };
    float in[N], got[UNITS], want = 0.0f;
    for (int j = 0; j < N; j++)
        in[j] = 0.5f * (float)j - 1.0f;
    cvm_buffer *bo = kern_buf("out", sizeof got, NULL), *bi = kern_buf("in", sizeof in, in);
    int n = N, first = 1;
    cvm_arg a[] = {kern_arg_buf(bo), kern_arg_buf(bi), kern_arg_bytes(&n, 4), kern_arg_bytes(&first, 4)};
    cvm_diag d;
    /* a[0] is never written; unit 0 first reads it at j = 0 ((0 + 0) % 4):
     * offset 0; (units 1..3 read a[1..3] first, which are written) */
    expect_uninit("a local array with its first element never written",
                  launch("acc", 1, UNITS, 0, a, 4, 1, 0, &d), &d, 0, 0, 16,
                  "this load of 4 bytes at local offset 0 reads bytes this unit has not written");
    first = 0;
    cvm_status st = launch("acc", 1, UNITS, 0, a, 4, 1, 0, &d);
    /* every unit adds every in[j], into whichever element: the same total
     * up to rounding order, which these small binary fractions do not have */
    for (int j = 0; j < N; j++)
        want += in[j];
    int good = kern_read(bo, got, sizeof got);
    for (int t = 0; t < UNITS; t++)
        good &= got[t] == want;
    ok(st == CVM_OK && good, "the array zeroed first: clean, each unit's sum (%s %s)", cvm_status_str(st),
       d.message);
    cvm_buffer_free(bo);
    cvm_buffer_free(bi);
}

static void test_dyn_and_vector(void)
{
    int got[32], init = 0;
    cvm_buffer *b = kern_buf("out", sizeof got, NULL);
    cvm_arg a[] = {kern_arg_buf(b), kern_arg_bytes(&init, 4)};
    cvm_diag d;
    /* only even units write; unit 0 reads buf[31], written by nobody */
    expect_uninit("dynamic shared memory only half written", launch("dyn", 1, 32, 128, a, 2, 1, 0, &d),
                  &d, 0, 0, 25, "at shared offset 124 reads bytes no unit of this cube has written");
    init = 1;
    cvm_status st = launch("dyn", 1, 32, 128, a, 2, 1, 0, &d);
    int good = kern_read(b, got, sizeof got);
    for (int t = 0; t < 32; t++)
        good &= got[t] == (31 - t) * 5;
    ok(st == CVM_OK && good, "dynamic shared memory all written first: clean, the values (%s %s)",
       cvm_status_str(st), d.message);
    cvm_arg h[] = {kern_arg_buf(b)};
    st = launch("half", 1, 32, 0, h, 1, 1, 0, &d);
    /* the compiler may load v as one 8-byte line (bytes 4..7 unwritten) or
     * v.y alone (offset 4): either names the unwritten half */
    ok(st == CVM_FAULT && d.fault.unit[0] == 0 && d.fault.line == 32 &&
       (strstr(d.message, "of 8 bytes at shared offset 0 reads bytes no unit of this cube has written "
                          "(from byte 4)") ||
        strstr(d.message, "of 4 bytes at shared offset 4 reads bytes no unit")),
       "a float2 with only .x written: the read of .y is found: %s", d.message);
    cvm_buffer_free(b);
}

static void test_refusals(void)
{
    cvm_buffer *b = kern_buf("out", 32 * 4, NULL);
    int init = 1;
    cvm_arg a[] = {kern_arg_buf(b), kern_arg_bytes(&init, 4)};
    const cvm_kernel *k = NULL;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_kernel_get(mod, "dyn", &k, &d);
    cvm_launch_config cfg = kern_cfg(1, 32);
    cfg.shared_bytes = 128;
    cfg.initcheck = 1;
    cfg.unchecked = 1;
    cvm_status st = cvm_launch(kern_stream(), k, &cfg, a, 2, &d);
    ok(st == CVM_INVALID_ARGUMENT && strstr(d.message, "the uninitialized-read check needs checked mode"),
       "initcheck with unchecked is refused: %s", d.message);
    cvm_buffer_free(b);
}

int main(void)
{
    if (!kern_open()) {
        printf("Bail out! no cpu device\n");
        return 1;
    }
    cvm_diag d;
    memset(&d, 0, sizeof d);
    if (!(mod = kern_load_cuda(src, "init.cu", &d))) {
        ok(0, "compile and load: %s", d.message);
        return done_testing();
    }
    test_hist();
    test_local();
    test_dyn_and_vector();
    test_refusals();
    cvm_module_free(mod);
    kern_close();
    return done_testing();
}
