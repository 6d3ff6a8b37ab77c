/*
 * headers.c - the built-in headers, so that the includes CUDA kernels
 * commonly start with work without a toolkit installed.
 *
 * They hold macros and a few typedefs in plain C, and a few __device__
 * functions in CUDA C that compose from the compiler's builtins (the
 * cubevm/ headers below: modff, sinpif, hsqrt, __hequ, ...). Types such as
 * __half, __nv_bfloat16, float4 and dim3, and the other functions (sqrtf,
 * __shfl_sync, atomicAdd, printf, ...) are builtins of the compiler and are
 * deliberately not declared here. The macros expand to these names, which
 * the compiler must therefore recognise (see docs/cuda-preprocessor.md):
 *
 *   __cvm_assert(cond, "cond", __FILE__, __LINE__)   assert() (<assert.h>)
 *   __builtin_inff()  __builtin_inf()                INFINITY, HUGE_VALF, HUGE_VAL
 *   __builtin_nanf("")  __builtin_nan("")            NAN
 *   __builtin_offsetof(type, member)                 offsetof() (<stddef.h>)
 *   __int_as_float(bits)  __longlong_as_double(bits) CUDART_INF_F, CUDART_NAN_F,
 *                                                    CUDART_INF, CUDART_NAN, ...
 *
 * Typedefs (LP64, as nvcc on Linux): size_t, ptrdiff_t (<stddef.h>);
 * int8_t..int64_t, uint8_t..uint64_t, int_least*, int_fast*, intptr_t,
 * uintptr_t, intmax_t, uintmax_t (<stdint.h>).
 */
#include "headers.h"

#include <string.h>

typedef struct header {
    const char *name;
    const char *text;
} header;

static const char stddef_h[] =
    "#ifndef __CVM_STDDEF_H\n"
    "#define __CVM_STDDEF_H\n"
    "typedef unsigned long size_t;\n"
    "typedef long ptrdiff_t;\n"
    "#define NULL 0\n"
    "#define offsetof(type, member) __builtin_offsetof(type, member)\n"
    "#endif\n";

static const char stdint_h[] =
    "#ifndef __CVM_STDINT_H\n"
    "#define __CVM_STDINT_H\n"
    "typedef signed char int8_t;\n"
    "typedef short int16_t;\n"
    "typedef int int32_t;\n"
    "typedef long int64_t;\n"
    "typedef unsigned char uint8_t;\n"
    "typedef unsigned short uint16_t;\n"
    "typedef unsigned int uint32_t;\n"
    "typedef unsigned long uint64_t;\n"
    "typedef signed char int_least8_t;\n"
    "typedef short int_least16_t;\n"
    "typedef int int_least32_t;\n"
    "typedef long int_least64_t;\n"
    "typedef unsigned char uint_least8_t;\n"
    "typedef unsigned short uint_least16_t;\n"
    "typedef unsigned int uint_least32_t;\n"
    "typedef unsigned long uint_least64_t;\n"
    "typedef signed char int_fast8_t;\n"
    "typedef long int_fast16_t;\n"
    "typedef long int_fast32_t;\n"
    "typedef long int_fast64_t;\n"
    "typedef unsigned char uint_fast8_t;\n"
    "typedef unsigned long uint_fast16_t;\n"
    "typedef unsigned long uint_fast32_t;\n"
    "typedef unsigned long uint_fast64_t;\n"
    "typedef long intptr_t;\n"
    "typedef unsigned long uintptr_t;\n"
    "typedef long intmax_t;\n"
    "typedef unsigned long uintmax_t;\n"
    "#define INT8_MIN (-128)\n"
    "#define INT16_MIN (-32767 - 1)\n"
    "#define INT32_MIN (-2147483647 - 1)\n"
    "#define INT64_MIN (-9223372036854775807L - 1)\n"
    "#define INT8_MAX 127\n"
    "#define INT16_MAX 32767\n"
    "#define INT32_MAX 2147483647\n"
    "#define INT64_MAX 9223372036854775807L\n"
    "#define UINT8_MAX 255\n"
    "#define UINT16_MAX 65535\n"
    "#define UINT32_MAX 4294967295U\n"
    "#define UINT64_MAX 18446744073709551615UL\n"
    "#define INTPTR_MIN INT64_MIN\n"
    "#define INTPTR_MAX INT64_MAX\n"
    "#define UINTPTR_MAX UINT64_MAX\n"
    "#define INTMAX_MIN INT64_MIN\n"
    "#define INTMAX_MAX INT64_MAX\n"
    "#define UINTMAX_MAX UINT64_MAX\n"
    "#define PTRDIFF_MIN INT64_MIN\n"
    "#define PTRDIFF_MAX INT64_MAX\n"
    "#define SIZE_MAX UINT64_MAX\n"
    "#define INT8_C(c) c\n"
    "#define INT16_C(c) c\n"
    "#define INT32_C(c) c\n"
    "#define INT64_C(c) c##L\n"
    "#define UINT8_C(c) c\n"
    "#define UINT16_C(c) c\n"
    "#define UINT32_C(c) c##U\n"
    "#define UINT64_C(c) c##UL\n"
    "#define INTMAX_C(c) c##L\n"
    "#define UINTMAX_C(c) c##UL\n"
    "#endif\n";

static const char limits_h[] =
    "#ifndef __CVM_LIMITS_H\n"
    "#define __CVM_LIMITS_H\n"
    "#define CHAR_BIT 8\n"
    "#define MB_LEN_MAX 16\n"
    "#define SCHAR_MIN (-128)\n"
    "#define SCHAR_MAX 127\n"
    "#define UCHAR_MAX 255\n"
    "#define CHAR_MIN SCHAR_MIN\n"
    "#define CHAR_MAX SCHAR_MAX\n"
    "#define SHRT_MIN (-32767 - 1)\n"
    "#define SHRT_MAX 32767\n"
    "#define USHRT_MAX 65535\n"
    "#define INT_MIN (-2147483647 - 1)\n"
    "#define INT_MAX 2147483647\n"
    "#define UINT_MAX 4294967295U\n"
    "#define LONG_MIN (-9223372036854775807L - 1L)\n"
    "#define LONG_MAX 9223372036854775807L\n"
    "#define ULONG_MAX 18446744073709551615UL\n"
    "#define LLONG_MIN (-9223372036854775807LL - 1LL)\n"
    "#define LLONG_MAX 9223372036854775807LL\n"
    "#define ULLONG_MAX 18446744073709551615ULL\n"
    "#endif\n";

static const char float_h[] =
    "#ifndef __CVM_FLOAT_H\n"
    "#define __CVM_FLOAT_H\n"
    "#define FLT_RADIX 2\n"
    "#define FLT_EVAL_METHOD 0\n"
    "#define DECIMAL_DIG 17\n"
    "#define FLT_DECIMAL_DIG 9\n"
    "#define DBL_DECIMAL_DIG 17\n"
    "#define FLT_MANT_DIG 24\n"
    "#define FLT_DIG 6\n"
    "#define FLT_MIN_EXP (-125)\n"
    "#define FLT_MAX_EXP 128\n"
    "#define FLT_MIN_10_EXP (-37)\n"
    "#define FLT_MAX_10_EXP 38\n"
    "#define FLT_MAX 3.40282346638528859812e+38F\n"
    "#define FLT_MIN 1.17549435082228750797e-38F\n"
    "#define FLT_EPSILON 1.1920928955078125e-07F\n"
    "#define FLT_TRUE_MIN 1.40129846432481707092e-45F\n"
    "#define DBL_MANT_DIG 53\n"
    "#define DBL_DIG 15\n"
    "#define DBL_MIN_EXP (-1021)\n"
    "#define DBL_MAX_EXP 1024\n"
    "#define DBL_MIN_10_EXP (-307)\n"
    "#define DBL_MAX_10_EXP 308\n"
    "#define DBL_MAX 1.79769313486231570815e+308\n"
    "#define DBL_MIN 2.22507385850720138309e-308\n"
    "#define DBL_EPSILON 2.22044604925031308085e-16\n"
    "#define DBL_TRUE_MIN 4.94065645841246544177e-324\n"
    "#endif\n";

