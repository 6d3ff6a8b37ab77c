/*
 * cubevm.c - the `cubevm` command: entry point, help, and the bytecode
 * subcommands (asm, disasm, verify, info). `run` is in cubevm_run.c,
 * `compile` and the .cu handling of run/info in cubevm_cuda.c.
 * Uses the public API (vm/cubevm.h) only; docs/cli.md documents it and
 * must match the help text below.
 */
#include "cubevm_cli.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* Pieces: ISO C caps one string literal at 4095 characters. */
static const char *const help_text[] = {
    "usage: cubevm COMMAND [ARGS]\n"
    "\n"
    "A virtual machine for GPU compute kernels (cubevm " CVM_VERSION_STRING ").\n"
    "\n"
    "commands:\n"
    "  cubevm asm IN.cbs -o OUT.cbc       assemble .cbs text into a .cbc module\n"
    "  cubevm disasm IN.cbc [-o OUT.cbs]  print a module as canonical .cbs text\n"
    "                                     (to stdout unless -o is given)\n"
    "  cubevm verify FILE                 check a .cbc or .cbs module; prints \"FILE: ok\"\n"
    "  cubevm info FILE [CUDA OPTIONS] [--kernel NAME]...\n"
    "                                     list the kernels of a module (or of a .cu\n"
    "                                     file) with their parameters and requirements\n"
    "                                     (--kernel: only these, or template instances)\n"
    "  cubevm compile IN.cu -o OUT.cbc [CUDA OPTIONS] [--kernel NAME]...\n"
    "                                     compile CUDA C kernels into a .cbc module\n"
    "                                     (--kernel: only these kernels or template\n"
    "                                     instances, e.g. 'reduce<256>'; repeatable)\n"
    "  cubevm run FILE [OPTIONS] [NAME=VALUE]...\n"
    "                                     launch a kernel once and wait for it\n"
    "  cubevm debug FILE [OPTIONS] [--commands FILE] [NAME=VALUE]...\n"
    "                                     run's launch under a step debugger (cpu device;\n"
    "                                     gdb's commands from stdin or the file; 'help' at\n"
    "                                     its prompt lists them; docs/debugging.md)\n"
    "  cubevm devices                     list the devices (cpu, vulkan:N) with their limits\n"
    "  cubevm spirv FILE [--kernel NAME] [-o OUT.spv] [--subgroup-size N] [--plane-width N]\n"
    "               [CUDA OPTIONS]        translate one kernel of a .cbc, .cbs or .cu file into\n"
    "                                     the SPIR-V the vulkan device runs (to stdout unless -o;\n"
    "                                     defaults: lavapipe's subgroup size 8, SPIR-V 1.6)\n"
    "  cubevm [COMMAND ...] --help | -h   this text (also 'cubevm help [COMMAND]'); an unknown\n"
    "                                     COMMAND is an error even with --help\n"
    "  cubevm --version                   the version (nothing may follow it)\n"
    "\n"
    "In every command, a long option that takes a value may be written --opt=VALUE too.\n"
    "\n",
    "CUDA OPTIONS (for .cu files, refused with a .cbc or .cbs module; docs/cuda.md):\n"
    "  -I DIR             search DIR for #include \"...\" (after the including file's folder)\n"
    "  -D NAME[=VALUE]    define a macro (NAME alone is 1)\n"
    "  --fmad=true|false  contract a*b+c into fma (default false; nvcc's default is true)\n"
    "  -O0 | -O1          -O0: the bytecode as lowered; -O1 (default): loop-invariant\n"
    "                     instructions moved out of their loops, copies coalesced\n"
    "\n",
    "cubevm run FILE [--kernel NAME] [--grid X[,Y[,Z]]] [--block X[,Y[,Z]]] [--shared BYTES]\n"
    "               [--device cpu|vulkan[:N]] [--plane-width N] [--timeout SECONDS] [--unchecked]\n"
    "               [--racecheck] [--initcheck] [--steps N] [--threads N]\n"
    "               [--schedule parallel|sequential|random] [--profile NAME] [--seed N]\n"
    "               [--tier default|interp|native] [--symbol NAME=@PATH.npy]... [CUDA OPTIONS]\n"
    "               [--out NAME=PATH.npy]... [--print NAME[:COUNT]]... [NAME=VALUE]...\n"
    "  FILE               a .cbc module, a .cbs text file (assembled on the fly) or a .cu\n"
    "                     CUDA C file (compiled on the fly with the CUDA OPTIONS)\n"
    "  --kernel NAME      the kernel to launch (default: the module's only kernel); for a\n"
    "                     .cu file also a template instance to compile, e.g. 'reduce<256>'\n"
    "  --symbol NAME=@PATH.npy\n"
    "                     before the launch, write the file's data to the module-scope\n"
    "                     __device__ or __constant__ variable NAME (from its first byte;\n"
    "                     the dtype must be the variable's element type)\n"
    "  --grid X[,Y[,Z]]   cubes per dimension (default 1,1,1)\n"
    "  --block X[,Y[,Z]]  units per cube per dimension (default 1,1,1; at most 1024 units)\n"
    "  --shared BYTES     dynamic shared memory per cube (default 0)\n"
    "  --device NAME      the device: cpu (default), vulkan (the first Vulkan device,\n"
    "                     discrete GPUs first) or vulkan:N; see 'cubevm devices'\n"
    "  --plane-width N    units per plane: a power of two 1..64 (default: the kernel's\n"
    "                     requirement, else 32)\n"
    "  --timeout SECONDS  wall time before the launch faults (default 60; 0 = none)\n"
    "  --steps N          instructions per plane before the launch faults (default: no limit;\n"
    "                     cpu device only)\n"
    "  --unchecked        skip bounds, alignment and division checks (faster, unsafe; the\n"
    "                     checks are the cpu device's: the vulkan device makes none)\n"
    "  --racecheck        fault at the first data race between units of a cube on shared or\n"
    "                     global memory: accesses not ordered by a barrier, a plane op or an\n"
    "                     atomic's release and acquire (cpu device; the exact code one\n"
    "                     instruction at a time, about ten times slower; docs/debugging.md)\n"
    "  --initcheck        fault at the first read of shared memory no unit of the cube has\n"
    "                     written, or of local memory its own unit has not (a GPU leaves both\n"
    "                     undefined; the cpu device zero-fills them); cpu device only\n"
    "  --threads N        worker threads that run the cubes, 1 to 1024 (default: one per core;\n"
    "                     cpu device only)\n"
    "  --profile NAME     apply a target's limits and features: sm_80, sm_90, lavapipe or\n"
    "                     generic (default generic); a kernel the target would refuse fails\n"
    "                     with that target's diagnostic (cpu device; another device takes\n"
    "                     only generic or its own, as 'cubevm devices' names it)\n"
    "  --schedule MODE    parallel (default: cubes over all workers), sequential (one worker,\n"
    "                     fixed cube and plane order) or random (one worker, cubes and planes\n"
    "                     in a seeded order; the seed is printed); cpu device only\n"
    "  --seed N           the seed of --schedule random (default: from the clock)\n"
    "  --tier TIER        the cpu device's engine: default (CUBEVM_JIT's choice: auto when\n"
    "                     unset, native code once the kernel's earlier launches have run\n"
    "                     2^22 units; off; on), interp, or native (compiled through LLVM\n"
    "                     before the first cube; a kernel the native tier cannot compile, or\n"
    "                     a launch with --steps, --racecheck or --initcheck, is interpreted);\n"
    "                     results are the same in every tier; cpu device only\n",
    "  NAME=@PATH.npy     buffer argument from a numpy .npy file; dtype must match the\n"
    "                     parameter's element type (<f2 is f16, bf16 as <u2 bit patterns,\n"
    "                     |b1 is bool); C order, or a 1-D Fortran-order file\n"
    "  NAME=zeros:N       a new zero-filled buffer of N elements of the parameter's type\n"
    "  NAME=rand:N[:SEED] a new buffer of N random elements (default seed 1): floats uniform\n"
    "                     in [-1,1), signed integers in [-100,100], unsigned in [0,100],\n"
    "                     bools 0 or 1\n"
    "  NAME=VALUE         a scalar argument, parsed for the parameter's type (integers in\n"
    "                     decimal or 0x hex, floats, true/false); a line type takes its\n"
    "                     elements comma-separated; a struct takes hex:BYTES\n"
    "  --out NAME=PATH    after the launch completes, write buffer NAME to a .npy file (not\n"
    "                     the module or another file the run reads: inputs are never overwritten)\n"
    "  --print NAME[:N]   after the launch, print the first N (default 8) elements of\n"
    "                     buffer NAME\n"
    "\n"
    "debug takes run's options except --threads, --schedule, --seed and --tier (it runs the\n"
    "cubes one at a time, in order, on one thread, interpreted), its timeout is none unless\n"
    "--timeout is given, and --commands FILE reads its commands from FILE (the end of them\n"
    "ends the session).\n"
    "\n"
    "Every kernel parameter must be given exactly once. Text printed by the kernel goes to\n"
    "stdout after the launch, then the --print lines. The cpu-only options (--steps, --threads,\n"
    "--schedule, --seed, --tier interp|native, another target's --profile) are refused on\n"
    "other devices.\n"
    "\n"
    "exit status: 0 success, 1 failure (bad module or input, kernel fault, I/O error),\n"
    "2 bad command line. Errors are one line on stderr starting with \"cubevm: error:\";\n"
    "a kernel fault adds its record (kernel, cube, unit, plane, lane, pc, source line).\n"
    "See docs/cli.md.\n",
    NULL,
};

