/*
 * test_cuda_half2.c - __half2 (tests/cuda/half2_vec.cu) and __nv_bfloat162
 * (tests/cuda_bf16/bf162_axpy.cu): paired loads through reinterpret_cast,
 * __hfma2, h2 operators, __shfl_xor_sync of a pair, halves and
 * float pairs, at several sizes (odd ones leave a scalar tail), bit-exact
 * against a reference here that rounds to half and bfloat16 by its own
 * means (a binary search over the half encodings; bfloat16 by the bits).
 */
#include "cuda_run.h"

static double h2d(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
    return h & 0x8000 ? -v : v;
}

/* nearest half to x (ties to even), by bisection over the ordered positive encodings */
static uint16_t d2h(double x)
{
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    double a = fabs(x);
    if (a >= 65520.0)
        return (uint16_t)(sign | 0x7c00);
    uint16_t lo = 0, hi = 0x7bff; /* largest with h2d(lo) <= a */
    while (lo < hi) {
        uint16_t mid = (uint16_t)((lo + hi + 1) / 2);
        if (h2d(mid) <= a)
            lo = mid;
        else
            hi = (uint16_t)(mid - 1);
    }
    double below = a - h2d(lo), above = lo < 0x7bff ? h2d((uint16_t)(lo + 1)) - a : INFINITY;
    if (lo == 0x7bff && a > h2d(0x7bff))
        above = 65536.0 - a; /* rounding up past the largest finite half gives infinity */
    uint16_t h = lo;
    if (above < below || (above == below && (lo & 1)))
        h = (uint16_t)(lo + 1);
    return (uint16_t)(sign | h);
}

