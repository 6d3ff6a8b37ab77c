/*
 * text.c - literal handling shared by asm.c and disasm.c: exact conversion
 * between doubles and the bit patterns of f16, bf16, f32 and f64, the
 * float and integer literal grammar of docs/asm.md, and the canonical float
 * spelling (C99 hex floats, inf, nan:0x... with the exact bits), which is
 * what makes float immediates round-trip bit for bit.
 */
#include "text.h"
#include "c_numbers.h"

#include <errno.h>
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fgeom {
    unsigned width, ebits, mbits;
} fgeom;

static fgeom geom(unsigned elem)
{
    switch (elem) {
    case CVM_T_F16: return (fgeom){16, 5, 10};
    case CVM_T_BF16: return (fgeom){16, 8, 7};
    case CVM_T_F32: return (fgeom){32, 8, 23};
    default: return (fgeom){64, 11, 52};
    }
}

static unsigned bitlen(uint64_t x)
{
    unsigned n = 0;
    while (x) {
        n++;
        x >>= 1;
    }
    return n;
}

uint64_t cvm_bc_float_bits(double v, unsigned elem)
{
    fgeom g = geom(elem);
    uint64_t d;
    memcpy(&d, &v, 8);
    if (g.width == 64)
        return d;
    uint64_t sign = (d >> 63) << (g.width - 1);
    uint64_t expmask = ((uint64_t)1 << g.ebits) - 1;
    unsigned dexp = (unsigned)(d >> 52) & 0x7ff;
    uint64_t dman = d & (((uint64_t)1 << 52) - 1);
    if (dexp == 0x7ff) /* inf stays inf; a NaN keeps its top payload bits and stays quiet */
        return sign | expmask << g.mbits | (dman ? ((uint64_t)1 << (g.mbits - 1)) | (dman >> (52 - g.mbits)) : 0);
    /* value = M * 2^X exactly */
    uint64_t M = dexp ? dman | (uint64_t)1 << 52 : dman;
    int X = dexp ? (int)dexp - 1075 : -1074;
    if (M == 0)
        return sign;
    int bias = (int)expmask >> 1, emin = 1 - bias;
    int E = X + (int)bitlen(M) - 1;
    int q = (E > emin ? E : emin) - (int)g.mbits; /* exponent of the last significand bit */
    if (E > bias)
        return sign | expmask << g.mbits;
    uint64_t N;
    if (X >= q) {
        N = M << (X - q);
    } else {
        int sh = q - X;
        if (sh > 63) {
            N = 0;
        } else {
            N = M >> sh;
            uint64_t rem = M & (((uint64_t)1 << sh) - 1), half = (uint64_t)1 << (sh - 1);
            if (rem > half || (rem == half && (N & 1)))
                N++;
        }
    }
    if (N >> (g.mbits + 1)) { /* rounding carried into a new binade */
        N >>= 1;
        q++;
    }
    if (q + (int)g.mbits + bias >= (int)expmask)
        return sign | expmask << g.mbits;
    if (N == 0)
        return sign;
    /* Also right for subnormals: there q + mbits + bias == 1 and N < 2^mbits. */
    return sign | ((((uint64_t)(q + (int)g.mbits + bias)) << g.mbits) + N - ((uint64_t)1 << g.mbits));
}

double cvm_bc_float_value(uint64_t bits, unsigned elem)
{
    fgeom g = geom(elem);
    if (g.width == 64) {
        double v;
        memcpy(&v, &bits, 8);
        return v;
    }
    uint64_t expmask = ((uint64_t)1 << g.ebits) - 1;
    int bias = (int)expmask >> 1;
    bool neg = (bits >> (g.width - 1)) & 1;
    unsigned e = (unsigned)(bits >> g.mbits) & (unsigned)expmask;
    uint64_t man = bits & (((uint64_t)1 << g.mbits) - 1);
    double v;
    if (e == expmask)
        v = man ? NAN : INFINITY;
    else if (e == 0)
        v = ldexp((double)man, 1 - bias - (int)g.mbits);
    else
        v = ldexp((double)(man | (uint64_t)1 << g.mbits), (int)e - bias - (int)g.mbits);
    return neg ? -v : v;
}

int cvm_bc_format_float(char *buf, size_t size, uint64_t bits, unsigned elem)
{
    fgeom g = geom(elem);
    uint64_t expmask = ((uint64_t)1 << g.ebits) - 1;
    int bias = (int)expmask >> 1;
    bool neg = (bits >> (g.width - 1)) & 1;
    unsigned e = (unsigned)(bits >> g.mbits) & (unsigned)expmask;
    uint64_t man = bits & (((uint64_t)1 << g.mbits) - 1);
    const char *sg = neg ? "-" : "";
    if (e == expmask && man)
        return snprintf(buf, size, "nan:0x%0*llx", (int)g.width / 4, (unsigned long long)bits);
    if (e == expmask)
        return snprintf(buf, size, "%sinf", sg);
    if (e == 0 && man == 0)
        return snprintf(buf, size, "%s0x0p+0", sg);
    int E = (int)e - bias;
    if (e == 0) { /* subnormal: normalize, the value is exact either way */
        E = 1 - bias;
        while (!(man >> g.mbits)) {
            man <<= 1;
            E--;
        }
        man &= ((uint64_t)1 << g.mbits) - 1;
    }
    unsigned pad = (4 - g.mbits % 4) % 4, digits = (g.mbits + pad) / 4;
    man <<= pad;
    while (digits && !(man & 0xf)) {
        man >>= 4;
        digits--;
    }
    if (!digits)
        return snprintf(buf, size, "%s0x1p%+d", sg, E);
    return snprintf(buf, size, "%s0x1.%0*llxp%+d", sg, (int)digits, (unsigned long long)man, E);
}