static const char math_h[] =
    "#ifndef __CVM_MATH_H\n"
    "#define __CVM_MATH_H\n"
    "#define INFINITY __builtin_inff()\n"
    "#define NAN __builtin_nanf(\"\")\n"
    "#define HUGE_VALF __builtin_inff()\n"
    "#define HUGE_VAL __builtin_inf()\n"
    "#define M_E 2.7182818284590452354\n"
    "#define M_LOG2E 1.4426950408889634074\n"
    "#define M_LOG10E 0.43429448190325182765\n"
    "#define M_LN2 0.69314718055994530942\n"
    "#define M_LN10 2.30258509299404568402\n"
    "#define M_PI 3.14159265358979323846\n"
    "#define M_PI_2 1.57079632679489661923\n"
    "#define M_PI_4 0.78539816339744830962\n"
    "#define M_1_PI 0.31830988618379067154\n"
    "#define M_2_PI 0.63661977236758134308\n"
    "#define M_2_SQRTPI 1.12837916709551257390\n"
    "#define M_SQRT2 1.41421356237309504880\n"
    "#define M_SQRT1_2 0.70710678118654752440\n"
    "#endif\n";

/* Functions that compose from the compiler's builtins, written in CUDA C:
 * <cubevm/math_exact.h> those whose result C defines exactly (modf, frexp,
 * ilogb, logb, nextafter), <cubevm/math_rounded.h> those computed in f64
 * and rounded once (sinpi, cospi, rcbrt, norm3d, rnorm3d, normcdf). */
static const char math_exact_h[] =
    "#ifndef __CVM_MATH_EXACT_H\n"
    "#define __CVM_MATH_EXACT_H\n"
    "__device__ inline float modff(float x, float *ip) { float t = truncf(x); *ip = t; return x != x ? x + x : copysignf(isinf(x) ? 0.0f : x - t, x); }\n"
    "__device__ inline double modf(double x, double *ip) { double t = trunc(x); *ip = t; return x != x ? x + x : copysign(isinf(x) ? 0.0 : x - t, x); }\n"
    "__device__ inline float modf(float x, float *ip) { return modff(x, ip); }\n"
    "__device__ inline float frexpf(float x, int *e) {\n"
    "    unsigned b = __float_as_uint(x), ex = (b >> 23) & 0xffu;\n"
    "    int adj = 0;\n"
    "    if (ex == 0xffu || (b & 0x7fffffffu) == 0u) { *e = 0; return x + x; } /* a NaN canonical */\n"
    "    if (ex == 0u) { b = __float_as_uint(x * 4294967296.0f); ex = (b >> 23) & 0xffu; adj = 32; }\n"
    "    *e = (int)ex - 126 - adj;\n"
    "    return __uint_as_float((b & 0x807fffffu) | 0x3f000000u);\n"
    "}\n"
    "__device__ inline float frexp(float x, int *e) { return frexpf(x, e); }\n"
    "__device__ inline int ilogbf(float x) {\n"
    "    unsigned b = __float_as_uint(x) & 0x7fffffffu;\n"
    "    if (b == 0u || b > 0x7f800000u) return -2147483647 - 1;\n"
    "    if (b == 0x7f800000u) return 2147483647;\n"
    "    if (b < 0x00800000u) return -118 - __clz((int)b);\n"
    "    return (int)(b >> 23) - 127;\n"
    "}\n"
    "__device__ inline int ilogb(float x) { return ilogbf(x); }\n"
    "__device__ inline float logbf(float x) {\n"
    "    unsigned b = __float_as_uint(x) & 0x7fffffffu;\n"
    "    if (b == 0u) return -__int_as_float(0x7f800000);\n"
    "    if (b >= 0x7f800000u) return x * x;\n"
    "    return (float)ilogbf(x);\n"
    "}\n"
    "__device__ inline float logb(float x) { return logbf(x); }\n"
    "__device__ inline float nextafterf(float x, float y) {\n"
    "    if (x != x || y != y) return x + y;\n"
    "    if (x == y) return y;\n"
    "    if (x == 0.0f) return copysignf(__int_as_float(1), y);\n"
    "    unsigned b = __float_as_uint(x);\n"
    "    return __uint_as_float((x < y) == (x > 0.0f) ? b + 1u : b - 1u);\n"
    "}\n"
    "__device__ inline float nextafter(float x, float y) { return nextafterf(x, y); }\n"
    "__device__ inline double frexp(double x, int *e) {\n"
    "    unsigned long long b = (unsigned long long)__double_as_longlong(x);\n"
    "    int ex = (int)((b >> 52) & 0x7ffu), adj = 0;\n"
    "    if (ex == 0x7ff || (b << 1) == 0ull) { *e = 0; return x + x; }\n"
    "    if (ex == 0) { b = (unsigned long long)__double_as_longlong(x * 18446744073709551616.0); ex = (int)((b >> 52) & 0x7ffu); adj = 64; }\n"
    "    *e = ex - 1022 - adj;\n"
    "    return __longlong_as_double((long long)((b & 0x800fffffffffffffull) | 0x3fe0000000000000ull));\n"
    "}\n"
    "__device__ inline int ilogb(double x) {\n"
    "    unsigned long long b = (unsigned long long)__double_as_longlong(x) & 0x7fffffffffffffffull;\n"
    "    if (b == 0ull || b > 0x7ff0000000000000ull) return -2147483647 - 1;\n"
    "    if (b == 0x7ff0000000000000ull) return 2147483647;\n"
    "    if (b < 0x0010000000000000ull) return -1011 - __clzll((long long)b);\n"
    "    return (int)(b >> 52) - 1023;\n"
    "}\n"
    "__device__ inline double logb(double x) {\n"
    "    unsigned long long b = (unsigned long long)__double_as_longlong(x) & 0x7fffffffffffffffull;\n"
    "    if (b == 0ull) return -__longlong_as_double(0x7ff0000000000000ll);\n"
    "    if (b >= 0x7ff0000000000000ull) return x * x;\n"
    "    return (double)ilogb(x);\n"
    "}\n"
    "__device__ inline double nextafter(double x, double y) {\n"
    "    if (x != x || y != y) return x + y;\n"
    "    if (x == y) return y;\n"
    "    if (x == 0.0) return copysign(__longlong_as_double(1ll), y);\n"
    "    long long b = __double_as_longlong(x);\n"
    "    return __longlong_as_double((x < y) == (x > 0.0) ? b + 1 : b - 1);\n"
    "}\n"
    "__device__ inline float remquof(float x, float y, int *quo) {\n"
    "    *quo = 0;\n"
    "    if (x != x || y != y || isinf(x) || y == 0.0f) return __int_as_float(0x7fc00000);\n"
    "    if (isinf(y)) return x;\n"
    "    double ay = fabs((double)y), r = fmod(fabs((double)x), 8.0 * ay);\n"
    "    int q = 0;\n"
    "    if (r >= 4.0 * ay) { r -= 4.0 * ay; q += 4; }\n"
    "    if (r >= 2.0 * ay) { r -= 2.0 * ay; q += 2; }\n"
    "    if (r >= ay) { r -= ay; q += 1; }\n"
    "    if (r > 0.5 * ay || (r == 0.5 * ay && (q & 1))) { r -= ay; q += 1; }\n"
    "    q &= 7;\n"
    "    *quo = (x < 0.0f) != (y < 0.0f) ? -q : q;\n"
    "    return copysignf((float)fabs(r), x) * (r < 0.0 ? -1.0f : 1.0f);\n"
    "}\n"
    "__device__ inline float remainderf(float x, float y) { int q; return remquof(x, y, &q); }\n"
    "#endif\n";

/* <cubevm/bits.h>: integer bit intrinsics that compose from builtins. */
static const char bits_h[] =
    "#ifndef __CVM_BITS_H\n"
    "#define __CVM_BITS_H\n"
    /* the position of the offset-th set bit of mask from bit base, upward
     * (offset > 0) or downward (< 0); 0: bit base itself; else ~0u (PTX
     * fns; a base above 31, undefined there, finds nothing) */
    "__device__ inline unsigned __fns(unsigned mask, unsigned base, int offset) {\n"
    "    if (base > 31u) return 0xffffffffu;\n"
    "    if (offset == 0) return (mask >> base) & 1u ? base : 0xffffffffu;\n"
    "    if (offset > 0) {\n"
    "        unsigned m = mask >> base << base;\n"
    "        for (unsigned n = (unsigned)offset - 1u; n > 0u && m; n--) m &= m - 1u;\n"
    "        return m ? (unsigned)(__ffs((int)m) - 1) : 0xffffffffu;\n"
    "    }\n"
    "    unsigned m = base == 31u ? mask : mask & ((2u << base) - 1u);\n"
    "    for (unsigned n = 0u - (unsigned)offset - 1u; n > 0u && m; n--) m &= ~(0x80000000u >> __clz((int)m));\n"
    "    return m ? (unsigned)(31 - __clz((int)m)) : 0xffffffffu;\n"
    "}\n"
    "#endif\n";

