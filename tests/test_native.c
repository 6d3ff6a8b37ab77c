/*
 * test_native.c - the native tier (vm/jit.h, jit/native.c): kernels run
 * under CUBEVM_JIT=off (the interpreter) and CUBEVM_JIT=on (native code),
 * with fresh buffers each time: the same status, fault message and output
 * bytes, and outputs a C reference computes here. What the tier does on
 * its own is what these kernels aim at: divergent control flow (loops
 * with break and continue, early returns), barriers and resuming after
 * them (in loops, with __syncthreads_count), partial planes and plane
 * widths 8 to 64, gathers and scatters (lane order when lanes collide),
 * integer division in doubles and its limits, faults (out of bounds,
 * division by zero) reported as the interpreter reports them, kernels the
 * tier refuses (switch), and the policy (off, auto's threshold). The
 * per-op semantics are the corpus's: tests/test_native_corpus.sh runs
 * test_ops, the conformance suite and the CUDA corpus natively.
 */
#include "kern.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>

/* The test module's source, in three literals (C99 promises 4095 bytes
 * of one); src() joins them. */
static const char src_a[] =
    "__global__ void ctl(int *o, int n)\n"
    "{\n"
    "    int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (t >= n) return;\n"
    "    if (t % 5 == 4) { o[t] = -1; return; }\n"
    "    int acc = 0;\n"
    "    for (int i = 0; i < t % 37; i++) {\n"
    "        if (i % 3 == 0) continue;\n"
    "        if (i * t > 500) break;\n"
    "        for (int j = 0; j < 3; j++) { if (j == i % 2) continue; acc += (i ^ t) + j; }\n"
    "    }\n"
    "    while (acc > 100) { acc -= 7; if (acc % 11 == 0) break; }\n"
    "    o[t] = acc;\n"
    "}\n"
    "__global__ void red(int *o, const int *in, int n)\n"
    "{\n"
    "    __shared__ int s[256];\n"
    "    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;\n"
    "    s[t] = i < n ? in[i] : 0;\n"
    "    __syncthreads();\n"
    "    for (int d = blockDim.x / 2; d > 0; d >>= 1) {\n"
    "        if (t < d) s[t] += s[t + d];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    int c = __syncthreads_count(i < n && (in[i] & 1));\n"
    "    if (t == 0) { o[2 * blockIdx.x] = s[0]; o[2 * blockIdx.x + 1] = c; }\n"
    "}\n"
    "__global__ void bar2(int *o, int n)\n"
    "{\n"
    "    __shared__ int s[128];\n"
    "    int t = threadIdx.x;\n"
    "    if (t >= n) return;\n"
    "    s[t] = t * 3;\n"
    "    __syncthreads();\n"
    "    o[t] = s[n - 1 - t];\n"
    "    __syncthreads();\n"
    "    s[t] = o[t] + 1;\n"
    "    __syncthreads();\n"
    "    o[t] += s[(t + 1) % n];\n"
    "}\n"
    "__global__ void bdiv(int *o, int n)\n"
    "{\n"
    "    int t = threadIdx.x;\n"
    "    if (t % 2) __syncthreads();\n"
    "    o[t] = t + n;\n"
    "}\n"
    "__global__ void scatter(int *o, int *g, const int *in)\n"
    "{\n"
    "    int t = threadIdx.x;\n"
    "    o[t / 4] = t;\n"
    "    g[t] = in[(t * 7) % 64];\n"
    "}\n"
    "__global__ void divs(long long *o, const long long *a, const long long *b, int n)\n"
    "{\n"
    "    int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (t >= n) return;\n"
    "    long long x = a[t], y = b[t];\n"
    "    unsigned ux = (unsigned)x, uy = (unsigned)y;\n"
    "    o[4 * t] = x / y; o[4 * t + 1] = x % y;\n"
    "    o[4 * t + 2] = uy ? ux / uy : 7; o[4 * t + 3] = uy ? ux % uy : 9;\n"
    "}\n"
    "__global__ void oob(float *o, int n) { o[threadIdx.x + n] = 1.0f; }\n"
    "__global__ void cst(int *o, int n)\n"
    "{\n"
    "    __shared__ int s[64];\n"
    "    int t = threadIdx.x, acc = t;\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        acc += (i & 3) * 4 + 7;\n"
    "        if ((i & 255) == 0) {\n"
    "            s[t] = acc;\n"
    "            __syncthreads();\n"
    "            acc ^= s[(t + 1) & 63];\n"
    "            __syncthreads();\n"
    "        }\n"
    "    }\n"
    "    o[t] = acc;\n"
    "}\n"
    "__global__ void shin(int *o)\n"
    "{\n"
    "    int t = threadIdx.x;\n"
    "    if (t < 16) { int w = t + 100; o[t] = __shfl_sync(0xffffffff, w, t + 16); }\n"
    "}\n"
    "__global__ void idx(float *o, const float *a, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n || i % 3 == 1) return;\n"
    "    int j = (i * 7) % n;\n"
    "    unsigned u = (unsigned)i - 5u;\n"
    "    o[i] = a[i] + 2.0f * a[j] + 4.0f * a[u % (unsigned)n];\n"
    "}\n"
    "__global__ void wrap(float *o, const float *a, int n) { o[threadIdx.x] = a[n + (int)threadIdx.x]; }\n"
    "__global__ void bump(float *o, const float *a, int n) { const float *p = a; p += n; o[threadIdx.x] = *p; }\n"
    "__global__ void edge(float *o, const float *a, int n, int k, int zero)\n"
    "{\n"
    "    int i = n + (int)threadIdx.x;\n"
    "    unsigned u = (unsigned)n + threadIdx.x;\n"
    "    long long l = (long long)n + threadIdx.x;\n"
    "    float s = 0.0f;\n"
    "    for (int r = 0; r < 3; r++) {\n"
    "        int z = r * zero; /* 0, which the frontend cannot fold: the address is made in the loop */\n"
    "        s += k == 0 ? a[i + z] : k == 1 ? a[u + (unsigned)z] : a[l + z];\n"
    "    }\n"
    "    o[threadIdx.x] = s;\n"
    "}\n"
    "__global__ void widx(float *o, const float *a, unsigned c)\n"
    "{\n"
    "    long long base = c == 0 ? 0LL : c == 1 ? 980LL : c == 2 ? -5LL : c == 3 ? (1LL << 62)\n"
    "                   : c == 4 ? 0x7ffffffffffffff5LL : c == 5 ? -50LL : c == 6 ? -32LL : c == 7 ? -31LL\n"
    "                   : c == 8 ? 969LL : -1LL;\n"
    "    const float *q = a + (c == 5 ? 100 : 1000);\n"
    "    long long i = base + (long long)threadIdx.x;\n"
    "    if (c < 5 || c > 7) o[threadIdx.x] = a[i]; else o[threadIdx.x] = q[i];\n"
    "}\n"
    "";
static const char src_b[] =
    "__global__ void lanes(char *oc, short *os, double *od, int *oi, const char *ic, const short *is,\n"
    "                      const double *id)\n"
    "{\n"
    "    __shared__ int sh[64];\n"
    "    int t = threadIdx.x, p = (t * 7) % 64, q = (t * 5) % 64;\n"
    "    sh[t] = t * 3;\n"
    "    __syncthreads();\n"
    "    char c = 'a'; short s = -5; double d = 0.25; int v = -1;\n"
    "    if (t % 3) { c = ic[p]; s = is[p]; d = id[p]; v = sh[q]; }\n"
    "    if (t % 4 != 1) { oc[p] = c; os[p] = s; od[p] = d; oi[q] = v; }\n"
    "    char c2 = 'b'; short s2 = 7;\n"
    "    if (t % 5) { c2 = ic[t]; s2 = is[t]; }\n"
    "    if (t % 6 != 2) { oc[64 + t] = c2; os[64 + t] = s2; }\n"
    "    __syncthreads();\n"
    "    if (t % 2) sh[(t * 9) % 64] = v;\n"
    "    __syncthreads();\n"
    "    oi[64 + t] = sh[t];\n"
    "}\n"
    "__global__ void mm(float *o, double *od, const float *a, const float *b)\n"
    "{\n"
    "    int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    o[2 * t] = fmaxf(a[t], b[t]); o[2 * t + 1] = fminf(a[t], b[t]);\n"
    "    double x = a[t], y = b[t];\n"
    "    od[2 * t] = fmax(x, y); od[2 * t + 1] = fmin(x, y);\n"
    "}\n"
    "__global__ void split(unsigned *o, const unsigned *tab, int base, int c, int w, int n)\n"
    "{\n"
    "    long i = (long)blockIdx.x * blockDim.x + threadIdx.x + base;\n"
    "    int ch = (int)(i % c);\n"
    "    long t = i / c;\n"
    "    int x = (int)(t % w), y = (int)(t / w);\n"
    "    unsigned acc = 0;\n"
    "    for (int k = 0; k < n; k++)\n"
    "        acc += (unsigned)((ch + k) * 3 + x * 7) - (unsigned)y * 5u + tab[(ch + x + k) & 63];\n"
    "    unsigned u = threadIdx.x + (unsigned)base;\n"
    "    long uz = (long)u, sz = (long)(int)u;\n"
    "    int gi = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    o[4 * gi] = acc;\n"
    "    o[4 * gi + 1] = (unsigned)(uz % c) + (unsigned)(uz / c % 1000) * 100u;\n"
    "    o[4 * gi + 2] = (unsigned)(sz % c) * 3u + (unsigned)(sz / c % 997);\n"
    "    o[4 * gi + 3] = (unsigned)x * 1000u + (unsigned)y;\n"
    "}\n"
    "__global__ void nonan(float *o, const float *x, int n)\n"
    "{\n"
    "    int t = threadIdx.x;\n"
    "    float m = -__int_as_float(0x7f800000), lo = 3.0f, q = x[t], c = lo;\n"
    "    for (int k = 0; k < n; k++) {\n"
    "        float v = x[(t + 64 * k) % 256];\n"
    "        m = fmaxf(m, v);\n"
    "        lo = fminf(v, lo);\n"
    "        c = fmaxf(c, -lo);\n"
    "        q = fmaxf(q, v);\n"
    "    }\n"
    "    o[4 * t] = m; o[4 * t + 1] = lo; o[4 * t + 2] = q; o[4 * t + 3] = c;\n"
    "}\n"
    "__global__ void one(float *o, const float *w, int k)\n"
    "{\n"
    "    int t = threadIdx.x;\n"
    "    float v = -1.0f;\n"
    "    if (t % 3) v = w[k];\n"
    "    o[t] = v + w[(long long)k + 1];\n"
    "}\n"
    "__global__ void tile(float *o, const float *in, int sel)\n"
    "{\n"
    "    __shared__ float s[16][16];\n"
    "    int tx = threadIdx.x, ty = threadIdx.y, u = ty * 16 + tx;\n"
    "    s[ty][tx] = in[u];\n"
    "    __syncthreads();\n"
    "    float a = s[ty][(sel + 3) & 15], b = s[(sel + 5) & 15][tx], c = s[(2 * ty) & 15][tx];\n"
    "    float d = s[tx][ty], e = 0.0f;\n"
    "    if (tx != 7) e = s[ty][tx ^ 1];\n"
    "    if (sel == 1) e = s[(2 * ty) & 31][tx];\n"
    "    o[5 * u] = a; o[5 * u + 1] = b; o[5 * u + 2] = c; o[5 * u + 3] = d; o[5 * u + 4] = e;\n"
    "}\n"
    "__global__ void rows(float *o, const float *g, int sel)\n"
    "{\n"
    "    int tx = threadIdx.x, ty = threadIdx.y, u = ty * 16 + tx;\n"
    "    int off = sel == 0 ? 0 : sel == 1 ? 90 : 2147483642;\n"
    "    long long off2 = sel == 0 ? 50 : sel == 1 ? 90 : 0x7ffffffffffffff0LL;\n"
    "    o[2 * u] = g[ty * 20 + tx + off];\n"
    "    o[2 * u + 1] = g[(long long)ty * 20 + tx + off2];\n"
    "}\n"
    "__global__ void expk(float *o, const float *in)\n"
    "{\n"
    "    int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    o[t] = t % 7 == 3 ? __int_as_float(t) : expf(in[t]);\n"
    "}\n"
    "__global__ void sw(int *o)\n"
    "{\n"
    "    int t = threadIdx.x, v;\n"
    "    switch (t % 4) { case 0: v = 10; break; case 1: v = 20; break; default: v = t; }\n"
    "    o[t] = v;\n"
    "}\n";

static const char src_c[] =
    "__global__ void vpool(float *o, const float *in, int c)\n"
    "{\n"
    "    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= 36L * c) return;\n"
    "    int ch = (int)(i % c);\n"
    "    long t = i / c;\n"
    "    int ox = (int)(t % 6), oy = (int)(t / 6);\n"
    "    float m = -1e30f;\n"
    "    for (int ky = 0; ky < 3; ky++) {\n"
    "        int y = oy - 1 + ky;\n"
    "        if (y < 0 || y >= 6) continue;\n"
    "        for (int kx = 0; kx < 3; kx++) {\n"
    "            int x = ox - 1 + kx;\n"
    "            if (x < 0 || x >= 6) continue;\n"
    "            m = fmaxf(m, in[((long)y * 6 + x) * c + ch]);\n"
    "        }\n"
    "    }\n"
    "    o[i] = m;\n"
    "}\n"
    "__global__ void vdeopt(int *o, int n)\n"
    "{\n"
    "    int t = threadIdx.x, acc = 0, k = 0, u = t < 16 ? 7 : t;\n"
    "    if (t < 16) {\n"
    "        while (k < n) {\n"
    "            acc += k * u + 1;\n"
    "            k += (k >= 5 && (t & 1)) ? 2 : 1;\n"
    "        }\n"
    "    }\n"
    "    o[t] = acc * 1000 + u + k;\n"
    "}\n"
    "__global__ void vbar(int *o, int n)\n"
    "{\n"
    "    __shared__ int s[64];\n"
    "    int t = threadIdx.x, base = blockIdx.x * 7, acc = 0;\n"
    "    for (int k = 0; k < n; k++) {\n"
    "        s[t] = base + k + t;\n"
    "        __syncthreads();\n"
    "        acc += s[(t + 1) & 63];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    o[blockIdx.x * 64 + t] = acc;\n"
    "}\n"
    "__global__ void vfwd(int *o, int sel)\n"
    "{\n"
    "    int t = threadIdx.x, x = sel * 3, y = t;\n"
    "    if (t & 1) x = t; else y = sel;\n"
    "    int z = x + y;\n"
    "    if (t < 10) z = z * 2;\n"
    "    o[t] = z + x;\n"
    "}\n"
    "__global__ void vind(int *o, const int *in, int sel)\n"
    "{\n"
    "    int t = threadIdx.x, acc = 0;\n"
    "    for (int j = t; j < 256; j += blockDim.x)\n"
    "        acc += in[j];\n"
    "    int j2 = t, r = 0;\n"
    "    while (r < 6) {\n"
    "        r++;\n"
    "        if (((t + r) & 3) == sel) continue;\n"
    "        j2 += 32;\n"
    "        acc += in[j2] * 3 + (j2 + 1) * 11;\n"
    "    }\n"
    "    int j3 = t, k = 0;\n"
    "    while (k < 5) {\n"
    "        acc += in[j3] * 7 + (j3 + 1) * 5;\n"
    "        if (t < sel * 8) j3 += 1; else j3 += 2;\n"
    "        k++;\n"
    "    }\n"
    "    o[blockIdx.x * blockDim.x + t] = acc + j2 * 1000 + j3 * 100000;\n"
    "}\n"
    "__global__ void vind2(int *o, const int *in, int sel)\n"
    "{\n"
    "    int t = threadIdx.x, acc = 0;\n"
    "    for (int j = t; j < 256; j += 64) {\n"
    "        if (((j >> 6) & 3) == sel) continue;\n"
    "        for (int k = j; k < j + 3; k++)\n"
    "            acc += in[k & 255] + (k + 7) * 3;\n"
    "        if (acc > 1000000) break;\n"
    "        acc += (j + 1) * 5;\n"
    "    }\n"
    "    o[blockIdx.x * blockDim.x + t] = acc;\n"
    "}\n"
    "__global__ void vlazy(int *o, const int *in, int sel)\n"
    "{\n"
    "    int t = threadIdx.x, acc = t >> 8, z = t >> 9, w = t >> 10; /* 0, not guessed one value: no test each round */\n"
    "    for (int j = t; j < 64 * (sel < 2 ? 1500 : 300); acc += z, j += 64) {\n"
    "        int x = j * 3 + sel;\n"
    "        w = x ^ 5; /* read after the loop: not lazy */\n"
    "        if (j % 7 == sel) continue;\n"
    "        z = __popc(x) + (x & 7);\n"
    "        int y = (j >> 6) + sel;\n"
    "        if (t & 1) acc += in[(j + z) & 255] + y; else acc -= z + j % 5 + y * 3;\n"
    "        if ((j >> 6) % 3 == sel) acc += __popc(y); /* some rounds, all lanes */\n"
    "        acc += y & 3;\n"
    "    }\n"
    "    o[blockIdx.x * blockDim.x + t] = acc + w;\n"
    "}\n"
    "__global__ void settle(int *o, const int *in, int sel)\n"
    "{\n"
    "    __shared__ int sh[64];\n"
    "    int t = threadIdx.x, a = in[t] * 3 + t, b = 0;\n"
    "    if ((t & 3) == sel) b = in[(t * 5) & 255] + 7;\n"
    "    sh[t] = a;\n"
    "    __syncthreads();\n"
    "    int n = __syncthreads_count(t < sel * 16 + 3);\n"
    "    int acc = 0;\n"
    "    for (int k = 0; k < 1500; k++) acc += (a ^ k) & 15;\n"
    "    acc += sh[(t + 1) & 63] + b;\n"
    "    __syncthreads();\n"
    "    o[blockIdx.x * blockDim.x + t] = acc + a * 7 + b * 3 + n * 1000;\n"
    "}\n";

static const char *src(void)
{
    static char all[sizeof src_a + sizeof src_b + sizeof src_c];
    if (!all[0]) {
        memcpy(all, src_a, sizeof src_a - 1);
        memcpy(all + sizeof src_a - 1, src_b, sizeof src_b - 1);
        memcpy(all + sizeof src_a + sizeof src_b - 2, src_c, sizeof src_c);
    }
    return all;
}

static cvm_module *mod;

typedef struct io {
    const void *init;
    size_t size;
} io;

static tap_jit_counts jit_counts(void)
{
    tap_jit_counts c = {0, 0, 0, 0};
    if (cvm_jit_counts_get)
        cvm_jit_counts_get(&c);
    return c;
}

static uint64_t native_launches(void)
{
    return jit_counts().launches;
}

/* One launch under CUBEVM_JIT=tier with fresh buffers from `bufs` (then
 * ns u32 scalars from scal): the status, diag and every buffer's bytes
 * after. */
static cvm_status run_tier(const char *tier, const char *name, const cvm_launch_config *cfg,
                           const io *bufs, int nb, const uint32_t *scal, int ns, uint8_t *out,
                           cvm_diag *d)
{
    cvm_buffer *b[8];
    cvm_arg args[12];
    setenv("CUBEVM_JIT", tier, 1);
    for (int i = 0; i < nb; i++) {
        b[i] = kern_buf("buf", bufs[i].size, bufs[i].init);
        args[i] = kern_arg_buf(b[i]);
    }
    for (int i = 0; i < ns; i++)
        args[nb + i] = kern_arg_u32(&scal[i]);
    const cvm_kernel *k = NULL;
    memset(d, 0, sizeof *d);
    cvm_status st = cvm_kernel_get(mod, name, &k, d);
    if (!st)
        st = cvm_launch(kern_stream(), k, cfg, args, (uint32_t)(nb + ns), d);
    if (!st)
        st = cvm_stream_sync(kern_stream(), d);
    size_t at = 0;
    for (int i = 0; i < nb; i++) {
        kern_read(b[i], out + at, bufs[i].size);
        at += bufs[i].size;
        cvm_buffer_free(b[i]);
    }
    unsetenv("CUBEVM_JIT");
    return st;
}

/* Runs both tiers; the native run's bytes in out (total bytes of bufs).
 * Passes when status, message and bytes agree and the native tier ran. */
static int both_n(const char *what, const char *name, const cvm_launch_config *cfg, const io *bufs,
                  int nb, const uint32_t *scal, int ns, uint8_t *out, cvm_status *st_out, cvm_diag *d)
{
    size_t total = 0;
    for (int i = 0; i < nb; i++)
        total += bufs[i].size;
    uint8_t *ref = calloc(1, total + 1);
    cvm_diag d0;
    cvm_status s0 = run_tier("off", name, cfg, bufs, nb, scal, ns, ref, &d0);
    const tap_jit_counts before = jit_counts();
    cvm_status s1 = run_tier("on", name, cfg, bufs, nb, scal, ns, out, d);
    const tap_jit_counts after = jit_counts();
    /* planned natively, and no thread fell back for want of stack */
    const bool ran = after.launches == before.launches + 1 && after.narrow_stacks == before.narrow_stacks;
    /* after a fault, which other cubes ran depends on the workers: bytes
     * are compared for launches that complete */
    const bool same = s0 != CVM_OK || !memcmp(ref, out, total);
    int good = ok(s0 == s1 && !strcmp(d0.message, d->message) && same && ran,
                  "%s: both tiers agree (%s / %s; %s)", what, cvm_status_str(s0), cvm_status_str(s1),
                  ran ? "native code ran" : "native code did not run");
    if (!good && strcmp(d0.message, d->message))
        diag("interpreter: %s\n# native:      %s", d0.message, d->message);
    free(ref);
    if (st_out)
        *st_out = s1;
    return good;
}

/* both_n with one scalar (none when scal is NULL). */
static int both(const char *what, const char *name, const cvm_launch_config *cfg, const io *bufs,
                int nb, const uint32_t *scal, uint8_t *out, cvm_status *st_out, cvm_diag *d)
{
    return both_n(what, name, cfg, bufs, nb, scal, scal != NULL, out, st_out, d);
}

/* A test's own module in place of the main one while it runs (`both`
 * launches from `mod`): assembly text, or CUDA when cuda. False, after a
 * failed check naming the file, if it does not load. */
static bool use_module(const char *text, const char *file, bool cuda)
{
    cvm_diag d;
    cvm_module *m = cuda ? kern_load_cuda(text, file, &d) : kern_load(text, file, &d);
    if (!m) {
        ok(0, "load %s: %s", file, d.message);
        return false;
    }
    mod = m;
    return true;
}

