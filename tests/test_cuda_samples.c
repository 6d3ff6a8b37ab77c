/*
 * test_cuda_samples.c - kernels as the CUDA samples and a textbook write
 * them (tests/cuda/samples_*.cu, pmpp_*.cu), unmodified in style: host
 * programs in the same file, SharedMemory<T> with a specialization,
 * template block sizes, __constant__ filters written by the host, warp
 * shuffles with run-time widths. Each runs at several sizes against a
 * reference written here in plain C (harness: cuda_run.h). Where a sample
 * requires sizes that are multiples of its tile, the sizes are such
 * multiples, as the sample's host code asserts.
 */
#include "cuda_run.h"

/* ---- reduce0..reduce6 ---- */

/* Block b's sum when block b takes the elements with (e mod period) / span == b. */
static void block_sums(const int32_t *in, uint32_t n, uint32_t span, uint32_t g, int64_t *want)
{
    for (uint32_t b = 0; b < g; b++)
        want[b] = 0;
    for (uint32_t e = 0; e < n; e++)
        want[(e % (span * g)) / span] += in[e];
}

/* kind 0: one element per thread (reduce0..2), 1: two (reduce3..5), 2: reduce6 pow2, 3: reduce6 */
static int reduce_int(run *r, uint32_t n, uint32_t bs, int kind, const char *bsname)
{
    uint32_t span = kind == 0 || kind == 3 ? bs : 2 * bs, g = cdiv(n, span);
    if (kind >= 2 && g > 5)
        g = 5; /* fewer blocks than spans: the grid-stride loop */
    int32_t *in = rand_i32(r, n, -1000, 1000), *out = NEW(r, int32_t, g), *want32 = NEW(r, int32_t, g);
    int64_t *want = NEW(r, int64_t, g);
    arg_buf(r, "g_idata", 4 * (size_t)n, in);
    cvm_buffer *bo = arg_buf(r, "g_odata", 4 * (size_t)g, NULL);
    arg_u32(r, "n", n);
    (void)bsname; /* blockSize and nIsPow2 come from the instance's name (cvm_kernel_get_instance) */
    launch(r, g, 1, 1, bs, 1, 1, 4 * bs);
    get(r, bo, out, 4 * (size_t)g);
    block_sums(in, n, span, g, want);
    for (uint32_t b = 0; b < g; b++)
        want32[b] = (int32_t)want[b];
    return same_i32(r, "g_odata", out, want32, g);
}
static int t_reduce0(run *r, uint32_t n) { return reduce_int(r, n, 128, 0, NULL); }
static int t_reduce3(run *r, uint32_t n) { return reduce_int(r, n, 64, 1, NULL); }
static int t_reduce4(run *r, uint32_t n) { return reduce_int(r, n, 128, 1, "blockSize"); }
static int t_reduce5(run *r, uint32_t n) { return reduce_int(r, n, 256, 1, "blockSize"); }
static int t_reduce6p(run *r, uint32_t n) { return reduce_int(r, n, 256, 2, "blockSize"); }
static int t_reduce6n(run *r, uint32_t n) { return reduce_int(r, n, 128, 3, "blockSize"); }

/* reduce1<double> (SharedMemory<double>) and reduce2<float>: per-block sums within a tolerance */
static int reduce_fp(run *r, uint32_t n, int dbl)
{
    uint32_t bs = 64, g = cdiv(n, bs), esz = dbl ? 8 : 4;
    float *inf = rand_f32(r, n, -1, 1);
    double *ind = NEW(r, double, n), *outd = NEW(r, double, g), *want = NEW(r, double, g);
    float *outf = NEW(r, float, g), *gotf = NEW(r, float, g);
    for (uint32_t i = 0; i < n; i++)
        ind[i] = inf[i];
    arg_buf(r, "g_idata", (size_t)esz * n, dbl ? (void *)ind : (void *)inf);
    cvm_buffer *bo = arg_buf(r, "g_odata", (size_t)esz * g, NULL);
    arg_u32(r, "n", n);
    launch(r, g, 1, 1, bs, 1, 1, esz * bs);
    get(r, bo, dbl ? (void *)outd : (void *)outf, (size_t)esz * g);
    for (uint32_t i = 0; i < n; i++)
        want[i / bs] += ind[i];
    for (uint32_t b = 0; b < g; b++)
        gotf[b] = dbl ? (float)(outd[b] - want[b]) : (float)(outf[b] - want[b]);
    double *zero = NEW(r, double, g);
    return near_f32(r, "g_odata - reference", gotf, zero, g, dbl ? 1e-9 : 1e-4, 0);
}
static int t_reduce1d(run *r, uint32_t n) { return reduce_fp(r, n, 1); }
static int t_reduce2f(run *r, uint32_t n) { return reduce_fp(r, n, 0); }

