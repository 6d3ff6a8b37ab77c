/*
 * cubevm_values.c - the command's conversions between text and element
 * values: strict number parsing for scalar arguments and option values,
 * random buffer contents, printing buffer elements, and the f16/bf16
 * conversions (the public API moves those types as raw 16-bit patterns).
 */
#include "cubevm_cli.h"

#include <errno.h>
#include <fenv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    unsigned size;
} elems[] = {
    [CVM_BOOL] = {"bool", 1}, [CVM_I8] = {"i8", 1},   [CVM_I16] = {"i16", 2},
    [CVM_I32] = {"i32", 4},   [CVM_I64] = {"i64", 8}, [CVM_U8] = {"u8", 1},
    [CVM_U16] = {"u16", 2},   [CVM_U32] = {"u32", 4}, [CVM_U64] = {"u64", 8},
    [CVM_F16] = {"f16", 2},   [CVM_BF16] = {"bf16", 2}, [CVM_F32] = {"f32", 4},
    [CVM_F64] = {"f64", 8},
};

static bool elem_valid(cvm_elem e)
{
    return (unsigned)e < sizeof elems / sizeof elems[0] && elems[e].name;
}

const char *cli_elem_name(cvm_elem e) { return elem_valid(e) ? elems[e].name : "?"; }
unsigned cli_elem_size(cvm_elem e) { return elem_valid(e) ? elems[e].size : 0; }

static bool is_signed(cvm_elem e) { return e >= CVM_I8 && e <= CVM_I64; }
static bool is_unsigned(cvm_elem e) { return e >= CVM_U8 && e <= CVM_U64; }
static bool is_float(cvm_elem e) { return e >= CVM_F16 && e <= CVM_F64; }

/* ---- 16-bit floats ---- */

static uint32_t f32_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}

static float bits_f32(uint32_t u)
{
    float x;
    memcpy(&x, &u, 4);
    return x;
}

uint16_t cli_f32_to_bf16(float x)
{
    uint32_t u = f32_bits(x);
    if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN: keep it quiet and a NaN */
        return (uint16_t)((u >> 16) | 0x40);
    u += 0x7fffu + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}

float cli_bf16_to_f32(uint16_t h) { return bits_f32((uint32_t)h << 16); }

uint16_t cli_f32_to_f16(float x)
{
    uint32_t u = f32_bits(x);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
    uint32_t absu = u & 0x7fffffffu;
    if (absu > 0x7f800000u)
        return sign | 0x7e00;
    if (absu >= 0x477ff000u) /* rounds to >= 65520: infinity */
        return sign | 0x7c00;
    int exp = (int)(absu >> 23) - 127;
    uint32_t mant = (absu & 0x7fffffu) | 0x800000u;
    if (absu < 0x33000000u) /* below half the smallest subnormal */
        return sign;
    /* Keep 11 significant bits (fewer for subnormals), rounding to nearest even. */
    int shift = exp < -14 ? 13 + (-14 - exp) : 13;
    uint32_t kept = mant >> shift, rest = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rest > half || (rest == half && (kept & 1)))
        kept++;
    if (exp < -14)
        return sign | (uint16_t)kept; /* a carry into bit 10 makes the smallest normal */
    return sign | (uint16_t)((((uint32_t)(exp + 15)) << 10) + (kept - 0x400u));
}

float cli_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    if (exp == 31)
        return bits_f32(sign | 0x7f800000u | (mant << 13));
    if (exp == 0) {
        float v = ldexpf((float)mant, -24);
        return sign ? -v : v;
    }
    return bits_f32(sign | ((exp + 112) << 23) | (mant << 13));
}

/* ---- parsing ---- */

bool cli_parse_u64(const char *s, uint64_t *out)
{
    int base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    if (!*s || !(base == 16 ? (strchr("0123456789abcdefABCDEF", *s) != NULL) : (*s >= '0' && *s <= '9')))
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, base);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

bool cli_parse_pow2(const char *s, uint32_t max, uint32_t *out)
{
    uint64_t v = 0;
    if (!cli_parse_u64(s, &v) || v < 1 || v > max || (v & (v - 1)))
        return false;
    *out = (uint32_t)v;
    return true;
}

