/*
 * test_cuda.c - the CUDA C corpus (the .cu files of tests/cuda) end to end: each case
 * compiles one kernel with cvm_compile_cuda, launches it on the cpu device
 * through the public API at several sizes (including sizes that are not
 * multiples of the block size) and compares the results with a reference
 * written here in plain C, independently of the kernel source.
 *
 * One TAP line per case and size, so the state of the frontend is visible
 * kernel by kernel. Comparison modes are stated per case: exact for integer
 * work and for float code whose reference performs the same IEEE operations
 * in the same order (the frontend contracts nothing by default and this file
 * builds with -ffp-contract=off), abs+rel tolerances where the summation
 * order differs or math functions are involved, order-independent where
 * atomics make the order vary.
 *
 * Arguments are bound by parameter name, so a case states what it passes
 * to each parameter; a struct parameter that holds pointers is expected as
 * its flattened fields ("args.in", "args.n", ...).
 */
#include "cuda_run.h"

/* ---- the cases: one function per kernel, `n` is the size ---- */

static int t_vector_add(run *r, uint32_t n)
{
    float *a = rand_f32(r, n, -10, 10), *b = rand_f32(r, n, -10, 10), *c = NEW(r, float, n);
    float *want = NEW(r, float, n);
    arg_buf(r, "a", 4 * n, a);
    arg_buf(r, "b", 4 * n, b);
    cvm_buffer *bc = arg_buf(r, "c", 4 * n, NULL);
    arg_i32(r, "n", (int)n);
    LAUNCH1(r, 2, 128); /* fewer threads than elements: the grid-stride loop */
    get(r, bc, c, 4 * n);
    for (uint32_t i = 0; i < n; i++)
        want[i] = a[i] + b[i];
    return same_f32(r, "c", c, want, n);
}

/* Each group of 32 elements' maximum, INT_MIN past n (blocks of 256: 8 warps). */
static int t_warp_max_smem(run *r, uint32_t n)
{
    const uint32_t blocks = cdiv(n, 256), nout = blocks * 8;
    int32_t *in = rand_i32(r, n, -1000000, 1000000), *got = NEW(r, int32_t, nout), *want = NEW(r, int32_t, nout);
    arg_buf(r, "in", 4 * n, in);
    cvm_buffer *bo = arg_buf(r, "out", 4 * nout, NULL);
    arg_i32(r, "n", (int)n);
    LAUNCH1(r, blocks, 256);
    get(r, bo, got, 4 * nout);
    for (uint32_t w = 0; w < nout; w++) {
        want[w] = INT32_MIN;
        for (uint32_t i = w * 32; i < w * 32 + 32 && i < n; i++)
            want[w] = in[i] > want[w] ? in[i] : want[w];
    }
    return same_i32(r, "out", got, want, nout);
}

static int t_saxpy(run *r, uint32_t n)
{
    float *x = rand_f32(r, n, -4, 4), *y = rand_f32(r, n, -4, 4), *got = NEW(r, float, n);
    float *want = NEW(r, float, n), a = 1.75f;
    arg_i32(r, "n", (int)n);
    arg_f32(r, "a", a);
    arg_buf(r, "x", 4 * n, x);
    cvm_buffer *by = arg_buf(r, "y", 4 * n, y);
    LAUNCH1(r, cdiv(n, 128), 128);
    get(r, by, got, 4 * n);
    for (uint32_t i = 0; i < n; i++) {
        float p = a * x[i]; /* fmad off: a rounded product, then the sum */
        want[i] = p + y[i];
    }
    return same_f32(r, "y", got, want, n);
}

static int t_reduce_shared(run *r, uint32_t n)
{
    uint32_t g = cdiv(n, 256);
    float *in = rand_f32(r, n, -1, 1), *out = NEW(r, float, g), *want = NEW(r, float, g);
    float *s = NEW(r, float, 256);
    arg_buf(r, "in", 4 * n, in);
    cvm_buffer *bo = arg_buf(r, "out", 4 * g, NULL);
    arg_u32(r, "n", n);
    LAUNCH1(r, g, 256);
    get(r, bo, out, 4 * g);
    for (uint32_t b = 0; b < g; b++) {
        for (uint32_t t = 0; t < 256; t++)
            s[t] = b * 256 + t < n ? in[b * 256 + t] : 0.0f;
        want[b] = tree_halving(s, 256);
    }
    return same_f32(r, "out", out, want, g);
}

static int t_reduce_warp(run *r, uint32_t n)
{
    float *in = rand_f32(r, n, -1, 1), got = 0;
    double want = 0, mag = 0;
    arg_buf(r, "in", 4 * n, in);
    cvm_buffer *bt = arg_buf(r, "total", 4, NULL);
    arg_i32(r, "n", (int)n);
    LAUNCH1(r, 3, 256);
    get(r, bt, &got, 4);
    for (uint32_t i = 0; i < n; i++) {
        want += in[i];
        mag += fabs(in[i]);
    }
    /* order-independent: float atomics and a different association */
    return near_f32(r, "total", &got, &want, 1, 1e-6 + 1e-6 * mag, 0);
}

/* reduce<B>: block b of G handles elements whose index mod 2BG falls in [2Bb, 2Bb + 2B). */
static int reduce_template(run *r, uint32_t n, uint32_t bs)
{
    uint32_t g = cdiv(n, 2 * bs);
    if (g > 8)
        g = 8;
    int32_t *in = rand_i32(r, n, -1000, 1000), *out = NEW(r, int32_t, g), *want = NEW(r, int32_t, g);
    arg_buf(r, "g_idata", 4 * n, in);
    cvm_buffer *bo = arg_buf(r, "g_odata", 4 * g, NULL);
    arg_u32(r, "n", n);
    arg_val(r, "blockSize", &bs, 4, 1);
    LAUNCH1(r, g, bs);
    get(r, bo, out, 4 * g);
    for (uint32_t i = 0; i < n; i++)
        want[(i % (2 * bs * g)) / (2 * bs)] += in[i];
    return same_i32(r, "g_odata", out, want, g);
}
static int t_reduce_t256(run *r, uint32_t n) { return reduce_template(r, n, 256); }
static int t_reduce_t128(run *r, uint32_t n) { return reduce_template(r, n, 128); }

/* reduceT: interleaved addressing, s = 1, 2, 4, ... */
static int t_reduceT_int(run *r, uint32_t n)
{
    uint32_t bs = 128, g = cdiv(n, bs);
    int32_t *in = rand_i32(r, n, -50000, 50000), *out = NEW(r, int32_t, g), *want = NEW(r, int32_t, g);
    arg_buf(r, "g_idata", 4 * n, in);
    cvm_buffer *bo = arg_buf(r, "g_odata", 4 * g, NULL);
    arg_u32(r, "n", n);
    launch(r, g, 1, 1, bs, 1, 1, bs * 4);
    get(r, bo, out, 4 * g);
    for (uint32_t i = 0; i < n; i++)
        want[i / bs] += in[i];
    return same_i32(r, "g_odata", out, want, g);
}

static int t_reduceT_double(run *r, uint32_t n)
{
    uint32_t bs = 64, g = cdiv(n, bs);
    double *in = NEW(r, double, n), *out = NEW(r, double, g), *s = NEW(r, double, bs);
    for (uint32_t i = 0; i < n; i++)
        in[i] = rndf(-1, 1) * 1e3;
    arg_buf(r, "g_idata", 8 * n, in);
    cvm_buffer *bo = arg_buf(r, "g_odata", 8 * g, NULL);
    arg_u32(r, "n", n);
    launch(r, g, 1, 1, bs, 1, 1, bs * 8);
    get(r, bo, out, 8 * g);
    for (uint32_t b = 0; b < g && !r->why[0]; b++) {
        for (uint32_t t = 0; t < bs; t++)
            s[t] = b * bs + t < n ? in[b * bs + t] : 0.0;
        for (uint32_t st = 1; st < bs; st *= 2)
            for (uint32_t t = 0; 2 * st * t < bs; t++)
                s[2 * st * t] += s[2 * st * t + st];
        if (memcmp(&out[b], &s[0], 8) != 0)
            fail(r, "g_odata[%u] = %.17g, want %.17g (exact, same order)", b, out[b], s[0]);
    }
    return !r->why[0];
}

static int t_reduce_cg(run *r, uint32_t n)
{
    int32_t *in = rand_i32(r, n, -100, 100), got = 0, want = 0;
    arg_buf(r, "in", 4 * n, in);
    cvm_buffer *bs = arg_buf(r, "sum", 4, NULL);
    arg_i32(r, "n", (int)n);
    LAUNCH1(r, 3, 128);
    get(r, bs, &got, 4);
    for (uint32_t i = 0; i < n; i++)
        want += in[i];
    return same_i32(r, "sum", &got, &want, 1);
}

/* Runs twice on the same module: the last block must reset the __device__ counter. */
static int t_reduce_lastblock(run *r, uint32_t n)
{
    uint32_t g = cdiv(n, 128);
    float *in = rand_f32(r, n, -1, 1), *s = NEW(r, float, 128), got = 0, want = 0;
    arg_buf(r, "in", 4 * n, in);
    arg_buf(r, "partial", 4 * g, NULL);
    cvm_buffer *bres = arg_buf(r, "result", 4, NULL);
    arg_u32(r, "n", n);
    for (uint32_t b = 0; b < g; b++) {
        for (uint32_t t = 0; t < 128; t++)
            s[t] = b * 128 + t < n ? in[b * 128 + t] : 0.0f;
        want += tree_halving(s, 128);
    }
    for (int rep = 0; rep < 2 && !r->why[0]; rep++) {
        got = 0;
        if (cvm_buffer_fill(kern_stream(), bres, 0, 4, 0, NULL) != CVM_OK)
            fail(r, "clearing result failed");
        LAUNCH1(r, g, 128);
        get(r, bres, &got, 4);
        same_f32(r, rep ? "result (second launch)" : "result", &got, &want, 1);
    }
    return !r->why[0];
}