/* ---- scalarProd ---- */

static int t_scalarprod(run *r, uint32_t n)
{
    int vn = 3, en = (int)n, accum = 1024;
    float *a = rand_f32(r, (size_t)vn * en, -1, 1), *b = rand_f32(r, (size_t)vn * en, -1, 1);
    float *got = NEW(r, float, vn), *want = NEW(r, float, vn), *acc = NEW(r, float, accum);
    cvm_buffer *bc = arg_buf(r, "d_C", 4 * (size_t)vn, NULL);
    arg_buf(r, "d_A", 4 * (size_t)vn * en, a);
    arg_buf(r, "d_B", 4 * (size_t)vn * en, b);
    arg_i32(r, "vectorN", vn);
    arg_i32(r, "elementN", en);
    LAUNCH1(r, 2, 128);
    get(r, bc, got, 4 * (size_t)vn);
    for (int v = 0; v < vn; v++) {
        for (int k = 0; k < accum; k++) {
            float s = 0;
            for (int p = v * en + k; p < (v + 1) * en; p += accum) {
                float prod = a[p] * b[p];
                s += prod;
            }
            acc[k] = s;
        }
        want[v] = tree_halving(acc, (uint32_t)accum);
    }
    return same_f32(r, "d_C", got, want, (size_t)vn);
}

/* ---- histogram256 ---- */

static int t_hist256(run *r, uint32_t n)
{
    uint32_t g = 5, bs = 192, *data = NEW(r, uint32_t, n), *got = NEW(r, uint32_t, 256 * g);
    uint32_t *want = NEW(r, uint32_t, 256 * g);
    for (uint32_t i = 0; i < n; i++)
        data[i] = rnd() ^ (rnd() << 16);
    cvm_buffer *bp = arg_buf(r, "d_PartialHistograms", 4 * 256 * (size_t)g, NULL);
    arg_buf(r, "d_Data", 4 * (size_t)n, data);
    arg_u32(r, "dataCount", n);
    LAUNCH1(r, g, bs);
    get(r, bp, got, 4 * 256 * (size_t)g);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t blk = (i % (bs * g)) / bs;
        for (int k = 0; k < 4; k++)
            want[blk * 256 + ((data[i] >> (8 * k)) & 0xff)]++;
    }
    return same_u32(r, "d_PartialHistograms", got, want, 256 * (size_t)g);
}

static int t_hist256_merge(run *r, uint32_t n)
{
    uint32_t count = n, *part = NEW(r, uint32_t, 256 * (size_t)count), *got = NEW(r, uint32_t, 256);
    uint32_t *want = NEW(r, uint32_t, 256);
    for (size_t i = 0; i < 256 * (size_t)count; i++) {
        part[i] = rnd() % 5000;
        want[i % 256] += part[i];
    }
    cvm_buffer *bh = arg_buf(r, "d_Histogram", 4 * 256, NULL);
    arg_buf(r, "d_PartialHistograms", 4 * 256 * (size_t)count, part);
    arg_u32(r, "histogramCount", count);
    LAUNCH1(r, 256, 256);
    get(r, bh, got, 4 * 256);
    return same_u32(r, "d_Histogram", got, want, 256);
}

/* ---- matrixMul<BLOCK_SIZE>: n encodes the shape in tiles (hA, wA, wB) ---- */

