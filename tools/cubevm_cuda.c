/*
 * cubevm_cuda.c - the CUDA C side of the `cubevm` command: the compile
 * options shared by `compile`, `run` and `info` (-I, -D, --fmad, -O0), compiling
 * a .cu file through cvm_compile_cuda with its diagnostic and warnings
 * printed as a compiler prints them (file:line:col, the source line, a
 * caret), and the
 * `compile` subcommand itself.
 */
#include "cubevm_cli.h"

#include <stdlib.h>
#include <string.h>

bool cli_is_cuda(const char *path)
{
    size_t n = strlen(path);
    return (n >= 3 && strcmp(path + n - 3, ".cu") == 0) ||
           (n >= 4 && strcmp(path + n - 4, ".cuh") == 0);
}

bool cli_cuda_opts_init(cli_cuda_opts *o, int argc)
{
    memset(o, 0, sizeof *o);
    size_t n = (size_t)argc + 1;
    o->includes = calloc(n, sizeof *o->includes);
    o->defines = calloc(n, sizeof *o->defines);
    o->kernels = calloc(n, sizeof *o->kernels);
    if (!o->includes || !o->defines || !o->kernels) {
        cli_cuda_opts_free(o);
        return false;
    }
    return true;
}

void cli_cuda_opts_free(cli_cuda_opts *o)
{
    free(o->includes);
    free(o->defines);
    free(o->kernels);
    memset(o, 0, sizeof *o);
}

/* "-I DIR" or "-IDIR" (likewise -D); 1 with *out set, 0 if not `flag`, -1 if the value is missing. */
static int short_value(int argc, char **argv, int *i, const char *flag, const char **out)
{
    if (strncmp(argv[*i], flag, 2) != 0)
        return 0;
    if (argv[*i][2]) {
        *out = argv[*i] + 2;
        return 1;
    }
    if (*i + 1 >= argc)
        return -1;
    *out = argv[++*i];
    return 1;
}

/* The compile option at argv[*i] into o: 1, 0 if it is none, -1 after a usage error. */
static int read_option(cli_cuda_opts *o, int argc, char **argv, int *i, const char *cmd)
{
    const char *a = argv[*i], *v = NULL;
    int r;
    if ((r = short_value(argc, argv, i, "-I", &v)) != 0) {
        if (r < 0 || !*v) {
            cli_error(CLI_USAGE, "%s: -I needs a directory", cmd);
            return -1;
        }
        o->includes[o->nincludes++] = v;
        return 1;
    }
    if ((r = short_value(argc, argv, i, "-D", &v)) != 0) {
        if (r < 0 || !*v || *v == '=') {
            cli_error(CLI_USAGE, "%s: -D needs NAME or NAME=VALUE", cmd);
            return -1;
        }
        size_t n = 0; /* the name: an identifier, as the preprocessor's #define needs */
        while (v[n] == '_' || (v[n] >= 'a' && v[n] <= 'z') || (v[n] >= 'A' && v[n] <= 'Z') ||
               (n && v[n] >= '0' && v[n] <= '9'))
            n++;
        if (!n || (v[n] && v[n] != '=' && v[n] != '(')) {
            cli_error(CLI_USAGE, "%s: -D %s: the macro name must be an identifier", cmd, v);
            return -1;
        }
        o->defines[o->ndefines++] = v;
        return 1;
    }
    if (!strncmp(a, "--fmad", 6) && (a[6] == 0 || a[6] == '=')) {
        v = a[6] == '=' ? a + 7 : NULL;
        if (!v && *i + 1 < argc && (!strcmp(argv[*i + 1], "true") || !strcmp(argv[*i + 1], "false")))
            v = argv[++*i];
        if (!v || (strcmp(v, "true") != 0 && strcmp(v, "false") != 0)) {
            cli_error(CLI_USAGE, "%s: --fmad takes true or false (--fmad=true)", cmd);
            return -1;
        }
        o->fmad = v[0] == 't';
        return 1;
    }
    if (!strcmp(a, "-O0") || !strcmp(a, "-O1")) {
        o->no_opt = a[2] == '0';
        o->opt_given = 1;
        return 1;
    }
    return 0;
}

int cli_cuda_option(cli_cuda_opts *o, int argc, char **argv, int *i, const char *cmd)
{
    const char *a = argv[*i];
    const int r = read_option(o, argc, argv, i, cmd);
    if (r > 0 && !o->given[0]) /* its name: "-D" of "-DX", "--fmad" of "--fmad=true", "-O0" */
        snprintf(o->given, sizeof o->given, "%.*s", a[1] == 'I' || a[1] == 'D' ? 2 : (int)strcspn(a, "="), a);
    return r;
}

int cli_cuda_opts_check(const cli_cuda_opts *o, const char *cmd, const char *path)
{
    if (!o->given[0] || cli_is_cuda(path))
        return CLI_OK;
    return cli_error(CLI_USAGE, "%s: %s is a CUDA compile option: it applies to .cu sources, not "
                     "to %s", cmd, o->given, path);
}

/* Prints source line `line` of `path` and a caret under column `col` (tabs kept for alignment). */
static void print_source_line(const char *path, uint32_t line, uint32_t col)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    char *buf = NULL; /* the whole line, however long */
    size_t cap = 0;
    uint32_t at = 1;
    bool found = false;
    while (getline(&buf, &cap, f) >= 0) {
        if (at++ == line) {
            found = true;
            break;
        }
    }
    fclose(f);
    if (found) {
        buf[strcspn(buf, "\r\n")] = 0;
        fprintf(stderr, "%s\n", buf);
        size_t len = strlen(buf);
        for (uint32_t k = 1; k < col && k - 1 < len; k++)
            fputc(buf[k - 1] == '\t' ? '\t' : ' ', stderr);
        fputs("^\n", stderr);
    }
    free(buf);
}