static int t_scan_inclusive(run *r, uint32_t n)
{
    uint32_t bs = 128;
    int32_t *in = rand_i32(r, n, -100, 100), *out = NEW(r, int32_t, n), *want = NEW(r, int32_t, n);
    arg_buf(r, "in", 4 * n, in);
    cvm_buffer *bo = arg_buf(r, "out", 4 * n, NULL);
    arg_i32(r, "n", (int)n);
    launch(r, cdiv(n, bs), 1, 1, bs, 1, 1, 2 * bs * 4);
    get(r, bo, out, 4 * n);
    for (uint32_t i = 0; i < n; i++)
        want[i] = in[i] + (i % bs ? want[i - 1] : 0);
    return same_i32(r, "out", out, want, n);
}

static int t_scan_exclusive(run *r, uint32_t n)
{
    uint32_t bs = 64, m = 2 * bs, g = cdiv(n, m);
    uint32_t *in = NEW(r, uint32_t, n), *out = NEW(r, uint32_t, n), *want = NEW(r, uint32_t, n);
    uint32_t *sums = NEW(r, uint32_t, g), *wsums = NEW(r, uint32_t, g);
    for (uint32_t i = 0; i < n; i++)
        in[i] = rnd() % 1000;
    arg_buf(r, "in", 4 * n, in);
    cvm_buffer *bo = arg_buf(r, "out", 4 * n, NULL);
    cvm_buffer *bsum = arg_buf(r, "blockSums", 4 * g, NULL);
    arg_i32(r, "n", (int)n);
    LAUNCH1(r, g, bs);
    get(r, bo, out, 4 * n);
    get(r, bsum, sums, 4 * g);
    for (uint32_t i = 0; i < n; i++) {
        want[i] = i % m ? want[i - 1] + in[i - 1] : 0;
        wsums[i / m] += in[i];
    }
    return same_u32(r, "out", out, want, n) && same_u32(r, "blockSums", sums, wsums, g);
}

static int t_histogram(run *r, uint32_t n)
{
    uint8_t *data = NEW(r, uint8_t, n);
    uint32_t got[256], want[256] = {0};
    for (uint32_t i = 0; i < n; i++)
        data[i] = (uint8_t)(i % 7 == 0 ? 42 : rnd()); /* one hot bin: contention */
    arg_buf(r, "data", n, data);
    cvm_buffer *bh = arg_buf(r, "hist", sizeof got, NULL);
    arg_i32(r, "n", (int)n);
    LAUNCH1(r, 4, 128);
    get(r, bh, got, sizeof got);
    for (uint32_t i = 0; i < n; i++)
        want[data[i]]++;
    return same_u32(r, "hist", got, want, 256);
}

static int t_transpose(run *r, uint32_t n)
{
    uint32_t w = n, h = n * 2 / 3 + 1;
    float *in = rand_f32(r, (size_t)w * h, -5, 5), *out = NEW(r, float, (size_t)w * h);
    float *want = NEW(r, float, (size_t)w * h);
    cvm_buffer *bo = arg_buf(r, "odata", 4 * w * h, NULL);
    arg_buf(r, "idata", 4 * w * h, in);
    arg_i32(r, "width", (int)w);
    arg_i32(r, "height", (int)h);
    launch(r, cdiv(w, 32), cdiv(h, 32), 1, 32, 8, 1, 0);
    get(r, bo, out, 4 * w * h);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            want[x * h + y] = in[y * w + x];
    return same_f32(r, "odata", out, want, (size_t)w * h);
}

/* C = A B, each element a sequential sum over k (the kernels' order). */
static int matmul(run *r, uint32_t n, int tiled)
{
    int M = (int)n, N = (int)n + 3, K = (int)n / 2 + 5;
    float *A = rand_f32(r, (size_t)M * K, -1, 1), *B = rand_f32(r, (size_t)K * N, -1, 1);
    float *C = NEW(r, float, (size_t)M * N), *want = NEW(r, float, (size_t)M * N);
    arg_buf(r, "A", 4 * (size_t)M * K, A);
    arg_buf(r, "B", 4 * (size_t)K * N, B);
    cvm_buffer *bc = arg_buf(r, "C", 4 * (size_t)M * N, NULL);
    arg_i32(r, "M", M);
    arg_i32(r, "N", N);
    arg_i32(r, "K", K);
    launch(r, cdiv(N, 16), cdiv(M, 16), 1, 16, 16, 1, 0);
    get(r, bc, C, 4 * (size_t)M * N);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float acc = 0.0f;
            for (int k = 0; k < K; k++) {
                float p = A[i * K + k] * B[k * N + j];
                acc += p;
            }
            /* the tiled kernel adds 0 * 0 products past K: acc + 0 is acc */
            want[i * N + j] = acc;
        }
    (void)tiled;
    return same_f32(r, "C", C, want, (size_t)M * N);
}
static int t_matmul_naive(run *r, uint32_t n) { return matmul(r, n, 0); }
static int t_matmul_tiled(run *r, uint32_t n) { return matmul(r, n, 1); }

/* Writes the 9 taps to the __constant__ array through the public symbol API. */
static int conv_sep(run *r, uint32_t n, int rows)
{
    int w = (int)n, h = (int)n / 2 + 3, R = 4;
    float taps[9], *src = rand_f32(r, (size_t)w * h, 0, 1), *dst = NEW(r, float, (size_t)w * h);
    float *want = NEW(r, float, (size_t)w * h);
    for (int k = 0; k < 9; k++)
        taps[k] = 0.05f * (float)(k + 1);
    cvm_diag d;
    memset(&d, 0, sizeof d);
    if (cvm_module_symbol_write(kern_stream(), r->mod, "c_Kernel", 0, taps, sizeof taps, &d))
        return fail(r, "cvm_module_symbol_write c_Kernel: %s", d.message);
    cvm_buffer *bd = arg_buf(r, "dst", 4 * (size_t)w * h, NULL);
    arg_buf(r, "src", 4 * (size_t)w * h, src);
    arg_i32(r, "w", w);
    arg_i32(r, "h", h);
    launch(r, cdiv(w, 16), cdiv(h, 8), 1, 16, 8, 1, 0);
    get(r, bd, dst, 4 * (size_t)w * h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float sum = 0.0f;
            for (int k = -R; k <= R; k++) {
                int xs = rows ? x + k : x, ys = rows ? y : y + k;
                if (xs >= 0 && xs < w && ys >= 0 && ys < h) {
                    float p = src[ys * w + xs] * taps[R - k];
                    sum += p;
                }
            }
            want[y * w + x] = sum;
        }
    return same_f32(r, "dst", dst, want, (size_t)w * h);
}
static int t_conv_rows(run *r, uint32_t n) { return conv_sep(r, n, 1); }
static int t_conv_cols(run *r, uint32_t n) { return conv_sep(r, n, 0); }

static int t_conv2d(run *r, uint32_t n)
{
    struct { int32_t cin, cout, h, w, k, stride, pad, oh, ow; } s;
    s.cin = 3, s.cout = 4, s.h = (int)n, s.w = (int)n + 5, s.k = 3, s.stride = n % 2 ? 2 : 1, s.pad = 1;
    s.oh = (s.h + 2 * s.pad - s.k) / s.stride + 1;
    s.ow = (s.w + 2 * s.pad - s.k) / s.stride + 1;
    size_t nin = (size_t)s.cin * s.h * s.w, nw = (size_t)s.cout * s.cin * 9, nout = (size_t)s.cout * s.oh * s.ow;
    float *in = rand_f32(r, nin, -1, 1), *wt = rand_f32(r, nw, -1, 1), *bias = rand_f32(r, 4, -1, 1);
    float *out = NEW(r, float, nout), *want = NEW(r, float, nout);
    arg_buf(r, "in", 4 * nin, in);
    arg_buf(r, "weight", 4 * nw, wt);
    arg_buf(r, "bias", 16, bias);
    cvm_buffer *bo = arg_buf(r, "out", 4 * nout, NULL);
    arg_val(r, "s", &s, sizeof s, 0);
    launch(r, cdiv(s.ow, 8), cdiv(s.oh, 8), s.cout, 8, 8, 1, 0);
    get(r, bo, out, 4 * nout);
    for (int co = 0; co < s.cout; co++)
        for (int oy = 0; oy < s.oh; oy++)
            for (int ox = 0; ox < s.ow; ox++) {
                float acc = bias[co];
                for (int ci = 0; ci < s.cin; ci++)
                    for (int ky = 0; ky < 3; ky++)
                        for (int kx = 0; kx < 3; kx++) {
                            int iy = oy * s.stride + ky - 1, ix = ox * s.stride + kx - 1;
                            if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w)
                                continue;
                            float p = in[(ci * s.h + iy) * s.w + ix] * wt[((co * s.cin + ci) * 3 + ky) * 3 + kx];
                            acc += p;
                        }
                want[(co * s.oh + oy) * s.ow + ox] = acc;
            }
    return same_f32(r, "out", out, want, nout);
}

static int t_max_pool(run *r, uint32_t n)
{
    int planes = 3, h = (int)n, w = (int)n + 3, k = 3, st = 2;
    int oh = (h - k) / st + 1, ow = (w - k) / st + 1;
    size_t nin = (size_t)planes * h * w, nout = (size_t)planes * oh * ow;
    float *in = rand_f32(r, nin, -9, 9), *out = NEW(r, float, nout), *want = NEW(r, float, nout);
    arg_buf(r, "in", 4 * nin, in);
    cvm_buffer *bo = arg_buf(r, "out", 4 * nout, NULL);
    arg_i32(r, "planes", planes);
    arg_i32(r, "h", h);
    arg_i32(r, "w", w);
    arg_i32(r, "k", k);
    arg_i32(r, "stride", st);
    arg_i32(r, "oh", oh);
    arg_i32(r, "ow", ow);
    LAUNCH1(r, cdiv((uint32_t)nout, 96), 96);
    get(r, bo, out, 4 * nout);
    for (int p = 0; p < planes; p++)
        for (int oy = 0; oy < oh; oy++)
            for (int ox = 0; ox < ow; ox++) {
                float m = -3.402823466e+38f;
                for (int ky = 0; ky < k; ky++)
                    for (int kx = 0; kx < k; kx++) {
                        float v = in[(p * h + oy * st + ky) * w + ox * st + kx];
                        m = v > m ? v : m;
                    }
                want[(p * oh + oy) * ow + ox] = m;
            }
    return same_f32(r, "out", out, want, nout);
}

