/*
 * cases.c - the inputs and plain C result of each bench case, the `c`
 * contender (straightforward OpenMP loops, built -O3 -march=native
 * -ffp-contract=off), and the probes behind the `floor` contender: a
 * STREAM triad, a read-only sum and an FMA peak loop, run in the same
 * process as everything they are compared with.
 */
#include "bench.h"

#include <immintrin.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float *c_out;      /* output of the c contender's last run */
static double c_sum_out;  /* the sum case's result */

/* ---- the straightforward loops ---- */

static void c_pool(const bench_case *bc, const float *in, float *out)
{
    int n = bc->n, h = bc->h, w = bc->w, c = bc->c;
#pragma omp parallel for collapse(2)
    for (int b = 0; b < n; b++)
        for (int oy = 0; oy < bc->oh; oy++)
            for (int ox = 0; ox < bc->ow; ox++) {
                float *o = out + (((size_t)b * bc->oh + oy) * bc->ow + ox) * c;
                for (int ch = 0; ch < c; ch++) o[ch] = -INFINITY;
                for (int ky = 0; ky < bc->k; ky++) {
                    int y = oy * bc->s - bc->p + ky;
                    if (y < 0 || y >= h) continue;
                    for (int kx = 0; kx < bc->k; kx++) {
                        int x = ox * bc->s - bc->p + kx;
                        if (x < 0 || x >= w) continue;
                        const float *i = in + (((size_t)b * h + y) * w + x) * c;
                        for (int ch = 0; ch < c; ch++) o[ch] = i[ch] > o[ch] ? i[ch] : o[ch];
                    }
                }
            }
}

static void c_conv(const bench_case *bc, const float *in, const float *wt, float *out)
{
    int h = bc->h, w = bc->w, k = bc->k, p = bc->p;
    /* accumulation order per output: channel, ky, kx, as in the cubevm kernel */
#pragma omp parallel for collapse(2)
    for (int b = 0; b < bc->n; b++)
        for (int oc = 0; oc < bc->co; oc++) {
            float *o = out + ((size_t)b * bc->co + oc) * h * w;
            memset(o, 0, sizeof(float) * h * w);
            for (int c = 0; c < bc->ci; c++)
                for (int ky = 0; ky < k; ky++)
                    for (int kx = 0; kx < k; kx++) {
                        float wv = wt[((oc * bc->ci + c) * k + ky) * k + kx];
                        const float *i = in + ((size_t)b * bc->ci + c) * h * w;
                        for (int y = 0; y < h; y++) {
                            int yy = y - p + ky;
                            if (yy < 0 || yy >= h) continue;
                            int x0 = p - kx > 0 ? p - kx : 0;
                            int x1 = w + p - kx < w ? w + p - kx : w;
                            for (int x = x0; x < x1; x++)
                                o[y * w + x] += i[yy * w + x - p + kx] * wv;
                        }
                    }
        }
}

static void c_matmul(int n, const float *a, const float *b, float *c)
{
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
        float *ci = c + (size_t)i * n;
        for (int j = 0; j < n; j++) ci[j] = 0.0f;
        for (int k = 0; k < n; k++) {
            float aik = a[(size_t)i * n + k];
            const float *bk = b + (size_t)k * n;
            for (int j = 0; j < n; j++) ci[j] += aik * bk[j];
        }
    }
}

static void c_softmax(int rows, int cols, const float *in, float *out)
{
#pragma omp parallel for
    for (int r = 0; r < rows; r++) {
        const float *x = in + (size_t)r * cols;
        float *y = out + (size_t)r * cols;
        float m = -INFINITY, s = 0.0f;
        for (int j = 0; j < cols; j++) m = x[j] > m ? x[j] : m;
        for (int j = 0; j < cols; j++) s += expf(x[j] - m);
        float inv = 1.0f / s;
        for (int j = 0; j < cols; j++) y[j] = expf(x[j] - m) * inv;
    }
}

