/*
 * test_spirv.c - the SPIR-V backend on the whole corpus: every kernel of
 * the .cbs files of docs/examples and tests/conformance and the .cu files of tests/cuda is
 * translated for lavapipe's target and checked with spirv-val at the
 * matching environment; kernels rejected by design must be the ones
 * docs/backends.md lists, each with its diagnostic checked. Buffer
 * device address on and off for pointers without a single buffer. f32 atomic add with and
 * without the float-add feature. Golden checks on disassembly:
 * NoContraction, barrier scopes, the exited flag.
 */
#include "../backends/spirv/spv.h"
#include "slurp.h"
#include "tap.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *tmpdir(void)
{
    const char *t = getenv("TEST_TMPDIR");
    return t && *t ? t : "/tmp";
}

static cvm_spv_target lavapipe(void)
{
    cvm_spv_target t;
    memset(&t, 0, sizeof t);
    t.spirv_version = 0x10600;
    t.subgroup_size = 8;
    t.plane_width = 8;
    t.f64 = t.f16 = t.int8 = t.int16 = t.int64 = t.int64_atomics = true;
    t.float_atomic_add = t.float_atomic_minmax = t.buffer_device_address = true;
    t.vulkan_memory_model = true;
    return t;
}

static int have_tool(const char *name)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", name);
    return system(cmd) == 0;
}

/* Writes the words and runs spirv-val; 1 when valid. Keeps the file for golden checks. */
static int validate(const uint32_t *w, size_t n, const char *tag, char *path, size_t pathn)
{
    snprintf(path, pathn, "%s/spv_%d_%s.spv", tmpdir(), (int)getpid(), tag);
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(w, 4, n, f);
    fclose(f);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "spirv-val --target-env vulkan1.3 '%s' > '%s.log' 2>&1", path, path);
    int ok = system(cmd) == 0;
    if (!ok) {
        snprintf(cmd, sizeof cmd, "head -c 600 '%s.log' | sed 's/^/# /'", path);
        if (system(cmd) != 0)
            diag("cannot show the log");
    }
    return ok;
}

static int nvalid, nskipped;

/*
 * The kernels rejected on lavapipe's target (docs/backends.md's table), each
 * with the words its diagnostic must contain. A rejection not listed here,
 * or a listed kernel that translates, fails the test.
 */
#define WIDTH32 "needs plane width 32 but the device's subgroups are 8 wide, and its control flow is not cube-uniform"
static struct rejection {
    const char *kernel, *op, *why;
    int seen;
} rejections[] = {
    {"gemvWarp", "'shfl.xor'", WIDTH32, 0},
    {"deviceReduceSum", "'shfl.down'", WIDTH32, 0},
    {"softmaxRows", "'shfl.xor'", WIDTH32, 0},
    {"spmvCsrVector", "'shfl.down'", WIDTH32, 0},
    {"shfl_scan_test", "'shfl.idx'", WIDTH32, 0},
    {"fence_flag", "'sync_plane'", WIDTH32, 0},
    {"reduce<256>", "'sync_plane'", WIDTH32, 0},
    {"reduce<128>", "'sync_plane'", WIDTH32, 0},
    {"filter_positive", "'activemask'", WIDTH32, 0},
    {"sumsq_max", "'shfl.down'", WIDTH32, 0},
};
#define NREJ (sizeof rejections / sizeof rejections[0])

static void rejected(const char *file, const char *kernel, const char *msg)
{
    for (size_t i = 0; i < NREJ; i++) {
        struct rejection *r = &rejections[i];
        if (strcmp(r->kernel, kernel) != 0)
            continue;
        r->seen++;
        ok(strstr(msg, r->op) && strstr(msg, r->why) && strstr(msg, kernel),
           "%s %s: rejected as docs/backends.md lists it: %s", file, kernel, msg);
        nskipped++;
        return;
    }
    ok(0, "%s %s: rejected, but not listed in docs/backends.md: %s", file, kernel, msg);
}