static int t_avg_pool(run *r, uint32_t n)
{
    int planes = 2, h = (int)n, w = (int)n + 2, k = 3, st = 2, pad = 1;
    int oh = (h + 2 * pad - k) / st + 1, ow = (w + 2 * pad - k) / st + 1;
    size_t nin = (size_t)planes * h * w, nout = (size_t)planes * oh * ow;
    float *in = rand_f32(r, nin, -9, 9), *out = NEW(r, float, nout), *want = NEW(r, float, nout);
    arg_buf(r, "in", 4 * nin, in);
    cvm_buffer *bo = arg_buf(r, "out", 4 * nout, NULL);
    arg_i32(r, "h", h);
    arg_i32(r, "w", w);
    arg_i32(r, "k", k);
    arg_i32(r, "stride", st);
    arg_i32(r, "pad", pad);
    arg_i32(r, "oh", oh);
    arg_i32(r, "ow", ow);
    launch(r, cdiv(ow, 8), cdiv(oh, 4), planes, 8, 4, 1, 0);
    get(r, bo, out, 4 * nout);
    for (int p = 0; p < planes; p++)
        for (int oy = 0; oy < oh; oy++)
            for (int ox = 0; ox < ow; ox++) {
                int y0 = oy * st - pad, x0 = ox * st - pad, cnt = 0;
                float sum = 0.0f;
                for (int y = y0; y < y0 + k; y++)
                    for (int x = x0; x < x0 + k; x++)
                        if (y >= 0 && y < h && x >= 0 && x < w) {
                            sum += in[(p * h + y) * w + x];
                            cnt++;
                        }
                want[(p * oh + oy) * ow + ox] = cnt ? sum / (float)cnt : 0.0f;
            }
    return same_f32(r, "out", out, want, nout);
}

static int t_softmax(run *r, uint32_t n)
{
    int rows = (int)n / 8 + 3, cols = (int)n;
    size_t tot = (size_t)rows * cols;
    float *x = rand_f32(r, tot, -8, 8), *y = NEW(r, float, tot);
    double *want = NEW(r, double, tot);
    arg_buf(r, "x", 4 * tot, x);
    cvm_buffer *by = arg_buf(r, "y", 4 * tot, NULL);
    arg_i32(r, "rows", rows);
    arg_i32(r, "cols", cols);
    LAUNCH1(r, cdiv(rows, 4), 128);
    get(r, by, y, 4 * tot);
    for (int i = 0; i < rows; i++) {
        double m = -INFINITY, s = 0;
        for (int c = 0; c < cols; c++)
            m = x[i * cols + c] > m ? x[i * cols + c] : m;
        for (int c = 0; c < cols; c++)
            s += exp(x[i * cols + c] - m);
        for (int c = 0; c < cols; c++)
            want[i * cols + c] = exp(x[i * cols + c] - m) / s;
    }
    return near_f32(r, "y", y, want, tot, 1e-7, 2e-5);
}

static int t_layernorm(run *r, uint32_t n)
{
    int rows = 5, cols = (int)n;
    size_t tot = (size_t)rows * cols;
    float *x = rand_f32(r, tot, -3, 5), *g = rand_f32(r, cols, 0.5f, 1.5f), *b = rand_f32(r, cols, -1, 1);
    float *y = NEW(r, float, tot), eps = 1e-5f;
    double *want = NEW(r, double, tot);
    arg_buf(r, "x", 4 * tot, x);
    arg_buf(r, "gamma", 4 * (size_t)cols, g);
    arg_buf(r, "beta", 4 * (size_t)cols, b);
    cvm_buffer *by = arg_buf(r, "y", 4 * tot, NULL);
    arg_i32(r, "cols", cols);
    arg_f32(r, "eps", eps);
    LAUNCH1(r, rows, 128);
    get(r, by, y, 4 * tot);
    for (int i = 0; i < rows; i++) {
        double mean = 0, var = 0;
        for (int c = 0; c < cols; c++)
            mean += x[i * cols + c];
        mean /= cols;
        for (int c = 0; c < cols; c++)
            var += (x[i * cols + c] - mean) * (x[i * cols + c] - mean);
        var /= cols;
        for (int c = 0; c < cols; c++)
            want[i * cols + c] = (x[i * cols + c] - mean) / sqrt(var + eps) * g[c] + b[c];
    }
    return near_f32(r, "y", y, want, tot, 1e-4, 1e-4);
}

static int t_stencil1d(run *r, uint32_t n)
{
    int32_t *in = rand_i32(r, n, -1000, 1000), *out = NEW(r, int32_t, n), *want = NEW(r, int32_t, n);
    arg_buf(r, "in", 4 * n, in);
    cvm_buffer *bo = arg_buf(r, "out", 4 * n, NULL);
    arg_i32(r, "n", (int)n);
    LAUNCH1(r, cdiv(n, 128), 128);
    get(r, bo, out, 4 * n);
    for (int i = 0; i < (int)n; i++)
        for (int k = -3; k <= 3; k++)
            want[i] += i + k >= 0 && i + k < (int)n ? in[i + k] : 0;
    return same_i32(r, "out", out, want, n);
}

static int t_stencil2d(run *r, uint32_t n)
{
    int nx = (int)n, ny = (int)n * 3 / 4 + 2;
    size_t tot = (size_t)nx * ny;
    float *u = rand_f32(r, tot, 0, 10), *un = NEW(r, float, tot), *want = NEW(r, float, tot);
    arg_buf(r, "u", 4 * tot, u);
    cvm_buffer *bo = arg_buf(r, "unew", 4 * tot, NULL);
    arg_i32(r, "nx", nx);
    arg_i32(r, "ny", ny);
    launch(r, cdiv(nx, 16), cdiv(ny, 16), 1, 16, 16, 1, 0);
    get(r, bo, un, 4 * tot);
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++) {
            if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
                want[y * nx + x] = u[y * nx + x];
                continue;
            }
            float s = u[y * nx + x - 1] + u[y * nx + x + 1];
            s += u[(y - 1) * nx + x];
            s += u[(y + 1) * nx + x];
            want[y * nx + x] = 0.25f * s;
        }
    return same_f32(r, "unew", un, want, tot);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int t_bitonic(run *r, uint32_t n)
{
    int32_t *keys = rand_i32(r, n, -100000, 100000), *got = NEW(r, int32_t, n), *want = NEW(r, int32_t, n);
    memcpy(want, keys, 4 * (size_t)n);
    cvm_buffer *bk = arg_buf(r, "keys", 4 * n, keys);
    arg_i32(r, "n", (int)n);
    LAUNCH1(r, cdiv(n, 1024), 512);
    get(r, bk, got, 4 * n);
    for (uint32_t s = 0; s < n; s += 1024)
        qsort(want + s, n - s < 1024 ? n - s : 1024, 4, cmp_int);
    return same_i32(r, "keys", got, want, n);
}

static int spmv(run *r, uint32_t n, int vector)
{
    int rows = (int)n, cols = (int)n + 7;
    int32_t *rp = NEW(r, int32_t, rows + 1);
    for (int i = 0; i < rows; i++)
        rp[i + 1] = rp[i] + rndi(0, i % 5 == 0 ? 70 : 6); /* some rows longer than a warp */
    int nnz = rp[rows];
    int32_t *ci = rand_i32(r, nnz, 0, cols - 1);
    float *v = rand_f32(r, nnz, -1, 1), *x = rand_f32(r, cols, -1, 1), *y = NEW(r, float, rows);
    double *want = NEW(r, double, rows);
    arg_i32(r, "rows", rows);
    arg_buf(r, "rowPtr", 4 * (size_t)(rows + 1), rp);
    arg_buf(r, "colIdx", 4 * (size_t)nnz, ci);
    arg_buf(r, "vals", 4 * (size_t)nnz, v);
    arg_buf(r, "x", 4 * (size_t)cols, x);
    cvm_buffer *by = arg_buf(r, "y", 4 * (size_t)rows, NULL);
    if (vector)
        LAUNCH1(r, cdiv(rows * 32, 128), 128);
    else
        LAUNCH1(r, cdiv(rows, 64), 64);
    get(r, by, y, 4 * (size_t)rows);
    for (int i = 0; i < rows; i++)
        for (int j = rp[i]; j < rp[i + 1]; j++)
            want[i] += (double)v[j] * x[ci[j]];
    return near_f32(r, "y", y, want, rows, 1e-5, 1e-5);
}
static int t_spmv_scalar(run *r, uint32_t n) { return spmv(r, n, 0); }
static int t_spmv_vector(run *r, uint32_t n) { return spmv(r, n, 1); }

/* order-independent: the kept values compared as sorted multisets */
static int t_compact(run *r, uint32_t n)
{
    int32_t *in = rand_i32(r, n, -50, 50), *out = NEW(r, int32_t, n), *want = NEW(r, int32_t, n);
    int32_t count = 0, nw = 0;
    arg_buf(r, "in", 4 * n, in);
    cvm_buffer *bo = arg_buf(r, "out", 4 * n, NULL);
    cvm_buffer *bc = arg_buf(r, "count", 4, NULL);
    arg_i32(r, "n", (int)n);
    LAUNCH1(r, cdiv(n, 128), 128);
    get(r, bo, out, 4 * n);
    get(r, bc, &count, 4);
    for (uint32_t i = 0; i < n; i++)
        if (in[i] > 0)
            want[nw++] = in[i];
    if (!same_i32(r, "count", &count, &nw, 1))
        return 0;
    qsort(out, (size_t)nw, 4, cmp_int);
    qsort(want, (size_t)nw, 4, cmp_int);
    return same_i32(r, "out (sorted)", out, want, (size_t)nw);
}

