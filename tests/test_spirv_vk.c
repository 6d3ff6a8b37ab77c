/*
 * test_spirv_vk.c - the SPIR-V backend's exact sequences on lavapipe, many
 * inputs each, against independent host references: f32 fma exactly
 * against the C library's fmaf (correctly rounded), the f32 exp/log family
 * within 1 ulp of the host's long double functions (docs/numerics.md's
 * bound), f64 exp/exp2 within 2 ulp. Special values (NaN, infinities,
 * signed zeros, subnormals) must match exactly. Skipped without Vulkan.
 * Run from the repository root.
 */
#include "../vm/cubevm.h"
#include "tap.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 4096

static cvm_device *vk;

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static double unif(double lo, double hi) { return lo + (hi - lo) * (double)(next() >> 11) / 9007199254740992.0; }

/* One unit per element: out[i] = OP(a[i], b[i], c[i]) for type ty (f32/f64). */
static cvm_status run(const char *ty, const char *opline, const void *a, const void *b,
                      const void *c, void *out, cvm_diag *d)
{
    size_t es = ty[1] == '6' ? 8 : 4;
    char src[2048];
    snprintf(src, sizeof src,
             ".kernel k\n.param a buffer %s read\n.param b buffer %s read\n.param c buffer %s read\n"
             ".param out buffer %s write\n.reg u32 %%t\n.reg i64 %%off, %%sz\n.reg ptr.global %%p\n"
             ".reg %s %%a, %%b, %%c, %%r\n"
             "    sreg.u32 %%t, abs_pos.x\n    cvt.i64 %%off, %%t\n    const.i64 %%sz, %zu\n"
             "    mul.i64 %%off, %%off, %%sz\n"
             "    param.ptr.global %%p, a, 0\n    ptr.add.ptr.global %%p, %%p, %%off\n    ld.%s %%a, [%%p]\n"
             "    param.ptr.global %%p, b, 0\n    ptr.add.ptr.global %%p, %%p, %%off\n    ld.%s %%b, [%%p]\n"
             "    param.ptr.global %%p, c, 0\n    ptr.add.ptr.global %%p, %%p, %%off\n    ld.%s %%c, [%%p]\n"
             "    %s\n"
             "    param.ptr.global %%p, out, 0\n    ptr.add.ptr.global %%p, %%p, %%off\n    st.%s [%%p], %%r\n"
             "    return\n.end\n",
             ty, ty, ty, ty, ty, es, ty, ty, ty, opline, ty);
    void *bytes = NULL;
    size_t size = 0;
    cvm_module *m = NULL;
    const cvm_kernel *k = NULL;
    cvm_buffer *bufs[4] = {0};
    const void *in[3] = {a, b, c};
    cvm_arg args[4];
    cvm_stream *s = cvm_device_stream(vk);
    cvm_status st = cvm_assemble(src, strlen(src), "exact.cbs", &bytes, &size, d);
    st = st ? st : cvm_module_load(vk, bytes, size, &m, d);
    st = st ? st : cvm_kernel_get(m, "k", &k, d);
    for (int i = 0; i < 4 && !st; i++) {
        st = cvm_buffer_create(vk, N * es, "buf", &bufs[i], d);
        if (!st && i < 3)
            st = cvm_buffer_write(s, bufs[i], 0, in[i], N * es, d);
        args[i] = (cvm_arg){CVM_ARG_BUFFER, bufs[i], 0, NULL, 0};
    }
    cvm_launch_config cfg = {{N / 256, 1, 1}, {256, 1, 1}, 0, 0, 0, 0, 0, 0};
    st = st ? st : cvm_launch(s, k, &cfg, args, 4, d);
    st = st ? st : cvm_stream_sync(s, d);
    st = st ? st : cvm_buffer_read(s, bufs[3], 0, out, N * es, d);
    for (int i = 0; i < 4; i++)
        cvm_buffer_free(bufs[i]);
    cvm_module_free(m);
    cvm_free_bytes(bytes);
    return st;
}

/* ---- fma f32: bit-exact against fmaf ---- */

