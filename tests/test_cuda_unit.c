/*
 * test_cuda_unit.c - the CUDA frontend's language features one at a time:
 * each case compiles a small kernel with cvm_compile_cuda, runs it on the
 * cpu device through the public API and compares its output words with
 * values computed independently.
 *
 * Two kinds of reference:
 * - "twin" cases: the kernel body is a macro that is valid C and CUDA C
 *   alike; it is stringified into the kernel and also compiled here by the
 *   host C compiler, whose result is the reference (C and C++ agree on
 *   everything these bodies do; nothing in them is undefined in C).
 * - hand cases: C++-only features (references, auto, namespaces, __half,
 *   ...) and cubevm's defined results for C's undefined behaviour
 *   (docs/numerics.md), with expected values written out by hand.
 */
#include "kern.h"

#include <fenv.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define STR_(...) #__VA_ARGS__
#define STR(...) STR_(__VA_ARGS__)
#define __device__ /* the twin bodies' device functions, as plain C */

#define NOUT 32
#define KSIG "__global__ void k(int *out, const int *in)\n{\n"

/* Input words shared by every twin case (in[] in both the kernel and the C twin). */
static const int IN[16] = {-1, 1, 200, -56, 30000, 65535, 5, -10, 7, 3, 100, 0x7fffffff, -7, 2, 40000, 9};

/* Compiles src (file name `what`) and loads it; NULL with a diag line on error. */
static cvm_module *compile_load(const char *src, const char *what)
{
    void *bytes = NULL;
    size_t size = 0;
    cvm_module *mod = NULL;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    if (cvm_compile_cuda(src, strlen(src), what, NULL, &bytes, &size, &d) != CVM_OK) {
        diag("%s: compile: %s", what, d.message);
        return NULL;
    }
    if (cvm_module_load(kern_dev, bytes, size, &mod, &d) != CVM_OK)
        diag("%s: load: %s", what, d.message);
    cvm_free_bytes(bytes);
    return mod;
}

/* Launches kernel `name` of mod with one block of `block` units and waits. */
static cvm_status launch(cvm_module *mod, const char *name, uint32_t block, const cvm_arg *args,
                         uint32_t nargs, int unchecked, cvm_diag *d)
{
    const cvm_kernel *k = NULL;
    cvm_launch_config cfg = kern_cfg(1, block);
    cfg.unchecked = unchecked;
    cfg.shared_bytes = 128; /* dynamic shared memory for the cases that declare it */
    memset(d, 0, sizeof *d);
    cvm_status st = cvm_kernel_get(mod, name, &k, d);
    if (st == CVM_OK)
        st = cvm_launch(kern_stream(), k, &cfg, args, nargs, d);
    if (st == CVM_OK)
        st = cvm_stream_sync(kern_stream(), d);
    return st;
}

/* Frees what a case made (any of them may be NULL). */
static void release(cvm_module *mod, cvm_buffer *out, cvm_buffer *in)
{
    if (out)
        cvm_buffer_free(out);
    if (in)
        cvm_buffer_free(in);
    if (mod)
        cvm_module_free(mod);
}

/*
 * Runs kernel k(out, in) of src with `block` units: out holds NOUT words
 * (zeroed), in holds in_words. Returns 1 with the words in out_words.
 */
static int run_k_in(const char *what, const char *src, uint32_t block, int unchecked,
                    const void *in_words, size_t in_size, void *out_words)
{
    int good = 0;
    cvm_module *mod = compile_load(src, what);
    cvm_buffer *out = kern_buf("out", NOUT * 4, NULL);
    cvm_buffer *in = kern_buf("in", in_size, in_words);
    if (mod && out && in) {
        cvm_arg args[] = {kern_arg_buf(out), kern_arg_buf(in)};
        cvm_diag d;
        cvm_status st = launch(mod, "k", block, args, 2, unchecked, &d);
        if (st != CVM_OK)
            diag("%s: launch: %s: %s", what, cvm_status_str(st), d.message);
        else
            good = kern_read(out, out_words, NOUT * 4);
    }
    release(mod, out, in);
    return good;
}

static int run_k(const char *what, const char *src, uint32_t block, int unchecked, void *out_words)
{
    return run_k_in(what, src, block, unchecked, IN, sizeof IN, out_words);
}

/*
 * One TAP line; with a `todo` reason (a known compiler bug, reported to the
 * frontend's owner) a TAP TODO line that shows the state without failing.
 */
static void result(int good, const char *todo, const char *what)
{
    if (!todo) {
        ok(good, "%s", what);
        return;
    }
    tap_n++;
    printf("%sok %d - %s # TODO %s\n", good ? "" : "not ", tap_n, what, todo);
    fflush(stdout);
}

/* One TAP line: the kernel's first n words equal want[] (mismatches listed). */
static void words_are(const char *what, const char *src, uint32_t block, const int32_t *want, int n,
                      const char *todo)
{
    int32_t got[NOUT];
    memset(got, 0, sizeof got);
    int good = run_k(what, src, block, 0, got);
    for (int i = 0; good && i < n; i++)
        if (got[i] != want[i]) {
            diag("%s: out[%d] = %d (0x%x), want %d (0x%x)", what, i, got[i], (unsigned)got[i],
                 want[i], (unsigned)want[i]);
            good = 0;
        }
    result(good, todo, what);
}

static int32_t f2w(float f)
{
    int32_t w;
    memcpy(&w, &f, 4);
    return w;
}

/* The twins mix signedness and fall through on purpose: that is what they test. */
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#endif

/* ---- twin cases: the body below is the kernel and, compiled here, the reference ---- */

#define TWIN(name, ...)                                                                           \
    static void name##_ref(int *out, const int *in) { __VA_ARGS__ }                             \
    static const char name##_src[] = KSIG STR(__VA_ARGS__) "\n}\n";

/* C's usual arithmetic conversions, with unsigned/signed mixes and char/short promotion. */
TWIN(promotion,
     int s = in[0]; unsigned u = in[1]; unsigned char uc = in[2]; signed char sc = in[3];
     short sh = in[4]; unsigned short us = in[5]; unsigned x = in[6]; long long y = in[7];
     unsigned long long ux = in[6]; char c = 65;
     out[0] = s < u; out[1] = uc + uc; out[2] = (unsigned char)(uc + uc); out[3] = sh * 2;
     out[4] = us + 1; out[5] = (int)(s / 2u); out[6] = in[12] / 2; out[7] = in[12] % 2;
     out[8] = sc >> 1; out[9] = (int)((unsigned)in[12] >> 1); out[10] = (int)((1LL << 40) >> 38);
     out[11] = (int)sizeof(uc + uc); out[12] = c + 1; out[13] = (int)(x + y);
     out[14] = (ux + (long long)in[7]) > 0; out[15] = sc < uc; out[16] = (short)in[14];
     out[17] = (int)(1 + 2.5); out[18] = 7u - in[1] * 10 > 5u; out[19] = (int)sizeof(sh + sh);
     out[20] = (int)sizeof(s + 1u); out[21] = (int)sizeof(s + y); out[22] = sh * sh;
     out[23] = (unsigned short)(us + 1) == 0; out[24] = -uc; out[25] = ~uc; out[26] = !sc;
     out[27] = (int)(unsigned char)sc; out[28] = (int)(signed char)uc;
     out[29] = (int)((unsigned)in[11] + 1u > 0u); out[30] = in[11] / in[8];)

/* Compound assignment with every operator, on int, unsigned, char, float and pointers. */
TWIN(compound,
     int a = in[9]; unsigned b = in[10]; char c = in[10]; float f = 1.5f; const int *p = in;
     a += 4; out[0] = a; a -= 10; out[1] = a; a *= -6; out[2] = a; a /= 4; out[3] = a;
     a %= 5; out[4] = a; a <<= 3; out[5] = a; a >>= 1; out[6] = a; a &= 0x1c; out[7] = a;
     a |= 0x100; out[8] = a; a ^= 0x1ff; out[9] = a;
     b -= 101; out[10] = (int)b; b >>= 28; out[11] = (int)b; b *= 3u; out[12] = (int)b;
     b /= 2u; out[13] = (int)b; b %= 4u; out[14] = (int)b;
     c += 100; out[15] = c; c -= 200; out[16] = c; c *= 3; out[17] = c;
     f += 2.25f; f *= 4.0f; f -= 1.0f; f /= 8.0f; out[18] = (int)(f * 1024.0f);
     p += 5; out[19] = *p; p -= 2; out[20] = *p; a = 7; a += 2 * a; out[21] = a;)

/* ++ and -- before and after, on ints and on pointers into global memory. */
TWIN(incdec,
     int i = in[8]; const int *p = in + 4; int *q = out + 20;
     out[0] = i++; out[1] = i; out[2] = ++i; out[3] = i--; out[4] = --i; out[5] = i;
     out[6] = *p++; out[7] = *p; out[8] = *++p; out[9] = *p--; out[10] = *--p;
     out[11] = (int)(p - in); *q++ = 11; *q++ = 12; *--q += 100; out[12] = (int)(q - out);
     unsigned u = 0; u--; out[13] = (int)(u >> 16); char ch = 127; ch++; out[14] = ch;)

/* Ternary (nested, as lvalue choice) and the comma operator. */
TWIN(ternary_comma,
     int a = in[8], b = in[9], c;
     out[0] = a > b ? a : b; out[1] = a < b ? a : b; out[2] = a > 5 ? b > 5 ? 1 : 2 : 3;
     c = (a++, b++, a + b); out[3] = c; out[4] = a; out[5] = b;
     out[6] = in[0] < 0 ? -in[0] : in[0]; out[7] = (a > b ? in[1] : in[2]) + 1;
     for (a = 0, b = 10; a < b; a += 2, b--) c += a * b; out[8] = c;
     out[9] = in[0] ? 2.5f > 2 : 0; out[10] = (int)(in[1] ? 1.5f : 2);)

/* switch fallthrough, break and continue inside a loop, do-while. */
TWIN(switch_loop,
     int acc = 0, n = 0;
     for (int i = 0; i < 12; i++) {
         switch (i % 5) {
         case 0: acc += 1;
         case 1: acc += 10; break;
         case 2: if (i == 7) continue; acc += 100;
         case 3: acc += 1000;
         default: acc += 10000;
         }
         acc += 100000;
     }
     out[0] = acc;
     do { n += 3; if (n == 9) continue; out[1] += n; } while (n < 20);
     out[2] = n; do out[3]++; while (0);
     int j = 0; while (1) { if (++j > 6) break; if (j & 1) continue; out[4] += j; }
     out[5] = j;
     for (int a = 0; a < 4; a++) for (int b = 0; b < 4; b++) { if (b > a) break; out[6] += a * 4 + b; })

