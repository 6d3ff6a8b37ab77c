/*
 * test_opt.c - loop-invariant code motion (bytecode/opt.c).
 *
 * Where instructions end up: a kernel written the way the CUDA frontend
 * writes code holds one register for each rule of opt.c, and the test
 * reads the optimized module back and checks how many loops surround
 * the instruction that writes each one (moved out of one loop, out of
 * two nested ones through a chain, out of a continuing part, out of an
 * if inside both; kept for an integer division, kept when read by a plane op, when
 * read in another part of the loop, when written twice, when its source
 * changes in the loop, when it names a source variable). Then both
 * modules run on the cpu device against a C model of every unit; the
 * register read in the continuing part after a `continue` shows a wrong
 * move (it must read zero, then the previous iteration's value). A
 * second kernel checks the copies coalesced and the one kept.
 *
 * The CUDA side: the benchmark kernels (tools/bench/kernels/bench.cu)
 * compiled with and without the optimization give bit-identical outputs
 * on random inputs, the optimization moves instructions there and
 * coalesces the frontend's copies, and a moved instruction keeps its
 * source line. Every allocation failure of
 * cvm_bc_optimize gives CVM_OUT_OF_MEMORY and leaks nothing.
 */
#include "../bytecode/bc.h"
#include "count_alloc.h"
#include "slurp.h"
#include "kern.h"

#include <stdio.h>

#define BLOCK 32u

/* Registers are numbered in declaration order: %r0.. are the probes. */
static const char probe_src[] =
    ".kernel probe\n"
    ".param out buffer u32 write\n.param a scalar u32\n.param fa scalar f32\n"
    ".reg u32 %inv, %inv2, %cnd, %idv, %late, %shs, %twice, %vnt, %var, %cinv\n" /* r0..r9 */
    ".reg f32 %fdv\n"                                                             /* r10 */
    ".reg u32 %t, %pa, %i, %j, %acc, %lim, %one, %tp1, %tmp, %sh, %m, %lane, %three, %seven, %fu\n"
    ".reg f32 %pfa, %ftwo\n"
    ".reg bool %b, %c, %e\n"
    ".reg i64 %off, %four, %idx\n"
    ".reg ptr.global %po, %p\n"
    "    .var named %var\n"
    "    sreg.u32 %t, unit_pos.x\n    param.u32 %pa, a, 0\n    param.f32 %pfa, fa, 0\n"
    "    const.u32 %one, 1\n    add.u32 %tp1, %t, %one\n    const.u32 %twice, 5\n"
    "    const.u32 %i, 0\n    const.u32 %acc, 0\n"
    "    loop\n"
    "        const.u32 %lim, 3\n        ge.u32 %b, %i, %lim\n"
    "        if %b\n            break\n        end\n"
    "        mul.u32 %inv, %pa, %t\n"
    "        const.u32 %j, 0\n"
    "        loop\n"
    "            const.u32 %lim, 2\n            ge.u32 %b, %j, %lim\n"
    "            if %b\n                break\n            end\n"
    "            add.u32 %inv2, %inv, %pa\n            add.u32 %acc, %acc, %inv2\n"
    "            and.u32 %tmp, %t, %one\n            eq.u32 %c, %tmp, %one\n"
    "            if %c\n"
    "                const.u32 %three, 3\n                mul.u32 %cnd, %pa, %three\n"
    "                add.u32 %acc, %acc, %cnd\n"
    "            end\n"
    "            div.u32 %idv, %pa, %tp1\n            add.u32 %acc, %acc, %idv\n"
    "            const.f32 %ftwo, 2.0\n            div.f32 %fdv, %pfa, %ftwo\n"
    "            cvt.u32 %fu, %fdv\n            add.u32 %acc, %acc, %fu\n"
    "            add.u32 %vnt, %j, %pa\n            add.u32 %acc, %acc, %vnt\n"
    "            mul.u32 %twice, %pa, %pa\n            add.u32 %acc, %acc, %twice\n"
    "            const.u32 %seven, 7\n            mul.u32 %var, %pa, %seven\n"
    "            add.u32 %acc, %acc, %var\n"
    "            add.u32 %shs, %pa, %t\n            add.u32 %lane, %t, %one\n"
    "            const.u32 %m, 0xffffffff\n            shfl.idx.u32 %sh, %shs, %lane, %m\n"
    "            add.u32 %acc, %acc, %sh\n"
    "            eq.u32 %e, %t, %j\n"
    "            if %e\n                continue\n            end\n"
    "            mul.u32 %late, %pa, %pa\n"
    "        continuing\n"
    "            add.u32 %acc, %acc, %late\n"
    "            mul.u32 %cinv, %pa, %t\n            add.u32 %acc, %acc, %cinv\n"
    "            add.u32 %j, %j, %one\n"
    "        end\n"
    "    continuing\n        add.u32 %i, %i, %one\n"
    "    end\n"
    "    param.ptr.global %po, out, 0\n    cvt.i64 %off, %t\n    const.i64 %four, 4\n"
    "    mul.i64 %idx, %off, %four\n    ptr.add.ptr.global %p, %po, %idx\n    st.u32 [%p], %acc\n"
    "    return\n.end\n";

