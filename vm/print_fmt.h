/*
 * print_fmt.h - the printf-style formatting of the `print` instruction,
 * shared by the CPU device (vm/interp_plane.c) and the vulkan device's
 * record buffer (backends/vulkan/vk_print.c): one walk over the format
 * string, one conversion of a typed scalar, so both devices print the same
 * text for the same values.
 */
#ifndef CVM_VM_PRINT_FMT_H
#define CVM_VM_PRINT_FMT_H

#include <stddef.h>
#include <stdint.h>

/* Formats argument i with spec (a printf spec without length modifier, the
 * conversion char last, slen chars) into out; returns snprintf's count. */
typedef int (*cvm_print_arg_fn)(void *ctx, size_t i, char *spec, size_t slen, char *out, size_t cap);

/* A print line's bytes at most (longer ones end with CVM_PRINT_CUT), and
 * the largest width or precision a conversion takes (more is taken as
 * this: the host's printf would build the whole field). */
#define CVM_PRINT_LINE_MAX 8192
#define CVM_PRINT_MAX_FIELD 1024
#define CVM_PRINT_CUT " [... print line cut at 8191 bytes]"

/* Formats fmt (flen bytes) into buf (truncated to cap, ending with
 * CVM_PRINT_CUT when cut, NUL-terminated);
 * conversions outside convs print "(bad format)", arguments past nargs
 * "(missing)"; length modifiers are ignored (the argument's type decides).
 * Returns the length written. */
size_t cvm_print_format(const char *fmt, size_t flen, size_t nargs, const char *convs,
                        cvm_print_arg_fn arg, void *ctx, char *buf, size_t cap);

/* One conversion of a scalar (bits b of element type elem) for every
 * conversion but %s: diuxXoc (floats converted to integers), p (the bits),
 * fFeEgGaA (integers converted to double). */
int cvm_print_scalar(unsigned elem, uint64_t b, char *spec, size_t slen, char *out, size_t cap);

/* A float element's bits as a double (exact for every float type). */
double cvm_float_elem_value(unsigned elem, uint64_t b);

#endif