static void c_transpose(int rows, int cols, const float *in, float *out)
{
#pragma omp parallel for collapse(2)
    for (int by = 0; by < rows; by += 32)
        for (int bx = 0; bx < cols; bx += 32)
            for (int y = by; y < by + 32 && y < rows; y++)
                for (int x = bx; x < bx + 32 && x < cols; x++)
                    out[(size_t)x * rows + y] = in[(size_t)y * cols + x];
}

static float c_sum(long n, const float *x)
{
    float s = 0.0f;
#pragma omp parallel for simd reduction(+ : s)
    for (long i = 0; i < n; i++) s += x[i];
    return s;
}

static void c_run_case(const bench_case *bc, float *out)
{
    const float *a = bc->in[0], *b = bc->in[1];
    long n = bc->len;
    switch (bc->kind) {
    case K_POOL: c_pool(bc, a, out); break;
    case K_VADD:
#pragma omp parallel for
        for (long i = 0; i < n; i++) out[i] = a[i] + b[i];
        break;
    case K_SAXPY: {
        float al = bc->alpha;
#pragma omp parallel for
        for (long i = 0; i < n; i++) out[i] = al * a[i] + b[i];
        break;
    }
    case K_SUM: out[0] = c_sum(n, a); break;
    case K_SOFTMAX: c_softmax(bc->rows, bc->cols, a, out); break;
    case K_TRANSPOSE: c_transpose(bc->rows, bc->cols, a, out); break;
    case K_CONV: c_conv(bc, a, b, out); break;
    case K_MATMUL: c_matmul(bc->rows, a, b, out); break;
    case K_LAUNCH: {
        /* the C counterpart of an empty launch: an empty parallel region */
        int dummy = 0;
#pragma omp parallel
        { if (omp_get_thread_num() < 0) dummy++; }
        out[0] = (float)dummy;
        break;
    }
    }
}

/* ---- case preparation ---- */

void c_prepare_case(bench_case *bc)
{
    size_t in0 = 0, in1 = 0, out = 0;
    double bytes = 0, flops = 0;
    bc->atol = 0;
    bc->rtol = 0;
    switch (bc->kind) {
    case K_POOL:
        bc->oh = (bc->h + 2 * bc->p - bc->k) / bc->s + 1;
        bc->ow = (bc->w + 2 * bc->p - bc->k) / bc->s + 1;
        in0 = (size_t)bc->n * bc->h * bc->w * bc->c;
        out = (size_t)bc->n * bc->oh * bc->ow * bc->c;
        bytes = 4.0 * (in0 + out);
        break;
    case K_VADD: in0 = in1 = out = bc->len; bytes = 12.0 * bc->len; flops = bc->len; break;
    case K_SAXPY:
        in0 = in1 = out = bc->len; bytes = 12.0 * bc->len; flops = 2.0 * bc->len;
        bc->atol = 1e-6; bc->rtol = 1e-6; /* an fma in another contender may round once less */
        break;
    case K_SUM:
        in0 = bc->len; out = 1; bytes = 4.0 * bc->len; flops = bc->len;
        bc->rtol = 1e-4;
        break;
    case K_SOFTMAX:
        in0 = out = (size_t)bc->rows * bc->cols; bytes = 8.0 * in0; flops = 4.0 * in0;
        bc->atol = 1e-9; bc->rtol = 2e-5; /* expf differs by a few ulp between libraries */
        break;
    case K_TRANSPOSE: in0 = out = (size_t)bc->rows * bc->cols; bytes = 8.0 * in0; break;
    case K_CONV:
        in0 = (size_t)bc->n * bc->ci * bc->h * bc->w;
        in1 = (size_t)bc->co * bc->ci * bc->k * bc->k;
        out = (size_t)bc->n * bc->co * bc->h * bc->w;
        bytes = 4.0 * (in0 + in1 + out);
        flops = 2.0 * out * bc->ci * bc->k * bc->k;
        bc->atol = 1e-4; bc->rtol = 1e-4;
        break;
    case K_MATMUL:
        in0 = in1 = out = (size_t)bc->rows * bc->rows;
        bytes = 12.0 * in0;
        flops = 2.0 * bc->rows * (double)bc->rows * bc->rows;
        bc->atol = 1e-3; bc->rtol = 1e-4;
        break;
    case K_LAUNCH: out = 1; break;
    }
    bc->in_count[0] = in0;
    bc->in_count[1] = in1;
    bc->n_in = in1 ? 2 : in0 ? 1 : 0;
    bc->out_count = out;
    bc->bytes = bytes;
    bc->flops = flops;
    bc->in[0] = bc->in[1] = NULL;
    uint64_t seed = 0x5eed0000u + (uint64_t)bc->kind * 16 + (uint64_t)bc->k;
    for (int i = 0; i < bc->n_in; i++) {
        bc->in[i] = xalloc(bc->in_count[i] * sizeof(float));
        /* sums stay positive so their relative error means something */
        fill_random(bc->in[i], bc->in_count[i], seed + (uint64_t)i,
                    bc->kind == K_SUM ? 0.5f : -1.0f, bc->kind == K_SUM ? 1.5f : 1.0f);
    }
    bc->ref = xalloc((out ? out : 1) * sizeof(float));
    if (bc->kind == K_SUM) {
        double s = 0; /* the reference sum in double: every contender's float sum is near it */
        for (long i = 0; i < bc->len; i++) s += bc->in[0][i];
        bc->ref[0] = (float)s;
    } else {
        c_run_case(bc, bc->ref);
    }
}