static int matrixmul(run *r, uint32_t n, int bsz)
{
    int hA = bsz * (int)(n / 100), wA = bsz * (int)(n / 10 % 10), wB = bsz * (int)(n % 10);
    float *a = rand_f32(r, (size_t)hA * wA, -1, 1), *b = rand_f32(r, (size_t)wA * wB, -1, 1);
    float *c = NEW(r, float, (size_t)hA * wB), *want = NEW(r, float, (size_t)hA * wB);
    cvm_buffer *bc = arg_buf(r, "C", 4 * (size_t)hA * wB, NULL);
    arg_buf(r, "A", 4 * (size_t)hA * wA, a);
    arg_buf(r, "B", 4 * (size_t)wA * wB, b);
    arg_i32(r, "wA", wA);
    arg_i32(r, "wB", wB);
    launch(r, (uint32_t)(wB / bsz), (uint32_t)(hA / bsz), 1, (uint32_t)bsz, (uint32_t)bsz, 1, 0);
    get(r, bc, c, 4 * (size_t)hA * wB);
    for (int i = 0; i < hA; i++)
        for (int j = 0; j < wB; j++) {
            float s = 0;
            for (int k = 0; k < wA; k++) {
                float p = a[i * wA + k] * b[k * wB + j];
                s += p;
            }
            want[i * wB + j] = s;
        }
    return same_f32(r, "C", c, want, (size_t)hA * wB);
}
static int t_matrixmul16(run *r, uint32_t n) { return matrixmul(r, n, 16); }
static int t_matrixmul8(run *r, uint32_t n) { return matrixmul(r, n, 8); }

/* ---- transposes: n encodes the shape in 32-tiles (width, height) ---- */

static int transpose_case(run *r, uint32_t n, int copy)
{
    int w = 32 * (int)(n / 10), h = 32 * (int)(n % 10);
    float *in = rand_f32(r, (size_t)w * h, -5, 5), *out = NEW(r, float, (size_t)w * h);
    float *want = NEW(r, float, (size_t)w * h);
    cvm_buffer *bo = arg_buf(r, "odata", 4 * (size_t)w * h, NULL);
    arg_buf(r, "idata", 4 * (size_t)w * h, in);
    arg_i32(r, "width", w);
    arg_i32(r, "height", h);
    launch(r, (uint32_t)w / 32, (uint32_t)h / 32, 1, 32, 8, 1, 0);
    get(r, bo, out, 4 * (size_t)w * h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            if (!copy)
                want[x * h + y] = in[y * w + x];
            else if (y % 32 < 8) /* the sample's copy moves the rows its threads sit on */
                want[y * w + x] = in[y * w + x];
        }
    return same_f32(r, "odata", out, want, (size_t)w * h);
}
static int t_transpose(run *r, uint32_t n) { return transpose_case(r, n, 0); }
static int t_copy_shared(run *r, uint32_t n) { return transpose_case(r, n, 1); }

/* ---- convolutionSeparable: n encodes the image in result tiles (W, H) ---- */

static int convsep(run *r, uint32_t n, int rows)
{
    int W = rows ? 128 * (int)(n / 10) : 16 * (int)(n / 10), H = rows ? 4 * (int)(n % 10) : 64 * (int)(n % 10);
    float taps[17], *src = rand_f32(r, (size_t)W * H, 0, 1), *dst = NEW(r, float, (size_t)W * H);
    float *want = NEW(r, float, (size_t)W * H);
    for (int k = 0; k < 17; k++)
        taps[k] = 0.01f * (float)(k + 1) - 0.05f;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    if (cvm_module_symbol_write(kern_stream(), r->mod, "c_Kernel", 0, taps, sizeof taps, &d))
        return fail(r, "cvm_module_symbol_write c_Kernel: %s", d.message);
    cvm_buffer *bd = arg_buf(r, "d_Dst", 4 * (size_t)W * H, NULL);
    arg_buf(r, "d_Src", 4 * (size_t)W * H, src);
    arg_i32(r, "imageW", W);
    arg_i32(r, "imageH", H);
    arg_i32(r, "pitch", W);
    if (rows)
        launch(r, (uint32_t)W / 128, (uint32_t)H / 4, 1, 16, 4, 1, 0);
    else
        launch(r, (uint32_t)W / 16, (uint32_t)H / 64, 1, 16, 8, 1, 0);
    get(r, bd, dst, 4 * (size_t)W * H);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            float sum = 0;
            for (int j = -8; j <= 8; j++) {
                int xs = rows ? x + j : x, ys = rows ? y : y + j;
                float v = xs >= 0 && xs < W && ys >= 0 && ys < H ? src[ys * W + xs] : 0.0f;
                float p = taps[8 - j] * v;
                sum += p;
            }
            want[y * W + x] = sum;
        }
    return same_f32(r, "d_Dst", dst, want, (size_t)W * H);
}
static int t_convsep_rows(run *r, uint32_t n) { return convsep(r, n, 1); }
static int t_convsep_cols(run *r, uint32_t n) { return convsep(r, n, 0); }

