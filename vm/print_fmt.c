/*
 * print_fmt.c - printf-style formatting of the `print` instruction for the
 * CPU and vulkan devices (print_fmt.h).
 */
#include "print_fmt.h"

#include "../bytecode/bc.h"
#include "../bytecode/c_numbers.h"
#include "numerics.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

double cvm_float_elem_value(unsigned elem, uint64_t b)
{
    switch (elem) {
    case CVM_T_F16: return cvm_n_f16_to_f64((uint16_t)b);
    case CVM_T_BF16: return cvm_n_bf16_to_f64((uint16_t)b);
    case CVM_T_F32: return (double)cvm_n_f32_from((uint32_t)b);
    default: return cvm_n_f64_from(b);
    }
}

/* The integer value of bits b of type elem (signed types sign-extended). */
static int64_t int_of(unsigned elem, uint64_t b)
{
    unsigned bits = cvm_bc_elem_size(elem) * 8;
    if (bits >= 64 || !cvm_bc_elem_is_signed(elem))
        return (int64_t)b;
    uint64_t m = UINT64_C(1) << (bits - 1);
    b &= (m << 1) - 1;
    return (int64_t)((b ^ m) - m);
}

int cvm_print_scalar(unsigned elem, uint64_t b, char *spec, size_t slen, char *out, size_t cap)
{
    char conv = spec[slen - 1], f[40];
    bool flt = cvm_bc_elem_is_float(elem);
    int64_t sv = flt ? cvm_n_f64_to_sint(cvm_float_elem_value(elem, b), 64) : int_of(elem, b);
    uint64_t uv = flt ? (uint64_t)sv : b;
    spec[slen - 1] = '\0';
    if (slen > 2 && (spec[slen - 2] == 'h' || spec[slen - 2] == 'H')) { /* %hhd, %hu: narrowed */
        const bool c8 = spec[slen - 2] == 'H';
        spec[slen - 2] = '\0';
        if (!flt) {
            sv = c8 ? (int64_t)(int8_t)uv : (int64_t)(int16_t)uv;
            uv = c8 ? (uint8_t)uv : (uint16_t)uv;
        }
    }
    switch (conv) {
    case 'd': case 'i':
        snprintf(f, sizeof f, "%s%s", spec, PRId64);
        return snprintf(out, cap, f, sv);
    case 'u': case 'x': case 'X': case 'o':
        snprintf(f, sizeof f, "%s%s", spec,
                 conv == 'u' ? PRIu64 : conv == 'o' ? PRIo64 : conv == 'x' ? PRIx64 : PRIX64);
        return snprintf(out, cap, f, uv);
    case 'c':
        snprintf(f, sizeof f, "%sc", spec);
        return snprintf(out, cap, f, (int)(unsigned char)uv);
    case 'p':
        return snprintf(out, cap, "0x%" PRIx64, b);
    default: { /* f F e E g G a A */
        double v = flt ? cvm_float_elem_value(elem, b) : cvm_bc_elem_is_signed(elem) ? (double)sv : (double)uv;
        snprintf(f, sizeof f, "%s%c", spec, conv);
        return snprintf(out, cap, f, v);
    }
    }
}

/* spec[0, s) ("%-08.3", flags, width, precision): a width or precision past
 * CVM_PRINT_MAX_FIELD is taken as CVM_PRINT_MAX_FIELD (the host's printf
 * would build the whole field, %.2147483647f a 2 GB one). Returns the new
 * length. */
static size_t clamp_spec(char *spec, size_t s)
{
    char out[32];
    size_t o = 0, i = 0;
    while (i < s && o + 12 < sizeof out) {
        if (spec[i] < '1' || spec[i] > '9') { /* '%', flags (0 among them), '.' */
            out[o++] = spec[i++];
            continue;
        }
        unsigned long v = 0;
        while (i < s && spec[i] >= '0' && spec[i] <= '9') {
            v = v * 10 + (unsigned long)(spec[i++] - '0');
            if (v > CVM_PRINT_MAX_FIELD)
                v = CVM_PRINT_MAX_FIELD;
        }
        o += (size_t)snprintf(out + o, sizeof out - o, "%lu", v);
    }
    memcpy(spec, out, o);
    return o;
}

