/*
 * native_compile.c - the native tier's compile of one kernel (jit/backend.h):
 * the per-slot tables a compile keeps (layout), the LLVM module, types and
 * host helpers the code calls, the code itself (native.c cvm_nat_emit),
 * then verification, LLVM's optimizer and ORC's JIT, on a thread of its
 * own with a stack large enough for LLVM. native.c is the code
 * generation; this file is what runs around it.
 */
#include "native.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool cvm_jit_backend_built(void)
{
    return true;
}

static unsigned kernel_serial;

/* Register bytes of a plane that native code may hold in its frame (a
 * thread runs it only with room for twice as much: jit_rt.c). */
#define CVM_JIT_MAX_FRAME (1u << 20)

/* Per slot: its register's element type; per first slot: the register's line. */
static bool layout(gen *g)
{
    const cvm_bc_kernel *k = g->kp->k;
    g->nslots = g->kp->nslots;
    g->slot_elem = calloc(g->nslots + 1, 1);
    g->slot_width = calloc(g->nslots + 1, 1);
    g->slot = calloc(g->nslots + 1, sizeof *g->slot);
    g->local = calloc(g->nslots + 1, 1);
    g->cst = calloc(g->nslots + 1, sizeof *g->cst);
    g->remat = calloc(g->nslots + 1, sizeof *g->remat);
    g->remade = calloc(g->nslots + 1, 1);
    g->cval = calloc(g->nslots + 1, sizeof *g->cval);
    g->cbuf = calloc(8 * ((size_t)g->nslots + 1), sizeof *g->cbuf);
    g->first_read = calloc(g->nslots + 1, sizeof *g->first_read);
    g->last_read = calloc(g->nslots + 1, sizeof *g->last_read);
    g->first_touch = calloc(g->nslots + 1, sizeof *g->first_touch);
    g->fresh = calloc(g->nslots + 1, sizeof *g->fresh);
    g->fresh_end = calloc(g->nslots + 1, sizeof *g->fresh_end);
    g->settled = calloc(g->nslots + 1, sizeof *g->settled);
    g->uni_settled = calloc(g->nslots + 1, 1);
    g->puni = calloc(g->nslots + 1, 1);
    g->tz = calloc(g->nslots + 1, 1);
    g->xlane = calloc(g->nslots + 1, 1);
    g->outer_lo = calloc(g->kp->ninsns + 1, sizeof *g->outer_lo);
    g->outer_hi = calloc(g->kp->ninsns + 1, sizeof *g->outer_hi);
    g->form = calloc(g->nslots + 1, 1);
    g->weak = calloc(g->nslots + 1, 1);
    g->fwd = calloc(g->nslots + 1, sizeof *g->fwd);
    g->lazy = calloc(g->nslots + 1, sizeof *g->lazy);
    g->stale = calloc(g->nslots + 1, 1);
    g->raw_nan = calloc(g->nslots + 1, 1);
    g->no_nan = calloc(g->nslots + 1, 1);
    if (!g->raw_nan || !g->no_nan || !g->form || !g->weak || !g->fwd || !g->lazy || !g->stale || !g->slot_elem || !g->slot_width || !g->slot || !g->local ||
        !g->cst || !g->remat || !g->remade || !g->cval || !g->cbuf || !g->first_read || !g->last_read || !g->first_touch || !g->fresh || !g->fresh_end || !g->settled || !g->uni_settled || !g->puni || !g->tz || !g->xlane ||
        !g->outer_lo || !g->outer_hi)
        return false;
    const uint8_t *cls = g->prog->ver ? g->prog->ver->kernels[g->kp->index].reg_uni : NULL;
    uint32_t s = 0;
    for (uint32_t r = 0; r < k->nregs && s < g->nslots; r++) {
        unsigned line = k->regs[r].line ? k->regs[r].line : 1;
        g->slot_width[s] = (uint8_t)line;
        g->puni[s] = cls && cls[r] <= CVM_UNI_PLANE && line == 1;
        for (unsigned i = 0; i < line && s < g->nslots; i++)
            g->slot_elem[s++] = k->regs[r].elem;
    }
    return true;
}

typedef struct jit_handle {
    LLVMOrcResourceTrackerRef rt;
} jit_handle;

/* The host function at address `at`, of type ty, as a constant native code calls. */
static LLVMValueRef host_fn(const gen *g, uintptr_t at, LLVMTypeRef ty)
{
    return llvm.ConstIntToPtr(llvm.ConstInt(g->i64, (uint64_t)at, false), llvm.PointerType(ty, 0));
}

/* Frees a kernel's code and its tracker (an error removing it is dropped:
 * the memory stays with the JIT, nothing else depends on it). */
static void drop_tracker(LLVMOrcResourceTrackerRef rt)
{
    LLVMErrorRef e = llvm.OrcResourceTrackerRemove(rt);
    if (e)
        llvm.ConsumeError(e);
    llvm.OrcReleaseResourceTracker(rt);
}

