/*
 * test_oom.c - the failing-allocator sweep over load, verify and launch.
 *
 * One session drives the library through a device (one worker), a second
 * stream, a module loaded from .cbs text by file and one from .cbc bytes,
 * buffers, a shared-memory reduction, a kernel that prints and a kernel that
 * faults followed by a launch that must be skipped. The sweep runs the
 * session with allocation k failing for k = 1, 2, ... until a run meets no
 * failure: every step must give its normal result or CVM_OUT_OF_MEMORY, and
 * after the device closes the allocator hook must hold no byte and no block.
 * A run that reports no error must also have produced correct results, so a
 * swallowed allocation failure cannot pass as success. The verifier alone
 * gets the same sweep on the largest module of the repository.
 * (test_api.c sweeps a smaller session; test_asm.c the assembler and reader.)
 */
#include "../bytecode/bc.h"
#include "../vm/cubevm.h"
#include "count_alloc.h"
#include "tap.h"

#include <stdlib.h>

#define REDUCE_FILE "docs/examples/reduce_block.cbs"
#define VERIFY_FILE "tests/asm/full.cbs"
#define N_IN 256u     /* elements reduced */
#define CUBE 64u      /* units per cube of the reduction */
#define N_OUT (N_IN / CUBE)
#define SWEEP_MAX 100000L

static const char own_src[] =
    ".kernel say\n.reg u32 %t\n"
    "    sreg.u32 %t, abs_pos.x\n    print \"u%u;\", %t\n    return\n.end\n"
    /* every unit stores to out[unit]: faults when out is too small */
    ".kernel poke\n.param out buffer u32 write\n"
    ".reg u32 %t\n.reg i64 %off, %four\n.reg ptr.global %p\n"
    "    sreg.u32 %t, abs_pos.x\n    cvt.i64 %off, %t\n    const.i64 %four, 4\n"
    "    mul.i64 %off, %off, %four\n    param.ptr.global %p, out, 0\n"
    "    ptr.add.ptr.global %p, %p, %off\n    st.u32 [%p], %t\n    return\n.end\n";

/* ---- the failing allocator ---- */

typedef struct failing {
    long long bytes, blocks; /* live */
    long calls;              /* requests for memory so far (allocations and growth) */
    long fail_at;            /* 1-based request to refuse; 0 = never */
    long refused;
} failing;