static void check_module(const void *bytes, size_t size, const char *name)
{
    cvm_bc_module *mod = NULL;
    cvm_bc_verified *ver = NULL;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    if (cvm_bc_module_read(bytes, size, cvm_default_alloc, NULL, &mod, &d) != CVM_OK ||
        cvm_bc_verify(mod, &ver, &d) != CVM_OK) {
        ok(0, "%s: load: %s", name, d.message);
        cvm_bc_module_free(mod);
        return;
    }
    cvm_spv_target t = lavapipe();
    for (uint32_t k = 0; k < mod->nkernels; k++) {
        const char *kn = cvm_bc_str(mod, mod->kernels[k].name);
        uint32_t *w = NULL;
        size_t n = 0;
        cvm_spv_layout L;
        memset(&d, 0, sizeof d);
        /* as the vulkan device launches: the kernel's plane width, else the subgroup size */
        t.plane_width = mod->kernels[k].plane_width ? mod->kernels[k].plane_width : t.subgroup_size;
        cvm_status st = cvm_spv_compile(mod, ver, k, &t, &w, &n, &L, &d);
        if (st == CVM_UNSUPPORTED) {
            rejected(name, kn, d.message);
            continue;
        }
        if (!ok(st == CVM_OK, "%s %s: translates", name, kn)) {
            diag("%s", d.message);
            continue;
        }
        char tag[200], path[512];
        snprintf(tag, sizeof tag, "%s_%s", name, kn);
        for (char *p = tag; *p; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
                *p = '_';
        nvalid += ok(validate(w, n, tag, path, sizeof path), "%s %s: spirv-val", name, kn);
        cvm_bc_free(mod->alloc, mod->alloc_user, w, n * 4);
        cvm_spv_layout_free(mod, &L);
    }
    cvm_bc_verified_free(mod, ver);
    cvm_bc_module_free(mod);
}

static void corpus_dir(const char *dir, const char *ext)
{
    DIR *dp = opendir(dir);
    if (!dp) {
        ok(0, "open %s", dir);
        return;
    }
    char *names[512];
    int nn = 0;
    struct dirent *de;
    while ((de = readdir(dp)) && nn < 512) {
        size_t l = strlen(de->d_name), el = strlen(ext);
        if (l > el && strcmp(de->d_name + l - el, ext) == 0)
            names[nn++] = strdup(de->d_name);
    }
    closedir(dp);
    for (int i = 0; i < nn; i++) /* stable order */
        for (int j = i + 1; j < nn; j++)
            if (strcmp(names[j], names[i]) < 0) {
                char *x = names[i];
                names[i] = names[j];
                names[j] = x;
            }
    for (int i = 0; i < nn; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        size_t len = 0;
        char *src = test_slurp(path, &len);
        void *bytes = NULL;
        size_t size = 0;
        cvm_diag d;
        memset(&d, 0, sizeof d);
        cvm_status st = !src ? CVM_IO
                        : strcmp(ext, ".cu") == 0 ? cvm_compile_cuda(src, len, path, NULL, &bytes, &size, &d)
                                                  : cvm_assemble(src, len, path, &bytes, &size, &d);
        if (st == CVM_OK)
            check_module(bytes, size, names[i]);
        else {
            tap_n++;
            printf("ok %d - %s # SKIP does not compile: %s\n", tap_n, names[i], d.message);
        }
        cvm_free_bytes(bytes);
        free(src);
        free(names[i]);
    }
}


/* Template instances the test_cuda corpus runs (a file of templates alone compiles nothing). */
static void instances(void)
{
    static const char *const inst[][2] = {{"reduce_template.cu", "reduce<256>"},
                                          {"reduce_template.cu", "reduce<128>"}};
    for (size_t i = 0; i < sizeof inst / sizeof inst[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "tests/cuda/%s", inst[i][0]);
        size_t len = 0;
        char *src = test_slurp(path, &len);
        void *bytes = NULL;
        size_t size = 0;
        cvm_diag d;
        memset(&d, 0, sizeof d);
        cvm_compile_options o;
        memset(&o, 0, sizeof o);
        o.kernels = &inst[i][1];
        o.kernel_count = 1;
        if (src && cvm_compile_cuda(src, len, path, &o, &bytes, &size, &d) == CVM_OK)
            check_module(bytes, size, inst[i][0]);
        else
            ok(0, "%s %s compiles: %s", inst[i][0], inst[i][1], d.message);
        cvm_free_bytes(bytes);
        free(src);
    }
}

/* ---- golden checks on spirv-dis output ---- */

/* One disassembled instruction: "%res = Op args..." (res 0 when none). */
typedef struct dline {
    unsigned res;
    char op[40];
    char arg[6][40];
    int nargs;
} dline;

static unsigned idnum(const char *s) { return s[0] == '%' ? (unsigned)strtoul(s + 1, NULL, 10) : 0; }

/* Disassembles path with raw ids; returns the instruction count (0 on failure). */
static int disassemble(const char *path, dline *L, int max)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "spirv-dis --raw-id --no-header --no-indent '%s'", path);
    FILE *p = popen(cmd, "r");
    if (!p)
        return 0;
    char buf[512];
    int n = 0;
    while (n < max && fgets(buf, sizeof buf, p)) {
        dline *d = &L[n];
        memset(d, 0, sizeof *d);
        char *tok = strtok(buf, " \t\n");
        if (!tok)
            continue;
        if (tok[0] == '%') {
            d->res = idnum(tok);
            strtok(NULL, " \t\n"); /* "=" */
            tok = strtok(NULL, " \t\n");
        }
        if (!tok)
            continue;
        snprintf(d->op, sizeof d->op, "%s", tok);
        while (d->nargs < 6 && (tok = strtok(NULL, " \t\n")))
            snprintf(d->arg[d->nargs++], sizeof d->arg[0], "%s", tok);
        n++;
    }
    pclose(p);
    return n;
}