int cli_error(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("cubevm: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

int cli_opt_value(int argc, char **argv, int *i, const char *cmd, const char *opt,
                  const char **out)
{
    const char *a = argv[*i];
    const size_t n = strlen(opt);
    if (strncmp(a, opt, n) != 0 || (a[n] && (a[n] != '=' || opt[1] != '-')))
        return 0;
    if (a[n] == '=' && a[n + 1]) {
        *out = a + n + 1;
        return 1;
    }
    if (a[n] == '=' || *i + 1 >= argc) {
        cli_error(CLI_USAGE, "%s: option %s needs a value", cmd, opt);
        return -1;
    }
    *out = argv[++*i];
    return 1;
}

int cli_unknown_option(const char *cmd, const char *a)
{
    return cli_error(CLI_USAGE, "%s: unknown option '%s'; try 'cubevm --help'", cmd, a);
}

int cli_diag_error(const char *context, cvm_status st, const cvm_diag *d)
{
    const char *msg = d && d->message[0] ? d->message : cvm_status_str(st);
    char pos[300] = "", clean[600];
    /* "file:1:2: error: what" from the assembler: one "error:" on the line is enough. */
    const char *inner = strstr(msg, ": error: ");
    if (inner && (size_t)(inner - msg) < 300) {
        snprintf(clean, sizeof clean, "%.*s: %s", (int)(inner - msg), msg, inner + 9);
        msg = clean;
    }
    bool says_offset = strncmp(msg, "offset ", 7) == 0;
    /* Prefix a source position unless the message already starts with it. */
    if (d && d->file[0] && strncmp(msg, d->file, strlen(d->file)) != 0) {
        if (d->line)
            snprintf(pos, sizeof pos, "%s:%u:%u: ", d->file, d->line, d->col);
        else if (d->has_offset && !says_offset)
            snprintf(pos, sizeof pos, "%s: offset %llu: ", d->file, (unsigned long long)d->offset);
        else
            snprintf(pos, sizeof pos, "%s: ", d->file);
    } else if (d && !d->file[0] && d->has_offset && !says_offset && context) {
        snprintf(pos, sizeof pos, "%s: offset %llu: ", context, (unsigned long long)d->offset);
        context = NULL;
    }
    if (context && !pos[0] && strncmp(msg, context, strlen(context)) != 0)
        cli_error(CLI_FAIL, "%s: %s%s", context, pos, msg);
    else
        cli_error(CLI_FAIL, "%s%s", pos, msg);
    if (d && d->has_fault) {
        const cvm_fault *f = &d->fault;
        fprintf(stderr,
                "  fault: kernel %s, cube (%u,%u,%u), unit (%u,%u,%u), plane %u, lane %u, pc %u",
                f->kernel, f->cube[0], f->cube[1], f->cube[2], f->unit[0], f->unit[1], f->unit[2],
                f->plane, f->lane, f->pc);
        if (f->line)
            fprintf(stderr, ", line %s:%u", f->file[0] ? f->file : "?", f->line);
        else
            fprintf(stderr, ", no source line");
        fprintf(stderr, "; %u fault%s in this launch\n", f->count, f->count == 1 ? "" : "s");
    }
    return CLI_FAIL;
}

/* A regular file's bytes, NUL-terminated (a FIFO or a device such as
 * /dev/zero is refused before it is opened, as the library's loaders do:
 * reading one could block or never end). */
bool cli_read_file(const char *path, char **out, size_t *out_size)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        cli_error(CLI_FAIL, "%s: not a regular file", path);
        return false;
    }
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0;
    if (!f) {
        cli_error(CLI_FAIL, "%s: %s", path, strerror(errno));
        return false;
    }
    for (;;) {
        if (cap - len < 4096) {
            size_t ncap = cap ? cap * 2 : 65536;
            char *nb = realloc(buf, ncap);
            if (!nb) {
                cli_error(CLI_FAIL, "%s: out of memory reading the file", path);
                goto fail;
            }
            buf = nb;
            cap = ncap;
        }
        size_t n = fread(buf + len, 1, cap - len - 1, f);
        len += n;
        if (n == 0)
            break;
    }
    if (ferror(f)) {
        cli_error(CLI_FAIL, "%s: %s", path, strerror(errno ? errno : EIO));
        goto fail;
    }
    fclose(f);
    buf[len] = 0;
    *out = buf;
    *out_size = len;
    return true;
fail:
    free(buf);
    fclose(f);
    return false;
}

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