static const char math_rounded_h[] =
    "#ifndef __CVM_MATH_ROUNDED_H\n"
    "#define __CVM_MATH_ROUNDED_H\n"
    "__device__ inline float sinpif(float x) {\n"
    "    float r = x - 2.0f * rintf(x * 0.5f);\n"
    "    float t = r > 0.5f ? 1.0f - r : r < -0.5f ? -1.0f - r : r;\n"
    "    float s = (float)sin(3.141592653589793 * (double)t);\n"
    "    return s == 0.0f ? copysignf(0.0f, x) : s;\n"
    "}\n"
    "__device__ inline float cospif(float x) {\n"
    "    if (x != x) return x + x;\n"
    "    float a = fabsf(x - 2.0f * rintf(x * 0.5f));\n"
    "    if (isinf(x)) return x - x;\n"
    "    if (a <= 0.25f) return (float)cos(3.141592653589793 * (double)a);\n"
    "    if (a <= 0.75f) return (float)sin(3.141592653589793 * (double)(0.5f - a));\n"
    "    return (float)-cos(3.141592653589793 * (double)(1.0f - a));\n"
    "}\n"
    "__device__ inline float rcbrtf(float x) { return (float)(1.0 / cbrt((double)x)); }\n"
    "__device__ inline float norm3df(float a, float b, float c) {\n"
    "    if (isinf(a) || isinf(b) || isinf(c)) return __int_as_float(0x7f800000);\n"
    "    return (float)sqrt((double)a * a + (double)b * b + (double)c * c);\n"
    "}\n"
    "__device__ inline float rnorm3df(float a, float b, float c) {\n"
    "    if (isinf(a) || isinf(b) || isinf(c)) return 0.0f;\n"
    "    return (float)(1.0 / sqrt((double)a * a + (double)b * b + (double)c * c));\n"
    "}\n"
    "__device__ inline float normcdff(float x) { return (float)(0.5 * erfc(-(double)x * 0.70710678118654752440)); }\n"
    "__device__ inline float rhypotf(float x, float y) {\n"
    "    if (isinf(x) || isinf(y)) return 0.0f;\n"
    "    return (float)(1.0 / sqrt((double)x * x + (double)y * y));\n"
    "}\n"
    "__device__ inline void sincospif(float x, float *s, float *c) { *s = sinpif(x); *c = cospif(x); }\n"
    /* the inverse hyperbolics through log1p, whose argument keeps the
     * small values' precision: asinh |x| = log1p(|x| + x^2 / (1 + sqrt(1 + x^2))),
     * acosh x = log1p(t + sqrt(2t + t^2)) with t = x - 1 (exact in f64),
     * atanh x = log1p(2x / (1 - x)) / 2 */
    "__device__ inline float asinhf(float x) {\n"
    "    double a = fabs((double)x);\n"
    "    if (isinf(x)) return x;\n"
    "    return copysignf((float)log1p(a + a * a / (1.0 + sqrt(1.0 + a * a))), x);\n"
    "}\n"
    "__device__ inline float acoshf(float x) {\n"
    "    double t = (double)x - 1.0;\n"
    "    return x < 1.0f ? __int_as_float(0x7fc00000) : (float)log1p(t + sqrt(2.0 * t + t * t));\n"
    "}\n"
    "__device__ inline float atanhf(float x) {\n"
    "    double a = fabs((double)x);\n"
    "    if (a > 1.0) return __int_as_float(0x7fc00000);\n"
    "    return copysignf((float)(0.5 * log1p(2.0 * a / (1.0 - a))), x);\n"
    "}\n"
    /* erfcx x = exp(x^2) erfc(x); past x = 25 (where erfc leaves f64's
     * normal range) its asymptotic series, whose fifth term is below 2^-40 */
    "__device__ inline float erfcxf(float x) {\n"
    "    double d = (double)x;\n"
    "    if (x != x) return x + x;\n"
    "    if (d < 25.0) return (float)(exp(d * d) * erfc(d));\n"
    "    double u = 1.0 / (2.0 * d * d);\n"
    "    return (float)(0.56418958354775628695 / d * (1.0 - u * (1.0 - 3.0 * u * (1.0 - 5.0 * u * (1.0 - 7.0 * u)))));\n"
    "}\n"
    "__device__ inline float __frcp_rn(float x) { return 1.0f / x; }\n"
    "__device__ inline double __drcp_rn(double x) { return 1.0 / x; }\n"
    "__device__ inline void __sincosf(float x, float *s, float *c) { *s = __sinf(x); *c = __cosf(x); }\n"
    "#endif\n";

/* <cubevm/math_exact_double.h> and <cubevm/math_rounded_double.h>: the
 * double forms of remquo, remainder, scalbn, ldexp (exact), and of the
 * inverse hyperbolics, erfcx, rcbrt, rhypot, norm3d and rnorm3d (from f64
 * parts that are nearly correctly rounded, docs/numerics.md; the bounds
 * measured in tests/test_cuda_unit.c test_double_math). */
static const char math_exact_double_h[] =
    "#ifndef __CVM_MATH_EXACT_DOUBLE_H\n"
    "#define __CVM_MATH_EXACT_DOUBLE_H\n"
    /* the double forms: fmod by 8|y| (exact) leaves r < 8|y|; each step
     * below subtracts k|y| from an r in [k|y|, 2k|y|), exact by Sterbenz;
     * 8|y| past the largest double is skipped (r is then below 4|y|, whose
     * comparisons an infinity answers) */
    "__device__ inline double remquo(double x, double y, int *quo) {\n"
    "    *quo = 0;\n"
    "    if (x != x || y != y || isinf(x) || y == 0.0) return __longlong_as_double(0x7ff8000000000000ll);\n"
    "    if (isinf(y)) return x;\n"
    "    double ax = fabs(x), ay = fabs(y);\n"
    "    double r = ay <= 2.2471164185778946e307 ? fmod(ax, 8.0 * ay) : ax;\n"
    "    int q = 0;\n"
    "    if (r >= 4.0 * ay) { r -= 4.0 * ay; q += 4; }\n"
    "    if (r >= 2.0 * ay) { r -= 2.0 * ay; q += 2; }\n"
    "    if (r >= ay) { r -= ay; q += 1; }\n"
    "    if (r > ay - r || (r == ay - r && (q & 1))) { r -= ay; q += 1; }\n"
    "    q &= 7;\n"
    "    *quo = (x < 0.0) != (y < 0.0) ? -q : q;\n"
    "    return r == 0.0 ? copysign(0.0, x) : x < 0.0 ? -r : r;\n"
    "}\n"
    "__device__ inline double remainder(double x, double y) { int q; return remquo(x, y, &q); }\n"
    "__device__ inline float remquo(float x, float y, int *quo) { return remquof(x, y, quo); }\n"
    "__device__ inline float remainder(float x, float y) { return remainderf(x, y); }\n"
    /* x * 2^n with one rounding: the factor is built from its bits; n is
     * taken in at most two steps of 2^1023 up, or 2^-969 down (a value
     * made subnormal there ends far below the smallest subnormal, so no
     * second rounding matters) */
    "__device__ inline double scalbn(double x, int n) {\n"
    "    n = n > 2200 ? 2200 : n < -2200 ? -2200 : n;\n"
    "    for (int i = 0; i < 2 && n > 1023; i++) { x *= __longlong_as_double(0x7fe0000000000000ll); n -= 1023; }\n"
    "    for (int i = 0; i < 2 && n < -1022; i++) { x *= __longlong_as_double(0x0360000000000000ll); n += 969; }\n"
    "    n = n > 1023 ? 1023 : n < -1022 ? -1022 : n;\n"
    "    return x * __longlong_as_double((long long)(n + 1023) << 52);\n"
    "}\n"
    "__device__ inline double ldexp(double x, int n) { return scalbn(x, n); }\n"
    "__device__ inline double scalbln(double x, long n) {\n"
    "    return scalbn(x, n > 2200 ? 2200 : n < -2200 ? -2200 : (int)n);\n"
    "}\n"
    "__device__ inline float ldexp(float x, int n) { return ldexpf(x, n); }\n"
    "__device__ inline float scalbn(float x, int n) { return scalbnf(x, n); }\n"
    "__device__ inline float scalbln(float x, long n) {\n"
    "    return scalbnf(x, n > 400 ? 400 : n < -400 ? -400 : (int)n);\n"
    "}\n"
    "#endif\n";