static int find_op(const dline *L, int n, int from, const char *op, unsigned res)
{
    for (int i = from; i < n; i++)
        if (!strcmp(L[i].op, op) && (!res || L[i].res == res))
            return i;
    return -1;
}

/* The value of an OpConstant id, or -1. */
static long const_value(const dline *L, int n, const char *id)
{
    int i = find_op(L, n, 0, "OpConstant", idnum(id));
    return i < 0 ? -1 : strtol(L[i].arg[1], NULL, 0);
}

/*
 * A kernel where units 0..2 return inside an if, the rest compute
 * x + x and (x + x) * x, meet sync_cube and store.
 */
static const char golden_src[] =
    ".kernel golden\n"
    ".param out buffer f32 readwrite\n"
    ".reg u32 %t, %three\n"
    ".reg bool %c\n"
    ".reg ptr.global %p\n"
    ".reg f32 %a, %b\n"
    "    sreg.u32 %t, unit_pos.x\n"
    "    const.u32 %three, 3\n"
    "    lt.u32 %c, %t, %three\n"
    "    if %c\n"
    "        return\n"
    "    end\n"
    "    param.ptr.global %p, out, 0\n"
    "    ld.f32 %a, [%p]\n"
    "    add.f32 %b, %a, %a\n"
    "    mul.f32 %b, %b, %a\n"
    "    sync_cube\n"
    "    st.f32 [%p], %b\n"
    "    return\n"
    ".end\n";

/* An f64 kernel, so the module declares f64 (and f32 for nothing). */
static const char f64_src[] =
    ".kernel k\n.param out buffer f64 readwrite\n.reg ptr.global %p\n.reg f64 %a\n"
    "    param.ptr.global %p, out, 0\n    ld.f64 %a, [%p]\n    add.f64 %a, %a, %a\n"
    "    st.f64 [%p], %a\n    return\n.end\n";

/* Kernel 0 of .cbs text src translated for target t, checked with
 * spirv-val and disassembled into L (max lines): the line count, or 0 (with
 * the reason as a TAP comment) when any step fails. */
static int module_lines(const char *src, const cvm_spv_target *t, dline *L, int max)
{
    void *bytes = NULL;
    size_t size = 0;
    cvm_bc_module *mod = NULL;
    cvm_bc_verified *ver = NULL;
    uint32_t *w = NULL;
    size_t nw = 0;
    cvm_spv_layout lay;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    int n = 0;
    if (cvm_assemble(src, strlen(src), "k.cbs", &bytes, &size, &d) == CVM_OK &&
        cvm_bc_module_read(bytes, size, cvm_default_alloc, NULL, &mod, &d) == CVM_OK &&
        cvm_bc_verify(mod, &ver, &d) == CVM_OK && cvm_spv_compile(mod, ver, 0, t, &w, &nw, &lay, &d) == CVM_OK) {
        char path[512];
        if (validate(w, nw, "lines", path, sizeof path))
            n = disassemble(path, L, max);
        cvm_bc_free(mod->alloc, mod->alloc_user, w, nw * 4);
        cvm_spv_layout_free(mod, &lay);
    } else {
        diag("%s", d.message);
    }
    cvm_bc_verified_free(mod, ver);
    cvm_bc_module_free(mod);
    cvm_free_bytes(bytes);
    return n > 0 ? n : 0;
}

/* The float-controls execution modes of src's module for target t, as
 * width bitmasks (bits 16, 32, 64) of DenormPreserve and RoundingModeRTE,
 * after spirv-val; -1: no valid module. */
static int float_modes(const char *src, const cvm_spv_target *t, unsigned *denorm, unsigned *rte)
{
    static dline L[4096];
    int n = module_lines(src, t, L, 4096);
    *denorm = *rte = 0;
    for (int i = 0; i < n; i++)
        if (!strcmp(L[i].op, "OpExecutionMode")) {
            unsigned bits = (unsigned)atoi(L[i].arg[2]);
            if (!strcmp(L[i].arg[1], "DenormPreserve"))
                *denorm |= bits;
            if (!strcmp(L[i].arg[1], "RoundingModeRTE"))
                *rte |= bits;
        }
    return n ? 0 : -1;
}

/*
 * DenormPreserve and RoundingModeRTE: for the float widths the module
 * declares where the device offers them, with the widths the device ties
 * together (32-bit-only independence: 16 and 64 both or neither; none:
 * all three); nothing below SPIR-V 1.4. Every module passes spirv-val.
 */
