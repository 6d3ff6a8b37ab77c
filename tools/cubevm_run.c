/*
 * cubevm_run.c - `cubevm run`: parse the launch options and NAME=VALUE
 * arguments, bind them to the kernel's parameters (buffers from .npy files,
 * zeros or random data; scalars parsed for their type), launch once, wait,
 * then print the kernel's output and write --out/--print results. A .cu
 * file is compiled first (cubevm_cuda.c) and --symbol writes module-scope
 * variables before the launch.
 */
#include "cubevm_cli.h"

#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct named {
    const char *name;  /* points into argv (NUL-terminated copy for NAME=...) */
    const char *value; /* text after '=' or ':'; may be NULL */
} named;

typedef struct run_opts {
    const char *file, *kernel, *device, *profile;
    uint32_t grid[3], block[3], shared, plane_width, threads;
    int schedule;  /* cvm_schedule */
    uint64_t seed;
    bool seeded;
    unsigned seen;     /* the single-valued options given so far (bits of once_opts) */
    double timeout;
    uint64_t steps;
    int unchecked, racecheck, initcheck;
    int tier; /* cvm_tier */
    bool debug;        /* cubevm debug */
    const char *commands; /* debug: --commands FILE */
    named *outs, *prints, *args, *symbols; /* each argc long */
    int nouts, nprints, nargs, nsymbols;
    cli_cuda_opts cuda;
    char **owned; /* split NAME=... strings to free */
    int nowned;
} run_opts;

/* Per kernel parameter: the argument built for it. */
typedef struct binding {
    cvm_param_info p;
    const char *text;  /* the VALUE given on the command line */
    char ct_text[24];  /* comptime parameters: the value the instance's name gives */
    cvm_buffer *buf;
    uint64_t count;    /* buffer elements of p.elem (scalars, lines unfolded) */
    void *bytes;       /* by-value bytes (malloc'ed) */
    size_t size;
} binding;

static bool parse_u32(const char *s, uint32_t *out)
{
    uint64_t v;
    if (!cli_parse_u64(s, &v) || v > UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}

static bool parse_dims(const char *s, uint32_t out[3])
{
    char buf[96];
    if (strlen(s) >= sizeof buf)
        return false;
    strcpy(buf, s);
    out[0] = out[1] = out[2] = 1;
    char *p = buf;
    for (int d = 0; d < 3; d++) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = 0;
        if (!parse_u32(p, &out[d]) || out[d] == 0)
            return false;
        if (!comma)
            return true;
        p = comma + 1;
    }
    return false; /* a fourth dimension */
}

/* Splits "NAME=VALUE" (sep '=') or "NAME:N" into a named pair (copying the name). */
static bool split_named(run_opts *o, const char *s, char sep, named *out)
{
    const char *at = strchr(s, sep);
    size_t n = at ? (size_t)(at - s) : strlen(s);
    if (n == 0)
        return false;
    char *name = malloc(n + 1);
    if (!name)
        return false;
    memcpy(name, s, n);
    name[n] = 0;
    o->owned[o->nowned++] = name;
    out->name = name;
    out->value = at ? at + 1 : NULL;
    return true;
}

/* The command's name in messages: "run", or "debug" (run_or_debug sets it). */
static const char *cmd_name = "run";

/* Options that take one value: a second one is a usage error, not a
 * silent replacement of the first. */
static const char *const once_opts[] = {"--kernel", "--device", "--grid", "--block", "--shared", "--plane-width",
                                        "--threads", "--profile", "--seed", "--schedule", "--timeout", "--steps",
                                        "--tier"};