/* Loops around the (only, or last) write of each probe register in the optimized module. */
static const struct {
    const char *name;
    int loops;
} expect[] = {
    {"pure, outer body: out of the outer loop", 0},
    {"chain through a moved register: out of both loops", 0},
    {"inside an if of the loop: out of both loops", 0},
    {"integer division: stays", 2},
    {"read in the continuing part after a continue: stays", 2},
    {"read by a plane op: stays", 2},
    {"written twice: stays", 2},
    {"source changes in the loop: stays", 2},
    {"names a source variable: stays", 2},
    {"pure, continuing part: out of both loops", 0},
    {"float division: out of both loops", 0},
};

static uint32_t model(uint32_t t, uint32_t a, float fa)
{
    uint32_t acc = 0, late = 0;
    for (uint32_t i = 0; i < 3; i++)
        for (uint32_t j = 0; j < 2; j++) {
            acc += a * t + a;
            if (t & 1)
                acc += a * 3;
            acc += a / (t + 1);
            acc += (uint32_t)(fa / 2.0f);
            acc += j + a;
            acc += a * a;
            acc += a * 7;
            acc += a + (t + 1) % BLOCK;
            if (t != j)
                late = a * a;
            acc += late;
            acc += a * t;
        }
    return acc;
}

/* Assembles and verifies `src`; the plain and the optimized serialization. */
static int build(const char *src, void **plain, size_t *nplain, void **opt, size_t *nopt,
                 uint32_t *moved)
{
    cvm_bc_module *mod = NULL;
    cvm_bc_verified *ver = NULL;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_status st = cvm_bc_assemble(src, strlen(src), "probe", NULL, NULL, &mod, &d);
    if (st == CVM_OK)
        st = cvm_bc_verify(mod, &ver, &d);
    if (st == CVM_OK)
        st = cvm_bc_module_write(mod, plain, nplain, &d);
    if (st == CVM_OK)
        st = cvm_bc_optimize(mod, ver, opt, nopt, moved, &d);
    if (st != CVM_OK)
        diag("build: %s: %s", cvm_status_str(st), d.message);
    if (ver)
        cvm_bc_verified_free(mod, ver);
    cvm_bc_module_free(mod);
    return st == CVM_OK;
}

/* Reads bytes back and verifies them; NULL with a diag line on error. */
static cvm_bc_module *read_back(const void *bytes, size_t size, cvm_bc_verified **ver)
{
    cvm_bc_module *mod = NULL;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_status st = cvm_bc_module_read(bytes, size, NULL, NULL, &mod, &d);
    if (st == CVM_OK)
        st = cvm_bc_verify(mod, ver, &d);
    if (st != CVM_OK) {
        diag("read back: %s: %s", cvm_status_str(st), d.message);
        cvm_bc_module_free(mod);
        return NULL;
    }
    return mod;
}