/* return inside loops, in a device function and in the kernel. */
__device__ static int find_first(const int *a, int n, int key)
{
    for (int i = 0; i < n; i++) {
        if (a[i] == key)
            return i;
    }
    return -1;
}
#define FIND_FIRST_SRC                                                                            \
    "__device__ static int find_first(const int *a, int n, int key)\n"                            \
    "{\n    for (int i = 0; i < n; i++) {\n        if (a[i] == key)\n            return i;\n"    \
    "    }\n    return -1;\n}\n"
TWIN(returns,
     out[0] = find_first(in, 16, 7); out[1] = find_first(in, 16, 12345);
     out[2] = find_first(in + 9, 7, 9);
     for (int i = 0; i < 100; i++) { out[3] = i; if (i * i > 50) return; }
     out[4] = 99;)

/* Literals of value zero keep their suffix's type (0u, 0ull, 0x0ULL). */
TWIN(zero_literals,
     unsigned n = in[13] + 2; long long ll = 0u - 1;
     out[0] = (int)(~0u >> (32 - n)); out[1] = (int)(~0U >> 1); out[2] = (int)(~0ull >> (64 - n));
     out[3] = (int)((0ull - 1) >> 60); out[4] = (int)((0x0ULL - 1) >> 63); out[5] = (int)sizeof(0ll);
     out[6] = (int)sizeof(0ull); out[7] = (int)sizeof(0u); out[8] = (int)(ll >> 16);
     out[9] = in[0] <= 0u; out[10] = (int)((0l - 1) >> 40); out[11] = (int)sizeof(0 + 0ul);)

/* ---- hand cases ---- */

static void test_twins(void)
{
    struct {
        const char *name;
        const char *src;
        void (*ref)(int *, const int *);
        int n;
        const char *todo;
    } twins[] = {
        {"promotion rules (unsigned/signed, char/short)", promotion_src, promotion_ref, 31, NULL},
        {"compound assignment, every operator", compound_src, compound_ref, 22, NULL},
        {"++/-- pre and post on ints and pointers", incdec_src, incdec_ref, 15, NULL},
        {"ternary and comma", ternary_comma_src, ternary_comma_ref, 11, NULL},
        {"switch fallthrough, break/continue in loops, do-while", switch_loop_src, switch_loop_ref, 7, NULL},
        {"return inside loops and device functions", NULL, returns_ref, 5, NULL},
        {"zero literals with suffixes", zero_literals_src, zero_literals_ref, 12, NULL},
    };
    char returns_full[2048];
    snprintf(returns_full, sizeof returns_full, "%s%s", FIND_FIRST_SRC, returns_src);
    twins[5].src = returns_full;
    for (size_t t = 0; t < sizeof twins / sizeof twins[0]; t++) {
        int want[NOUT];
        memset(want, 0, sizeof want);
        twins[t].ref(want, IN);
        words_are(twins[t].name, twins[t].src, 1, want, twins[t].n, twins[t].todo);
    }
}

static void test_sizeof(void)
{
    const char *src =
        "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n#include <stdint.h>\n"
        "__global__ void k(int *out, const int *in)\n{\n"
        "    int i = 0;\n"
        "    out[i++] = sizeof(bool); out[i++] = sizeof(char); out[i++] = sizeof(short);\n"
        "    out[i++] = sizeof(int); out[i++] = sizeof(long); out[i++] = sizeof(long long);\n"
        "    out[i++] = sizeof(float); out[i++] = sizeof(double); out[i++] = sizeof(size_t);\n"
        "    out[i++] = sizeof(__half); out[i++] = sizeof(__nv_bfloat16); out[i++] = sizeof(int8_t);\n"
        "    out[i++] = sizeof(uint16_t); out[i++] = sizeof(int64_t); out[i++] = sizeof(float2);\n"
        "    out[i++] = sizeof(float3); out[i++] = sizeof(float4); out[i++] = sizeof(int4);\n"
        "    out[i++] = sizeof(double2); out[i++] = sizeof(unsigned char); out[i++] = sizeof(in);\n"
        "    int arr[7]; out[i++] = sizeof arr; out[i++] = sizeof(arr) / sizeof(arr[0]);\n"
        "    struct S { char c; int x; short s; }; out[i++] = sizeof(S);\n"
        "    out[i++] = sizeof(uint2); out[i++] = sizeof(in[0] + 1LL);\n"
        "}\n";
    static const int32_t want[] = {1, 1, 2, 4, 8, 8, 4, 8, 8, 2, 2, 1, 2, 8,
                                   8, 12, 16, 16, 16, 1, 8, 28, 7, 12, 8, 8};
    words_are("sizeof of each type", src, 1, want, (int)(sizeof want / sizeof want[0]), NULL);
}

/* float -> int: truncation toward zero, then saturation; NaN -> 0 (docs/numerics.md). */
static void test_casts(void)
{
    const char *src =
        "__global__ void k(int *out, const int *in)\n{\n"
        "    const float *f = reinterpret_cast<const float *>(in);\n"
        "    out[0] = (int)f[0]; out[1] = (int)f[1]; out[2] = (int)f[2]; out[3] = (int)f[3];\n"
        "    out[4] = (int)(unsigned)f[4]; out[5] = (int)(unsigned char)f[5];\n"
        "    out[6] = (short)f[6]; out[7] = (int)((long long)f[7] >> 32);\n"
        "    out[8] = (int)f[8]; out[9] = (unsigned)f[9]; out[10] = (int)(unsigned short)f[4];\n"
        "    out[11] = __float_as_int((float)(16777217 + (int)f[11]));\n"
        "    out[12] = (int)(double)f[0]; out[13] = (int)f[10];\n"
        "}\n";
    float fin[16] = {3e10f, -3e10f, 2.9f, -2.9f, -1.5f, 300.0f, 1e6f, 1e30f, -0.9f, 5e9f, NAN, 0.0f};
    int32_t want[14] = {2147483647, (int32_t)0x80000000, 2, -2, 0, 255, 32767, 0x7fffffff, 0,
                        -1 /* 5e9 -> UINT_MAX */, 0, 0, 2147483647, 0};
    want[11] = f2w(16777216.0f); /* 2^24 + 1 rounds to even: 2^24 */
    int32_t got[NOUT];
    memset(got, 0, sizeof got);
    /* unchecked: an out-of-range conversion may also fault in checked mode */
    int good = run_k_in("casts.cu", src, 1, 1, fin, sizeof fin, got);
    for (int i = 0; good && i < 14; i++)
        if (got[i] != want[i]) {
            diag("casts: out[%d] = %d (0x%x), want %d (0x%x)", i, got[i], (unsigned)got[i], want[i],
                 (unsigned)want[i]);
            good = 0;
        }
    ok(good, "casts: float->int truncates and saturates, NaN -> 0, int->float rounds to even");
}