/* Parses one option at argv[*i]; returns CLI_OK or an exit status. */
static int parse_option(run_opts *o, int argc, char **argv, int *i)
{
    const char *v = NULL;
    int r;
    const char *a = argv[*i];
    for (unsigned k = 0; k < sizeof once_opts / sizeof once_opts[0]; k++) {
        size_t len = strlen(once_opts[k]);
        if (strncmp(a, once_opts[k], len) != 0 || (a[len] && a[len] != '='))
            continue;
        if (o->seen >> k & 1u)
            return cli_error(CLI_USAGE, "%s: %s is given more than once", cmd_name, once_opts[k]);
        o->seen |= 1u << k;
    }
    if (o->debug) {
        static const char *const refused[] = {"--schedule", "--threads", "--seed"};
        for (unsigned k = 0; k < sizeof refused / sizeof refused[0]; k++)
            if (!strncmp(a, refused[k], strlen(refused[k])))
                return cli_error(CLI_USAGE, "debug: %s does not apply: the debugger runs the cubes "
                                 "one at a time, in order, on one thread", refused[k]);
        if (!strncmp(a, "--tier", 6))
            return cli_error(CLI_USAGE, "debug: --tier does not apply: the debugger steps the interpreter");
        if ((r = cli_opt_value(argc, argv, i, "debug", "--commands", &v)) != 0) {
            o->commands = v;
            return r < 0 ? CLI_USAGE : CLI_OK;
        }
    }
    if (!strcmp(a, "--unchecked")) {
        o->unchecked = 1;
        return CLI_OK;
    }
    if (!strcmp(a, "--racecheck")) {
        o->racecheck = 1;
        return CLI_OK;
    }
    if (!strcmp(a, "--initcheck")) {
        o->initcheck = 1;
        return CLI_OK;
    }
#define OPT(name) ((r = cli_opt_value(argc, argv, i, cmd_name, name, &v)) != 0)
    if (OPT("--kernel")) {
        o->kernel = v;
    } else if (OPT("--device")) {
        o->device = v;
    } else if (OPT("--grid")) {
        if (r > 0 && !parse_dims(v, o->grid))
            return cli_error(CLI_USAGE, "%s: --grid '%s': expected X[,Y[,Z]] with integers >= 1", cmd_name, v);
    } else if (OPT("--block")) {
        if (r > 0 && !parse_dims(v, o->block))
            return cli_error(CLI_USAGE, "%s: --block '%s': expected X[,Y[,Z]] with integers >= 1", cmd_name, v);
    } else if (OPT("--shared")) {
        if (r > 0 && !parse_u32(v, &o->shared))
            return cli_error(CLI_USAGE, "%s: --shared '%s': expected a byte count", cmd_name, v);
    } else if (OPT("--plane-width")) {
        if (r > 0 && !cli_parse_pow2(v, 64, &o->plane_width))
            return cli_error(CLI_USAGE, "%s: --plane-width '%s': expected a power of two from 1 to 64", cmd_name, v);
    } else if (OPT("--threads")) {
        if (r > 0 && (!parse_u32(v, &o->threads) || !o->threads || o->threads > 1024))
            return cli_error(CLI_USAGE, "%s: --threads '%s': expected an integer from 1 to 1024", cmd_name, v);
    } else if (OPT("--profile")) {
        o->profile = v;
    } else if (OPT("--seed")) {
        if (r > 0 && !cli_parse_u64(v, &o->seed))
            return cli_error(CLI_USAGE, "%s: --seed '%s': expected an integer", cmd_name, v);
        o->seeded |= r > 0;
    } else if (OPT("--schedule")) {
        if (r > 0) {
            if (!strcmp(v, "parallel"))
                o->schedule = CVM_SCHEDULE_PARALLEL;
            else if (!strcmp(v, "sequential"))
                o->schedule = CVM_SCHEDULE_SEQUENTIAL;
            else if (!strcmp(v, "random"))
                o->schedule = CVM_SCHEDULE_RANDOM;
            else
                return cli_error(CLI_USAGE,
                                 "%s: --schedule '%s': expected parallel, sequential or random", cmd_name, v);
        }
    } else if (OPT("--tier")) {
        if (r > 0) {
            if (!strcmp(v, "default"))
                o->tier = CVM_TIER_DEFAULT;
            else if (!strcmp(v, "interp"))
                o->tier = CVM_TIER_INTERP;
            else if (!strcmp(v, "native"))
                o->tier = CVM_TIER_NATIVE;
            else
                return cli_error(CLI_USAGE, "%s: --tier '%s': expected default, interp or native", cmd_name, v);
        }
    } else if (OPT("--steps")) {
        if (r > 0 && !cli_parse_u64(v, &o->steps))
            return cli_error(CLI_USAGE, "%s: --steps '%s': expected an integer", cmd_name, v);
    } else if (OPT("--timeout")) {
        char *end;
        if (r > 0) {
            o->timeout = strtod(v, &end);
            if (!*v || *end || !(o->timeout >= 0) || o->timeout > 1e9)
                return cli_error(CLI_USAGE, "%s: --timeout '%s': expected seconds from 0 to 1e9", cmd_name, v);
        }
    } else if (OPT("--out")) {
        if (r > 0 && (!split_named(o, v, '=', &o->outs[o->nouts]) || !o->outs[o->nouts].value ||
                      !*o->outs[o->nouts].value))
            return cli_error(CLI_USAGE, "%s: --out '%s': expected NAME=PATH.npy", cmd_name, v);
        o->nouts += r > 0;
    } else if (OPT("--symbol")) {
        if (r > 0 && (!split_named(o, v, '=', &o->symbols[o->nsymbols]) ||
                      !o->symbols[o->nsymbols].value || o->symbols[o->nsymbols].value[0] != '@' ||
                      !o->symbols[o->nsymbols].value[1]))
            return cli_error(CLI_USAGE, "%s: --symbol '%s': expected NAME=@PATH.npy", cmd_name, v);
        o->nsymbols += r > 0;
    } else if (OPT("--print")) {
        if (r > 0 && !split_named(o, v, ':', &o->prints[o->nprints]))
            return cli_error(CLI_USAGE, "%s: --print '%s': expected NAME[:COUNT]", cmd_name, v);
        o->nprints += r > 0;
    } else {
        return cli_unknown_option(cmd_name, a);
    }
#undef OPT
    return r < 0 ? CLI_USAGE : CLI_OK;
}

static int parse_args(run_opts *o, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = cli_cuda_option(&o->cuda, argc, argv, &i, cmd_name);
        if (r < 0)
            return CLI_USAGE;
        if (r > 0)
            continue;
        if (a[0] == '-' && a[1] == '-') {
            int rc = parse_option(o, argc, argv, &i);
            if (rc)
                return rc;
        } else if (a[0] == '-' && a[1]) {
            return cli_unknown_option(cmd_name, a);
        } else if (!o->file) {
            o->file = a;
        } else if (strchr(a, '=')) {
            if (!split_named(o, a, '=', &o->args[o->nargs]))
                return cli_error(CLI_USAGE, "%s: argument '%s': expected NAME=VALUE", cmd_name, a);
            o->nargs++;
        } else {
            return cli_error(CLI_USAGE, "%s: unexpected argument '%s' (arguments are NAME=VALUE)", cmd_name, a);
        }
    }
    if (!o->file)
        return cli_error(CLI_USAGE, "%s: no module file given (usage: cubevm %s FILE ...)", cmd_name, cmd_name);
    return CLI_OK;
}