bool cli_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

int cli_distinct_output(const char *cmd, const char *in, const char *out)
{
    if (out && cli_same_file(in, out))
        return cli_error(CLI_USAGE, "%s: -o %s is the input file: it would be overwritten; choose another "
                         "output", cmd, out);
    return CLI_OK;
}

/* Writes `path` through a new file beside it, renamed over it once
 * complete, so a failed write (a full disk) leaves the old file as it was;
 * the new file takes the old one's mode. As vm/npy.c's cvm_npy_save does
 * (the library's copy of this rule), the path is written in place where a
 * new file would change what it is: not a regular file (/dev/stdout, a
 * FIFO), a file with other hard links, a symbolic link that does not lead
 * to a regular file, or a directory where no new file can be made. */
bool cli_write_file(const char *path, const void *data, size_t size)
{
    char tmp[4096], *final = NULL;
    const char *target = path;
    struct stat st;
    bool in_place = false;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
        in_place = stat(path, &st) != 0 || !S_ISREG(st.st_mode) || !(target = final = realpath(path, NULL));
    bool exists = !in_place && stat(target ? target : path, &st) == 0;
    in_place = in_place || (exists && (!S_ISREG(st.st_mode) || st.st_nlink > 1)) ||
               snprintf(tmp, sizeof tmp, "%s.%ld.tmp", target, (long)getpid()) >= (int)sizeof tmp;
    int fd = in_place ? -1 : open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd >= 0 && exists)
        fchmod(fd, st.st_mode & 07777);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (fd >= 0 && !f) {
        close(fd);
        remove(tmp);
        fd = -1;
    }
    if (!f)
        f = fopen(in_place || !target ? path : target, "wb");
    if (!f) {
        cli_error(CLI_FAIL, "%s: %s", path, strerror(errno));
        free(final);
        return false;
    }
    bool good = fwrite(data, 1, size, f) == size;
    int err = errno;
    if (fclose(f) != 0 && good)
        good = false, err = errno;
    if (good && fd >= 0 && rename(tmp, target) != 0)
        good = false, err = errno;
    if (!good && fd >= 0)
        remove(tmp);
    if (!good)
        cli_error(CLI_FAIL, "%s: write error: %s", path, strerror(err));
    free(final);
    return good;
}

