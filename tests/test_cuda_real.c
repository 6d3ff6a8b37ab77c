/*
 * test_cuda_real.c - kernels written the way real-world CUDA code is:
 * llm.c-style layernorm, softmax, GELU and attention, tiled SGEMM with
 * float4 loads, the Programming Guide's cooperative-groups reductions and
 * aggregated atomics, Blelloch scan, the textbook's privatized histogram,
 * device lambdas, helper_math-style float3/float4 operators, a minimal
 * flash attention, Sobel (tests/cuda/{llmc_*,sgemm_vec,cg_guide,
 * lambda_reduce,blelloch_scan,pmpp_histogram,particles_helper_math,
 * flash_attn_minimal,sobel}.cu). Each runs at several sizes,
 * most not multiples of the block, against a reference written here in
 * plain C (harness: cuda_run.h).
 */
#include "cuda_run.h"

/* ---- llm.c layernorm: n rows of C columns ---- */

static uint32_t cols_for(uint32_t n) { return n * 13 % 300 + 5; }

static int t_layernorm(run *r, uint32_t n)
{
    uint32_t N = n, C = cols_for(n), bs = 128;
    float *inp = rand_f32(r, (size_t)N * C, -2, 2), *w = rand_f32(r, C, -1, 1), *b = rand_f32(r, C, -1, 1);
    float *out = NEW(r, float, (size_t)N * C), *mean = NEW(r, float, N), *rstd = NEW(r, float, N);
    double *want = NEW(r, double, (size_t)N * C), *wm = NEW(r, double, N), *wr = NEW(r, double, N);
    cvm_buffer *bo = arg_buf(r, "out", 4 * (size_t)N * C, NULL);
    cvm_buffer *bm = arg_buf(r, "mean", 4 * (size_t)N, NULL);
    cvm_buffer *brs = arg_buf(r, "rstd", 4 * (size_t)N, NULL);
    arg_buf(r, "inp", 4 * (size_t)N * C, inp);
    arg_buf(r, "weight", 4 * (size_t)C, w);
    arg_buf(r, "bias", 4 * (size_t)C, b);
    arg_i32(r, "N", (int32_t)N);
    arg_i32(r, "C", (int32_t)C);
    LAUNCH1(r, cdiv(N * 32, bs), bs);
    get(r, bo, out, 4 * (size_t)N * C);
    get(r, bm, mean, 4 * (size_t)N);
    get(r, brs, rstd, 4 * (size_t)N);
    for (uint32_t i = 0; i < N; i++) {
        const float *x = inp + (size_t)i * C;
        double m = 0, v = 0;
        for (uint32_t c = 0; c < C; c++)
            m += x[c];
        m /= C;
        for (uint32_t c = 0; c < C; c++)
            v += (x[c] - m) * (x[c] - m);
        double s = 1 / sqrt(v / C + 1e-5);
        wm[i] = m;
        wr[i] = s;
        for (uint32_t c = 0; c < C; c++)
            want[(size_t)i * C + c] = s * (x[c] - m) * w[c] + b[c];
    }
    return near_f32(r, "mean", mean, wm, N, 1e-5, 1e-5) && near_f32(r, "rstd", rstd, wr, N, 1e-5, 1e-4) &&
           near_f32(r, "out", out, want, (size_t)N * C, 1e-4, 1e-4);
}

/* ---- llm.c softmax: n rows ---- */