/* Hand cases: each source with the words it must write. */
static void test_hand(void)
{
    static const struct {
        const char *name, *src;
        int32_t want[NOUT];
        int n;
        uint32_t block;
        const char *todo;
    } cases[] = {
        {"references to locals, globals, shared memory and buffer elements",
         "__device__ int g_counter = 5;\n"
         "__device__ void bump(int &x, int by) { x += by; }\n"
         "__global__ void k(int *out, const int *in)\n{\n"
         "    __shared__ int s[4];\n"
         "    int loc = 1;\n    int &r = loc;\n    r += 2;\n    bump(loc, 10);\n"
         "    bump(g_counter, in[1] * 7);\n"
         "    int &sr = s[threadIdx.x];\n    sr = 40;\n    bump(sr, 2);\n"
         "    int &gr = out[3];\n    gr = 9;\n    bump(gr, 1);\n"
         "    const int &cr = in[4];\n"
         "    __syncthreads();\n"
         "    out[0] = loc; out[1] = g_counter; out[2] = s[0]; out[4] = cr;\n}\n",
         {13, 12, 42, 10, 30000}, 5, 1, NULL},
        {"auto and constexpr",
         "constexpr int N = 3 * 4;\n"
         "constexpr float HALF = 0.5f;\n"
         "__global__ void k(int *out, const int *in)\n{\n"
         "    auto a = in[8];\n    auto b = 2.5f * a;\n    auto c = 1ull << 40;\n"
         "    constexpr int M = N + 1;\n    int arr[M];\n"
         "    for (auto i = 0; i < M; i++) arr[i] = i * i;\n"
         "    out[0] = a; out[1] = (int)(b * 2); out[2] = (int)(c >> 38); out[3] = sizeof(c);\n"
         "    out[4] = arr[M - 1]; out[5] = sizeof(arr); out[6] = (int)(HALF * 10); out[7] = sizeof(b);\n}\n",
         {7, 35, 4, 8, 144, 52, 5, 4}, 8, 1, NULL},
        {"namespaces, using namespace, nested and qualified names",
         "namespace geo {\n"
         "__device__ int area(int w, int h) { return w * h; }\n"
         "namespace inner { constexpr int SCALE = 3; __device__ int area(int s) { return s * s * SCALE; } }\n"
         "}\n"
         "namespace other { __device__ int twice(int x) { return 2 * x; } }\n"
         "using namespace other;\n"
         "__global__ void k(int *out, const int *in)\n{\n"
         "    out[0] = geo::area(in[8], in[9]);\n    out[1] = geo::inner::area(in[13]);\n"
         "    out[2] = twice(in[9]);\n    out[3] = other::twice(geo::inner::SCALE);\n}\n",
         {21, 12, 6, 6}, 4, 1, NULL},
        {"enums (plain and scoped), typedef and using",
         "enum Color { RED, GREEN = 5, BLUE };\n"
         "enum class Mode : int { Off = 1, On = 4 };\n"
         "typedef unsigned int u32;\n"
         "using real = float;\n"
         "typedef struct { int a; real b; } pair_t;\n"
         "__global__ void k(int *out, const int *in)\n{\n"
         "    Color c = BLUE;\n    Mode m = Mode::On;\n    u32 x = (u32)in[0];\n    real r = 1.25f;\n"
         "    pair_t p;\n    p.a = GREEN;\n    p.b = r * 4;\n"
         "    out[0] = c; out[1] = (int)m; out[2] = (int)(x >> 28); out[3] = p.a + (int)p.b;\n"
         "    out[4] = (m == Mode::On) + (c == BLUE) * 2; out[5] = RED;\n}\n",
         {6, 4, 15, 10, 3, 0}, 6, 1, NULL},
        {"float2/int4/uint2/double2 with make_*",
         "__global__ void k(int *out, const int *in)\n{\n"
         "    float2 a = make_float2(1.5f, -2.0f);\n    int4 b = make_int4(in[8], in[9], in[12], 4);\n"
         "    uint2 u = make_uint2(7u, 9u);\n    double2 d = make_double2(0.25, 8.0);\n"
         "    float4 f = make_float4(a.x, a.y, (float)b.z, (float)b.w);\n"
         "    a.x += 1.0f;\n    b.w *= 3;\n"
         "    out[0] = (int)(a.x * 10); out[1] = (int)a.y; out[2] = b.x + b.y + b.z + b.w;\n"
         "    out[3] = (int)(u.x * u.y); out[4] = (int)(d.x * d.y); out[5] = (int)(f.x + f.y + f.z + f.w);\n}\n",
         {25, -2, 15, 63, 2, -3}, 6, 1, NULL},
        {"__half and __nv_bfloat16 arithmetic and rounding",
         "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n"
         "__global__ void k(int *out, const int *in)\n{\n"
         "    float *o = reinterpret_cast<float *>(out);\n"
         "    __half a = __float2half(1.5f), b = __float2half(2.25f);\n"
         "    __half c = a * b + a;\n    o[0] = __half2float(c);\n"
         "    o[1] = __half2float(__float2half(0.1f));\n"
         "    o[2] = __half2float(__hadd(a, b));\n"
         "    o[3] = __half2float(__float2half(70000.0f));\n"
         "    __nv_bfloat16 x = __float2bfloat16(1.0f / 3.0f);\n    o[4] = __bfloat162float(x);\n"
         "    __nv_bfloat16 y = __float2bfloat16(3.0f);\n    o[5] = __bfloat162float(x * y);\n"
         "    o[6] = __half2float(a - b);\n    out[7] = a < b;\n}\n",
         /* by hand: 4.875; 0.1 -> 0x2e66 = 0.0999755859375; 3.75; overflow -> inf;
            1/3 -> bf16 0x3eab = 0.333984375; 0.333984375*3 = 1.001953125 -> bf16 1.0;
            -0.75; 1 */
         {0x409c0000, 0x3dccc000, 0x40700000, 0x7f800000, 0x3eab0000, 0x3f800000, (int32_t)0xbf400000, 1},
         8, 1, NULL},
        {"halving adds of ints: __hadd, __rhadd, __uhadd, __urhadd",
         "__global__ void k(int *out, const int *in)\n{\n"
         "    out[0] = __hadd(in[8], in[12]); out[1] = __rhadd(in[8], in[12]);\n"
         "    out[2] = __hadd(in[12], in[13]); out[3] = __rhadd(in[12], in[13]);\n"
         "    out[4] = __hadd(in[11], in[11]); out[5] = __rhadd(-in[11] - 1, in[0]);\n"
         "    out[6] = (int)__uhadd(4294967295u, 4294967295u); out[7] = (int)__urhadd(4294967295u, 0u);\n"
         "    out[8] = (int)__uhadd(3u, 4u); out[9] = (int)__urhadd(3u, 4u);\n}\n",
         /* by hand: (7 - 7) >> 1 = 0, (7 - 7 + 1) >> 1 = 0; (-7 + 2) >> 1 = -3 (floor),
            (-7 + 2 + 1) >> 1 = -2; INT_MAX; (INT_MIN - 1 + 1) >> 1 = -2^30; UINT_MAX;
            2^32 >> 1 = 2^31; 3; 4 */
         {0, 0, -3, -2, 0x7fffffff, -1073741824, -1, (int32_t)0x80000000, 3, 4}, 10, 1, NULL},
        {"rounding conversions, lrint/lround, signbit, funnel shifts and __dp4a",
         "__global__ void k(int *out, const int *in)\n{\n"
         "    float h = in[10] / 40.0f; /* 2.5 */\n"
         "    out[0] = __float2int_rn(h); out[1] = __float2int_rn(h + 1.0f); out[2] = __float2int_rd(-h + 1.0f);\n"
         "    out[3] = __float2int_ru(-h + 1.0f); out[4] = __float2int_rz(-1.7f); out[5] = (int)__float2uint_rn(-3.0f);\n"
         "    out[6] = __float2int_rn(3e9f); out[7] = __double2int_rd(-0.5); out[8] = (int)__float2ll_ru(h * 4.0f - 0.5f);\n"
         "    out[9] = (int)lrintf(-h); out[10] = (int)lroundf(-h); out[11] = (int)llround((double)h);\n"
         "    out[12] = signbit(-0.0f) != 0; out[13] = signbit((double)h) != 0;\n"
         "    out[14] = (int)__funnelshift_l(0x80000001u, 0x1u, 4); out[15] = (int)__funnelshift_r(0x80000001u, 0x3u, 33);\n"
         "    out[16] = (int)__funnelshift_lc(1u, 2u, 40); out[17] = (int)__funnelshift_rc(1u, 2u, 40);\n"
         "    out[18] = __dp4a(0x01FF0203, 0x02020202, 100); out[19] = (int)__dp4a(0x01FF0203u, 0x02020202u, 100u);\n"
         "    out[20] = __float2int_rn(__int_as_float(0x7fc00000));\n"
         "    out[21] = __dp4a(make_char4(3, 2, -1, 1), make_char4(2, 2, 2, 2), 100);\n"
         "    out[22] = (int)__dp4a(make_uchar4(3, 2, 255, 1), make_uchar4(2, 2, 2, 2), 100u);\n}\n",
         /* by hand: ties to even 2, 4; floor/ceil of -1.5: -2, -1; trunc -1; saturating 0 and
            INT_MAX; floor(-0.5) = -1; ceil(9.5) = 10; rint(-2.5) = -2, round(-2.5) = -3,
            round(2.5) = 3; sign bits 1, 0; (0x1_80000001 << 4) >> 32 = 0x18; 0x3_80000001 >> (33 & 31)
            = 0x1_c0000000, low word 0xc0000000; clamped to 32: lo = 1, hi = 2; bytes 3, 2, -1, 1
            times 2 each plus 100 = 110, unsigned 3, 2, 255, 1: 622; NaN -> 0; the same bytes
            as char4 and uchar4 */
         {2, 4, -2, -1, -1, 0, 0x7fffffff, -1, 10, -2, -3, 3, 1, 0, 0x18, (int32_t)0xc0000000, 1, 2,
          110, 622, 0, 110, 622}, 23, 1, NULL},
        {"__dp2a_lo, __dp2a_hi and __fns",
         "__global__ void k(int *out, const int *in)\n{\n"
         "    int a = (int)0xfffe0003, b = (int)0x05fb02ff;\n"
         "    out[0] = __dp2a_lo(a, b, 10); out[1] = __dp2a_hi(a, b, 10);\n"
         "    out[2] = (int)__dp2a_lo(0x00020003u, 0x0405ff01u, 1u); out[3] = (int)__dp2a_hi(0x00020003u, 0x0405ff01u, 1u);\n"
         "    out[4] = __dp2a_lo(make_short2(-7, 4), make_char4(1, -2, 3, 4), 0);\n"
         "    out[5] = __dp2a_hi(make_short2(-7, 4), make_char4(1, -2, 3, 4), 0);\n"
         "    out[6] = (int)__fns(0xaaaaaaaau, 3, 1); out[7] = (int)__fns(0xaaaaaaaau, 3, -1);\n"
         "    out[8] = (int)__fns(0xaaaaaaaau, 2, 1); out[9] = (int)__fns(0xaaaaaaaau, 2, -1);\n"
         "    out[10] = (int)__fns(0xaaaaaaaau, 2, 0); out[11] = (int)__fns(0xaaaaaaaau, 0, 16);\n"
         "    out[12] = (int)__fns(0xaaaaaaaau, 0, 17); out[13] = (int)__fns(0x80000001u, 31, -2);\n"
         "    out[14] = (int)__fns(0x80000001u, 31, -3); out[15] = (int)__fns(0x80000001u, 5, -2147483647 - 1);\n}\n",
         /* by hand: a's halves 3, -2; b's bytes -1, 2, -5, 5: 10 - 3 - 4 = 3, 10 - 15 - 10 = -15;
            unsigned halves 3, 2, bytes 1, 255, 5, 4: 1 + 3 + 510 = 514, 1 + 15 + 8 = 24; -7 + -8,
            -21 + 16; fns on the odd bits (PTX ISA's examples: 3, 3, 3, 1), bit 2 is clear: ~0;
            the 16th odd bit from 0 is 31, no 17th; downward from 31 in 0x80000001: 31, 0, none */
         {3, -15, 514, 24, -15, -5, 3, 3, 3, 1, -1, 31, -1, 0, -1, -1}, 16, 1, NULL},
        {"fdimf, ldexpf, scalbnf, exp10f and __fdividef",
         "__global__ void k(int *out, const int *in)\n{\n"
         "    float *o = reinterpret_cast<float *>(out);\n"
         "    float nan = __int_as_float(0x7fc00000), inf = __int_as_float(0x7f800000);\n"
         "    o[0] = fdimf(5.0f, 3.0f); o[1] = fdimf(3.0f, 5.0f); o[2] = fdimf(nan, 1.0f);\n"
         "    o[3] = fdimf(inf, inf); o[4] = ldexpf(1.5f, in[13] + 1); o[5] = ldexpf(1.0f, -149);\n"
         "    o[6] = ldexpf(1.0f, -150); o[7] = ldexpf(3.0f, in[10] * 10); o[8] = ldexpf(1.75f, -140);\n"
         "    o[9] = exp10f(2.0f); o[10] = exp10f(-1.0f); o[11] = scalbnf(-2.0f, 2);\n"
         "    o[12] = ldexpf(0.75f, -2147483647 - 1); o[13] = (float)fdim(2.5, 0.5);\n"
         "    float big = 3e38f, y = -0x1p127f;\n"
         "    o[14] = __fdividef(1e38f, big); o[15] = __fdividef(1.0f, y); o[16] = __fdividef(-6.0f, 3.0f);\n"
         "    out[17] = isnan(__fdividef(inf, big)); o[18] = __fdividef(1.0f, 0x1p126f);\n}\n",
         /* by hand: 2, +0, NaN, +0 (inf > inf is false), 1.5 * 8 = 12, 2^-149 (0x1),
            2^-150 ties to even 0, 3 * 2^1000 = inf, 1.75 * 2^-140 = 896 * 2^-149 (0x380),
            100, 0.1f (0x3dcccccd), -8, 0.75 * 2^-huge = +0, 2; __fdividef with 2^126 < |y| <
            2^128: +0, -0 and NaN for an infinite x, else x / y: -2, and 2^-126 at |y| = 2^126 */
         {0x40000000, 0, 0x7fc00000, 0, 0x41400000, 1, 0, 0x7f800000, 0x380, 0x42c80000, 0x3dcccccd,
          (int32_t)0xc1000000, 0, 0x40000000, 0, (int32_t)0x80000000, (int32_t)0xc0000000, 1, 0x00800000},
         19, 1, NULL},
        {"template recursion that ends at compile time (a specialization, or if constexpr)",
         "template <int N> __device__ int sumT(int x) { return x + sumT<N - 1>(x); }\n"
         "template <> __device__ int sumT<0>(int x) { return x; }\n"
         "template <int N> __device__ int sumC(int x) { if constexpr (N == 0) return x; else return x + sumC<N - 1>(x); }\n"
         "__global__ void k(int *out, const int *in)\n{\n    out[0] = sumT<3>(in[2]);\n    out[1] = sumC<4>(in[1]);\n}\n",
         /* in[2] = 200 added 4 times (N = 3, 2, 1, 0): 800; in[1] = 1 added 5 times: 5 */
         {800, 5}, 2, 1, NULL},
        {"C++17 sequencing: the right side of = and @= before the left side",
         "__global__ void k(int *out, const int *in)\n{\n"
         "    int a[4] = {0, 0, 0, 0}, b[2] = {10, 20}, i = 0, j = 0;\n"
         "    a[i++] = i;\n    b[j++] += j;\n    out[a[1] = 2] = a[1] + 40;\n"
         "    out[3] = a[0]; out[4] = a[1]; out[5] = b[0]; out[6] = b[1]; out[7] = i; out[8] = j;\n}\n",
         /* by hand, right before left: a[0] = old i = 0; b[0] += old j: 10 + 0; out[2] = the
            old a[1] + 40 = 40, then a[1] = 2; i and j end at 1 */
         {0, 0, 40, 0, 2, 10, 20, 1, 1}, 9, 1, NULL},
        {"a tile of a tile: meta_group_rank and meta_group_size count in the parent tile",
         "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
         "__device__ int info(cg::thread_block_tile<4> t) { return t.meta_group_rank() * 100 + t.meta_group_size(); }\n"
         "__global__ void k(int *out, const int *in)\n{\n    int t = threadIdx.x;\n"
         "    auto t8 = cg::tiled_partition<8>(cg::this_thread_block());\n"
         "    cg::thread_block_tile<4> t4 = cg::tiled_partition<4>(t8);\n"
         "    out[t] = t4.meta_group_rank() * 100 + t4.meta_group_size();\n    out[16 + t] = info(t4);\n}\n",
         /* NVIDIA's header: meta_group_rank = parent.thread_rank() / 4 = (t % 8) / 4, meta_group_size =
            8 / 4 = 2; the same through a thread_block_tile<4> parameter */
         {2, 2, 2, 2, 102, 102, 102, 102, 2, 2, 2, 2, 102, 102, 102, 102,
          2, 2, 2, 2, 102, 102, 102, 102, 2, 2, 2, 2, 102, 102, 102, 102}, 32, 16, NULL},
        {"NAN, INFINITY, HUGE_VAL, nan(\"\") and nanf(\"\") from <math.h>",
         "#include <math.h>\n__global__ void k(int *out, const int *in)\n{\n"
         "    out[0] = __float_as_int(NAN); out[1] = __float_as_int(INFINITY);\n"
         "    out[2] = (int)(__double_as_longlong(HUGE_VAL) >> 32);\n"
         "    out[3] = (int)(__double_as_longlong(nan(\"\")) >> 32); out[4] = __float_as_int(nanf(\"\"));\n"
         "    out[5] = __float_as_int(HUGE_VALF); out[6] = sizeof(HUGE_VAL); out[7] = sizeof(NAN);\n}\n",
         /* the default quiet NaNs and the infinities: f32 0x7fc00000 and 0x7f800000, f64 high words
            0x7ff80000 and 0x7ff00000 (NAN was __builtin_nanf(\"\"), which nothing compiled) */
         {0x7fc00000, 0x7f800000, 0x7ff00000, 0x7ff80000, 0x7fc00000, 0x7f800000, 8, 4}, 8, 1, NULL},
        {"scalar half and bfloat16 functions: math, unordered compares, NaN max, bit casts",
         "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n"
         "__global__ void k(int *out, const int *in)\n{\n"
         "    __half four = __float2half(4.0f), m25 = __float2half(-2.5f), nan = __float2half(NAN),\n"
         "           one = __float2half(1.0f), two = __float2half(2.0f), half = __float2half(0.5f);\n"
         "    out[0] = __half_as_ushort(hsqrt(four)); out[1] = __half_as_ushort(hrcp(m25));\n"
         "    out[2] = __bfloat16_as_ushort(hfloor(__float2bfloat16(-2.5f)));\n"
         "    out[3] = __hisnan(__hmax_nan(nan, half)); out[4] = __half_as_ushort(__hmax_nan(m25, half));\n"
         "    out[5] = __hisinf(__float2half(-INFINITY)); out[6] = __hisinf(__float2half(65520.0f));\n"
         "    out[7] = __hequ(nan, one); out[8] = __hneu(one, one); out[9] = __hltu(nan, one);\n"
         "    out[10] = __hgeu(one, two); out[11] = (int)__half2float(__ushort_as_half(0x3c00));\n"
         "    out[12] = (int)__bfloat162float(__short_as_bfloat16((short)0xbf80));\n"
         "    out[13] = __half_as_ushort(hrint(__float2half(2.5f)));\n"
         "    out[14] = __half_as_ushort(hceil(__float2half(-0.5f))); out[15] = __half_as_ushort(hexp2(__float2half(3.0f)));\n}\n",
         /* by hand: sqrt 4 = 2 (0x4000); 1/-2.5 = -0.4 = -1.6 * 2^-2, mantissa 614 (0xb666);
            floor -2.5 = -3 in bf16 (0xc040); NaN max is NaN; max(-2.5, 0.5) = 0.5 (0x3800);
            -inf: -1; 65520 ties to even past 65504: inf, 1; unordered: 1, 0, 1, 0; 0x3c00 is 1;
            bf16 0xbf80 is -1; rint 2.5 = 2 (0x4000); ceil -0.5 = -0 (0x8000); 2^3 = 8 (0x4800) */
         {0x4000, 0xb666, 0xc040, 1, 0x3800, -1, 1, 1, 0, 1, 0, 1, -1, 0x4000, 0x8000, 0x4800}, 16, 1, NULL},
        {"offsetof of members, nested members and array elements",
         "#include <stddef.h>\nstruct In { short a; double b[3]; };\n"
         "struct S { char c; int i; double d; In in; };\n"
         "__global__ void k(int *out, const int *in)\n{\n"
         "    int buf[offsetof(S, d)];\n"
         "    out[0] = offsetof(S, c); out[1] = offsetof(S, i); out[2] = offsetof(S, d);\n"
         "    out[3] = offsetof(S, in.b[2]); out[4] = __builtin_offsetof(struct S, in); out[5] = sizeof buf;\n"
         "    out[6] = offsetof(S, in.b[0]); out[7] = offsetof(S, in.b[1 + 1]);\n}\n",
         /* by hand: c at 0, i at 4, d at 8, in at 16 (double-aligned), b at 8 in In: 16 + 8 + 2 * 8;
            an array of offsetof(S, d) = 8 ints is 32 bytes; b[0] at 16 + 8; b[1 + 1] as b[2] */
         {0, 4, 8, 40, 16, 32, 24, 40}, 8, 1, NULL},
        {"arrays sized by their initializer: locals, __constant__ and __device__",
         "__constant__ float cw[] = {0.25f, 0.5f, 0.25f};\n__device__ int dv[] = {7, 8, 9};\n"
         "__global__ void k(int *out, const int *in)\n{\n"
         "    int i = in[1];\n    const int ca[] = {5, 6, 7};\n    float cf[] = {1.5f, 2.5f};\n"
         "    int m[][2] = {{1, 2}, {3, 4}, {5, 6}};\n"
         "    out[0] = (int)(cw[i] * 8); out[1] = dv[i + 1]; out[2] = ca[i]; out[3] = (int)(cf[i] * 2);\n"
         "    out[4] = sizeof(cw); out[5] = sizeof(ca); out[6] = sizeof(cf); out[7] = m[2][i];\n"
         "    out[8] = sizeof(m); out[9] = sizeof(dv);\n}\n",
         /* in[1] is 1: 0.5 * 8, dv[2], ca[1], 2.5 * 2; sizes 3 * 4, 3 * 4, 2 * 4; m[2][1]; 3 * 2 * 4; 3 * 4 */
         {4, 9, 6, 5, 12, 12, 8, 6, 24, 12}, 10, 1, NULL},
        {"module-scope __shared__ and extern __shared__ arrays, from a device function",
         "__shared__ int tile[32];\n__shared__ float spare[3];\nextern __shared__ int dyn[];\n"
         "__device__ int peek(int i) { return tile[i] + dyn[i]; }\n"
         "__global__ void k(int *out, const int *in)\n{\n"
         "    int t = threadIdx.x;\n    spare[t % 3] = 0.5f;\n    tile[t] = t * 3;\n    dyn[t] = in[t % 16];\n"
         "    __syncthreads();\n    out[t] = peek(31 - t) + (int)(spare[2] * 4);\n}\n",
         /* by hand, out[t] = 3 (31 - t) + in[(31 - t) % 16] + 2 (spare[2] * 4): IN from 15 down */
         {93 + 9 + 2, 90 + 40000 + 2, 87 + 2 + 2, 84 - 7 + 2}, 4, 32, NULL},
        {"shuffles of width 16 in a cube of 16 units (lanes 16-31 do not exist)",
         "__global__ void k(int *out, const int *in)\n{\n"
         "    int t = threadIdx.x, v = t * 3 + 1;\n"
         "    for (int o = 8; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o, 16);\n"
         "    if (t == 0) out[0] = v;\n"
         "    out[16 + t] = __shfl_xor_sync(0xffffffff, t * 10, 33, 16);\n}\n",
         /* by hand: lane 0 sums 3t + 1 over t < 16 = 376; xor by 33 uses its low 5 bits, 1 */
         {376, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
          10, 0, 30, 20, 50, 40, 70, 60, 90, 80, 110, 100, 130, 120, 150, 140}, 32, 16, NULL},
        {"__shfl_up_sync of width 16 after the lower half returned",
         "__global__ void k(int *out, const int *in)\n{\n"
         "    int t = threadIdx.x;\n    if (t < 16) return;\n"
         "    out[t] = __shfl_up_sync(0xffffffff, t * 10, 4, 16);\n}\n",
         /* by hand: the segment's first four lanes keep their own value, the others read t - 4 */
         {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
          160, 170, 180, 190, 160, 170, 180, 190, 200, 210, 220, 230, 240, 250, 260, 270}, 32, 32, NULL},
        {"__reduce_min_sync and __reduce_max_sync over a warp",
         "__global__ void k(int *out, const int *in)\n{\n"
         "    int t = threadIdx.x;\n"
         "    int mn = __reduce_min_sync(0xffffffffu, t - 5);\n"
         "    unsigned mx = __reduce_max_sync(0xffffffffu, (unsigned)(t * 7 % 32));\n"
         "    unsigned umn = __reduce_min_sync(0xffffffffu, (unsigned)(t * 7 % 32) + 3u);\n"
         "    int smx = __reduce_max_sync(0xffffffffu, -t);\n"
         "    if (t == 9) { out[0] = mn; out[1] = (int)mx; out[2] = (int)umn; out[3] = smx; }\n}\n",
         /* by hand: min of t - 5 is -5; t * 7 % 32 takes every value 0..31 (7 is odd):
            max 31, min 0 + 3; max of -t is 0 */
         {-5, 31, 3, 0}, 4, 32, NULL},
        {"__shfl_xor_sync with width 8 reads an earlier segment, not a later one",
         "__global__ void k(int *out, const int *in)\n{\n"
         "    out[threadIdx.x] = __shfl_xor_sync(0xffffffffu, (int)threadIdx.x, 9, 8);\n}\n",
         /* PTX bfly with c = ((32 - 8) << 8) | 31: lane ^ 9 is read when it is at most the
            end of the lane's own segment (lane | 7); otherwise the lane's own value */
         {0, 1, 2, 3, 4, 5, 6, 7, 1, 0, 3, 2, 5, 4, 7, 6,
          16, 17, 18, 19, 20, 21, 22, 23, 17, 16, 19, 18, 21, 20, 23, 22}, 32, 32, NULL},
        {"full-width shuffles read the offset's low 5 bits, as PTX does",
         "__global__ void k(int *out, const int *in)\n{\n"
         "    int t = threadIdx.x, big = in[0] + 34, neg = in[0];\n"
         "    int d = __shfl_down_sync(0xffffffffu, t * 10, big);\n"
         "    int u = __shfl_up_sync(0xffffffffu, t * 10, neg);\n"
         "    int x = __shfl_xor_sync(0xffffffffu, t * 10, big + 1);\n"
         "    int s = __shfl_sync(0xffffffffu, t * 10, big + 4);\n"
         "    if (t == 0) { out[0] = d; out[1] = u; out[2] = x; out[3] = s; }\n"
         "    if (t == 31) { out[4] = d; out[5] = u; out[6] = x; out[7] = s; }\n}\n",
         /* in[0] is -1 (IN's first word): 33 is down by 1, -1 is up by 31, 34 is xor 2, 37 is
            lane 5. Lane 0: 10, own 0, 20, 50; lane 31: own 310, lane 0's 0, 290, 50 */
         {10, 0, 20, 50, 310, 0, 290, 50}, 8, 32, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        words_are(cases[i].name, cases[i].src, cases[i].block, cases[i].want, cases[i].n, cases[i].todo);
}

/*
 * && and || never evaluate their right side's memory read when the left
 * side decides: units past n would read out of bounds, which faults in
 * checked mode. The control launch proves the unguarded read does fault.
 */
static void test_short_circuit(void)
{
    const char *src =
        "__global__ void k(int *out, const int *in, int n)\n{\n"
        "    int i = threadIdx.x;\n"
        "    int a = i < n && in[i] > 0;\n"
        "    int b = i >= n || in[i] < 0;\n"
        "    out[i] = a + 2 * b;\n}\n"
        "__global__ void unguarded(int *out, const int *in, int n)\n{\n"
        "    out[threadIdx.x] = in[threadIdx.x] > 0;\n}\n";
    int32_t in_words[4] = {5, -3, 0, 8};
    int32_t n = 4, got[8];
    cvm_module *mod = compile_load(src, "short_circuit.cu");
    cvm_buffer *out = kern_buf("out", sizeof got, NULL);
    cvm_buffer *in = kern_buf("in", sizeof in_words, in_words);
    if (!mod || !out || !in) {
        ok(0, "short-circuit && and || skip the out-of-bounds read");
        ok(0, "control: the unguarded read faults");
    } else {
        cvm_arg args[] = {kern_arg_buf(out), kern_arg_buf(in), kern_arg_bytes(&n, 4)};
        cvm_diag d;
        cvm_status st = launch(mod, "k", 8, args, 3, 0, &d);
        if (st != CVM_OK)
            diag("launch: %s: %s", cvm_status_str(st), d.message);
        int good = st == CVM_OK && kern_read(out, got, sizeof got);
        static const int32_t want[8] = {1, 2, 0, 1, 2, 2, 2, 2};
        for (int i = 0; good && i < 8; i++)
            if (got[i] != want[i]) {
                diag("out[%d] = %d, want %d", i, got[i], want[i]);
                good = 0;
            }
        ok(good, "short-circuit && and || skip the out-of-bounds read");
        st = launch(mod, "unguarded", 8, args, 3, 0, &d);
        ok(st == CVM_FAULT, "control: the unguarded read faults (%s)", cvm_status_str(st));
    }
    release(mod, out, in);
}

/*
 * assert from <assert.h> (a macro passing the expression's text) and
 * without it (the builtin), with C's `cond && "why"` idiom: units that
 * pass run on, a unit that fails faults with the file, line and, for the
 * macro, the expression; NDEBUG removes the check.
 */
static void test_assert(void)
{
    static const struct {
        const char *src, *want;
    } cases[] = {
        {"#include <assert.h>\n__global__ void k(int *out, const int *in, int n)\n{\n"
         "    assert(threadIdx.x < n && \"a unit past n\");\n    out[threadIdx.x] = in[threadIdx.x] + 1;\n}\n",
         "assertion failed: assert_macro.cu:4: `threadIdx.x < n && \"a unit past n\"`"},
        {"__global__ void k(int *out, const int *in, int n)\n{\n"
         "    assert(threadIdx.x < n);\n    out[threadIdx.x] = in[threadIdx.x] + 1;\n}\n",
         "assertion failed: assert_builtin.cu:3 "},
        {"#define NDEBUG\n#include <cassert>\n__global__ void k(int *out, const int *in, int n)\n{\n"
         "    assert(threadIdx.x < n);\n    out[threadIdx.x] = in[threadIdx.x] + 1;\n}\n",
         NULL},
    };
    static const char *const names[] = {"assert_macro.cu", "assert_builtin.cu", "assert_ndebug.cu"};
    int32_t in_words[4] = {5, -3, 0, 8}, got[4];
    for (size_t i = 0; i < 3; i++) {
        cvm_module *mod = compile_load(cases[i].src, names[i]);
        cvm_buffer *out = kern_buf("out", sizeof got, NULL);
        cvm_buffer *in = kern_buf("in", sizeof in_words, in_words);
        int32_t n = 4;
        cvm_diag d;
        memset(&d, 0, sizeof d);
        cvm_status pass = CVM_INVALID_ARGUMENT, fail = CVM_INVALID_ARGUMENT;
        int good = 0;
        if (mod && out && in) {
            cvm_arg args[] = {kern_arg_buf(out), kern_arg_buf(in), kern_arg_bytes(&n, 4)};
            pass = launch(mod, "k", 4, args, 3, 0, &d);
            good = pass == CVM_OK && kern_read(out, got, sizeof got) && got[0] == 6 && got[1] == -2 &&
                   got[2] == 1 && got[3] == 9;
            n = 2;
            fail = launch(mod, "k", 4, args, 3, 0, &d);
        }
        ok(good, "%s: units that pass the assertion run", names[i]);
        if (cases[i].want)
            ok(fail == CVM_FAULT && strstr(d.message, cases[i].want),
               "%s: a failed assertion faults with '%s' (got %s: %s)", names[i], cases[i].want,
               cvm_status_str(fail), d.message);
        else
            ok(fail == CVM_OK, "%s: NDEBUG removes the assertion (%s)", names[i], cvm_status_str(fail));
        release(mod, out, in);
    }
}

/*
 * bool loads read any nonzero byte as true (docs/isa.md), whatever byte
 * memory holds: in's words as bools, 32 lanes (the lockstep paths) and one
 * (the plane interpreter's), through a cast, ! and ?:.
 */
static void test_bool_bytes(void)
{
    const char *src = "__global__ void k(int *out, const int *in)\n{\n"
                      "    const bool *b = reinterpret_cast<const bool *>(in);\n"
                      "    int t = threadIdx.x;\n"
                      "    out[t] = (int)b[t] + 2 * !b[t] + 4 * (b[t] ? 1 : 0);\n}\n";
    static const uint32_t blocks[] = {32, 1};
    for (size_t i = 0; i < 2; i++) {
        const uint32_t block = blocks[i];
        int32_t got[NOUT], want[NOUT];
        memset(got, 0, sizeof got);
        memset(want, 0, sizeof want);
        for (uint32_t t = 0; t < block; t++) /* byte t of IN: 1 + 4 when nonzero, 2 when zero */
            want[t] = ((const uint8_t *)IN)[t] ? 5 : 2;
        int good = run_k("bool bytes", src, block, 0, got);
        for (uint32_t t = 0; good && t < NOUT; t++)
            if (got[t] != want[t]) {
                diag("out[%u] = %d, want %d (byte 0x%02x)", t, got[t], want[t], ((const uint8_t *)IN)[t]);
                good = 0;
            }
        ok(good, "bool loads of bytes other than 0 and 1, %u units", block);
    }
}

/* __device__ and __constant__ module variables: initializers, host writes and reads. */
static void test_module_symbols(void)
{
    const char *src =
        "__constant__ float coef[4] = {0.5f, 1.5f, -2.0f, 4.0f};\n"
        "__device__ int bias = 7;\n"
        "__device__ int table[3] = {10, 20, 30};\n"
        "__device__ unsigned hits;\n"
        "__global__ void k(float *out)\n{\n"
        "    int i = threadIdx.x;\n"
        "    out[i] = coef[i] * 2.0f + table[i % 3] + bias;\n"
        "    atomicAdd(&hits, 1u);\n}\n";
    float got[4];
    cvm_module *mod = compile_load(src, "symbols.cu");
    cvm_buffer *out = kern_buf("out", sizeof got, NULL);
    cvm_diag d;
    int good = mod && out;
    cvm_arg args[1];
    if (good) {
        args[0] = kern_arg_buf(out);
        good = launch(mod, "k", 4, args, 1, 0, &d) == CVM_OK && kern_read(out, got, sizeof got);
    }
    /* 0.5*2+10+7, 1.5*2+20+7, -2*2+30+7, 4*2+10+7 */
    ok(good && got[0] == 18.0f && got[1] == 30.0f && got[2] == 33.0f && got[3] == 25.0f,
       "initialized __constant__ array and __device__ variables");
    uint32_t hits = 0;
    good = good && cvm_module_symbol_read(kern_stream(), mod, "hits", 0, &hits, 4, &d) == CVM_OK &&
           cvm_stream_sync(kern_stream(), &d) == CVM_OK;
    ok(good && hits == 4, "a __device__ variable written by the kernel reads back (%u)", hits);
    const float coef2[2] = {10.0f, -1.0f};
    const int32_t bias2 = -100;
    good = good && cvm_module_symbol_write(kern_stream(), mod, "coef", 4, coef2, 8, &d) == CVM_OK &&
           cvm_module_symbol_write(kern_stream(), mod, "bias", 0, &bias2, 4, &d) == CVM_OK &&
           launch(mod, "k", 4, args, 1, 0, &d) == CVM_OK && kern_read(out, got, sizeof got);
    ok(good && got[0] == -89.0f && got[1] == -60.0f && got[2] == -72.0f && got[3] == -82.0f,
       "host-written __constant__ elements and __device__ variable are seen by the next launch");
    if (mod) {
        ok(cvm_module_symbol_write(kern_stream(), mod, "nope", 0, &bias2, 4, &d) == CVM_NOT_FOUND,
           "writing an unknown symbol: CVM_NOT_FOUND");
        ok(cvm_module_symbol_write(kern_stream(), mod, "table", 8, coef2, 8, &d) ==
               CVM_INVALID_ARGUMENT,
           "a write past the end of a symbol: CVM_INVALID_ARGUMENT");
    }
    if (out)
        cvm_buffer_free(out);
    if (mod)
        cvm_module_free(mod);
}

/* ---- math functions written in CUDA C in the built-in <math.h> ---- */

static const float MX[32] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 2.0f, -3.0f, 0.25f, 1.5f, 1e-40f,
                             -1e-45f, 3.4e38f, INFINITY, -INFINITY, NAN, 0.1f, 123.456f, -7.75f, 1e10f,
                             16777216.0f, 0.75f, 2.5f, -2.5f, 1e-3f, 100.3f, 0.333f, -0.999f, 4.5f,
                             8.25f, 65504.0f, -1e-20f};

static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* The reference's float, rounded once from long double. */
static uint32_t lbits(long double v) { return fbits((float)v); }

/* Distance in ulps of two float bit patterns (NaNs are equal to each other). */
static uint64_t ulps(uint32_t a, uint32_t b)
{
    if ((a & 0x7fffffffu) > 0x7f800000u || (b & 0x7fffffffu) > 0x7f800000u)
        return ((a & 0x7fffffffu) > 0x7f800000u && (b & 0x7fffffffu) > 0x7f800000u) ? 0 : UINT64_MAX;
    int64_t ia = a >> 31 ? -(int64_t)(a & 0x7fffffffu) : (int64_t)a;
    int64_t ib = b >> 31 ? -(int64_t)(b & 0x7fffffffu) : (int64_t)b;
    if (ia == ib && a != b) /* +0 and -0 */
        return UINT64_MAX;
    return (uint64_t)(ia > ib ? ia - ib : ib - ia);
}

static long double ref_sinpi(float x)
{
    if (isinf(x) || isnan(x))
        return NAN;
    long double r = (long double)x - 2.0L * rintl((long double)x / 2.0L);
    if (r == rintl(r)) /* sinPi of an integer: a zero with the argument's sign (IEEE 754) */
        return signbit(x) ? -0.0L : 0.0L;
    return sinl(3.141592653589793238462643383279502884L * r);
}

static long double ref_cospi(float x)
{
    if (isinf(x) || isnan(x))
        return NAN;
    long double r = fabsl((long double)x - 2.0L * rintl((long double)x / 2.0L));
    if (r == 0.5L)
        return 0.0L;
    return cosl(3.141592653589793238462643383279502884L * r);
}

/* erfcx in long double: exp(x^2) erfc(x) while erfc is a normal long
 * double (x < 100), then its asymptotic series 1 / (x sqrt(pi)) (1 -
 * 1 / 2x^2 + 3 / (2x^2)^2 - ...), whose sixth term is below 2^-70 there. */
static long double ref_erfcx(float x)
{
    const long double d = x;
    if (isnan(x) || d < 100.0L)
        return expl(d * d) * erfcl(d);
    const long double u = 1.0L / (2.0L * d * d);
    return 0.564189583547756286948079451560772586L / d *
           (1.0L - u * (1.0L - 3.0L * u * (1.0L - 5.0L * u * (1.0L - 7.0L * u * (1.0L - 9.0L * u)))));
}

/* Word i of the reference for input MX[i]. */
static uint32_t math_ref(int f, float x)
{
    float ip;
    int e;
    switch (f) {
    case 0: return fbits(modff(x, &ip));
    case 1: modff(x, &ip); return fbits(ip);
    case 2: return fbits(frexpf(x, &e));
    case 3: frexpf(x, &e); return (uint32_t)e;
    case 4: return (uint32_t)ilogbf(x);
    case 5: return fbits(logbf(x));
    case 6: return fbits(nextafterf(x, 1.0f));
    case 7: return fbits(nextafterf(x, -INFINITY));
    case 8: return lbits(ref_sinpi(x));
    case 9: return lbits(ref_cospi(x));
    case 10: return lbits(1.0L / cbrtl((long double)x));
    case 11: return lbits(sqrtl((long double)x * x + 2.25L + 4.0L));
    case 12: return lbits(1.0L / sqrtl((long double)x * x + 2.25L + 4.0L));
    case 13: return lbits(0.5L * erfcl(-(long double)x / sqrtl(2.0L)));
    case 14: return fbits(remainderf(x, 0.75f));
    case 15: { /* remquof's quotient: its sign and its low 3 bits (C requires at least 3) */
        int q = 0;
        remquof(x, -2.5f, &q);
        return (uint32_t)(q < 0 ? -(-q & 7) : (q & 7));
    }
    case 16: return isinf(x) ? 0 : lbits(1.0L / sqrtl((long double)x * x + 2.25L));
    case 17: return fbits(1.0f / x);
    case 18: return lbits(asinhl(x));
    case 19: return lbits(acoshl(x));
    case 20: return lbits(atanhl(x));
    default: return lbits(ref_erfcx(x));
    }
}

static void test_math_functions(void)
{
    static const struct { const char *name, *expr; unsigned ulp; } fns[] = {
        {"modff fraction", "__float_as_int(modff(x, &f))", 0},
        {"modff integral part", "(modff(x, &f), __float_as_int(f))", 0},
        {"frexpf mantissa", "__float_as_int(frexpf(x, &e))", 0},
        {"frexpf exponent", "(frexpf(x, &e), e)", 0},
        {"ilogbf", "ilogbf(x)", 0},
        {"logbf", "__float_as_int(logbf(x))", 0},
        {"nextafterf toward 1", "__float_as_int(nextafterf(x, 1.0f))", 0},
        {"nextafterf toward -inf", "__float_as_int(nextafterf(x, -INFINITY))", 0},
        {"sinpif", "__float_as_int(sinpif(x))", 1},
        {"cospif", "__float_as_int(cospif(x))", 1},
        {"rcbrtf", "__float_as_int(rcbrtf(x))", 1},
        {"norm3df", "__float_as_int(norm3df(x, 1.5f, -2.0f))", 1},
        {"rnorm3df", "__float_as_int(rnorm3df(x, 1.5f, -2.0f))", 1},
        {"normcdff", "__float_as_int(normcdff(x))", 1},
        {"remainderf", "__float_as_int(remainderf(x, 0.75f))", 0},
        {"remquof quotient", "(remquof(x, -2.5f, &e), e < 0 ? -(-e & 7) : (e & 7))", 0},
        {"rhypotf", "__float_as_int(rhypotf(x, -1.5f))", 1},
        {"__frcp_rn", "__float_as_int(__frcp_rn(x))", 0},
        {"asinhf", "__float_as_int(asinhf(x))", 1},
        {"acoshf", "__float_as_int(acoshf(x))", 1},
        {"atanhf", "__float_as_int(atanhf(x))", 1},
        {"erfcxf", "__float_as_int(erfcxf(x))", 1},
    };
    uint32_t in[32];
    for (int i = 0; i < 32; i++)
        in[i] = fbits(MX[i]);
    for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
        char src[512];
        snprintf(src, sizeof src,
                 "#include <math.h>\n__global__ void k(int *out, const int *in)\n{\n"
                 "    int t = threadIdx.x, e = 0;\n    float x = __int_as_float(in[t]), f = 0.0f;\n"
                 "    out[t] = %s;\n}\n", fns[f].expr);
        uint32_t got[NOUT];
        int good = run_k_in(fns[f].name, src, 32, 0, in, sizeof in, got);
        for (int i = 0; good && i < 32; i++) {
            uint32_t want = math_ref((int)f, MX[i]);
            bool same = f == 3 || f == 4 || f == 15 ? got[i] == want : ulps(got[i], want) <= fns[f].ulp;
            if (!same) {
                diag("%s(%a): got 0x%08x, want 0x%08x", fns[f].name, (double)MX[i], got[i], want);
                good = 0;
            }
        }
        ok(good, "%s against the C library (%u ulp) on 32 inputs, specials included", fns[f].name,
           fns[f].ulp);
    }
}