/* Loads FILE as .cbc bytes, assembling .cbs text first. Caller frees with cvm_free_bytes. */
static int module_bytes(const char *path, void **out, size_t *out_size)
{
    char *text = NULL;
    size_t len = 0;
    cvm_diag d;
    if (!cli_read_file(path, &text, &len))
        return CLI_FAIL;
    if (cli_is_cuda(path) && !(len >= 4 && memcmp(text, "CBC\x1a", 4) == 0)) {
        free(text);
        return cli_error(CLI_FAIL, "%s: CUDA C source, not a module; compile it with 'cubevm compile' "
                         "(which verifies what it writes), or read it with 'cubevm info'", path);
    }
    if (!has_suffix(path, ".cbs")) {
        void *copy = malloc(len ? len : 1);
        if (!copy) {
            free(text);
            return cli_error(CLI_FAIL, "%s: out of memory", path);
        }
        memcpy(copy, text, len);
        free(text);
        *out = copy;
        *out_size = len;
        return CLI_OK;
    }
    memset(&d, 0, sizeof d);
    cvm_status st = cvm_assemble(text, len, path, out, out_size, &d);
    free(text);
    if (st)
        return cli_diag_error(path, st, &d);
    return CLI_OK;
}

static void free_module_bytes(const char *path, void *bytes)
{
    if (has_suffix(path, ".cbs"))
        cvm_free_bytes(bytes);
    else
        free(bytes);
}