static int softmax(run *r, uint32_t n, int online)
{
    uint32_t N = n, C = cols_for(n) * 3, bs = 128;
    float *inp = rand_f32(r, (size_t)N * C, -8, 8), *out = NEW(r, float, (size_t)N * C);
    double *want = NEW(r, double, (size_t)N * C);
    cvm_buffer *bo = arg_buf(r, "out", 4 * (size_t)N * C, NULL);
    arg_buf(r, "inp", 4 * (size_t)N * C, inp);
    arg_i32(r, "N", (int32_t)N);
    arg_i32(r, "C", (int32_t)C);
    if (online)
        LAUNCH1(r, cdiv(N, bs / 32), bs);
    else
        launch(r, N, 1, 1, bs, 1, 1, 2 * (bs / 32) * 4);
    get(r, bo, out, 4 * (size_t)N * C);
    for (uint32_t i = 0; i < N; i++) {
        const float *x = inp + (size_t)i * C;
        double m = -INFINITY, s = 0;
        for (uint32_t c = 0; c < C; c++)
            m = x[c] > m ? x[c] : m;
        for (uint32_t c = 0; c < C; c++)
            s += exp(x[c] - m);
        for (uint32_t c = 0; c < C; c++)
            want[(size_t)i * C + c] = exp(x[c] - m) / s;
    }
    return near_f32(r, "out", out, want, (size_t)N * C, 1e-7, 1e-5);
}
static int t_softmax4(run *r, uint32_t n) { return softmax(r, n, 0); }
static int t_softmax_online(run *r, uint32_t n) { return softmax(r, n, 1); }

/* ---- SGEMM, 128x128 tiles of 8x8 per thread: n = M/128 * 10000 + N/128 * 100 + K/8 ---- */

static int t_sgemm(run *r, uint32_t n)
{
    uint32_t M = n / 10000 * 128, N = n / 100 % 100 * 128, K = n % 100 * 8;
    float alpha = 1.5f, beta = -0.5f;
    float *A = rand_f32(r, (size_t)M * K, -1, 1), *B = rand_f32(r, (size_t)K * N, -1, 1);
    float *C = rand_f32(r, (size_t)M * N, -1, 1), *got = NEW(r, float, (size_t)M * N);
    double *want = NEW(r, double, (size_t)M * N);
    arg_i32(r, "M", (int32_t)M);
    arg_i32(r, "N", (int32_t)N);
    arg_i32(r, "K", (int32_t)K);
    arg_f32(r, "alpha", alpha);
    arg_f32(r, "beta", beta);
    arg_buf(r, "A", 4 * (size_t)M * K, A);
    arg_buf(r, "B", 4 * (size_t)K * N, B);
    cvm_buffer *bc = arg_buf(r, "C", 4 * (size_t)M * N, C);
    launch(r, N / 128, M / 128, 1, 256, 1, 1, 0);
    get(r, bc, got, 4 * (size_t)M * N);
    for (uint32_t i = 0; i < M; i++)
        for (uint32_t j = 0; j < N; j++) {
            double s = 0;
            for (uint32_t k = 0; k < K; k++)
                s += (double)A[(size_t)i * K + k] * B[(size_t)k * N + j];
            want[(size_t)i * N + j] = alpha * s + beta * C[(size_t)i * N + j];
        }
    return near_f32(r, "C", got, want, (size_t)M * N, 1e-4, 1e-5);
}

/* ---- Programming Guide cooperative groups ---- */