/* Frees the test's module: the main one is `mod` again. */
static void main_module(cvm_module *main_mod)
{
    cvm_module_free(mod);
    mod = main_mod;
}

/* ctl's result for unit t, in C. */
static int ctl_ref(int t)
{
    if (t % 5 == 4)
        return -1;
    int acc = 0;
    for (int i = 0; i < t % 37; i++) {
        if (i % 3 == 0)
            continue;
        if (i * t > 500)
            break;
        for (int j = 0; j < 3; j++) {
            if (j == i % 2)
                continue;
            acc += (i ^ t) + j;
        }
    }
    while (acc > 100) {
        acc -= 7;
        if (acc % 11 == 0)
            break;
    }
    return acc;
}

static void test_control(void)
{
    static const uint32_t blocks[] = {32, 100, 64, 256};
    static const uint32_t widths[] = {32, 8, 64, 16};
    for (int c = 0; c < 4; c++) {
        uint32_t n = 1000;
        int32_t got[1024];
        io bufs[] = {{NULL, sizeof got}};
        cvm_launch_config cfg = kern_cfg((n + blocks[c] - 1) / blocks[c], blocks[c]);
        cfg.plane_width = widths[c];
        char what[96];
        snprintf(what, sizeof what, "divergent loops, block %u, plane width %u", blocks[c], widths[c]);
        cvm_diag d;
        if (!both(what, "ctl", &cfg, bufs, 1, &n, (uint8_t *)got, NULL, &d))
            continue;
        int bad = -1;
        for (int t = 0; t < (int)n && bad < 0; t++)
            if (got[t] != ctl_ref(t))
                bad = t;
        ok(bad < 0, "%s: matches C (first difference at %d)", what, bad);
    }
}

static void test_barriers(void)
{
    static int32_t in[1000];
    for (int i = 0; i < 1000; i++)
        in[i] = (i * 37 + 11) % 101 - 50;
    static const uint32_t blocks[] = {256, 64};
    static const uint32_t widths[] = {32, 8};
    for (int c = 0; c < 2; c++) {
        uint32_t n = 1000, grid = (n + blocks[c] - 1) / blocks[c];
        int32_t got[64];
        io bufs[] = {{NULL, sizeof(int32_t) * 2 * grid}, {in, sizeof in}};
        cvm_launch_config cfg = kern_cfg(grid, blocks[c]);
        cfg.plane_width = widths[c];
        char what[96];
        snprintf(what, sizeof what, "shared-memory reduction with barriers in a loop, block %u, width %u",
                 blocks[c], widths[c]);
        uint8_t raw[sizeof got + sizeof in];
        cvm_diag d;
        if (!both(what, "red", &cfg, bufs, 2, &n, raw, NULL, &d))
            continue;
        memcpy(got, raw, sizeof(int32_t) * 2 * grid);
        int bad = -1;
        for (uint32_t b = 0; b < grid && bad < 0; b++) {
            int sum = 0, odd = 0;
            for (uint32_t i = b * blocks[c]; i < (b + 1) * blocks[c] && i < n; i++)
                sum += in[i], odd += in[i] & 1;
            if (got[2 * b] != sum || got[2 * b + 1] != odd)
                bad = (int)b;
        }
        ok(bad < 0, "%s: sums and __syncthreads_count match C (first difference in cube %d)", what, bad);
    }
}

/* Barriers after some units returned (a plane's waiting lanes are its
 * unfinished ones; a whole plane finished; a partial last plane: 100
 * units of 32-lane planes), and a barrier only odd units reach: in
 * checked mode a fault, unchecked the odd units wait and go on. */
static void test_barrier_masks(void)
{
    static const uint32_t ns[] = {90, 100, 33};
    for (int c = 0; c < 3; c++) {
        uint32_t n = ns[c];
        int32_t got[128];
        io bufs[] = {{NULL, sizeof got}};
        cvm_launch_config cfg = kern_cfg(1, 100);
        char what[80];
        if (n < 100)
            snprintf(what, sizeof what, "barriers after units %u-99 returned", n);
        else
            snprintf(what, sizeof what, "barriers every unit reaches");
        cvm_diag d;
        if (!both(what, "bar2", &cfg, bufs, 1, &n, (uint8_t *)got, NULL, &d))
            continue;
        int bad = -1;
        for (int t = 0; t < 128 && bad < 0; t++) {
            const int first = t < (int)n ? 3 * ((int)n - 1 - t) : 0;
            const int u = (t + 1) % (int)n, next = 3 * ((int)n - 1 - u) + 1;
            if (got[t] != (t < (int)n ? first + next : 0))
                bad = t;
        }
        ok(bad < 0, "%s: matches C (first difference at %d)", what, bad);
    }
    for (int unchecked = 0; unchecked < 2; unchecked++) {
        uint32_t n = 1000;
        int32_t got[64];
        io bufs[] = {{NULL, sizeof got}};
        cvm_launch_config cfg = kern_cfg(1, 64);
        cfg.unchecked = unchecked;
        cvm_diag d;
        cvm_status st;
        if (!both(unchecked ? "a barrier odd units reach, unchecked" : "a barrier odd units reach", "bdiv",
                  &cfg, bufs, 1, &n, (uint8_t *)got, &st, &d))
            continue;
        if (!unchecked) {
            ok(st == CVM_FAULT && strstr(d.message, "barrier divergence"), "the fault names it: %s", d.message);
            continue;
        }
        int bad = -1;
        for (int t = 0; t < 64 && bad < 0; t++)
            if (got[t] != t + 1000)
                bad = t;
        ok(st == CVM_OK && bad < 0, "every unit goes on past it (first difference at %d)", bad);
    }
}

static void test_scatter(void)
{
    int32_t in[64], got[16 + 64 + 64];
    for (int i = 0; i < 64; i++)
        in[i] = i * 1000 + 1;
    io bufs[] = {{NULL, 16 * 4}, {NULL, 64 * 4}, {in, sizeof in}};
    cvm_launch_config cfg = kern_cfg(1, 64);
    cvm_diag d;
    if (!both("scatter with colliding lanes, gather of a permutation", "scatter", &cfg, bufs, 3, NULL,
              (uint8_t *)got, NULL, &d))
        return;
    int bad = -1;
    for (int k = 0; k < 16 && bad < 0; k++)
        if (got[k] != 4 * k + 3) /* lanes store in lane order: the highest lane's value stays */
            bad = k;
    for (int t = 0; t < 64 && bad < 0; t++)
        if (got[16 + t] != in[(t * 7) % 64])
            bad = 16 + t;
    ok(bad < 0, "scatter keeps the last lane's value, gather reads each lane's element (first difference %d)",
       bad);
}

/* Gathers and scatters of some lanes (masked: the tier's helpers) of each
 * element size, global and shared, and runs of 1- and 2-byte elements
 * (AVX2 has no masked access of them), with the lanes left out keeping
 * their values; against a C model of the kernel. */
static void test_lanes(void)
{
    int8_t ic[64];
    int16_t is[64];
    double id[64];
    for (int i = 0; i < 64; i++)
        ic[i] = (int8_t)(i * 3 - 90), is[i] = (int16_t)(i * 1000 - 30000), id[i] = i * 0.5 + 0.125;
    struct { int8_t c[128]; int16_t s[128]; double d[64]; int32_t i[128]; } want, *got;
    memset(&want, 0, sizeof want);
    int32_t sh[64], sh2[64], v[64];
    for (int t = 0; t < 64; t++)
        sh[t] = sh2[t] = t * 3;
    for (int t = 0; t < 64; t++) {
        int p = (t * 7) % 64, q = (t * 5) % 64;
        int8_t c = 'a';
        int16_t s = -5;
        double d = 0.25;
        v[t] = -1;
        if (t % 3)
            c = ic[p], s = is[p], d = id[p], v[t] = sh[q];
        if (t % 4 != 1)
            want.c[p] = c, want.s[p] = s, want.d[p] = d, want.i[q] = v[t];
        if (t % 6 != 2)
            want.c[64 + t] = t % 5 ? ic[t] : 'b', want.s[64 + t] = t % 5 ? is[t] : 7;
    }
    for (int t = 1; t < 64; t += 2)
        sh2[(t * 9) % 64] = v[t];
    for (int t = 0; t < 64; t++)
        want.i[64 + t] = sh2[t];
    const size_t outb = 128 + 256 + 512 + 512;
    uint8_t raw[128 + 256 + 512 + 512 + 64 + 128 + 512];
    io bufs[] = {{NULL, 128}, {NULL, 256}, {NULL, 512}, {NULL, 512}, {ic, 64}, {is, 128}, {id, 512}};
    cvm_launch_config cfg = kern_cfg(1, 64);
    cvm_diag d;
    if (!both_n("gathers, scatters and runs of some lanes, 1 to 8 bytes", "lanes", &cfg, bufs, 7, NULL, 0, raw, NULL,
                &d))
        return;
    got = (void *)raw;
    ok(sizeof want == outb && !memcmp(got, &want, outb),
       "the lanes left out keep their values, the others read and write their own elements");
}

static void test_division(void)
{
    /* within [0, 2^52): in doubles; a negative or huge operand in a plane,
     * or a zero divisor: that plane through the interpreter */
    enum { N = 96 };
    static int64_t a[N], b[N];
    for (int i = 0; i < N; i++) {
        a[i] = (int64_t)i * 1234567891LL + (i % 7);
        b[i] = i % 9 + 1;
    }
    a[3] = (INT64_C(1) << 52) - 1, b[3] = 3;  /* the largest quick dividend */
    a[5] = (INT64_C(1) << 52) - 3, b[5] = (INT64_C(1) << 52) - 2; /* quotient 0 near 1 */
    a[40] = -a[40];                           /* plane 1: negative: interpreted */
    a[70] = INT64_C(1) << 60;                 /* plane 2: beyond 2^52 */
    b[71] = -3;
    int64_t got[4 * N + 2 * N]; /* the output, then copies of a and b */
    uint32_t n = N;
    io bufs[] = {{NULL, sizeof(int64_t) * 4 * N}, {a, sizeof a}, {b, sizeof b}};
    cvm_launch_config cfg = kern_cfg(N / 32, 32);
    cvm_diag d;
    if (!both("64- and 32-bit div and rem", "divs", &cfg, bufs, 3, &n, (uint8_t *)got, NULL, &d))
        return;
    int bad = -1;
    for (int t = 0; t < N && bad < 0; t++) {
        uint32_t ux = (uint32_t)a[t], uy = (uint32_t)b[t];
        if (got[4 * t] != a[t] / b[t] || got[4 * t + 1] != a[t] % b[t] ||
            got[4 * t + 2] != (int64_t)(uy ? ux / uy : 7) || got[4 * t + 3] != (int64_t)(uy ? ux % uy : 9))
            bad = t;
    }
    ok(bad < 0, "quotients and remainders match C (first difference at unit %d)", bad);

    /* a zero divisor in one lane: the same fault */
    b[37] = 0;
    cvm_status st;
    both("division by zero", "divs", &cfg, bufs, 3, &n, (uint8_t *)got, &st, &d);
    ok(st == CVM_FAULT && strstr(d.message, "integer division by zero") && d.fault.unit[0] == 5 &&
           d.fault.cube[0] == 1,
       "division by zero faults at cube 1 unit 5: %s", d.message);
    b[37] = 1;
}

/* Division by one value (a launch value's form is known) of dividends
 * that are, at run time, one value or consecutive: one scalar division
 * where every active lane has the same quotient (native_ops.c
 * divide_by_one), else the lanes' own path. Dividends base + t (64-bit,
 * and its low 32 bits signed and unsigned) and base + the cube's index;
 * quotients constant in a plane or not, negative dividends, one beyond
 * 2^52 (only the scalar path or the interpreter divide it), a sum that
 * wraps, a negative divisor, a partial last plane, a zero divisor. */
static const char divone_src[] =
    "__global__ void divone(long long *o, unsigned blo, unsigned bhi, unsigned dlo, unsigned dhi, unsigned n)\n"
    "{\n"
    "    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (t >= n) return;\n"
    "    long long base = (long long)(int)bhi * 4294967296LL + blo;\n"
    "    long long d = (long long)(int)dhi * 4294967296LL + dlo;\n"
    "    long long i = (long long)((unsigned long long)base + t), u = base + blockIdx.x;\n"
    "    int i32 = (int)i, d32 = (int)d;\n"
    "    unsigned u32 = (unsigned)i, e32 = (unsigned)d;\n"
    "    long long *p = o + 8 * t;\n"
    "    p[0] = i / d; p[1] = i % d; p[2] = u / d; p[3] = u % d;\n"
    "    p[4] = i32 / d32; p[5] = i32 % d32; p[6] = u32 / e32; p[7] = u32 % e32;\n"
    "}\n";

static void test_divide_by_one(void)
{
    enum { N = 200, UNITS = 256 };
    static const struct { int64_t base, d; } cases[] = {
        {0, 32}, {64, 64}, {5, 32}, {0, 7}, {123, 1000000}, {0, 1}, {-100, 32}, {-100, 7}, {1000, -32},
        {INT64_MAX - 150, 64}, {(INT64_C(1) << 40) + 3, INT64_C(1) << 20}, {INT64_C(1) << 60, 40},
        {(INT64_C(1) << 60) + 96, (INT64_C(1) << 33) + 5},
    };
    cvm_diag d;
    cvm_module *keep = mod;
    if (!use_module(divone_src, "divone.cu", true))
        return;
    static int64_t got[8 * UNITS];
    io bufs[] = {{NULL, sizeof got}};
    cvm_launch_config cfg = kern_cfg(UNITS / 64, 64);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const int64_t base = cases[c].base, dv = cases[c].d;
        const uint64_t ub = (uint64_t)base, ud = (uint64_t)dv;
        uint32_t sc[5] = {(uint32_t)ub, (uint32_t)(ub >> 32), (uint32_t)ud, (uint32_t)(ud >> 32), N};
        char what[96];
        snprintf(what, sizeof what, "(base + t) / %lld and %% from base %lld", (long long)dv, (long long)base);
        if (!both_n(what, "divone", &cfg, bufs, 1, sc, 5, (uint8_t *)got, NULL, &d))
            continue;
        int bad = -1;
        for (int t = 0; t < UNITS && bad < 0; t++) {
            const int64_t *q = &got[8 * t];
            if (t >= N) {
                for (int k = 0; k < 8; k++)
                    if (q[k])
                        bad = t;
                continue;
            }
            const int64_t i = (int64_t)(ub + (uint64_t)t), u = base + t / 64;
            const int32_t i32 = (int32_t)(uint32_t)i, d32 = (int32_t)(uint32_t)dv;
            const uint32_t u32 = (uint32_t)i, e32 = (uint32_t)dv;
            if (q[0] != i / dv || q[1] != i % dv || q[2] != u / dv || q[3] != u % dv || q[4] != i32 / d32 ||
                q[5] != i32 % d32 || q[6] != (int64_t)(u32 / e32) || q[7] != (int64_t)(u32 % e32))
                bad = t;
        }
        ok(bad < 0, "%s: C's quotients and remainders (first difference at unit %d)", what, bad);
    }
    /* a zero divisor: the interpreter's fault, at the first unit */
    uint32_t sc[5] = {7, 0, 0, 0, N};
    cvm_status st;
    both_n("division by a zero launch value", "divone", &cfg, bufs, 1, sc, 5, (uint8_t *)got, &st, &d);
    ok(st == CVM_FAULT && strstr(d.message, "integer division by zero"), "it faults: %s", d.message);
    main_module(keep);
}

/* NaNs made canonical where a value leaves the plane (jit/native.c
 * raw_nans): accumulators over inputs with NaNs of other bits (a
 * signaling one, a negative one, a payload) and infinities (inf - inf and
 * 0 * inf give the hardware's own NaN, which is negative on x86), stored
 * after their loop, through a barrier inside it (a spill), by a store the
 * interpreter makes (lanes in two buffers: from the register file), read
 * by fmaxf, a compare and expf; next to registers that must keep other
 * bits: one a bitcast reads, one written by a load (a NaN loaded and
 * stored keeps its bits) and by a multiply in some lanes. Expected values
 * from C below, NaNs as docs/numerics.md's canonical one. */
static const char rawnan_src[] =
    "#define U 128\n"
    "__global__ void rawnan(float *o, unsigned *bits, float *o1, float *o2, double *od, const float *x, int n)\n"
    "{\n"
    "    int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    float s = 0.0f, p = 1.0f, q = 0.0f, b = 0.0f;\n"
    "    double pd = 1.0;\n"
    "    for (int k = 0; k < n; k++) {\n"
    "        float v = x[t * n + k];\n"
    "        s += v;\n"
    "        p = p * v;\n"
    "        q = q + v * v - v;\n"
    "        b += v;\n"
    "        pd = pd * ((double)v - 0.5);\n"
    "        if (k == n / 2) __syncthreads();\n"
    "    }\n"
    "    float v2 = x[t * n];\n"
    "    for (int k = 0; k < (t & 2); k++) v2 = v2 * 2.0f;\n"
    "    float *p6 = o + 6 * t;\n"
    "    p6[0] = s; p6[1] = p; p6[2] = q; p6[3] = fmaxf(s, 1.0f); p6[4] = expf(q); p6[5] = s != s ? 1.0f : 0.0f;\n"
    "    bits[t] = __float_as_uint(b);\n"
    "    o1[U + t] = v2;\n"
    "    od[t] = pd;\n"
    "    float *dst = (t & 1) ? o1 : o2;\n"
    "    dst[t] = p;\n"
    "}\n";

static uint32_t canon_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return isnan(f) ? 0x7fc00000u : u;
}

static void test_raw_nans(void)
{
    enum { U = 128, N = 8 };
    static const uint32_t odd[] = {0x7f800001u, 0xffc01234u, 0x7fc00001u, 0x7f800000u, 0xff800000u, 0x00000000u};
    static float x[U * N], o[6 * U], o1[2 * U], o2[U];
    static double od[U];
    static uint32_t bits[U];
    uint32_t seed = 777;
    for (int t = 0; t < U; t++)
        for (int k = 0; k < N; k++) {
            seed = seed * 1664525u + 1013904223u;
            float v = (float)(int)(seed >> 24) / 64.0f - 2.0f;
            /* a quarter of the units see one odd value, a quarter two */
            if ((t % 4 == 1 && k == t % N) || (t % 4 == 2 && (k == 1 || k == 5)))
                memcpy(&v, &odd[(t / 4 + k) % 6], 4);
            x[t * N + k] = v;
        }
    for (int t = 0; t < U; t += 4) /* loaded NaNs that keep their bits, where v2 is not multiplied */
        memcpy(&x[t * N], &odd[t / 4 % 3], 4);
    cvm_module *keep = mod;
    if (!use_module(rawnan_src, "rawnan.cu", true))
        return;
    uint8_t raw[sizeof o + sizeof bits + sizeof o1 + sizeof o2 + sizeof od + sizeof x];
    io bufs[] = {{NULL, sizeof o}, {NULL, sizeof bits}, {NULL, sizeof o1}, {NULL, sizeof o2}, {NULL, sizeof od},
                 {x, sizeof x}};
    cvm_launch_config cfg = kern_cfg(U / 64, 64);
    uint32_t n = N;
    cvm_diag d;
    if (both("NaNs of float accumulators", "rawnan", &cfg, bufs, 6, &n, raw, NULL, &d)) {
        memcpy(o, raw, sizeof o), memcpy(bits, raw + sizeof o, sizeof bits);
        memcpy(o1, raw + sizeof o + sizeof bits, sizeof o1), memcpy(o2, raw + sizeof o + sizeof bits + sizeof o1, sizeof o2);
        memcpy(od, raw + sizeof o + sizeof bits + sizeof o1 + sizeof o2, sizeof od);
        int bad = -1, nans = 0;
        for (int t = 0; t < U && bad < 0; t++) {
            float s = 0.0f, p = 1.0f, q = 0.0f, b = 0.0f;
            double pd = 1.0;
            for (int k = 0; k < N; k++) {
                const float v = x[t * N + k];
                s += v, p = p * v, q = q + v * v - v, b += v, pd = pd * ((double)v - 0.5);
            }
            uint64_t pdb, gpd;
            memcpy(&pdb, &pd, 8), memcpy(&gpd, &od[t], 8);
            if (isnan(pd))
                pdb = UINT64_C(0x7ff8000000000000);
            const float v2 = t & 2 ? x[t * N] * 2.0f * 2.0f : x[t * N];
            uint32_t v2b, g6[6], gv2;
            memcpy(&v2b, &x[t * N], 4);
            if (t & 2)
                v2b = canon_bits(v2);
            memcpy(&gv2, &o1[U + t], 4);
            for (int k = 0; k < 6; k++)
                memcpy(&g6[k], &o[6 * t + k], 4);
            const float e = expf(q);
            uint32_t eb;
            memcpy(&eb, &e, 4);
            const bool e_ok = isnan(q) ? g6[4] == 0x7fc00000u
                              : isinf(e) || e == 0.0f ? g6[4] == eb
                                                      : (g6[4] > eb ? g6[4] - eb : eb - g6[4]) <= 1;
            nans += isnan(s) + isnan(p) + isnan(q) + isnan(pd);
            if (g6[0] != canon_bits(s) || g6[1] != canon_bits(p) || g6[2] != canon_bits(q) ||
                g6[3] != canon_bits(isnan(s) ? 1.0f : s > 1.0f ? s : 1.0f) || !e_ok ||
                o[6 * t + 5] != (isnan(s) ? 1.0f : 0.0f) || bits[t] != canon_bits(b) || gv2 != v2b || gpd != pdb ||
                canon_bits((t & 1 ? o1 : o2)[t]) != canon_bits(p) ||
                (isnan(p) && memcmp(&(t & 1 ? o1 : o2)[t], &(uint32_t){0x7fc00000u}, 4)))
                bad = t;
        }
        ok(bad < 0 && nans > U / 4, "canonical NaNs (f32 and f64) where accumulators are stored, spilled, stored "
           "by the interpreter, bitcast; a loaded NaN keeps its bits (%d NaN sums; first difference at unit %d)",
           nans, bad);
    }
    main_module(keep);
}

