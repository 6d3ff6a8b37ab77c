/*
 * cubevm_cli.h - pieces shared by the files of the `cubevm` command
 * (tools/cubevm.c: entry point and the bytecode subcommands;
 * tools/cubevm_run.c: `run`; tools/cubevm_values.c: parsing and printing
 * values). The command uses the public API of vm/cubevm.h only.
 */
#ifndef CUBEVM_CLI_H
#define CUBEVM_CLI_H

#include "../vm/cubevm.h"

#include <stdbool.h>
#include <stdio.h>

/* Exit statuses. */
#define CLI_OK 0
#define CLI_FAIL 1  /* the operation failed: bad input file, kernel fault, I/O */
#define CLI_USAGE 2 /* the command line is wrong */

#if defined(__GNUC__)
#define CLI_FMT(a, b) __attribute__((format(printf, a, b)))
#else
#define CLI_FMT(a, b)
#endif

/* Prints "cubevm: error: ..." to stderr; returns `code`. */
CLI_FMT(2, 3) int cli_error(int code, const char *fmt, ...);
/* Prints a failed call's diagnostic as one error line (plus a fault record); returns CLI_FAIL. */
int cli_diag_error(const char *context, cvm_status st, const cvm_diag *d);

/* Reads a whole file (malloc'ed, NUL-terminated); prints the error itself. */
bool cli_read_file(const char *path, char **out, size_t *out_size);

/* ---- values (cubevm_values.c) ---- */

const char *cli_elem_name(cvm_elem e);  /* "f32"; "?" if invalid */
unsigned cli_elem_size(cvm_elem e);     /* bytes; 0 if invalid */

/* Strict unsigned parse: decimal or 0x hex, all of `s`, no sign. */
bool cli_parse_u64(const char *s, uint64_t *out);
/* Parses text as one value of type `e` into out (cli_elem_size bytes); *why on failure. */
bool cli_parse_value(const char *s, cvm_elem e, void *out, const char **why);
/* Fills `count` elements of type e with the documented random ranges. */
void cli_fill_random(cvm_elem e, void *data, uint64_t count, uint64_t seed);
/* Prints element i of data (type e) to f. */
void cli_print_elem(FILE *f, cvm_elem e, const void *data, uint64_t i);

/* IEEE conversions for the 16-bit float types (round to nearest even). */
uint16_t cli_f32_to_f16(float x);
float cli_f16_to_f32(uint16_t h);
uint16_t cli_f32_to_bf16(float x);
float cli_bf16_to_f32(uint16_t h);

/* ---- subcommands ---- */

int cli_run(int argc, char **argv); /* argv[0] is "run" */

#endif /* CUBEVM_CLI_H */