static void *failing_alloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    failing *f = user;
    if (new_size == 0) {
        if (ptr) {
            __atomic_sub_fetch(&f->bytes, (long long)old_size, __ATOMIC_RELAXED);
            __atomic_sub_fetch(&f->blocks, 1, __ATOMIC_RELAXED);
            free(ptr);
        }
        return NULL;
    }
    if (__atomic_add_fetch(&f->calls, 1, __ATOMIC_RELAXED) == f->fail_at) {
        __atomic_add_fetch(&f->refused, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    void *p = test_block_move(ptr, old_size, new_size);
    if (!p)
        return NULL;
    if (ptr) {
        __atomic_sub_fetch(&f->bytes, (long long)old_size, __ATOMIC_RELAXED);
        __atomic_sub_fetch(&f->blocks, 1, __ATOMIC_RELAXED);
    }
    __atomic_add_fetch(&f->bytes, (long long)new_size, __ATOMIC_RELAXED);
    __atomic_add_fetch(&f->blocks, 1, __ATOMIC_RELAXED);
    return p;
}

/* ---- one session ---- */

/* How a session ended: at which step, with what. */
typedef struct outcome {
    const char *step;   /* the step that stopped it, or "done" */
    cvm_status status;  /* its status (CVM_OK when done) */
    int bad;            /* a step gave neither its normal result nor out-of-memory */
    const char *wrong;  /* what a run without errors got wrong, NULL if nothing */
} outcome;

typedef struct session {
    cvm_device *dev;
    cvm_stream *s2;
    cvm_module *reduce, *own;
    const cvm_kernel *k_reduce, *k_say, *k_poke;
    cvm_buffer *in, *out, *small;
    outcome o;
} session;

/* Records step `name`: true to go on. A status other than `want` ends the session. */
static bool step(session *ss, const char *name, cvm_status got, cvm_status want)
{
    if (got == want)
        return true;
    ss->o.step = name;
    ss->o.status = got;
    ss->o.bad = got != CVM_OUT_OF_MEMORY;
    return false;
}

/* The reduction: four cubes of 64 sum in[] into out[4]; checked against a C loop. */
static bool run_reduce(session *ss, const float *in, const float *want)
{
    cvm_diag d;
    cvm_stream *s = cvm_device_stream(ss->dev);
    uint32_t n = N_IN;
    cvm_arg args[3] = {{CVM_ARG_BUFFER, ss->in, 0, NULL, 0}, {CVM_ARG_BUFFER, ss->out, 0, NULL, 0},
                       {CVM_ARG_BYTES, NULL, 0, &n, sizeof n}};
    cvm_launch_config lc = {.grid = {N_OUT, 1, 1}, .block = {CUBE, 1, 1}};
    float got[N_OUT];
    if (!step(ss, "write", cvm_buffer_write(s, ss->in, 0, in, N_IN * sizeof *in, &d), CVM_OK) ||
        !step(ss, "launch reduce", cvm_launch(s, ss->k_reduce, &lc, args, 3, &d), CVM_OK) ||
        !step(ss, "sync reduce", cvm_stream_sync(s, &d), CVM_OK) ||
        !step(ss, "read", cvm_buffer_read(s, ss->out, 0, got, sizeof got, &d), CVM_OK))
        return false;
    if (memcmp(got, want, sizeof got) != 0)
        ss->o.wrong = "reduction sums";
    return true;
}

/* print on the second stream; then a fault, a skipped launch, and a clean sync. */
static bool run_print_fault(session *ss)
{
    cvm_diag d;
    cvm_launch_config lc = {.grid = {2, 1, 1}, .block = {4, 1, 1}};
    cvm_arg a = {CVM_ARG_BUFFER, ss->small, 0, NULL, 0};
    if (!step(ss, "launch say", cvm_launch(ss->s2, ss->k_say, &lc, NULL, 0, &d), CVM_OK) ||
        !step(ss, "sync say", cvm_stream_sync(ss->s2, &d), CVM_OK))
        return false;
    const char *text = cvm_stream_output(ss->s2);
    if (strcmp(text, "u0;\nu1;\nu2;\nu3;\nu4;\nu5;\nu6;\nu7;\n") != 0)
        ss->o.wrong = "print text";

    if (!step(ss, "launch poke", cvm_launch(ss->s2, ss->k_poke, &lc, &a, 1, &d), CVM_OK) ||
        !step(ss, "launch poke again", cvm_launch(ss->s2, ss->k_poke, &lc, &a, 1, &d), CVM_OK) ||
        !step(ss, "sync fault", cvm_stream_sync(ss->s2, &d), CVM_FAULT))
        return false;
    /* cube 1 (units 4..7 of 8) stores past the 16 bytes; the second launch is skipped */
    if (!d.has_fault || strcmp(d.fault.kernel, "poke") != 0 || d.fault.cube[0] != 1 || d.fault.unit[0] != 0 ||
        !strstr(d.message, "skipped"))
        ss->o.wrong = "fault record";

    return step(ss, "sync after fault", cvm_stream_sync(ss->s2, &d), CVM_OK);
}

static void session_run(session *ss, failing *f, const void *own_bytes, size_t own_size,
                        const float *in, const float *want)
{
    cvm_config cfg = {.alloc = failing_alloc, .alloc_user = f, .threads = 1};
    cvm_diag d;
    memset(ss, 0, sizeof *ss);
    ss->o.step = "done";
    if (!step(ss, "open", cvm_device_open("cpu", &cfg, &ss->dev, &d), CVM_OK))
        return;
    if (step(ss, "stream", cvm_stream_create(ss->dev, &ss->s2, &d), CVM_OK) &&
        step(ss, "load .cbs", cvm_module_load_file(ss->dev, REDUCE_FILE, &ss->reduce, &d), CVM_OK) &&
        step(ss, "load .cbc", cvm_module_load(ss->dev, own_bytes, own_size, &ss->own, &d), CVM_OK) &&
        step(ss, "kernel", cvm_kernel_get(ss->reduce, "reduce_block", &ss->k_reduce, &d), CVM_OK) &&
        step(ss, "kernel", cvm_kernel_get(ss->own, "say", &ss->k_say, &d), CVM_OK) &&
        step(ss, "kernel", cvm_kernel_get(ss->own, "poke", &ss->k_poke, &d), CVM_OK) &&
        step(ss, "buffer", cvm_buffer_create(ss->dev, N_IN * sizeof(float), "in", &ss->in, &d), CVM_OK) &&
        step(ss, "buffer", cvm_buffer_create(ss->dev, N_OUT * sizeof(float), "out", &ss->out, &d),
             CVM_OK) &&
        step(ss, "buffer", cvm_buffer_create(ss->dev, 16, "small", &ss->small, &d), CVM_OK) &&
        run_reduce(ss, in, want))
        (void)run_print_fault(ss);
    /* A step that failed may leave a launch queued: freeing its module must wait for it. */
    cvm_buffer_free(ss->small);
    cvm_buffer_free(ss->out);
    cvm_buffer_free(ss->in);
    cvm_module_free(ss->own);
    cvm_module_free(ss->reduce);
    cvm_stream_destroy(ss->s2);
    cvm_device_close(ss->dev);
}

static void test_session_sweep(void)
{
    void *own = NULL;
    size_t own_size = 0;
    cvm_diag d;
    if (cvm_assemble(own_src, strlen(own_src), "oom.cbs", &own, &own_size, &d) != CVM_OK) {
        ok(0, "assemble the test kernels: %s:%u:%u: %s", d.file, d.line, d.col, d.message);
        return;
    }
    float in[N_IN], want[N_OUT] = {0};
    for (uint32_t i = 0; i < N_IN; i++) {
        in[i] = (float)((int)(i % 7) - 3);
        want[i / CUBE] += in[i]; /* small integers: exact in any order */
    }
    session ss;
    failing f = {0};
    session_run(&ss, &f, own, own_size, in, want);
    ok(!strcmp(ss.o.step, "done") && !ss.o.wrong, "the session runs without failures (stopped at %s: %s%s%s)",
       ss.o.step, cvm_status_str(ss.o.status), ss.o.wrong ? "; wrong " : "", ss.o.wrong ? ss.o.wrong : "");
    ok(f.bytes == 0 && f.blocks == 0, "and gives back every block (%lld bytes, %lld blocks left)", f.bytes,
       f.blocks);
    long k, bad = 0, leaks = 0, wrong = 0, lost_text = 0, oom = 0;
    for (k = 1; k < SWEEP_MAX; k++) {
        failing g = {.fail_at = k};
        session_run(&ss, &g, own, own_size, in, want);
        if (g.refused == 0)
            break; /* the session made fewer than k requests: nothing left to fail */
        oom += ss.o.status == CVM_OUT_OF_MEMORY;
        if (ss.o.bad && bad++ < 5)
            diag("allocation %ld: step %s gave %s", k, ss.o.step, cvm_status_str(ss.o.status));
        if ((g.bytes || g.blocks) && leaks++ < 5)
            diag("allocation %ld (stopped at %s): %lld bytes in %lld blocks leaked", k, ss.o.step, g.bytes,
                 g.blocks);
        if (ss.o.wrong && !strcmp(ss.o.wrong, "print text"))
            lost_text++;
        else if (ss.o.wrong && wrong++ < 5)
            diag("allocation %ld: wrong %s with no error reported (stopped at %s)", k, ss.o.wrong, ss.o.step);
    }
    ok(k > 20 && k < SWEEP_MAX, "the sweep ends: %ld allocations failed in turn, %ld gave CVM_OUT_OF_MEMORY",
       k - 1, oom);
    is_int(bad, 0, "every failure is CVM_OUT_OF_MEMORY");
    is_int(leaks, 0, "no failure leaks a byte or a block");
    is_int(wrong, 0, "no failure is swallowed into wrong results");
    /* cvm_stream_output has no status to report with: it must not need to allocate */
    is_int(lost_text, 0, "no failure loses print text silently");
    cvm_free_bytes(own);
}

/* The verifier alone: its allocations are the module's allocator's. */
static void test_verify_sweep(void)
{
    FILE *fp = fopen(VERIFY_FILE, "rb");
    char *text = NULL;
    long len = -1;
    if (fp && fseek(fp, 0, SEEK_END) == 0 && (len = ftell(fp)) > 0 && fseek(fp, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)len)) && fread(text, 1, (size_t)len, fp) != (size_t)len)
        len = -1;
    if (fp)
        fclose(fp);
    failing f = {0};
    cvm_bc_module *mod = NULL;
    cvm_bc_verified *ver = NULL;
    cvm_diag d;
    if (len <= 0 || cvm_bc_assemble(text, (size_t)len, VERIFY_FILE, failing_alloc, &f, &mod, &d) != CVM_OK) {
        ok(0, "assemble %s", VERIFY_FILE);
        free(text);
        return;
    }
    long k, bad = 0, leaks = 0;
    long long bytes = f.bytes, blocks = f.blocks;
    for (k = 1; k < SWEEP_MAX; k++) {
        f.fail_at = f.calls + k; /* the k-th request of this verify call */
        f.refused = 0;
        cvm_status st = cvm_bc_verify(mod, &ver, &d);
        if (st == CVM_OK)
            cvm_bc_verified_free(mod, ver);
        ver = NULL;
        if (f.refused == 0)
            break;
        bad += st != CVM_OUT_OF_MEMORY;
        leaks += f.bytes != bytes || f.blocks != blocks;
    }
    ok(k > 3 && k < SWEEP_MAX, "verify %s: %ld allocations failed in turn", VERIFY_FILE, k - 1);
    is_int(bad, 0, "each gives CVM_OUT_OF_MEMORY");
    is_int(leaks, 0, "and frees what it had allocated");
    cvm_bc_module_free(mod);
    ok(f.bytes == 0 && f.blocks == 0, "the module gives back every block");
    free(text);
}

int main(void)
{
    test_session_sweep();
    test_verify_sweep();
    return done_testing();
}