/*
 * The double forms of the composed math functions (session 21) on 1,024
 * inputs each: specials, then linear and logarithmic sweeps of both
 * signs. The exact ones (scalbn, ldexp, remainder, remquo) bit for bit
 * against the C library's; the others within their stated bound of the
 * C library's long double functions (erfcx: exp(x^2) erfc(x) in long
 * double with x^2 split exactly, the asymptotic series past 100).
 */
enum { DM_N = 1024 };

static long double ref_erfcx_d(double x)
{
    if (x < -30.0)
        return INFINITY; /* 2 exp(x^2) past the largest long double too */
    if (x < 100.0) {
        const double hi = (double)(float)x, lo = x - hi; /* 24 + 29 bits: hi^2 exact in long double */
        return expl((long double)hi * hi) * expl(2.0L * hi * lo + (long double)lo * lo) * erfcl(x);
    }
    const long double u = 1.0L / (2.0L * x * x);
    return 0.564189583547756286948L / x * (1.0L - u * (1.0L - 3.0L * u * (1.0L - 5.0L * u)));
}

/* 0.5 erfc(-x / sqrt 2) in long double: the quotient's rounding (2^-64)
 * reaches erfc's result times 2u^2, up to 0.7 ulp of a double at the
 * sweep's end (x = -38, where normcdf nears underflow), 0.2 at x = -20. */