/* Quick accesses in a versioned loop (native_mem.c full_plane and
 * one_element): in[base + x] with a 64-bit base of one value and a
 * 32-bit x consecutive, extended (sign: splits, zero: splitz), as a
 * convolution indexes its input; w[k] with k one value. Offsets where x
 * wraps inside a plane (to a fault the interpreter reports: a quick path
 * that took the lanes as consecutive past the wrap would read
 * in-bounds elements instead), a w too short for the loop (a fault at
 * the one element's load), partial planes. */
/* One of the two kernels: x of type X from t + off; EXTRA and WK its
 * weight's offset parameter and index. */
#define SPLIT_KERNEL(NAME, X, EXTRA, WK)                                                                   \
    "__global__ void " NAME "(float *o, const float *in, const float *w, int n, " X " off, unsigned blo, "   \
    "unsigned bhi" EXTRA ")\n"                                                                           \
    "{\n"                                                                                                \
    "    int t = threadIdx.x;\n"                                                                         \
    "    long bofs = (long)(int)bhi * 4294967296LL + blo;\n"                                             \
    "    float acc = 0.0f;\n"                                                                            \
    "    for (int k = 0; k < n; k++) {\n"                                                                \
    "        long base = (long)k * 8 + bofs;\n"                                                          \
    "        " X " x = (" X ")t + off;\n"                                                                \
    "        acc += in[base + x] * w[" WK "];\n"                                                         \
    "    }\n"                                                                                            \
    "    o[t] = acc;\n"                                                                                  \
    "}\n"
static const char split_src[] =
    SPLIT_KERNEL("splits", "int", ", int wo", "k + wo") SPLIT_KERNEL("splitz", "unsigned", "", "k");

static void test_split_indexes(void)
{
    enum { NIN = 200, NW = 12, T = 64 };
    static float in[NIN], w[NW];
    for (int i = 0; i < NIN; i++)
        in[i] = (float)(i % 17 - 8);
    for (int k = 0; k < NW; k++)
        w[k] = (float)(1 << (k % 3));
    static const struct {
        const char *kernel;
        int64_t off, bofs; /* x = t + off; base = 8 k + bofs */
        uint32_t n, units;
        int fault; /* the unit that faults, or -1 */
        int32_t wo; /* splits: w[k + wo] */
    } cases[] = {
        {"splits", 3, 0, 10, 64, -1, 0},
        {"splits", -5, 7, 12, 64, -1, 0},
        {"splits", 3, 0, 10, 48, -1, 0},                         /* a partial plane */
        {"splits", 3, 0, 13, 64, 0, 0},                          /* w[12]: past its end */
        {"splits", 3, 0, 5, 64, 0, -1},                          /* w[-1]: before its start */
        {"splits", INT32_MAX - 40, -(INT64_C(2147483647) - 40), 4, 64, 41, 0}, /* x wraps at t = 41 */
        {"splits", INT32_MAX - 40 + 32, -(INT64_C(2147483647) - 40 + 32), 4, 64, 9, 0}, /* at t = 9 */
        {"splitz", 3, 0, 10, 64, -1, 0},
        {"splitz", (int64_t)UINT32_MAX - 40, -((int64_t)UINT32_MAX - 40), 4, 64, 41, 0}, /* wraps to 0 */
    };
    cvm_diag d;
    cvm_module *keep = mod;
    if (!use_module(split_src, "split.cu", true))
        return;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const uint64_t ub = (uint64_t)cases[c].bofs;
        uint32_t sc[5] = {cases[c].n, (uint32_t)cases[c].off, (uint32_t)ub, (uint32_t)(ub >> 32), (uint32_t)cases[c].wo};
        static uint8_t got[sizeof(float) * T + sizeof in + sizeof w];
        io bufs[] = {{NULL, sizeof(float) * T}, {in, sizeof in}, {w, sizeof w}};
        cvm_launch_config cfg = kern_cfg(1, cases[c].units);
        char what[112];
        snprintf(what, sizeof what, "%s: in[8k + %lld + t + %lld] * w[k + %d], k < %u, %u units", cases[c].kernel,
                 (long long)cases[c].bofs, (long long)cases[c].off, cases[c].wo, cases[c].n, cases[c].units);
        cvm_status st;
        if (!both_n(what, cases[c].kernel, &cfg, bufs, 3, sc, cases[c].kernel[5] == 's' ? 5 : 4, got, &st, &d))
            continue;
        if (cases[c].fault >= 0) {
            ok(st == CVM_FAULT && strstr(d.message, "out-of-bounds load") && d.fault.unit[0] == (uint32_t)cases[c].fault,
               "%s: unit %d faults: %s", what, cases[c].fault, d.message);
            continue;
        }
        float o[T];
        memcpy(o, got, sizeof o);
        int bad = -1;
        for (uint32_t t = 0; t < T && bad < 0; t++) {
            float want = 0.0f;
            for (uint32_t k = 0; t < cases[c].units && k < cases[c].n; k++)
                want += in[8 * k + cases[c].bofs + t + cases[c].off] * w[k + cases[c].wo];
            if (o[t] != want)
                bad = (int)t;
        }
        ok(st == CVM_OK && bad < 0, "%s: the C model's sums (first difference at unit %d)", what, bad);
    }
    main_module(keep);
}

/* expf is compiled inline (exp_f32 in jit/native_ops.c): the
 * interpreter's bits on specials, both ends of the clamp, subnormal
 * results, a spread of ordinary values, 524032 bit patterns spread over
 * all 2^32 (NaNs and infinities among them) and as many random values in
 * [-104, 89], with every seventh lane inactive; and within one ulp of the
 * C library's expf (an independent reference); the seventh lanes take
 * __int_as_float(t), a bitcast, also inline. */
static void test_exp(void)
{
    enum { N = 1 << 20 };
    static float in[N], got[2 * N];
    const float special[] = {0.0f, -0.0f, 1.0f, -1.0f, NAN, -NAN, INFINITY, -INFINITY, 88.72f, 88.73f,
                             89.0f, 89.5f, -87.3f, -100.0f, -103.9f, -104.0f, -104.5f, 1e-30f, -1e-30f,
                             0.34657359f, -0.34657359f, 10.3972077f, 0x1p-149f, 3.4e38f, -3.4e38f};
    const int ns = (int)(sizeof special / sizeof special[0]);
    uint32_t seed = 12345;
    for (int i = 0; i < N; i++) {
        seed = seed * 1664525u + 1013904223u;
        in[i] = i < ns ? special[i] : i < 300 ? -110.0f + 205.0f * (float)(i - ns) / (float)(300 - ns)
                                            : ((float)(seed >> 8) / 16777216.0f - 0.5f) * 40.0f;
        if (i >= 512 && i % 2) { /* odd: spread over the bit patterns */
            const uint32_t b = (uint32_t)(i - 512) * 4099u + seed % 4099u;
            memcpy(&in[i], &b, 4);
        } else if (i >= 512) { /* even: uniform over the range that is neither 0 nor inf */
            in[i] = -104.0f + 193.0f * (float)(seed >> 8) / 16777216.0f;
        }
    }
    io bufs[] = {{NULL, sizeof in}, {in, sizeof in}};
    cvm_launch_config cfg = kern_cfg(N / 64, 64);
    cvm_diag d;
    if (!both("expf inline", "expk", &cfg, bufs, 2, NULL, (uint8_t *)got, NULL, &d))
        return;
    int bad = -1;
    for (int t = 0; t < N && bad < 0; t++) {
        uint32_t g, w;
        float want = isnan(in[t]) ? NAN : expf(in[t]);
        memcpy(&g, &got[t], 4), memcpy(&w, &want, 4);
        if (t % 7 == 3) { /* __int_as_float(t): a bitcast */
            if (g != (uint32_t)t)
                bad = t;
            continue;
        }
        if (isnan(want) ? g != 0x7fc00000u : isinf(want) || want == 0.0f ? g != w : (g > w ? g - w : w - g) > 1)
            bad = t;
    }
    ok(bad < 0, "expf: specials exact (canonical NaN), others within one ulp of libm, bitcasts the bits "
       "(first difference at %d: "
       "%a -> %a)", bad, bad < 0 ? 0.0 : (double)in[bad], bad < 0 ? 0.0 : (double)got[bad]);
}

/* docs/numerics.md's min and max, in C: NaN gives the other operand (two
 * NaNs the canonical one), -0 < +0. */
static double ref_minmax(double a, double b, bool max)
{
    if (isnan(a) && isnan(b))
        return NAN;
    if (isnan(a) || isnan(b))
        return isnan(a) ? b : a;
    if (a == 0.0 && b == 0.0)
        return (max ? signbit(a) && signbit(b) : signbit(a) || signbit(b)) ? -0.0 : 0.0;
    return max ? (a > b ? a : b) : (a < b ? a : b);
}

/* fmaxf/fminf and fmax/fmin over every pair of special values, bit for
 * bit against the C model above (NaN results canonical). */
static void test_minmax(void)
{
    const float sp[] = {0.0f, -0.0f, 1.0f, -1.0f, 2.5f, -2.5f, INFINITY, -INFINITY, NAN, -NAN, 0x1p-149f, 3.4e38f};
    enum { S = sizeof sp / sizeof sp[0], N = 160 };
    static float a[N], b[N], got[2 * N];
    static double gotd[2 * N];
    for (int i = 0; i < N; i++)
        a[i] = sp[(i / S) % S], b[i] = sp[i % S];
    a[150] = b[151] = -NAN; /* a NaN with its sign set on either side */
    io bufs[] = {{NULL, sizeof got}, {NULL, sizeof gotd}, {a, sizeof a}, {b, sizeof b}};
    cvm_launch_config cfg = kern_cfg(N / 32, 32);
    cvm_diag d;
    uint8_t raw[sizeof got + sizeof gotd + sizeof a + sizeof b];
    if (!both("min and max of special values", "mm", &cfg, bufs, 4, NULL, raw, NULL, &d))
        return;
    memcpy(got, raw, sizeof got), memcpy(gotd, raw + sizeof got, sizeof gotd);
    int bad = -1;
    for (int t = 0; t < N && bad < 0; t++)
        for (int k = 0; k < 2; k++) {
            const double w = ref_minmax(a[t], b[t], k == 0);
            const float wf = (float)w;
            uint32_t gb, wb;
            uint64_t gdb, wdb;
            memcpy(&gb, &got[2 * t + k], 4), memcpy(&wb, &wf, 4);
            memcpy(&gdb, &gotd[2 * t + k], 8), memcpy(&wdb, &w, 8);
            if (isnan(w) ? gb != 0x7fc00000u || gdb != UINT64_C(0x7ff8000000000000) : gb != wb || gdb != wdb)
                bad = t;
        }
    ok(bad < 0, "min and max, f32 and f64: the C model's bits (first difference at %d)", bad);
}

/* An index split into coordinates by divisions by one value (jit/
 * native_ops.c divide_by_one): their results' forms known at run time
 * (fval's du, dc, ds), taken by the next division and by the test of a
 * loop's versioned copy (its table index made from them); quotients one value or not (c below, equal to
 * and above the plane width), dividends negative (the interpreter's
 * path), 32-bit lanes widened where they wrap (zero-extended past 2^32,
 * sign-extended past 2^31), in cubes of rows and not, at widths 32 and
 * 8. Expected values computed in C. */
static void test_split(void)
{
    /* (2147483600 and -10 with c = 1000 in cubes of rows: a plane's
     * lanes wrap where lanes 0 and W - 1 would have one quotient) */
    static const int bases[] = {0, 5, -37, 2147483600, -10};
    static const int cs[] = {1, 3, 32, 64, 100};
    static const unsigned shapes[][3] = {{64, 2, 32}, {48, 3, 32}, {64, 2, 8}, {12, 4, 8}};
    int fails = 0, runs = 0;
    for (unsigned sh = 0; sh < 4; sh++)
        for (unsigned bi = 0; bi < 5; bi++) {
            const unsigned B = shapes[sh][0], G = shapes[sh][1], U = B * G;
            const int base = bases[bi], c = bi >= 3 && sh % 2 == 0 ? 1000 : cs[(bi + sh) % 5], w = 1 + 2 * (int)((bi + 2 * sh) % 4), n = 3;
            uint32_t got[4 * 192 + 64], tab[64];
            for (int j = 0; j < 64; j++)
                tab[j] = (uint32_t)(j * j * 7 + 3);
            io bufs[] = {{NULL, sizeof(uint32_t) * 4 * U}, {tab, sizeof tab}};
            cvm_launch_config cfg = kern_cfg(G, B);
            cfg.plane_width = shapes[sh][2];
            const uint32_t scal[4] = {(uint32_t)base, (uint32_t)c, (uint32_t)w, (uint32_t)n};
            cvm_diag d;
            char what[96];
            snprintf(what, sizeof what, "split: base %d, c %d, w %d, %u x %u, width %u", base, c, w, G, B, shapes[sh][2]);
            runs++;
            if (!both_n(what, "split", &cfg, bufs, 2, scal, 4, (uint8_t *)got, NULL, &d)) {
                fails++;
                continue;
            }
            for (unsigned gi = 0; gi < U; gi++) {
                const unsigned tx = gi % B;
                const int64_t i = (int64_t)gi + base;
                const int ch = (int)(i % c);
                const int64_t t = i / c;
                const int x = (int)(t % w), y = (int32_t)(uint32_t)(uint64_t)(t / w);
                uint32_t acc = 0;
                for (int k = 0; k < n; k++)
                    acc += (uint32_t)((ch + k) * 3 + x * 7) - (uint32_t)y * 5u + tab[(ch + x + k) & 63];
                const uint32_t u = tx + (uint32_t)base;
                const int64_t uz = (int64_t)u, sz = (int64_t)(int32_t)u;
                const uint32_t want[4] = {acc, (uint32_t)(uz % c) + (uint32_t)(uz / c % 1000) * 100u,
                                          (uint32_t)(sz % c) * 3u + (uint32_t)(sz / c % 997),
                                          (uint32_t)x * 1000u + (uint32_t)y};
                if (memcmp(&got[4 * gi], want, sizeof want)) {
                    diag("%s: unit %u: %u %u %u %u, want %u %u %u %u", what, gi, got[4 * gi], got[4 * gi + 1],
                         got[4 * gi + 2], got[4 * gi + 3], want[0], want[1], want[2], want[3]);
                    fails++;
                    break;
                }
            }
        }
    ok(fails == 0, "coordinates split by divisions: the C model's values in %d launches (%d failed)", runs, fails);
}

/* min and max with an operand that is never a NaN (jit/native_facts.c
 * no_nans: a -inf, a constant, and a min of the two, the other operand
 * a NaN in some rounds or all), and with one that may be (q, from a
 * load: two NaNs give the canonical one; the input's NaNs have their
 * sign set, so the hardware's would differ), against the C model. */
static void test_no_nan(void)
{
    enum { U = 64, N = 256 };
    static float x[N], got[4 * U];
    for (int i = 0; i < N; i++) {
        const int t = i % U, k = i / U;
        /* unit t's rounds: all NaN (t % 8 == 1), none (t % 8 == 2), else NaN in round t % 4 */
        const bool nan = t % 8 == 1 || (t % 8 != 2 && k == t % 4);
        x[i] = nan ? -NAN : (float)((i * 37) % 101) - 50.0f;
    }
    /* zeros of both signs meet, and give unit 2's max and unit 10's min:
     * m = fmaxf(m, v) with m never a NaN and min with lo the same (the
     * number taken as the second operand, then the zeros' test) */
    x[2] = -0.0f, x[2 + U] = 0.0f, x[2 + 2 * U] = -1.0f, x[2 + 3 * U] = -2.0f;
    x[10] = 0.0f, x[10 + U] = -0.0f, x[10 + 2 * U] = 1.0f, x[10 + 3 * U] = 2.0f;
    io bufs[] = {{NULL, sizeof got}, {x, sizeof x}};
    cvm_launch_config cfg = kern_cfg(1, U);
    cvm_diag d;
    uint8_t raw[sizeof got + sizeof x];
    const uint32_t n = 4;
    if (!both("min and max with an operand never a NaN", "nonan", &cfg, bufs, 2, &n, raw, NULL, &d))
        return;
    memcpy(got, raw, sizeof got);
    int bad = -1, nans = 0;
    for (int t = 0; t < U && bad < 0; t++) {
        double m = -INFINITY, lo = 3.0, q = x[t], c = 3.0;
        for (int k = 0; k < 4; k++) {
            const double v = x[(t + U * k) % N];
            m = ref_minmax(m, v, true), lo = ref_minmax(v, lo, false);
            c = ref_minmax(c, -lo, true), q = ref_minmax(q, v, true);
        }
        const double want[4] = {m, lo, q, c};
        for (int j = 0; j < 4; j++) {
            const float wf = (float)want[j];
            uint32_t gb, wb;
            memcpy(&gb, &got[4 * t + j], 4), memcpy(&wb, &wf, 4);
            nans += isnan(want[j]);
            if (isnan(want[j]) ? gb != 0x7fc00000u : gb != wb)
                bad = t;
        }
    }
    ok(bad < 0 && nans == U / 8, "never-NaN operands: the C model's bits, two NaNs canonical (%d NaN results; "
       "first difference at unit %d)", nans, bad);
}

/* Loads whose lanes read one element (the quick path's single load, with
 * a 32- and a 64-bit index; inactive lanes keep their value), and
 * shared-memory loads of a 16x16 cube whose 32-lane planes read two runs:
 * a row's element per half, a row per half (the same row, or rows apart),
 * next to a transposed read and a partly active one (per lane), and two
 * runs past the tile's end (a fault, from ty = 8). Expected values by
 * hand from the indexes. */
static void test_runs(void)
{
    enum { N = 300 };
    static float w[N];
    for (int i = 0; i < N; i++)
        w[i] = (float)((i * 29) % 97) - 40.0f;
    static const int ks[] = {5, N - 1, -1};
    for (int c = 0; c < 3; c++) {
        uint32_t k = (uint32_t)ks[c];
        float got[64 + N];
        io bufs[] = {{NULL, sizeof(float) * 64}, {w, sizeof w}};
        cvm_launch_config cfg = kern_cfg(1, 64);
        char what[64];
        snprintf(what, sizeof what, "one element for every lane, w[%d]", ks[c]);
        cvm_diag d;
        cvm_status st;
        if (!both(what, "one", &cfg, bufs, 2, &k, (uint8_t *)got, &st, &d))
            continue;
        if (c) { /* w[N] faults in unit 0; w[-1] in unit 1, the first with t % 3 */
            ok(st == CVM_FAULT && strstr(d.message, "out-of-bounds load") && d.fault.unit[0] == (c == 1 ? 0u : 1u),
               "%s: the fault names unit %u: %s", what, c == 1 ? 0u : 1u, d.message);
            continue;
        }
        int bad = -1;
        for (int t = 0; t < 64 && bad < 0; t++)
            if (got[t] != (t % 3 ? w[5] : -1.0f) + w[6])
                bad = t;
        ok(st == CVM_OK && bad < 0, "%s: inactive lanes keep their value (first difference at %d)", what, bad);
    }
    static float in[256];
    for (int i = 0; i < 256; i++)
        in[i] = (float)i * 0.5f - 7.0f;
    for (uint32_t sel = 0; sel < 2; sel++) {
        float got[5 * 256 + 256];
        io bufs[] = {{NULL, sizeof(float) * 5 * 256}, {in, sizeof in}};
        cvm_launch_config cfg = kern_cfg(1, 16);
        cfg.block[1] = 16;
        cvm_diag d;
        cvm_status st;
        const char *what = sel ? "two runs of a shared tile, past its end" : "two runs of a shared tile";
        if (!both(what, "tile", &cfg, bufs, 2, &sel, (uint8_t *)got, &st, &d))
            continue;
        if (sel) {
            ok(st == CVM_FAULT && strstr(d.message, "out-of-bounds shared load") && d.fault.unit[1] == 8,
               "%s: the fault names unit (0,8): %s", what, d.message);
            continue;
        }
        int bad = -1;
        for (int ty = 0; ty < 16; ty++)
            for (int tx = 0; tx < 16 && bad < 0; tx++) {
                const int u = ty * 16 + tx;
                const float want[5] = {in[ty * 16 + 3], in[5 * 16 + tx], in[((2 * ty) & 15) * 16 + tx],
                                       in[tx * 16 + ty], tx != 7 ? in[ty * 16 + (tx ^ 1)] : 0.0f};
                for (int j = 0; j < 5; j++)
                    if (got[5 * u + j] != want[j])
                        bad = 5 * u + j;
            }
        ok(st == CVM_OK && bad < 0, "%s: every value from its index (first difference at %d)", what, bad);
    }
    /* two runs of a global buffer (rows 20 elements apart), 32- and 64-bit
     * indexes: in bounds; the last plane's second run past the end (the
     * fault in unit (10,15)); 32-bit indexes that wrap past INT_MAX */
    static float gb[400];
    for (int i = 0; i < 400; i++)
        gb[i] = (float)((i * 13) % 51) + 0.25f;
    for (uint32_t sel = 0; sel < 3; sel++) {
        float got[2 * 256 + 400];
        io bufs[] = {{NULL, sizeof(float) * 2 * 256}, {gb, sizeof gb}};
        cvm_launch_config cfg = kern_cfg(1, 16);
        cfg.block[1] = 16;
        cvm_diag d;
        cvm_status st;
        static const char *const whats[] = {"two runs of a buffer", "two runs of a buffer, past its end",
                                            "two runs of a buffer, indexes past INT_MAX"};
        if (!both(whats[sel], "rows", &cfg, bufs, 2, &sel, (uint8_t *)got, &st, &d))
            continue;
        if (sel) {
            const bool at = sel == 1 ? d.fault.unit[0] == 10 && d.fault.unit[1] == 15 : d.fault.unit[1] == 0;
            ok(st == CVM_FAULT && strstr(d.message, "out-of-bounds load") && at, "%s: the fault names unit %s: %s",
               whats[sel], sel == 1 ? "(10,15)" : "(x,0)", d.message);
            continue;
        }
        int bad = -1;
        for (int u = 0; u < 256 && bad < 0; u++) {
            const int tx = u % 16, ty = u / 16;
            if (got[2 * u] != gb[ty * 20 + tx] || got[2 * u + 1] != gb[ty * 20 + tx + 50])
                bad = u;
        }
        ok(st == CVM_OK && bad < 0, "%s: every value from its index (first difference at %d)", whats[sel], bad);
    }
}