static const cvm_kernel *pick_kernel(const cvm_module *mod, const char *name, bool cuda)
{
    const cvm_kernel *k = NULL;
    uint32_t n = cvm_module_kernel_count(mod);
    char list[512] = "";
    for (uint32_t i = 0; i < n; i++) {
        size_t len = strlen(list);
        snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", cvm_module_kernel_name(mod, i));
    }
    if (!name) {
        if (n == 1) {
            cvm_kernel_get(mod, cvm_module_kernel_name(mod, 0), &k, NULL);
            return k;
        }
        if (n == 0)
            cli_error(CLI_USAGE, "%s: the module has no kernels", cmd_name);
        else
            cli_error(CLI_USAGE, "%s: the module has %u kernels (%s); choose one with --kernel", cmd_name, n, list);
        return NULL;
    }
    if (cvm_kernel_get(mod, name, &k, NULL) == CVM_OK)
        return k;
    /* "reduce<256>" of a template compiled as "reduce<blockSize>" (comptime_values binds it) */
    int64_t values[256];
    if (cvm_kernel_get_instance(mod, name, &k, values, 256, NULL) == CVM_OK)
        return k;
    /* A .cu file compiled for one kernel holds just that one, under its canonical
     * name ("reduce<256>" for "reduce< 256 >"). */
    if (cuda && n == 1) {
        cvm_kernel_get(mod, cvm_module_kernel_name(mod, 0), &k, NULL);
        return k;
    }
    cli_error(CLI_USAGE, "%s: no kernel '%s' in the module (kernels: %s)", cmd_name, name, list);
    return k;
}

/* A new buffer of `count` elements (times the line) for parameter b; data may be NULL (zeros). */
static int make_buffer(cvm_device *dev, binding *b, uint64_t count, const void *data)
{
    unsigned esize = cli_elem_size(b->p.elem);
    if (!esize)
        return cli_error(CLI_FAIL, "parameter '%s': unsupported element type", b->p.name);
    uint64_t line = b->p.line ? b->p.line : 1;
    if (count > SIZE_MAX / esize / line)
        return cli_error(CLI_USAGE, "parameter '%s': %llu elements is too many", b->p.name,
                         (unsigned long long)count);
    b->count = count * line;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_status st = cvm_buffer_create(dev, (size_t)(b->count * esize), b->p.name, &b->buf, &d);
    if (st)
        return cli_diag_error(NULL, st, &d);
    if (data && (st = cvm_buffer_write(cvm_device_stream(dev), b->buf, 0, data,
                                       (size_t)(b->count * esize), &d)))
        return cli_diag_error(b->p.name, st, &d);
    return CLI_OK;
}

/* A .npy file of element type `have` holds values of type `want` (bf16
 * has no dtype: it arrives as <u2). */
static bool dtype_fits(cvm_elem want, cvm_elem have)
{
    return have == want || (want == CVM_BF16 && have == CVM_U16);
}

static int bind_npy(cvm_device *dev, binding *b, const char *path)
{
    cvm_npy arr;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_status st = cvm_npy_load(path, &arr, &d);
    if (st)
        return cli_diag_error(NULL, st, &d);
    bool match = dtype_fits(b->p.elem, arr.elem);
    uint64_t line = b->p.line ? b->p.line : 1;
    int rc = CLI_OK;
    if (!match)
        rc = cli_error(CLI_FAIL, "parameter '%s' is a buffer of %s but %s has dtype '%s' (%s)%s",
                       b->p.name, cli_elem_name(b->p.elem), path, arr.descr,
                       cli_elem_name(arr.elem), b->p.elem == CVM_BF16 ? "; bf16 is read as <u2" : "");
    else if (arr.count % line)
        rc = cli_error(CLI_FAIL, "parameter '%s' holds lines of %llu elements but %s has %llu",
                       b->p.name, (unsigned long long)line, path, (unsigned long long)arr.count);
    else
        rc = make_buffer(dev, b, arr.count / line, arr.data);
    cvm_free_bytes(arr.data);
    return rc;
}