static int t_nbody(run *r, uint32_t n)
{
    float *pos = NEW(r, float, 4 * (size_t)n), *vel = rand_f32(r, 4 * (size_t)n, -1, 1);
    float *np = NEW(r, float, 4 * (size_t)n), *nv = NEW(r, float, 4 * (size_t)n), dt = 0.01f;
    double *wp = NEW(r, double, 4 * (size_t)n), *wv = NEW(r, double, 4 * (size_t)n);
    for (uint32_t i = 0; i < n; i++) {
        pos[4 * i] = rndf(-5, 5), pos[4 * i + 1] = rndf(-5, 5), pos[4 * i + 2] = rndf(-5, 5);
        pos[4 * i + 3] = rndf(0.5f, 2);
    }
    arg_buf(r, "pos", 16 * (size_t)n, pos);
    cvm_buffer *bp = arg_buf(r, "newPos", 16 * (size_t)n, NULL);
    cvm_buffer *bv = arg_buf(r, "vel", 16 * (size_t)n, vel);
    arg_i32(r, "n", (int)n);
    arg_f32(r, "dt", dt);
    LAUNCH1(r, cdiv(n, 128), 128);
    get(r, bp, np, 16 * (size_t)n);
    get(r, bv, nv, 16 * (size_t)n);
    for (uint32_t i = 0; i < n; i++) {
        double a[3] = {0, 0, 0};
        for (uint32_t j = 0; j < n; j++) {
            double d[3], d2 = 1e-3;
            for (int c = 0; c < 3; c++) {
                d[c] = (double)pos[4 * j + c] - pos[4 * i + c];
                d2 += d[c] * d[c];
            }
            double s = pos[4 * j + 3] / (d2 * sqrt(d2));
            for (int c = 0; c < 3; c++)
                a[c] += d[c] * s;
        }
        for (int c = 0; c < 3; c++) {
            wv[4 * i + c] = vel[4 * i + c] + a[c] * dt;
            wp[4 * i + c] = pos[4 * i + c] + wv[4 * i + c] * dt;
        }
        wv[4 * i + 3] = vel[4 * i + 3];
        wp[4 * i + 3] = pos[4 * i + 3];
    }
    /* rsqrtf is an approximation on GPUs: 1e-3 relative on accelerations */
    return near_f32(r, "vel", nv, wv, 4 * (size_t)n, 1e-3, 1e-3) &&
           near_f32(r, "newPos", np, wp, 4 * (size_t)n, 1e-4, 1e-4);
}

static int t_mandelbrot(run *r, uint32_t n)
{
    int w = (int)n, h = (int)n * 2 / 3 + 1, maxIter = 200;
    float x0 = -2.0f, y0 = -1.2f, dx = 3.0f / w, dy = 2.4f / h;
    int32_t *it = NEW(r, int32_t, (size_t)w * h), *want = NEW(r, int32_t, (size_t)w * h);
    cvm_buffer *bi = arg_buf(r, "iters", 4 * (size_t)w * h, NULL);
    arg_i32(r, "width", w);
    arg_i32(r, "height", h);
    arg_f32(r, "x0", x0);
    arg_f32(r, "y0", y0);
    arg_f32(r, "dx", dx);
    arg_f32(r, "dy", dy);
    arg_i32(r, "maxIter", maxIter);
    launch(r, cdiv(w, 16), cdiv(h, 16), 1, 16, 16, 1, 0);
    get(r, bi, it, 4 * (size_t)w * h);
    for (int py = 0; py < h; py++)
        for (int px = 0; px < w; px++) {
            float t1 = px * dx, t2 = py * dy, cr = x0 + t1, ci = y0 + t2, zr = 0, zi = 0;
            int k = 0;
            for (;;) {
                float a = zr * zr, b = zi * zi;
                if (!(k < maxIter && a + b <= 4.0f))
                    break;
                float t = a - b;
                t = t + cr;
                float m = 2.0f * zr;
                m = m * zi;
                zi = m + ci;
                zr = t;
                k++;
            }
            want[py * w + px] = k;
        }
    return same_i32(r, "iters", it, want, (size_t)w * h); /* exact: same float ops in order */
}

static double cnd(double d) { return 0.5 * erfc(-d / sqrt(2.0)); }

static int t_black_scholes(run *r, uint32_t n)
{
    float *S = rand_f32(r, n, 5, 30), *X = rand_f32(r, n, 1, 100), *T = rand_f32(r, n, 0.25f, 10);
    float *call = NEW(r, float, n), *put = NEW(r, float, n), R = 0.02f, V = 0.30f;
    double *wc = NEW(r, double, n), *wp = NEW(r, double, n);
    cvm_buffer *bc = arg_buf(r, "d_Call", 4 * n, NULL), *bp = arg_buf(r, "d_Put", 4 * n, NULL);
    arg_buf(r, "d_S", 4 * n, S);
    arg_buf(r, "d_X", 4 * n, X);
    arg_buf(r, "d_T", 4 * n, T);
    arg_f32(r, "R", R);
    arg_f32(r, "V", V);
    arg_i32(r, "optN", (int)n);
    LAUNCH1(r, 4, 128);
    get(r, bc, call, 4 * n);
    get(r, bp, put, 4 * n);
    for (uint32_t i = 0; i < n; i++) {
        double st = sqrt(T[i]), d1 = (log((double)S[i] / X[i]) + (R + 0.5 * V * V) * T[i]) / (V * st);
        double d2 = d1 - V * st, e = exp(-(double)R * T[i]);
        wc[i] = S[i] * cnd(d1) - X[i] * e * cnd(d2);
        wp[i] = X[i] * e * cnd(-d2) - S[i] * cnd(-d1);
    }
    /* the polynomial CND is accurate to about 1e-7; fast __expf/__logf and cancellation */
    return near_f32(r, "d_Call", call, wc, n, 2e-3, 1e-4) && near_f32(r, "d_Put", put, wp, n, 2e-3, 1e-4);
}

/* The SIMD-in-a-word reference: each word as an array of parts (bytes or
 * halfwords), one C expression per function in plain int arithmetic. */