/* The arguments of asm and disasm, IN [-o OUT] (argv[0]: the command):
 * CLI_OK, or CLI_USAGE after the message. */
static int in_out_args(int argc, char **argv, const char **in, const char **out)
{
    const char *cmd = argv[0], *v;
    *in = *out = NULL;
    for (int i = 1; i < argc; i++) {
        const int r = cli_opt_value(argc, argv, &i, cmd, "-o", &v);
        if (r < 0)
            return CLI_USAGE;
        else if (r > 0 && *out)
            return cli_error(CLI_USAGE, "%s: -o is given more than once", cmd);
        else if (r > 0)
            *out = v;
        else if (argv[i][0] == '-' && argv[i][1])
            return cli_unknown_option(cmd, argv[i]);
        else if (!*in)
            *in = argv[i];
        else
            return cli_error(CLI_USAGE, "%s: unexpected argument '%s'", cmd, argv[i]);
    }
    return CLI_OK;
}

static int cmd_asm(int argc, char **argv)
{
    const char *in, *out;
    if (in_out_args(argc, argv, &in, &out))
        return CLI_USAGE;
    if (!in || !out)
        return cli_error(CLI_USAGE, "asm: usage: cubevm asm IN.cbs -o OUT.cbc");
    if (cli_distinct_output("asm", in, out))
        return CLI_USAGE;
    char *text;
    size_t len;
    if (!cli_read_file(in, &text, &len))
        return CLI_FAIL;
    void *bytes = NULL;
    size_t size = 0;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_status st = cvm_assemble(text, len, in, &bytes, &size, &d);
    free(text);
    if (st)
        return cli_diag_error(in, st, &d);
    int rc = cli_write_file(out, bytes, size) ? CLI_OK : CLI_FAIL;
    cvm_free_bytes(bytes);
    return rc;
}