static int cg_sum(run *r, uint32_t n)
{
    uint32_t bs = 128, g = 3;
    int32_t *in = rand_i32(r, n, -1000, 1000), got = 0;
    cvm_buffer *bsum = arg_buf(r, "sum", 4, NULL);
    arg_buf(r, "input", 4 * (size_t)n, in);
    arg_i32(r, "n", (int32_t)n);
    launch(r, g, 1, 1, bs, 1, 1, 4 * bs);
    get(r, bsum, &got, 4);
    int32_t want = 0;
    for (uint32_t i = 0; i < n / 4 * 4; i++) /* partial_sum reads whole int4s only */
        want += in[i];
    return same_i32(r, "sum", &got, &want, 1);
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static int t_filter(run *r, uint32_t n)
{
    uint32_t bs = 64;
    int32_t *src = rand_i32(r, n, -50, 50), *dst = NEW(r, int32_t, n), *want = NEW(r, int32_t, n);
    int32_t count = 0, nwant = 0;
    cvm_buffer *bd = arg_buf(r, "dst", 4 * (size_t)n, NULL);
    cvm_buffer *bn = arg_buf(r, "nres", 4, NULL);
    arg_buf(r, "src", 4 * (size_t)n, src);
    arg_i32(r, "n", (int32_t)n);
    LAUNCH1(r, cdiv(n, bs), bs);
    get(r, bn, &count, 4);
    get(r, bd, dst, 4 * (size_t)n);
    for (uint32_t i = 0; i < n; i++)
        if (src[i] > 0)
            want[nwant++] = src[i];
    if (!same_i32(r, "nres", &count, &nwant, 1))
        return 0;
    qsort(dst, (size_t)count, 4, cmp_i32); /* the order is the atomics' */
    qsort(want, (size_t)nwant, 4, cmp_i32);
    return same_i32(r, "dst (sorted)", dst, want, (size_t)nwant);
}

/* ---- lambdas ---- */

static int t_sumsq_max(run *r, uint32_t n)
{
    uint32_t bs = 96, g = cdiv(n, bs) > 4 ? 4 : cdiv(n, bs);
    float scale = 0.5f, shift = 0.25f;
    float *x = rand_f32(r, n, -3, 3), *sums = NEW(r, float, g), *maxes = NEW(r, float, g);
    double *ws = NEW(r, double, g), *wm = NEW(r, double, g);
    arg_buf(r, "x", 4 * (size_t)n, x);
    cvm_buffer *bs_ = arg_buf(r, "sums", 4 * (size_t)g, NULL);
    cvm_buffer *bm = arg_buf(r, "maxes", 4 * (size_t)g, NULL);
    arg_i32(r, "n", (int32_t)n);
    arg_f32(r, "scale", scale);
    arg_f32(r, "shift", shift);
    LAUNCH1(r, g, bs);
    get(r, bs_, sums, 4 * (size_t)g);
    get(r, bm, maxes, 4 * (size_t)g);
    for (uint32_t i = 0; i < bs * g; i++) { /* threads past n add 0 and max 0 */
        uint32_t blk = i / bs;
        for (uint32_t e = i; e < n; e += bs * g) {
            ws[blk] += (double)scale * x[e] * x[e] + shift;
            wm[blk] = fabs(x[e]) > wm[blk] ? fabs(x[e]) : wm[blk];
        }
    }
    return near_f32(r, "sums", sums, ws, g, 1e-4, 1e-5) && near_f32(r, "maxes", maxes, wm, g, 0, 0);
}

static int t_clamp_count(run *r, uint32_t n)
{
    uint32_t bs = 64;
    int lo = -20, hi = 35;
    int32_t *in = rand_i32(r, n, -100, 100), *out = NEW(r, int32_t, n), *want = NEW(r, int32_t, n);
    int32_t count = 0, wcount = 0;
    arg_buf(r, "in", 4 * (size_t)n, in);
    cvm_buffer *bo = arg_buf(r, "out", 4 * (size_t)n, NULL);
    cvm_buffer *bc = arg_buf(r, "count", 4, NULL);
    arg_i32(r, "n", (int32_t)n);
    arg_i32(r, "lo", lo);
    arg_i32(r, "hi", hi);
    LAUNCH1(r, cdiv(n, bs), bs);
    get(r, bo, out, 4 * (size_t)n);
    get(r, bc, &count, 4);
    for (uint32_t i = 0; i < n; i++) {
        want[i] = in[i] < lo ? lo : in[i] > hi ? hi : in[i];
        wcount += in[i] < lo || in[i] > hi;
    }
    return same_i32(r, "out", out, want, n) && same_i32(r, "count", &count, &wcount, 1);
}

/* ---- Blelloch scan: integer-valued floats, so every order of additions is exact ---- */

static int t_blelloch(run *r, uint32_t n)
{
    uint32_t bs = 64, seg = 2 * bs, g = cdiv(n, seg);
    float *in = NEW(r, float, n), *out = NEW(r, float, n), *sums = NEW(r, float, g);
    float *want = NEW(r, float, n), *wsum = NEW(r, float, g);
    for (uint32_t i = 0; i < n; i++)
        in[i] = (float)rndi(-8, 8);
    cvm_buffer *bo = arg_buf(r, "g_odata", 4 * (size_t)n, NULL);
    arg_buf(r, "g_idata", 4 * (size_t)n, in);
    cvm_buffer *bsum = arg_buf(r, "g_sums", 4 * (size_t)g, NULL);
    arg_i32(r, "n", (int32_t)n);
    uint32_t padded = seg + seg / 32;
    launch(r, g, 1, 1, bs, 1, 1, 4 * padded);
    get(r, bo, out, 4 * (size_t)n);
    get(r, bsum, sums, 4 * (size_t)g);
    for (uint32_t b = 0; b < g; b++) {
        float s = 0;
        for (uint32_t i = b * seg; i < (b + 1) * seg; i++) {
            if (i < n) {
                want[i] = s;
                s += in[i];
            }
        }
        wsum[b] = s;
    }
    return same_f32(r, "g_odata", out, want, n) && same_f32(r, "g_sums", sums, wsum, g);
}

/* ---- PMPP text histogram ---- */

static int t_histo(run *r, uint32_t n)
{
    uint32_t bs = 64, g = cdiv(n, bs) > 6 ? 6 : cdiv(n, bs), got[7] = {0}, want[7] = {0};
    char *text = NEW(r, char, n);
    static const char extra[] = " .,ABZ{`";
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = rnd() % 34;
        text[i] = k < 26 ? (char)('a' + k) : extra[k - 26];
        if (text[i] >= 'a' && text[i] <= 'z')
            want[(text[i] - 'a') / 4]++;
    }
    arg_buf(r, "data", n, text);
    arg_u32(r, "length", n);
    cvm_buffer *bh = arg_buf(r, "histo", 4 * 7, NULL);
    LAUNCH1(r, g, bs);
    get(r, bh, got, 4 * 7);
    return same_u32(r, "histo", got, want, 7);
}