/* Shared accesses at a per-lane pointer plus one offset in a versioned
 * loop (native_mem.c shared_split: the lanes' form tested on the per-lane
 * part alone): a 16x16 cube, whose planes read a row's element per half
 * (s[ty][k]) and a row per half (s[k][tx]) in the loop's third copy (k
 * one value, ty's offsets per lane), and a 32x8 cube, whose planes read
 * one element and a whole row, and store a row in a second loop; a
 * pointer one row on plus a negative offset (the 32-bit sum wraps to the
 * row before), a partly active plane, and the first load and the first
 * store past the tile's end (faults in the interpreter's unit). Inputs
 * are integers, so every sum is exact in any order; expected values by
 * hand from the indexes. */
static const char sloop_src[] =
    "__global__ void sloop(float *o, const float *in, int n, int m, int st)\n"
    "{\n"
    "    __shared__ float s[16][32];\n"
    "    int tx = threadIdx.x, ty = threadIdx.y, u = ty * blockDim.x + tx;\n"
    "    s[u / 32][u % 32] = in[u];\n"
    "    s[8 + u / 32][u % 32] = in[256 + u];\n"
    "    __syncthreads();\n"
    "    float a = 0.0f, b = 0.0f, c = 0.0f, e = 0.0f;\n"
    "    const float *row = &s[ty + 1][0];\n"
    "    for (int k = 0; k < n; k++) {\n"
    "        a += s[ty][k];\n"
    "        b += s[k][tx] * 0.5f;\n"
    "        c += row[k - 32];\n"
    "        if (tx != 3) e += s[k][tx];\n"
    "    }\n"
    "    __syncthreads();\n"
    "    if (ty == st)\n"
    "        for (int k = 0; k < m; k++) s[k][tx] = (float)(k * 100 + tx);\n"
    "    __syncthreads();\n"
    "    o[5 * u] = a; o[5 * u + 1] = b; o[5 * u + 2] = c; o[5 * u + 3] = e; o[5 * u + 4] = s[u / 32][u % 32];\n"
    "}\n";

static void test_shared_split(void)
{
    static float in[512];
    for (int i = 0; i < 512; i++)
        in[i] = (float)((i * 37) % 101 - 50);
    static const struct { uint32_t bx, n, m, st; const char *fault; } cases[] = {
        {16, 16, 16, 3, NULL}, {32, 16, 16, 2, NULL}, {16, 12, 0, 0, NULL}, {32, 1, 16, 7, NULL},
        {16, 17, 0, 0, "out-of-bounds shared load"}, {32, 17, 0, 0, "out-of-bounds shared load"},
        {32, 16, 17, 2, "out-of-bounds shared store"}, {16, 16, 17, 5, "out-of-bounds shared store"},
    };
    cvm_module *keep = mod;
    if (!use_module(sloop_src, "sloop.cu", true))
        return;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const uint32_t bx = cases[c].bx, by = 256 / bx, n = cases[c].n, m = cases[c].m, sel = cases[c].st;
        static float got[5 * 256 + 512];
        io bufs[] = {{NULL, sizeof(float) * 5 * 256}, {in, sizeof in}};
        cvm_launch_config cfg = kern_cfg(1, bx);
        cfg.block[1] = by;
        uint32_t sc[3] = {n, m, sel};
        char what[112];
        snprintf(what, sizeof what, "shared loads at a pointer plus one offset, %ux%u cube, %u and %u rounds, row %u",
                 bx, by, n, m, sel);
        cvm_diag d;
        cvm_status st;
        if (!both_n(what, "sloop", &cfg, bufs, 2, sc, 3, (uint8_t *)got, &st, &d))
            continue;
        if (cases[c].fault) { /* plane 0's first lane, or the storing row's */
            const uint32_t fy = m > 16 ? sel : 0;
            ok(st == CVM_FAULT && strstr(d.message, cases[c].fault) && d.fault.unit[0] == 0 && d.fault.unit[1] == fy,
               "%s: the fault names unit (0,%u): %s", what, fy, d.message);
            continue;
        }
        int bad = -1;
        for (uint32_t ty = 0; ty < by; ty++)
            for (uint32_t tx = 0; tx < bx && bad < 0; tx++) {
                const uint32_t u = ty * bx + tx;
                float want[5] = {0, 0, 0, 0, in[u]};
                for (uint32_t k = 0; k < n; k++) {
                    want[0] += in[ty * 32 + k];
                    want[1] += in[k * 32 + tx] * 0.5f;
                    want[3] += tx != 3 ? in[k * 32 + tx] : 0.0f;
                }
                want[2] = want[0];
                if (u / 32 < m && sel < by && u % 32 < bx)
                    want[4] = (float)(u / 32 * 100 + u % 32);
                for (int j = 0; j < 5; j++)
                    if (got[5 * u + j] != want[j])
                        bad = (int)(5 * u) + j;
            }
        ok(st == CVM_OK && bad < 0, "%s: every value from its index (first difference at %d)", what, bad);
    }
    main_module(keep);
}

/* Shared loads whose offsets' parts are multiples of 4 wherever they
 * are written (native_facts.c aligned_slots: the quick paths drop their
 * alignment test) beside one whose pointer is moved by a parameter's
 * bytes: in a 16x16 cube (the halves path: `s[ty][k]` one value in each
 * half, `s[k][tx]` consecutive in each) and a 32x8 one (the whole-plane
 * path), with `off` 0 and 4 (the sums moved one float on) and 2 (a
 * misaligned load: the fault names unit (0,0), plane 0's first lane).
 * Integer inputs: exact sums, expected values by hand. */
static const char salign_src[] =
    "__global__ void salign(float *o, const float *in, int n, int off)\n"
    "{\n"
    "    __shared__ float s[17][32];\n"
    "    int tx = threadIdx.x, ty = threadIdx.y, u = ty * blockDim.x + tx;\n"
    "    s[u / 32][u % 32] = in[u];\n"
    "    s[8 + u / 32][u % 32] = in[256 + u];\n"
    "    if (u < 32) s[16][u] = in[512 + u];\n"
    "    __syncthreads();\n"
    "    const float *p = (const float *)((const char *)&s[0][0] + off);\n"
    "    float a = 0.0f, b = 0.0f, c = 0.0f;\n"
    "    for (int k = 0; k < n; k++) {\n"
    "        a += s[ty][k];\n"
    "        b += s[k][tx];\n"
    "        c += p[k * 32 + tx];\n"
    "    }\n"
    "    o[3 * u] = a; o[3 * u + 1] = b; o[3 * u + 2] = c;\n"
    "}\n";

static void test_shared_aligned(void)
{
    static float in[544];
    for (int i = 0; i < 544; i++)
        in[i] = (float)((i * 29) % 97 - 40);
    static const struct { uint32_t bx, off; } cases[] = {{16, 0}, {16, 4}, {16, 2}, {32, 0}, {32, 4}, {32, 2}};
    cvm_module *keep = mod;
    if (!use_module(salign_src, "salign.cu", true))
        return;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const uint32_t bx = cases[c].bx, by = 256 / bx, n = 16, off = cases[c].off;
        static float got[3 * 256 + 544];
        io bufs[] = {{NULL, sizeof(float) * 3 * 256}, {in, sizeof in}};
        cvm_launch_config cfg = kern_cfg(1, bx);
        cfg.block[1] = by;
        uint32_t sc[2] = {n, off};
        char what[112];
        snprintf(what, sizeof what, "shared loads at offsets of known alignment, %ux%u cube, a pointer %u bytes on",
                 bx, by, off);
        cvm_diag d;
        cvm_status st;
        if (!both_n(what, "salign", &cfg, bufs, 2, sc, 2, (uint8_t *)got, &st, &d))
            continue;
        if (off % 4) {
            ok(st == CVM_FAULT && strstr(d.message, "misaligned") && d.fault.unit[0] == 0 && d.fault.unit[1] == 0,
               "%s: the fault names unit (0,0): %s", what, d.message);
            continue;
        }
        int bad = -1;
        for (uint32_t ty = 0; ty < by; ty++)
            for (uint32_t tx = 0; tx < bx && bad < 0; tx++) {
                const uint32_t u = ty * bx + tx;
                float want[3] = {0, 0, 0};
                for (uint32_t k = 0; k < n; k++) {
                    want[0] += in[ty * 32 + k];
                    want[1] += in[k * 32 + tx];
                    want[2] += in[k * 32 + tx + off / 4];
                }
                for (int j = 0; j < 3; j++)
                    if (got[3 * u + j] != want[j])
                        bad = (int)(3 * u) + j;
            }
        ok(st == CVM_OK && bad < 0, "%s: every value from its index (first difference at %d)", what, bad);
    }
    main_module(keep);
}

/* Writes outside every construct after some lanes returned, in a cube
 * whose second plane is partly missing (jit/native.h reg_set: no merge
 * with the lanes not active there): 32- and 64-bit values made after the
 * exit cross a barrier and a loop, are read back under if/else (where
 * the merge is needed: each branch writes its lanes only), and a
 * shuffle reads another value of the neighbours among the active lanes
 * (a register a plane op reads still merges). n = 42 of a 48-unit
 * cube: plane 1 has 10 active lanes, 6 exited and 16 missing; n = 48
 * and 20 (plane 1 all exited). Expected values in C. */
static const char topw_src[] =
    "__global__ void topw(int *o, const int *in, int n)\n"
    "{\n"
    "    __shared__ int s[64];\n"
    "    int t = threadIdx.x;\n"
    "    if (t >= n) return;\n"
    "    int a = in[t] * 3 + t;\n"
    "    long b = (long)a * 7 - t;\n"
    "    s[t] = a;\n"
    "    __syncthreads();\n"
    "    int x;\n"
    "    if (t & 1) {\n"
    "        x = a;\n"
    "        for (int k = 1; k < 3; k++) x += s[(t + k) % n];\n"
    "    } else {\n"
    "        x = (int)b - s[t / 2];\n"
    "    }\n"
    "    for (int k = 0; k < 3; k++) x += (int)(b >> k) ^ k;\n"
    "    int c = a * 5 - t;\n"
    "    int y = __shfl_xor_sync(0xffffffffu, c, 1);\n"
    "    o[t] = x + y + a;\n"
    "}\n";

static int topw_x(const int *in, int n, int t)
{
    const int a = in[t] * 3 + t;
    const long b = (long)a * 7 - t;
    int x = (int)b - (in[t / 2] * 3 + t / 2);
    if (t & 1) {
        x = a;
        for (int k = 1; k < 3; k++)
            x += in[(t + k) % n] * 3 + (t + k) % n;
    }
    for (int k = 0; k < 3; k++)
        x += (int)(b >> k) ^ k;
    return x;
}

static void test_top_writes(void)
{
    static int in[48];
    for (int i = 0; i < 48; i++)
        in[i] = (i * 13) % 29 - 11;
    static const uint32_t ns[] = {42, 48, 20};
    cvm_module *keep = mod;
    if (!use_module(topw_src, "topw.cu", true))
        return;
    for (size_t c = 0; c < sizeof ns / sizeof ns[0]; c++) {
        const int n = (int)ns[c];
        static int got[48 + 48];
        io bufs[] = {{NULL, sizeof(int) * 48}, {in, sizeof in}};
        cvm_launch_config cfg = kern_cfg(1, 48);
        char what[96];
        snprintf(what, sizeof what, "writes outside constructs after %d of 48 units stayed", n);
        cvm_diag d;
        cvm_status st;
        uint32_t sc = (uint32_t)n;
        if (!both(what, "topw", &cfg, bufs, 2, &sc, (uint8_t *)got, &st, &d))
            continue;
        int bad = -1;
        for (int t = 0; t < 48 && bad < 0; t++) {
            const int u = t ^ 1, cu = (in[u] * 3 + u) * 5 - u;
            const int want = t < n ? topw_x(in, n, t) + cu + in[t] * 3 + t : 0;
            if (got[t] != want)
                bad = t;
        }
        ok(st == CVM_OK && bad < 0, "%s: every unit's value (first difference at unit %d)", what, bad);
    }
    main_module(keep);
}

/* Shared accesses whose full planes have neither of shared_split's forms
 * (native_mem.c: the general path then goes straight to its per-lane
 * test): a 32x8 cube reads a 32x33 tile down its columns (lanes 33
 * floats apart, transpose's read) in a loop, beside a partly active
 * read, then stores a column of the tile per plane the same way; and a
 * column read one row on, whose last lane is past the tile (a fault in
 * unit (31, 0), plane 0's last lane). Integer inputs: exact sums,
 * expected values by hand from the indexes. */
static const char scol_src[] =
    "__global__ void scol(float *o, const float *in, int n, int off)\n"
    "{\n"
    "    __shared__ float s[32][33];\n"
    "    int tx = threadIdx.x, ty = threadIdx.y, u = ty * 32 + tx;\n"
    "    for (int j = 0; j < 32; j += 8) s[ty + j][tx] = in[(ty + j) * 32 + tx];\n"
    "    __syncthreads();\n"
    "    float a = 0.0f, b = 0.0f;\n"
    "    for (int k = 0; k < n; k++) {\n"
    "        a += s[tx + off][(ty + k) % 32];\n"
    "        if (tx != 5) b += s[tx][ty + k % 8];\n"
    "    }\n"
    "    __syncthreads();\n"
    "    s[tx][ty] = a + b;\n"
    "    __syncthreads();\n"
    "    o[3 * u] = a; o[3 * u + 1] = b; o[3 * u + 2] = s[ty][tx];\n"
    "}\n";

static void test_shared_columns(void)
{
    static float in[1024];
    for (int i = 0; i < 1024; i++)
        in[i] = (float)((i * 37) % 101 - 50);
    static const struct { uint32_t n, off; } cases[] = {{32, 0}, {5, 0}, {3, 1}};
    cvm_module *keep = mod;
    if (!use_module(scol_src, "scol.cu", true))
        return;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const uint32_t n = cases[c].n, off = cases[c].off;
        static float got[3 * 256 + 1024]; /* both_n reads every buffer back: the output, then the input */
        io bufs[] = {{NULL, sizeof(float) * 3 * 256}, {in, sizeof in}};
        cvm_launch_config cfg = kern_cfg(1, 32);
        cfg.block[1] = 8;
        uint32_t sc[2] = {n, off};
        char what[96];
        snprintf(what, sizeof what, "shared columns 33 floats apart, %u rounds, %u rows on", n, off);
        cvm_diag d;
        cvm_status st;
        if (!both_n(what, "scol", &cfg, bufs, 2, sc, 2, (uint8_t *)got, &st, &d))
            continue;
        if (off) {
            ok(st == CVM_FAULT && strstr(d.message, "out-of-bounds shared load") && d.fault.unit[0] == 31 &&
                   d.fault.unit[1] == 0,
               "%s: the fault names unit (31,0): %s", what, d.message);
            continue;
        }
        float a[256], b[256];
        for (uint32_t u = 0; u < 256; u++) {
            const uint32_t tx = u % 32, ty = u / 32;
            a[u] = b[u] = 0.0f;
            for (uint32_t k = 0; k < n; k++) {
                a[u] += in[tx * 32 + (ty + k) % 32];
                b[u] += tx != 5 ? in[tx * 32 + ty + k % 8] : 0.0f;
            }
        }
        int bad = -1;
        for (uint32_t u = 0; u < 256 && bad < 0; u++) {
            const uint32_t tx = u % 32, ty = u / 32;
            /* s[ty][tx]: unit (ty, tx)'s a + b where it stored (tx < 8), else the input */
            const float tile = tx < 8 ? a[tx * 32 + ty] + b[tx * 32 + ty] : in[ty * 32 + tx];
            if (got[3 * u] != a[u] || got[3 * u + 1] != b[u] || got[3 * u + 2] != tile)
                bad = (int)u;
        }
        ok(st == CVM_OK && bad < 0, "%s: every value from its index (first difference at unit %d)", what, bad);
    }
    main_module(keep);
}

/* Shared accesses whose lanes lie a constant step apart, more than one
 * element (native_mem.c strided_access: a scalar access per lane at
 * constant distances, the step guessed from the code and tested on the
 * lanes): columns of doubles (72 bytes apart), shorts (10, through a
 * pointer one row on plus a negative offset) and bytes (7), read in a
 * loop and stored by full planes of a 32x8 cube; the same kernel in a
 * 16x16 cube, whose planes are two half rows (the guess fails its test,
 * the per-lane path takes them) and whose stores leave half a plane
 * out; and the bytes a row on, where plane 0's last lane reads past the
 * shared memory (c is its end: a fault in unit (31,0)). Integer values:
 * exact; expected values by hand from the indexes. */
static const char ssteps_src[] =
    "__global__ void ssteps(int *o, const int *in, int n, int off)\n"
    "{\n"
    "    __shared__ double d[32][9];\n"
    "    __shared__ short h[32][5];\n"
    "    __shared__ unsigned char c[32][7];\n"
    "    int tx = threadIdx.x, ty = threadIdx.y, u = ty * blockDim.x + tx;\n"
    "    for (int i = u; i < 32 * 9; i += 256) {\n"
    "        d[i / 9][i % 9] = (double)in[i % 256];\n"
    "        if (i < 32 * 5) h[i / 5][i % 5] = (short)(in[i] * 3);\n"
    "        if (i < 32 * 7) c[i / 7][i % 7] = (unsigned char)(in[i] + 100);\n"
    "    }\n"
    "    __syncthreads();\n"
    "    const short *row = &h[tx + 1][0];\n"
    "    int a = 0;\n"
    "    for (int k = 0; k < n; k++) {\n"
    "        a += (int)d[tx][k % 9];\n"
    "        a += row[(ty + k) % 5 - 5] * 10;\n"
    "        a += c[tx + off][k % 7] * 1000;\n"
    "    }\n"
    "    __syncthreads();\n"
    "    if (ty < 5) h[tx][ty] = (short)(u - 100);\n"
    "    if (ty == 2) { d[tx][8] = (double)u; c[tx][6] = (unsigned char)u; }\n"
    "    __syncthreads();\n"
    "    int r = u % 32;\n"
    "    o[4 * u] = a; o[4 * u + 1] = h[r][u / 32 % 5]; o[4 * u + 2] = (int)d[r][8]; o[4 * u + 3] = c[r][6];\n"
    "}\n";

static void test_shared_steps(void)
{
    static int32_t in[256];
    for (int i = 0; i < 256; i++)
        in[i] = (i * 37) % 101 - 50;
    static const struct { uint32_t bx, n, off; } cases[] = {{32, 32, 0}, {32, 3, 0}, {16, 32, 0}, {16, 7, 1}, {32, 3, 1}};
    cvm_module *keep = mod;
    if (!use_module(ssteps_src, "ssteps.cu", true))
        return;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const uint32_t bx = cases[c].bx, by = 256 / bx, n = cases[c].n, off = cases[c].off;
        static int32_t got[4 * 256 + 256];
        io bufs[] = {{NULL, sizeof(int32_t) * 4 * 256}, {in, sizeof in}};
        cvm_launch_config cfg = kern_cfg(1, bx);
        cfg.block[1] = by;
        char what[96];
        snprintf(what, sizeof what, "shared columns of doubles, shorts and bytes, %ux%u cube, %u rounds, %u on", bx, by, n,
                 off);
        cvm_diag d;
        cvm_status st;
        const uint32_t sc[2] = {n, off};
        if (!both_n(what, "ssteps", &cfg, bufs, 2, sc, 2, (uint8_t *)got, &st, &d))
            continue;
        if (off && bx == 32) {
            ok(st == CVM_FAULT && strstr(d.message, "out-of-bounds shared load") && d.fault.unit[0] == 31 &&
                   d.fault.unit[1] == 0,
               "%s: the fault names unit (31,0): %s", what, d.message);
            continue;
        }
        int bad = -1;
        for (uint32_t u = 0; u < 256 && bad < 0; u++) {
            const uint32_t tx = u % bx, ty = u / bx, r = u % 32, col = u / 32 % 5;
            int32_t want[4] = {0, 0, 0, 0};
            for (uint32_t k = 0; k < n; k++)
                want[0] += in[(tx * 9 + k % 9) % 256] + in[tx * 5 + (ty + k) % 5] * 3 * 10 +
                           (uint8_t)(in[(tx + off) * 7 + k % 7] + 100) * 1000;
            want[1] = r < bx ? (int32_t)(col * bx + r) - 100 : in[r * 5 + col] * 3;
            want[2] = r < bx ? (int32_t)(2 * bx + r) : in[(r * 9 + 8) % 256];
            want[3] = r < bx ? (uint8_t)(2 * bx + r) : (uint8_t)(in[r * 7 + 6] + 100);
            for (int j = 0; j < 4; j++)
                if (got[4 * u + j] != want[j])
                    bad = (int)(4 * u) + j;
        }
        ok(st == CVM_OK && bad < 0, "%s: every value from its index (first difference at %d)", what, bad);
    }
    main_module(keep);
}

static void test_faults(void)
{
    uint32_t n = 3;
    float got[32];
    io bufs[] = {{NULL, sizeof got}};
    cvm_launch_config cfg = kern_cfg(1, 32);
    cvm_diag d;
    cvm_status st;
    both("out of bounds store", "oob", &cfg, bufs, 1, &n, (uint8_t *)got, &st, &d);
    ok(st == CVM_FAULT && strstr(d.message, "out-of-bounds store") && d.fault.unit[0] == 29,
       "the fault names unit 29, the first lane past the buffer: %s", d.message);
    /* four planes a cube: 0 and 1 finish, and the call goes on with 2
     * (chain), whose lane 16 stores past the buffer */
    float big[80];
    io wide[] = {{NULL, sizeof big}};
    cvm_launch_config four = kern_cfg(1, 128);
    n = 0;
    both("a later plane's store out of bounds", "oob", &four, wide, 1, &n, (uint8_t *)big, &st, &d);
    ok(st == CVM_FAULT && strstr(d.message, "out-of-bounds store") && d.fault.unit[0] == 80,
       "the fault names unit 80, in the third plane: %s", d.message);
}

/* Accesses a[i] with an int i (the frontend's cvt, mul by the size,
 * ptr.add of the buffer): the quick path tests i's lanes instead of the
 * 64-bit addresses; consecutive i with lanes off, a permutation (j), an
 * unsigned index that wraps within a plane, and indexes past INT_MAX. */