void c_release_case(bench_case *bc)
{
    for (int i = 0; i < bc->n_in; i++) free(bc->in[i]);
    free(bc->ref);
    bc->in[0] = bc->in[1] = bc->ref = NULL;
}

/* ---- the c contender ---- */

static int c_setup(const bench_case *bc, char *why, size_t whylen)
{
    (void)why; (void)whylen;
    omp_set_num_threads(g_threads);
    c_out = xalloc((bc->out_count ? bc->out_count : 1) * sizeof(float));
    memset(c_out, 0, bc->out_count * sizeof(float)); /* first touch outside the timing */
    return PREP_OK;
}

static double c_run(const bench_case *bc, char *why, size_t whylen)
{
    (void)why; (void)whylen;
    double t0 = now_ms();
    c_run_case(bc, c_out);
    double t1 = now_ms();
    if (bc->kind == K_SUM) c_sum_out = c_out[0];
    return t1 - t0;
}

static const float *c_output(const bench_case *bc) { (void)bc; return c_out; }
static void c_teardown(const bench_case *bc) { (void)bc; free(c_out); c_out = NULL; }

contender c_contender = { "c", c_setup, c_run, c_output, c_teardown, "" };

/* ---- floor probes and the floor contender ---- */

#define PROBE_N (16L << 20) /* floats per array: 64 MiB, beyond the caches */

static float *pa, *pb, *pc;
static double fma_peak_gflops;

static double triad_pass_ms(void)
{
    double t0 = now_ms();
#pragma omp parallel for
    for (long i = 0; i < PROBE_N; i++) pa[i] = pb[i] + 3.0f * pc[i];
    return now_ms() - t0;
}

static double read_pass_ms(void)
{
    volatile float sink;
    double t0 = now_ms();
    sink = c_sum(PROBE_N, pb);
    double t = now_ms() - t0;
    (void)sink;
    return t;
}

void probe_init(void)
{
    pa = xalloc(PROBE_N * 4);
    pb = xalloc(PROBE_N * 4);
    pc = xalloc(PROBE_N * 4);
    omp_set_num_threads(g_threads);
    fill_random(pb, PROBE_N, 11, 0.0f, 1.0f);
    fill_random(pc, PROBE_N, 12, 0.0f, 1.0f);
#pragma omp parallel for
    for (long i = 0; i < PROBE_N; i++) pa[i] = 0.0f;
    fma_peak_gflops = probe_fma_gflops();
}