/* "N" or "N:SEED" after zeros:/rand:. */
static int bind_generated(cvm_device *dev, binding *b, const char *spec, bool random)
{
    char nbuf[64];
    const char *colon = strchr(spec, ':');
    uint64_t n, seed = 1;
    size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    if (colon && !random)
        return cli_error(CLI_USAGE, "parameter '%s': '%s': zeros takes a count alone (zeros:N; the element "
                         "type is the parameter's, %s)", b->p.name, b->text, cli_elem_name(b->p.elem));
    if (len >= sizeof nbuf)
        return cli_error(CLI_USAGE, "parameter '%s': bad count in '%s'", b->p.name, b->text);
    memcpy(nbuf, spec, len);
    nbuf[len] = 0;
    if (!cli_parse_u64(nbuf, &n))
        return cli_error(CLI_USAGE, "parameter '%s': bad element count '%s'", b->p.name, nbuf);
    if (colon && !cli_parse_u64(colon + 1, &seed))
        return cli_error(CLI_USAGE, "parameter '%s': bad seed '%s'", b->p.name, colon + 1);
    int rc = make_buffer(dev, b, n, NULL);
    if (rc || !random)
        return rc;
    size_t bytes = (size_t)b->count * cli_elem_size(b->p.elem);
    void *data = malloc(bytes ? bytes : 1);
    if (!data)
        return cli_error(CLI_FAIL, "parameter '%s': out of memory", b->p.name);
    cli_fill_random(b->p.elem, data, b->count, seed);
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_status st = cvm_buffer_write(cvm_device_stream(dev), b->buf, 0, data, bytes, &d);
    free(data);
    return st ? cli_diag_error(b->p.name, st, &d) : CLI_OK;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Scalars, lines (comma-separated), comptime values and structs (hex:BYTES). */
static int bind_value(binding *b)
{
    const char *t = b->text;
    b->size = b->p.size;
    b->bytes = calloc(1, b->size ? b->size : 1);
    if (!b->bytes)
        return cli_error(CLI_FAIL, "out of memory");
    if (b->p.kind == CVM_PARAM_STRUCT) {
        if (strncmp(t, "hex:", 4) != 0 || strlen(t + 4) != 2 * (size_t)b->size)
            return cli_error(CLI_USAGE, "parameter '%s' is a struct of %zu bytes; give hex:%zu hex digits",
                             b->p.name, b->size, 2 * b->size);
        for (size_t i = 0; i < b->size; i++) {
            int hi = hex_digit(t[4 + 2 * i]), lo = hex_digit(t[5 + 2 * i]);
            if (hi < 0 || lo < 0)
                return cli_error(CLI_USAGE, "parameter '%s': bad hex digit in '%s'", b->p.name, t);
            ((uint8_t *)b->bytes)[i] = (uint8_t)(hi << 4 | lo);
        }
        return CLI_OK;
    }
    unsigned esize = cli_elem_size(b->p.elem), line = b->p.line ? b->p.line : 1;
    if (!esize || (size_t)esize * line != b->size)
        return cli_error(CLI_FAIL, "parameter '%s': unsupported type", b->p.name);
    char item[128];
    for (unsigned k = 0; k < line; k++) {
        const char *comma = strchr(t, ',');
        size_t n = comma ? (size_t)(comma - t) : strlen(t);
        if ((comma != NULL) != (k + 1 < line) && line == 1)
            return cli_error(CLI_USAGE, "parameter '%s' is one %s: give one value, not a list", b->p.name,
                             cli_elem_name(b->p.elem));
        if ((comma != NULL) != (k + 1 < line))
            return cli_error(CLI_USAGE, "parameter '%s' is %sx%u: give %u comma-separated values",
                             b->p.name, cli_elem_name(b->p.elem), line, line);
        if (n >= sizeof item)
            return cli_error(CLI_USAGE, "parameter '%s': value too long", b->p.name);
        memcpy(item, t, n);
        item[n] = 0;
        const char *why;
        if (!cli_parse_value(item, b->p.elem, (uint8_t *)b->bytes + k * esize, &why))
            return cli_error(CLI_USAGE, "parameter '%s' (%s): '%s': %s", b->p.name,
                             cli_elem_name(b->p.elem), item, why);
        t = comma ? comma + 1 : t + n;
    }
    return CLI_OK;
}

static int bind_one(cvm_device *dev, binding *b)
{
    const char *t = b->text;
    if (b->p.kind == CVM_PARAM_BUFFER) {
        if (t[0] == '@' && !t[1])
            return cli_error(CLI_USAGE, "parameter '%s': '@' needs a path (@FILE.npy)", b->p.name);
        if (t[0] == '@')
            return bind_npy(dev, b, t + 1);
        if (!strncmp(t, "zeros:", 6))
            return bind_generated(dev, b, t + 6, false);
        if (!strncmp(t, "rand:", 5))
            return bind_generated(dev, b, t + 5, true);
        return cli_error(CLI_USAGE, "parameter '%s' is a buffer of %s: give @FILE.npy, zeros:N or "
                         "rand:N[:SEED], not '%s'", b->p.name, cli_elem_name(b->p.elem), t);
    }
    if (t[0] == '@' || !strncmp(t, "zeros:", 6) || !strncmp(t, "rand:", 5))
        return cli_error(CLI_USAGE, "parameter '%s' is a %s passed by value, not a buffer", b->p.name,
                         b->p.kind == CVM_PARAM_STRUCT ? "struct" : cli_elem_name(b->p.elem));
    return bind_value(b);
}

/* Matches NAME=VALUE arguments to parameters: each exactly once, no strangers. */
static int match_args(const run_opts *o, binding *bs, uint32_t n)
{
    char missing[512] = "";
    for (int i = 0; i < o->nargs; i++) {
        uint32_t j = 0;
        while (j < n && strcmp(bs[j].p.name, o->args[i].name) != 0)
            j++;
        if (j == n) {
            char list[512] = "";
            for (uint32_t k = 0; k < n; k++) {
                size_t len = strlen(list);
                snprintf(list + len, sizeof list - len, "%s%s", k ? ", " : "", bs[k].p.name);
            }
            return cli_error(CLI_USAGE, "%s: the kernel has no parameter '%s' (parameters: %s)", cmd_name,
                             o->args[i].name, n ? list : "none");
        }
        if (bs[j].text && bs[j].text != bs[j].ct_text)
            return cli_error(CLI_USAGE, "%s: parameter '%s' is given more than once", cmd_name, o->args[i].name);
        if (bs[j].text == bs[j].ct_text) {
            /* the instance's name fixes the value: NAME=VALUE may repeat it, not change it
             * (both read as the parameter's type, as any value is) */
            uint8_t fixed[8] = {0}, given[8] = {0};
            const char *why;
            if (!cli_parse_value(bs[j].ct_text, bs[j].p.elem, fixed, &why) ||
                !cli_parse_value(o->args[i].value, bs[j].p.elem, given, &why) || memcmp(fixed, given, 8) != 0)
                return cli_error(CLI_USAGE, "%s: parameter '%s' is %s in '%s'; %s=%s contradicts it", cmd_name,
                                 bs[j].p.name, bs[j].ct_text, o->kernel, bs[j].p.name, o->args[i].value);
            continue;
        }
        bs[j].text = o->args[i].value;
    }
    for (uint32_t j = 0; j < n; j++) {
        if (bs[j].text)
            continue;
        size_t len = strlen(missing);
        snprintf(missing + len, sizeof missing - len, "%s%s", len ? ", " : "", bs[j].p.name);
    }
    if (missing[0])
        return cli_error(CLI_USAGE, "%s: missing argument%s for parameter%s: %s", cmd_name,
                         strchr(missing, ',') ? "s" : "", strchr(missing, ',') ? "s" : "", missing);
    return CLI_OK;
}

static binding *find_buffer(binding *bs, uint32_t n, const char *name, const char *opt)
{
    for (uint32_t j = 0; j < n; j++) {
        if (strcmp(bs[j].p.name, name) != 0)
            continue;
        if (bs[j].p.kind != CVM_PARAM_BUFFER) {
            cli_error(CLI_USAGE, "%s: %s %s: parameter '%s' is not a buffer", cmd_name, opt, name, name);
            return NULL;
        }
        return &bs[j];
    }
    cli_error(CLI_USAGE, "%s: %s %s: the kernel has no buffer parameter '%s'", cmd_name, opt, name, name);
    return NULL;
}

/* The file `path` names, as a string two spellings of one file share: an
 * existing file's device and inode (through links, `./`, `../`), else its
 * folder's real path and its name; NULL when neither can be told. */
static char *identity_at(const char *path, int depth)
{
    struct stat st;
    char buf[64];
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && stat(path, &st) != 0) {
        /* a link to a file not made yet: the file it names (a chain of such links ends in 8) */
        char target[4096];
        const ssize_t n = readlink(path, target, sizeof target - 1);
        const char *slash = strrchr(path, '/');
        char *joined = NULL;
        if (n > 0 && depth < 8) {
            target[n] = 0;
            joined = target[0] == '/' || !slash ? strdup(target) : malloc((size_t)(slash - path) + 2 + (size_t)n);
            if (joined && target[0] != '/' && slash)
                sprintf(joined, "%.*s/%s", (int)(slash - path), path, target);
        }
        char *id = joined ? identity_at(joined, depth + 1) : NULL;
        free(joined);
        return id;
    }
    if (stat(path, &st) == 0) {
        snprintf(buf, sizeof buf, "inode %llu:%llu", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
        return strdup(buf);
    }
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    char *real = dir ? realpath(dir, NULL) : NULL;
    char *id = real ? malloc(strlen(real) + strlen(base) + 2) : NULL;
    if (id)
        sprintf(id, "%s/%s", real, base);
    free(dir);
    free(real);
    return id;
}

static char *file_identity(const char *path) { return identity_at(path, 0); }

/* Can `path` be written, as far as can be told before the launch (its
 * folder exists, it is not a folder itself, no other --out names it,
 * however spelled)? */
static int check_out_path(const run_opts *o, int i)
{
    const char *path = o->outs[i].value;
    struct stat st;
    char *id = file_identity(path);
    for (int j = 0; j < i && id; j++) {
        char *other = file_identity(o->outs[j].value);
        const bool same = other && strcmp(other, id) == 0;
        free(other);
        if (same || strcmp(o->outs[j].value, path) == 0) {
            free(id);
            return cli_error(CLI_USAGE, "%s: --out %s=%s and --out %s=%s write the same file", cmd_name, o->outs[j].name,
                             o->outs[j].value, o->outs[i].name, path);
        }
    }
    free(id);
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return cli_error(CLI_FAIL, "%s: --out %s=%s: is a directory", cmd_name, o->outs[i].name, path);
    const char *slash = strrchr(path, '/');
    if (slash && slash != path) {
        size_t len = (size_t)(slash - path);
        char *dir = malloc(len + 1);
        if (!dir)
            return cli_error(CLI_FAIL, "out of memory");
        memcpy(dir, path, len);
        dir[len] = 0;
        bool good = stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
        free(dir);
        if (!good)
            return cli_error(CLI_FAIL, "%s: --out %s=%s: no such directory", cmd_name, o->outs[i].name, path);
    }
    return CLI_OK;
}

/* No --out may write over a file the run reads: the module, a NAME=@PATH.npy
 * buffer or a --symbol file (however spelled), as -o of asm and compile may
 * not name their input. Checked before the device opens. */
static int check_inputs_kept(const run_opts *o)
{
    static const char why[] = "it would be overwritten; choose another output";
    for (int i = 0; i < o->nouts; i++) {
        const named *out = &o->outs[i];
        if (cli_same_file(o->file, out->value))
            return cli_error(CLI_USAGE, "%s: --out %s=%s is the input file: %s", cmd_name, out->name,
                             out->value, why);
        for (int j = 0; j < o->nargs; j++)
            if (o->args[j].value[0] == '@' && cli_same_file(o->args[j].value + 1, out->value))
                return cli_error(CLI_USAGE, "%s: --out %s=%s is the input file of %s=%s: %s", cmd_name,
                                 out->name, out->value, o->args[j].name, o->args[j].value, why);
        for (int j = 0; j < o->nsymbols; j++)
            if (cli_same_file(o->symbols[j].value + 1, out->value))
                return cli_error(CLI_USAGE,
                                 "%s: --out %s=%s is the input file of --symbol %s=%s: %s", cmd_name,
                                 out->name, out->value, o->symbols[j].name, o->symbols[j].value,
                                 why);
    }
    return CLI_OK;
}

/* Checks --out/--print names and counts, and --out paths, before anything runs. */
static int check_results(const run_opts *o, binding *bs, uint32_t n)
{
    for (int i = 0; i < o->nouts; i++) {
        if (!find_buffer(bs, n, o->outs[i].name, "--out"))
            return CLI_USAGE;
        int rc = check_out_path(o, i);
        if (rc != CLI_OK)
            return rc;
    }
    for (int i = 0; i < o->nprints; i++) {
        uint64_t c;
        if (!find_buffer(bs, n, o->prints[i].name, "--print"))
            return CLI_USAGE;
        if (o->prints[i].value && !cli_parse_u64(o->prints[i].value, &c))
            return cli_error(CLI_USAGE, "%s: --print %s: bad count '%s'", cmd_name, o->prints[i].name,
                             o->prints[i].value);
    }
    return CLI_OK;
}

/* Reads buffer b back into malloc'ed memory. */
static void *read_back(cvm_device *dev, const binding *b)
{
    size_t bytes = cvm_buffer_size(b->buf);
    void *data = malloc(bytes ? bytes : 1);
    cvm_diag d;
    memset(&d, 0, sizeof d);
    if (!data) {
        cli_error(CLI_FAIL, "out of memory reading buffer '%s'", b->p.name);
        return NULL;
    }
    cvm_status st = cvm_buffer_read(cvm_device_stream(dev), b->buf, 0, data, bytes, &d);
    if (st) {
        cli_diag_error(b->p.name, st, &d);
        free(data);
        return NULL;
    }
    return data;
}

/* Prints and writes the results; one that fails does not keep the others
 * from being written (each failure is reported, and the status is 1). */
static int write_results(cvm_device *dev, const run_opts *o, binding *bs, uint32_t n)
{
    int rc = CLI_OK;
    for (int i = 0; i < o->nprints; i++) {
        binding *b = find_buffer(bs, n, o->prints[i].name, "--print");
        uint64_t c = 8;
        if (o->prints[i].value)
            cli_parse_u64(o->prints[i].value, &c);
        void *data = read_back(dev, b);
        if (!data) {
            rc = CLI_FAIL;
            continue;
        }
        /* elements are values of the parameter's type: a line (f32x4) prints its scalars */
        const uint64_t line = b->p.line > 1 ? b->p.line : 1, lines = b->count / line;
        uint64_t shown = c < lines ? c : lines;
        printf("%s:", b->p.name);
        for (uint64_t k = 0; k < shown * line; k++) {
            putchar(' ');
            cli_print_elem(stdout, b->p.elem, data, k);
        }
        if (shown < lines)
            printf(" ... (%llu elements)", (unsigned long long)lines);
        putchar('\n');
        free(data);
    }
    for (int i = 0; i < o->nouts; i++) {
        binding *b = find_buffer(bs, n, o->outs[i].name, "--out");
        void *data = read_back(dev, b);
        if (!data) {
            rc = CLI_FAIL;
            continue;
        }
        cvm_diag d;
        memset(&d, 0, sizeof d);
        cvm_status st = cvm_npy_save(o->outs[i].value, b->p.elem, data, b->count, &d);
        free(data);
        if (st)
            rc = cli_diag_error(NULL, st, &d);
    }
    return rc;
}

/* Builds the arguments, launches, waits and reports. */
static int launch(cvm_device *dev, const cvm_kernel *k, const run_opts *o, binding *bs, uint32_t n)
{
    cvm_arg *args = calloc(n ? n : 1, sizeof *args);
    if (!args)
        return cli_error(CLI_FAIL, "out of memory");
    for (uint32_t j = 0; j < n; j++) {
        if (bs[j].p.kind == CVM_PARAM_BUFFER)
            args[j] = (cvm_arg){CVM_ARG_BUFFER, bs[j].buf, 0, NULL, 0};
        else
            args[j] = (cvm_arg){CVM_ARG_BYTES, NULL, 0, bs[j].bytes, bs[j].size};
    }
    cvm_launch_config cfg = {
        .grid = {o->grid[0], o->grid[1], o->grid[2]},
        .block = {o->block[0], o->block[1], o->block[2]},
        .shared_bytes = o->shared,
        .plane_width = o->plane_width,
        .step_budget = o->steps,
        .timeout_s = o->timeout,
        .unchecked = o->unchecked,
        .racecheck = o->racecheck,
        .initcheck = o->initcheck,
        .tier = o->tier,
    };
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_stream *s = cvm_device_stream(dev);
    cvm_status st;
    size_t shown = 0; /* text the debugger has written out as the kernel printed it */
    if (o->debug) {
        FILE *in = o->commands ? fopen(o->commands, "r") : stdin;
        if (!in) {
            free(args);
            return cli_error(CLI_FAIL, "debug: cannot read --commands file '%s': %s", o->commands,
                             strerror(errno));
        }
        int rc = cli_debug_launch(s, k, &cfg, args, n, in, &shown, &st, &d);
        if (in != stdin)
            fclose(in);
        free(args);
        if (rc) /* quit: no results to write */
            return rc < 0 ? CLI_OK : rc;
    } else {
        st = cvm_launch(s, k, &cfg, args, n, &d);
        free(args);
        if (st)
            return cli_diag_error("launch", st, &d);
        st = cvm_stream_sync(s, &d);
    }
    size_t printed = 0;
    const char *text = cvm_stream_output_n(s, &printed); /* a kernel's %c of 0 is a NUL in it */
    if (shown <= printed)
        fwrite(text + shown, 1, printed - shown, stdout);
    fflush(stdout);
    if (st == CVM_TIMEOUT && strncmp(o->device, "cpu", 3) != 0) {
        /* A GPU cannot stop the dispatch (docs/backends.md), and a driver may wait
         * for it in the process's exit handlers (NVIDIA's does, for ever): leave
         * without them. The kernel driver ends the dispatch with the process. */
        int rc = cli_diag_error(cvm_status_str(st), st, &d);
        fflush(NULL);
        _exit(rc);
    }
    if (st)
        return cli_diag_error(cvm_status_str(st), st, &d);
    return write_results(dev, o, bs, n);
}

/* The comptime parameters a template instance's name fixes ("reduce<256>": blockSize = 256),
 * for those the command line leaves out. */
static int comptime_values(const run_opts *o, const cvm_module *mod, binding *bs, uint32_t n)
{
    if (!o->kernel || !n)
        return CLI_OK;
    int64_t *v = malloc(n * sizeof *v);
    bool *set = malloc(n * sizeof *set);
    if (!v || !set) {
        free(v), free(set);
        return cli_error(CLI_FAIL, "out of memory");
    }
    if (cli_instance_values(mod, o->kernel, v, set, n))
        for (uint32_t j = 0; j < n; j++)
            if (bs[j].p.kind == CVM_PARAM_COMPTIME && set[j] && !bs[j].text) {
                cli_comptime_text(bs[j].p.elem, v[j], bs[j].ct_text, sizeof bs[j].ct_text);
                bs[j].text = bs[j].ct_text;
            }
    free(set);
    free(v);
    return CLI_OK;
}

static int run_module(const run_opts *o, cvm_device *dev, cvm_module *mod)
{
    const cvm_kernel *k = pick_kernel(mod, o->kernel, cli_is_cuda(o->file));
    if (!k)
        return CLI_USAGE;
    cvm_kernel_info ki;
    cvm_kernel_info_get(k, &ki);
    uint32_t n = ki.param_count;
    binding *bs = calloc(n ? n : 1, sizeof *bs);
    if (!bs)
        return cli_error(CLI_FAIL, "out of memory");
    for (uint32_t j = 0; j < n; j++)
        cvm_kernel_param(k, j, &bs[j].p);
    int rc = comptime_values(o, mod, bs, n);
    if (!rc)
        rc = match_args(o, bs, n);
    if (!rc)
        rc = check_results(o, bs, n);
    for (uint32_t j = 0; j < n && !rc; j++)
        rc = bind_one(dev, &bs[j]);
    if (!rc)
        rc = launch(dev, k, o, bs, n);
    for (uint32_t j = 0; j < n; j++) {
        cvm_buffer_free(bs[j].buf);
        free(bs[j].bytes);
    }
    free(bs);
    return rc;
}

/* --symbol NAME=@PATH.npy: the file's data, from byte 0 of the variable. */
static int write_symbols(const run_opts *o, cvm_device *dev, cvm_module *mod)
{
    for (int i = 0; i < o->nsymbols; i++)
        for (int j = 0; j < i; j++)
            if (!strcmp(o->symbols[i].name, o->symbols[j].name)) /* one file per variable, as --out */
                return cli_error(CLI_USAGE, "%s: --symbol %s is given more than once", cmd_name, o->symbols[i].name);
    for (int i = 0; i < o->nsymbols; i++) {
        const named *sy = &o->symbols[i];
        cvm_npy arr;
        cvm_diag d;
        memset(&d, 0, sizeof d);
        cvm_symbol_info info;
        cvm_status st = cvm_module_symbol_info(mod, sy->name, &info, &d);
        if (st)
            return cli_error(CLI_FAIL, "--symbol %s=%s: the module has no variable named '%s'",
                             sy->name, sy->value, sy->name);
        if ((st = cvm_npy_load(sy->value + 1, &arr, &d)))
            return cli_diag_error(NULL, st, &d);
        /* the bytes are copied as they are: a file of another element type
         * would be read as garbage */
        if (info.elem && !dtype_fits(info.elem, arr.elem)) {
            cvm_free_bytes(arr.data);
            return cli_error(CLI_FAIL, "--symbol %s=%s: '%s' holds %s but the file has dtype '%s' (%s)",
                             sy->name, sy->value, sy->name, cli_elem_name(info.elem), arr.descr,
                             cli_elem_name(arr.elem));
        }
        st = cvm_module_symbol_write(cvm_device_stream(dev), mod, sy->name, 0, arr.data, arr.size,
                                     &d);
        cvm_free_bytes(arr.data);
        if (st) {
            static const char fn[] = "cvm_module_symbol_write: ";
            const char *msg = d.message;
            if (!strncmp(msg, fn, sizeof fn - 1))
                msg += sizeof fn - 1;
            return cli_error(CLI_FAIL, "--symbol %s=%s: %s", sy->name, sy->value, msg);
        }
    }
    return CLI_OK;
}

/* Another device than cpu ignores cvm_config.threads (its driver schedules
 * the work) and cvm_launch_config.tier (its driver compiles the kernel):
 * --threads and --tier are refused there, as the device refuses a
 * --schedule or --profile it cannot follow, rather than silently not
 * applied. */
static int check_cpu_settings(const run_opts *o, const cvm_device *dev)
{
    cvm_device_limits l;
    if ((!o->threads && !o->tier) || cvm_device_limits_get(dev, &l, NULL) != CVM_OK ||
        !strcmp(l.device, "cpu"))
        return CLI_OK;
    if (o->tier)
        return cli_error(CLI_FAIL, "device '%s' cannot take --tier: its driver compiles the kernel "
                         "(tiers are a cpu device setting)", l.device);
    return cli_error(CLI_FAIL, "device '%s' cannot run the cubes on %u worker threads: the driver "
                     "schedules the work itself (worker threads are a cpu device setting)",
                     l.device, o->threads);
}

static uint64_t physical_memory(void)
{
#ifdef _SC_PHYS_PAGES
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages > 0 && size > 0)
        return (uint64_t)pages * (uint64_t)size;
#endif
    return 0;
}