static int cmd_disasm(int argc, char **argv)
{
    const char *in, *out;
    if (in_out_args(argc, argv, &in, &out))
        return CLI_USAGE;
    if (!in)
        return cli_error(CLI_USAGE, "disasm: usage: cubevm disasm IN.cbc [-o OUT.cbs]");
    if (cli_distinct_output("disasm", in, out))
        return CLI_USAGE;
    void *bytes = NULL; /* a .cbs file is assembled first: its canonical text */
    size_t size = 0;
    int brc = module_bytes(in, &bytes, &size);
    if (brc)
        return brc;
    char *text = NULL;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    /* text only for a module that verifies: the listing of a corrupted one
     * would look like a module and not assemble */
    cvm_status st = cvm_verify(bytes, size, &d);
    if (st == CVM_OK)
        st = cvm_disassemble(bytes, size, &text, &d);
    free_module_bytes(in, bytes);
    if (st)
        return cli_diag_error(in, st, &d);
    int rc = CLI_OK;
    if (out)
        rc = cli_write_file(out, text, strlen(text)) ? CLI_OK : CLI_FAIL;
    else
        fputs(text, stdout); /* main checks stdout */
    cvm_free_bytes(text);
    return rc;
}

static int cmd_verify(int argc, char **argv)
{
    if (argc != 2 || (argv[1][0] == '-' && argv[1][1]))
        return cli_error(CLI_USAGE, "verify: usage: cubevm verify FILE");
    void *bytes = NULL;
    size_t size = 0;
    int rc = module_bytes(argv[1], &bytes, &size);
    if (rc)
        return rc;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_status st = cvm_verify(bytes, size, &d);
    free_module_bytes(argv[1], bytes);
    if (st)
        return cli_diag_error(argv[1], st, &d);
    printf("%s: ok\n", argv[1]);
    return CLI_OK;
}

static const char *access_name(cvm_access a)
{
    switch (a) {
    case CVM_ACCESS_READ: return "read";
    case CVM_ACCESS_WRITE: return "write";
    case CVM_ACCESS_READWRITE: return "readwrite";
    }
    return "?";
}

static void print_kernel(const cvm_kernel *k)
{
    cvm_kernel_info ki;
    cvm_kernel_info_get(k, &ki);
    printf("kernel %s(", ki.name);
    for (uint32_t i = 0; i < ki.param_count; i++) {
        cvm_param_info p;
        cvm_kernel_param(k, i, &p);
        printf("%s%s", i ? ", " : "", p.name);
    }
    printf(")\n");
    for (uint32_t i = 0; i < ki.param_count; i++) {
        cvm_param_info p;
        cvm_kernel_param(k, i, &p);
        printf("  param %-12s ", p.name);
        char type[32];
        if (p.line > 1)
            snprintf(type, sizeof type, "%sx%u", cli_elem_name(p.elem), p.line);
        else
            snprintf(type, sizeof type, "%s", cli_elem_name(p.elem));
        switch (p.kind) {
        case CVM_PARAM_BUFFER: printf("buffer %s %s\n", type, access_name(p.access)); break;
        case CVM_PARAM_SCALAR: printf("scalar %s (%u byte%s)\n", type, p.size, p.size == 1 ? "" : "s"); break;
        case CVM_PARAM_COMPTIME: printf("comptime %s (%u byte%s)\n", type, p.size, p.size == 1 ? "" : "s"); break;
        case CVM_PARAM_STRUCT: printf("struct (%u byte%s)\n", p.size, p.size == 1 ? "" : "s"); break;
        }
    }
    if (ki.plane_width)
        printf("  requires: plane width %u%s", ki.plane_width, ki.plane_width_hint ? " (preferred)" : "");
    else
        printf("  requires: plane width any");
    printf(", shared %u bytes, local %u bytes per unit, max cube ", ki.shared_bytes,
           ki.local_bytes);
    if (ki.max_cube_units)
        printf("%u units\n", ki.max_cube_units);
    else
        printf("none\n");
}