static size_t format(const char *fmt, size_t flen, size_t nargs, const char *convs, cvm_print_arg_fn arg,
                     void *ctx, char *buf, size_t cap)
{
    size_t n = 0, next = 0;
    size_t i = 0;
    bool over = false; /* a conversion's text did not fit */
    while (i < flen && n + 1 < cap) {
        if (fmt[i] != '%') {
            buf[n++] = fmt[i++];
            continue;
        }
        char spec[32];
        size_t s = 0, j = i + 1;
        spec[s++] = '%';
        /* flags, then a width, then '.' and a precision, as C orders them: a
         * flag after the width or '.' ends the spec ("%.-5d" is a bad
         * format, not a spec for the host's printf) */
        int part = 0; /* 0 flags, 1 width, 2 precision */
        while (j < flen && s < 20) {
            const char ch = fmt[j];
            if (part == 0 && ch && strchr("-+ #0", ch)) {
                spec[s++] = fmt[j++];
                continue;
            }
            if (ch == '.' && part < 2) {
                part = 2;
                spec[s++] = fmt[j++];
                continue;
            }
            if (!((ch >= '0' && ch <= '9') || ch == '*'))
                break;
            part = part < 1 ? 1 : part;
            if (ch != '*') {
                spec[s++] = fmt[j++];
                continue;
            }
            /* a * width or precision is the next argument, as an int; a negative
             * precision counts as none (C11 7.21.6.1) */
            char num[24] = "0", d[4] = "%d";
            if (next < nargs && strchr(convs, 'd') && arg(ctx, next, d, 2, num, sizeof num) > 0)
                next++;
            if (num[0] == '-' && s > 1 && spec[s - 1] == '.')
                s--;
            else
                for (const char *q = num; *q && s < 20; q++)
                    spec[s++] = *q;
            j++;
        }
        s = clamp_spec(spec, s);
        /* the argument's type decides the width, but hh and h narrow an
         * integer to char and short first, as C's printf converts it */
        unsigned hs = 0;
        while (j < flen && strchr("hlLqjzt", fmt[j]))
            hs += fmt[j++] == 'h';
        if (hs && s < 28) /* kept for cvm_print_scalar, which takes them off */
            spec[s++] = hs > 1 ? 'H' : 'h';
        if (j >= flen) { /* a spec the format ends inside: dropped, not a cut line */
            i = flen;
            break;
        }
        char conv = fmt[j];
        i = j + 1;
        if (conv == '%') {
            buf[n++] = '%';
            continue;
        }
        int w;
        if (!strchr(convs, conv) || next >= nargs) {
            w = snprintf(buf + n, cap - n, "%s", next >= nargs ? "(missing)" : "(bad format)");
        } else {
            spec[s++] = conv;
            spec[s] = '\0';
            w = arg(ctx, next++, spec, s, buf + n, cap - n);
        }
        n += w > 0 ? (size_t)w : 0;
        if (n >= cap) {
            n = cap - 1;
            over = true;
        }
    }
    const size_t cut = sizeof CVM_PRINT_CUT - 1;
    if ((over || i < flen) && cap > cut + 1) { /* the rest of the line did not fit */
        memcpy(buf + cap - 1 - cut, CVM_PRINT_CUT, cut);
        n = cap - 1;
    }
    buf[n] = '\0';
    return n;
}

size_t cvm_print_format(const char *fmt, size_t flen, size_t nargs, const char *convs,
                        cvm_print_arg_fn arg, void *ctx, char *buf, size_t cap)
{
    if (cap == 0)
        return 0;
    /* a kernel's %f prints 1.5 as a GPU does, whatever LC_NUMERIC the host
     * set with setlocale (de_DE's "1,5"): the C locale, this thread's for
     * the call */
    locale_t before = cvm_bc_c_numbers_enter();
    size_t n = format(fmt, flen, nargs, convs, arg, ctx, buf, cap);
    cvm_bc_c_numbers_leave(before);
    return n;
}