static int64_t simd_part(uint32_t w, int i, int bits, int sgn)
{
    const uint32_t u = (w >> (i * bits)) & ((1u << bits) - 1u);
    return sgn && (u >> (bits - 1)) ? (int64_t)u - ((int64_t)1 << bits) : (int64_t)u;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Function f (the kernel's order: pairs of 2 and 4) of a and b. */
static uint32_t simd_ref(int f, uint32_t a, uint32_t b)
{
    const int parts = f % 2 ? 4 : 2, bits = 32 / parts, g = f / 2;
    const int64_t m = ((int64_t)1 << bits) - 1, lo = -((int64_t)1 << (bits - 1)), hi = -lo - 1;
    uint32_t r = 0, sad = 0;
    for (int i = 0; i < parts; i++) {
        const int64_t xu = simd_part(a, i, bits, 0), yu = simd_part(b, i, bits, 0);
        const int64_t xs = simd_part(a, i, bits, 1), ys = simd_part(b, i, bits, 1);
        int64_t v = 0;
        switch (g) {
        case 0: v = xu + yu; break;
        case 1: v = xu - yu; break;
        case 2: v = clamp64(xs + ys, lo, hi); break;
        case 3: v = clamp64(xu + yu, 0, m); break;
        case 4: v = clamp64(xs - ys, lo, hi); break;
        case 5: v = clamp64(xu - yu, 0, m); break;
        case 6: v = llround((double)(xs + ys) / 2.0); break; /* half away from zero, as CUDA's */
        case 7: v = (xu + yu + 1) / 2; break;
        case 8: v = (xu + yu) / 2; break;
        case 9: v = llabs(xs - ys); break;
        case 10: v = llabs(xu - yu); break;
        case 11: v = xs > ys ? xs : ys; break;
        case 12: v = xu > yu ? xu : yu; break;
        case 13: v = xs < ys ? xs : ys; break;
        case 14: v = xu < yu ? xu : yu; break;
        case 15: v = xu == yu ? m : 0; break;
        case 16: v = xu != yu ? m : 0; break;
        case 17: v = xs >= ys ? m : 0; break;
        case 18: v = xu >= yu ? m : 0; break;
        case 19: v = xs > ys ? m : 0; break;
        case 20: v = xu > yu ? m : 0; break;
        case 21: v = xs <= ys ? m : 0; break;
        case 22: v = xu <= yu ? m : 0; break;
        case 23: v = xs < ys ? m : 0; break;
        case 24: v = xu < yu ? m : 0; break;
        case 25: v = xu == yu; break;
        case 26: v = xu != yu; break;
        case 27: v = xs >= ys; break;
        case 28: v = xu >= yu; break;
        case 29: v = xs > ys; break;
        case 30: v = xu > yu; break;
        case 31: v = xs <= ys; break;
        case 32: v = xu <= yu; break;
        case 33: v = xs < ys; break;
        case 34: v = xu < yu; break;
        case 35: v = llabs(xs); break;
        case 36: v = clamp64(llabs(xs), lo, hi); break;
        case 37: v = -xs; break;
        case 38: v = clamp64(-xs, lo, hi); break;
        case 39: sad += (uint32_t)llabs(xs - ys); break;
        default: sad += (uint32_t)llabs(xu - yu); break;
        }
        r |= (uint32_t)(v & m) << (i * bits);
    }
    return g >= 39 ? sad : r;
}

static int t_simd_word(run *r, uint32_t n)
{
    enum { NF = 82 };
    static const uint32_t edge[] = {0, 0xffffffffu, 0x80808080u, 0x7f7f7f7fu, 0x80007fffu, 0x7fff8000u,
                                    0x01ff80feu, 0x00010001u};
    uint32_t *a = NEW(r, uint32_t, n), *b = NEW(r, uint32_t, n), *out = NEW(r, uint32_t, (size_t)NF * n);
    uint32_t *want = NEW(r, uint32_t, (size_t)NF * n);
    uint64_t s = 0x9e3779b97f4a7c15ull + n;
    for (uint32_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        a[i] = i < 64 ? edge[i % 8] : (uint32_t)(s >> 32);
        b[i] = i < 64 ? edge[i / 8] : (uint32_t)s;
    }
    cvm_buffer *bo = arg_buf(r, "out", 4 * NF * n, NULL);
    arg_buf(r, "a", 4 * n, a);
    arg_buf(r, "b", 4 * n, b);
    arg_i32(r, "n", (int)n);
    LAUNCH1(r, (n + 63) / 64, 64);
    get(r, bo, out, 4 * NF * n);
    for (uint32_t i = 0; i < n; i++)
        for (int f = 0; f < NF; f++)
            want[(size_t)NF * i + f] = simd_ref(f, a[i], b[i]);
    return same_u32(r, "out", out, want, NF * n);
}

static int t_vec4_copy(run *r, uint32_t n)
{
    float *src = rand_f32(r, n, -1, 1), *dst = NEW(r, float, n);
    arg_buf(r, "src", 4 * n, src);
    cvm_buffer *bd = arg_buf(r, "dst", 4 * n, NULL);
    arg_i32(r, "n", (int)n);
    LAUNCH1(r, 3, 64);
    get(r, bd, dst, 4 * n);
    return same_f32(r, "dst", dst, src, n);
}

static int t_atomic_max(run *r, uint32_t n)
{
    float *in = rand_f32(r, n, -1000, 1000), got = -INFINITY, want = -INFINITY;
    in[n / 3] = 5000.5f - (float)n;
    arg_buf(r, "in", 4 * n, in);
    cvm_buffer *bres = arg_buf(r, "result", 4, &got);
    arg_i32(r, "n", (int)n);
    LAUNCH1(r, 5, 256);
    get(r, bres, &got, 4);
    for (uint32_t i = 0; i < n; i++)
        want = in[i] > want ? in[i] : want;
    return same_f32(r, "result", &got, &want, 1);
}

static int t_grid2d(run *r, uint32_t n)
{
    int w = (int)n, h = (int)n / 2 + 3, pitch = w + 5;
    size_t tot = (size_t)pitch * h;
    int32_t *in = rand_i32(r, tot, -1000, 1000), *out = NEW(r, int32_t, tot), *want = NEW(r, int32_t, tot);
    arg_buf(r, "in", 4 * tot, in);
    cvm_buffer *bo = arg_buf(r, "out", 4 * tot, NULL);
    arg_i32(r, "width", w);
    arg_i32(r, "height", h);
    arg_i32(r, "pitch", pitch);
    arg_i32(r, "scale", -3);
    launch(r, cdiv(w, 16), cdiv(h, 8), 1, 16, 8, 1, 0);
    get(r, bo, out, 4 * tot);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            want[y * pitch + x] = in[y * pitch + x] * -3 + x - y;
    return same_i32(r, "out", out, want, tot);
}

static int t_grid3d(run *r, uint32_t n)
{
    int nx = (int)n, ny = (int)n / 2 + 1, nz = (int)n / 3 + 2;
    size_t tot = (size_t)nx * ny * nz;
    int32_t *v = rand_i32(r, tot, -100, 100), *g = NEW(r, int32_t, tot), *want = NEW(r, int32_t, tot);
    arg_buf(r, "vol", 4 * tot, v);
    cvm_buffer *bg = arg_buf(r, "grad2", 4 * tot, NULL);
    arg_i32(r, "nx", nx);
    arg_i32(r, "ny", ny);
    arg_i32(r, "nz", nz);
    launch(r, cdiv(nx, 8), cdiv(ny, 4), cdiv(nz, 4), 8, 4, 4, 0);
    get(r, bg, g, 4 * tot);
#define V(x, y, z) v[((z) * ny + (y)) * nx + (x)]
    for (int z = 0; z < nz; z++)
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++) {
                int gx = V(x + 1 < nx ? x + 1 : x, y, z) - V(x > 0 ? x - 1 : 0, y, z);
                int gy = V(x, y + 1 < ny ? y + 1 : y, z) - V(x, y > 0 ? y - 1 : 0, z);
                int gz = V(x, y, z + 1 < nz ? z + 1 : z) - V(x, y, z > 0 ? z - 1 : 0);
                want[(z * ny + y) * nx + x] = gx * gx + gy * gy + gz * gz;
            }
#undef V
    return same_i32(r, "grad2", g, want, tot);
}

static int t_carve(run *r, uint32_t n)
{
    uint32_t bs = 96;
    float *vals = rand_f32(r, n, -100, 100), *ov = NEW(r, float, n), *wv = NEW(r, float, n);
    int32_t *keys = rand_i32(r, n, -100, 100), *ok_ = NEW(r, int32_t, n), *wk = NEW(r, int32_t, n);
    uint8_t *fl = NEW(r, uint8_t, n), *wf = NEW(r, uint8_t, n);
    arg_buf(r, "vals", 4 * n, vals);
    arg_buf(r, "keys", 4 * n, keys);
    cvm_buffer *bv = arg_buf(r, "outVals", 4 * n, NULL), *bk = arg_buf(r, "outKeys", 4 * n, NULL);
    cvm_buffer *bf = arg_buf(r, "flags", n, NULL);
    arg_i32(r, "n", (int)n);
    launch(r, cdiv(n, bs), 1, 1, bs, 1, 1, bs * 9);
    get(r, bv, ov, 4 * n);
    get(r, bk, ok_, 4 * n);
    get(r, bf, fl, n);
    for (uint32_t base = 0; base < n; base += bs) {
        uint32_t len = n - base < bs ? n - base : bs;
        for (uint32_t t = 0; t < len; t++) {
            uint32_t s = base + len - 1 - t;
            wv[base + t] = vals[s];
            wk[base + t] = keys[s];
            wf[base + t] = vals[s] > (float)keys[s];
        }
    }
    for (uint32_t i = 0; i < n && !r->why[0]; i++)
        if (fl[i] != wf[i])
            fail(r, "flags[%u] = %u, want %u", i, fl[i], wf[i]);
    return same_f32(r, "outVals", ov, wv, n) && same_i32(r, "outKeys", ok_, wk, n);
}

/* A struct holding pointers arrives as its flattened fields (args.in, ...). */
static int t_struct_params(run *r, uint32_t n)
{
    int nb = 7;
    float *in = rand_f32(r, n, -3, 3), *bias = rand_f32(r, nb, -1, 1), *out = NEW(r, float, n);
    float *want = NEW(r, float, n), sc = 2.5f;
    arg_buf(r, "args.in", 4 * n, in);
    arg_buf(r, "args.bias", 4 * (size_t)nb, bias);
    cvm_buffer *bo = arg_buf(r, "args.out", 4 * n, NULL);
    arg_i32(r, "args.n", (int)n);
    arg_i32(r, "args.nbias", nb);
    arg_f32(r, "args.scale", sc);
    LAUNCH1(r, cdiv(n, 128), 128);
    get(r, bo, out, 4 * n);
    for (uint32_t i = 0; i < n; i++) {
        float p = in[i] * sc;
        want[i] = p + bias[i % nb];
    }
    return same_f32(r, "args.out", out, want, n);
}

/* Inheritance: the buffers of a flattened struct parameter come from its base. */
static int t_inherit_layer(run *r, uint32_t n)
{
    float *in = rand_f32(r, n, -3, 3), *out = NEW(r, float, n), *want = NEW(r, float, n), sc = 1.5f;
    arg_buf(r, "args.in", 4 * n, in);
    cvm_buffer *bo = arg_buf(r, "args.out", 4 * n, NULL);
    arg_i32(r, "args.n", (int)n);
    arg_f32(r, "args.scale", sc);
    LAUNCH1(r, cdiv(n, 128), 128);
    get(r, bo, out, 4 * n);
    for (uint32_t i = 0; i < n; i++) {
        float v = in[i] * sc, x = v, y = v * 2.0f, s = (x + y) * 0.5f;
        float a = s > 0.0f ? s : s * 0.125f;
        want[i] = a + (y - 0.5f);
    }
    return same_f32(r, "args.out", out, want, n);
}

static int t_device_refs(run *r, uint32_t n)
{
    uint32_t bs = 64, g = cdiv(n, bs);
    int32_t *in = rand_i32(r, n, 0, 3), *out = NEW(r, int32_t, 2 * (size_t)n), *hits = NEW(r, int32_t, g);
    int32_t *wo = NEW(r, int32_t, 2 * (size_t)n), *wh = NEW(r, int32_t, g);
    arg_buf(r, "in", 4 * n, in);
    cvm_buffer *bo = arg_buf(r, "out", 8 * n, NULL), *bh = arg_buf(r, "hits", 4 * g, NULL);
    arg_i32(r, "n", (int)n);
    LAUNCH1(r, g, bs);
    get(r, bo, out, 8 * n);
    get(r, bh, hits, 4 * g);
    for (uint32_t i = 0; i < n; i++) {
        int lo = in[i], hi = in[i], sum = 0;
        for (uint32_t k = 0; k < 4 && i + k < n; k++) {
            lo = in[i + k] < lo ? in[i + k] : lo;
            hi = in[i + k] > hi ? in[i + k] : hi;
            sum += in[i + k];
        }
        wo[2 * i] = sum & 1 ? hi : lo;
        wo[2 * i + 1] = sum & 1 ? lo : hi;
        wh[i / bs] += lo == hi;
    }
    return same_i32(r, "out", out, wo, 2 * (size_t)n) && same_i32(r, "hits", hits, wh, g);
}

static int t_vec3(run *r, uint32_t n)
{
    float *d = rand_f32(r, 3 * (size_t)n, -1, 1), *nn = rand_f32(r, 3 * (size_t)n, -1, 1);
    float *out = NEW(r, float, 3 * (size_t)n), *len2 = NEW(r, float, n);
    float *wo = NEW(r, float, 3 * (size_t)n), *wl = NEW(r, float, n);
    arg_buf(r, "dirs", 12 * (size_t)n, d);
    arg_buf(r, "normals", 12 * (size_t)n, nn);
    cvm_buffer *bo = arg_buf(r, "out", 12 * (size_t)n, NULL), *bl = arg_buf(r, "len2", 4 * n, NULL);
    arg_i32(r, "n", (int)n);
    LAUNCH1(r, cdiv(n, 64), 64);
    get(r, bo, out, 12 * (size_t)n);
    get(r, bl, len2, 4 * n);
    for (uint32_t i = 0; i < n; i++) {
        const float *a = d + 3 * i, *b = nn + 3 * i;
        float dot = a[0] * b[0], t, s, l;
        t = a[1] * b[1], dot = dot + t;
        t = a[2] * b[2], dot = dot + t;
        s = 2.0f * dot;
        for (int c = 0; c < 3; c++) {
            float p = s * b[c];
            wo[3 * i + c] = (a[c] - p) + 0.0f;
        }
        l = wo[3 * i] * wo[3 * i];
        t = wo[3 * i + 1] * wo[3 * i + 1], l = l + t;
        t = wo[3 * i + 2] * wo[3 * i + 2], l = l + t;
        wl[i] = l;
    }
    return same_f32(r, "out", out, wo, 3 * (size_t)n) && same_f32(r, "len2", len2, wl, n);
}

/* IEEE binary16 conversions written for this test (round to nearest even). */
static float h2f(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexpf((float)(m | 1024), e - 25);
    return h >> 15 ? -v : v;
}
static uint16_t f2h(float f)
{
    uint16_t best = 0;
    float bd = INFINITY;
    /* brute force over finite halves of the right sign: slow but obviously correct */
    for (uint32_t m = 0; m < 0x7c00; m++) {
        uint16_t h = (uint16_t)(m | (signbit(f) ? 0x8000 : 0));
        float e = fabsf(h2f(h) - f);
        if (e < bd || (e == bd && !(h & 1))) {
            bd = e;
            best = h;
        }
    }
    return best;
}

static int t_half(run *r, uint32_t n)
{
    float a = 1.5f;
    uint16_t *x = NEW(r, uint16_t, n), *y = NEW(r, uint16_t, n), *gy = NEW(r, uint16_t, n);
    uint16_t *gp = NEW(r, uint16_t, n), *wy = NEW(r, uint16_t, n), *wp = NEW(r, uint16_t, n);
    for (uint32_t i = 0; i < n; i++) {
        x[i] = f2h(rndf(-8, 8));
        y[i] = f2h(rndf(-8, 8));
    }
    arg_i32(r, "n", (int)n);
    arg_f32(r, "a", a);
    arg_buf(r, "x", 2 * n, x);
    cvm_buffer *by = arg_buf(r, "y", 2 * n, y), *bp = arg_buf(r, "prod", 2 * n, NULL);
    LAUNCH1(r, cdiv(n, 64), 64);
    get(r, by, gy, 2 * n);
    get(r, bp, gp, 2 * n);
    for (uint32_t i = 0; i < n && !r->why[0]; i++) {
        float p = a * h2f(x[i]);
        wy[i] = f2h(p + h2f(y[i]));
        wp[i] = f2h(h2f(x[i]) * h2f(f2h(a))); /* exact in float, one rounding to half */
        if (gy[i] != wy[i] || gp[i] != wp[i])
            fail(r, "element %u: y 0x%04x prod 0x%04x, want 0x%04x 0x%04x", i, gy[i], gp[i], wy[i], wp[i]);
    }
    return !r->why[0];
}

static int t_dot(run *r, uint32_t n)
{
    uint32_t g = 4, bs = 256;
    float *a = rand_f32(r, n, -1, 1), *b = rand_f32(r, n, -1, 1), *c = NEW(r, float, g);
    float *want = NEW(r, float, g), *s = NEW(r, float, bs);
    arg_buf(r, "a", 4 * n, a);
    arg_buf(r, "b", 4 * n, b);
    cvm_buffer *bc = arg_buf(r, "c", 4 * g, NULL);
    arg_i32(r, "N", (int)n);
    LAUNCH1(r, g, bs);
    get(r, bc, c, 4 * g);
    for (uint32_t blk = 0; blk < g; blk++) {
        for (uint32_t t = 0; t < bs; t++) {
            float temp = 0;
            for (uint32_t i = blk * bs + t; i < n; i += g * bs) {
                float p = a[i] * b[i];
                temp += p;
            }
            s[t] = temp;
        }
        want[blk] = tree_halving(s, bs);
    }
    return same_f32(r, "c", c, want, g);
}

static uint32_t brev32(uint32_t v)
{
    uint32_t o = 0;
    for (int b = 0; b < 32; b++)
        o |= ((v >> b) & 1u) << (31 - b);
    return o;
}

static int t_bit_ops(run *r, uint32_t n)
{
    uint32_t *in = NEW(r, uint32_t, n), *out = NEW(r, uint32_t, 8 * (size_t)n), *want = NEW(r, uint32_t, 8 * (size_t)n);
    uint64_t *in64 = NEW(r, uint64_t, n);
    for (uint32_t i = 0; i < n; i++) {
        in[i] = i % 9 == 0 ? 0 : rnd() >> (rnd() % 32);
        in64[i] = i % 11 == 0 ? 0 : ((uint64_t)rnd() << 32 | rnd()) >> (rnd() % 64);
    }
    arg_buf(r, "in", 4 * n, in);
    arg_buf(r, "in64", 8 * n, in64);
    cvm_buffer *bo = arg_buf(r, "out", 32 * n, NULL);
    arg_i32(r, "n", (int)n);
    LAUNCH1(r, cdiv(n, 64), 64);
    get(r, bo, out, 32 * n);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = in[i], *w = want + 8 * i, pc = 0, lz = 32, fs = 0, pc64 = 0, lz64 = 64;
        for (int b = 0; b < 32; b++)
            pc += (v >> b) & 1;
        for (int b = 31; b >= 0; b--)
            if ((v >> b) & 1) {
                lz = 31 - (uint32_t)b;
                break;
            }
        for (int b = 0; b < 32; b++)
            if ((v >> b) & 1) {
                fs = (uint32_t)b + 1;
                break;
            }
        for (int b = 0; b < 64; b++)
            pc64 += (in64[i] >> b) & 1;
        for (int b = 63; b >= 0; b--)
            if ((in64[i] >> b) & 1) {
                lz64 = 63 - (uint32_t)b;
                break;
            }
        /* __byte_perm(x, y, s): result byte k is byte (s >> 4k) & 7 of y:x */
        uint64_t xy = (uint64_t)0x11223344u << 32 | v;
        uint32_t bp = 0;
        for (int k = 0; k < 4; k++)
            bp |= (uint32_t)((xy >> (8 * ((0x5140u >> (4 * k)) & 7))) & 0xff) << (8 * k);
        w[0] = pc, w[1] = lz, w[2] = fs, w[3] = brev32(v), w[4] = bp, w[5] = pc64, w[6] = lz64;
        w[7] = (uint32_t)(((uint64_t)v * 0x9e3779b9u) >> 32);
    }
    return same_u32(r, "out", out, want, 8 * (size_t)n);
}