/* <cubevm/math_pi.h>: sinpi, cospi, sincospi and normcdf in double, the
 * product by pi (by 1/sqrt 2) carried in two parts and its low part
 * applied to the result by the derivative (the reduced argument and the
 * high product are exact or rounded once), and their float overloads. */
static const char math_pi_h[] =
    "#ifndef __CVM_MATH_PI_H\n"
    "#define __CVM_MATH_PI_H\n"
    "__device__ inline double __cvm_pi_lo(double t, double p) { return fma(3.141592653589793116, t, -p) + 1.2246467991473532e-16 * t; }\n"
    "__device__ inline double sinpi(double x) {\n"
    "    if (x != x || isinf(x)) return x - x;\n"
    "    double r = x - 2.0 * rint(x * 0.5);\n"
    "    double t = r > 0.5 ? 1.0 - r : r < -0.5 ? -1.0 - r : r;\n"
    "    double p = 3.141592653589793116 * t, s = sin(p) + __cvm_pi_lo(t, p) * cos(p);\n"
    "    return s == 0.0 ? copysign(0.0, x) : s;\n"
    "}\n"
    "__device__ inline double cospi(double x) {\n"
    "    if (x != x || isinf(x)) return x - x;\n"
    "    double a = fabs(x - 2.0 * rint(x * 0.5)), t, p;\n"
    "    if (a <= 0.25) { p = 3.141592653589793116 * a; return cos(p) - __cvm_pi_lo(a, p) * sin(p); }\n"
    "    t = a <= 0.75 ? 0.5 - a : 1.0 - a;\n"
    "    p = 3.141592653589793116 * t;\n"
    "    if (a <= 0.75) { double s = sin(p) + __cvm_pi_lo(t, p) * cos(p); return s == 0.0 ? 0.0 : s; }\n"
    "    return -(cos(p) - __cvm_pi_lo(t, p) * sin(p));\n"
    "}\n"
    "__device__ inline void sincospi(double x, double *s, double *c) { *s = sinpi(x); *c = cospi(x); }\n"
    /* erfc(u) with u = -x / sqrt 2 = h + l: erfc(h) - l 2/sqrt(pi) e^(-h^2) */
    "__device__ inline double normcdf(double x) {\n"
    "    if (x != x) return x + x;\n"
    "    if (isinf(x)) return x > 0.0 ? 1.0 : 0.0;\n"
    "    double h = -x * 0.70710678118654757274, l = fma(-x, 0.70710678118654757274, -h) - x * -4.8336466567264567e-17;\n"
    "    double e = erfc(h), d = l * 1.1283791670955126 * exp(-h * h);\n"
    "    return 0.5 * (e - d);\n"
    "}\n"
    "__device__ inline float sinpi(float x) { return sinpif(x); }\n"
    "__device__ inline float cospi(float x) { return cospif(x); }\n"
    "__device__ inline float normcdf(float x) { return normcdff(x); }\n"
    "__device__ inline void sincospi(float x, float *s, float *c) { sincospif(x, s, c); }\n"
    "#endif\n";

static const char math_rounded_double_h[] =
    "#ifndef __CVM_MATH_ROUNDED_DOUBLE_H\n"
    "#define __CVM_MATH_ROUNDED_DOUBLE_H\n"
    "__device__ inline double asinh(double x) {\n"
    "    double a = fabs(x);\n"
    "    if (!(a < __longlong_as_double(0x7ff0000000000000ll))) return x + x;\n"
    "    double r = a > 268435456.0 ? log(a) + 0.69314718055994530942\n"
    "                               : log1p(a + a * a / (1.0 + sqrt(1.0 + a * a)));\n"
    "    return copysign(r, x);\n"
    "}\n"
    "__device__ inline double acosh(double x) {\n"
    "    if (x != x) return x + x;\n"
    "    if (x < 1.0) return __longlong_as_double(0x7ff8000000000000ll);\n"
    "    if (x > 268435456.0) return log(x) + 0.69314718055994530942;\n"
    "    double t = x - 1.0;\n"
    "    return log1p(t + sqrt(2.0 * t + t * t));\n"
    "}\n"
    "__device__ inline double atanh(double x) {\n"
    "    double a = fabs(x);\n"
    "    if (!(a <= 1.0)) return __longlong_as_double(0x7ff8000000000000ll);\n"
    "    return copysign(0.5 * log1p(2.0 * a / (1.0 - a)), x);\n"
    "}\n"
    /* exp(x^2) erfc(x) with x^2 = p + e split exactly (fma), since exp
     * multiplies an error of x^2 by x^2; from 26 on (erfc near f64's
     * smallest normal) the asymptotic series, whose ninth term is below
     * 2^-60 there */
    "__device__ inline double erfcx(double x) {\n"
    "    if (x != x) return x + x;\n"
    "    if (x < -26.7) return __longlong_as_double(0x7ff0000000000000ll); /* 2 exp(x^2) overflows */\n"
    "    if (x < 26.0) {\n"
    "        double p = x * x, e = fma(x, x, -p);\n"
    "        return exp(p) * erfc(x) * (1.0 + e);\n"
    "    }\n"
    "    double u = 1.0 / (2.0 * x * x);\n"
    "    double s = 1.0 - 15.0 * u * (1.0 - 17.0 * u);\n"
    "    s = 1.0 - 11.0 * u * (1.0 - 13.0 * u * s);\n"
    "    s = 1.0 - 7.0 * u * (1.0 - 9.0 * u * s);\n"
    "    s = 1.0 - 3.0 * u * (1.0 - 5.0 * u * s);\n"
    "    return 0.56418958354775628695 / x * (1.0 - u * s);\n"
    "}\n"
    /* 1/cbrt(x), then one Newton step on 1 - x y^3 with y^3 carried in
     * two parts (fma), which takes the two roundings' error back under 1 ulp */
    "__device__ inline double rcbrt(double x) {\n"
    "    if (x == 0.0 || isinf(x) || x != x) return 1.0 / cbrt(x);\n"
    "    int k = ilogb(x) / 3;\n"
    "    double s = scalbn(x, -3 * k), y = 1.0 / cbrt(s); /* s in [2^-2, 2^3) */\n"
    "    double y2 = y * y, y2e = fma(y, y, -y2);\n"
    "    double y3 = y2 * y, y3e = fma(y2, y, -y3) + y2e * y;\n"
    "    double r = fma(-s, y3, 1.0) - s * y3e;\n"
    "    return scalbn(fma(y * r, 0.33333333333333333, y), -k);\n"
    "}\n"
    /* rhypot and rnorm3d scale by a power of 2 near the largest (exact),
     * so neither the sum overflows nor a subnormal one rounds twice */
    "__device__ inline double rhypot(double x, double y) {\n"
    "    if (isinf(x) || isinf(y)) return 0.0;\n"
    "    if (x != x || y != y) return x + y;\n"
    "    double m = fmax(fabs(x), fabs(y));\n"
    "    if (m == 0.0) return 1.0 / m;\n"
    "    int e = ilogb(m);\n"
    "    return scalbn(1.0 / hypot(scalbn(x, -e), scalbn(y, -e)), -e);\n"
    "}\n"
    /* the three scaled by a power of 2 near the largest (exact), summed
     * with fma, scaled back */
    "__device__ inline double norm3d(double a, double b, double c) {\n"
    "    if (isinf(a) || isinf(b) || isinf(c)) return __longlong_as_double(0x7ff0000000000000ll);\n"
    "    if (a != a || b != b || c != c) return a + b + c;\n"
    "    double m = fmax(fabs(a), fmax(fabs(b), fabs(c)));\n"
    "    if (m == 0.0) return 0.0;\n"
    "    int e = ilogb(m);\n"
    "    a = scalbn(a, -e); b = scalbn(b, -e); c = scalbn(c, -e);\n"
    "    return scalbn(sqrt(fma(a, a, fma(b, b, c * c))), e);\n"
    "}\n"
    "__device__ inline double rnorm3d(double a, double b, double c) {\n"
    "    if (isinf(a) || isinf(b) || isinf(c)) return 0.0;\n"
    "    double m = fmax(fabs(a), fmax(fabs(b), fabs(c)));\n"
    "    if (m == 0.0 || a != a || b != b || c != c) return 1.0 / (m + a + b + c);\n"
    "    int e = ilogb(m);\n"
    "    return scalbn(1.0 / norm3d(scalbn(a, -e), scalbn(b, -e), scalbn(c, -e)), -e);\n"
    "}\n"
    "__device__ inline float asinh(float x) { return asinhf(x); }\n"
    "__device__ inline float acosh(float x) { return acoshf(x); }\n"
    "__device__ inline float atanh(float x) { return atanhf(x); }\n"
    "__device__ inline float erfcx(float x) { return erfcxf(x); }\n"
    "__device__ inline float rcbrt(float x) { return rcbrtf(x); }\n"
    "#endif\n";

