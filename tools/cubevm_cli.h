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
/*
 * Every option of every command that takes a value is read here: argv[*i]
 * is option `opt` followed by its value ("-o OUT", "--kernel NAME"), or a
 * long option written with it ("--kernel=NAME"). 1 with *out set and *i on
 * the last word used; 0 when argv[*i] is not `opt`; -1 after printing
 * "CMD: option OPT needs a value" (no word follows, or "--opt=" is empty).
 */
int cli_opt_value(int argc, char **argv, int *i, const char *cmd, const char *opt,
                  const char **out);
/* "CMD: unknown option 'A'; try 'cubevm --help'"; returns CLI_USAGE. */
int cli_unknown_option(const char *cmd, const char *a);
/* Prints a failed call's diagnostic as one error line (plus a fault record); returns CLI_FAIL. */
int cli_diag_error(const char *context, cvm_status st, const cvm_diag *d);

/* Reads a whole file (malloc'ed, NUL-terminated); prints the error itself. */
bool cli_read_file(const char *path, char **out, size_t *out_size);
/* Writes a whole file; prints the error itself. */
bool cli_write_file(const char *path, const void *data, size_t size);
/* Whether paths a and b name one existing file, however spelled (`./x` and
 * `x`, a link and its target): the same device and inode. */
bool cli_same_file(const char *a, const char *b);
/* CLI_OK, or a usage error when output path out (NULL: stdout) names the
 * same file as input path in (cubevm compile k.cu -o k.cu). */
int cli_distinct_output(const char *cmd, const char *in, const char *out);

/* ---- values (cubevm_values.c) ---- */

const char *cli_elem_name(cvm_elem e);  /* "f32"; "?" if invalid */
unsigned cli_elem_size(cvm_elem e);     /* bytes; 0 if invalid */

/* Strict unsigned parse: decimal or 0x hex, all of `s`, no sign. */
bool cli_parse_u64(const char *s, uint64_t *out);
/* A power of two from 1 to max, as cli_parse_u64 reads it. */
bool cli_parse_pow2(const char *s, uint32_t max, uint32_t *out);
/* Parses text as one value of type `e` into out (cli_elem_size bytes); *why on failure. */
bool cli_parse_value(const char *s, cvm_elem e, void *out, const char **why);
/* The comptime values template instance `name` gives kernels of mod
 * (cvm_kernel_get_instance): v[i] and set[i] for parameter i < n, set[i]
 * false where the name gives none. False when no kernel implements it or
 * memory ran out. */
bool cli_instance_values(const cvm_module *mod, const char *name, int64_t *v, bool *set, uint32_t n);
/* A comptime value v of type e as text: its bits, so a u64 above INT64_MAX
 * (read negative from cvm_kernel_get_instance) prints unsigned. */
void cli_comptime_text(cvm_elem e, int64_t v, char *out, size_t cap);
/* Fills `count` elements of type e with the documented random ranges. */
void cli_fill_random(cvm_elem e, void *data, uint64_t count, uint64_t seed);
/* Prints element i of data (type e) to f. */
void cli_print_elem(FILE *f, cvm_elem e, const void *data, uint64_t i);

/* IEEE conversions for the 16-bit float types (round to nearest even). */
uint16_t cli_f32_to_f16(float x);
float cli_f16_to_f32(uint16_t h);
uint16_t cli_f32_to_bf16(float x);
float cli_bf16_to_f32(uint16_t h);

/* ---- CUDA C sources (cubevm_cuda.c) ---- */

/* Options for cvm_compile_cuda; the arrays point into argv and hold argc entries. */
typedef struct cli_cuda_opts {
    const char **includes, **defines, **kernels;
    uint32_t nincludes, ndefines, nkernels;
    int fmad;
    int no_opt;        /* -O0 */
    int opt_given;     /* -O0 or -O1 was given (cubevm debug compiles at -O0 unless told) */
    char given[24];    /* the first compile option given ("-D", "--fmad", "-O0" ...), or "" */
} cli_cuda_opts;

bool cli_cuda_opts_init(cli_cuda_opts *o, int argc); /* false: out of memory */
void cli_cuda_opts_free(cli_cuda_opts *o);
/* A .cu or .cuh file name. */
bool cli_is_cuda(const char *path);
/*
 * Consumes a compile option at argv[*i] (-I DIR, -IDIR, -D NAME[=VALUE],
 * --fmad=true|false, -O0, -O1): 1 if consumed, 0 if argv[*i] is not one, -1 after
 * printing a usage error (`cmd` names the subcommand).
 */
int cli_cuda_option(cli_cuda_opts *o, int argc, char **argv, int *i, const char *cmd);
/* CLI_OK, or a usage error naming the option when a compile option was
 * given for FILE that is not CUDA C (a .cbs or .cbc module, which it
 * would not change). */
int cli_cuda_opts_check(const cli_cuda_opts *o, const char *cmd, const char *path);
/* Compiles a .cu file to .cbc bytes (cvm_free_bytes); prints a failure as a compiler would. */
int cli_cuda_compile_file(const char *path, const cli_cuda_opts *o, void **out, size_t *out_size);
/* Loads FILE onto dev: .cu/.cuh compiled with `o`, .cbs assembled, else .cbc bytes. */
int cli_load_module(cvm_device *dev, const char *path, const cli_cuda_opts *o, cvm_module **out);

/* ---- subcommands ---- */

int cli_run(int argc, char **argv);     /* argv[0] is "run" */
int cli_debug(int argc, char **argv);   /* argv[0] is "debug" */
/* cubevm_debug.c: the launch under the debugger, its commands read from `in`
 * (a prompt when that is a terminal). CLI_OK with *out_st the launch's
 * status (its record in d) and *out_printed the kernel text already written
 * out; -1 when the user quit before the launch ended; else an exit status. */
int cli_debug_launch(cvm_stream *s, const cvm_kernel *k, const cvm_launch_config *cfg,
                     const cvm_arg *args, uint32_t n, FILE *in, size_t *out_printed,
                     cvm_status *out_st, cvm_diag *d);
int cli_compile(int argc, char **argv); /* argv[0] is "compile" */
int cli_spirv(int argc, char **argv);   /* argv[0] is "spirv" (cubevm_spirv.c) */

#endif /* CUBEVM_CLI_H */