static void test_indexes(void)
{
    enum { N = 1000 };
    static float a[N];
    for (int i = 0; i < N; i++)
        a[i] = (float)((i * 37) % 101) - 50.0f;
    static const uint32_t blocks[] = {256, 96};
    static const uint32_t widths[] = {32, 16};
    for (int c = 0; c < 2; c++) {
        uint32_t n = N;
        float got[N + N];
        io bufs[] = {{NULL, sizeof(float) * N}, {a, sizeof a}};
        cvm_launch_config cfg = kern_cfg((N + blocks[c] - 1) / blocks[c], blocks[c]);
        cfg.plane_width = widths[c];
        char what[96];
        snprintf(what, sizeof what, "int, permuted and unsigned indexes, block %u, width %u", blocks[c],
                 widths[c]);
        cvm_diag d;
        if (!both(what, "idx", &cfg, bufs, 2, &n, (uint8_t *)got, NULL, &d))
            continue;
        int bad = -1;
        for (int i = 0; i < N && bad < 0; i++) {
            float want = 0.0f;
            if (i % 3 != 1)
                want = a[i] + 2.0f * a[(i * 7) % N] + 4.0f * a[((uint32_t)i - 5u) % N];
            if (got[i] != want)
                bad = i;
        }
        ok(bad < 0, "%s: matches C (first difference at %d)", what, bad);
    }
    /* a[n + t] past INT_MAX: lanes 0-19 read far out of bounds, lanes 20-31
     * wrap to negative indexes; and a[-10 + t], lanes 0-9 before the buffer */
    static const uint32_t bases[] = {2147483647u - 19u, (uint32_t)-10};
    for (int c = 0; c < 2; c++) {
        uint32_t n = bases[c];
        float got[32 + N];
        io bufs[] = {{NULL, sizeof(float) * 32}, {a, sizeof a}};
        cvm_launch_config cfg = kern_cfg(1, 32);
        cvm_diag d;
        cvm_status st;
        both(c ? "negative indexes" : "indexes that wrap past INT_MAX", "wrap", &cfg, bufs, 2, &n,
             (uint8_t *)got, &st, &d);
        ok(st == CVM_FAULT && strstr(d.message, "out-of-bounds load") && d.fault.unit[0] == 0,
           "the fault names unit 0: %s", d.message);
    }
}

/* A launch of 32 units each reading a[first + t] (the sum of `scale`
 * such reads): the fault at unit `fault` (>= 0), or got[t] the value. */
static void window_read(const char *what, cvm_status st, const cvm_diag *d, const float *got, const float *a,
                        long first, float scale, int fault)
{
    if (fault >= 0) {
        ok(st == CVM_FAULT && strstr(d->message, "out-of-bounds load") && d->fault.unit[0] == (uint32_t)fault,
           "%s: the fault names unit %d: %s", what, fault, d->message);
        return;
    }
    int bad = -1;
    for (int t = 0; t < 32 && bad < 0; t++)
        if (got[t] != scale * a[first + t])
            bad = t;
    ok(st == CVM_OK && bad < 0, "%s: unit t reads a[%ld + t] (first difference at %d)", what, first, bad);
}

/* A full plane whose index is a known consecutive form (native_mem.c
 * full_plane: one compare of lane 0's index with the count of first
 * indexes that fit; a versioned loop's index) at the buffer's edges:
 * int, unsigned and 64-bit indexes n + t over a[0..999], t = 0..31, each
 * read three times. By hand: n = 968 reads a[968..999]; n = 969 faults
 * at unit 31; n = -1 at unit 0 (an unsigned n = 2^32 - 1 has lane 0 at
 * 2^32 - 1, past the end, and lane 1 wrapping to 0). */
static void test_full_plane_edges(void)
{
    enum { N = 1000 };
    static float a[N];
    for (int i = 0; i < N; i++)
        a[i] = (float)((i * 29) % 97) + 0.25f;
    static const struct {
        int32_t n;
        int fault; /* unit, or -1 */
    } cases[] = {{968, -1}, {969, 31}, {-1, 0}, {0, -1}};
    static const char *kinds[] = {"int", "unsigned", "64-bit"};
    for (uint32_t k = 0; k < 3; k++)
        for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            float got[32 + N];
            io bufs[] = {{NULL, sizeof(float) * 32}, {a, sizeof a}};
            cvm_launch_config cfg = kern_cfg(1, 32);
            const uint32_t scal[3] = {(uint32_t)cases[c].n, k, 0};
            char what[80];
            snprintf(what, sizeof what, "a full plane's %s index n + t, n = %d", kinds[k], cases[c].n);
            cvm_diag d;
            cvm_status st;
            if (!both_n(what, "edge", &cfg, bufs, 2, scal, 3, (uint8_t *)got, &st, &d))
                continue;
            window_read(what, st, &d, got, a, cases[c].n, 3.0f, cases[c].fault);
        }
}

/* a[i] with a 64-bit i (pooling's address): the quick path tests i's
 * lanes against the range of indexes the buffer allows from the pointer,
 * a launch constant (a) or a pointer moved into the buffer (q = a + 100)
 * or to its end (q = a + 1000). Each case's first element and the unit
 * that faults, if one does, by hand: a[980 + t] faults from t = 20, a[-5
 * + t] at t = 0, a[2^62 + t] is a[t] (the address wraps modulo 2^64, as
 * in the interpreter), a[2^63 - 11 + t] faults at t = 0; q[-31 + t] at
 * t = 31; one element past either end: a[969 + t] at t = 31, a[-1 + t]
 * at t = 0. */
static void test_wide_indexes(void)
{
    enum { N = 1000 };
    static float a[N];
    for (int i = 0; i < N; i++)
        a[i] = (float)((i * 53) % 211) + 0.5f;
    static const struct {
        long first;
        int fault; /* unit, or -1 */
    } cases[] = {{0, -1}, {980, 20}, {-5, 0}, {0, -1}, {0, 0}, {50, -1}, {N - 32, -1}, {0, 31}, {0, 31}, {0, 0}};
    for (uint32_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        float got[32 + N];
        io bufs[] = {{NULL, sizeof(float) * 32}, {a, sizeof a}};
        cvm_launch_config cfg = kern_cfg(1, 32);
        char what[64];
        snprintf(what, sizeof what, "64-bit indexes, case %u", c);
        cvm_diag d;
        cvm_status st;
        if (!both(what, "widx", &cfg, bufs, 2, &c, (uint8_t *)got, &st, &d))
            continue;
        window_read(what, st, &d, got, a, cases[c].first, 1.0f, cases[c].fault);
    }
}

/* Loop versioning (native.c version_loop): pooling's split of a linear
 * index, whose coordinates are one value per plane and whose channel is
 * consecutive when c is a multiple of the plane width (the versioned
 * copy), and not otherwise (c = 24, 16: the general copy). */
static void test_versioned(void)
{
    enum { MAXC = 64 };
    static float in[36 * MAXC];
    for (int i = 0; i < 36 * MAXC; i++)
        in[i] = (float)((i * 37) % 101) - 50.0f;
    static const uint32_t cs[] = {32, 64, 24, 16, 33};
    for (unsigned c = 0; c < sizeof cs / sizeof cs[0]; c++) {
        const uint32_t C = cs[c], total = 36 * C;
        static float got[36 * MAXC + 36 * MAXC];
        io bufs[] = {{NULL, sizeof(float) * total}, {in, sizeof(float) * total}};
        cvm_launch_config cfg = kern_cfg((total + 63) / 64, 64);
        char what[64];
        snprintf(what, sizeof what, "versioned pooling, c = %u", C);
        cvm_diag d;
        if (!both(what, "vpool", &cfg, bufs, 2, &C, (uint8_t *)got, NULL, &d))
            continue;
        int bad = -1;
        for (uint32_t i = 0; i < total && bad < 0; i++) {
            const int ch = (int)(i % C), ox = (int)(i / C % 6), oy = (int)(i / C / 6);
            float m = -1e30f;
            for (int y = oy - 1; y <= oy + 1; y++)
                for (int x = ox - 1; x <= ox + 1; x++)
                    if (y >= 0 && y < 6 && x >= 0 && x < 6 && in[(y * 6 + x) * (int)C + ch] > m)
                        m = in[(y * 6 + x) * (int)C + ch];
            if (got[i] != m)
                bad = (int)i;
        }
        ok(bad < 0, "%s: each unit has its 3x3 window's maximum (first difference at %d)", what, bad);
    }
}

/* vdeopt's result for unit t, in C. */
static int deopt_ref(int t, int n)
{
    int acc = 0, k = 0, u = t < 16 ? 7 : t;
    if (t < 16)
        while (k < n) {
            acc += k * u + 1;
            k += (k >= 5 && (t & 1)) ? 2 : 1;
        }
    return (int)((unsigned)acc * 1000u + (unsigned)u + (unsigned)k); /* the kernel's int arithmetic wraps */
}

/* A versioned loop whose counter is one value at its entry and stops
 * being one after five rounds (n > 6: the copy's head test fails and the
 * plane goes on in the general copy), or stays one (n <= 5), or runs past
 * a back-edge quantum (n = 2500: the plane yields in the versioned copy
 * and resumes in the general one); u is one value in the loop's lanes and
 * not in the others, which must keep theirs. Then barriers inside a loop
 * whose registers would pass the test (such a loop is not versioned: its
 * plane would resume in the general copy after the first round), and
 * values forwarded across if/else. */
static void test_deopt(void)
{
    static const uint32_t ns[] = {0, 3, 5, 6, 7, 40, 2500};
    for (unsigned c = 0; c < sizeof ns / sizeof ns[0]; c++) {
        int got[32];
        io bufs[] = {{NULL, sizeof got}};
        cvm_launch_config cfg = kern_cfg(1, 32);
        char what[64];
        snprintf(what, sizeof what, "a counter that diverges, n = %u", ns[c]);
        cvm_diag d;
        if (!both(what, "vdeopt", &cfg, bufs, 1, &ns[c], (uint8_t *)got, NULL, &d))
            continue;
        int bad = -1;
        for (int t = 0; t < 32 && bad < 0; t++)
            if (got[t] != deopt_ref(t, (int)ns[c]))
                bad = t;
        ok(bad < 0, "%s: every unit's sum, u and k as in C (first difference at %d)", what, bad);
    }
    {
        const uint32_t n = 5;
        int got[3 * 64];
        io bufs[] = {{NULL, sizeof got}};
        cvm_launch_config cfg = kern_cfg(3, 64);
        cvm_diag d;
        if (both("barriers in a loop of one-value registers", "vbar", &cfg, bufs, 1, &n, (uint8_t *)got, NULL, &d)) {
            int bad = -1;
            for (int b = 0; b < 3; b++)
                for (int t = 0; t < 64 && bad < 0; t++) {
                    int want = 0;
                    for (int k = 0; k < (int)n; k++)
                        want += b * 7 + k + ((t + 1) & 63);
                    if (got[b * 64 + t] != want)
                        bad = b * 64 + t;
                }
            ok(bad < 0, "barriers in a loop of one-value registers: each unit's sum of its neighbour's values (first difference at %d)", bad);
        }
    }
    for (uint32_t sel = 0; sel < 3; sel++) {
        int got[32];
        io bufs[] = {{NULL, sizeof got}};
        cvm_launch_config cfg = kern_cfg(1, 32);
        char what[64];
        snprintf(what, sizeof what, "values forwarded across if/else, sel = %u", sel);
        cvm_diag d;
        if (!both(what, "vfwd", &cfg, bufs, 1, &sel, (uint8_t *)got, NULL, &d))
            continue;
        int bad = -1;
        for (int t = 0; t < 32 && bad < 0; t++) {
            int x = (int)sel * 3, y = t;
            if (t & 1)
                x = t;
            else
                y = (int)sel;
            int z = x + y;
            if (t < 10)
                z *= 2;
            if (got[t] != z + x)
                bad = t;
        }
        ok(bad < 0, "%s: as in C (first difference at %d)", what, bad);
    }
}

/* Registers born after barriers: carry is first touched after a barrier
 * inside the loop and read in the next round (the resume point there must
 * restore it); w is first written after the last barrier, in odd lanes
 * only, and its even lanes, read across lanes, must be zero. */
static const char born_src[] =
    ".kernel born\n"
    ".param o buffer i32 readwrite\n"
    ".param n scalar i32\n"
    ".shared 256\n"
    ".reg ptr.global %g\n"
    ".reg i32 %n, %t, %r, %acc, %carry, %late, %w, %v, %x, %y, %one, %zero, %two, %three, %five, %k63, %seven, %thou, %tr\n"
    ".reg u32 %ut, %full, %uone\n"
    ".reg i64 %off, %four\n"
    ".reg ptr.shared %base, %ps, %pq\n"
    ".reg bool %stop, %q, %odd\n"
    "    param.ptr.global %g, o, 0\n"
    "    param.i32 %n, n, 0\n"
    "    sreg.u32 %ut, unit_pos.x\n"
    "    cvt.i32 %t, %ut\n"
    "    const.i32 %one, 1\n"
    "    const.i32 %zero, 0\n"
    "    const.i32 %two, 2\n"
    "    const.i32 %three, 3\n"
    "    const.i32 %five, 5\n"
    "    const.i32 %k63, 63\n"
    "    const.i32 %seven, 7\n"
    "    const.i32 %thou, 1000\n"
    "    const.i64 %four, 4\n"
    "    const.ptr.shared %base, 0x0\n"
    "    cvt.i64 %off, %t\n"
    "    mul.i64 %off, %off, %four\n"
    "    ptr.add.ptr.shared %ps, %base, %off\n"
    "    add.i32 %x, %t, %five\n"
    "    and.i32 %x, %x, %k63\n"
    "    cvt.i64 %off, %x\n"
    "    mul.i64 %off, %off, %four\n"
    "    ptr.add.ptr.shared %pq, %base, %off\n"
    "    const.i32 %r, 0\n"
    "    const.i32 %acc, 0\n"
    "    loop\n"
    "        ge.i32 %stop, %r, %n\n"
    "        if %stop\n"
    "            break\n"
    "        end\n"
    "        mul.i32 %tr, %t, %three\n"
    "        add.i32 %tr, %tr, %r\n"
    "        st.i32 [%ps], %tr\n"
    "        sync_cube\n"
    "        ne.i32 %q, %r, %zero\n"
    "        if %q\n"
    "            add.i32 %acc, %acc, %carry\n"
    "        end\n"
    "        ld.i32 %v, [%pq]\n"
    "        mul.i32 %carry, %v, %two\n"
    "        add.i32 %carry, %carry, %r\n"
    "        sync_cube\n"
    "    continuing\n"
    "        add.i32 %r, %r, %one\n"
    "    end\n"
    "    mul.i32 %late, %acc, %three\n"
    "    add.i32 %late, %late, %carry\n"
    "    sync_cube\n"
    "    and.i32 %x, %t, %one\n"
    "    ne.i32 %odd, %x, %zero\n"
    "    if %odd\n"
    "        mul.i32 %w, %t, %seven\n"
    "    end\n"
    "    const.u32 %full, 4294967295\n"
    "    const.u32 %uone, 1\n"
    "    shfl.xor.i32 %x, %w, %uone, %full\n"
    "    shfl.xor.i32 %y, %late, %uone, %full\n"
    "    mul.i32 %x, %x, %thou\n"
    "    add.i32 %y, %y, %late\n"
    "    add.i32 %y, %y, %x\n"
    "    cvt.i64 %off, %t\n"
    "    mul.i64 %off, %off, %four\n"
    "    ptr.add.ptr.global %g, %g, %off\n"
    "    st.i32 [%g], %y\n"
    "    return\n"
    ".end\n";

/* born's result for unit t of 64 after n rounds, in C. */
static int born_ref(int t, int n)
{
    int acc = 0, carry = 0;
    for (int r = 0; r < n; r++) {
        if (r > 0)
            acc += carry;
        carry = (((t + 5) & 63) * 3 + r) * 2 + r;
    }
    const int u = t ^ 1, cu = n ? ((((u + 5) & 63) * 3 + n - 1) * 2 + n - 1) : 0;
    int acc_u = 0;
    for (int r = 1; r < n; r++)
        acc_u += (((u + 5) & 63) * 3 + r - 1) * 2 + r - 1;
    const int late = acc * 3 + carry, late_u = acc_u * 3 + cu;
    return late + late_u + 1000 * ((u & 1) ? u * 7 : 0);
}

/* Registers a barrier's resume point restores, and those it makes zero
 * (not yet touched: jit/native.c unborn_at), against C and the
 * interpreter: n = 0 (no round), 1, 4; two planes. */
static void test_unborn(void)
{
    cvm_diag d;
    cvm_module *keep = mod;
    if (!use_module(born_src, "born.cbs", false))
        return;
    for (uint32_t n = 0; n <= 4; n += n ? 3 : 1) {
        int got[64];
        io bufs[] = {{NULL, sizeof got}};
        cvm_launch_config cfg = kern_cfg(1, 64);
        char what[80];
        snprintf(what, sizeof what, "registers born after barriers, n = %u", n);
        if (!both(what, "born", &cfg, bufs, 1, &n, (uint8_t *)got, NULL, &d))
            continue;
        int bad = -1;
        for (int t = 0; t < 64 && bad < 0; t++)
            if (got[t] != born_ref(t, (int)n))
                bad = t;
        ok(bad < 0, "%s: as in C (first difference at %d)", what, bad);
    }
    main_module(keep);
}

/* vind's result for unit t (cubes of 64), in C. */
static int ind_ref(const int *in, int t, int sel)
{
    int acc = 0, j2 = t, j3 = t;
    for (int j = t; j < 256; j += 64)
        acc += in[j];
    for (int r = 1; r <= 6; r++)
        if (((t + r) & 3) != sel)
            j2 += 32, acc += in[j2] * 3 + (j2 + 1) * 11;
    for (int k = 0; k < 5; k++) {
        acc += in[j3] * 7 + (j3 + 1) * 5;
        j3 += t < sel * 8 ? 1 : 2;
    }
    return acc + j2 * 1000 + j3 * 100000;
}

/* vind2's result for unit t, in C. */
static int ind2_ref(const int *in, int t, int sel)
{
    int acc = 0;
    for (int j = t; j < 256; j += 64) {
        if (((j >> 6) & 3) == sel)
            continue;
        for (int k = j; k < j + 3; k++)
            acc += in[k & 255] + (k + 7) * 3;
        if (acc > 1000000)
            break;
        acc += (j + 1) * 5;
    }
    return acc;
}

/* vlazy's result for unit t, in C. */
static int lazy_ref(const int *in, int t, int sel)
{
    int acc = 0, z = 0, w = 0;
    for (int j = t; j < 64 * (sel < 2 ? 1500 : 300); acc += z, j += 64) {
        int x = j * 3 + sel;
        w = x ^ 5;
        if (j % 7 == sel)
            continue;
        z = __builtin_popcount((unsigned)x) + (x & 7);
        int y = (j >> 6) + sel;
        if (t & 1)
            acc += in[(j + z) & 255] + y;
        else
            acc -= z + j % 5 + y * 3;
        if ((j >> 6) % 3 == sel)
            acc += __builtin_popcount((unsigned)y);
        acc += y & 3;
    }
    return acc + w;
}

/* Registers a loop writes, versioned where they keep their form from
 * round to round (jit/native.c induct): a grid-stride index (consecutive
 * plus one value: no test each round), one that other lanes skip after a
 * `continue` each round and one written by an if and its else (neither
 * keeps it: j + 1 must not be made from a carried scalar). Against C and
 * the interpreter, with sel moving which lanes skip. */
/* One launch of kernel (two cubes of 64 over `in`, scalar sel) against
 * ref's value for each unit, and the interpreter. */
static void ind_case(const char *kernel, const char *label, int (*ref)(const int *, int, int),
                     int *in, uint32_t sel)
{
    int got[2 * 64 + 256]; /* o, then in as the launch left it */
    io bufs[] = {{NULL, 2 * 64 * sizeof(int)}, {in, 256 * sizeof(int)}};
    cvm_launch_config cfg = kern_cfg(2, 64);
    char what[80];
    snprintf(what, sizeof what, "%s, sel = %u", label, sel);
    cvm_diag d;
    if (!both(what, kernel, &cfg, bufs, 2, &sel, (uint8_t *)got, NULL, &d))
        return;
    int bad = -1;
    for (int u = 0; u < 128 && bad < 0; u++)
        if (got[u] != ref(in, u & 63, (int)sel))
            bad = u;
    ok(bad < 0, "%s: as in C (first difference at %d)", what, bad);
}

static void test_inductive(void)
{
    int in[256];
    for (int i = 0; i < 256; i++)
        in[i] = (i * 37 + 11) % 101 - 50;
    for (uint32_t sel = 0; sel < 4; sel++)
        ind_case("vind", "indexes a loop writes", ind_ref, in, sel);
    /* an inductive index with a `continue` before its step (the step in
     * the continuing part: every lane still in the loop takes it), an
     * inductive counter of an inner loop started from it, a break */
    for (uint32_t sel = 0; sel < 5; sel += 2)
        ind_case("vind2", "nested inductive loops", ind2_ref, in, sel);
    /* lazy registers (native_loop.c cvm_nat_lazy): x and y, written
     * first each round (y one value, x not), read through the interpreter
     * (popc: at the top level, and in an if that whole planes skip in
     * some rounds, read again after it) and on both sides of an if; and
     * z, written after a `continue` and read in the continuing part,
     * where the lanes that skipped its write read the value of an earlier
     * round (so z is not lazy), and w, written first but read after the
     * loop (not lazy either). No register is tested each round; with
     * sel < 2, 1500 rounds: the plane yields at the head of the 1001st,
     * with x and y behind in its allocas, and resumes in the general
     * copy; else 300, all in the versioned copy. */
    for (uint32_t sel = 0; sel < 4; sel++)
        ind_case("vlazy", "registers a versioned loop leaves behind", lazy_ref, in, sel);
}

/* settle's result for unit t (cubes of 64), in C. */
static int settle_ref(const int *in, int t, int sel)
{
    const int a = in[t] * 3 + t, b = (t & 3) == sel ? in[(t * 5) & 255] + 7 : 0, u = (t + 1) & 63;
    int acc = 0;
    for (int k = 0; k < 1500; k++)
        acc += (a ^ k) & 15;
    return acc + in[u] * 3 + u + b + a * 7 + b * 3 + (sel * 16 + 3) * 1000;
}

/* Registers written only outside loops and read after barriers are
 * stored to the register file as they are written, and not at each stop
 * (jit/native_facts.c settle): one written once, one written again in some
 * lanes before the first barrier, the count a __syncthreads_count
 * returns (through the interpreter), each read after the barriers and in
 * a loop long enough to yield at its head (1500 rounds, a quantum of
 * 1000) and resume there. */