/* <cubevm/simd_word.h>: CUDA's SIMD intrinsics on the two halfwords (2)
 * or four bytes (4) of a 32-bit word, part by part in CUDA C. A part is
 * read unsigned (u) or sign-extended (s); each result is cut to the part's
 * width. Semantics as the CUDA Math API states them: plain add, sub and
 * neg wrap; ss/us saturate to the signed/unsigned range; avg rounds half
 * away from zero (unsigned: up), hadd down; cmp gives all ones per true
 * part, set 1;
 * sad sums |x - y| over the parts into one unsigned value. */
static const char simd_word_h[] =
    "#ifndef __CVM_SIMD_WORD_H\n"
    "#define __CVM_SIMD_WORD_H\n"
    "__device__ inline int __cvm_pu(unsigned w, int i, int bits) { return (int)((w >> i) & ((1u << bits) - 1u)); }\n"
    "__device__ inline int __cvm_ps(unsigned w, int i, int bits) { return (int)((w >> i) << (32 - bits)) >> (32 - bits); }\n"
    "__device__ inline int __cvm_clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }\n"
    "__device__ inline int __cvm_iabs(int v) { return v < 0 ? -v : v; }\n"
    /* F: name, bits, part reader of x and y (u or s), the part's value */
    "#define __CVM_SIMD2(F, B, P, E) __device__ inline unsigned F(unsigned a, unsigned b) {\\\n"
    "    unsigned r = 0; const int lo = -(1 << (B - 1)), hi = (1 << (B - 1)) - 1, m = (1 << B) - 1;\\\n"
    "    (void)lo; (void)hi; (void)m;\\\n"
    "    for (int i = 0; i < 32; i += B) { const int x = __cvm_p##P(a, i, B), y = __cvm_p##P(b, i, B);\\\n"
    "        r |= ((unsigned)(E) & (unsigned)m) << i; }\\\n"
    "    return r; }\n"
    "#define __CVM_SIMD1(F, B, E) __device__ inline unsigned F(unsigned a) {\\\n"
    "    unsigned r = 0; const int lo = -(1 << (B - 1)), hi = (1 << (B - 1)) - 1, m = (1 << B) - 1;\\\n"
    "    (void)lo; (void)hi;\\\n"
    "    for (int i = 0; i < 32; i += B) { const int x = __cvm_ps(a, i, B); r |= ((unsigned)(E) & (unsigned)m) << i; }\\\n"
    "    return r; }\n"
    "#define __CVM_SAD(F, B, P) __device__ inline unsigned F(unsigned a, unsigned b) {\\\n"
    "    unsigned r = 0;\\\n"
    "    for (int i = 0; i < 32; i += B) r += (unsigned)__cvm_iabs(__cvm_p##P(a, i, B) - __cvm_p##P(b, i, B));\\\n"
    "    return r; }\n"
    "#define __CVM_SIMD_ALL(N, B)\\\n"
    "    __CVM_SIMD2(__vadd##N, B, u, x + y) __CVM_SIMD2(__vsub##N, B, u, x - y)\\\n"
    "    __CVM_SIMD2(__vaddss##N, B, s, __cvm_clamp(x + y, lo, hi)) __CVM_SIMD2(__vaddus##N, B, u, x + y > m ? m : x + y)\\\n"
    "    __CVM_SIMD2(__vsubss##N, B, s, __cvm_clamp(x - y, lo, hi)) __CVM_SIMD2(__vsubus##N, B, u, x < y ? 0 : x - y)\\\n"
    "    __CVM_SIMD2(__vavgs##N, B, s, x + y < 0 ? (x + y) >> 1 : (x + y + 1) >> 1)\\\n"
    "    __CVM_SIMD2(__vavgu##N, B, u, (x + y + 1) >> 1)\\\n"
    "    __CVM_SIMD2(__vhaddu##N, B, u, (x + y) >> 1)\\\n"
    "    __CVM_SIMD2(__vabsdiffs##N, B, s, __cvm_iabs(x - y)) __CVM_SIMD2(__vabsdiffu##N, B, u, __cvm_iabs(x - y))\\\n"
    "    __CVM_SIMD2(__vmaxs##N, B, s, x > y ? x : y) __CVM_SIMD2(__vmaxu##N, B, u, x > y ? x : y)\\\n"
    "    __CVM_SIMD2(__vmins##N, B, s, x < y ? x : y) __CVM_SIMD2(__vminu##N, B, u, x < y ? x : y)\\\n"
    "    __CVM_SIMD2(__vcmpeq##N, B, u, x == y ? m : 0) __CVM_SIMD2(__vcmpne##N, B, u, x != y ? m : 0)\\\n"
    "    __CVM_SIMD2(__vcmpges##N, B, s, x >= y ? m : 0) __CVM_SIMD2(__vcmpgeu##N, B, u, x >= y ? m : 0)\\\n"
    "    __CVM_SIMD2(__vcmpgts##N, B, s, x > y ? m : 0) __CVM_SIMD2(__vcmpgtu##N, B, u, x > y ? m : 0)\\\n"
    "    __CVM_SIMD2(__vcmples##N, B, s, x <= y ? m : 0) __CVM_SIMD2(__vcmpleu##N, B, u, x <= y ? m : 0)\\\n"
    "    __CVM_SIMD2(__vcmplts##N, B, s, x < y ? m : 0) __CVM_SIMD2(__vcmpltu##N, B, u, x < y ? m : 0)\\\n"
    "    __CVM_SIMD2(__vseteq##N, B, u, x == y) __CVM_SIMD2(__vsetne##N, B, u, x != y)\\\n"
    "    __CVM_SIMD2(__vsetges##N, B, s, x >= y) __CVM_SIMD2(__vsetgeu##N, B, u, x >= y)\\\n"
    "    __CVM_SIMD2(__vsetgts##N, B, s, x > y) __CVM_SIMD2(__vsetgtu##N, B, u, x > y)\\\n"
    "    __CVM_SIMD2(__vsetles##N, B, s, x <= y) __CVM_SIMD2(__vsetleu##N, B, u, x <= y)\\\n"
    "    __CVM_SIMD2(__vsetlts##N, B, s, x < y) __CVM_SIMD2(__vsetltu##N, B, u, x < y)\\\n"
    "    __CVM_SIMD1(__vabs##N, B, __cvm_iabs(x)) __CVM_SIMD1(__vabsss##N, B, __cvm_iabs(x) > hi ? hi : __cvm_iabs(x))\\\n"
    "    __CVM_SIMD1(__vneg##N, B, -x) __CVM_SIMD1(__vnegss##N, B, -x > hi ? hi : -x)\\\n"
    "    __CVM_SAD(__vsads##N, B, s) __CVM_SAD(__vsadu##N, B, u)\n"
    "__CVM_SIMD_ALL(2, 16)\n"
    "__CVM_SIMD_ALL(4, 8)\n"
    "#endif\n";

/* <cubevm/math_special.h>: the gamma and inverse error functions of the
 * float math library, computed in f64 and rounded once. */