/* ---- llm.c GELU, residual, attention scores ---- */

static int t_gelu(run *r, uint32_t n)
{
    float *in = rand_f32(r, n, -5, 5), *out = NEW(r, float, n);
    double *want = NEW(r, double, n);
    cvm_buffer *bo = arg_buf(r, "out", 4 * (size_t)n, NULL);
    arg_buf(r, "inp", 4 * (size_t)n, in);
    arg_i32(r, "N", (int32_t)n);
    LAUNCH1(r, cdiv(n, 128), 128);
    get(r, bo, out, 4 * (size_t)n);
    for (uint32_t i = 0; i < n; i++) {
        double x = in[i];
        want[i] = 0.5 * x * (1 + tanh(sqrt(2 / 3.14159265358979323846) * (x + 0.044715 * x * x * x)));
    }
    return near_f32(r, "out", out, want, n, 1e-6, 1e-5);
}

static int t_residual(run *r, uint32_t n)
{
    float *a = rand_f32(r, n, -5, 5), *b = rand_f32(r, n, -5, 5), *out = NEW(r, float, n);
    float *want = NEW(r, float, n);
    cvm_buffer *bo = arg_buf(r, "out", 4 * (size_t)n, NULL);
    arg_buf(r, "inp1", 4 * (size_t)n, a);
    arg_buf(r, "inp2", 4 * (size_t)n, b);
    arg_i32(r, "N", (int32_t)n);
    LAUNCH1(r, cdiv(n, 256), 256);
    get(r, bo, out, 4 * (size_t)n);
    for (uint32_t i = 0; i < n; i++)
        want[i] = a[i] + b[i];
    return same_f32(r, "out", out, want, n);
}