/* Loops around the last write of each register < nreg in kernel 0. */
static void loops_around(const cvm_bc_module *mod, const cvm_bc_verified *ver, int *loops,
                         uint32_t nreg)
{
    const cvm_bc_kernel *k = &mod->kernels[0];
    const cvm_bc_vkernel *vk = &ver->kernels[0];
    int kinds[64], sp = 0, in_loops = 0;
    for (uint32_t r = 0; r < nreg; r++)
        loops[r] = -1;
    for (uint32_t pc = 0; pc < vk->ninsns; pc++) {
        cvm_bc_insn in;
        cvm_bc_insn_at(k, vk->insns[pc].word, &in);
        if (in.op == CVM_OP_END && sp > 0)
            in_loops -= kinds[--sp];
        if (in.op == CVM_OP_IF || in.op == CVM_OP_LOOP || in.op == CVM_OP_SWITCH ||
            in.op == CVM_OP_BLOCK) {
            kinds[sp++] = in.op == CVM_OP_LOOP;
            in_loops += in.op == CVM_OP_LOOP;
            continue;
        }
        const cvm_bc_opinfo *oi = cvm_bc_op_info(in.op);
        if (oi && oi->format[0] == 'd' && in.nops && in.ops[0] < nreg)
            loops[in.ops[0]] = in_loops;
    }
}

static int run_probe(const void *bytes, size_t size, uint32_t a, float fa, uint32_t *out)
{
    cvm_diag d;
    cvm_buffer *b = kern_buf("out", sizeof *out * BLOCK, NULL);
    cvm_arg args[] = {kern_arg_buf(b), kern_arg_u32(&a), kern_arg_bytes(&fa, sizeof fa)};
    cvm_launch_config cfg = kern_cfg(1, BLOCK);
    cvm_status st = kern_exec_bytes(bytes, size, "probe", &cfg, args, 3, &d);
    if (st != CVM_OK)
        diag("probe: %s: %s", cvm_status_str(st), d.message);
    int okk = st == CVM_OK && kern_read(b, out, sizeof *out * BLOCK);
    cvm_buffer_free(b);
    return okk;
}

static void test_probe(void)
{
    void *plain = NULL, *opt = NULL;
    size_t nplain = 0, nopt = 0;
    uint32_t moved = 0;
    if (!ok(build(probe_src, &plain, &nplain, &opt, &nopt, &moved), "the probe kernel optimizes"))
        return;
    ok(moved > 0, "instructions moved (%u)", moved);
    cvm_bc_verified *ver = NULL;
    cvm_bc_module *mod = read_back(opt, nopt, &ver);
    ok(mod != NULL, "the optimized module reads back and verifies");
    if (mod) {
        const uint32_t n = sizeof expect / sizeof expect[0];
        int loops[sizeof expect / sizeof expect[0]];
        loops_around(mod, ver, loops, n);
        for (uint32_t r = 0; r < n; r++)
            ok(loops[r] == expect[r].loops, "%%r%u, %s (%d loops around, want %d)", r,
               expect[r].name, loops[r], expect[r].loops);
        cvm_bc_verified_free(mod, ver);
        cvm_bc_module_free(mod);
    }
    const uint32_t as[] = {3, 1000003};
    const float fas[] = {7.5f, 1e6f};
    for (int c = 0; c < 2; c++) {
        uint32_t got_plain[BLOCK], got_opt[BLOCK];
        int bad = -1;
        if (!run_probe(plain, nplain, as[c], fas[c], got_plain) ||
            !run_probe(opt, nopt, as[c], fas[c], got_opt)) {
            ok(0, "a = %u: both modules run", as[c]);
            continue;
        }
        for (uint32_t t = 0; t < BLOCK && bad < 0; t++)
            if (got_plain[t] != model(t, as[c], fas[c]) || got_opt[t] != got_plain[t])
                bad = (int)t;
        ok(bad < 0, "a = %u: plain and optimized match the C model in every unit%s", as[c],
           bad < 0 ? "" : " (first mismatch below)");
        if (bad >= 0)
            diag("unit %d: model %u, plain %u, optimized %u", bad, model((uint32_t)bad, as[c], fas[c]),
                 got_plain[bad], got_opt[bad]);
    }
    cvm_free_bytes(plain);
    cvm_free_bytes(opt);
}

/* Copy coalescing: `op t; mov v, t` writes v, `mov t, v; op t` reads v,
 * and a copy a plane op reads stays (the plane op reads other lanes'
 * registers too, and lanes outside the `if` never made the copy). */