static const char math_special_h[] =
    "#ifndef __CVM_MATH_SPECIAL_H\n"
    "#define __CVM_MATH_SPECIAL_H\n"
    /* ln |gamma(x)| for x >= 0.5: Lanczos' sum with g = 7 and nine terms
     * (relative error near 1e-15 in gamma), reflection below 0.5 */
    "__device__ inline double __cvm_lgamma_pos(double x) {\n"
    "    double z = x - 1.0, t = z + 7.5;\n"
    "    double a = 0.99999999999980993 + 676.5203681218851 / (z + 1.0) - 1259.1392167224028 / (z + 2.0)\n"
    "             + 771.32342877765313 / (z + 3.0) - 176.61502916214059 / (z + 4.0)\n"
    "             + 12.507343278686905 / (z + 5.0) - 0.13857109526572012 / (z + 6.0)\n"
    "             + 9.9843695780195716e-6 / (z + 7.0) + 1.5056327351493116e-7 / (z + 8.0);\n"
    "    return 0.91893853320467274178 + (z + 0.5) * log(t) - t + log(a);\n"
    "}\n"
    "__device__ inline double __cvm_sinpi(double r) { return sin(3.141592653589793 * (r - 2.0 * rint(0.5 * r))); }\n"
    "__device__ inline float lgammaf(float x) {\n"
    "    if (x != x) return x + x; /* the canonical NaN */\n"
    "    if (isinf(x) || (x <= 0.0f && x == truncf(x))) return __int_as_float(0x7f800000);\n"
    "    double d = (double)x;\n"
    "    if (d >= 0.5) return (float)__cvm_lgamma_pos(d);\n"
    "    return (float)(log(3.141592653589793 / fabs(__cvm_sinpi(d))) - __cvm_lgamma_pos(1.0 - d));\n"
    "}\n"
    "__device__ inline float tgammaf(float x) {\n"
    "    if (x != x) return x + x; /* the canonical NaN */\n"
    "    if (x == 0.0f) return 1.0f / x;\n"
    "    if (x < 0.0f && (isinf(x) || x == truncf(x))) return __int_as_float(0x7fc00000);\n"
    "    if (x > 36.0f) return __int_as_float(0x7f800000);\n"
    "    double d = (double)x;\n"
    "    if (d >= 0.5) return (float)exp(__cvm_lgamma_pos(d));\n"
    "    return (float)(3.141592653589793 / (__cvm_sinpi(d) * exp(__cvm_lgamma_pos(1.0 - d))));\n"
    "}\n"
    /* The inverse error functions in f64, rounded once: Newton's method
     * on erf from its series for |y| <= 0.5, on log erfc from the normal
     * quantile's rational estimate (Abramowitz and Stegun 26.2.23) beyond,
     * so that arguments near 1 (or 0 for erfc) keep their bits. */
    "__device__ inline double __cvm_erfinv_small(double a) {\n"
    "    double z = 0.88622692545275801365 * a, z2 = z * z;\n"
    "    double x = z * (1.0 + z2 * (1.0 / 3.0 + z2 * (7.0 / 30.0 + z2 * (127.0 / 630.0))));\n"
    "    for (int i = 0; i < 3; i++) x -= (erf(x) - a) * exp(x * x) * 0.88622692545275801365;\n"
    "    return x;\n"
    "}\n"
    "__device__ inline double __cvm_erfcinv_tail(double p) {\n"
    "    double t = sqrt(-2.0 * log(0.5 * p));\n"
    "    double x = 0.70710678118654752440 * (t - (2.515517 + t * (0.802853 + t * 0.010328))\n"
    "                                           / (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308))));\n"
    "    for (int i = 0; i < 4; i++) { double e = erfc(x); x += (log(e) - log(p)) * e * exp(x * x) * 0.88622692545275801365; }\n"
    "    return x;\n"
    "}\n"
    "__device__ inline double __cvm_erfcinv(double c) {\n"
    "    double m = 1.0 - c;\n"
    "    if (fabs(m) <= 0.5) return copysign(__cvm_erfinv_small(fabs(m)), m);\n"
    "    return c < 1.0 ? __cvm_erfcinv_tail(c) : -__cvm_erfcinv_tail(2.0 - c);\n"
    "}\n"
    "__device__ inline float erfinvf(float y) {\n"
    "    double a = fabs((double)y);\n"
    "    if (y != y || a > 1.0) return __int_as_float(0x7fc00000);\n"
    "    if (a == 1.0) return copysignf(__int_as_float(0x7f800000), y);\n"
    "    return copysignf((float)(a <= 0.5 ? __cvm_erfinv_small(a) : __cvm_erfcinv_tail(1.0 - a)), y);\n"
    "}\n"
    "__device__ inline float erfcinvf(float c) {\n"
    "    if (c != c || c < 0.0f || c > 2.0f) return __int_as_float(0x7fc00000);\n"
    "    if (c == 0.0f || c == 2.0f) return c == 0.0f ? __int_as_float(0x7f800000) : -__int_as_float(0x7f800000);\n"
    "    return (float)__cvm_erfcinv((double)c);\n"
    "}\n"
    "__device__ inline float normcdfinvf(float p) {\n"
    "    if (p != p || p < 0.0f || p > 1.0f) return __int_as_float(0x7fc00000);\n"
    "    if (p == 0.0f || p == 1.0f) return p == 0.0f ? -__int_as_float(0x7f800000) : __int_as_float(0x7f800000);\n"
    "    return (float)(-1.41421356237309504880 * __cvm_erfcinv(2.0 * (double)p));\n"
    "}\n"
    "#endif\n";

/* Conversions with a rounding mode that compose from the builtins, in CUDA
 * C: the nearest value, then one step toward the mode when it went past
 * (exact comparisons: an int in a double, a float's integer value in a
 * long long), and the words of a double. */
static const char convert_h[] =
    "#ifndef __CVM_CONVERT_H\n"
    "#define __CVM_CONVERT_H\n"
    "__device__ inline int __double2hiint(double d) { return (int)(__double_as_longlong(d) >> 32); }\n"
    "__device__ inline int __double2loint(double d) { return (int)__double_as_longlong(d); }\n"
    "__device__ inline double __hiloint2double(int hi, int lo) { return __longlong_as_double((long long)(((unsigned long long)(unsigned)hi << 32) | (unsigned)lo)); }\n"
    "__device__ inline double __int2double_rn(int x) { return (double)x; }\n"
    "__device__ inline double __uint2double_rn(unsigned x) { return (double)x; }\n"
    "__device__ inline double __ll2double_rn(long long x) { return (double)x; }\n"
    "__device__ inline double __ull2double_rn(unsigned long long x) { return (double)x; }\n"
    "__device__ inline float __ll2float_rn(long long x) { return (float)x; }\n"
    "__device__ inline float __ull2float_rn(unsigned long long x) { return (float)x; }\n"
    "__device__ inline float __double2float_rz(double d) { float f = (float)d; return fabs((double)f) > fabs(d) ? nextafterf(f, 0.0f) : f; }\n"
    "__device__ inline float __double2float_rd(double d) { float f = (float)d; return (double)f > d ? nextafterf(f, -__int_as_float(0x7f800000)) : f; }\n"
    "__device__ inline float __double2float_ru(double d) { float f = (float)d; return (double)f < d ? nextafterf(f, __int_as_float(0x7f800000)) : f; }\n"
    "__device__ inline float __int2float_rz(int x) { return __double2float_rz((double)x); }\n"
    "__device__ inline float __int2float_rd(int x) { return __double2float_rd((double)x); }\n"
    "__device__ inline float __int2float_ru(int x) { return __double2float_ru((double)x); }\n"
    "__device__ inline float __uint2float_rz(unsigned x) { return __double2float_rz((double)x); }\n"
    "__device__ inline float __uint2float_rd(unsigned x) { return __double2float_rd((double)x); }\n"
    "__device__ inline float __uint2float_ru(unsigned x) { return __double2float_ru((double)x); }\n"
    "__device__ inline int __cvm_cmp_fll(float f, long long x) { if (f >= 9223372036854775808.0f) return 1; long long g = (long long)f; return g > x ? 1 : g < x ? -1 : 0; }\n"
    "__device__ inline int __cvm_cmp_full(float f, unsigned long long x) { if (f >= 18446744073709551616.0f) return 1; unsigned long long g = (unsigned long long)f; return g > x ? 1 : g < x ? -1 : 0; }\n"
    "__device__ inline float __ll2float_rz(long long x) { float f = (float)x; int c = __cvm_cmp_fll(f, x); return (x > 0 && c > 0) || (x < 0 && c < 0) ? nextafterf(f, 0.0f) : f; }\n"
    "__device__ inline float __ll2float_rd(long long x) { float f = (float)x; return __cvm_cmp_fll(f, x) > 0 ? nextafterf(f, -__int_as_float(0x7f800000)) : f; }\n"
    "__device__ inline float __ll2float_ru(long long x) { float f = (float)x; return __cvm_cmp_fll(f, x) < 0 ? nextafterf(f, __int_as_float(0x7f800000)) : f; }\n"
    "__device__ inline float __ull2float_rz(unsigned long long x) { float f = (float)x; return __cvm_cmp_full(f, x) > 0 ? nextafterf(f, 0.0f) : f; }\n"
    "__device__ inline float __ull2float_rd(unsigned long long x) { return __ull2float_rz(x); }\n"
    "__device__ inline float __ull2float_ru(unsigned long long x) { float f = (float)x; return __cvm_cmp_full(f, x) < 0 ? nextafterf(f, __int_as_float(0x7f800000)) : f; }\n"
    "#endif\n"
    ;