static long double ref_normcdf(double x)
{
    return 0.5L * erfcl(-(long double)x * 0.707106781186547524400844362104849039L);
}

static long double dmath_ref(int f, double x)
{
    int q = 0;
    switch (f) {
    case 0: return asinhl(x);
    case 1: return acoshl(x);
    case 2: return atanhl(x);
    case 3: return ref_erfcx_d(x);
    case 4: return 1.0L / cbrtl(x);
    case 5: return isinf(x) ? 0.0L : 1.0L / hypotl(x, 0.75L);
    case 6: return sqrtl((long double)x * x + 2.25L + 0.0625L);
    case 7: return isinf(x) ? 0.0L : 1.0L / sqrtl((long double)x * x + 2.25L + 0.0625L);
    case 8: return scalbn(x, isinf(x) || isnan(x) ? 5 : (int)fmod(fabs(x), 2400.0) - 1200);
    case 9: return ldexp(x, isinf(x) || isnan(x) ? -3 : -1074 + (int)fmod(fabs(x), 2200.0));
    case 10: return remainder(x, 0.3);
    case 11: return remquo(x, -1.75, &q), (long double)(q < 0 ? -(-q & 7) : (q & 7));
    case 12: return remainder(x, 1e-310);
    case 13: return isinf(x) ? 0.0L : 1.0L / hypotl(x, 0.75L * x);
    case 14: return isinf(x) ? 0.0L : 1.0L / sqrtl((long double)x * x * 1.3125L);
    case 15: case 16: { /* pi x reduced exactly: x - 2 rint(x / 2) */
        if (isinf(x) || isnan(x))
            return NAN;
        /* then folded into [-1/2, 1/2] (sinpi) or to a sine or cosine of [0, 1/4] (cospi), all
         * exact, so that pi's own rounding never meets a zero of the result */
        const long double pi = 3.14159265358979323846264338327950288L, r = x - 2.0L * rintl(x * 0.5L);
        const long double a = fabsl(r), t = r > 0.5L ? 1.0L - r : r < -0.5L ? -1.0L - r : r;
        const long double v = f == 15 ? sinl(pi * t)
                              : a <= 0.25L ? cosl(pi * a) : a <= 0.75L ? sinl(pi * (0.5L - a)) : -cosl(pi * (1.0L - a));
        return f == 15 && v == 0.0L ? copysignl(0.0L, x) : f == 16 && v == 0.0L ? 0.0L : v;
    }
    default: return ref_normcdf(x);
    }
}