/* "  instance reduce<128>: blockSize = 128", the comptime values a
 * template instance's name gives kernel k of mod. */
static void print_instance(const cvm_module *mod, const cvm_kernel *k, const char *instance)
{
    int64_t values[256];
    bool set[256];
    cvm_kernel_info ki;
    cvm_kernel_info_get(k, &ki);
    if (ki.param_count > 256 || !cli_instance_values(mod, instance, values, set, 256))
        return;
    printf("  instance %s:", instance);
    const char *sep = " ";
    for (uint32_t i = 0; i < ki.param_count; i++) {
        cvm_param_info p;
        cvm_kernel_param(k, i, &p);
        if (p.kind != CVM_PARAM_COMPTIME || !set[i]) /* "k<M, 5>": M stays a parameter */
            continue;
        char text[24];
        cli_comptime_text(p.elem, values[i], text, sizeof text);
        printf("%s%s = %s", sep, p.name, text);
        sep = ", ";
    }
    printf("\n");
}

static int cmd_info(int argc, char **argv)
{
    cli_cuda_opts o;
    const char *file = NULL;
    cvm_device *dev = NULL;
    cvm_module *mod = NULL;
    const cvm_kernel **sel = NULL; /* per --kernel name, the module's kernel */
    int rc = CLI_USAGE;
    if (!cli_cuda_opts_init(&o, argc))
        return cli_error(CLI_FAIL, "out of memory");
    for (int i = 1; i < argc; i++) {
        int r = cli_cuda_option(&o, argc, argv, &i, "info");
        if (r < 0)
            goto done;
        if (r > 0)
            continue;
        /* --kernel: a .cu file's kernels or instances */
        if ((r = cli_opt_value(argc, argv, &i, "info", "--kernel", &o.kernels[o.nkernels])) < 0)
            goto done;
        if (r > 0) {
            o.nkernels++;
            continue;
        }
        if (argv[i][0] == '-' && argv[i][1]) {
            rc = cli_unknown_option("info", argv[i]);
            goto done;
        }
        if (file) {
            cli_error(CLI_USAGE, "info: usage: cubevm info FILE [CUDA OPTIONS] [--kernel NAME]...");
            goto done;
        }
        file = argv[i];
    }
    if (!file) {
        cli_error(CLI_USAGE, "info: usage: cubevm info FILE [CUDA OPTIONS] [--kernel NAME]...");
        goto done;
    }
    if (cli_cuda_opts_check(&o, "info", file))
        goto done;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_status st = cvm_device_open("cpu", NULL, &dev, &d);
    if (st) {
        rc = cli_diag_error(NULL, st, &d);
        goto done;
    }
    if ((rc = cli_load_module(dev, file, &o, &mod)))
        goto done;
    uint32_t n = cvm_module_kernel_count(mod);
    /* --kernel: for a .cu file, what is compiled (a template instance may be
     * one comptime kernel); for a module, the kernels listed, each present */
    const uint32_t nsel = has_suffix(file, ".cu") ? 0 : o.nkernels;
    if (nsel && !(sel = calloc(nsel, sizeof *sel))) {
        rc = cli_error(CLI_FAIL, "info: out of memory");
        goto done;
    }
    for (uint32_t j = 0; j < nsel; j++) {
        int64_t values[256];
        if (cvm_kernel_get(mod, o.kernels[j], &sel[j], NULL) != CVM_OK &&
            cvm_kernel_get_instance(mod, o.kernels[j], &sel[j], values, 256, NULL) != CVM_OK) {
            rc = cli_error(CLI_USAGE, "info: %s has no kernel '%s'", file, o.kernels[j]);
            goto done;
        }
    }
    if (!nsel)
        printf("%s: %u kernel%s\n", file, n, n == 1 ? "" : "s");
    for (uint32_t i = 0; i < n; i++) {
        const cvm_kernel *k = NULL;
        if (cvm_kernel_get(mod, cvm_module_kernel_name(mod, i), &k, NULL) != CVM_OK)
            continue;
        bool wanted = !nsel;
        for (uint32_t j = 0; j < nsel; j++)
            wanted = wanted || sel[j] == k;
        if (wanted)
            print_kernel(k);
        /* the template instances named for it, with the values they give */
        for (uint32_t j = 0; j < nsel; j++)
            if (sel[j] == k && strcmp(o.kernels[j], cvm_module_kernel_name(mod, i)))
                print_instance(mod, k, o.kernels[j]);
    }
done:
    free(sel);
    cvm_module_free(mod);
    cvm_device_close(dev);
    cli_cuda_opts_free(&o);
    return rc;
}