static const char copies_src[] =
    ".kernel copies\n"
    ".param out buffer u32 write\n"
    ".reg u32 %t, %v, %c1, %c2, %w, %one, %m, %lane, %s, %x, %sixteen\n"
    ".reg bool %b\n.reg i64 %off, %four, %idx\n.reg ptr.global %po, %p\n"
    "    sreg.u32 %t, unit_pos.x\n    const.u32 %one, 1\n"
    "    add.u32 %c1, %t, %one\n    mov.u32 %v, %c1\n"
    "    mov.u32 %c2, %v\n    add.u32 %w, %c2, %one\n"
    "    add.u32 %lane, %t, %one\n    const.u32 %m, 0xffffffff\n"
    "    const.u32 %sixteen, 16\n    lt.u32 %b, %t, %sixteen\n"
    "    if %b\n        mov.u32 %s, %w\n        shfl.idx.u32 %x, %s, %lane, %m\n"
    "        add.u32 %w, %w, %x\n    end\n"
    "    param.ptr.global %po, out, 0\n    cvt.i64 %off, %t\n    const.i64 %four, 4\n"
    "    mul.i64 %idx, %off, %four\n    ptr.add.ptr.global %p, %po, %idx\n    st.u32 [%p], %w\n"
    "    return\n.end\n";

static const char copies_want[] =
    "    sreg.u32 %r0, unit_pos.x\n    const.u32 %r5, 1\n"
    "    add.u32 %r1, %r0, %r5\n    add.u32 %r4, %r1, %r5\n"
    "    add.u32 %r7, %r0, %r5\n    const.u32 %r6, 4294967295\n"
    "    const.u32 %r10, 16\n    lt.u32 %r11, %r0, %r10\n"
    "    if %r11\n        mov.u32 %r8, %r4\n        shfl.idx.u32 %r9, %r8, %r7, %r6\n"
    "        add.u32 %r4, %r4, %r9\n    end\n";

static void test_copies(void)
{
    void *plain = NULL, *opt = NULL;
    size_t nplain = 0, nopt = 0;
    uint32_t changed = 0;
    if (!ok(build(copies_src, &plain, &nplain, &opt, &nopt, &changed), "the copies kernel optimizes"))
        return;
    cvm_bc_verified *ver = NULL;
    cvm_bc_module *mod = read_back(opt, nopt, &ver);
    char *text = NULL;
    size_t len = 0;
    cvm_diag d;
    if (mod && cvm_bc_disassemble(mod, &text, &len, &d) == CVM_OK) {
        const char *body = strstr(text, "    sreg.u32");
        ok(body && strncmp(body, copies_want, strlen(copies_want)) == 0 && changed == 2,
           "two copies coalesced, the one a plane op reads kept (%u changes)", changed);
        if (!body || strncmp(body, copies_want, strlen(copies_want)) != 0)
            diag("got:\n%s", body ? body : text);
        cvm_bc_free(mod->alloc, mod->alloc_user, text, len + 1);
    } else {
        ok(0, "the optimized copies kernel reads back and disassembles");
    }
    if (ver)
        cvm_bc_verified_free(mod, ver);
    cvm_bc_module_free(mod);
    cvm_free_bytes(plain);
    cvm_free_bytes(opt);
}

static void test_oom(void)
{
    cvm_bc_module *mod = NULL;
    cvm_bc_verified *ver = NULL;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    if (cvm_bc_assemble(probe_src, strlen(probe_src), "probe", NULL, NULL, &mod, &d) != CVM_OK ||
        cvm_bc_verify(mod, &ver, &d) != CVM_OK) {
        ok(0, "oom: the probe assembles (%s)", d.message);
        return;
    }
    counting c = {0, 0, -1};
    mod->alloc = count_alloc; /* the optimizer allocates through the module's allocator */
    mod->alloc_user = &c;
    void *bytes = NULL;
    size_t size = 0;
    cvm_status st = cvm_bc_optimize(mod, ver, &bytes, &size, NULL, &d);
    const long calls = c.calls;
    ok(st == CVM_OK && calls > 0, "oom: %ld allocations without failure", calls);
    if (bytes)
        count_alloc(&c, bytes, size, 0);
    int failed = 0, leaked = 0;
    for (long f = 0; f < calls; f++) {
        c = (counting){0, 0, f};
        bytes = NULL;
        st = cvm_bc_optimize(mod, ver, &bytes, &size, NULL, &d);
        if (st == CVM_OK && bytes)
            count_alloc(&c, bytes, size, 0);
        failed += st != CVM_OUT_OF_MEMORY && st != CVM_OK;
        leaked += c.live != 0;
    }
    ok(failed == 0, "oom: each failing allocation gives CVM_OUT_OF_MEMORY (%d other results)", failed);
    ok(leaked == 0, "oom: nothing leaks on any failure (%d leaks)", leaked);
    mod->alloc = NULL;
    mod->alloc_user = NULL;
    cvm_bc_verified_free(mod, ver);
    cvm_bc_module_free(mod);
}