/* union_keys.cu: keys by the sign-flip rule on the bits (memcpy here),
 * counts of negative and other elements of each float4, packed low/high. */
static int t_union_keys(run *r, uint32_t n)
{
    float *in = rand_f32(r, 4 * (size_t)n, -1, 1);
    uint32_t *keys = NEW(r, uint32_t, 4 * (size_t)n), *want = NEW(r, uint32_t, 4 * (size_t)n);
    uint32_t *counts = NEW(r, uint32_t, n), *want_counts = NEW(r, uint32_t, n);
    if (n > 1)
        in[1] = -0.0f, in[2] = 0.0f; /* -0 is not negative; its key sorts just below +0's */
    arg_buf(r, "in", 16 * n, in);
    cvm_buffer *bk = arg_buf(r, "keys", 16 * n, NULL), *bc = arg_buf(r, "counts", 4 * n, NULL);
    arg_i32(r, "n", (int)n);
    LAUNCH1(r, cdiv(n, 64), 64);
    get(r, bk, keys, 16 * n);
    get(r, bc, counts, 4 * n);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t neg = 0, other = 0;
        for (int j = 0; j < 4; j++) {
            uint32_t u;
            memcpy(&u, &in[4 * i + j], 4);
            want[4 * i + j] = u >> 31 ? ~u : u | 0x80000000u;
            if (in[4 * i + j] < 0.0f)
                neg++;
            else
                other++;
        }
        want_counts[i] = neg | other << 16;
    }
    return same_u32(r, "keys", keys, want, 4 * (size_t)n) && same_u32(r, "counts", counts, want_counts, n);
}

static int t_math(run *r, uint32_t n)
{
    float *x = rand_f32(r, n, -3, 3), *out = NEW(r, float, 12 * (size_t)n);
    double *want = NEW(r, double, 12 * (size_t)n);
    arg_buf(r, "x", 4 * n, x);
    cvm_buffer *bo = arg_buf(r, "out", 48 * n, NULL);
    arg_i32(r, "n", (int)n);
    LAUNCH1(r, cdiv(n, 64), 64);
    get(r, bo, out, 48 * n);
    for (uint32_t i = 0; i < n; i++) {
        double v = x[i], a = (double)(fabsf(x[i]) + 0.5f);
        double *w = want + i;
        w[0] = sqrt(a), w[n] = exp(v), w[2 * n] = log(a), w[3 * n] = sin(v), w[4 * n] = cos(v);
        w[5 * n] = tanh(v), w[6 * n] = atan2(v, a), w[7 * n] = pow(a, v), w[8 * n] = sin(v) + cos(v);
        w[9 * n] = floorf(x[i] * 3.0f) + ceilf(x[i]) + truncf(x[i] * 7.0f) + roundf(x[i] * 5.0f);
        w[10 * n] = fmin(v, 0.25) + fmax(v, -0.25) + copysign(1.0, v);
        w[11 * n] = fma(v, 3.0, 1.0) + hypot(v, 2.0);
    }
    /* CUDA's stated bounds are 1-4 ulp for these: 4 float ulps relative, 1e-6 absolute */
    return near_f32(r, "out", out, want, 12 * (size_t)n, 1e-6, 5e-7);
}