static void float_controls(void)
{
    cvm_spv_target t = lavapipe();
    unsigned dn = 0, rt = 0;
    int r;
    r = float_modes(golden_src, &t, &dn, &rt);
    ok(r == 0 && dn == 0 && rt == 0,
       "no float controls offered: no modes (denorm %#x, rte %#x)", dn, rt);
    t.denorm_preserve16 = t.denorm_preserve32 = t.denorm_preserve64 = true;
    t.rte16 = t.rte32 = t.rte64 = true;
    r = float_modes(golden_src, &t, &dn, &rt);
    ok(r == 0 && dn == 32 && rt == 32,
       "independent widths, an f32 kernel: 32 only (denorm %#x, rte %#x)", dn, rt);
    t.denorm_indep = CVM_SPV_INDEP_32_ONLY;
    t.rounding_indep = CVM_SPV_INDEP_NONE;
    r = float_modes(f64_src, &t, &dn, &rt);
    ok(r == 0 && dn == (16 | 64) && rt == (16 | 32 | 64),
       "an f64 kernel; 16 and 64 tied for denormals, all widths for rounding (denorm %#x, rte %#x)", dn, rt);
    t.denorm_preserve16 = false;
    t.rte16 = false;
    r = float_modes(f64_src, &t, &dn, &rt);
    ok(r == 0 && dn == 0 && rt == 0,
       "the same without f16's modes: none can be set (denorm %#x, rte %#x)", dn, rt);
    t = lavapipe();
    t.denorm_preserve32 = t.rte32 = true;
    t.spirv_version = 0x10300;
    r = float_modes(golden_src, &t, &dn, &rt);
    ok(r == 0 && dn == 0 && rt == 0,
       "SPIR-V 1.3 (float controls not core): no modes (denorm %#x, rte %#x)", dn, rt);
}

/*
 * f32 div, rcp, sqrt, rsqrt and rem go through f64 (exact.c) where the
 * target has it: lavapipe's plain OpFDiv and Sqrt happen to be correctly
 * rounded, so test_spirv_vk's results alone would not show the sequence
 * missing. Each op's module must declare a 64-bit float.
 */
static void exact_sequences_used(void)
{
    static const char *const ops[] = {"div.f32 %r, %a, %b", "rcp.f32 %r, %a", "sqrt.f32 %r, %a",
                                      "rsqrt.f32 %r, %a", "rem.f32 %r, %a, %b"};
    cvm_spv_target t = lavapipe();
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        char src[512];
        snprintf(src, sizeof src,
                 ".kernel k\n.param out buffer f32 readwrite\n.reg ptr.global %%p\n.reg f32 %%a, %%b, %%r\n"
                 "    param.ptr.global %%p, out, 0\n    ld.f32 %%a, [%%p]\n    ld.f32 %%b, [%%p]\n"
                 "    %s\n    st.f32 [%%p], %%r\n    return\n.end\n", ops[i]);
        static dline L[8192];
        int f64 = 0, n = module_lines(src, &t, L, 8192);
        for (int j = 0; j < n; j++)
            f64 |= !strcmp(L[j].op, "OpTypeFloat") && !strcmp(L[j].arg[0], "64");
        ok(n > 0 && f64, "%.*s: valid, through f64", (int)strcspn(ops[i], " "), ops[i]);
    }
}

