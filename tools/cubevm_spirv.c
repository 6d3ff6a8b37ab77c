/*
 * cubevm_spirv.c - `cubevm spirv FILE [--kernel NAME] [-o OUT.spv]
 * [--subgroup-size N] [--plane-width N] [CUDA OPTIONS]`: one kernel of a
 * .cbc, .cbs or .cu file as the SPIR-V module the vulkan device would run
 * (cvm_spirv_compile; docs/backends.md "Reading emitted SPIR-V").
 */
#include "cubevm_cli.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void spirv_usage(void)
{
    cli_error(CLI_USAGE, "usage: cubevm spirv FILE [--kernel NAME] [-o OUT.spv] "
                         "[--subgroup-size N] [--plane-width N] [CUDA OPTIONS]");
}

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* FILE as .cbc bytes: compiled or assembled (cvm_free_bytes), or read as is (*raw: free). */
static int load_bytes(const char *path, const cli_cuda_opts *o, void **out, size_t *out_size,
                      bool *raw)
{
    *raw = false;
    if (cli_is_cuda(path))
        return cli_cuda_compile_file(path, o, out, out_size);
    char *text = NULL;
    size_t len = 0;
    if (!cli_read_file(path, &text, &len))
        return CLI_FAIL;
    if (!has_suffix(path, ".cbs")) {
        *out = text;
        *out_size = len;
        *raw = true;
        return CLI_OK;
    }
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_status st = cvm_assemble(text, len, path, out, out_size, &d);
    free(text);
    return st ? cli_diag_error(path, st, &d) : CLI_OK;
}

static bool parse_width(const char *s, const char *opt, uint32_t *out)
{
    if (!cli_parse_pow2(s, 128, out)) {
        cli_error(CLI_USAGE, "spirv: %s '%s': expected a power of two from 1 to 128", opt, s);
        return false;
    }
    return true;
}

/* cli_opt_value for an option that takes one value: a second one is a
 * usage error, not a silent replacement of the first. */
static int take_once(int argc, char **argv, int *i, const char *opt, const char **slot)
{
    const char *v;
    const int r = cli_opt_value(argc, argv, i, "spirv", opt, &v);
    if (r > 0 && *slot) {
        cli_error(CLI_USAGE, "spirv: %s is given more than once", opt);
        return -1;
    }
    if (r > 0)
        *slot = v;
    return r;
}

/* Parses the command line into opts; returns CLI_OK or the exit status of a usage error. */
static int parse_args(int argc, char **argv, cli_cuda_opts *o, cvm_spirv_options *so,
                      const char **in, const char **out, const char **kernel)
{
    const char *subgroup = NULL, *width = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = cli_cuda_option(o, argc, argv, &i, "spirv");
        if (r == 0 && (r = take_once(argc, argv, &i, "-o", out)) == 0 &&
            (r = take_once(argc, argv, &i, "--kernel", kernel)) == 0 &&
            (r = take_once(argc, argv, &i, "--subgroup-size", &subgroup)) == 0 &&
            (r = take_once(argc, argv, &i, "--plane-width", &width)) == 0) {
            if (a[0] == '-' && a[1])
                return cli_unknown_option("spirv", a);
            if (*in)
                return cli_error(CLI_USAGE, "spirv: unexpected argument '%s'", a);
            *in = a;
        }
        if (r < 0)
            return CLI_USAGE;
    }
    if ((subgroup && !parse_width(subgroup, "--subgroup-size", &so->subgroup_size)) ||
        (width && !parse_width(width, "--plane-width", &so->plane_width)))
        return CLI_USAGE;
    if (!*in) {
        spirv_usage();
        return CLI_USAGE;
    }
    if (cli_cuda_opts_check(o, "spirv", *in))
        return CLI_USAGE;
    if (*kernel) /* a template instance of a .cu file is compiled only when named */
        o->kernels[o->nkernels++] = *kernel;
    return CLI_OK;
}

int cli_spirv(int argc, char **argv)
{
    cli_cuda_opts o;
    cvm_spirv_options so;
    const char *in = NULL, *out = NULL, *kernel = NULL;
    memset(&so, 0, sizeof so);
    if (!cli_cuda_opts_init(&o, argc + 1))
        return cli_error(CLI_FAIL, "out of memory");
    void *bytes = NULL, *words = NULL;
    size_t size = 0, nbytes = 0;
    bool raw = false;
    int rc = parse_args(argc, argv, &o, &so, &in, &out, &kernel);
    if (rc || (rc = cli_distinct_output("spirv", in, out)))
        goto done;
    if (!out && isatty(STDOUT_FILENO)) {
        rc = cli_error(CLI_USAGE, "spirv: not writing binary SPIR-V to a terminal; use -o OUT.spv "
                                  "(or pipe into 'spirv-dis -')");
        goto done;
    }
    if ((rc = load_bytes(in, &o, &bytes, &size, &raw)))
        goto done;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_status st = cvm_spirv_compile(bytes, size, kernel, &so, &words, &nbytes, &d);
    if (st) {
        rc = cli_diag_error(in, st, &d);
        /* no --kernel for a module of several, or no such kernel: the command line */
        if ((st == CVM_INVALID_ARGUMENT && !kernel) || st == CVM_NOT_FOUND)
            rc = CLI_USAGE;
        goto done;
    }
    if (out) {
        rc = cli_write_file(out, words, nbytes) ? CLI_OK : CLI_FAIL;
    } else {
        fwrite(words, 1, nbytes, stdout); /* main checks stdout */
    }
done:
    cvm_free_bytes(words);
    if (raw)
        free(bytes);
    else
        cvm_free_bytes(bytes);
    cli_cuda_opts_free(&o);
    return rc;
}