/* ---- shfl_scan: n is a multiple of the 256-thread block ---- */

static int t_shfl_scan(run *r, uint32_t n)
{
    uint32_t bs = 256, g = n / bs;
    int32_t *data = rand_i32(r, n, -100, 100), *got = NEW(r, int32_t, n), *want = NEW(r, int32_t, n);
    int32_t *part = NEW(r, int32_t, g), *wpart = NEW(r, int32_t, g);
    cvm_buffer *bd = arg_buf(r, "data", 4 * (size_t)n, data);
    arg_i32(r, "width", 32);
    cvm_buffer *bp = arg_buf(r, "partial_sums", 4 * (size_t)g, NULL);
    launch(r, g, 1, 1, bs, 1, 1, 4 * bs / 32);
    get(r, bd, got, 4 * (size_t)n);
    get(r, bp, part, 4 * (size_t)g);
    for (uint32_t b = 0; b < g; b++) {
        int32_t s = 0;
        for (uint32_t t = 0; t < bs; t++)
            want[b * bs + t] = s += data[b * bs + t];
        wpart[b] = s;
    }
    return same_i32(r, "data", got, want, n) && same_i32(r, "partial_sums", part, wpart, g);
}

static int t_uniform_add(run *r, uint32_t n)
{
    uint32_t bs = 256, g = n / bs;
    int32_t *data = rand_i32(r, n, -100, 100), *part = rand_i32(r, g, -5000, 5000);
    int32_t *got = NEW(r, int32_t, n), *want = NEW(r, int32_t, n);
    cvm_buffer *bd = arg_buf(r, "data", 4 * (size_t)n, data);
    arg_buf(r, "partial_sums", 4 * (size_t)g, part);
    arg_i32(r, "len", (int)n);
    LAUNCH1(r, g, bs);
    get(r, bd, got, 4 * (size_t)n);
    for (uint32_t i = 0; i < n; i++)
        want[i] = data[i] + part[i / bs];
    return same_i32(r, "data", got, want, n);
}

/* ---- vectorAdd (the sample with its host program) ---- */

static int t_vectoradd(run *r, uint32_t n)
{
    float *a = rand_f32(r, n, 0, 1), *b = rand_f32(r, n, 0, 1), *c = NEW(r, float, n), *want = NEW(r, float, n);
    arg_buf(r, "A", 4 * (size_t)n, a);
    arg_buf(r, "B", 4 * (size_t)n, b);
    cvm_buffer *bc = arg_buf(r, "C", 4 * (size_t)n, NULL);
    arg_i32(r, "numElements", (int)n);
    LAUNCH1(r, cdiv(n, 256), 256);
    get(r, bc, c, 4 * (size_t)n);
    for (uint32_t i = 0; i < n; i++)
        want[i] = a[i] + b[i] + 0.0f;
    return same_f32(r, "C", c, want, n);
}

/* ---- the textbook's scans and 1D convolutions ---- */

static int pmpp_scan(run *r, uint32_t n, int brent)
{
    float *x = rand_f32(r, n, 0, 1), *y = NEW(r, float, n);
    double *want = NEW(r, double, n);
    arg_buf(r, "X", 4 * (size_t)n, x);
    cvm_buffer *by = arg_buf(r, "Y", 4 * (size_t)n, NULL);
    arg_i32(r, "InputSize", (int)n);
    LAUNCH1(r, cdiv(n, 256), brent ? 128 : 256);
    get(r, by, y, 4 * (size_t)n);
    double s = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i % 256 == 0)
            s = 0;
        want[i] = s += x[i];
    }
    return near_f32(r, "Y", y, want, n, 1e-4, 1e-5);
}
static int t_kogge_stone(run *r, uint32_t n) { return pmpp_scan(r, n, 0); }
static int t_brent_kung(run *r, uint32_t n) { return pmpp_scan(r, n, 1); }