static void golden(void)
{
    void *bytes = NULL;
    size_t size = 0;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_spirv_options o = {0x10600, 8, 8};
    void *words = NULL;
    size_t nbytes = 0;
    if (!ok(cvm_assemble(golden_src, sizeof golden_src - 1, "golden.cbs", &bytes, &size, &d) == CVM_OK &&
                cvm_spirv_compile(bytes, size, NULL, &o, &words, &nbytes, &d) == CVM_OK,
            "golden kernel translates")) {
        diag("%s", d.message);
        cvm_free_bytes(bytes);
        return;
    }
    char path[512];
    ok(validate(words, nbytes / 4, "golden", path, sizeof path), "golden kernel: spirv-val");
    cvm_free_bytes(words);
    cvm_free_bytes(bytes);
    static dline L[4096];
    int n = disassemble(path, L, 4096);
    ok(n > 0, "spirv-dis reads it");

    /* every float add/mul result is decorated NoContraction (docs/design.md: no fma contraction) */
    int nf = 0, nnc = 0;
    for (int i = 0; i < n; i++)
        if (!strcmp(L[i].op, "OpFAdd") || !strcmp(L[i].op, "OpFMul") || !strcmp(L[i].op, "OpFSub")) {
            nf++;
            for (int j = 0; j < n; j++)
                if (!strcmp(L[j].op, "OpDecorate") && idnum(L[j].arg[0]) == L[i].res &&
                    !strcmp(L[j].arg[1], "NoContraction")) {
                    nnc++;
                    break;
                }
        }
    ok(nf == 2 && nnc == 2, "OpFAdd and OpFMul carry NoContraction (%d of %d)", nnc, nf);

    /* sync_cube: execution and memory scope Workgroup (2); semantics AcquireRelease 0x8 |
       UniformMemory 0x40 (global) | WorkgroupMemory 0x100 (shared) = 0x148 */
    int b = find_op(L, n, 0, "OpControlBarrier", 0);
    ok(b >= 0 && find_op(L, n, b + 1, "OpControlBarrier", 0) < 0, "one OpControlBarrier");
    if (b >= 0)
        ok(const_value(L, n, L[b].arg[0]) == 2 && const_value(L, n, L[b].arg[1]) == 2 &&
               const_value(L, n, L[b].arg[2]) == 0x148,
           "barrier scopes Workgroup/Workgroup, semantics 0x148 (got %ld %ld 0x%lx)",
           const_value(L, n, L[b].arg[0]), const_value(L, n, L[b].arg[1]),
           const_value(L, n, L[b].arg[2]));

    /* the exited flag: the return stores true; the code after the if is guarded by
       "if exited skip", and the guard closes before the barrier */
    int nm = -1;
    for (int i = 0; i < n; i++)
        if (!strcmp(L[i].op, "OpName") && !strcmp(L[i].arg[1], "\"exited\""))
            nm = i;
    ok(nm >= 0, "a variable named exited");
    if (nm < 0)
        return;
    unsigned ex = idnum(L[nm].arg[0]);
    int st = -1;
    for (int i = 0; i < n && st < 0; i++)
        if (!strcmp(L[i].op, "OpStore") && idnum(L[i].arg[0]) == ex &&
            find_op(L, n, 0, "OpConstantTrue", idnum(L[i].arg[1])) >= 0)
            st = i;
    ok(st >= 0, "return stores true to exited");
    int ld = -1;
    for (int i = st + 1; st >= 0 && i < n && ld < 0; i++)
        if (!strcmp(L[i].op, "OpLoad") && idnum(L[i].arg[1]) == ex)
            ld = i;
    int sm = ld >= 0 ? find_op(L, n, ld, "OpSelectionMerge", 0) : -1;
    int bc = ld >= 0 ? find_op(L, n, ld, "OpBranchConditional", 0) : -1;
    unsigned merge = sm >= 0 ? idnum(L[sm].arg[0]) : 0;
    bool guard = bc == sm + 1 && idnum(L[bc].arg[0]) == L[ld].res && idnum(L[bc].arg[1]) == merge;
    ok(guard, "after the return, exited is loaded and a true value branches to the guard's merge");
    int ml = guard ? find_op(L, n, bc, "OpLabel", merge) : -1;
    int fa = find_op(L, n, 0, "OpFAdd", 0);
    ok(guard && fa > bc && fa < ml, "the code after the return is inside the guard");
    ok(guard && b > ml, "the barrier is outside the guard (every unit reaches it)");
}

/* Pointer bases are flow-sensitive: one register may address different buffers in turn. */
static const char *const bases_src[][2] = {
    {"sequential reuse of a register for two buffers translates",
     "    param.ptr.global %p, a, 0\n    ld.f32 %x, [%p]\n"
     "    param.ptr.global %p, b, 0\n    st.f32 [%p], %x\n"},
    {"a buffer chosen in both arms of an if, then used",
     "    if %c\n        param.ptr.global %p, a, 0\n    else\n        param.ptr.global %p, b, 0\n"
     "    end\n    st.f32 [%p], %x\n"},
    {"the same buffer in both arms translates",
     "    if %c\n        param.ptr.global %p, a, 0\n    else\n        param.ptr.global %p, a, 0\n"
     "    end\n    st.f32 [%p], %x\n"},
    {"a loop that switches the buffer at the end of its body",
     "    param.ptr.global %p, a, 0\n    loop\n        st.f32 [%p], %x\n        if %c\n"
     "            break\n        end\n        param.ptr.global %p, b, 0\n    end\n"},
    {"a buffer assigned before a break reaches the code after the loop",
     "    param.ptr.global %p, a, 0\n    loop\n        param.ptr.global %p, b, 0\n"
     "        break\n    end\n    st.f32 [%p], %x\n"},
};
static const bool bases_ok[] = {true, false, true, false, true};

/* Translates kernel 0 of .cbc bytes for target t (words freed by the caller with free()). */
static cvm_status translate_for(const void *bytes, size_t size, const cvm_spv_target *t,
                                uint32_t **words, size_t *n, cvm_diag *d)
{
    cvm_bc_module *mod = NULL;
    cvm_bc_verified *ver = NULL;
    cvm_spv_layout L;
    uint32_t *w = NULL;
    *words = NULL;
    cvm_status st = cvm_bc_module_read(bytes, size, cvm_default_alloc, NULL, &mod, d);
    st = st ? st : cvm_bc_verify(mod, &ver, d);
    st = st ? st : cvm_spv_compile(mod, ver, 0, t, &w, n, &L, d);
    if (st == CVM_OK) {
        *words = malloc(*n * 4);
        if (*words)
            memcpy(*words, w, *n * 4);
        cvm_bc_free(mod->alloc, mod->alloc_user, w, *n * 4);
        cvm_spv_layout_free(mod, &L);
    }
    if (ver)
        cvm_bc_verified_free(mod, ver);
    cvm_bc_module_free(mod);
    return st;
}