static double dmath_input(int f, int i)
{
    static const double S[16] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, INFINITY, -INFINITY, NAN, 4.9e-324,
                                 -2.2250738585072014e-308, 1.7976931348623157e308, 0.9999999999999999,
                                 1.0000000000000002, 26.0, -25.999999999999996};
    /* the linear sweep's half-width per function; the logarithmic one is 2^-1074..2^1023 */
    static const double W[18] = {30, 1e3, 1, 30, 100, 10, 10, 10, 1e3, 1e3, 50, 50, 1e-300, 10, 10, 9, 9, 40};
    const int k = i - 16, half = (DM_N - 16) / 2;
    if (i < 16)
        return S[i];
    if (k < half)
        return -W[f] + 2.0 * W[f] * (k + 0.5) / half;
    const double t = (k - half + 0.5) / half, v = ldexp(1.0, -1074 + (int)(2097.0 * t)) * (1.0 + t);
    return k & 1 ? -v : v;
}

/* The error of got in units of the last place of the double nearest want. */
static double d_ulps(double got, long double want)
{
    if (isnan(want) || isnan(got))
        return isnan(want) && isnan(got) ? 0.0 : INFINITY;
    const double w = (double)want;
    if (isinf(w) || isinf(got))
        return got == w ? 0.0 : INFINITY;
    const double a = fabs(w), up = nextafter(a, INFINITY) - a;
    return (double)(fabsl((long double)got - want) / (long double)(up > 0 ? up : 4.9e-324));
}