static int t_attn_qk(run *r, uint32_t n)
{
    uint32_t B = 2, T = n, NH = 3, hs = 8, C = NH * hs, total = B * NH * T * T;
    float *inp = rand_f32(r, (size_t)B * T * 3 * C, -1, 1), *got = NEW(r, float, total);
    double *want = NEW(r, double, total);
    cvm_buffer *bp = arg_buf(r, "preatt", 4 * (size_t)total, NULL);
    arg_buf(r, "inp", 4 * (size_t)B * T * 3 * C, inp);
    arg_i32(r, "B", (int32_t)B);
    arg_i32(r, "T", (int32_t)T);
    arg_i32(r, "C", (int32_t)C);
    arg_i32(r, "NH", (int32_t)NH);
    LAUNCH1(r, cdiv(total, 256), 256);
    get(r, bp, got, 4 * (size_t)total);
    for (uint32_t b = 0; b < B; b++)
        for (uint32_t h = 0; h < NH; h++)
            for (uint32_t t = 0; t < T; t++)
                for (uint32_t t2 = 0; t2 < T; t2++) {
                    size_t idx = (((size_t)b * NH + h) * T + t) * T + t2;
                    if (t2 > t) {
                        want[idx] = -INFINITY;
                        continue;
                    }
                    const float *q = inp + ((size_t)b * T + t) * 3 * C + h * hs;
                    const float *k = inp + ((size_t)b * T + t2) * 3 * C + h * hs + C;
                    double s = 0;
                    for (uint32_t i = 0; i < hs; i++)
                        s += (double)q[i] * k[i];
                    want[idx] = s / sqrt((double)hs);
                }
    for (uint32_t i = 0; i < total; i++) /* the masked entries exactly */
        if (isinf(want[i]) && !(isinf(got[i]) && got[i] < 0))
            return fail(r, "preatt[%u] = %g, want -inf", i, got[i]);
    for (uint32_t i = 0; i < total; i++)
        if (isinf(want[i]))
            want[i] = got[i] = 0;
    return near_f32(r, "preatt", got, want, total, 1e-5, 1e-5);
}

/* ---- helper_math-style vector operators ---- */

static int t_integrate(run *r, uint32_t n)
{
    float dt = 0.01f, damping = 0.99f;
    float *pos = rand_f32(r, 4 * (size_t)n, -1.2f, 1), *vel = rand_f32(r, 4 * (size_t)n, -3, 3);
    float *force = rand_f32(r, 3 * (size_t)n, -5, 5);
    float *gp = NEW(r, float, 4 * (size_t)n), *gv = NEW(r, float, 4 * (size_t)n);
    float *wp = NEW(r, float, 4 * (size_t)n), *wv = NEW(r, float, 4 * (size_t)n);
    cvm_buffer *bp = arg_buf(r, "pos", 16 * (size_t)n, pos);
    cvm_buffer *bv = arg_buf(r, "vel", 16 * (size_t)n, vel);
    arg_buf(r, "force", 12 * (size_t)n, force);
    arg_f32(r, "dt", dt);
    arg_f32(r, "damping", damping);
    arg_i32(r, "n", (int32_t)n);
    LAUNCH1(r, cdiv(n, 64), 64);
    get(r, bp, gp, 16 * (size_t)n);
    get(r, bv, gv, 16 * (size_t)n);
    for (uint32_t i = 0; i < n; i++) { /* the same float operations in the same order */
        float p[3], v[3], g[3] = {0, -9.8f, 0};
        for (int k = 0; k < 3; k++) {
            p[k] = pos[4 * i + k];
            float a = force[3 * i + k] + g[k];
            float d = a * dt;
            v[k] = vel[4 * i + k] + d;
            v[k] *= damping;
            float s = v[k] * dt;
            p[k] += s;
        }
        if (p[1] < -1.0f) {
            p[1] = -1.0f;
            v[1] = -v[1] * 0.5f;
        }
        for (int k = 0; k < 3; k++) {
            wp[4 * i + k] = p[k];
            wv[4 * i + k] = v[k];
        }
        wp[4 * i + 3] = pos[4 * i + 3] + dt;
        float xx = v[0] * v[0], yy = v[1] * v[1], zz = v[2] * v[2];
        float dd = xx + yy;
        dd += zz;
        wv[4 * i + 3] = sqrtf(dd);
    }
    return same_f32(r, "pos", gp, wp, 4 * (size_t)n) && same_f32(r, "vel", gv, wv, 4 * (size_t)n);
}