/* Assembles .cbs text and translates its first kernel for lavapipe (plane
 * width 8); the status, with the message in d. */
static cvm_status translate_text(const char *src, cvm_diag *d)
{
    void *bytes = NULL;
    uint32_t *words = NULL;
    size_t size = 0, n = 0;
    memset(d, 0, sizeof *d);
    cvm_status st = cvm_assemble(src, strlen(src), "t.cbs", &bytes, &size, d);
    cvm_spv_target t = lavapipe();
    if (st == CVM_OK)
        st = translate_for(bytes, size, &t, &words, &n, d);
    free(words);
    cvm_free_bytes(bytes);
    return st;
}

/* A bf16 register is refused saying what to do (it said "bf16 has no SPIR-V type"). */
static void bf16_refused(void)
{
    static const char src[] = ".kernel k\n.param o buffer f32 write\n.reg bf16 %h\n.reg f32 %f\n"
                              ".reg ptr.global %p\n    const.f32 %f, 1.5\n    cvt.bf16 %h, %f\n"
                              "    cvt.f32 %f, %h\n    param.ptr.global %p, o, 0\n    st.f32 [%p], %f\n"
                              "    return\n.end\n";
    cvm_diag d;
    cvm_status st = translate_text(src, &d);
    ok(st == CVM_UNSUPPORTED && strstr(d.message, "register %r0 of type bf16: ") &&
           strstr(d.message, "not supported on the vulkan device") && strstr(d.message, "cpu device"),
       "a bf16 register is refused, saying to run on the cpu device (%s)", d.message);
}

/* A kernel's plane width that is a hint (CUDA code reading warpSize) gives
 * way to the launch's; a required one does not (the hint was taken as
 * required: --plane-width 8 on vulkan was refused). */
static void width_hint(void)
{
    for (int fixed = 0; fixed < 2; fixed++) {
        char src[256];
        snprintf(src, sizeof src, ".kernel k\n.plane_width 32%s\n.param o buffer u32 write\n.reg u32 %%w\n"
                 ".reg ptr.global %%p\n    sreg.u32 %%w, plane_dim\n    param.ptr.global %%p, o, 0\n"
                 "    st.u32 [%%p], %%w\n    return\n.end\n", fixed ? "" : " hint");
        cvm_diag d;
        cvm_status st = translate_text(src, &d); /* at plane width 8 */
        if (fixed)
            ok(st == CVM_UNSUPPORTED && strstr(d.message, "needs plane width 32, the launch has 8"),
               "a required plane width 32 refuses a launch of 8 (%s)", d.message);
        else
            ok(st == CVM_OK, "a plane width 32 hint gives way to a launch of 8 (%s)", st ? d.message : "ok");
    }
}

/*
 * Without buffer device address, an access whose register may hold pointers
 * into two buffers is rejected naming the register; with it (lavapipe), the
 * kernel switches to device addresses and validates.
 */
static void bases(void)
{
    for (size_t i = 0; i < sizeof bases_src / sizeof bases_src[0]; i++) {
        char src[2048];
        snprintf(src, sizeof src,
                 ".kernel k\n.param a buffer f32 readwrite\n.param b buffer f32 readwrite\n"
                 ".reg u32 %%t, %%z\n.reg bool %%c\n.reg ptr.global %%p\n.reg f32 %%x\n"
                 "    sreg.u32 %%t, unit_pos.x\n    const.u32 %%z, 0\n    eq.u32 %%c, %%t, %%z\n"
                 "    cvt.f32 %%x, %%t\n%s    return\n.end\n",
                 bases_src[i][1]);
        void *bytes = NULL;
        uint32_t *words = NULL;
        size_t size = 0, n = 0;
        cvm_diag d;
        memset(&d, 0, sizeof d);
        cvm_status st = cvm_assemble(src, strlen(src), "bases.cbs", &bytes, &size, &d);
        cvm_spv_target t = lavapipe();
        for (int bda = 0; bda < 2 && st == CVM_OK; bda++) {
            t.buffer_device_address = bda;
            cvm_status ts = translate_for(bytes, size, &t, &words, &n, &d);
            const char *how = bda ? "with buffer device address" : "without buffer device address";
            if (bases_ok[i] || bda) {
                char path[512], tag[32];
                snprintf(tag, sizeof tag, "bases%u_%d", (unsigned)i, bda);
                if (ok(ts == CVM_OK, "%s (%s)", bases_src[i][0], how))
                    ok(validate(words, n, tag, path, sizeof path), "%s (%s): spirv-val", bases_src[i][0], how);
                else
                    diag("%s", d.message);
            } else {
                ok(ts == CVM_UNSUPPORTED && strstr(d.message, "register %r3") /* t, z, c, p */ &&
                       strstr(d.message, "more than one buffer") &&
                       strstr(d.message, "buffer device address, which the device lacks"),
                   "%s (%s)", bases_src[i][0], how);
                diag("%s", d.message);
            }
            free(words);
            words = NULL;
        }
        if (st != CVM_OK)
            ok(0, "bases kernel %u assembles: %s", (unsigned)i, d.message);
        cvm_free_bytes(bytes);
    }
}