static int pmpp_conv1d(run *r, uint32_t n, int tiled)
{
    int width = (int)n, mw = tiled ? 7 : 5;
    float *in = rand_f32(r, n, -1, 1), *mask = rand_f32(r, 9, -1, 1), *p = NEW(r, float, n), *want = NEW(r, float, n);
    arg_buf(r, "N", 4 * (size_t)n, in);
    if (tiled) {
        cvm_diag d;
        memset(&d, 0, sizeof d);
        if (cvm_module_symbol_write(kern_stream(), r->mod, "M", 0, mask, 4 * 9, &d))
            return fail(r, "cvm_module_symbol_write M: %s", d.message);
    } else {
        arg_buf(r, "Mask", 4 * 9, mask);
    }
    cvm_buffer *bp = arg_buf(r, "P", 4 * (size_t)n, NULL);
    arg_i32(r, "Mask_Width", mw);
    arg_i32(r, "Width", width);
    LAUNCH1(r, cdiv(n, 64), 64);
    get(r, bp, p, 4 * (size_t)n);
    for (int i = 0; i < width; i++) {
        float s = 0;
        for (int j = 0; j < mw; j++) {
            int k = i - mw / 2 + j;
            float v = k >= 0 && k < width ? in[k] : 0.0f;
            if (!tiled && !(k >= 0 && k < width))
                continue;
            float prod = v * mask[j];
            s += prod;
        }
        want[i] = s;
    }
    return same_f32(r, "P", p, want, n);
}
static int t_conv1d_basic(run *r, uint32_t n) { return pmpp_conv1d(r, n, 0); }
static int t_conv1d_tiled(run *r, uint32_t n) { return pmpp_conv1d(r, n, 1); }

/* ---- an explicit specialization: fold<int> sums, fold<float> takes the maximum ---- */

static int spec_fold(run *r, uint32_t n, int flt)
{
    uint32_t chunk = 100, g = cdiv(n, chunk);
    int32_t *ini = rand_i32(r, n, -1000, 1000), *outi = NEW(r, int32_t, g), *wanti = NEW(r, int32_t, g);
    float *inf = rand_f32(r, n, -50, 50), *outf = NEW(r, float, g), *wantf = NEW(r, float, g);
    arg_buf(r, "in", 4 * (size_t)n, flt ? (void *)inf : (void *)ini);
    cvm_buffer *bo = arg_buf(r, "out", 4 * (size_t)g, NULL);
    arg_i32(r, "n", (int)n);
    arg_i32(r, "chunk", (int)chunk);
    LAUNCH1(r, g, 32);
    get(r, bo, flt ? (void *)outf : (void *)outi, 4 * (size_t)g);
    for (uint32_t b = 0; b < g; b++) {
        wanti[b] = 0;
        wantf[b] = -INFINITY;
        for (uint32_t i = b * chunk; i < (b + 1) * chunk && i < n; i++) {
            wanti[b] += ini[i];
            wantf[b] = inf[i] > wantf[b] ? inf[i] : wantf[b];
        }
    }
    return flt ? same_f32(r, "out", outf, wantf, g) : same_i32(r, "out", outi, wanti, g);
}
static int t_spec_int(run *r, uint32_t n) { return spec_fold(r, n, 0); }
static int t_spec_float(run *r, uint32_t n) { return spec_fold(r, n, 1); }