static float bits_f(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static uint32_t f_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static void test_fma(void)
{
    static float a[N], b[N], c[N], out[N];
    static const float sp[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f, -1.0f, 1e-45f, 3e38f, 1.17549435e-38f};
    for (int i = 0; i < N; i++) {
        int kind = i % 4;
        a[i] = (float)unif(-4, 4) * ldexpf(1, (int)(next() % 40) - 20);
        b[i] = (float)unif(-4, 4) * ldexpf(1, (int)(next() % 40) - 20);
        if (kind == 0) /* cancellation: c close to -a*b */
            c[i] = -(a[i] * b[i]) * (1 + (float)unif(-1e-6, 1e-6));
        else if (kind == 1) /* c about half an ulp of a*b away from a grid point: ties */
            c[i] = ldexpf((float)(next() % 3) - 1.0f, ilogbf(a[i] * b[i]) - 24);
        else if (kind == 2) /* random bit patterns, any exponent */
            a[i] = bits_f((uint32_t)next()), b[i] = bits_f((uint32_t)next()), c[i] = bits_f((uint32_t)next());
        else
            c[i] = (float)unif(-16, 16);
        if (i < 1000 && i % 10 == 3) {
            a[i] = sp[(i / 10) % 10];
            c[i] = sp[(i / 100) % 10];
        }
    }
    cvm_diag d;
    memset(&d, 0, sizeof d);
    if (!ok(run("f32", "fma.f32 %r, %a, %b, %c", a, b, c, out, &d) == CVM_OK, "fma.f32 runs on vulkan (%s)", d.message))
        return;
    int bad = -1, nbad = 0;
    for (int i = 0; i < N; i++) {
        float want = fmaf(a[i], b[i], c[i]);
        if (!(isnan(want) && isnan(out[i])) && f_bits(want) != f_bits(out[i])) {
            if (bad < 0)
                bad = i;
            nbad++;
        }
    }
    ok(nbad == 0, "fma.f32 on %d inputs: bit-exact against fmaf (%d differ)", N, nbad);
    if (bad >= 0)
        diag("first: fma(%a, %a, %a) = %a, want %a", a[bad], b[bad], c[bad], out[bad],
             fmaf(a[bad], b[bad], c[bad]));
}

/* ---- exp/log family ---- */

typedef long double (*ref_fn)(long double);

/* Error of got against the true value ref in ulps of the result format. */
static double ulp_err(long double ref, double got, int f64)
{
    long double r = f64 ? (long double)(double)ref : (long double)(float)ref;
    if (isinf(r) || isinf(got) || isnan(r) || isnan(got)) /* overflow gives only infinity */
        return (isnan(r) && isnan(got)) || ((long double)got == r) ? 0 : INFINITY;
    int e = ilogbl(r == 0 ? ref : r);
    int emin = f64 ? -1022 : -126, p = f64 ? 52 : 23;
    if (e < emin)
        e = emin;
    if (ref == 0 && got == 0)
        return signbit((double)ref) == signbit(got) ? 0 : INFINITY;
    return (double)(fabsl((long double)got - ref) / ldexpl(1, e - p));
}

typedef struct mcase {
    const char *op;
    ref_fn ref;
    double lo, hi; /* random inputs */
    int logscale;  /* inputs are random positive bit patterns */
} mcase;

static void test_math(const char *ty, const mcase *mc, double bound)
{
    int f64 = ty[1] == '6';
    static double a64[N], o64[N];
    static float a32[N], o32[N];
    static const double sp[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0, 2.0, 10.0, 0.5, 1e-300, 4e-45};
    for (int i = 0; i < N; i++) {
        double x;
        if (i < 12)
            x = sp[i];
        else if (mc->logscale)
            x = f64 ? fabs(ldexp(unif(1, 2), (int)(next() % 2098) - 1074)) : fabs((double)bits_f((uint32_t)next() & 0x7f7fffffu));
        else if (i % 5 == 0)
            x = unif(-1, 1) * ldexp(1, -(int)(next() % 60)); /* tiny arguments */
        else
            x = unif(mc->lo, mc->hi);
        if (f64)
            a64[i] = x;
        else
            a32[i] = (float)x;
    }
    char line[64];
    snprintf(line, sizeof line, "%s.%s %%r, %%a", mc->op, ty);
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_status st = f64 ? run(ty, line, a64, a64, a64, o64, &d) : run(ty, line, a32, a32, a32, o32, &d);
    if (!ok(st == CVM_OK, "%s.%s runs on vulkan (%s)", mc->op, ty, st ? d.message : ""))
        return;
    double worst = 0;
    int wi = 0;
    for (int i = 0; i < N; i++) {
        long double x = f64 ? (long double)a64[i] : (long double)a32[i];
        double got = f64 ? o64[i] : (double)o32[i];
        double e = ulp_err(mc->ref(x), got, f64);
        if (!(e <= worst)) {
            worst = e;
            wi = i;
        }
    }
    ok(worst <= bound, "%s.%s on %d inputs: max error %.3f ulp (bound %.0f)", mc->op, ty, N, worst, bound);
    if (worst > bound)
        diag("worst at x = %a: got %a, want %La", f64 ? a64[wi] : (double)a32[wi],
             f64 ? o64[wi] : (double)o32[wi], mc->ref(f64 ? (long double)a64[wi] : (long double)a32[wi]));
}

int main(void)
{
    setenv("VK_DRIVER_FILES", "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json", 1);
    setenv("XDG_RUNTIME_DIR", "/tmp", 1);
    char tmp[64];
    snprintf(tmp, sizeof tmp, "/tmp/cvm-test-spirv-vk.XXXXXX");
    if (!mkdtemp(tmp)) {
        printf("1..0 # SKIP cannot create a temporary directory\n");
        return 0;
    }
    setenv("MESA_SHADER_CACHE_DIR", tmp, 1);
    cvm_diag d;
    cvm_status st = cvm_device_open("vulkan", NULL, &vk, &d);
    if (st != CVM_OK) {
        printf("1..0 # SKIP %s\n", d.message);
        return 0;
    }
    test_fma();
    static const mcase f32cases[] = {
        {"exp", expl, -104, 89, 0},    {"exp2", exp2l, -150, 128, 0}, {"expm1", expm1l, -20, 89, 0},
        {"log", logl, 0, 0, 1},        {"log2", log2l, 0, 0, 1},      {"log10", log10l, 0, 0, 1},
        {"log1p", log1pl, -1, 100, 0},
    };
    for (size_t i = 0; i < sizeof f32cases / sizeof f32cases[0]; i++)
        test_math("f32", &f32cases[i], 1);
    static const mcase f64cases[] = {{"exp", expl, -746, 710, 0}, {"exp2", exp2l, -1076, 1024, 0}};
    for (size_t i = 0; i < sizeof f64cases / sizeof f64cases[0]; i++)
        test_math("f64", &f64cases[i], 2);
    cvm_device_close(vk);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    if (system(cmd) != 0)
        diag("could not remove %s", tmp);
    return done_testing();
}