static bool parse_int(const char *s, cvm_elem e, void *out, const char **why)
{
    bool neg = s[0] == '-';
    uint64_t mag;
    errno = 0;
    if (!cli_parse_u64(s + (neg || s[0] == '+'), &mag)) {
        /* the digits of a number past 2^64 - 1: ERANGE */
        *why = errno == ERANGE ? "out of range for the type" : "not an integer (decimal or 0x hex)";
        return false;
    }
    unsigned bits = 8 * cli_elem_size(e);
    if (is_unsigned(e)) {
        if (neg && mag) {
            *why = "negative value for an unsigned type";
            return false;
        }
        if (bits < 64 && mag >> bits) {
            *why = "out of range for the type";
            return false;
        }
    } else {
        uint64_t lim = (uint64_t)1 << (bits - 1); /* |min|; max is lim - 1 */
        if (mag > lim || (!neg && mag == lim)) {
            *why = "out of range for the type";
            return false;
        }
        if (neg)
            mag = (uint64_t)0 - mag;
    }
    /* Little-endian truncation to the type's width is the two's-complement value. */
    uint8_t b[8];
    for (unsigned i = 0; i < 8; i++)
        b[i] = (uint8_t)(mag >> (8 * i));
    memcpy(out, b, bits / 8);
    return true;
}

/* The decimal or hex text s as an f32 rounded to odd: toward zero, with
 * the lowest bit set when the text is not exactly that value. Rounding
 * that to a narrower type (11 or 8 significant bits) once more is correct
 * rounding of the text, where going through a double would round twice. */
static float strtof_odd(const char *s)
{
    int mode = fegetround();
    fesetround(FE_UPWARD);
    float up = strtof(s, NULL);
    fesetround(FE_DOWNWARD);
    float down = strtof(s, NULL);
    fesetround(FE_TOWARDZERO);
    float f = strtof(s, NULL);
    fesetround(mode);
    if (up != down && isfinite(f)) {
        uint32_t b;
        memcpy(&b, &f, 4);
        b |= 1;
        memcpy(&f, &b, 4);
    }
    return f;
}

bool cli_parse_value(const char *s, cvm_elem e, void *out, const char **why)
{
    *why = "";
    if (e == CVM_BOOL) {
        if (!strcmp(s, "true") || !strcmp(s, "1"))
            *(uint8_t *)out = 1;
        else if (!strcmp(s, "false") || !strcmp(s, "0"))
            *(uint8_t *)out = 0;
        else {
            *why = "expected true, false, 1 or 0";
            return false;
        }
        return true;
    }
    if (is_signed(e) || is_unsigned(e))
        return parse_int(s, e, out, why);
    if (!is_float(e)) {
        *why = "unsupported type";
        return false;
    }
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (!*s || *end || end == s) {
        *why = "not a number";
        return false;
    }
    /* a finite number too large for the type is an error (inf, nan and
     * numbers that round to zero are values) */
    bool overflow = isinf(v) && errno == ERANGE;
    if (e == CVM_F64) {
        memcpy(out, &v, 8);
    } else {
        /* the text rounded once: to f32 directly; to f16 or bf16 through f32
         * rounded to odd (toward zero, the lowest bit set when inexact) */
        float f = e == CVM_F32 ? strtof(s, NULL) : strtof_odd(s);
        uint16_t h;
        overflow = overflow || (isfinite(v) && isinf(f));
        switch (e) {
        case CVM_F32: memcpy(out, &f, 4); break;
        case CVM_F16:
            h = cli_f32_to_f16(f);
            overflow = overflow || (isfinite(v) && (h & 0x7fff) == 0x7c00);
            memcpy(out, &h, 2);
            break;
        default:
            h = cli_f32_to_bf16(f);
            overflow = overflow || (isfinite(v) && (h & 0x7fff) == 0x7f80);
            memcpy(out, &h, 2);
            break;
        }
    }
    if (overflow) {
        *why = "out of range for the type";
        return false;
    }
    return true;
}

/* ---- random contents ---- */