const char *cvm_bc_parse_int(const char *s, size_t n, uint64_t *out_mag, bool *out_neg)
{
    size_t i = 0;
    bool neg = false;
    uint64_t v = 0;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    unsigned base = 10;
    if (n - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        base = 16;
        i += 2;
    }
    if (i == n)
        return "expected an integer";
    for (; i < n; i++) {
        unsigned d;
        char c = s[i];
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (base == 16 && c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (base == 16 && c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            return "bad integer literal";
        if (v > (UINT64_MAX - d) / base)
            return "integer literal does not fit in 64 bits";
        v = v * base + d;
    }
    *out_mag = v;
    *out_neg = neg;
    return NULL;
}

static bool word_is(const char *s, size_t n, const char *w)
{
    return strlen(w) == n && memcmp(s, w, n) == 0;
}
const char *cvm_bc_parse_float(const char *s, size_t n, unsigned elem, uint64_t *out_bits)
{
    fgeom g = geom(elem);
    uint64_t signbit = (uint64_t)1 << (g.width - 1), expmask = ((uint64_t)1 << g.ebits) - 1;
    size_t i = 0;
    bool neg = false;
    if (n && (s[0] == '-' || s[0] == '+')) {
        neg = s[0] == '-';
        i = 1;
    }
    const char *b = s + i;
    size_t m = n - i;
    if (word_is(b, m, "inf")) {
        *out_bits = (neg ? signbit : 0) | expmask << g.mbits;
        return NULL;
    }
    if (word_is(b, m, "nan")) {
        *out_bits = (neg ? signbit : 0) | expmask << g.mbits | (uint64_t)1 << (g.mbits - 1);
        return NULL;
    }
    if (m >= 4 && memcmp(b, "nan:", 4) == 0) {
        uint64_t v;
        bool vneg;
        if (cvm_bc_parse_int(b + 4, m - 4, &v, &vneg) || vneg || m < 7 || b[5] != 'x')
            return "expected nan:0xBITS";
        if (g.width < 64 && v >> g.width)
            return "NaN bits do not fit the type";
        if (((v >> g.mbits) & expmask) != expmask || !(v & (((uint64_t)1 << g.mbits) - 1)))
            return "nan:0x... bits are not a NaN of this type";
        *out_bits = v | (neg ? signbit : 0);
        return NULL;
    }
    /* Check the shape ourselves: strtod would also accept "infinity", "1e", leading spaces... */
    bool hex = m > 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X');
    size_t j = hex ? 2 : 0, digits = 0;
    for (; j < m && (hex ? !!strchr("0123456789abcdefABCDEF", b[j]) : (b[j] >= '0' && b[j] <= '9')); j++)
        digits++;
    if (j < m && b[j] == '.')
        for (j++; j < m && (hex ? !!strchr("0123456789abcdefABCDEF", b[j]) : (b[j] >= '0' && b[j] <= '9')); j++)
            digits++;
    if (digits && j < m && (hex ? (b[j] == 'p' || b[j] == 'P') : (b[j] == 'e' || b[j] == 'E'))) {
        j++;
        if (j < m && (b[j] == '+' || b[j] == '-'))
            j++;
        size_t e0 = j;
        while (j < m && b[j] >= '0' && b[j] <= '9')
            j++;
        if (j == e0)
            digits = 0;
    }
    if (!digits || j != m || m > 200)
        return "bad float literal";
    char tmp[210];
    memcpy(tmp, s, n);
    tmp[n] = 0;
    errno = 0;
    /* strtod reads the '.' only in the C locale: this thread's for the call,
     * whatever the host set with setlocale (1.5 was read as 1 under de_DE) */
    locale_t before = cvm_bc_c_numbers_enter();
    if (elem == CVM_T_F32) {
        float f = strtof(tmp, NULL);
        uint32_t u;
        memcpy(&u, &f, 4);
        *out_bits = u;
    } else if (elem == CVM_T_F64) {
        *out_bits = cvm_bc_float_bits(strtod(tmp, NULL), elem);
    } else {
        /* f16, bf16: through f32 rounded to odd (toward zero, the lowest bit
         * set when inexact), then rounded once more: correct rounding of the
         * text, where a double in between would round twice (tools/cubevm_values.c
         * does the same for command-line values) */
        int mode = fegetround();
        fesetround(FE_UPWARD);
        float up = strtof(tmp, NULL);
        fesetround(FE_DOWNWARD);
        float down = strtof(tmp, NULL);
        fesetround(FE_TOWARDZERO);
        float f = strtof(tmp, NULL);
        fesetround(mode);
        uint32_t u;
        memcpy(&u, &f, 4);
        if (up != down && isfinite(f))
            memcpy(&f, &(uint32_t){u | 1}, 4);
        *out_bits = cvm_bc_float_bits(f, elem);
    }
    cvm_bc_c_numbers_leave(before);
    return NULL;
}