static void test_double_math(void)
{
    static const struct { const char *name, *expr; double ulp; } fns[] = {
        {"asinh", "asinh(x)", 2}, {"acosh", "acosh(x)", 2}, {"atanh", "atanh(x)", 2},
        {"erfcx", "erfcx(x)", 3}, {"rcbrt", "rcbrt(x)", 1}, {"rhypot", "rhypot(x, 0.75)", 2},
        {"norm3d", "norm3d(x, 1.5, -0.25)", 1.5}, {"rnorm3d", "rnorm3d(x, 1.5, -0.25)", 2.5},
        {"scalbn", "scalbn(x, isinf(x) || isnan(x) ? 5 : (int)fmod(fabs(x), 2400.0) - 1200)", 0},
        {"ldexp", "ldexp(x, isinf(x) || isnan(x) ? -3 : -1074 + (int)fmod(fabs(x), 2200.0))", 0},
        {"remainder", "remainder(x, 0.3)", 0},
        {"remquo quotient", "(remquo(x, -1.75, &q), (double)(q < 0 ? -(-q & 7) : (q & 7)))", 0},
        {"remainder by a subnormal", "remainder(x, 1e-310)", 0},
        {"rhypot of two of a size", "rhypot(x, 0.75 * x)", 2},
        {"rnorm3d of three of a size", "rnorm3d(x, 0.5 * x, -0.25 * x)", 2.5},
        {"sinpi", "sinpi(x)", 1.5}, {"cospi", "cospi(x)", 1.5}, {"normcdf", "normcdf(x)", 2.5},
    };
    double in[DM_N], got[DM_N];
    for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
        char src[600];
        snprintf(src, sizeof src,
                 "#include <math.h>\n__global__ void k(double *out, const double *in)\n{\n"
                 "    for (int i = threadIdx.x; i < %d; i += blockDim.x) {\n"
                 "        int q = 0;\n        double x = in[i];\n        out[i] = %s;\n    }\n}\n",
                 DM_N, fns[f].expr);
        for (int i = 0; i < DM_N; i++)
            in[i] = dmath_input((int)f, i);
        cvm_module *mod = compile_load(src, fns[f].name);
        cvm_buffer *out = kern_buf("out", sizeof got, NULL), *inb = kern_buf("in", sizeof in, in);
        int good = 0;
        if (mod && out && inb) {
            cvm_arg args[] = {kern_arg_buf(out), kern_arg_buf(inb)};
            cvm_diag d;
            cvm_status st = launch(mod, "k", 256, args, 2, 0, &d);
            if (st != CVM_OK)
                diag("%s: launch: %s: %s", fns[f].name, cvm_status_str(st), d.message);
            else
                good = kern_read(out, got, sizeof got);
        }
        release(mod, out, inb);
        double worst = 0.0;
        int bad = 0;
        for (int i = 0; good && i < DM_N; i++) {
            const long double want = dmath_ref((int)f, in[i]);
            const double e = d_ulps(got[i], want);
            /* the exact ones bit for bit (a zero's sign too) */
            const bool same = fns[f].ulp == 0 ? (isnan(got[i]) && isnan((double)want)) ||
                                                   memcmp(&got[i], &(double){(double)want}, 8) == 0
                                              : e <= fns[f].ulp;
            worst = e > worst && e < INFINITY ? e : worst;
            if (!same && bad++ < 4)
                diag("%s(%a): got %a, want %La (%.3f ulp)", fns[f].name, in[i], got[i], want, e);
        }
        ok(good && !bad, "%s against the C library on %d inputs (%g ulp; worst seen %.3f)", fns[f].name, DM_N,
           fns[f].ulp, worst);
    }
}

/*
 * The gamma and inverse error functions (<cubevm/math_special.h>) on
 * 4,096 inputs each: specials, then a sweep over the function's domain
 * (linear, and logarithmic toward 0 and toward the ends where the result
 * grows). lgammaf and tgammaf against lgammal and tgammal within 1 ulp;
 * the inverse functions by the forward function in long double: the true
 * result lies between the float below and the float above the one
 * returned (an error under 1 ulp), which needs no inverse in C.
 */
enum { SPECIAL_N = 4096 };

static float special_input(int f, int i)
{
    static const float S[5][16] = {
        {0.0f, -0.0f, 1.0f, 2.0f, -1.0f, -2.0f, INFINITY, -INFINITY, NAN, 0.5f, -0.5f, 1e-45f, 3.4e38f,
         -2.4570247f, -100.5f, 1e10f},
        {0.0f, -0.0f, 1.0f, 2.0f, -1.0f, -2.0f, INFINITY, -INFINITY, NAN, 35.04f, 35.05f, 1e-45f, 40.0f,
         -39.5f, -45.5f, -1e10f},
        {0.0f, -0.0f, 1.0f, -1.0f, 1.0000001f, -2.0f, INFINITY, NAN, 0.5f, -0.5f, 1e-45f, 0.99999994f,
         -0.99999994f, 0.25f, 1e-30f, -0.75f},
        {0.0f, -0.0f, 1.0f, 2.0f, -1e-45f, 2.0000002f, INFINITY, NAN, 0.5f, 1.5f, 1e-45f, 1.9999999f,
         0.99999994f, 1.0000001f, 1e-30f, 0.75f},
        {0.0f, -0.0f, 1.0f, 0.5f, -1e-45f, 1.0000001f, INFINITY, NAN, 0.25f, 0.75f, 1e-45f, 0.99999994f,
         0.49999997f, 0.50000006f, 1e-30f, 0.975f},
    };
    /* {low, high} of the linear sweep, then the ends of the logarithmic ones */
    static const double R[5][4] = {{-60.0, 60.0, 1e-38, 3e38}, {-40.0, 36.0, 1e-38, 34.0},
                                   {-1.0, 1.0, 1e-38, 1.0}, {0.0, 2.0, 1e-44, 1.0},
                                   {0.0, 1.0, 1e-44, 0.5}};
    const int k = i - 16, third = (SPECIAL_N - 16) / 3;
    if (i < 16)
        return S[f][i];
    if (k < third) /* linear over the domain */
        return (float)(R[f][0] + (R[f][1] - R[f][0]) * (k + 0.5) / third);
    const double t = (k % third + 0.5) / third, v = R[f][2] * pow(R[f][3] / R[f][2], t);
    if (k < 2 * third) /* toward 0 (gamma: both signs) */
        return f <= 1 && (k & 1) ? (float)-v : (float)v;
    switch (f) { /* near gamma's zeros or its overflow, inverse arguments near 1 and 2 */
    case 0: return (float)(1.0 + 2.0 * t); /* lgamma's zeros at 1 and 2 */
    case 1: return (float)(1.0 + 33.0 * t);
    case 2: return (float)(1.0 - v);
    case 3: return (float)(2.0 - v);
    default: return (float)(1.0 - v);
    }
}

/* The forward function in long double: erf, erfc, the normal distribution. */
static long double special_forward(int f, long double x)
{
    return f == 2 ? erfl(x) : f == 3 ? erfcl(x) : 0.5L * erfcl(-x / sqrtl(2.0L));
}