static const tcase cases[] = {
    {"template_specialization.cu", "fold<int>", t_spec_int, {1, 100, 1234}},
    {"template_specialization.cu", "fold<float>", t_spec_float, {1, 100, 1234}},
    {"samples_reduction.cu", "reduce0<int>", t_reduce0, {1, 128, 1000, 4099}},
    {"samples_reduction.cu", "reduce1<double>", t_reduce1d, {1, 64, 777}},
    {"samples_reduction.cu", "reduce2<float>", t_reduce2f, {3, 640, 1001}},
    {"samples_reduction.cu", "reduce3<int>", t_reduce3, {1, 128, 1000, 3000}},
    {"samples_reduction.cu", "reduce4<int, 128>", t_reduce4, {1, 256, 1000, 5000}},
    {"samples_reduction.cu", "reduce5<int, 256>", t_reduce5, {2, 512, 3333}},
    {"samples_reduction.cu", "reduce6<int, 256, true>", t_reduce6p, {1, 1024, 4096, 10000}},
    {"samples_reduction.cu", "reduce6<int, 128, false>", t_reduce6n, {5, 1000, 7777}},
    {"samples_scalarprod.cu", "scalarProdGPU", t_scalarprod, {1, 1000, 1024, 5000}},
    {"samples_histogram256.cu", "histogram256Kernel", t_hist256, {1, 191, 1000, 20000}},
    {"samples_histogram256.cu", "mergeHistogram256Kernel", t_hist256_merge, {1, 5, 240, 300}},
    {"samples_matrixmul.cu", "MatrixMulCUDA<16>", t_matrixmul16, {111, 231, 324}},
    {"samples_matrixmul.cu", "MatrixMulCUDA<8>", t_matrixmul8, {111, 352, 513}},
    {"samples_transpose.cu", "transposeNaive", t_transpose, {11, 23, 32}},
    {"samples_transpose.cu", "transposeCoalesced", t_transpose, {11, 23, 32}},
    {"samples_transpose.cu", "transposeNoBankConflicts", t_transpose, {11, 23, 32}},
    {"samples_transpose.cu", "transposeDiagonal", t_transpose, {11, 33, 23, 32}},
    {"samples_transpose.cu", "copySharedMem", t_copy_shared, {11, 22}},
    {"samples_convsep.cu", "convolutionRowsKernel", t_convsep_rows, {11, 23, 31}},
    {"samples_convsep.cu", "convolutionColumnsKernel", t_convsep_cols, {11, 32, 13}},
    {"samples_shfl_scan.cu", "shfl_scan_test", t_shfl_scan, {256, 512, 2560}},
    {"samples_shfl_scan.cu", "uniform_add", t_uniform_add, {256, 1024}},
    {"samples_vectoradd.cu", "vectorAdd", t_vectoradd, {1, 255, 50000}},
    {"pmpp_scan.cu", "Kogge_Stone_scan_kernel", t_kogge_stone, {1, 256, 1000, 2049}},
    {"pmpp_scan.cu", "Brent_Kung_scan_kernel", t_brent_kung, {1, 256, 1000, 2049}},
    {"pmpp_conv1d.cu", "convolution_1D_basic_kernel", t_conv1d_basic, {1, 64, 1000, 4097}},
    {"pmpp_conv1d.cu", "convolution_1D_tiled_kernel", t_conv1d_tiled, {1, 64, 1000, 4097}},
};

/* Compiles tests/cuda/FILE for the given kernels and loads the module (NULL: d says why). */
static cvm_module *compile_many(const char *file, const char *const *kernels, uint32_t n, cvm_diag *d)
{
    char path[256];
    snprintf(path, sizeof path, "tests/cuda/%s", file);
    size_t len = 0;
    char *src = NULL;
    FILE *f = fopen(path, "rb");
    if (f) {
        src = malloc(1 << 20);
        len = src ? fread(src, 1, (1 << 20) - 1, f) : 0;
        fclose(f);
    }
    if (!src)
        return NULL;
    cvm_compile_options o = {0};
    o.kernels = kernels;
    o.kernel_count = n;
    void *bytes = NULL;
    size_t size = 0;
    cvm_module *mod = NULL;
    if (cvm_compile_cuda(src, len, path, &o, &bytes, &size, d) == CVM_OK)
        cvm_module_load(kern_dev, bytes, size, &mod, d);
    cvm_free_bytes(bytes);
    free(src);
    return mod;
}