static cvm_jit_fn compile(const cvm_vm_program *prog, const cvm_vm_kprog *kp, unsigned W, unsigned shape,
                          void **out_handle, char *why, size_t n, bool *again)
{
    cvm_jit_fn fn = NULL;
    *out_handle = NULL;
    if (!cvm_llvm_start(why, n))
        return NULL;
    gen g = {.prog = prog, .kp = kp, .code = kp->code, .W = W, .rows = shape == CVM_JIT_ROWS, .pairs = shape == CVM_JIT_PAIRS, .exit_if = UINT32_MAX, .why = why, .nwhy = n};
    if (!layout(&g)) {
        snprintf(why, n, "out of memory");
        g.again = true;
        goto out;
    }
    /* the registers live in the function's frame, on the stack of whatever
     * thread runs the cube: bounded here, and checked against the thread's
     * room before it runs (cvm_jit_stack_room) */
    cvm_nat_analyse(&g);
    if (g.failed)
        goto out;
    const uint64_t frame = cvm_jit_frame_bytes(kp, W);
    if (frame > CVM_JIT_MAX_FRAME) {
        snprintf(why, n, "kernel '%s': its registers take %llu bytes per plane, more than the "
                 "native tier keeps in a stack frame (%u)", cvm_vm_kernel_name(prog, kp->index),
                 (unsigned long long)frame, CVM_JIT_MAX_FRAME);
        goto out;
    }
    LLVMOrcThreadSafeContextRef tsc = llvm.OrcCreateNewThreadSafeContext();
    g.C = llvm.OrcThreadSafeContextGetContext(tsc);
    char name[64];
    snprintf(name, sizeof name, "cvm_kernel_%u", ++kernel_serial);
    g.M = llvm.ModuleCreateWithNameInContext(name, g.C);
    g.B = llvm.CreateBuilderInContext(g.C);
    g.i1 = llvm.Int1TypeInContext(g.C);
    g.i8 = llvm.Int8TypeInContext(g.C);
    g.i16 = llvm.Int16TypeInContext(g.C);
    g.i32 = llvm.Int32TypeInContext(g.C);
    g.i64 = llvm.Int64TypeInContext(g.C);
    g.f32 = llvm.FloatTypeInContext(g.C);
    g.f64 = llvm.DoubleTypeInContext(g.C);
    g.i8p = llvm.PointerType(g.i8, 0);
    g.iW = llvm.IntTypeInContext(g.C, W);
    g.vmask = llvm.VectorType(g.i1, W);
    LLVMTypeRef params[2] = {g.i8p, g.i8p};
    LLVMTypeRef fty = llvm.FunctionType(g.i32, params, 2, false);
    g.fn = llvm.AddFunction(g.M, name, fty);
    g.x = llvm.GetParam(g.fn, 0);
    g.p = llvm.GetParam(g.fn, 1);
    /* the helpers, called at their addresses */
    LLVMTypeRef sp[3] = {g.i8p, g.i8p, g.i32};
    g.ty_step = llvm.FunctionType(g.i32, sp, 3, false);
    g.fn_step = host_fn(&g, (uintptr_t)&cvm_jit_step, g.ty_step);
    g.ty_backedge = llvm.FunctionType(g.i32, sp, 2, false);
    g.fn_backedge = host_fn(&g, (uintptr_t)&cvm_jit_backedge, g.ty_backedge);
    g.ty_chain = llvm.FunctionType(g.i8p, sp, 2, false);
    g.fn_chain = host_fn(&g, (uintptr_t)&cvm_jit_chain, g.ty_chain);
    LLVMTypeRef lp[4] = {g.i8p, g.i8p, g.i64, g.i32};
    g.ty_lanes = llvm.FunctionType(llvm.VoidTypeInContext(g.C), lp, 4, false);
    g.fn_gather = host_fn(&g, (uintptr_t)&cvm_jit_gather, g.ty_lanes);
    g.fn_scatter = host_fn(&g, (uintptr_t)&cvm_jit_scatter, g.ty_lanes);
    g.fn_load_run = host_fn(&g, (uintptr_t)&cvm_jit_load_run, g.ty_lanes);
    g.fn_store_run = host_fn(&g, (uintptr_t)&cvm_jit_store_run, g.ty_lanes);
    cvm_nat_emit(&g);
    llvm.DisposeBuilder(g.B);
    char *verr = NULL;
    if (!g.failed && llvm.VerifyModule(g.M, LLVMReturnStatusAction, &verr)) {
        snprintf(why, n, "internal error: invalid LLVM code for kernel '%s': %.600s",
                 cvm_vm_kernel_name(prog, kp->index), verr ? verr : "");
        g.failed = true;
    }
    llvm.DisposeMessage(verr);
    if (g.failed) {
        llvm.DisposeModule(g.M);
        llvm.OrcDisposeThreadSafeContext(tsc);
        goto out;
    }
    LLVMTargetMachineRef tm = cvm_llvm_host_machine();
    if (tm) {
        LLVMTargetDataRef td = llvm.CreateTargetDataLayout(tm);
        char *dl = llvm.CopyStringRepOfTargetData(td);
        llvm.SetDataLayout(g.M, dl);
        llvm.DisposeMessage(dl);
        llvm.DisposeTargetData(td);
        LLVMPassBuilderOptionsRef po = llvm.CreatePassBuilderOptions();
        LLVMErrorRef e = llvm.RunPasses(g.M, "default<O2>", tm, po);
        llvm.DisposePassBuilderOptions(po);
        llvm.DisposeTargetMachine(tm);
        if (e) {
            cvm_llvm_error_text(e, why, n, "LLVM's optimizer failed");
            llvm.DisposeModule(g.M);
            llvm.OrcDisposeThreadSafeContext(tsc);
            goto out;
        }
    }
    if (getenv("CUBEVM_JIT_DUMP"))
        llvm.DumpModule(g.M);
    LLVMOrcJITDylibRef jd = llvm.OrcLLJITGetMainJITDylib(cvm_llvm_jit);
    LLVMOrcResourceTrackerRef rt = llvm.OrcJITDylibCreateResourceTracker(jd);
    LLVMOrcThreadSafeModuleRef tsm = llvm.OrcCreateNewThreadSafeModule(g.M, tsc);
    llvm.OrcDisposeThreadSafeContext(tsc);
    LLVMErrorRef e = llvm.OrcLLJITAddLLVMIRModuleWithRT(cvm_llvm_jit, rt, tsm);
    LLVMOrcExecutorAddress addr = 0;
    if (!e)
        e = llvm.OrcLLJITLookup(cvm_llvm_jit, &addr, name);
    if (e) {
        cvm_llvm_error_text(e, why, n, "LLVM's JIT failed");
        drop_tracker(rt);
        goto out;
    }
    jit_handle *h = malloc(sizeof *h);
    if (!h) {
        drop_tracker(rt);
        snprintf(why, n, "out of memory");
        g.again = true;
        goto out;
    }
    h->rt = rt;
    *out_handle = h;
    fn = (cvm_jit_fn)(uintptr_t)addr;
out:
    free(g.slot_elem);
    free(g.slot_width);
    free(g.slot);
    free(g.local);
    free(g.cst);
    free(g.remat);
    free(g.remade);
    free(g.cval);
    free(g.cbuf);
    free(g.first_read);
    free(g.last_read);
    free(g.reads_at), free(g.reads), free(g.kills_at), free(g.kills);
    free(g.first_touch);
    free(g.fresh), free(g.fresh_end);
    free(g.settled);
    free(g.uni_settled);
    free(g.puni);
    free(g.tz);
    free(g.xlane);
    free(g.outer_lo);
    free(g.outer_hi);
    free(g.form);
    free(g.weak);
    free(g.fwd);
    free(g.lazy);
    free(g.stale);
    free(g.raw_nan);
    free(g.no_nan);
    for (unsigned d = 0; d < MAXDEPTH; d++)
        free(g.snap[d]);
    free(g.res);
    free(g.chains);
    *again = g.again;
    return fn;
}