/* The exact result an inverse function owes at the ends of its domain and
 * beyond (NaN or an infinity), or 0 where the sweep's bracket decides. */
static bool special_exact(int f, float x, float *want)
{
    const float lo = f == 2 ? -1.0f : 0.0f, hi = f == 2 ? 1.0f : f == 3 ? 2.0f : 1.0f;
    if (isnan(x) || x < lo || x > hi)
        *want = NAN;
    else if (x == lo)
        *want = f == 3 ? INFINITY : -INFINITY;
    else if (x == hi)
        *want = f == 3 ? -INFINITY : INFINITY;
    else
        return false;
    return true;
}

static void test_math_special(void)
{
    static const char *const name[5] = {"lgammaf", "tgammaf", "erfinvf", "erfcinvf", "normcdfinvf"};
    static float in[SPECIAL_N], got[SPECIAL_N];
    for (int f = 0; f < 5; f++) {
        char src[256];
        snprintf(src, sizeof src,
                 "__global__ void k(float *out, const float *in)\n{\n"
                 "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    out[i] = %s(in[i]);\n}\n",
                 name[f]);
        for (int i = 0; i < SPECIAL_N; i++)
            in[i] = special_input(f, i);
        cvm_buffer *ib = kern_buf("in", sizeof in, in), *ob = kern_buf("out", sizeof got, NULL);
        cvm_arg args[] = {kern_arg_buf(ob), kern_arg_buf(ib)};
        cvm_diag d;
        cvm_launch_config cfg = kern_cfg(SPECIAL_N / 256, 256);
        cvm_module *mod = ib && ob ? compile_load(src, name[f]) : NULL;
        int good = mod && kern_run(mod, "k", &cfg, args, 2, &d) == CVM_OK && kern_read(ob, got, sizeof got);
        int bad = 0;
        for (int i = 0; good && i < SPECIAL_N && bad < 5; i++) {
            const float x = in[i], r = got[i];
            float want;
            long double a = 0, b = 0;
            bool fine;
            if (f <= 1) {
                want = (float)(f ? tgammal(x) : lgammal(x));
                /* C's tgamma of -inf is NaN, as CUDA's; of a negative integer, NaN. An
                 * infinity, a zero or a NaN is owed exactly: FLT_MAX is one ulp from
                 * inf, a denormal one from a zero of the other sign. */
                const bool exact = !isfinite(want) || want == 0.0f || !isfinite(r) || r == 0.0f;
                fine = ulps(fbits(r), fbits(want)) <= (exact ? 0u : 1u);
            } else if (special_exact(f, x, &want)) {
                fine = ulps(fbits(r), fbits(want)) == 0;
            } else {
                a = special_forward(f, nextafterf(r, -INFINITY));
                b = special_forward(f, nextafterf(r, INFINITY));
                want = r;
                fine = isfinite(r) && (f == 3 ? b <= x && x <= a : a <= x && x <= b) &&
                       (x != 0.0f || fbits(r) == fbits(f == 2 ? x : 0.0f)); /* erfinvf(-0) = -0 */
            }
            if (!fine && want == r)
                diag("%s(%a): got %a, whose neighbours map to %La and %La, not around the argument",
                     name[f], (double)x, (double)r, a, b);
            else if (!fine)
                diag("%s(%a): got %a, want %a (within 1 ulp)", name[f], (double)x, (double)r,
                     (double)want);
            bad += !fine;
        }
        release(NULL, ob, ib);
        ok(good && !bad, "%s on %d inputs (specials, linear and logarithmic sweeps): within 1 ulp",
           name[f], SPECIAL_N);
    }
}

/* The double forms (frexp, ilogb, logb, nextafter) against the C library, exactly. */
static void test_math_double(void)
{
    static const double X[16] = {0.0, -0.0, 1.0, -3.0, 1e300, -1e-310, 4e-320, 0.1, INFINITY, -INFINITY, NAN,
                                 1.7976931348623157e308, 2.2250738585072014e-308, 123.456, -0.75, 5e-324};
    uint32_t in[32], got[NOUT];
    memcpy(in, X, sizeof X);
    static const struct { const char *name, *expr; } fns[] = {
        {"frexp mantissa (double)", "bits(frexp(x, &e))"},
        {"frexp exponent (double)", "(frexp(x, &e), e)"},
        {"ilogb (double)", "ilogb(x)"},
        {"logb (double)", "bits(logb(x))"},
        {"nextafter toward -1 (double)", "bits(nextafter(x, -1.0))"},
    };
    for (int f = 0; f < 5; f++) {
        char src[512];
        snprintf(src, sizeof src,
                 "__device__ int bits(double v) { return v != v ? 0x7ff80000 : __double2loint(v) ^ __double2hiint(v); }\n"
                 "__global__ void k(int *out, const int *in)\n{\n    int t = threadIdx.x, e = 0;\n"
                 "    double x = __hiloint2double(in[2 * t + 1], in[2 * t]);\n    out[t] = %s;\n}\n", fns[f].expr);
        int good = run_k_in(fns[f].name, src, 16, 0, in, sizeof in, got);
        for (int i = 0; good && i < 16; i++) {
            int e = 0;
            double v = f == 0 || f == 1 ? frexp(X[i], &e) : f == 3 ? logb(X[i]) : nextafter(X[i], -1.0);
            uint64_t u;
            memcpy(&u, &v, 8);
            /* a NaN result as 0x7ff80000 on both sides: the payload is not compared */
            uint32_t want = f == 1 ? (uint32_t)e : f == 2 ? (uint32_t)ilogb(X[i])
                          : isnan(v) ? 0x7ff80000u : (uint32_t)u ^ (uint32_t)(u >> 32);
            if (got[i] != want) {
                diag("%s(%a): got 0x%08x, want 0x%08x", fns[f].name, X[i], got[i], want);
                good = 0;
            }
        }
        ok(good, "%s against the C library on 16 inputs, specials included", fns[f].name);
    }
}

/* ---- conversions with a rounding mode, against the CPU's own rounding modes ---- */

static const int MODES[3] = {FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};

/* The conversion under rounding mode m, done by the hardware (volatile: not folded, not
 * moved across the mode changes). */
static uint32_t hw_d2f(double d, int m)
{
    fesetround(m);
    volatile double v = d;
    volatile float f = (float)v;
    fesetround(FE_TONEAREST);
    return fbits(f);
}

static uint32_t hw_ll2f(long long x, int m)
{
    fesetround(m);
    volatile long long v = x;
    volatile float f = (float)v;
    fesetround(FE_TONEAREST);
    return fbits(f);
}

static uint32_t hw_ull2f(unsigned long long x, int m)
{
    fesetround(m);
    volatile unsigned long long v = x;
    volatile float f = (float)v;
    fesetround(FE_TONEAREST);
    return fbits(f);
}

static void test_round_conversions(void)
{
    static const double D[16] = {1.0 / 3, -1.0 / 3, 3.5e38, -3.5e38, 1e-46, -1e-46, 0.1, -0.1,
                                 16777217.0, -16777217.0, 0x1.fffffffp127, 1e300, 2.5, -0.0, 1e-39, 7.0};
    static const long long LL[16] = {16777217LL, -16777217LL, 2147483647LL, -2147483647LL - 1, 33554435LL, 7LL,
                                     9223372036854775807LL, -9223372036854775807LL - 1,
                                     (1LL << 53) + 1, -((1LL << 53) + 1), 0x7fffff8000000001LL,
                                     -0x7fffff8000000001LL, 0x123456789LL, -3LL, 0LL, 1LL << 40};
    static const char *const names[3] = {"rz", "rd", "ru"};
    for (int m = 0; m < 3; m++) {
        uint32_t got[NOUT], in[32];
        char src[1024], what[96];
        /* doubles: two words each; the first 16 lanes */
        memcpy(in, D, sizeof D);
        snprintf(src, sizeof src,
                 "__global__ void k(int *out, const int *in)\n{\n    int t = threadIdx.x;\n"
                 "    double d = __hiloint2double(in[2 * t + 1], in[2 * t]);\n"
                 "    out[t] = __float_as_int(__double2float_%s(d));\n"
                 "    out[16 + t] = __float_as_int(__int2float_%s((int)(t * 0x2345679 - 0x30000001)));\n}\n",
                 names[m], names[m]);
        snprintf(what, sizeof what, "__double2float_%s and __int2float_%s", names[m], names[m]);
        int good = run_k_in(what, src, 16, 0, in, sizeof in, got);
        for (int i = 0; good && i < 16; i++) {
            int x = (int)((uint32_t)i * 0x2345679u - 0x30000001u);
            if (got[i] != hw_d2f(D[i], MODES[m]) || got[16 + i] != hw_d2f((double)x, MODES[m])) {
                diag("%s lane %d: 0x%08x 0x%08x, want 0x%08x 0x%08x", what, i, got[i], got[16 + i],
                     hw_d2f(D[i], MODES[m]), hw_d2f((double)x, MODES[m]));
                good = 0;
            }
        }
        ok(good, "%s against the CPU's rounding mode", what);
        memcpy(in, LL, sizeof LL);
        snprintf(src, sizeof src,
                 "__global__ void k(int *out, const int *in)\n{\n    int t = threadIdx.x;\n"
                 "    long long x = (long long)(((unsigned long long)(unsigned)in[2 * t + 1] << 32) | (unsigned)in[2 * t]);\n"
                 "    out[t] = __float_as_int(__ll2float_%s(x));\n"
                 "    out[16 + t] = __float_as_int(__ull2float_%s((unsigned long long)x));\n}\n",
                 names[m], names[m]);
        snprintf(what, sizeof what, "__ll2float_%s and __ull2float_%s", names[m], names[m]);
        good = run_k_in(what, src, 16, 0, in, sizeof in, got);
        for (int i = 0; good && i < 16; i++)
            if (got[i] != hw_ll2f(LL[i], MODES[m]) || got[16 + i] != hw_ull2f((unsigned long long)LL[i], MODES[m])) {
                diag("%s lane %d: 0x%08x 0x%08x, want 0x%08x 0x%08x", what, i, got[i], got[16 + i],
                     hw_ll2f(LL[i], MODES[m]), hw_ull2f((unsigned long long)LL[i], MODES[m]));
                good = 0;
            }
        ok(good, "%s against the CPU's rounding mode", what);
    }
}

int main(void)
{
    if (!kern_open()) {
        printf("Bail out! no cpu device\n");
        return 1;
    }
    test_twins();
    test_sizeof();
    test_casts();
    test_hand();
    test_short_circuit();
    test_assert();
    test_bool_bytes();
    test_module_symbols();
    test_math_functions();
    test_double_math();
    test_math_special();
    test_math_double();
    test_round_conversions();
    kern_close();
    return done_testing();
}