static uint64_t splitmix(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/*
 * Ranges (docs/cli.md): floats uniform in [-1, 1) on a 2^-23 grid (exact in
 * every float type before rounding to f16/bf16), signed integers uniform in
 * [-100, 100], unsigned integers in [0, 100], bools 0 or 1.
 */
void cli_fill_random(cvm_elem e, void *data, uint64_t count, uint64_t seed)
{
    uint64_t state = seed;
    unsigned size = cli_elem_size(e);
    uint8_t *p = data;
    for (uint64_t i = 0; i < count; i++, p += size) {
        uint64_t r = splitmix(&state);
        if (is_float(e)) {
            double v = (double)(r >> 40) * 0x1p-23 - 1.0;
            float f = (float)v;
            uint16_t h;
            if (e == CVM_F64) memcpy(p, &v, 8);
            else if (e == CVM_F32) memcpy(p, &f, 4);
            else if (e == CVM_F16) { h = cli_f32_to_f16(f); memcpy(p, &h, 2); }
            else { h = cli_f32_to_bf16(f); memcpy(p, &h, 2); }
        } else {
            int64_t v = e == CVM_BOOL ? (int64_t)(r & 1)
                        : is_signed(e) ? (int64_t)(r % 201) - 100 : (int64_t)(r % 101);
            uint64_t u = (uint64_t)v;
            for (unsigned k = 0; k < size; k++)
                p[k] = (uint8_t)(u >> (8 * k));
        }
    }
}

/* ---- printing ---- */

void cli_print_elem(FILE *f, cvm_elem e, const void *data, uint64_t i)
{
    const uint8_t *p = (const uint8_t *)data + i * cli_elem_size(e);
    uint64_t u = 0;
    for (unsigned k = 0; k < cli_elem_size(e); k++)
        u |= (uint64_t)p[k] << (8 * k);
    switch (e) {
    case CVM_BOOL: fprintf(f, "%s", u ? "true" : "false"); break;
    case CVM_I8: fprintf(f, "%d", (int)(int8_t)u); break;
    case CVM_I16: fprintf(f, "%d", (int)(int16_t)u); break;
    case CVM_I32: fprintf(f, "%ld", (long)(int32_t)u); break;
    case CVM_I64: fprintf(f, "%lld", (long long)(int64_t)u); break;
    case CVM_U8: case CVM_U16: case CVM_U32: case CVM_U64:
        fprintf(f, "%llu", (unsigned long long)u);
        break;
    case CVM_F16: fprintf(f, "%.5g", (double)cli_f16_to_f32((uint16_t)u)); break;
    case CVM_BF16: fprintf(f, "%.4g", (double)cli_bf16_to_f32((uint16_t)u)); break;
    case CVM_F32: fprintf(f, "%.9g", (double)bits_f32((uint32_t)u)); break;
    case CVM_F64: {
        double d;
        memcpy(&d, &u, 8);
        fprintf(f, "%.17g", d);
        break;
    }
    }
}

bool cli_instance_values(const cvm_module *mod, const char *name, int64_t *v, bool *set, uint32_t n)
{
    /* asked twice, with two fillers: an entry the instance sets is the same in
     * both (any int64 may be a value: 0x8000000000000000 is INT64_MIN) */
    int64_t *w = malloc((n ? n : 1) * sizeof *w);
    const cvm_kernel *k = NULL;
    bool ok = w != NULL;
    for (uint32_t j = 0; ok && j < n; j++)
        v[j] = INT64_MIN, w[j] = INT64_MAX;
    ok = ok && cvm_kernel_get_instance(mod, name, &k, v, n, NULL) == CVM_OK &&
         cvm_kernel_get_instance(mod, name, &k, w, n, NULL) == CVM_OK;
    for (uint32_t j = 0; j < n; j++)
        set[j] = ok && v[j] == w[j];
    free(w);
    return ok;
}

void cli_comptime_text(cvm_elem e, int64_t v, char *out, size_t cap)
{
    if (e == CVM_U64)
        snprintf(out, cap, "%llu", (unsigned long long)v);
    else
        snprintf(out, cap, "%lld", (long long)v);
}