/* Integer template arguments: one comptime kernel per template and types; array bounds fold. */
static void test_comptime(void)
{
    cvm_diag d;
    memset(&d, 0, sizeof d);
    const char *red[] = {"reduce4<int, 128>", "reduce4<int, 256>", "reduce6<int, 64, false>",
                         "reduce4<float, 128>"};
    cvm_module *mod = compile_many("samples_reduction.cu", red, 4, &d);
    ok(mod && cvm_module_kernel_count(mod) == 3, "comptime: reduce4<int, 128> and <int, 256> share a "
       "kernel, reduce4<float, 128> and reduce6 have their own (%u kernels) %s",
       mod ? cvm_module_kernel_count(mod) : 0, d.message);
    const cvm_kernel *k1 = NULL, *k2 = NULL, *k3 = NULL;
    int64_t v1[8] = {0}, v2[8] = {0}, v3[8] = {0};
    cvm_kernel_info ki;
    memset(&ki, 0, sizeof ki);
    int got = mod && cvm_kernel_get_instance(mod, "reduce4<int, 128>", &k1, v1, 8, &d) == CVM_OK &&
              cvm_kernel_get_instance(mod, "reduce4<int,256u>", &k2, v2, 8, &d) == CVM_OK &&
              cvm_kernel_get_instance(mod, "reduce6<int, 64, false>", &k3, v3, 8, &d) == CVM_OK;
    if (k1)
        cvm_kernel_info_get(k1, &ki);
    ok(got && k1 == k2 && !strcmp(ki.name, "reduce4<int, blockSize>") && v1[3] == 128 && v2[3] == 256,
       "comptime: the instances resolve to '%s' with blockSize %lld and %lld", ki.name ? ki.name : "?",
       (long long)v1[3], (long long)v2[3]);
    ok(k3 && v3[3] == 64 && v3[4] == 0, "comptime: reduce6<int, 64, false> gives blockSize 64, nIsPow2 0");
    ok(mod && cvm_kernel_get_instance(mod, "reduce4<double, 128>", &k1, v1, 8, &d) == CVM_NOT_FOUND,
       "comptime: an instance that was not compiled is not found: %s", d.message);
    ok(mod && cvm_kernel_get_instance(mod, "reduce4<int, 128>", &k1, v1, 2, &d) == CVM_INVALID_ARGUMENT,
       "comptime: too few value slots are refused: %s", d.message);
    /* blockSize is an unsigned int: a value that does not fit names no instance */
    ok(mod && cvm_kernel_get_instance(mod, "reduce4<int, 4294967296>", &k1, v1, 8, &d) == CVM_NOT_FOUND &&
           cvm_kernel_get_instance(mod, "reduce4<int, -1>", &k1, v1, 8, &d) == CVM_NOT_FOUND &&
           cvm_kernel_get_instance(mod, "reduce4<int, 4294967295u>", &k1, v1, 8, &d) == CVM_OK &&
           v1[3] == 4294967295,
       "comptime: an argument outside its parameter's range (u32: 4294967296, -1) names no instance");
    /* a type argument in another spelling of the same type: the name says 'int' (uint32_t and
     * 'unsigned char' were refused or matched nothing: the real-world prober's) */
    ok(mod && cvm_kernel_get_instance(mod, "reduce4<int32_t, 128>", &k1, v1, 8, &d) == CVM_OK && v1[3] == 128 &&
           cvm_kernel_get_instance(mod, "reduce4<signed int, 64>", &k1, v1, 8, &d) == CVM_OK && v1[3] == 64 &&
           cvm_kernel_get_instance(mod, "reduce4<signed, 32>", &k1, v1, 8, &d) == CVM_OK &&
           cvm_kernel_get_instance(mod, "reduce4<unsigned int, 128>", &k1, v1, 8, &d) == CVM_NOT_FOUND &&
           cvm_kernel_get_instance(mod, "reduce4<long, 128>", &k1, v1, 8, &d) == CVM_NOT_FOUND,
       "comptime: int32_t, signed int and signed name the int instance; unsigned int and long do not");
    cvm_module_free(mod);
    const char *mm[] = {"MatrixMulCUDA<16>", "MatrixMulCUDA<8>"};
    mod = compile_many("samples_matrixmul.cu", mm, 2, &d);
    ok(mod && cvm_module_kernel_count(mod) == 2 && !strcmp(cvm_module_kernel_name(mod, 0), "MatrixMulCUDA<16>"),
       "comptime: BLOCK_SIZE bounds __shared__ arrays, so each instance is folded under its own name");
    cvm_module_free(mod);
    const char *twice[] = {"MatrixMulCUDA<16>", "MatrixMulCUDA<16>"};
    mod = compile_many("samples_matrixmul.cu", twice, 2, &d);
    ok(mod && cvm_module_kernel_count(mod) == 1, "an instance asked for twice is compiled once (%s)",
       mod ? "" : d.message);
    cvm_module_free(mod);
}

int main(void)
{
    if (!kern_open())
        return 1;
    test_comptime();
    for (uint32_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i], i);
    kern_close();
    return done_testing();
}