/* `cubevm run`, or `cubevm debug` (the launch under cubevm_debug.c). */
static int run_or_debug(int argc, char **argv, bool debug)
{
    /* the debugger waits for its user: no timeout unless one is asked for */
    run_opts o = {.device = "cpu", .grid = {1, 1, 1}, .block = {1, 1, 1}, .timeout = debug ? 0 : 60,
                  .debug = debug};
    cmd_name = debug ? "debug" : "run";
    size_t n = (size_t)argc + 1;
    o.outs = calloc(n, sizeof *o.outs);
    o.prints = calloc(n, sizeof *o.prints);
    o.args = calloc(n, sizeof *o.args);
    o.owned = calloc(n, sizeof *o.owned);
    o.symbols = calloc(n, sizeof *o.symbols);
    bool cuda_ok = cli_cuda_opts_init(&o.cuda, argc);
    int rc = CLI_FAIL;
    cvm_device *dev = NULL;
    cvm_module *mod = NULL;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    if (!o.outs || !o.prints || !o.args || !o.owned || !o.symbols || !cuda_ok) {
        rc = cli_error(CLI_FAIL, "out of memory");
        goto done;
    }
    if ((rc = parse_args(&o, argc, argv)) || (rc = cli_cuda_opts_check(&o.cuda, cmd_name, o.file)) ||
        (rc = check_inputs_kept(&o)))
        goto done;
    /* the debugger compiles as written (-O0): code moved out of a loop keeps
     * its line, so a breakpoint in the body would stop before the loop */
    if (debug && !o.cuda.opt_given)
        o.cuda.no_opt = 1;
    /* Cap the library at physical memory, so zeros:/rand: with absurd counts fail
     * with a message instead of overcommitting and being killed later. */
    if (o.seeded && o.schedule != CVM_SCHEDULE_RANDOM) {
        rc = cli_error(CLI_USAGE, "%s: --seed applies to --schedule random only", cmd_name);
        goto done;
    }
    if (o.schedule == CVM_SCHEDULE_RANDOM && !o.seeded) {
        o.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
        o.seeded = true;
    }
    if (o.schedule == CVM_SCHEDULE_RANDOM) /* so the run can be replayed */
        fprintf(stderr, "cubevm: random schedule, --seed %llu\n", (unsigned long long)o.seed);
    if (debug && strncmp(o.device, "cpu", 3) != 0) { /* before a Vulkan driver is loaded */
        rc = cli_error(CLI_USAGE, "debug: kernels run under the debugger on the cpu device only");
        goto done;
    }
    cvm_config cfg = {.memory_limit = physical_memory(), .threads = o.threads,
                      .profile = o.profile, .schedule = (cvm_schedule)o.schedule, .seed = o.seed};
    cvm_status st = cvm_device_open(o.device, &cfg, &dev, &d);
    if (st) {
        rc = cli_diag_error(NULL, st, &d);
        if (st == CVM_INVALID_ARGUMENT && !strncmp(d.message, "unknown profile", 15))
            rc = CLI_USAGE; /* --profile names no target: the command line is wrong */
        goto done;
    }
    if ((rc = check_cpu_settings(&o, dev)))
        goto done;
    if (o.kernel)
        o.cuda.kernels[o.cuda.nkernels++] = o.kernel;
    if ((rc = cli_load_module(dev, o.file, &o.cuda, &mod)))
        goto done;
    if ((rc = write_symbols(&o, dev, mod)))
        goto done;
    rc = run_module(&o, dev, mod);
done:
    cvm_module_free(mod);
    cvm_device_close(dev);
    for (int i = 0; i < o.nowned; i++)
        free(o.owned[i]);
    free(o.owned);
    free(o.symbols);
    cli_cuda_opts_free(&o.cuda);
    free(o.outs);
    free(o.prints);
    free(o.args);
    return rc;
}

int cli_run(int argc, char **argv) { return run_or_debug(argc, argv, false); }

int cli_debug(int argc, char **argv) { return run_or_debug(argc, argv, true); }