/* ---- the CUDA frontend: the benchmark kernels with and without -O0 ---- */

static uint32_t rstate = 12345;
static float rnd(void)
{
    rstate = rstate * 1664525u + 1013904223u;
    return (float)(rstate >> 8) / 16777216.0f * 2.0f - 1.0f;
}

typedef struct cuda_case {
    const char *kernel;
    uint32_t grid[2], block[2];
    size_t nin[2], nout; /* floats per input buffer (0: none), output floats */
    int32_t ints[9];
    uint32_t nints;
} cuda_case;

/* Runs one case of module `bytes`; outputs into out (nout floats). */
static int run_cuda(const void *bytes, size_t size, const cuda_case *cc, float *const in[2],
                    float *out)
{
    cvm_diag d;
    cvm_buffer *b[3] = {NULL, NULL, NULL};
    cvm_arg args[16];
    uint32_t na = 0;
    for (int i = 0; i < 2; i++)
        if (cc->nin[i]) {
            b[i] = kern_buf("in", cc->nin[i] * sizeof(float), in[i]);
            args[na++] = kern_arg_buf(b[i]);
        }
    b[2] = kern_buf("out", cc->nout * sizeof(float), NULL);
    args[na++] = kern_arg_buf(b[2]);
    for (uint32_t i = 0; i < cc->nints; i++)
        args[na++] = kern_arg_bytes(&cc->ints[i], sizeof cc->ints[i]);
    cvm_launch_config cfg = kern_cfg(cc->grid[0], cc->block[0]);
    cfg.grid[1] = cc->grid[1];
    cfg.block[1] = cc->block[1];
    cvm_status st = kern_exec_bytes(bytes, size, cc->kernel, &cfg, args, na, &d);
    if (st != CVM_OK)
        diag("%s: %s: %s", cc->kernel, cvm_status_str(st), d.message);
    int okk = st == CVM_OK && kern_read(b[2], out, cc->nout * sizeof(float));
    for (int i = 0; i < 3; i++)
        if (b[i])
            cvm_buffer_free(b[i]);
    return okk;
}