static void test_settled(void)
{
    int in[256];
    for (int i = 0; i < 256; i++)
        in[i] = (i * 53 + 7) % 97 - 40;
    for (uint32_t sel = 0; sel < 4; sel++)
        ind_case("settle", "registers settled before barriers", settle_ref, in, sel);
}

/* A resume reloads a settled register that is one value in every lane
 * (all its writers at the top level, one value in their lanes) as one
 * element, broadcast (jit/native_facts.c settle's uni_settled): v is such a
 * register; w is written one value at the top level and another, also
 * one value, inside an `if` that some lanes take, so it is not, and each
 * lane must read its own after the barrier (the verifier's register
 * facts already call w varying, so settle's own test of the writers'
 * depth is a second guard this kernel cannot tell apart; marking every
 * settled register uniform fails it). Expected values from C. */
static const char uniset_src[] =
    "__global__ void uniset(int *o, int k)\n"
    "{\n"
    "    __shared__ int s[64];\n"
    "    int t = threadIdx.x;\n"
    "    int v = blockIdx.x + k;\n"
    "    int w = k * 3;\n"
    "    if (t % 3 == 1) {\n"
    "        w = k + 7;\n"
    "        o[128 + blockIdx.x * 64 + t] = w;\n"
    "    }\n"
    "    s[t] = t * 2;\n"
    "    __syncthreads();\n"
    "    o[blockIdx.x * 64 + t] = v * 1000 + w + s[(t + 1) % 64];\n"
    "}\n";

/* A test's own CUDA kernel `name` (in src, named file) run by both tiers
 * (`both`) over cubes of units, into one buffer of size bytes that got
 * then holds; the main module is `mod` again afterwards. */
static int own_kernel(const char *src, const char *file, const char *what, const char *name, uint32_t cubes,
                      uint32_t units, const uint32_t *scal, void *got, size_t size)
{
    cvm_module *keep = mod;
    if (!use_module(src, file, true))
        return 0;
    io bufs[] = {{NULL, size}};
    cvm_launch_config cfg = kern_cfg(cubes, units);
    cvm_diag d;
    const int r = both(what, name, &cfg, bufs, 1, scal, (uint8_t *)got, NULL, &d);
    main_module(keep);
    return r;
}

static void test_uniform_resume(void)
{
    int32_t got[256];
    uint32_t k = 5;
    if (own_kernel(uniset_src, "uniset.cu", "registers one value in every lane, or only in some, across a barrier",
                   "uniset", 2, 64, &k, got, sizeof got)) {
        int bad = -1;
        for (int c = 0; c < 2; c++)
            for (int t = 0; t < 64 && bad < 0; t++) {
                const int w = t % 3 == 1 ? 5 + 7 : 5 * 3, u = c * 64 + t;
                if (got[u] != (c + 5) * 1000 + w + ((t + 1) % 64) * 2 || got[128 + u] != (t % 3 == 1 ? w : 0))
                    bad = u;
            }
        ok(bad < 0, "each lane reads its own value after the barrier (first difference at unit %d)", bad);
    }
}

/* Registers the divergence analysis puts in class PLANE or wider, which the
 * native tier keeps as one scalar (gen's puni): u written in odd cubes
 * only (a cube-uniform branch), pl from a reduction (a plane op) before
 * any lane leaves, a reduction's `step` carried across eight barriers, q
 * and the loop counter written after lanes 0-4 of every plane returned,
 * with a barrier in the loop (so each round resumes there), and pl2 from
 * a reduction over the lanes left, whose lane 0 never holds it, as it
 * never holds the load of ctab[b] (constant memory at a cube-uniform
 * index) in q. Expected values from C. */
static const char puni_src[] =
    "__constant__ int ctab[4] = {11, 22, 33, 44};\n"
    "__global__ void puni(int *o, int k)\n"
    "{\n"
    "    __shared__ int s[128];\n"
    "    int t = threadIdx.x, b = blockIdx.x;\n"
    "    int u = 0;\n"
    "    if (b & 1) u = b * k + 3;\n"
    "    int pl = __reduce_add_sync(0xffffffff, t >> 5);\n"
    "    s[t] = t;\n"
    "    __syncthreads();\n"
    "    for (int step = blockDim.x / 2; step > 0; step >>= 1) {\n"
    "        if (t < step) s[t] += s[t + step];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    int total = s[0];\n"
    "    __syncthreads();\n"
    "    if (t % 32 < 5) return;\n"
    "    int pl2 = __reduce_add_sync(__activemask(), 1);\n"
    "    int q = b * 7 + u + ctab[b];\n"
    "    int acc = 0;\n"
    "    for (int i = 0; i < k + (b & 3); i++) {\n"
    "        acc += i * pl + q + pl2;\n"
    "        __syncthreads();\n"
    "    }\n"
    "    o[b * 128 + t] = total;\n"
    "    o[512 + b * 128 + t] = acc;\n"
    "}\n";

static void test_plane_uniform(void)
{
    int32_t got[1024];
    uint32_t k = 3;
    if (own_kernel(puni_src, "puni.cu", "registers one value per plane, across barriers, loops and returned lanes",
                   "puni", 4, 128, &k, got, sizeof got)) {
        int bad = -1;
        for (int b = 0; b < 4; b++)
            for (int t = 0; t < 128 && bad < 0; t++) {
                const int u = b & 1 ? b * 3 + 3 : 0, pl = 32 * (t >> 5), q = b * 7 + u + 11 * (b + 1);
                int acc = 0;
                for (int i = 0; i < 3 + (b & 3); i++)
                    acc += i * pl + q + 27;
                const int live = t % 32 >= 5, x = b * 128 + t;
                if (got[x] != (live ? 127 * 128 / 2 : 0) || got[512 + x] != (live ? acc : 0))
                    bad = x;
            }
        ok(bad < 0, "each unit's sum and accumulator as in C (first difference at unit %d)", bad);
    }
}

/* Shifts of one value by one value (native_ops.c form_op: one scalar
 * shift, as a reduction's `step >>= 1`): 32- and 64-bit, signed and
 * unsigned, by counts up to and past the width (zero, or the sign's
 * fill, as the interpreter's handlers), written by every unit. Expected
 * values from C, with the count tested as those handlers do. */
static const char ushift_src[] =
    "__global__ void ushift(long long *o, int a, unsigned n)\n"
    "{\n"
    "    long long w = (long long)a * 1000003;\n"
    "    long long *q = o + 6 * threadIdx.x;\n"
    "    q[0] = (unsigned)a << n; q[1] = (unsigned)a >> n; q[2] = a >> n;\n"
    "    q[3] = (long long)((unsigned long long)w << n); q[4] = (long long)((unsigned long long)w >> n); q[5] = w >> n;\n"
    "}\n";

static void test_uniform_shifts(void)
{
    static const int32_t as[] = {-12345, 0x40000001};
    static const uint32_t ns[] = {0, 1, 5, 31, 32, 33, 63, 64, 100, 0xffffffffu};
    cvm_module *keep = mod;
    if (!use_module(ushift_src, "ushift.cu", true))
        return;
    int bad = -1, ran = 0;
    for (size_t i = 0; i < 2; i++)
        for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++) {
            static int64_t got[6 * 64];
            io bufs[] = {{NULL, sizeof got}};
            cvm_launch_config cfg = kern_cfg(1, 64);
            const uint32_t sc[2] = {(uint32_t)as[i], ns[j]}, n = ns[j];
            char what[64];
            snprintf(what, sizeof what, "shifts of one value, %d by %u", as[i], n);
            cvm_diag d;
            cvm_status st;
            if (!both_n(what, "ushift", &cfg, bufs, 1, sc, 2, (uint8_t *)got, &st, &d) || st != CVM_OK)
                continue;
            ran++;
            const uint32_t ua = (uint32_t)as[i];
            const int64_t w = (int64_t)as[i] * 1000003;
            const int64_t want[6] = {
                n >= 32 ? 0 : (int64_t)(uint32_t)(ua << n), n >= 32 ? 0 : (int64_t)(ua >> n),
                n >= 32 ? (as[i] < 0 ? -1 : 0) : (int64_t)(as[i] >> n),
                n >= 64 ? 0 : (int64_t)((uint64_t)w << n), n >= 64 ? 0 : (int64_t)((uint64_t)w >> n),
                n >= 64 ? (w < 0 ? -1 : 0) : w >> n,
            };
            for (int u = 0; u < 64 && bad < 0; u++)
                for (int k = 0; k < 6; k++)
                    if (got[6 * u + k] != want[k])
                        bad = (int)(i * 1000 + j * 10 + k);
        }
    ok(ran == 20 && bad < 0, "every unit's shifts as in C (%d of 20 launches ran; first difference at case %d)", ran,
       bad);
    main_module(keep);
}

/* Registers dead at a barrier: a stop neither stores nor reloads a register
 * written outside every construct before its next read (live_at). y is
 * written so after the reduction loop, x only inside an `if` (the lanes
 * that skip it read the value from before the barriers), z read inside
 * the loop and written after it. Expected values from C. */
static const char kill_src[] =
    "__global__ void kill(int *o)\n"
    "{\n"
    "    __shared__ int s[128];\n"
    "    int t = threadIdx.x, b = blockIdx.x;\n"
    "    int x = t * 3 + b, y = t * 5 + b, z = t + 100 * b;\n"
    "    s[t] = x + y;\n"
    "    __syncthreads();\n"
    "    for (int step = blockDim.x / 2; step > 0; step >>= 1) {\n"
    "        if (t < step) s[t] += s[t + step] + (z & 1);\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (t & 1) x = s[0];\n"
    "    y = s[0] - t;\n"
    "    z = z * 2 + s[0];\n"
    "    o[b * 128 + t] = x;\n"
    "    o[256 + b * 128 + t] = y;\n"
    "    o[512 + b * 128 + t] = z;\n"
    "}\n";

static void test_dead_at_stop(void)
{
    int32_t got[768];
    if (own_kernel(kill_src, "kill.cu", "registers written again after the barriers they cross", "kill", 2, 128, NULL,
                   got, sizeof got)) {
        int bad = -1;
        for (int b = 0; b < 2 && bad < 0; b++) {
            int s[128];
            for (int t = 0; t < 128; t++)
                s[t] = t * 8 + 2 * b;
            for (int step = 64; step > 0; step >>= 1)
                for (int t = 0; t < step; t++)
                    s[t] += s[t + step] + ((t + 100 * b) & 1);
            for (int t = 0; t < 128 && bad < 0; t++) {
                const int x = t & 1 ? s[0] : t * 3 + b, y = s[0] - t, z = (t + 100 * b) * 2 + s[0], u = b * 128 + t;
                if (got[u] != x || got[256 + u] != y || got[512 + u] != z)
                    bad = u;
            }
        }
        ok(bad < 0, "x, y and z as in C (first difference at unit %d)", bad);
    }
}

/* Registers each round of a loop writes first (native_loop.c
 * cvm_nat_fresh): a stop outside their loop, or at its head, keeps them
 * not (live_at), one after their write does. c is written by a barrier
 * that counts, so the plane resumes right after that write and must keep
 * it. In the second loop, whose lanes leave at rounds 700 to 1750 (its
 * head yields every 1000 back edges, with lanes gone), x is read by a
 * shuffle, which in unchecked mode reads the lanes gone too: their x of
 * their last round, so x is kept; w, written first each round, is read
 * after the loop by lanes that left before the yield: kept too. */
static const char fresh_src[] =
    "__global__ void fresh(int *o, int sel)\n"
    "{\n"
    "    int t = threadIdx.x, s = 0, w = -t;\n"
    "    for (int r = 0; r < 3; r++) {\n"
    "        int c = __syncthreads_count((t + r) % 3 == sel);\n"
    "        if ((t + r) & 1) s += c * (r + 1); else s -= c;\n"
    "    }\n"
    "    int n = 700 + (t & 7) * 150;\n"
    "    for (int j = 0; j < n; j++) {\n"
    "        int x = (j * 7 + t * 13 + sel) & 1023;\n"
    "        w = x * 3 + sel;\n"
    "        s += __shfl_sync(0xffffffff, x, (t + 1) & 31) & 15;\n"
    "    }\n"
    "    o[blockIdx.x * blockDim.x + t] = s + w;\n"
    "}\n";

/* fresh's result for unit t of a cube of 64, in C. */
static int fresh_ref(int t, int sel)
{
    int s = 0, w = -t;
    for (int r = 0; r < 3; r++) {
        int c = 0;
        for (int u = 0; u < 64; u++)
            c += (u + r) % 3 == sel;
        if ((t + r) & 1)
            s += c * (r + 1);
        else
            s -= c;
    }
    const int src = (t & ~31) | ((t + 1) & 31), n = 700 + (t & 7) * 150, nsrc = 700 + (src & 7) * 150;
    for (int j = 0; j < n; j++) {
        const int js = j < nsrc ? j : nsrc - 1; /* the source lane's last round */
        w = ((j * 7 + t * 13 + sel) & 1023) * 3 + sel;
        s += ((js * 7 + src * 13 + sel) & 1023) & 15;
    }
    return s + w;
}

static void test_fresh(void)
{
    cvm_module *keep = mod;
    if (!use_module(fresh_src, "fresh.cu", true))
        return;
    for (uint32_t sel = 0; sel < 3; sel++) {
        int32_t got[128];
        io bufs[] = {{NULL, sizeof got}};
        cvm_launch_config cfg = kern_cfg(2, 64);
        cfg.unchecked = 1;
        char what[96];
        snprintf(what, sizeof what, "registers a loop writes first, across its stops, sel = %u", sel);
        cvm_diag d;
        if (!both(what, "fresh", &cfg, bufs, 1, &sel, (uint8_t *)got, NULL, &d))
            continue;
        int bad = -1;
        for (int u = 0; u < 128 && bad < 0; u++)
            if (got[u] != fresh_ref(u & 63, (int)sel))
                bad = u;
        ok(bad < 0, "%s: as in C (first difference at unit %d)", what, bad);
    }
    main_module(keep);
}

/* Registers made from unit positions (gen's remat): a resume makes t,
 * the shared pointer p and the global pointer out again instead of
 * reloading them; row, one value per cube (puni), is reloaded beside
 * them. The first loop runs 1000 to 2800 rounds by lane, so its head
 * yields (every 1000 back edges) with lanes already gone, and those
 * lanes read t, p and out after it: they are made in every lane. The
 * reduction then resumes them at seven barriers. Expected values from
 * C. */
static const char remk_src[] =
    "__global__ void remk(int *o, int k)\n"
    "{\n"
    "    __shared__ int s[128];\n"
    "    unsigned t = threadIdx.x;\n"
    "    int *p = &s[t];\n"
    "    int *out = o + t;\n"
    "    int *row = o + blockIdx.x * 256 + 128;\n"
    "    *p = (int)(t * 7u) ^ k;\n"
    "    __syncthreads();\n"
    "    int acc = 0;\n"
    "    for (int i = 0; i < 1000 + (int)(t % 7) * 300; i++)\n"
    "        acc += i & 3;\n"
    "    for (int step = 64; step > 0; step >>= 1) {\n"
    "        if (t < step) *p += p[step];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    out[blockIdx.x * 256] = acc + *p + (int)(t * 3u);\n"
    "    row[t] = (int)blockIdx.x * 1000 + (int)t;\n"
    "}\n";

static void test_remake(void)
{
    int32_t got[512];
    uint32_t k = 0x5a5;
    if (own_kernel(remk_src, "remk.cu", "registers made again from unit positions at resumes", "remk", 2, 128, &k, got,
                   sizeof got)) {
        int s[128], bad = -1;
        for (int t = 0; t < 128; t++)
            s[t] = (t * 7) ^ (int)k;
        for (int step = 64; step > 0; step >>= 1)
            for (int t = 0; t < step; t++)
                s[t] += s[t + step];
        for (int b = 0; b < 2; b++)
            for (int t = 0; t < 128 && bad < 0; t++) {
                int acc = 0;
                for (int i = 0; i < 1000 + (t % 7) * 300; i++)
                    acc += i & 3;
                if (got[b * 256 + t] != acc + s[t] + t * 3 || got[b * 256 + 128 + t] != b * 1000 + t)
                    bad = b * 128 + t;
            }
        ok(bad < 0, "t, p, out and row in every lane after the yields and barriers (first difference at unit %d)",
           bad);
    }
}

/* ld [p] right after `ptr.add p, p, off` (a uniform pointer moved in
 * place): p's value at the load is not the one the add read, so the quick
 * path must not take p + off for it. One lane (cube of 1: trivially
 * consecutive) and a full plane (every lane reads one element). */
static void test_moved_pointer(void)
{
    float a[16];
    for (int i = 0; i < 16; i++)
        a[i] = (float)(i * 3 + 1);
    static const uint32_t blocks[] = {1, 32};
    for (int c = 0; c < 2; c++) {
        uint32_t n = 5;
        float got[32 + 16];
        io bufs[] = {{NULL, sizeof(float) * 32}, {a, sizeof a}};
        cvm_launch_config cfg = kern_cfg(1, blocks[c]);
        char what[96];
        snprintf(what, sizeof what, "a pointer moved in place, then loaded, cube of %u", blocks[c]);
        cvm_diag d;
        if (!both(what, "bump", &cfg, bufs, 2, &n, (uint8_t *)got, NULL, &d))
            continue;
        int bad = -1;
        for (uint32_t t = 0; t < blocks[c] && bad < 0; t++)
            if (got[t] != a[5])
                bad = (int)t;
        ok(bad < 0, "%s: every unit reads a[5] (first difference at %d)", what, bad);
    }
}

/* Planes that arrive at a cube barrier go on with the next plane of the
 * pass in the same call (vm/jit_rt.c cvm_jit_chain). The first unit of
 * each plane logs (phase, unit) in the order the planes run, per cube:
 * phase by phase, planes in index order, as run_cube's passes run them;
 * planes that returned are skipped, a __syncthreads_count in between
 * runs through the interpreter (not chained), and a fault in a plane
 * reached by chaining names that plane's unit. */
static const char chain_src[] =
    "__global__ void chain(int *log, int *ctr, int w, int cut, int bad)\n"
    "{\n"
    "    int t = threadIdx.x, b = blockIdx.x;\n"
    "    int *lg = log + b * 64;\n"
    "    if (t % w == 0) lg[atomicAdd(&ctr[b], 1)] = t;\n"
    "    __syncthreads();\n"
    "    if (t >= cut) return;\n"
    "    if (t % w == 0) lg[atomicAdd(&ctr[b], 1)] = 1000 + t;\n"
    "    __syncthreads();\n"
    "    if (t == bad) lg[1 << 20] = 1;\n"
    "    if (t % w == 0) lg[atomicAdd(&ctr[b], 1)] = 2000 + t;\n"
    "    int c = __syncthreads_count(t & 1);\n"
    "    if (t % w == 0) lg[atomicAdd(&ctr[b], 1)] = 3000 + t + 100000 * c;\n"
    "    __syncthreads();\n"
    "    if (t % w == 0) lg[atomicAdd(&ctr[b], 1)] = 4000 + t;\n"
    "}\n"
    "__global__ void chain_yield(int *log, int *ctr, int w, int spin)\n"
    "{\n"
    "    int t = threadIdx.x, b = blockIdx.x, acc = 0;\n"
    "    int *lg = log + b * 64;\n"
    "    int m = t < w ? spin : 3;\n"
    "    for (int i = 0; i < m; i++) acc += (i ^ t) & 7;\n"
    "    __syncthreads();\n"
    "    if (t % w == 0) lg[atomicAdd(&ctr[b], 1)] = t;\n"
    "    __syncthreads();\n"
    "    if (t % w == 0) lg[atomicAdd(&ctr[b], 1)] = 1000 + t;\n"
    "    if (acc == 1) ctr[b] = -1;\n"
    "}\n";

static void test_chain(void)
{
    cvm_diag d;
    cvm_module *keep = mod;
    if (!use_module(chain_src, "chain.cu", true))
        return;
    static const uint32_t blocks[] = {256, 64, 100};
    static const uint32_t widths[] = {32, 8, 16};
    enum { GRID = 3 };
    for (int c = 0; c < 3; c++) {
        const uint32_t block = blocks[c], w = widths[c], cut = block / 2 + w; /* a plane past half */
        const uint32_t planes = (block + w - 1) / w, live = (cut + w - 1) / w;
        int32_t log[GRID * 64], ctr[GRID];
        uint8_t raw[sizeof log + sizeof ctr];
        io bufs[] = {{NULL, sizeof log}, {NULL, sizeof ctr}};
        cvm_launch_config cfg = kern_cfg(GRID, block);
        cfg.plane_width = w;
        cfg.timeout_s = 0; /* a timeout ends the chain at each pass's end */
        char what[96];
        snprintf(what, sizeof what, "planes chained at barriers, cube %u, width %u", block, w);
        uint32_t scal[3] = {w, cut, UINT32_MAX};
        if (!both_n(what, "chain", &cfg, bufs, 2, scal, 3, raw, NULL, &d))
            continue;
        memcpy(log, raw, sizeof log);
        memcpy(ctr, raw + sizeof log, sizeof ctr);
        /* in C: phase by phase, the planes that take part, in index order */
        int bad_at = -1;
        for (int b = 0; b < GRID && bad_at < 0; b++) {
            int32_t want[64];
            uint32_t k = 0, odd = 0;
            for (uint32_t t = 0; t < cut && t < block; t++)
                odd += t & 1;
            for (uint32_t q = 0; q < planes; q++)
                want[k++] = (int32_t)(q * w);
            for (int ph = 1; ph <= 4; ph++)
                for (uint32_t q = 0; q < live && q < planes; q++)
                    want[k++] = (int32_t)(ph * 1000 + q * w + (ph == 3 ? 100000 * odd : 0));
            if ((uint32_t)ctr[b] != k || memcmp(want, log + b * 64, k * sizeof *want))
                bad_at = b;
        }
        ok(bad_at < 0, "%s: the planes ran phase by phase in index order (first difference in cube %d)", what,
           bad_at);
        /* a fault in a chained plane (the last live one) after the second barrier */
        scal[2] = (live - 1) * w + 1;
        snprintf(what, sizeof what, "a fault in a chained plane, cube %u, width %u", block, w);
        cvm_status st;
        both_n(what, "chain", &cfg, bufs, 2, scal, 3, raw, &st, &d);
        ok(st == CVM_FAULT && d.fault.unit[0] == scal[2], "%s: names unit %u: %s", what, scal[2], d.message);
    }
    /* Plane 0 loops 5000 rounds before the first barrier, yielding every
     * 1000: the others arrive first, so plane 0's arrival releases them
     * mid-pass and the pass goes on with them, then plane 0 logs in the
     * next pass: by hand, phase 0 logs planes 1.., then 0, phase 1 the
     * same. Widths other than 32 (the interpreter runs 32-lane planes in
     * lockstep, another order). */
    static const uint32_t yblocks[] = {32, 64, 100};
    static const uint32_t ywidths[] = {8, 16, 16};
    for (int c = 0; c < 3; c++) {
        const uint32_t block = yblocks[c], w = ywidths[c], planes = (block + w - 1) / w;
        int32_t log[GRID * 64], ctr[GRID];
        uint8_t raw[sizeof log + sizeof ctr];
        io bufs[] = {{NULL, sizeof log}, {NULL, sizeof ctr}};
        cvm_launch_config cfg = kern_cfg(GRID, block);
        cfg.plane_width = w;
        cfg.timeout_s = 0;
        uint32_t scal[2] = {w, 5000};
        char what[96];
        snprintf(what, sizeof what, "a plane that yields before a barrier, cube %u, width %u", block, w);
        if (!both_n(what, "chain_yield", &cfg, bufs, 2, scal, 2, raw, NULL, &d))
            continue;
        memcpy(log, raw, sizeof log);
        memcpy(ctr, raw + sizeof log, sizeof ctr);
        int bad_at = -1;
        for (int b = 0; b < GRID && bad_at < 0; b++) {
            int32_t want[64];
            uint32_t k = 0;
            for (int ph = 0; ph < 2; ph++) {
                for (uint32_t q = 1; q < planes; q++)
                    want[k++] = (int32_t)(ph * 1000 + q * w);
                want[k++] = ph * 1000;
            }
            if ((uint32_t)ctr[b] != k || memcmp(want, log + b * 64, k * sizeof *want))
                bad_at = b;
        }
        ok(bad_at < 0, "%s: released planes go on in the same pass (first difference in cube %d)", what,
           bad_at);
    }
    main_module(keep);
}