/* tools/cubevm_devices.c */
int cli_devices(int argc, char **argv);

static int dispatch(int argc, char **argv);

/* Every command's output to stdout (--print lines, kernel printf, info,
 * listings) is checked once at the end: a full disk or a closed pipe is a
 * failure, not a success with the output lost. */
int main(int argc, char **argv)
{
    /* a write past a file-size limit or into a closed pipe fails with an
     * error (EFBIG, EPIPE) the command reports, instead of a signal that
     * kills it with a temporary file left and stdout unflushed */
    signal(SIGXFSZ, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    int rc = dispatch(argc, argv);
    if ((fflush(stdout) != 0 || ferror(stdout)) && rc == CLI_OK)
        rc = cli_error(CLI_FAIL, "writing to stdout failed: %s", strerror(errno));
    return rc;
}

static void print_help(void)
{
    for (int i = 0; help_text[i]; i++)
        fputs(help_text[i], stdout);
}

static const struct {
    const char *name;
    int (*fn)(int argc, char **argv); /* argv[0] is the command's name */
} commands[] = {
    {"asm", cmd_asm}, {"disasm", cmd_disasm},   {"verify", cmd_verify},   {"info", cmd_info},
    {"run", cli_run}, {"compile", cli_compile}, {"devices", cli_devices}, {"spirv", cli_spirv},
    {"debug", cli_debug},
};

static int dispatch(int argc, char **argv)
{
    if (argc < 2)
        return cli_error(CLI_USAGE, "no command given; try 'cubevm --help'");
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        /* `cubevm help run` is the same text; a word after it that is no command is a typo */
        bool known = argc < 3;
        for (size_t c = 0; c < sizeof commands / sizeof commands[0] && !known; c++)
            known = !strcmp(argv[2], commands[c].name);
        if (argc > 3 || !known)
            return cli_error(CLI_USAGE, "%s: unexpected argument '%s'; try 'cubevm --help'", cmd,
                             argv[argc > 3 && known ? 3 : 2]);
        print_help();
        return CLI_OK;
    }
    if (!strcmp(cmd, "--version")) {
        if (argc > 2)
            return cli_error(CLI_USAGE, "--version: unexpected argument '%s'", argv[2]);
        printf("cubevm %s\n", CVM_VERSION_STRING);
        return CLI_OK;
    }
    for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++) {
        if (strcmp(cmd, commands[c].name) != 0)
            continue;
        /* `cubevm COMMAND ... --help` shows the same text (the commands share options). */
        for (int i = 2; i < argc; i++)
            if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
                print_help();
                return CLI_OK;
            }
        return commands[c].fn(argc - 1, argv + 1);
    }
    /* an unknown word is an error even before --help: help would hide the typo */
    if (cmd[0] == '-')
        return cli_error(CLI_USAGE, "unknown option '%s'; try 'cubevm --help'", cmd);
    return cli_error(CLI_USAGE, "unknown command '%s'; try 'cubevm --help'", cmd);
}