/* 64-bit atomics: global memory through a u64 view validates; shared memory is rejected by name. */
static void atomics64(void)
{
    static const char *const src[2] = {
        ".kernel g\n.param out buffer u64 readwrite\n.reg u64 %v, %old\n.reg ptr.global %p\n"
        "    const.u64 %v, 5\n    param.ptr.global %p, out, 0\n"
        "    atom.add.relaxed.device.u64 %old, [%p], %v\n"
        "    atom.cas.relaxed.device.u64 %old, [%p], %v, %old\n    return\n.end\n",
        ".kernel s\n.shared 64\n.reg u64 %v, %old\n.reg ptr.shared %p\n"
        "    const.u64 %v, 5\n    const.ptr.shared %p, 0\n"
        "    atom.add.relaxed.cube.u64 %old, [%p], %v\n    return\n.end\n"};
    for (int i = 0; i < 2; i++) {
        void *bytes = NULL, *words = NULL;
        size_t size = 0, nbytes = 0;
        cvm_diag d;
        memset(&d, 0, sizeof d);
        cvm_status st = cvm_assemble(src[i], strlen(src[i]), "a64.cbs", &bytes, &size, &d);
        if (st != CVM_OK) {
            ok(0, "64-bit atomics kernel %d assembles: %s", i, d.message);
            continue;
        }
        st = cvm_spirv_compile(bytes, size, NULL, NULL, &words, &nbytes, &d);
        if (i == 0) {
            char path[512];
            ok(st == CVM_OK && validate(words, nbytes / 4, "atomic64", path, sizeof path),
               "64-bit global atomics (add, cas) translate and validate (%s)", st ? d.message : "");
        } else {
            ok(st == CVM_UNSUPPORTED && strstr(d.message, "64-bit 'atom.add'") &&
                   strstr(d.message, "only global memory"),
               "64-bit shared-memory atomics are rejected naming the op: %s", d.message);
        }
        cvm_free_bytes(words);
        cvm_free_bytes(bytes);
    }
}

/*
 * f32 atomic add: with shaderBufferFloat32AtomicAdd the global adds are
 * OpAtomicFAddEXT (descriptor view, and device addresses when a pointer
 * selects between buffers), the shared add stays a compare-exchange loop;
 * without the feature every add is a loop. All validate.
 */