/* A compile on its own thread: LLVM's analyses recurse deeply on large
 * functions, deeper than a stream worker's or a host thread's stack. */
#define COMPILE_STACK ((size_t)64 << 20)

typedef struct job {
    const cvm_vm_program *prog;
    const cvm_vm_kprog *kp;
    unsigned W;
    unsigned shape;
    void **handle;
    char *why;
    size_t n;
    bool again;
    cvm_jit_fn fn;
} job;

static void *compile_job(void *arg)
{
    job *j = arg;
    j->fn = compile(j->prog, j->kp, j->W, j->shape, j->handle, j->why, j->n, &j->again);
    return NULL;
}

cvm_jit_fn cvm_jit_backend_compile(const cvm_vm_program *prog, const cvm_vm_kprog *kp, unsigned W, unsigned shape,
                                   void **handle, char *why, size_t n, bool *again)
{
    job j = {prog, kp, W, shape, handle, why, n, false, NULL};
    pthread_attr_t attr;
    pthread_t t;
    *handle = NULL;
    *again = true; /* until the compile itself says */
    if (pthread_attr_init(&attr)) {
        snprintf(why, n, "cannot start the compiler's thread");
        return NULL;
    }
    int err = pthread_attr_setstacksize(&attr, COMPILE_STACK);
    if (!err)
        err = pthread_create(&t, &attr, compile_job, &j);
    pthread_attr_destroy(&attr);
    if (err) {
        snprintf(why, n, "cannot start the compiler's thread (%s)", strerror(err));
        return NULL;
    }
    pthread_join(t, NULL);
    *again = j.again;
    return j.fn;
}

void cvm_jit_backend_free(void *hp)
{
    jit_handle *h = hp;
    if (!h)
        return;
    drop_tracker(h->rt);
    free(h);
}