/* Full-mask copies (native.c version_loop, regain): a loop only loops
 * enclose runs, where every lane of the plane enters it, in a copy whose
 * mask is a constant while conditions are one value in the plane, and
 * whose loop heads test for every lane. The counters are one value:
 * uniform continue, if/else and break keep the mask whole. Each loop
 * then has one kind of exit that only some lanes take (the first
 * such exit in a loop's code leaves the rest of its body partial): a
 * continue (the lanes are back for the continuing part, which writes q,
 * and the next round), a break (the continuing part and the next head
 * are partial: the plane goes on in the general copy), a return, a
 * break of the inner loop; bif breaks with break_if (in the continuing
 * part, which the CUDA frontend does not emit) for some lanes, then all. n leaves the last plane partial (the
 * general copy throughout). */
static const char full_src[] =
    "__global__ void fullm(int *o, const int *in, int n, int m)\n"
    "{\n"
    "    int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (t >= n) return;\n"
    "    int acc = in[t], q = 0;\n"
    "    for (int i = 0; i < m; i++, q += t & 3) {\n"
    "        if (i % 4 == 1) continue;\n"
    "        if (i == 9) acc ^= 0x55; else acc += i * 3;\n"
    "        if ((t & 7) == 3 && i == 6) continue;\n"
    "        acc = acc * 5 + 1;\n"
    "    }\n"
    "    for (int i = 0; i < m; i++, q += t & 5) {\n"
    "        if (t % 13 == 5 && i == 7) break;\n"
    "        acc += i ^ 3;\n"
    "    }\n"
    "    for (int i = 0; i < m; i++) {\n"
    "        if (t % 29 == 7 && i == 4) { o[t] = -acc; return; }\n"
    "        acc += i ^ t;\n"
    "    }\n"
    "    for (int i = 0; i < m; i++) {\n"
    "        for (int j = 0; j < 3; j++) {\n"
    "            if (i > 5 && j == 1) break;\n"
    "            if (j == 2 && (t & 3) == 2 && i == 3) break;\n"
    "            acc += j * i + (t & 1);\n"
    "        }\n"
    "        if (i == 9) break;\n"
    "    }\n"
    "    o[t] = acc * 7 + q;\n"
    "}\n";

static int full_ref(int t, int in, int m)
{
    unsigned acc = (unsigned)in;
    int q = 0;
    for (int i = 0; i < m; i++, q += t & 3) {
        if (i % 4 == 1)
            continue;
        if (i == 9)
            acc ^= 0x55;
        else
            acc += (unsigned)i * 3;
        if ((t & 7) == 3 && i == 6)
            continue;
        acc = acc * 5 + 1;
    }
    for (int i = 0; i < m; i++, q += t & 5) {
        if (t % 13 == 5 && i == 7)
            break;
        acc += (unsigned)(i ^ 3);
    }
    for (int i = 0; i < m; i++) {
        if (t % 29 == 7 && i == 4)
            return -(int)acc;
        acc += (unsigned)(i ^ t);
    }
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < 3; j++) {
            if (i > 5 && j == 1)
                break;
            if (j == 2 && (t & 3) == 2 && i == 3)
                break;
            acc += (unsigned)(j * i + (t & 1));
        }
        if (i == 9)
            break;
    }
    return (int)(acc * 7 + (unsigned)q);
}

static const char bif_src[] =
    ".kernel bif\n"
    ".param o buffer i32 readwrite\n"
    ".param m scalar i32\n"
    ".reg ptr.global %g, %pa\n"
    ".reg i32 %m, %t, %i, %acc, %q, %x, %y, %one, %three, %seven, %eight, %c19\n"
    ".reg u32 %ut\n"
    ".reg i64 %off, %four\n"
    ".reg bool %p, %d\n"
    "    param.ptr.global %g, o, 0\n"
    "    param.i32 %m, m, 0\n"
    "    sreg.u32 %ut, unit_pos.x\n"
    "    cvt.i32 %t, %ut\n"
    "    const.i32 %one, 1\n"
    "    const.i32 %three, 3\n"
    "    const.i32 %seven, 7\n"
    "    const.i32 %eight, 8\n"
    "    const.i32 %c19, 19\n"
    "    const.i32 %i, 0\n"
    "    mov.i32 %q, %t\n" /* (not guessed one value: the copy's head would test it) */
    "    mov.i32 %acc, %t\n"
    "    loop\n"
    "        mul.i32 %acc, %acc, %three\n"
    "        add.i32 %acc, %acc, %i\n"
    "    continuing\n"
    "        add.i32 %q, %q, %t\n"
    "        add.i32 %i, %i, %one\n"
    "        and.i32 %x, %t, %seven\n"
    "        mul.i32 %y, %i, %eight\n"
    "        add.i32 %y, %y, %x\n"
    "        eq.i32 %d, %y, %c19\n"
    "        break_if %d\n"
    "        ge.i32 %p, %i, %m\n"
    "        break_if %p\n"
    "    end\n"
    "    add.i32 %acc, %acc, %q\n"
    "    cvt.i64 %off, %t\n"
    "    const.i64 %four, 4\n"
    "    mul.i64 %off, %off, %four\n"
    "    ptr.add.ptr.global %pa, %g, %off\n"
    "    st.i32 [%pa], %acc\n"
    "    return\n"
    ".end\n";

static void test_full_mask(void)
{
    cvm_module *keep = mod;
    enum { N = 1000 };
    static int32_t in[N], got[2 * N]; /* (both_n reads back every buffer: fullm's output, then its input) */
    for (int i = 0; i < N; i++)
        in[i] = (i * 7919) % 1013 - 500;
    static const uint32_t ms[] = {0, 1, 5, 8, 12, 30};
    static const uint32_t widths[] = {32, 8, 64};
    if (use_module(full_src, "full.cu", true)) {
        for (unsigned w = 0; w < 3; w++)
            for (unsigned k = 0; k < sizeof ms / sizeof ms[0]; k++) {
                io bufs[] = {{NULL, sizeof in}, {in, sizeof in}};
                cvm_launch_config cfg = kern_cfg((N + 127) / 128, 128);
                cfg.plane_width = widths[w];
                uint32_t scal[2] = {N - 3, ms[k]};
                char what[96];
                snprintf(what, sizeof what, "full-mask copy, m = %u, width %u", ms[k], widths[w]);
                cvm_diag d;
                if (!both_n(what, "fullm", &cfg, bufs, 2, scal, 2, (uint8_t *)got, NULL, &d))
                    continue;
                int bad = -1;
                for (int t = 0; t < N - 3 && bad < 0; t++)
                    if (got[t] != full_ref(t, in[t], (int)ms[k]))
                        bad = t;
                ok(bad < 0, "%s: matches C (first difference at %d)", what, bad);
            }
        main_module(keep);
    }
    if (!use_module(bif_src, "bif.cbs", false))
        return;
    for (unsigned k = 0; k < sizeof ms / sizeof ms[0]; k++) {
        io bufs[] = {{NULL, sizeof(int32_t) * 64}};
        cvm_launch_config cfg = kern_cfg(1, 64);
        char what[96];
        snprintf(what, sizeof what, "full-mask copy, break_if, m = %u", ms[k]);
        cvm_diag d;
        if (!both(what, "bif", &cfg, bufs, 1, &ms[k], (uint8_t *)got, NULL, &d))
            continue;
        int bad = -1;
        for (int t = 0; t < 64 && bad < 0; t++) {
            unsigned acc = (unsigned)t, q = (unsigned)t;
            for (int i = 0;;) { /* (a do-while) the lanes where t & 7 is 3 break after i = 1 */
                acc = acc * 3 + (unsigned)i;
                q += (unsigned)t;
                i++;
                if (i * 8 + (t & 7) == 19 || i >= (int)ms[k])
                    break;
            }
            if (got[t] != (int32_t)(acc + q))
                bad = t;
        }
        ok(bad < 0, "%s: matches C (first difference at %d)", what, bad);
    }
    main_module(keep);
}

/* Cubes of rows (vm/jit.h cvm_jit_shape: x a multiple of the plane
 * width) get code of their own, which knows unit_pos.x consecutive and
 * .y, .z one value in a plane; so do cubes of pairs of rows (x half the
 * plane width, y even: a plane's x lanes are constants, its y lane 0's
 * plus 0 or 1); other shapes keep the general code. The same kernel
 * alternates between the three classes at each width, so each launch
 * must find the code of its own (a key without the shape would run the
 * rows code on a 16x4 cube, or the pairs code on a 16x3 one, whose
 * planes cross from one z to the next). The kernel reads the
 * positions in addresses, in a compare, in a loop bound and across a
 * barrier (made again at the resume). */
static const char shape_src[] =
    "__global__ void shape(int *o, const int *in, int n)\n"
    "{\n"
    "    __shared__ int s[512];\n"
    "    int nb = blockDim.x * blockDim.y * blockDim.z;\n"
    "    int u = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;\n"
    "    int g = blockIdx.x * nb + u;\n"
    "    s[u] = in[(g * 7) % n] + threadIdx.x * 1000 + threadIdx.y * 100 + threadIdx.z * 10;\n"
    "    __syncthreads();\n"
    "    int w = s[(u + threadIdx.x + 1) % nb];\n"
    "    for (int i = threadIdx.y; i < 4; i++)\n"
    "        w += in[(threadIdx.x + i) % n] ^ i;\n"
    "    if (threadIdx.x < 5 + threadIdx.z) w = -w;\n"
    "    o[g] = w + in[threadIdx.x % n];\n"
    "}\n";

static int shape_ref(const int32_t *in, int n, const uint32_t b[3], int g)
{
    const int nb = (int)(b[0] * b[1] * b[2]);
    const int u = g % nb, cube = g / nb;
    /* unit u's position, and the value unit v put in s */
#define SHAPE_S(v) (in[((cube * nb + (v)) * 7) % n] + ((v) % (int)b[0]) * 1000 + ((v) / (int)b[0] % (int)b[1]) * 100 + \
                    ((v) / (int)(b[0] * b[1])) * 10)
    const int x = u % (int)b[0], y = u / (int)b[0] % (int)b[1], z = u / (int)(b[0] * b[1]);
    int w = SHAPE_S((u + x + 1) % nb);
#undef SHAPE_S
    for (int i = y; i < 4; i++)
        w += in[(x + i) % n] ^ i;
    if (x < 5 + z)
        w = -w;
    return w + in[x % n];
}

static void test_rows(void)
{
    cvm_module *keep = mod;
    if (!use_module(shape_src, "shape.cu", true))
        return;
    enum { N = 97, MAXU = 2 * 512 };
    static int32_t in[N], got[MAXU + N];
    for (int i = 0; i < N; i++)
        in[i] = (i * 7919) % 1013 - 500;
    static const struct {
        uint32_t W, b[3];
    } cases[] = {
        {32, {64, 2, 2}}, {32, {16, 4, 2}}, {32, {96, 1, 1}}, {32, {40, 3, 1}}, {32, {32, 2, 3}},
        {32, {16, 3, 2}}, {32, {16, 2, 3}}, {8, {8, 3, 3}}, {8, {12, 2, 1}}, {8, {24, 1, 2}},
        {8, {4, 2, 3}}, {8, {4, 5, 1}},
    };
    static const char *const classes[] = {"other", "rows", "pairs of rows"};
    const tap_jit_counts c0 = jit_counts();
    for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const uint32_t *b = cases[c].b, nb = b[0] * b[1] * b[2];
        io bufs[] = {{NULL, sizeof(int32_t) * 2 * nb}, {in, sizeof in}};
        cvm_launch_config cfg = kern_cfg(2, b[0]);
        cfg.block[1] = b[1], cfg.block[2] = b[2];
        cfg.plane_width = cases[c].W;
        uint32_t scal = N;
        char what[96];
        /* (the class by hand: x a multiple of W; x W / 2 and y even; else) */
        const int cls = b[0] % cases[c].W == 0 ? 1 : 2 * b[0] == cases[c].W && b[1] % 2 == 0 ? 2 : 0;
        snprintf(what, sizeof what, "cube %ux%ux%u at width %u (%s)", b[0], b[1], b[2], cases[c].W, classes[cls]);
        cvm_diag d;
        if (!both(what, "shape", &cfg, bufs, 2, &scal, (uint8_t *)got, NULL, &d))
            continue;
        int bad = -1;
        for (int g = 0; g < (int)(2 * nb) && bad < 0; g++)
            if (got[g] != shape_ref(in, N, b, g))
                bad = g;
        ok(bad < 0, "%s: matches C (first difference at unit %d)", what, bad);
    }
    /* one compile per width and class: rows, pairs and other at 32 and at 8 */
    const tap_jit_counts c1 = jit_counts();
    ok(c1.compiled - c0.compiled == 6, "one compile per plane width and cube shape class (%llu)",
       (unsigned long long)(c1.compiled - c0.compiled));
    main_module(keep);
}

/* A shared-tile matmul in the three shape classes (cvm_jit_shape): tiles
 * of 16 at widths 32 (pairs of rows), 16 (rows) and 64 (other), of 4 at
 * width 8 (pairs) and of 8 at width 8 (rows). Pairs code makes the tile
 * offsets from constant lanes, again at each barrier's resume; inputs are
 * small integers, so every sum is exact and the C product is the answer
 * whatever the order. */
static const char pairs_src[] =
    "__global__ void mm(float *c, const float *a, const float *b, int n)\n"
    "{\n"
    "    __shared__ float ta[16][16];\n"
    "    __shared__ float tb[16][16];\n"
    "    int T = blockDim.x;\n"
    "    int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;\n"
    "    float acc = 0.0f;\n"
    "    for (int t = 0; t < n; t += T) {\n"
    "        ta[threadIdx.y][threadIdx.x] = a[(long)row * n + t + threadIdx.x];\n"
    "        tb[threadIdx.y][threadIdx.x] = b[(long)(t + threadIdx.y) * n + col];\n"
    "        __syncthreads();\n"
    "        for (int kk = 0; kk < T; kk++)\n"
    "            acc += ta[threadIdx.y][kk] * tb[kk][threadIdx.x];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    c[(long)row * n + col] = acc;\n"
    "}\n";

static void test_pairs(void)
{
    cvm_module *keep = mod;
    if (!use_module(pairs_src, "pairs.cu", true))
        return;
    enum { N = 48 };
    static float a[N * N], b[N * N], want[N * N], got[3 * N * N];
    for (int i = 0; i < N * N; i++)
        a[i] = (float)((i * 7) % 11 - 5), b[i] = (float)((i * 5) % 13 - 6);
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++) {
            float acc = 0;
            for (int k = 0; k < N; k++)
                acc += a[r * N + k] * b[k * N + c];
            want[r * N + c] = acc;
        }
    static const struct {
        uint32_t W, T;
        const char *cls;
    } cases[] = {{32, 16, "pairs of rows"}, {16, 16, "rows"}, {64, 16, "other"}, {8, 4, "pairs of rows"},
                 {8, 8, "rows"}};
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const uint32_t T = cases[i].T;
        io bufs[] = {{NULL, sizeof want}, {a, sizeof a}, {b, sizeof b}};
        cvm_launch_config cfg = kern_cfg(N / T, T);
        cfg.grid[1] = N / T, cfg.block[1] = T;
        cfg.plane_width = cases[i].W;
        uint32_t n = N;
        char what[80];
        snprintf(what, sizeof what, "matmul, tiles of %u at width %u (%s)", T, cases[i].W, cases[i].cls);
        cvm_diag d;
        if (!both(what, "mm", &cfg, bufs, 3, &n, (uint8_t *)got, NULL, &d))
            continue;
        int bad = -1;
        for (int e = 0; e < N * N && bad < 0; e++)
            if (got[e] != want[e])
                bad = e;
        ok(bad < 0, "%s: matches C (first difference at %d)", what, bad);
    }
    main_module(keep);
}

/* Grid-stride loops in full-mask copies: the exit test comes first, so
 * the copy takes it with all lanes or none, and where the lanes differ
 * (n not a multiple of the stride: the last round) the plane goes on in
 * the general copy at the loop's head, which makes the test again
 * (cvm_nat_loop_exit). `gs` has a longer test (j * 2 + 1 < n); `gw`
 * steps its index before the test, which a rerun from the head would
 * step twice: its copy must not take the exit whole. */
static const char gstride_src[] =
    "__global__ void gs(int *o, const int *in, int n, int k)\n"
    "{\n"
    "    int t = blockIdx.x * blockDim.x + threadIdx.x, acc = 0;\n"
    "    for (int i = t; i < n; i += blockDim.x * gridDim.x)\n"
    "        acc = acc * 3 + in[i] + k;\n"
    "    for (int j = t; j * 2 + 1 < n; j += blockDim.x * gridDim.x)\n"
    "        acc ^= in[j] + j;\n"
    "    o[t] = acc;\n"
    "}\n"
    "__global__ void gw(int *o, const int *in, int n, int k)\n"
    "{\n"
    "    int t = blockIdx.x * blockDim.x + threadIdx.x, acc = k, j = t - (int)(blockDim.x * gridDim.x);\n"
    "    while (1) {\n"
    "        j += blockDim.x * gridDim.x;\n"
    "        if (j >= n) break;\n"
    "        acc = acc * 5 + in[j];\n"
    "    }\n"
    "    o[t] = acc;\n"
    "}\n";

static void test_grid_stride(void)
{
    cvm_module *keep = mod;
    if (!use_module(gstride_src, "gstride.cu", true))
        return;
    enum { N = 1100, CUBES = 2, UNITS = 64 };
    static int32_t in[N], got[CUBES * UNITS + N];
    for (int i = 0; i < N; i++)
        in[i] = (i * 7919) % 1013 - 500;
    static const uint32_t ns[] = {0, 1, 64, 128, 200, 256, 1024, 1031, 1100};
    static const uint32_t widths[] = {32, 8};
    for (unsigned kern = 0; kern < 2; kern++)
        for (unsigned w = 0; w < 2; w++)
            for (unsigned c = 0; c < sizeof ns / sizeof ns[0]; c++) {
                io bufs[] = {{NULL, sizeof(int32_t) * CUBES * UNITS}, {in, sizeof in}};
                cvm_launch_config cfg = kern_cfg(CUBES, UNITS);
                cfg.plane_width = widths[w];
                uint32_t scal[2] = {ns[c], 7};
                char what[96];
                snprintf(what, sizeof what, "grid-stride %s, n = %u, width %u", kern ? "gw" : "gs", ns[c], widths[w]);
                cvm_diag d;
                if (!both_n(what, kern ? "gw" : "gs", &cfg, bufs, 2, scal, 2, (uint8_t *)got, NULL, &d))
                    continue;
                int bad = -1;
                const int n = (int)ns[c], stride = CUBES * UNITS;
                for (int t = 0; t < stride && bad < 0; t++) {
                    unsigned acc = kern ? 7u : 0u;
                    if (kern) {
                        for (int j = t; j < n; j += stride)
                            acc = acc * 5u + (unsigned)in[j];
                    } else {
                        for (int i = t; i < n; i += stride)
                            acc = acc * 3u + (unsigned)in[i] + 7u;
                        for (int j = t; j * 2 + 1 < n; j += stride)
                            acc ^= (unsigned)(in[j] + j);
                    }
                    if (got[t] != (int32_t)acc)
                        bad = t;
                }
                ok(bad < 0, "%s: matches C (first difference at unit %d)", what, bad);
            }
    main_module(keep);
}

/* The exit tests of full-mask copies taken as scalars (jit/native.c
 * exit_scalar): the index's lanes are consecutive, so a compare with one
 * value holds in all of them or none as it holds at both ends, unless
 * they wrap within the plane. `gc` has each order compare, operands both
 * ways round, unsigned, under one `not` and two, and a loop whose start
 * k + t wraps within a plane when k is near INT_MAX (its lanes differ
 * where both ends hold: k = INT_MAX - 10 runs units 0..10 once); an
 * unsigned index crosses 2^31, where a signed compare would differ (k = -5
 * is 2^32 - 5; its rounds are capped). */