void probe_fini(void)
{
    free(pa); free(pb); free(pc);
    pa = pb = pc = NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* median GB/s of `runs` passes of the triad (read = 0) or the read-only sum */
double probe_gbs(int read, int runs)
{
    double ms[64];
    if (runs > 64) runs = 64;
    omp_set_num_threads(g_threads);
    for (int r = 0; r < runs; r++) ms[r] = read ? read_pass_ms() : triad_pass_ms();
    qsort(ms, (size_t)runs, sizeof(double), cmp_double);
    return (read ? 4.0 : 12.0) * PROBE_N / (ms[runs / 2] * 1e6);
}

double probe_peak_gflops(void) { return fma_peak_gflops; }

/* The floor runs one probe pass per round, interleaved with the others, and
   reports the time the case's bytes would take at that pass's bandwidth, or
   its flops at the FMA peak when that is longer. */
static int f_setup(const bench_case *bc, char *why, size_t whylen)
{
    if (bc->kind == K_LAUNCH) { snprintf(why, whylen, "no floor for a launch"); return PREP_NA; }
    omp_set_num_threads(g_threads);
    return PREP_OK;
}

static double f_run(const bench_case *bc, char *why, size_t whylen)
{
    (void)why; (void)whylen;
    int read = bc->kind == K_SUM;
    double ms = read ? read_pass_ms() : triad_pass_ms();
    double gbs = (read ? 4.0 : 12.0) * PROBE_N / (ms * 1e6);
    double t_bytes = bc->bytes / (gbs * 1e6), t_flops = bc->flops / (fma_peak_gflops * 1e6);
    return t_bytes > t_flops ? t_bytes : t_flops;
}

static const float *f_output(const bench_case *bc) { return bc->ref; }
static void f_teardown(const bench_case *bc) { (void)bc; }

contender floor_contender = { "floor", f_setup, f_run, f_output, f_teardown, "" };

/* FMA throughput with enough independent chains to cover the latency */
double probe_fma_gflops(void)
{
    const long iters = 20L * 1000 * 1000;
    double best = 0;
    omp_set_num_threads(g_threads);
    for (int rep = 0; rep < 3; rep++) {
        double t0 = now_ms();
        float total = 0;
#pragma omp parallel reduction(+ : total)
        {
#if defined(__AVX512F__)
            __m512 acc[12], m = _mm512_set1_ps(0.999999f), d = _mm512_set1_ps(1e-7f);
            for (int j = 0; j < 12; j++) acc[j] = _mm512_set1_ps((float)j);
            for (long i = 0; i < iters; i++)
                for (int j = 0; j < 12; j++) acc[j] = _mm512_fmadd_ps(acc[j], m, d);
            for (int j = 0; j < 12; j++) total += _mm512_reduce_add_ps(acc[j]);
#define FMA_LANES 16
#elif defined(__AVX2__) && defined(__FMA__)
            __m256 acc[12], m = _mm256_set1_ps(0.999999f), d = _mm256_set1_ps(1e-7f);
            for (int j = 0; j < 12; j++) acc[j] = _mm256_set1_ps((float)j);
            for (long i = 0; i < iters; i++)
                for (int j = 0; j < 12; j++) acc[j] = _mm256_fmadd_ps(acc[j], m, d);
            float tmp[8];
            for (int j = 0; j < 12; j++) {
                _mm256_storeu_ps(tmp, acc[j]);
                for (int l = 0; l < 8; l++) total += tmp[l];
            }
#define FMA_LANES 8
#else
            float acc[12];
            for (int j = 0; j < 12; j++) acc[j] = (float)j;
            for (long i = 0; i < iters; i++)
                for (int j = 0; j < 12; j++) acc[j] = fmaf(acc[j], 0.999999f, 1e-7f);
            for (int j = 0; j < 12; j++) total += acc[j];
#define FMA_LANES 1
#endif
        }
        double t = now_ms() - t0;
        volatile float sink = total;
        (void)sink;
        double g = 2.0 * FMA_LANES * 12 * iters * g_threads / (t * 1e6);
        if (g > best) best = g;
    }
    return best;
}