static int t_warp_vote(run *r, uint32_t n)
{
    uint32_t nw = cdiv(n, 32);
    int32_t *in = rand_i32(r, n, -3, 40), *anyAll = NEW(r, int32_t, 2 * (size_t)nw), *prefix = NEW(r, int32_t, n);
    uint32_t *ballots = NEW(r, uint32_t, nw), *wb = NEW(r, uint32_t, nw);
    int32_t *wa = NEW(r, int32_t, 2 * (size_t)nw), *wp = NEW(r, int32_t, n);
    for (uint32_t i = 64; i < 96 && i < n; i++)
        in[i] = 1 + (int)i; /* one warp all positive */
    arg_buf(r, "in", 4 * n, in);
    cvm_buffer *bb = arg_buf(r, "ballots", 4 * nw, NULL), *ba = arg_buf(r, "anyAll", 8 * nw, NULL);
    cvm_buffer *bp = arg_buf(r, "prefix", 4 * n, NULL);
    arg_i32(r, "n", (int)n);
    LAUNCH1(r, cdiv(n, 128), 128);
    get(r, bb, ballots, 4 * nw);
    get(r, ba, anyAll, 8 * nw);
    get(r, bp, prefix, 4 * n);
    for (uint32_t w = 0; w < nw; w++) {
        int run_ = 0;
        wa[2 * w + 1] = 1;
        for (uint32_t l = 0; l < 32; l++) {
            uint32_t i = 32 * w + l;
            int v = i < n ? in[i] : 0;
            wb[w] |= (uint32_t)(v > 0) << l;
            wa[2 * w] |= v > 0;
            wa[2 * w + 1] &= v > 0;
            run_ += v;
            if (i < n)
                wp[i] = run_;
        }
        wa[2 * w] = wa[2 * w] != 0;
    }
    /* __any_sync/__all_sync return non-zero: compare truth values */
    for (uint32_t k = 0; k < 2 * nw; k++)
        anyAll[k] = anyAll[k] != 0;
    return same_u32(r, "ballots", ballots, wb, nw) && same_i32(r, "anyAll", anyAll, wa, 2 * (size_t)nw) &&
           same_i32(r, "prefix", prefix, wp, n);
}

static int t_atomics(run *r, uint32_t n)
{
    int32_t *in = rand_i32(r, n, -5000, 5000), acc[5] = {0, 0, INT_MAX, INT_MIN, -1}, wacc[4] = {0, 0, INT_MAX, INT_MIN};
    uint32_t uacc[5] = {0xffffffffu, 0, 0, 0, 0}, wu[5] = {0xffffffffu, 0, 0, 0, 0};
    uint64_t s64 = 0, w64 = 0;
    arg_buf(r, "in", 4 * n, in);
    cvm_buffer *ba = arg_buf(r, "acc", sizeof acc, acc), *bu = arg_buf(r, "uacc", sizeof uacc, uacc);
    cvm_buffer *bs = arg_buf(r, "sum64", 8, NULL);
    arg_i32(r, "n", (int)n);
    LAUNCH1(r, cdiv(n, 96), 96);
    get(r, ba, acc, sizeof acc);
    get(r, bu, uacc, sizeof uacc);
    get(r, bs, &s64, 8);
    for (uint32_t i = 0; i < n; i++) {
        wacc[0] += in[i], wacc[1] -= 1;
        wacc[2] = in[i] < wacc[2] ? in[i] : wacc[2];
        wacc[3] = in[i] > wacc[3] ? in[i] : wacc[3];
        wu[0] &= ~(1u << (i % 32)), wu[1] |= 1u << (in[i] & 31), wu[2] ^= (uint32_t)in[i];
        w64 += (uint64_t)(in[i] & 0xffff);
    }
    wu[3] = n % 17;               /* inc wraps at 16 -> 0 */
    wu[4] = (100 - n % 100) % 100; /* dec from 0 wraps to 99 */
    if (acc[4] < 0 || acc[4] >= (int32_t)n)
        fail(r, "acc[4] = %d after atomicExch, want a thread index < %u", acc[4], n);
    if (s64 != w64)
        fail(r, "sum64 = %llu, want %llu", (unsigned long long)s64, (unsigned long long)w64);
    return same_i32(r, "acc", acc, wacc, 4) && same_u32(r, "uacc", uacc, wu, 5);
}

static int t_scale_f4(run *r, uint32_t n)
{
    float *in = rand_f32(r, n, -2, 2), *out = NEW(r, float, n), *want = NEW(r, float, n), f = 0.375f;
    arg_buf(r, "in", 4 * n, in);
    cvm_buffer *bo = arg_buf(r, "out", 4 * n, NULL);
    arg_f32(r, "factor", f);
    arg_i32(r, "n", (int)n);
    arg_i32(r, "ITEMS", 4);
    r->args[r->nargs - 1].optional = 1;
    LAUNCH1(r, cdiv(n, 4 * 64), 64);
    get(r, bo, out, 4 * n);
    for (uint32_t i = 0; i < n; i++)
        want[i] = in[i] * f;
    return same_f32(r, "out", out, want, n);
}

static int t_scale_i2(run *r, uint32_t n)
{
    int32_t *in = rand_i32(r, n, -1000, 1000), *out = NEW(r, int32_t, n), *want = NEW(r, int32_t, n);
    arg_buf(r, "in", 4 * n, in);
    cvm_buffer *bo = arg_buf(r, "out", 4 * n, NULL);
    arg_i32(r, "factor", -7);
    arg_i32(r, "n", (int)n);
    arg_i32(r, "ITEMS", 2);
    r->args[r->nargs - 1].optional = 1;
    LAUNCH1(r, cdiv(n, 2 * 64), 64);
    get(r, bo, out, 4 * n);
    for (uint32_t i = 0; i < n; i++)
        want[i] = in[i] * -7;
    return same_i32(r, "out", out, want, n);
}

static int t_collatz(run *r, uint32_t n)
{
    uint32_t *st = NEW(r, uint32_t, n);
    int32_t *steps = NEW(r, int32_t, n), *cls = NEW(r, int32_t, n), *ws = NEW(r, int32_t, n), *wc = NEW(r, int32_t, n);
    int cap = 150;
    for (uint32_t i = 0; i < n; i++)
        st[i] = i < 3 ? i : 1 + rnd() % 100000;
    arg_buf(r, "start", 4 * n, st);
    cvm_buffer *bs = arg_buf(r, "steps", 4 * n, NULL), *bc = arg_buf(r, "cls", 4 * n, NULL);
    arg_i32(r, "n", (int)n);
    arg_i32(r, "cap", cap);
    LAUNCH1(r, cdiv(n, 64), 64);
    get(r, bs, steps, 4 * n);
    get(r, bc, cls, 4 * n);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = st[i];
        int s = 0;
        while (x > 1 && s < cap) {
            s++;
            x = x & 1 ? 3 * x + 1 : x >> 1;
        }
        ws[i] = s;
        int low = s & 7;
        wc[i] = low == 0 ? 110 : low <= 2 ? 10 : low == 3 ? -1 : low;
    }
    return same_i32(r, "steps", steps, ws, n) && same_i32(r, "cls", cls, wc, n);
}

static int t_rgb_gray(run *r, uint32_t n)
{
    int w = (int)n, h = (int)n / 2 + 1;
    size_t px = (size_t)w * h;
    uint8_t *rgba = NEW(r, uint8_t, 4 * px), *g = NEW(r, uint8_t, px), *want = NEW(r, uint8_t, px);
    for (size_t i = 0; i < 4 * px; i++)
        rgba[i] = (uint8_t)rnd();
    arg_buf(r, "rgba", 4 * px, rgba);
    cvm_buffer *bg = arg_buf(r, "gray", px, NULL);
    arg_i32(r, "width", w);
    arg_i32(r, "height", h);
    launch(r, cdiv(w, 16), cdiv(h, 16), 1, 16, 16, 1, 0);
    get(r, bg, g, px);
    for (size_t i = 0; i < px; i++) {
        float a = 0.299f * rgba[4 * i], b = 0.587f * rgba[4 * i + 1], c = 0.114f * rgba[4 * i + 2];
        float l = a + b;
        l = l + c;
        want[i] = (uint8_t)(l + 0.5f);
    }
    for (size_t i = 0; i < px && !r->why[0]; i++)
        if (g[i] != want[i])
            fail(r, "gray[%zu] = %u, want %u", i, g[i], want[i]);
    return !r->why[0];
}

static int t_gemv(run *r, uint32_t n)
{
    int rows = (int)n / 3 + 2, cols = (int)n;
    float *A = rand_f32(r, (size_t)rows * cols, -1, 1), *x = rand_f32(r, cols, -1, 1);
    float *y = rand_f32(r, rows, -1, 1), *got = NEW(r, float, rows), al = 1.5f, be = -0.5f;
    double *want = NEW(r, double, rows);
    arg_buf(r, "A", 4 * (size_t)rows * cols, A);
    arg_buf(r, "x", 4 * (size_t)cols, x);
    cvm_buffer *by = arg_buf(r, "y", 4 * (size_t)rows, y);
    arg_i32(r, "rows", rows);
    arg_i32(r, "cols", cols);
    arg_f32(r, "alpha", al);
    arg_f32(r, "beta", be);
    LAUNCH1(r, cdiv(rows * 32, 128), 128);
    get(r, by, got, 4 * (size_t)rows);
    for (int i = 0; i < rows; i++) {
        double s = 0;
        for (int c = 0; c < cols; c++)
            s += (double)A[(size_t)i * cols + c] * x[c];
        want[i] = al * s + be * y[i];
    }
    return near_f32(r, "y", got, want, rows, 1e-5, 1e-5);
}

/* ---- the table ---- */