static void float_atomics(void)
{
    static const char *const src[2] = {
        ".kernel f\n.param a buffer f32 readwrite\n.shared 16\n.reg f32 %v, %old\n"
        ".reg ptr.global %p\n.reg ptr.shared %q\n"
        "    const.f32 %v, 2.0\n    param.ptr.global %p, a, 0\n    const.ptr.shared %q, 0\n"
        "    atom.add.relaxed.device.f32 %old, [%p], %v\n"
        "    atom.add.relaxed.cube.f32 %old, [%q], %v\n    return\n.end\n",
        ".kernel f\n.param a buffer f32 readwrite\n.param b buffer f32 readwrite\n.shared 16\n"
        ".reg f32 %v, %old\n.reg u32 %t, %z\n.reg bool %c\n.reg ptr.global %p\n.reg ptr.shared %q\n"
        "    sreg.u32 %t, unit_pos.x\n    const.u32 %z, 0\n    eq.u32 %c, %t, %z\n"
        "    const.f32 %v, 2.0\n    const.ptr.shared %q, 0\n"
        "    if %c\n        param.ptr.global %p, a, 0\n    else\n        param.ptr.global %p, b, 0\n"
        "    end\n    atom.add.relaxed.device.f32 %old, [%p], %v\n"
        "    atom.add.relaxed.cube.f32 %old, [%q], %v\n    return\n.end\n"};
    static const char *const how[2] = {"descriptors", "device addresses"};
    for (int i = 0; i < 2; i++) {
        void *bytes = NULL;
        size_t size = 0;
        cvm_diag d;
        memset(&d, 0, sizeof d);
        if (!ok(cvm_assemble(src[i], strlen(src[i]), "fadd.cbs", &bytes, &size, &d) == CVM_OK,
                "f32 atomics kernel %d assembles (%s)", i, d.message))
            continue;
        for (int feat = 1; feat >= 0; feat--) {
            cvm_spv_target t = lavapipe();
            t.float_atomic_add = feat;
            uint32_t *words = NULL;
            size_t n = 0;
            char path[512], tag[32];
            static dline L[4096];
            snprintf(tag, sizeof tag, "fadd%d_%d", i, feat);
            cvm_status st = translate_for(bytes, size, &t, &words, &n, &d);
            if (!ok(st == CVM_OK && validate(words, n, tag, path, sizeof path),
                    "f32 atomic add (%s, feature %s) translates and validates (%s)", how[i],
                    feat ? "on" : "off", st ? d.message : "")) {
                free(words);
                continue;
            }
            int nl = disassemble(path, L, 4096), fadd = 0, cas = 0;
            for (int j = 0; j < nl; j++) {
                fadd += !strcmp(L[j].op, "OpAtomicFAddEXT");
                cas += !strcmp(L[j].op, "OpAtomicCompareExchange");
            }
            int has_cap = 0, has_ext = 0;
            for (int j = 0; j < nl; j++) {
                has_cap |= !strcmp(L[j].op, "OpCapability") && !strcmp(L[j].arg[0], "AtomicFloat32AddEXT");
                has_ext |= !strcmp(L[j].op, "OpExtension") &&
                           !strcmp(L[j].arg[0], "\"SPV_EXT_shader_atomic_float_add\"");
            }
            if (feat)
                ok(fadd == 1 && cas == 1 && has_cap && has_ext,
                   "with the feature: one OpAtomicFAddEXT (global) and one CAS loop (shared), "
                   "capability AtomicFloat32AddEXT, its extension (%d, %d)", fadd, cas);
            else
                ok(fadd == 0 && cas == 2 && !has_cap && !has_ext,
                   "without the feature: both adds are CAS loops (%d, %d)", fadd, cas);
            free(words);
        }
        cvm_free_bytes(bytes);
    }
}

/*
 * A barrier in a loop after a kernel-level return: units that returned
 * left the loop, so it is not in uniform control flow (lavapipe returned
 * zeros with no error); the translation refuses it. A return after the
 * loop, or a barrier at kernel level after a return, translates.
 */
static void exit_barriers(void)
{
    static const char *const srcs[] = {
        "__global__ void k(float *out, int n) { int t = threadIdx.x; if (t >= n) return;\n"
        "    for (int st = 32; st > 0; st--) __syncthreads(); out[t] = 7; }\n",
        "__global__ void k(float *out, int n) { __shared__ float s[64]; int t = threadIdx.x; s[t] = t;\n"
        "    for (int st = 32; st > 0; st >>= 1) { __syncthreads(); if (t < st) s[t] += s[t + st]; }\n"
        "    if (t >= n) return; out[t] = s[0]; }\n",
        "__global__ void k(float *out, int n) { __shared__ float s[64]; int t = threadIdx.x;\n"
        "    if (t >= n) return; s[t] = t; __syncthreads(); out[t] = s[0]; }\n",
    };
    static const bool refused[] = {true, false, false};
    cvm_spv_target t = lavapipe();
    for (size_t i = 0; i < sizeof srcs / sizeof srcs[0]; i++) {
        void *bytes = NULL;
        size_t size = 0, n = 0;
        uint32_t *w = NULL;
        cvm_diag d;
        memset(&d, 0, sizeof d);
        cvm_status st = cvm_compile_cuda(srcs[i], strlen(srcs[i]), "exit.cu", NULL, &bytes, &size, &d);
        if (st == CVM_OK)
            st = translate_for(bytes, size, &t, &w, &n, &d);
        if (refused[i])
            ok(st == CVM_UNSUPPORTED && strstr(d.message, "a barrier inside a loop, if or switch that some units "
                                                          "may have left by returning"),
               "exit barriers %zu: refused (%s)", i, d.message);
        else
            ok(st == CVM_OK, "exit barriers %zu: translates (%s)", i, d.message);
        free(w);
        cvm_free_bytes(bytes);
    }
}

int main(void)
{
    if (!have_tool("spirv-val")) {
        printf("1..0 # SKIP spirv-val is not installed (apt-get install spirv-tools)\n");
        return 0;
    }
    golden();
    float_controls();
    exact_sequences_used();
    bases();
    bf16_refused();
    width_hint();
    atomics64();
    float_atomics();
    exit_barriers();
    corpus_dir("docs/examples", ".cbs");
    corpus_dir("tests/conformance", ".cbs");
    corpus_dir("tests/cuda", ".cu");
    instances();
    for (size_t i = 0; i < NREJ; i++)
        ok(rejections[i].seen == 1, "%s: met once in the corpus and rejected (%d)", rejections[i].kernel,
           rejections[i].seen);
    diag("%d modules valid, %d kernels rejected", nvalid, nskipped);
    return done_testing();
}