static float bf2f(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint16_t f2bf(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    u += 0x7fff + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}

static uint16_t *rand_half(run *r, size_t n)
{
    uint16_t *p = NEW(r, uint16_t, n);
    for (size_t i = 0; i < n && p; i++)
        p[i] = d2h(rndf(-8, 8));
    return p;
}

static int same_u16(run *r, const char *what, const uint16_t *got, const uint16_t *want, size_t n)
{
    for (size_t i = 0; i < n && !r->why[0]; i++)
        if (got[i] != want[i])
            return fail(r, "%s[%zu] = 0x%04x, want 0x%04x", what, i, got[i], want[i]);
    return !r->why[0];
}

static int t_scale_add(run *r, uint32_t n)
{
    float scale = 0.75f + (float)(n % 7) / 8;
    uint16_t *a = rand_half(r, n), *b = rand_half(r, n), *got = NEW(r, uint16_t, n), *want = NEW(r, uint16_t, n);
    arg_buf(r, "a", 2 * (size_t)n, a);
    arg_buf(r, "b", 2 * (size_t)n, b);
    cvm_buffer *bo = arg_buf(r, "out", 2 * (size_t)n, NULL);
    arg_f32(r, "scale", scale);
    arg_i32(r, "n", (int32_t)n);
    LAUNCH1(r, cdiv(cdiv(n, 2), 64), 64);
    get(r, bo, got, 2 * (size_t)n);
    double s = h2d(d2h(scale));
    for (uint32_t i = 0; i < n && !r->why[0]; i++) /* a product of halves plus a half is exact in double */
        want[i] = d2h(h2d(b[i]) * s + h2d(a[i]));
    return same_u16(r, "out", got, want, n);
}

static int t_h2_ops(run *r, uint32_t np)
{
    uint16_t *x = rand_half(r, 2 * (size_t)np), *y = rand_half(r, 2 * (size_t)np);
    uint16_t *gm = NEW(r, uint16_t, 2 * (size_t)np), *wm = NEW(r, uint16_t, 2 * (size_t)np);
    float *gf = NEW(r, float, 2 * (size_t)np), *wf = NEW(r, float, 2 * (size_t)np);
    float *gs = NEW(r, float, np), *ws = NEW(r, float, np);
    arg_buf(r, "x", 4 * (size_t)np, x);
    arg_buf(r, "y", 4 * (size_t)np, y);
    cvm_buffer *bf = arg_buf(r, "fout", 8 * (size_t)np, NULL), *bs = arg_buf(r, "fsum", 4 * (size_t)np, NULL);
    cvm_buffer *bm = arg_buf(r, "mixed", 4 * (size_t)np, NULL);
    arg_i32(r, "npairs", (int32_t)np);
    LAUNCH1(r, cdiv(np, 32), 32);
    get(r, bf, gf, 8 * (size_t)np);
    get(r, bs, gs, 4 * (size_t)np);
    get(r, bm, gm, 4 * (size_t)np);
    for (uint32_t i = 0; i < np && !r->why[0]; i++) {
        float d[2];
        for (int k = 0; k < 2; k++) {
            size_t j = 2 * (size_t)i + (size_t)k;
            uint16_t p = d2h(h2d(x[j]) * h2d(y[j]));
            p = d2h(h2d(p) + h2d(x[j]));
            wf[j] = (float)-h2d(p);
            d[k] = (float)h2d(d2h(h2d(x[j]) - h2d(y[j])));
        }
        ws[i] = d[0] + d[1];
        wm[2 * i] = x[2 * i + 1];
        wm[2 * i + 1] = y[2 * i];
    }
    return same_f32(r, "fout", gf, wf, 2 * (size_t)np) && same_f32(r, "fsum", gs, ws, np) &&
           same_u16(r, "mixed", gm, wm, 2 * (size_t)np);
}

static int t_bf162(run *r, uint32_t np)
{
    float a = -1.25f;
    size_t n = 2 * (size_t)np;
    uint16_t *x = NEW(r, uint16_t, n), *y = NEW(r, uint16_t, n), *got = NEW(r, uint16_t, n);
    uint16_t *want = NEW(r, uint16_t, n);
    for (size_t i = 0; i < n && y; i++) {
        x[i] = f2bf(rndf(-100, 100));
        y[i] = f2bf(rndf(-100, 100));
    }
    arg_buf(r, "x", 2 * n, x);
    cvm_buffer *by = arg_buf(r, "y", 2 * n, y);
    arg_f32(r, "a", a);
    arg_i32(r, "npairs", (int32_t)np);
    LAUNCH1(r, cdiv(np, 64), 64);
    get(r, by, got, 2 * n);
    for (size_t i = 0; i < n && !r->why[0]; i++)
        want[i] = f2bf(fmaf(a, bf2f(x[i]), bf2f(y[i])));
    return same_u16(r, "y", got, want, n);
}

/* the butterfly of 32 lanes, each step rounded to half per element, as the kernel does */
static int t_warp_sum(run *r, uint32_t np)
{
    uint32_t nw = cdiv(np, 32);
    uint16_t *x = rand_half(r, 2 * (size_t)np), *got = NEW(r, uint16_t, 2 * (size_t)nw);
    uint16_t *want = NEW(r, uint16_t, 2 * (size_t)nw);
    arg_buf(r, "in", 4 * (size_t)np, x);
    cvm_buffer *bo = arg_buf(r, "out", 4 * (size_t)nw, NULL);
    arg_i32(r, "npairs", (int32_t)np);
    LAUNCH1(r, cdiv(np, 64), 64);
    get(r, bo, got, 4 * (size_t)nw);
    for (uint32_t w = 0; w < nw && !r->why[0]; w++)
        for (int k = 0; k < 2; k++) {
            uint16_t v[32], nv[32];
            for (uint32_t l = 0; l < 32; l++)
                v[l] = w * 32 + l < np ? x[2 * (w * 32 + l) + (uint32_t)k] : 0;
            for (uint32_t o = 16; o > 0; o >>= 1) {
                for (uint32_t l = 0; l < 32; l++)
                    nv[l] = d2h(h2d(v[l]) + h2d(v[l ^ o]));
                memcpy(v, nv, sizeof v);
            }
            want[2 * w + (uint32_t)k] = v[0];
        }
    return same_u16(r, "out", got, want, 2 * (size_t)nw);
}

static const tcase cases[] = {
    {"half2_vec.cu", "scale_add_h2", t_scale_add, {1, 2, 129, 1000}},
    {"half2_vec.cu", "h2_ops", t_h2_ops, {1, 31, 500}},
    {"half2_vec.cu", "warp_sum_h2", t_warp_sum, {1, 32, 100, 1000}},
    {"../cuda_bf16/bf162_axpy.cu", "bf162_axpy", t_bf162, {1, 65, 700}},
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