static void test_cuda(void)
{
    size_t len = 0;
    char *src = test_slurp("tools/bench/kernels/bench.cu", &len);
    if (!ok(src != NULL, "reads tools/bench/kernels/bench.cu"))
        return;
    void *bytes[2] = {NULL, NULL};
    size_t size[2] = {0, 0};
    cvm_diag d;
    for (int o = 0; o < 2; o++) {
        cvm_compile_options opts;
        memset(&opts, 0, sizeof opts);
        opts.no_opt = o == 0;
        memset(&d, 0, sizeof d);
        cvm_status st = cvm_compile_cuda(src, len, "bench.cu", &opts, &bytes[o], &size[o], &d);
        ok(st == CVM_OK, "bench.cu compiles %s (%s)", o ? "optimized" : "with -O0", d.message);
    }
    free(src);
    if (!bytes[0] || !bytes[1])
        return;
    /* n h w c oh ow k s p for pooling; n ci co h w k p for conv; n for matmul */
    const cuda_case cases[] = {
        {"max_pool2d_nhwc", {(2 * 9 * 9 * 8 + 127) / 128, 1}, {128, 1}, {2 * 9 * 9 * 8, 0},
         2 * 9 * 9 * 8, {2, 9, 9, 8, 9, 9, 5, 1, 2}, 9},
        {"max_pool2d_nhwc", {(1 * 5 * 5 * 16 + 63) / 64, 1}, {64, 1}, {10 * 10 * 16, 0},
         5 * 5 * 16, {1, 10, 10, 16, 5, 5, 2, 2, 0}, 9},
        {"conv2d_nchw", {(1 * 4 * 7 * 7 + 63) / 64, 1}, {64, 1}, {3 * 7 * 7, 4 * 3 * 9},
         4 * 7 * 7, {1, 3, 4, 7, 7, 3, 1}, 7},
        {"matmul", {3, 3}, {16, 16}, {48 * 48, 48 * 48}, 48 * 48, {48}, 1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const cuda_case *cc = &cases[c];
        float *in[2] = {NULL, NULL}, *out[2];
        for (int i = 0; i < 2; i++) {
            in[i] = cc->nin[i] ? malloc(cc->nin[i] * sizeof(float)) : NULL;
            for (size_t j = 0; j < cc->nin[i]; j++)
                in[i][j] = rnd();
        }
        out[0] = calloc(cc->nout, sizeof(float));
        out[1] = calloc(cc->nout, sizeof(float));
        const int ran = run_cuda(bytes[0], size[0], cc, in, out[0]) &&
                        run_cuda(bytes[1], size[1], cc, in, out[1]);
        size_t bad = SIZE_MAX;
        for (size_t j = 0; ran && j < cc->nout && bad == SIZE_MAX; j++)
            if (memcmp(&out[0][j], &out[1][j], sizeof(float)) != 0)
                bad = j;
        ok(ran && bad == SIZE_MAX, "%s (case %zu): -O0 and optimized outputs are bit-identical",
           cc->kernel, c);
        if (ran && bad != SIZE_MAX)
            diag("element %zu: %a vs %a", bad, (double)out[0][bad], (double)out[1][bad]);
        for (int i = 0; i < 2; i++)
            free(in[i]), free(out[i]);
    }
    /* what moved, and that it kept its source line */
    cvm_bc_verified *ver[2] = {NULL, NULL};
    cvm_bc_module *mod[2] = {read_back(bytes[0], size[0], &ver[0]),
                             read_back(bytes[1], size[1], &ver[1])};
    if (mod[0] && mod[1]) {
        uint32_t ki = 0;
        while (ki < mod[1]->nkernels &&
               strcmp(cvm_bc_str(mod[1], mod[1]->kernels[ki].name), "max_pool2d_nhwc") != 0)
            ki++;
        uint32_t movs[2] = {0, 0};
        for (int o = 0; o < 2 && ki < mod[1]->nkernels; o++)
            for (uint32_t pc = 0; pc < ver[o]->kernels[ki].ninsns; pc++) {
                cvm_bc_insn in;
                cvm_bc_insn_at(&mod[o]->kernels[ki], ver[o]->kernels[ki].insns[pc].word, &in);
                movs[o] += in.op == CVM_OP_MOV;
            }
        ok(ki < mod[1]->nkernels && movs[0] >= 10 && movs[1] * 4 < movs[0],
           "max_pool2d_nhwc: copies coalesced (%u movs with -O0, %u optimized)", movs[0], movs[1]);
        /* the last 64-bit multiply before the first loop is `(long)b * h` of
         * line 29's index expression, moved out of both loops */
        if (ki < mod[1]->nkernels) {
            const cvm_bc_vkernel *vk = &ver[1]->kernels[ki];
            uint32_t line = 0, mul = UINT32_MAX;
            for (uint32_t pc = 0; pc < vk->ninsns; pc++) {
                cvm_bc_insn in;
                cvm_bc_insn_at(&mod[1]->kernels[ki], vk->insns[pc].word, &in);
                if (in.op == CVM_OP_LOOP)
                    break;
                if (in.op == CVM_OP_MUL && in.elem == CVM_T_I64)
                    mul = pc;
            }
            const bool has = mul != UINT32_MAX && cvm_bc_debug_line(mod[1], ki, mul, NULL, &line, NULL);
            ok(has && line == 29, "the multiply moved before the first loop keeps source line 29 "
                                  "(line %u)", line);
        }
    }
    for (int o = 0; o < 2; o++) {
        if (ver[o])
            cvm_bc_verified_free(mod[o], ver[o]);
        cvm_bc_module_free(mod[o]);
        cvm_free_bytes(bytes[o]);
    }
}

int main(void)
{
    if (!kern_open())
        return 1;
    test_probe();
    test_copies();
    test_oom();
    test_cuda();
    kern_close();
    return done_testing();
}