static const char gcmp_src[] =
    "__global__ void gc(int *o, const int *in, int n, int k)\n"
    "{\n"
    "    int t = blockIdx.x * blockDim.x + threadIdx.x, acc = 0, s = blockDim.x * gridDim.x;\n"
    "    for (int i = t; n > i; i += s)\n"
    "        acc = acc * 3 + in[i];\n"
    "    for (unsigned u = t; u + 1 <= (unsigned)n; u += s)\n"
    "        acc = acc * 5 + in[u];\n"
    "    for (int i = t;; i += s) {\n"
    "        if (i > n - 2)\n"
    "            break;\n"
    "        acc ^= in[i] + i;\n"
    "    }\n"
    "    for (int i = t; !(i >= n / 2); i += s)\n"
    "        acc = acc * 7 + in[i];\n"
    "    for (int i = (int)((unsigned)t + (unsigned)k); i > k - 30; i = (int)((unsigned)i + 0x40000000u))\n"
    "        acc = acc * 9 + in[((unsigned)i - (unsigned)k) & 1023];\n"
    "    for (unsigned u = t, r = 0; u < (unsigned)k; u += 0x40000000u) {\n"
    "        if (++r > 4)\n"
    "            break;\n"
    "        acc = acc * 11 + in[u & 1023];\n"
    "    }\n"
    "    o[t] = acc;\n"
    "}\n";

static void test_grid_compares(void)
{
    cvm_module *keep = mod;
    if (!use_module(gcmp_src, "gcmp.cu", true))
        return;
    enum { N = 1100, CUBES = 2, UNITS = 64 };
    static int32_t in[N], got[CUBES * UNITS + N];
    for (int i = 0; i < N; i++)
        in[i] = (i * 7919) % 1013 - 500;
    static const uint32_t ns[] = {0, 1, 31, 64, 100, 128, 200, 1031, 1100};
    static const int32_t ks[] = {7, INT32_MAX - 10, INT32_MAX - 40, INT32_MAX - 100, -5};
    static const uint32_t widths[] = {32, 8};
    for (unsigned w = 0; w < 2; w++)
        for (unsigned c = 0; c < sizeof ns / sizeof ns[0]; c++) {
            const int n = (int)ns[c], k = ks[c % (sizeof ks / sizeof ks[0])], stride = CUBES * UNITS;
            io bufs[] = {{NULL, sizeof(int32_t) * stride}, {in, sizeof in}};
            cvm_launch_config cfg = kern_cfg(CUBES, UNITS);
            cfg.plane_width = widths[w];
            uint32_t scal[2] = {ns[c], (uint32_t)k};
            char what[96];
            snprintf(what, sizeof what, "grid-stride compares, n = %d, k = %d, width %u", n, k, widths[w]);
            cvm_diag d;
            if (!both_n(what, "gc", &cfg, bufs, 2, scal, 2, (uint8_t *)got, NULL, &d))
                continue;
            int bad = -1;
            for (int t = 0; t < stride && bad < 0; t++) {
                unsigned acc = 0;
                for (int i = t; i < n; i += stride)
                    acc = acc * 3u + (unsigned)in[i];
                for (int i = t; i < n; i += stride)
                    acc = acc * 5u + (unsigned)in[i];
                for (int i = t; i <= n - 2; i += stride)
                    acc ^= (unsigned)(in[i] + i);
                for (int i = t; i < n / 2; i += stride)
                    acc = acc * 7u + (unsigned)in[i];
                /* 32-bit wrapping sums, as the kernel's adds make them */
                for (uint32_t i = (uint32_t)t + (uint32_t)k; (int32_t)i > k - 30; i += 0x40000000u)
                    acc = acc * 9u + (unsigned)in[(i - (uint32_t)k) & 1023];
                for (uint32_t u = (uint32_t)t, r = 0; u < (uint32_t)k && ++r <= 4; u += 0x40000000u)
                    acc = acc * 11u + (unsigned)in[u & 1023];
                if (got[t] != (int32_t)acc)
                    bad = t;
            }
            ok(bad < 0, "%s: matches C (first difference at unit %d)", what, bad);
        }
    main_module(keep);
}

/* `if` on a compare of the unit's position in its row with one value
 * (cvm_nat_consec_mask): in cubes of rows the mask is a count of lanes
 * from one end, where `threadIdx.x` (hoisted out of the loop, and made
 * again after each barrier) is known consecutive and not wrapping. Each
 * order, signed and unsigned, either side, through a `!`, with values
 * below, inside and beyond the plane, negative ones and the type's
 * ends; rows at widths 32, 64 and 8, and cubes of other shapes for the
 * general code. */
static const char pcmp_src[] =
    "__global__ void pc(unsigned *o, int k0, unsigned u0)\n"
    "{\n"
    "    __shared__ unsigned sh[64];\n"
    "    unsigned acc = 0;\n"
    "    for (int r = 0; r < 9; r++) {\n"
    "        int k = k0 + (r - 4) * 9;\n"
    "        unsigned u = u0 + (unsigned)(r - 4) * 9u;\n"
    "        if (threadIdx.x < u) acc += 1u;\n"
    "        if (threadIdx.x <= u) acc += 2u;\n"
    "        if (threadIdx.x > u) acc += 4u;\n"
    "        if (threadIdx.x >= u) acc += 8u;\n"
    "        if ((int)threadIdx.x < k) acc += 16u;\n"
    "        if ((int)threadIdx.x >= k) acc += 32u;\n"
    "        if (!((int)threadIdx.x <= k)) acc += 64u;\n"
    "        if (k > (int)threadIdx.x) acc += 128u;\n"
    "        if (u <= threadIdx.x) acc += 256u;\n"
    "        if (k < (int)threadIdx.x) acc += 512u;\n"
    "        if (u >= threadIdx.x) acc += 1024u;\n"
    "        if (u > threadIdx.x) acc += 2048u;\n"
    "        acc = acc * 3u + sh[(r * 7) & 63];\n"
    "        __syncthreads();\n"
    "        if (threadIdx.x < 64u && threadIdx.y == 0) sh[threadIdx.x] = acc & 7u;\n"
    "        __syncthreads();\n"
    "    }\n"
    "    o[(blockIdx.x * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x] = acc;\n"
    "}\n";

/* pcmp_src's kernel in C for cube shape b (x, y), both cubes alike. */
static void pcmp_ref(const uint32_t *b, int32_t k0, uint32_t u0, uint32_t *want)
{
    const uint32_t nb = b[0] * b[1];
    uint32_t sh[64] = {0}, *acc = calloc(nb, sizeof *acc);
    for (int r = 0; r < 9; r++) {
        const int32_t k = (int32_t)((uint32_t)k0 + (uint32_t)((r - 4) * 9));
        const uint32_t u = u0 + (uint32_t)(r - 4) * 9u;
        for (uint32_t i = 0; i < nb; i++) {
            const uint32_t x = i % b[0];
            uint32_t a = acc[i];
            a += (x < u) * 1u + (x <= u) * 2u + (x > u) * 4u + (x >= u) * 8u;
            a += ((int32_t)x < k) * 16u + ((int32_t)x >= k) * 32u + ((int32_t)x > k) * 64u;
            a += (k > (int32_t)x) * 128u + (u <= x) * 256u + (k < (int32_t)x) * 512u;
            a += (u >= x) * 1024u + (u > x) * 2048u;
            acc[i] = a * 3u + sh[(r * 7) & 63];
        }
        for (uint32_t i = 0; i < nb; i++)
            if (i % b[0] < 64 && i / b[0] == 0)
                sh[i] = acc[i] & 7u;
    }
    for (uint32_t c = 0; c < 2; c++)
        memcpy(want + c * nb, acc, nb * sizeof *acc);
    free(acc);
}

static void test_position_compares(void)
{
    cvm_module *keep = mod;
    if (!use_module(pcmp_src, "pcmp.cu", true))
        return;
    static const struct {
        uint32_t W, b[2];
    } shapes[] = {{32, {64, 2}}, {64, {128, 1}}, {8, {16, 3}}, {32, {48, 2}}, {8, {12, 1}}};
    static const int32_t ks[] = {-5, 0, 1, 20, 33, 60, 100, INT32_MIN + 3, INT32_MAX - 3};
    static const uint32_t us[] = {0, 3, 31, 40, 64, 130, UINT32_MAX - 2, 0x80000010u, 1u << 31};
    static uint32_t got[2 * 128 * 3], want[2 * 128 * 3];
    for (unsigned c = 0; c < sizeof shapes / sizeof shapes[0]; c++)
        for (unsigned v = 0; v < sizeof ks / sizeof ks[0]; v++) {
            const uint32_t *b = shapes[c].b, nb = b[0] * b[1];
            io bufs[] = {{NULL, sizeof(uint32_t) * 2 * nb}};
            cvm_launch_config cfg = kern_cfg(2, b[0]);
            cfg.block[1] = b[1];
            cfg.plane_width = shapes[c].W;
            uint32_t scal[2] = {(uint32_t)ks[v], us[v]};
            char what[112];
            snprintf(what, sizeof what, "position compares, cube %ux%u at width %u, k %d, u %u", b[0], b[1],
                     shapes[c].W, ks[v], us[v]);
            cvm_diag d;
            if (!both_n(what, "pc", &cfg, bufs, 1, scal, 2, (uint8_t *)got, NULL, &d))
                continue;
            pcmp_ref(b, ks[v], us[v], want);
            int bad = -1;
            for (int i = 0; i < (int)(2 * nb) && bad < 0; i++)
                if (got[i] != want[i])
                    bad = i;
            ok(bad < 0, "%s: matches C (first difference at unit %d)", what, bad);
        }
    main_module(keep);
}

static void test_refused(void)
{
    tap_jit_counts c0 = {0, 0, 0, 0}, c1 = {0, 0, 0, 0};
    cvm_jit_counts_get(&c0);
    int32_t got[32];
    io bufs[] = {{NULL, sizeof got}};
    cvm_launch_config cfg = kern_cfg(1, 32);
    cvm_diag d;
    cvm_status st = run_tier("on", "sw", &cfg, bufs, 1, NULL, 0, (uint8_t *)got, &d);
    cvm_jit_counts_get(&c1);
    char why[256];
    cvm_jit_last_refusal(why, sizeof why);
    int bad = -1;
    for (int t = 0; t < 32 && bad < 0; t++)
        if (got[t] != (t % 4 == 0 ? 10 : t % 4 == 1 ? 20 : t))
            bad = t;
    ok(st == CVM_OK && bad < 0 && c1.refused == c0.refused + 1 && c1.launches == c0.launches &&
           strstr(why, "switch"),
       "a kernel the tier does not compile (switch) runs in the interpreter: %s", why);
}

/* .cbs lines that point %g at o[t] (4-byte elements), t = unit_pos.x;
 * they use the registers %g, %t, %off and %four. */
#define CBS_UNIT_ELEMENT                      \
    "    param.ptr.global %g, o, 0\n"         \
    "    sreg.u32 %t, unit_pos.x\n"           \
    "    cvt.i64 %off, %t\n"                  \
    "    const.i64 %four, 4\n"                \
    "    mul.i64 %off, %off, %four\n"         \
    "    ptr.add.ptr.global %g, %g, %off\n"

/* A register an instruction reads and writes at its first mention (read
 * first: it holds the cube-start zero) keeps its inactive lanes: o[t] is
 * the number of set bits of t's low byte. */
static const char acc_src[] =
    ".kernel acc\n"
    ".param o buffer u32 readwrite\n"
    ".reg u32 %t, %i, %b, %a, %one, %zero, %lim\n"
    ".reg i64 %off, %four\n"
    ".reg ptr.global %g\n"
    ".reg bool %q, %e\n"
    CBS_UNIT_ELEMENT
    "    const.u32 %one, 1\n"
    "    const.u32 %zero, 0\n"
    "    const.u32 %lim, 8\n"
    "    const.u32 %i, 0\n"
    "    loop\n"
    "        shr.u32 %b, %t, %i\n"
    "        and.u32 %b, %b, %one\n"
    "        ne.u32 %q, %b, %zero\n"
    "        if %q\n"
    "            add.u32 %a, %a, %one\n"
    "            st.u32 [%g], %a\n"
    "        end\n"
    "        add.u32 %i, %i, %one\n"
    "        ge.u32 %e, %i, %lim\n"
    "    continuing\n"
    "        break_if %e\n"
    "    end\n"
    "    return\n"
    ".end\n";

/* A load into a register whose last write is still forwarded (an add):
 * what reads it after takes the loaded value, o[t] + 1, not t + 2. */
static const char ldfwd_src[] =
    ".kernel ldfwd\n"
    ".param o buffer u32 readwrite\n"
    ".reg u32 %t, %v, %w, %one\n"
    ".reg i64 %off, %four\n"
    ".reg ptr.global %g\n"
    CBS_UNIT_ELEMENT
    "    const.u32 %one, 1\n"
    "    add.u32 %v, %t, %one\n"
    "    ld.u32 %v, [%g]\n"
    "    add.u32 %w, %v, %one\n"
    "    st.u32 [%g], %w\n"
    "    return\n"
    ".end\n";

static void test_registers(void)
{
    cvm_diag d;
    cvm_module *keep = mod;
    if (!use_module(acc_src, "acc.cbs", false))
        return;
    uint32_t got[64];
    io bufs[] = {{NULL, sizeof got}};
    cvm_launch_config cfg = kern_cfg(1, 64);
    both("a register first read and written by one instruction", "acc", &cfg, bufs, 1, NULL,
         (uint8_t *)got, NULL, &d);
    int bad = -1;
    for (int t = 0; t < 64 && bad < 0; t++)
        if (got[t] != (uint32_t)__builtin_popcount(t))
            bad = t;
    ok(bad < 0, "acc: o[t] = popcount(t) natively (first bad unit %d)", bad);
    main_module(keep);
    if (!use_module(ldfwd_src, "ldfwd.cbs", false))
        return;
    uint32_t init[64];
    for (int t = 0; t < 64; t++)
        init[t] = 1000 + 3 * (uint32_t)t;
    io lbufs[] = {{init, sizeof init}};
    both("a load into a forwarded register", "ldfwd", &cfg, lbufs, 1, NULL, (uint8_t *)got, NULL, &d);
    bad = -1;
    for (int t = 0; t < 64 && bad < 0; t++)
        if (got[t] != 1001 + 3 * (uint32_t)t)
            bad = t;
    ok(bad < 0, "ldfwd: o[t] = its old value + 1 natively (first bad unit %d)", bad);
    main_module(keep);

    /* constants live across barriers and back-edge yields (3000 rounds,
     * two planes): made again at each resume, never stored */
    {
        int32_t co[64];
        io cbufs[] = {{NULL, sizeof co}};
        uint32_t cn = 3000;
        cvm_launch_config ccfg = kern_cfg(1, 64);
        both("constants across barriers and yields", "cst", &ccfg, cbufs, 1, &cn, (uint8_t *)co, NULL, &d);
        int32_t ref[64], sh[64];
        for (int t = 0; t < 64; t++)
            ref[t] = t;
        for (uint32_t i = 0; i < cn; i++) {
            for (int t = 0; t < 64; t++)
                ref[t] += (int32_t)((i & 3) * 4 + 7);
            if ((i & 255) == 0) {
                memcpy(sh, ref, sizeof sh);
                for (int t = 0; t < 64; t++)
                    ref[t] ^= sh[(t + 1) & 63];
            }
        }
        bad = -1;
        for (int t = 0; t < 64 && bad < 0; t++)
            if (co[t] != ref[t])
                bad = t;
        ok(bad < 0, "cst: the C model's values (first bad unit %d)", bad);
    }

    /* unchecked, a shuffle reads inactive member lanes' registers: their
     * zeroes, not what the active lanes computed for them */
    int32_t sh[32];
    io sbufs[] = {{NULL, sizeof sh}};
    cfg = kern_cfg(1, 32);
    cfg.unchecked = 1;
    both("a shuffle reading inactive lanes (unchecked)", "shin", &cfg, sbufs, 1, NULL, (uint8_t *)sh,
         NULL, &d);
    bad = -1;
    for (int t = 0; t < 16 && bad < 0; t++)
        if (sh[t] != 0)
            bad = t;
    ok(bad < 0, "shin: the inactive lanes' w reads 0 (first bad unit %d)", bad);
}

static void test_policy(void)
{
    /* off never compiles; auto compiles once a kernel's earlier launches
     * have run 2^22 units (here: at the fifth launch of 2^20 units) */
    uint32_t n = 1;
    int32_t got[1];
    io bufs[] = {{NULL, sizeof got}};
    cvm_launch_config cfg = kern_cfg(4096, 256);
    cvm_diag d;
    uint64_t l0 = native_launches();
    run_tier("off", "ctl", &cfg, bufs, 1, &n, 1, (uint8_t *)got, &d);
    ok(native_launches() == l0, "CUBEVM_JIT=off runs the interpreter");
    /* a module of its own, so no earlier launch counts */
    cvm_diag dl;
    cvm_module *m2 = kern_load_cuda(src(), "native_policy.cu", &dl), *keep = mod;
    mod = m2;
    uint64_t seen[6];
    for (int i = 0; i < 6; i++) {
        run_tier("auto", "ctl", &cfg, bufs, 1, &n, 1, (uint8_t *)got, &d);
        seen[i] = native_launches();
    }
    mod = keep;
    cvm_module_free(m2);
    ok(seen[3] == l0 && seen[4] == l0 + 1 && seen[5] == l0 + 2,
       "CUBEVM_JIT=auto: the interpreter for the first 4 launches of 2^20 units, native code "
       "once they have run 2^22 units in all: %llu %llu %llu", (unsigned long long)(seen[3] - l0),
       (unsigned long long)(seen[4] - l0), (unsigned long long)(seen[5] - l0));
    /* unset is auto */
    cvm_module *m3 = kern_load_cuda(src(), "native_unset.cu", &dl);
    mod = m3;
    unsetenv("CUBEVM_JIT");
    const uint64_t l1 = native_launches();
    cvm_buffer *ub = kern_buf("o", sizeof got, NULL);
    cvm_arg ua[2] = {kern_arg_buf(ub), kern_arg_u32(&n)};
    const cvm_kernel *uk = NULL;
    uint64_t unset[6];
    for (int i = 0; i < 6; i++) {
        cvm_status su = cvm_kernel_get(mod, "ctl", &uk, &d);
        if (!su)
            su = cvm_launch(kern_stream(), uk, &cfg, ua, 2, &d);
        if (!su)
            su = cvm_stream_sync(kern_stream(), &d);
        unset[i] = su ? UINT64_MAX : native_launches();
    }
    cvm_buffer_free(ub);
    mod = keep;
    cvm_module_free(m3);
    ok(unset[3] == l1 && unset[4] == l1 + 1 && unset[5] == l1 + 2,
       "CUBEVM_JIT unset is auto: native code from the 5th launch of 2^20 units");

    /* the launch's tier overrides CUBEVM_JIT both ways */
    cfg = kern_cfg(1, 32);
    cfg.tier = CVM_TIER_INTERP;
    l0 = native_launches();
    cvm_status st = run_tier("on", "ctl", &cfg, bufs, 1, &n, 1, (uint8_t *)got, &d);
    ok(!st && native_launches() == l0, "tier CVM_TIER_INTERP interprets under CUBEVM_JIT=on");
    cfg.tier = CVM_TIER_NATIVE;
    st = run_tier("off", "ctl", &cfg, bufs, 1, &n, 1, (uint8_t *)got, &d);
    ok(!st && native_launches() == l0 + 1, "tier CVM_TIER_NATIVE runs native code under CUBEVM_JIT=off");
    st = run_tier("bogus", "ctl", &cfg, bufs, 1, &n, 1, (uint8_t *)got, &d);
    ok(!st && native_launches() == l0 + 2, "an explicit tier does not read CUBEVM_JIT (=bogus)");
    /* what runs each tier */
    cvm_diag da;
    ok(cvm_tier_available(CVM_TIER_INTERP, &da) == CVM_OK && !strcmp(da.message, "the interpreter"),
       "cvm_tier_available(CVM_TIER_INTERP): %s", da.message);
    ok(cvm_tier_available(CVM_TIER_NATIVE, &da) == CVM_OK && strstr(da.message, "native code through LLVM 14 ("),
       "cvm_tier_available(CVM_TIER_NATIVE): %s", da.message);
    ok(cvm_tier_available(CVM_TIER_DEFAULT, &da) == CVM_INVALID_ARGUMENT &&
           cvm_tier_available((cvm_tier)9, NULL) == CVM_INVALID_ARGUMENT,
       "cvm_tier_available refuses CVM_TIER_DEFAULT (a policy) and 9: %s", da.message);
    /* bad input: a tier outside the enum, a CUBEVM_JIT no one knows */
    cfg.tier = 7;
    st = run_tier("on", "ctl", &cfg, bufs, 1, &n, 1, (uint8_t *)got, &d);
    ok(st == CVM_INVALID_ARGUMENT && strstr(d.message, "tier 7"), "tier 7 is refused: %s", d.message);
    cfg.tier = CVM_TIER_DEFAULT;
    l0 = native_launches();
    st = run_tier("bogus", "ctl", &cfg, bufs, 1, &n, 1, (uint8_t *)got, &d);
    ok(st == CVM_INVALID_ARGUMENT && strstr(d.message, "CUBEVM_JIT=bogus") && native_launches() == l0,
       "CUBEVM_JIT=bogus fails a default-tier launch, naming it: %s", d.message);
}

int main(void)
{
    if (!kern_open())
        return 1;
    cvm_diag d;
    mod = kern_load_cuda(src(), "native.cu", &d);
    if (!mod) {
        ok(0, "load the kernels");
        return done_testing();
    }
    if (!cvm_jit_counts_get) {
        skip("not linked with libcubevm's native tier counters");
        return done_testing();
    }
    {
        cvm_diag da;
        if (cvm_tier_available(CVM_TIER_NATIVE, &da) != CVM_OK) {
            skip("no native tier here: %s", da.message);
            return done_testing();
        }
    }
    test_control();
    test_barriers();
    test_barrier_masks();
    test_scatter();
    test_lanes();
    test_division();
    test_divide_by_one();
    test_exp();
    test_minmax();
    test_no_nan();
    test_split();
    test_raw_nans();
    test_faults();
    test_indexes();
    test_moved_pointer();
    test_wide_indexes();
    test_split_indexes();
    test_full_plane_edges();
    test_runs();
    test_shared_split();
    test_shared_aligned();
    test_top_writes();
    test_shared_columns();
    test_shared_steps();
    test_uniform_shifts();
    test_versioned();
    test_full_mask();
    test_rows();
    test_pairs();
    test_grid_stride();
    test_grid_compares();
    test_position_compares();
    test_deopt();
    test_unborn();
    test_inductive();
    test_settled();
    test_uniform_resume();
    test_remake();
    test_plane_uniform();
    test_dead_at_stop();
    test_fresh();
    test_chain();
    test_refused();
    test_registers();
    test_policy();
    cvm_module_free(mod);
    kern_close();
    return done_testing();
}