static const tcase cases[] = {
    {"vector_add.cu", "vectorAdd", t_vector_add, {1, 100, 1000, 4099}},
    {"saxpy.cu", "saxpy", t_saxpy, {1, 127, 128, 3001}},
    {"warp_max_smem.cu", "warpMaxSmem", t_warp_max_smem, {1, 40, 256, 1000}},
    {"reduce_shared.cu", "reduceSum", t_reduce_shared, {1, 255, 256, 2000}},
    {"reduce_warp.cu", "deviceReduceSum", t_reduce_warp, {1, 31, 1000, 5000}},
    {"reduce_template.cu", "reduce<256>", t_reduce_t256, {1, 511, 1000, 9000}},
    {"reduce_template.cu", "reduce<128>", t_reduce_t128, {3, 256, 2100}},
    {"reduce_sharedmem_t.cu", "reduceT<int>", t_reduceT_int, {1, 128, 1000}},
    {"reduce_sharedmem_t.cu", "reduceT<double>", t_reduceT_double, {5, 64, 777}},
    {"reduce_cg.cu", "reduceCG", t_reduce_cg, {1, 33, 1000, 4000}},
    {"reduce_lastblock.cu", "sumLastBlock", t_reduce_lastblock, {1, 128, 1000, 3000}},
    {"scan_inclusive.cu", "scanInclusive", t_scan_inclusive, {1, 100, 128, 1000}},
    {"scan_exclusive.cu", "scanExclusive", t_scan_exclusive, {1, 100, 128, 1000}},
    {"histogram.cu", "histogram256", t_histogram, {1, 255, 5000}},
    {"transpose.cu", "transposeTiled", t_transpose, {1, 32, 45, 70}},
    {"matmul_naive.cu", "matmulNaive", t_matmul_naive, {1, 16, 33}},
    {"matmul_tiled.cu", "matmulTiled", t_matmul_tiled, {1, 16, 33}},
    {"conv_separable.cu", "convolutionRows", t_conv_rows, {1, 16, 37}},
    {"conv_separable.cu", "convolutionColumns", t_conv_cols, {1, 16, 37}},
    {"conv2d.cu", "conv2d", t_conv2d, {3, 8, 13}},
    {"max_pool2d.cu", "maxPool2d", t_max_pool, {3, 8, 21}},
    {"avg_pool2d.cu", "avgPool2d", t_avg_pool, {1, 8, 21}},
    {"softmax.cu", "softmaxRows", t_softmax, {1, 32, 100}},
    {"layernorm.cu", "layerNorm", t_layernorm, {1, 128, 300}},
    {"stencil1d.cu", "stencil1d", t_stencil1d, {1, 7, 128, 1000}},
    {"stencil2d.cu", "jacobi5", t_stencil2d, {1, 16, 37}},
    {"bitonic_sort.cu", "bitonicSortBlock", t_bitonic, {1, 100, 1024, 2500}},
    {"spmv_csr.cu", "spmvCsrScalar", t_spmv_scalar, {1, 64, 300}},
    {"spmv_csr.cu", "spmvCsrVector", t_spmv_vector, {1, 64, 300}},
    {"stream_compact.cu", "compactPositive", t_compact, {1, 31, 1000, 3000}},
    {"nbody.cu", "integrateBodies", t_nbody, {1, 128, 300}},
    {"mandelbrot.cu", "mandelbrot", t_mandelbrot, {1, 16, 50}},
    {"black_scholes.cu", "blackScholesGPU", t_black_scholes, {1, 100, 1000}},
    {"vec4_copy.cu", "copyVec4", t_vec4_copy, {1, 4, 7, 1001}},
    {"simd_word.cu", "simdWord", t_simd_word, {64, 300}},
    {"atomic_max_float.cu", "maxReduce", t_atomic_max, {1, 300, 5000}},
    {"grid2d.cu", "scaleOffset2d", t_grid2d, {1, 16, 37}},
    {"grid3d.cu", "gradient3d", t_grid3d, {1, 8, 19}},
    {"dyn_shared_carve.cu", "reverseCarved", t_carve, {1, 96, 250}},
    {"struct_params.cu", "affine", t_struct_params, {1, 128, 1000}},
    {"inherit_layer.cu", "layer", t_inherit_layer, {1, 128, 1000}},
    {"device_refs.cu", "windowMinMax", t_device_refs, {1, 64, 500}},
    {"vec3_ops.cu", "reflect", t_vec3, {1, 64, 300}},
    {"half_axpy.cu", "haxpy", t_half, {1, 64, 150}},
    {"dot_product.cu", "dot", t_dot, {1, 1000, 3000}},
    {"bit_ops.cu", "bitOps", t_bit_ops, {1, 64, 500}},
    {"union_keys.cu", "unionKeys", t_union_keys, {1, 64, 333}},
    {"math_funcs.cu", "mathFuncs", t_math, {1, 64, 500}},
    {"warp_vote.cu", "warpVote", t_warp_vote, {1, 40, 100, 500}},
    {"atomics_int.cu", "atomicsInt", t_atomics, {1, 96, 1000}},
    {"templated_scale.cu", "scale<float, 4>", t_scale_f4, {1, 255, 1000}},
    {"templated_scale.cu", "scale<int, 2>", t_scale_i2, {1, 127, 1000}},
    {"collatz_switch.cu", "collatz", t_collatz, {1, 64, 500}},
    {"rgb_to_gray.cu", "rgbaToGray", t_rgb_gray, {1, 16, 37}},
    {"gemv_warp.cu", "gemvWarp", t_gemv, {1, 32, 100}},
};

/* ---- cvm_module_symbol_write/read on an assembled module (no compiler needed) ---- */

static const char sym_cbs[] =
    ".constant coef f32 16 4 = 0x0000803f\n"
    ".global bias f32 4 4\n"
    ".kernel symk\n"
    ".param out buffer f32 write\n"
    ".reg u32 %i\n.reg i64 %off, %four\n.reg ptr.global %po, %pb\n.reg ptr.const %pc\n"
    ".reg f32 %x, %y\n"
    "    sreg.u32 %i, abs_pos.x\n    cvt.i64 %off, %i\n    const.i64 %four, 4\n"
    "    mul.i64 %off, %off, %four\n    sym.ptr.const %pc, coef\n"
    "    ptr.add.ptr.const %pc, %pc, %off\n    ld.f32 %x, [%pc]\n"
    "    sym.ptr.global %pb, bias\n    ld.f32 %y, [%pb]\n    add.f32 %x, %x, %y\n"
    "    param.ptr.global %po, out, 0\n    ptr.add.ptr.global %po, %po, %off\n"
    "    st.f32 [%po], %x\n    return\n.end\n";

static void test_symbols(void)
{
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_module *mod = kern_load(sym_cbs, "sym.cbs", &d);
    const cvm_kernel *k = NULL;
    ok(mod && cvm_kernel_get(mod, "symk", &k, &d) == CVM_OK, "symbols: module loads");
    if (!k) {
        cvm_module_free(mod);
        return;
    }
    float c0[4], coef[3] = {2, 3, 4}, bias = 0.5f, out[4] = {0}, back[4];
    cvm_stream *s = kern_stream();
    ok(cvm_module_symbol_read(s, mod, "coef", 0, c0, 16, &d) == CVM_OK && c0[0] == 1.0f && c0[3] == 0,
       "symbols: read a __constant__ initializer (1, 0, 0, 0)");
    ok(cvm_module_symbol_write(s, mod, "coef", 4, coef, 12, &d) == CVM_OK &&
           cvm_module_symbol_write(s, mod, "bias", 0, &bias, 4, &d) == CVM_OK,
       "symbols: write a constant at an offset and a global");
    cvm_buffer *b = kern_buf("out", 16, NULL);
    cvm_arg a = kern_arg_buf(b);
    cvm_launch_config cfg = kern_cfg(1, 4);
    int ran = cvm_launch(s, k, &cfg, &a, 1, &d) == CVM_OK && cvm_stream_sync(s, &d) == CVM_OK &&
              kern_read(b, out, 16);
    ok(ran && out[0] == 1.5f && out[1] == 2.5f && out[2] == 3.5f && out[3] == 4.5f,
       "symbols: the launch sees the written values (%g %g %g %g)", out[0], out[1], out[2], out[3]);
    ok(cvm_module_symbol_read(s, mod, "coef", 0, back, 16, &d) == CVM_OK && back[1] == 2 && back[3] == 4,
       "symbols: read back what was written");
    ok(cvm_module_symbol_write(s, mod, "coef", 8, coef, 12, &d) == CVM_INVALID_ARGUMENT &&
           strstr(d.message, "outside symbol 'coef'"),
       "symbols: a range past the end is refused: %s", d.message);
    ok(cvm_module_symbol_read(s, mod, "nope", 0, back, 4, &d) == CVM_NOT_FOUND && strstr(d.message, "nope"),
       "symbols: an unknown name is CVM_NOT_FOUND: %s", d.message);
    ok(cvm_module_symbol_write(s, mod, "bias", SIZE_MAX, &bias, 4, &d) == CVM_INVALID_ARGUMENT,
       "symbols: a huge offset is refused");
    cvm_symbol_info ci = {0}, gi = {0};
    ok(cvm_module_symbol_info(mod, "coef", &ci, &d) == CVM_OK && ci.elem == CVM_F32 && ci.size == 16 &&
           ci.constant == 1 && cvm_module_symbol_info(mod, "bias", &gi, &d) == CVM_OK &&
           gi.elem == CVM_F32 && gi.size == 4 && gi.constant == 0,
       "symbols: info gives element type, size and space (coef f32 16 constant, bias f32 4 global)");
    memset(&ci, 0x5a, sizeof ci); /* a failure zeroes it (it was left as it was) */
    ok(cvm_module_symbol_info(mod, "nope", &ci, &d) == CVM_NOT_FOUND && strstr(d.message, "'nope'") &&
           ci.size == 0 && ci.elem == 0 && ci.constant == 0 &&
           cvm_module_symbol_info(mod, NULL, &ci, &d) == CVM_INVALID_ARGUMENT,
       "symbols: info on an unknown name is CVM_NOT_FOUND, on NULL CVM_INVALID_ARGUMENT");
    cvm_buffer_free(b);
    cvm_module_free(mod);
}

int main(void)
{
    if (!kern_open())
        return 1;
    test_symbols();
    for (uint32_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i], i);
    kern_close();
    return done_testing();
}