static const char math_constants_h[] =
    "#ifndef __CVM_MATH_CONSTANTS_H\n"
    "#define __CVM_MATH_CONSTANTS_H\n"
    "#define CUDART_INF_F __int_as_float(0x7f800000)\n"
    "#define CUDART_NAN_F __int_as_float(0x7fffffff)\n"
    "#define CUDART_MIN_DENORM_F __int_as_float(0x00000001)\n"
    "#define CUDART_MAX_NORMAL_F __int_as_float(0x7f7fffff)\n"
    "#define CUDART_NEG_ZERO_F __int_as_float(0x80000000)\n"
    "#define CUDART_ZERO_F 0.0f\n"
    "#define CUDART_ONE_F 1.0f\n"
    "#define CUDART_SQRT_HALF_F 0.707106781f\n"
    "#define CUDART_SQRT_TWO_F 1.414213562f\n"
    "#define CUDART_THIRD_F 0.333333333f\n"
    "#define CUDART_PIO4_F 0.785398163f\n"
    "#define CUDART_PIO2_F 1.570796327f\n"
    "#define CUDART_3PIO4_F 2.356194490f\n"
    "#define CUDART_2_OVER_PI_F 0.636619772f\n"
    "#define CUDART_SQRT_2_OVER_PI_F 0.797884561f\n"
    "#define CUDART_PI_F 3.141592654f\n"
    "#define CUDART_SQRT_2PI_F 2.506628275f\n"
    "#define CUDART_L2E_F 1.442695041f\n"
    "#define CUDART_L2T_F 3.321928094f\n"
    "#define CUDART_LG2_F 0.301029996f\n"
    "#define CUDART_LGE_F 0.434294482f\n"
    "#define CUDART_LN2_F 0.693147181f\n"
    "#define CUDART_LNT_F 2.302585093f\n"
    "#define CUDART_LNPI_F 1.144729886f\n"
    "#define CUDART_INF __longlong_as_double(0x7ff0000000000000LL)\n"
    "#define CUDART_NAN __longlong_as_double(0xfff8000000000000ULL)\n"
    "#define CUDART_NEG_ZERO __longlong_as_double(0x8000000000000000ULL)\n"
    "#define CUDART_ZERO 0.0\n"
    "#define CUDART_ONE 1.0\n"
    "#define CUDART_SQRT_2 1.4142135623730951\n"
    "#define CUDART_SQRT_HALF 0.70710678118654757\n"
    "#define CUDART_PI 3.1415926535897931\n"
    "#define CUDART_PIO2 1.5707963267948966\n"
    "#define CUDART_PIO4 0.78539816339744828\n"
    "#define CUDART_2_OVER_PI 0.63661977236758138\n"
    "#define CUDART_SQRT_2PI 2.5066282746310002\n"
    "#define CUDART_L2E 1.4426950408889634\n"
    "#define CUDART_LN2 0.69314718055994529\n"
    "#define CUDART_LNT 2.3025850929940459\n"
    "#endif\n";

/* <assert.h> has no guard: NDEBUG may change between inclusions. */
static const char assert_h[] =
    "#undef assert\n"
    "#ifdef NDEBUG\n"
    "#define assert(e) ((void)0)\n"
    "#else\n"
    "#define assert(e) __cvm_assert((e), #e, __FILE__, __LINE__)\n"
    "#endif\n";

static const char stdio_h[] =
    "#ifndef __CVM_STDIO_H\n"
    "#define __CVM_STDIO_H\n"
    "#include <stddef.h>\n"
    "#define EOF (-1)\n"
    "#endif\n";

static const char stdlib_h[] =
    "#ifndef __CVM_STDLIB_H\n"
    "#define __CVM_STDLIB_H\n"
    "#include <stddef.h>\n"
    "#define EXIT_SUCCESS 0\n"
    "#define EXIT_FAILURE 1\n"
    "#define RAND_MAX 2147483647\n"
    "#endif\n";

static const char string_h[] =
    "#include <stddef.h>\n"
    "#include <cubevm/device_string.h>\n";

/* memcpy and memset in device code (nvcc has them built in; llm.c copies
 * bits with memcpy): byte loops, whatever the memory space of either side. */
static const char device_string_h[] =
    "#ifndef __CVM_DEVICE_STRING_H\n"
    "#define __CVM_DEVICE_STRING_H\n"
    "#include <stddef.h>\n"
    "__device__ inline void *memcpy(void *dst, const void *src, size_t n) {\n"
    "    unsigned char *d = (unsigned char *)dst;\n"
    "    const unsigned char *s = (const unsigned char *)src;\n"
    "    for (size_t i = 0; i < n; i++) d[i] = s[i];\n"
    "    return dst;\n"
    "}\n"
    "__device__ inline void *memset(void *dst, int c, size_t n) {\n"
    "    unsigned char *d = (unsigned char *)dst;\n"
    "    for (size_t i = 0; i < n; i++) d[i] = (unsigned char)c;\n"
    "    return dst;\n"
    "}\n"
    "#endif\n";

static const char cuda_runtime_api_h[] =
    "#ifndef __CVM_CUDA_RUNTIME_API_H\n"
    "#define __CVM_CUDA_RUNTIME_API_H\n"
    "#define CUDART_VERSION 12000\n"
    "#endif\n";

/* What nvcc's <cuda_runtime.h> makes visible in practice. */
static const char cuda_runtime_h[] =
    "#ifndef __CVM_CUDA_RUNTIME_H\n"
    "#define __CVM_CUDA_RUNTIME_H\n"
    "#include <cuda_runtime_api.h>\n"
    "#include <stddef.h>\n"
    "#include <stdint.h>\n"
    "#include <limits.h>\n"
    "#include <float.h>\n"
    "#include <math.h>\n"
    "#include <math_constants.h>\n"
    "#include <cubevm/math_exact.h>\n"
    "#include <cubevm/math_rounded.h>\n"
    "#include <cubevm/bits.h>\n"
    "#include <cubevm/math_pi.h>\n"
    "#include <cubevm/math_exact_double.h>\n"
    "#include <cubevm/math_rounded_double.h>\n"
    "#include <cubevm/math_special.h>\n"
    "#include <cubevm/simd_word.h>\n"
    "#include <cubevm/convert.h>\n"
    "#include <cubevm/device_string.h>\n"
    "#define __builtin_assume(e) ((void)0)\n"
    "#define __builtin_unreachable() ((void)0)\n"
    "#endif\n";

static const char cuda_h[] =
    "#ifndef __CVM_CUDA_H\n"
    "#define __CVM_CUDA_H\n"
    "#define CUDA_VERSION 12000\n"
    "#include <stddef.h>\n"
    "#include <stdint.h>\n"
    "#endif\n";

/* The scalar half and bfloat16 functions that compose from conversions
 * and f32 math, in CUDA C: the f32 result rounds once to the narrow type
 * (for sqrt and division that is correctly rounded: f32 has more than
 * twice the narrow types' precision plus two bits), comparisons that are
 * true for unordered operands, and min/max that return NaN for a NaN. */