static int t_sum4(run *r, uint32_t n)
{
    uint32_t bs = 128, g = cdiv(n, bs) > 3 ? 3 : cdiv(n, bs);
    float *in = NEW(r, float, 4 * (size_t)n), *got = NEW(r, float, 4 * (size_t)g), *want = NEW(r, float, 4 * (size_t)g);
    for (size_t i = 0; i < 4 * (size_t)n; i++)
        in[i] = (float)rndi(-50, 50); /* integers: every order of additions is exact */
    arg_buf(r, "in", 16 * (size_t)n, in);
    cvm_buffer *bo = arg_buf(r, "out", 16 * (size_t)g, NULL);
    arg_i32(r, "n", (int32_t)n);
    LAUNCH1(r, g, bs);
    get(r, bo, got, 16 * (size_t)g);
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < 4; k++)
            want[4 * ((i % (bs * g)) / bs) + k] += 2 * in[4 * i + k];
    return same_f32(r, "out", got, want, 4 * (size_t)g);
}

/* ---- minimal flash attention: n = N (a multiple of Bc = 16), B = 2, nh = 2, d = 8 ---- */

static int t_flash(run *r, uint32_t n)
{
    int B = 2, nh = 2, N = (int)n, d = 8, Bc = 16, Br = 16, Tc = N / Bc, Tr = N / Br;
    size_t tot = (size_t)B * nh * N * d, rows = (size_t)B * nh * N;
    float scale = 1.0f / sqrtf((float)d);
    float *Q = rand_f32(r, tot, -1, 1), *K = rand_f32(r, tot, -1, 1), *V = rand_f32(r, tot, -1, 1);
    float *O = NEW(r, float, tot), *m0 = NEW(r, float, rows);
    double *want = NEW(r, double, tot), *sc = NEW(r, double, (size_t)N);
    for (size_t i = 0; i < rows; i++)
        m0[i] = -INFINITY;
    arg_buf(r, "Q", 4 * tot, Q);
    arg_buf(r, "K", 4 * tot, K);
    arg_buf(r, "V", 4 * tot, V);
    arg_i32(r, "N", N);
    arg_i32(r, "d", d);
    arg_i32(r, "Tc", Tc);
    arg_i32(r, "Tr", Tr);
    arg_i32(r, "Bc", Bc);
    arg_i32(r, "Br", Br);
    arg_f32(r, "softmax_scale", scale);
    arg_buf(r, "l", 4 * rows, NULL);
    arg_buf(r, "m", 4 * rows, m0);
    cvm_buffer *bo = arg_buf(r, "O", 4 * tot, NULL);
    launch(r, (uint32_t)B, (uint32_t)nh, 1, (uint32_t)Bc, 1, 1, (uint32_t)(4 * (3 * Bc * d + Bc * Br)));
    get(r, bo, O, 4 * tot);
    for (int bh = 0; bh < B * nh; bh++) /* softmax(Q K^T * scale) V per batch and head */
        for (int i = 0; i < N; i++) {
            const float *q = Q + ((size_t)bh * N + i) * d;
            double mx = -INFINITY, sum = 0;
            for (int j = 0; j < N; j++) {
                const float *k = K + ((size_t)bh * N + j) * d;
                double s = 0;
                for (int x = 0; x < d; x++)
                    s += (double)q[x] * k[x];
                sc[j] = s * scale;
                mx = sc[j] > mx ? sc[j] : mx;
            }
            for (int j = 0; j < N; j++)
                sum += (sc[j] = exp(sc[j] - mx));
            for (int x = 0; x < d; x++) {
                double o = 0;
                for (int j = 0; j < N; j++)
                    o += sc[j] * V[((size_t)bh * N + j) * d + x];
                want[((size_t)bh * N + i) * d + x] = o / sum;
            }
        }
    return near_f32(r, "O", O, want, tot, 1e-5, 1e-4);
}

/* ---- Sobel: n = w * 1000 + h ---- */