/* A compiler diagnostic: "file:line:col: error: message", the line, a caret. */
static int print_compile_error(const char *path, cvm_status st, const cvm_diag *d, bool named)
{
    const char *msg = d->message[0] ? d->message : cvm_status_str(st);
    const char *file = d->file[0] ? d->file : path;
    if (!d->line) {
        if (strstr(msg, "error:"))
            fprintf(stderr, "%s\n", msg);
        else
            fprintf(stderr, "%s: error: %s\n", file, msg);
        /* a --kernel name the file lacks, or a template without its --kernel
         * instance: the command line (a file with no kernel at all is not) */
        return st == CVM_NOT_FOUND && (named || strstr(msg, "--kernel")) ? CLI_USAGE : CLI_FAIL;
    }
    if (!strncmp(msg, file, strlen(file)) && strstr(msg, ": error: "))
        fprintf(stderr, "%s\n", msg);
    else
        fprintf(stderr, "%s:%u:%u: error: %s\n", file, d->line, d->col, msg);
    print_source_line(file, d->line, d->col);
    return CLI_FAIL;
}

/* A compiler warning, printed like an error: "file:line:col: warning: ...", the line, a caret. */
static void print_warning(void *user, const cvm_diag *w)
{
    (void)user;
    fprintf(stderr, "%s\n", w->message);
    if (w->line && w->file[0])
        print_source_line(w->file, w->line, w->col);
}

int cli_cuda_compile_file(const char *path, const cli_cuda_opts *o, void **out, size_t *out_size)
{
    char *text = NULL;
    size_t len = 0;
    if (!cli_read_file(path, &text, &len))
        return CLI_FAIL;
    cvm_compile_options co = {
        .include_dirs = o->includes,
        .include_dir_count = o->nincludes,
        .defines = o->defines,
        .define_count = o->ndefines,
        .kernels = o->kernels,
        .kernel_count = o->nkernels,
        .fmad = o->fmad,
        .no_opt = o->no_opt,
        .warning = print_warning,
    };
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_status st = cvm_compile_cuda(text, len, path, &co, out, out_size, &d);
    free(text);
    if (st)
        return print_compile_error(path, st, &d, o->nkernels > 0);
    return CLI_OK;
}

int cli_load_module(cvm_device *dev, const char *path, const cli_cuda_opts *o, cvm_module **out)
{
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_status st;
    if (!cli_is_cuda(path)) {
        if ((st = cvm_module_load_file(dev, path, out, &d)))
            return cli_diag_error(path, st, &d);
        return CLI_OK;
    }
    void *bytes = NULL;
    size_t size = 0;
    int rc = cli_cuda_compile_file(path, o, &bytes, &size);
    if (rc)
        return rc;
    st = cvm_module_load(dev, bytes, size, out, &d);
    cvm_free_bytes(bytes);
    /* The compiler's output failing to load is a compiler bug: say where it came from. */
    if (st)
        return cli_diag_error(path, st, &d);
    return CLI_OK;
}

static int compile_usage(void)
{
    return cli_error(CLI_USAGE, "compile: usage: cubevm compile IN.cu -o OUT.cbc [-I DIR]... "
                                "[-D NAME[=VALUE]]... [--kernel NAME]... [--fmad=true|false] [-O0|-O1]");
}

int cli_compile(int argc, char **argv)
{
    cli_cuda_opts o;
    const char *in = NULL, *out = NULL;
    int rc = CLI_USAGE;
    if (!cli_cuda_opts_init(&o, argc))
        return cli_error(CLI_FAIL, "out of memory");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = cli_cuda_option(&o, argc, argv, &i, "compile");
        if (r < 0)
            goto done;
        if (r > 0)
            continue;
        const char *v;
        if ((r = cli_opt_value(argc, argv, &i, "compile", "-o", &v)) < 0) {
            goto done;
        } else if (r > 0 && out) {
            cli_error(CLI_USAGE, "compile: -o is given more than once");
            goto done;
        } else if (r > 0) {
            out = v;
        } else if ((r = cli_opt_value(argc, argv, &i, "compile", "--kernel", &v)) < 0) {
            goto done;
        } else if (r > 0) {
            o.kernels[o.nkernels++] = v;
        } else if (a[0] == '-' && a[1]) {
            cli_unknown_option("compile", a);
            goto done;
        } else if (!in) {
            in = a;
        } else {
            cli_error(CLI_USAGE, "compile: unexpected argument '%s'", a);
            goto done;
        }
    }
    if (!in || !out) {
        compile_usage();
        goto done;
    }
    if ((rc = cli_distinct_output("compile", in, out)))
        goto done;
    const size_t inlen = strlen(in);
    if (inlen > 4 && (!strcmp(in + inlen - 4, ".cbs") || !strcmp(in + inlen - 4, ".cbc"))) {
        rc = cli_error(CLI_USAGE, "compile: %s is %s; compile takes CUDA C (.cu)%s", in,
                       in[inlen - 1] == 's' ? "assembly text" : "a module already",
                       in[inlen - 1] == 's' ? ": use 'cubevm asm'" : "");
        goto done;
    }
    void *bytes = NULL;
    size_t size = 0;
    if ((rc = cli_cuda_compile_file(in, &o, &bytes, &size)))
        goto done;
    rc = cli_write_file(out, bytes, size) ? CLI_OK : CLI_FAIL;
    cvm_free_bytes(bytes);
done:
    cli_cuda_opts_free(&o);
    return rc;
}