static const char half_math_h[] =
    "#ifndef __CVM_HALF_MATH_H\n"
    "#define __CVM_HALF_MATH_H\n"
    "#define __CVM_H1(T, N, F, UP, DOWN) __device__ inline T N(T a) { return DOWN(F(UP(a))); }\n"
    "#define __CVM_HCMP(T, N, E, UP) __device__ inline bool N(T a, T b) { float x = UP(a), y = UP(b); return E; }\n"
    "#define __CVM_HNAN(T, N, OP, UP, DOWN) __device__ inline T N(T a, T b) { float x = UP(a), y = UP(b); return DOWN(x != x || y != y ? __int_as_float(0x7fffffff) : OP(x, y)); }\n"
    "#define __CVM_HALF_MATH(T, UP, DOWN) \\\n"
    "    __CVM_H1(T, hsqrt, sqrtf, UP, DOWN) __CVM_H1(T, hrsqrt, rsqrtf, UP, DOWN) \\\n"
    "    __CVM_H1(T, hrcp, 1.0f /, UP, DOWN) __CVM_H1(T, hexp, expf, UP, DOWN) \\\n"
    "    __CVM_H1(T, hexp2, exp2f, UP, DOWN) __CVM_H1(T, hexp10, exp10f, UP, DOWN) \\\n"
    "    __CVM_H1(T, hlog, logf, UP, DOWN) __CVM_H1(T, hlog2, log2f, UP, DOWN) \\\n"
    "    __CVM_H1(T, hlog10, log10f, UP, DOWN) __CVM_H1(T, hsin, sinf, UP, DOWN) \\\n"
    "    __CVM_H1(T, hcos, cosf, UP, DOWN) __CVM_H1(T, hfloor, floorf, UP, DOWN) \\\n"
    "    __CVM_H1(T, hceil, ceilf, UP, DOWN) __CVM_H1(T, htrunc, truncf, UP, DOWN) \\\n"
    "    __CVM_H1(T, hrint, rintf, UP, DOWN) \\\n"
    "    __device__ inline int __hisinf(T a) { float x = UP(a); return isinf(x) ? (x < 0.0f ? -1 : 1) : 0; } \\\n"
    "    __CVM_HCMP(T, __hequ, !(x < y || x > y), UP) __CVM_HCMP(T, __hneu, !(x == y), UP) \\\n"
    "    __CVM_HCMP(T, __hltu, !(x >= y), UP) __CVM_HCMP(T, __hleu, !(x > y), UP) \\\n"
    "    __CVM_HCMP(T, __hgtu, !(x <= y), UP) __CVM_HCMP(T, __hgeu, !(x < y), UP) \\\n"
    "    __CVM_HNAN(T, __hmax_nan, fmaxf, UP, DOWN) __CVM_HNAN(T, __hmin_nan, fminf, UP, DOWN)\n"
    "#endif\n"    ;

static const char cuda_fp16_h[] =
    "#ifndef __CVM_CUDA_FP16_H\n"
    "#define __CVM_CUDA_FP16_H\n"
    "#include <cuda_runtime.h>\n"
    "#include <cubevm/half_math.h>\n"
    "__CVM_HALF_MATH(__half, __half2float, __float2half)\n"
    "#endif\n"    ;

static const char cuda_bf16_h[] =
    "#ifndef __CVM_CUDA_BF16_H\n"
    "#define __CVM_CUDA_BF16_H\n"
    "#include <cuda_fp16.h>\n"
    "__CVM_HALF_MATH(__nv_bfloat16, __bfloat162float, __float2bfloat16)\n"
    "#endif\n"    ;


static const char cooperative_groups_h[] =
    "#ifndef __CVM_COOPERATIVE_GROUPS_H\n"
    "#define __CVM_COOPERATIVE_GROUPS_H\n"
    "#include <cuda_runtime.h>\n"
    "#endif\n";

static const char cg_reduce_h[] =
    "#include <cooperative_groups.h>\n";

static const char runtime_only_h[] =
    "#include <cuda_runtime.h>\n";

/* Headers of host programs (the CUDA samples' helpers, the C++ library):
 * only host code uses what they declare, and the parser sets host code
 * aside, so they are empty; the runtime header comes along for the
 * kernels in the same file. */
static const char host_only_h[] =
    "#include <cuda_runtime.h>\n";

static const char cuda_atomic_h[] =
    "#ifndef __CVM_CUDA_ATOMIC\n"
    "#define __CVM_CUDA_ATOMIC\n"
    "#include <cuda_runtime.h>\n"
    "#endif\n";

/* std::is_same<...>::value, std::conditional_t<...> and the rest are
 * builtins of the parser (parse_cxx.c); integral_constant is a struct
 * template (its value parameter a long long: a value parameter of the
 * type parameter's type is not supported), with bool_constant, true_type
 * and false_type. */
static const char type_traits_h[] =
    "#ifndef __CVM_TYPE_TRAITS\n"
    "#define __CVM_TYPE_TRAITS\n"
    "namespace std {\n"
    "template <class T, long long v> struct integral_constant {\n"
    "    static constexpr T value = (T)v;\n"
    "    typedef T value_type;\n"
    "    typedef integral_constant type;\n"
    "    __host__ __device__ constexpr operator T() const { return value; }\n"
    "    __host__ __device__ constexpr T operator()() const { return value; }\n"
    "};\n"
    "template <bool B> using bool_constant = integral_constant<bool, B>;\n"
    "typedef integral_constant<bool, true> true_type;\n"
    "typedef integral_constant<bool, false> false_type;\n"
    "}\n"
    "#endif\n";

static const header headers[] = {
    {"algorithm", host_only_h},
    {"assert.h", assert_h},
    {"cassert", assert_h},
    {"cfloat", float_h},
    {"climits", limits_h},
    {"cmath", math_h},
    {"cooperative_groups.h", cooperative_groups_h},
    {"cooperative_groups/reduce.h", cg_reduce_h},
    {"cooperative_groups/scan.h", cg_reduce_h},
    {"cstddef", stddef_h},
    {"cstdint", stdint_h},
    {"cstdio", stdio_h},
    {"cstdlib", stdlib_h},
    {"cstring", string_h},
    {"ctime", host_only_h},
    {"cubevm/bits.h", bits_h},
    {"cubevm/convert.h", convert_h},
    {"cubevm/device_string.h", device_string_h},
    {"cubevm/half_math.h", half_math_h},
    {"cubevm/math_exact.h", math_exact_h},
    {"cubevm/math_exact_double.h", math_exact_double_h},
    {"cubevm/math_pi.h", math_pi_h},
    {"cubevm/math_rounded.h", math_rounded_h},
    {"cubevm/math_rounded_double.h", math_rounded_double_h},
    {"cubevm/math_special.h", math_special_h},
    {"cubevm/simd_word.h", simd_word_h},
    {"cuda.h", cuda_h},
    {"cuda/atomic", cuda_atomic_h},
    {"cuda/std/cassert", assert_h}, /* libcu++'s headers: cuda::std:: is std:: to the parser */
    {"cuda/std/cfloat", float_h},
    {"cuda/std/climits", limits_h},
    {"cuda/std/cmath", math_h},
    {"cuda/std/cstddef", stddef_h},
    {"cuda/std/cstdint", stdint_h},
    {"cuda/std/limits", limits_h},
    {"cuda/std/type_traits", type_traits_h},
    {"cuda/std/utility", host_only_h},
    {"cuda_bf16.h", cuda_bf16_h},
    {"cuda_fp16.h", cuda_fp16_h},
    {"cuda_runtime.h", cuda_runtime_h},
    {"cuda_runtime_api.h", cuda_runtime_api_h},
    {"device_launch_parameters.h", runtime_only_h},
    {"float.h", float_h},
    {"helper_cuda.h", host_only_h},
    {"helper_functions.h", host_only_h},
    {"helper_string.h", host_only_h},
    {"helper_timer.h", host_only_h},
    {"iostream", host_only_h},
    {"limits", limits_h}, /* std::numeric_limits<T> is a builtin of the compiler */
    {"limits.h", limits_h},
    {"math.h", math_h},
    {"math_constants.h", math_constants_h},
    {"mma.h", runtime_only_h}, /* nvcuda::wmma is rejected by name where a kernel uses it */
    {"stddef.h", stddef_h},
    {"stdint.h", stdint_h},
    {"stdio.h", stdio_h},
    {"stdlib.h", stdlib_h},
    {"string", host_only_h},
    {"string.h", string_h},
    {"time.h", host_only_h},
    {"type_traits", type_traits_h},
    {"utility", host_only_h}, /* std::move and std::forward<T> are the parser's (x itself) */
    {"vector", host_only_h},
    {"vector_types.h", runtime_only_h},
};

#define NHEADERS (sizeof headers / sizeof headers[0])

const char *cvm_fe_header_find(const char *name, size_t len, size_t *out_len)
{
    for (size_t i = 0; i < NHEADERS; i++)
        if (strlen(headers[i].name) == len && memcmp(headers[i].name, name, len) == 0) {
            *out_len = strlen(headers[i].text);
            return headers[i].text;
        }
    return NULL;
}

uint32_t cvm_fe_header_count(void) { return (uint32_t)NHEADERS; }

const char *cvm_fe_header_name(uint32_t i) { return i < NHEADERS ? headers[i].name : NULL; }
