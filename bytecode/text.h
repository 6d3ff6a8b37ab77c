/*
 * text.h - pieces shared by the assembler and the disassembler (text.c):
 * float bit patterns of every width, literal parsing and canonical
 * printing. Internal to bytecode/.
 */
#ifndef CVM_BC_TEXT_H
#define CVM_BC_TEXT_H

#include "bc.h"

/* Rounds a double to the bit pattern of float type elem (f16, bf16, f32, f64), nearest even. */
uint64_t cvm_bc_float_bits(double v, unsigned elem);
/* The exact value of a bit pattern of float type elem (NaN payloads are not preserved). */
double cvm_bc_float_value(uint64_t bits, unsigned elem);
/*
 * Parses a float literal of n bytes for type elem: decimal, C99 hex float, inf,
 * nan, nan:0xBITS, each with an optional sign. Returns NULL or an error text.
 */
const char *cvm_bc_parse_float(const char *s, size_t n, unsigned elem, uint64_t *out_bits);
/* Parses [+-]decimal or [+-]0xhex into magnitude and sign; NULL or an error text. */
const char *cvm_bc_parse_int(const char *s, size_t n, uint64_t *out_mag, bool *out_neg);
/* Canonical text of a float bit pattern (hex float, inf, -inf, nan:0x...); returns the length. */
int cvm_bc_format_float(char *buf, size_t size, uint64_t bits, unsigned elem);

#endif