static int t_sobel(run *r, uint32_t n)
{
    int w = (int)(n / 1000), h = (int)(n % 1000);
    uint8_t *in = NEW(r, uint8_t, (size_t)w * h), *got = NEW(r, uint8_t, (size_t)w * h);
    uint32_t *g32 = NEW(r, uint32_t, (size_t)w * h), *w32 = NEW(r, uint32_t, (size_t)w * h);
    for (int i = 0; i < w * h; i++)
        in[i] = (uint8_t)rnd();
    arg_buf(r, "in", (size_t)w * h, in);
    cvm_buffer *bo = arg_buf(r, "out", (size_t)w * h, NULL);
    arg_i32(r, "w", w);
    arg_i32(r, "h", h);
    launch(r, cdiv((uint32_t)w, 16), cdiv((uint32_t)h, 16), 1, 16, 16, 1, 0);
    get(r, bo, got, (size_t)w * h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            g32[y * w + x] = got[y * w + x];
            if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
                continue;
            int sx = -in[(y - 1) * w + x - 1] + in[(y - 1) * w + x + 1] - 2 * in[y * w + x - 1] +
                     2 * in[y * w + x + 1] - in[(y + 1) * w + x - 1] + in[(y + 1) * w + x + 1];
            int sy = -in[(y - 1) * w + x - 1] - 2 * in[(y - 1) * w + x] - in[(y - 1) * w + x + 1] +
                     in[(y + 1) * w + x - 1] + 2 * in[(y + 1) * w + x] + in[(y + 1) * w + x + 1];
            int mag = (int)sqrtf((float)(sx * sx + sy * sy));
            w32[y * w + x] = (uint32_t)(mag < 255 ? mag : 255);
        }
    return same_u32(r, "out", g32, w32, (size_t)w * h);
}

static const tcase cases[] = {
    {"llmc_layernorm.cu", "layernorm_rows", t_layernorm, {1, 7, 33, 100}},
    {"llmc_softmax.cu", "softmax_block_rows", t_softmax4, {1, 5, 17}},
    {"llmc_softmax.cu", "softmax_online_rows", t_softmax_online, {1, 6, 23}},
    {"sgemm_vec.cu", "sgemm_tiled_vec4<128, 128, 8, 8, 8>", t_sgemm, {10101, 20103, 10202, 10305}},
    {"cg_guide.cu", "sum_block", cg_sum, {4, 1000, 1023, 5001}},
    {"cg_guide.cu", "sum_tiles", cg_sum, {4, 1000, 1023, 5001}},
    {"cg_guide.cu", "filter_positive", t_filter, {1, 64, 100, 3001}},
    {"lambda_reduce.cu", "sumsq_max", t_sumsq_max, {1, 96, 500, 4000}},
    {"lambda_reduce.cu", "clamp_count", t_clamp_count, {1, 64, 1000}},
    {"blelloch_scan.cu", "prescan", t_blelloch, {1, 128, 300, 1000}},
    {"pmpp_histogram.cu", "histo_private_kernel", t_histo, {1, 100, 5000}},
    {"pmpp_histogram.cu", "histo_aggregated_kernel", t_histo, {1, 100, 5000}},
    {"llmc_gelu_attn.cu", "gelu_fwd", t_gelu, {1, 127, 1000}},
    {"llmc_gelu_attn.cu", "residual_fwd", t_residual, {1, 255, 1000}},
    {"llmc_gelu_attn.cu", "attn_scores", t_attn_qk, {1, 5, 13}},
    {"particles_helper_math.cu", "integrate", t_integrate, {1, 63, 1000}},
    {"particles_helper_math.cu", "sum4", t_sum4, {1, 128, 1000}},
    {"flash_attn_minimal.cu", "forward_kernel", t_flash, {16, 32, 80}},
    {"sobel.cu", "sobel", t_sobel, {3003, 17033, 40021}},
};

int main(void)
{
    if (!kern_open())
        return 1;
    for (uint32_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i], i);
    kern_close();
    return done_testing();
}
