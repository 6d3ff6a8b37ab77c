/*
 * native.c - the native tier's compiler (vm/jit.h): a verified kernel's
 * pre-decoded instructions (interp.h, the exact code with one slot per
 * register) to one LLVM function per kernel that runs one plane, compiled
 * by ORC's LLJIT for the host CPU. This file holds the registers, control
 * flow, loop versioning and the function's code (cvm_nat_emit); the
 * compile around it is native_compile.c's; lane ops are
 * native_ops.c's, loads and stores native_mem.c's, the analysis of what a
 * versioned loop tests native_loop.c's, the registers' facts found
 * before any code is emitted native_facts.c's (native.h between them).
 *
 * The function keeps every register slot as a vector of W lanes in an
 * alloca (SSA values once LLVM promotes them; one scalar for a register
 * the divergence analysis proves one value per plane: gen's puni) and
 * the control masks of
 * docs/design.md item 4 as 64-bit masks, one set per construct, written
 * as ctl.h writes the interpreter's frames: a lane op writes only the
 * active lanes (a select), a construct whose mask becomes empty jumps to
 * its next marker. What it compiles inline: control flow, moves and
 * constants, parameters, unit and cube positions, integer and f32/f64
 * arithmetic, f32 exp (exp_f32: the interpreter's bits), compares,
 * bitwise ops, shifts, the conversions that are plain instructions,
 * same-width bitcasts, pointer adds, sync_cube when the plane's active
 * lanes are all its unfinished ones, and plain loads and stores of global
 * and shared memory whose lanes all pass a quick bounds and alignment
 * check (for P + i * size, a range of i that depends on P alone:
 * quick_range): a vector access when the addresses are consecutive, one
 * scalar load when every active lane reads one element, two when the
 * plane's halves read two runs (shared_halves, global_halves), else a
 * gather or scatter; a shared access at a per-lane pointer plus one
 * value tests those forms on the per-lane part alone (shared_split). Loops are versioned on the forms of the registers
 * they read (version_loop: one value, or consecutive, in the active
 * lanes), and written values are forwarded to later reads (fwd), so that
 * such values are scalars in LLVM's eyes. Everything else, and every
 * access that fails the quick check, runs through the interpreter
 * (cvm_jit_step) on the registers it reads and writes, spilled to the
 * plane's register file around the call: the same bits and the same
 * faults by construction.
 *
 * Barriers and back-edge quanta stop the plane (CVM_VM_R_WAIT, _YIELD):
 * every register goes to the file, every open construct's masks to the
 * plane's frames, and p->pc names the resume point (the pc after the
 * barrier, or the loop body's first pc, as the interpreter's own); the
 * function's dispatch block switches on p->pc and restores them. At a
 * cube barrier the function does not return: the plane the cube's
 * scheduler would run next (the next one in index order when it is
 * runnable, looked at inline; else cvm_jit_chain in vm/jit_rt.c names it)
 * becomes p (a phi at the dispatch), and the dispatch resumes it (chain).
 * A plane that finishes goes on the same way with the next plane when it
 * is runnable, so a cube without barriers runs in one call.
 *
 * Float results keep docs/numerics.md: NaN results are made canonical
 * (where they leave the plane's vectors, for registers that raw_nans
 * finds only arithmetic and stores read: the same bits, outside loops),
 * min/max order -0 below +0 and pass the other operand of a NaN; nothing
 * is contracted (no fast-math flags), and no instruction traps (integer
 * division is the interpreter's).
 */
#include "native.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- code generation ---- */

static void fail(gen *g, const char *fmt, uint32_t pc, const char *what)
{
    if (g->failed)
        return;
    g->failed = true;
    snprintf(g->why, g->nwhy, fmt, pc, what);
}

/* A barrier's resume point, a loop head a resume point enters: no
 * written value is forwarded past here (none dominates it). */
static void forget(const gen *g)
{
    memset(g->fwd, 0, sizeof *g->fwd * g->nslots);
}

/* At a construct's start (depth d, just opened): what is forwarded now
 * is kept for its markers. Lanes that meet at a marker (else, continuing,
 * end) were all active at the start, so what was forwarded then and not
 * written since still holds in each (and its value dominates the marker). */
static void snapshot(gen *g, unsigned d)
{
    if (!g->snap[d] && !(g->snap[d] = calloc(g->nslots + 1, sizeof *g->snap[d]))) {
        fail(g, "out of memory at depth %u%s", d, "");
        g->again = true;
        return;
    }
    memcpy(g->snap[d], g->fwd, sizeof *g->fwd * g->nslots);
}

/* At a marker of the construct at depth d: what was written since its start is no longer forwarded. */
static void rejoin(const gen *g, unsigned d)
{
    for (uint32_t s = 0; s < g->nslots; s++)
        if (g->fwd[s].v != g->snap[d][s].v)
            g->fwd[s] = (fval){0};
}

/* The plane's register slot s as a pointer to its vector (rb bytes per slot). */
static LLVMValueRef slot_ptr(const gen *g, LLVMValueRef regs, uint32_t s, unsigned rshift)
{
    LLVMValueRef idx = c64(g, (uint64_t)s << rshift);
    LLVMValueRef at = llvm.BuildGEP2(g->B, g->i8, regs, &idx, 1, "");
    return llvm.BuildBitCast(g->B, at, llvm.PointerType(vec(g, g->slot_elem[s]), 0), "");
}

static unsigned rshift_of(unsigned W)
{
    unsigned lanes = 8, sh = 0;
    while (lanes < W)
        lanes *= 2;
    while ((1u << sh) < lanes * 8)
        sh++;
    return sh;
}

/* The value of a `const` or `param` instruction (one lane's). */
LLVMValueRef cvm_nat_launch_scalar(const gen *g, const cvm_vm_dinsn *in)
{
    const unsigned e = in->elem;
    if (in->h == CVM_OP_CONST) {
        LLVMValueRef c = llvm.ConstInt(llvm.IntTypeInContext(g->C, cvm_vm_esz(e) * 8), in->imm, false);
        return llvm.ConstBitCast(c, scalar(g, e));
    }
    LLVMValueRef L = load_fixed(g, g->x, offsetof(cvm_vm_exec, L), g->i8p);
    LLVMValueRef params = load_fixed(g, L, offsetof(cvm_vm_launch, params), g->i8p);
    LLVMValueRef offs = load_fixed(g, L, offsetof(cvm_vm_launch, param_offset), llvm.PointerType(g->i32, 0));
    LLVMValueRef idx = c64(g, in->aux);
    LLVMValueRef o = fixed(g, llvm.BuildLoad2(g->B, g->i32, llvm.BuildGEP2(g->B, g->i32, offs, &idx, 1, ""), ""));
    LLVMValueRef at = llvm.BuildAdd(g->B, llvm.BuildZExt(g->B, o, g->i64, ""), c64(g, in->imm), "");
    LLVMValueRef src = llvm.BuildGEP2(g->B, g->i8, params, &at, 1, "");
    LLVMValueRef v = llvm.BuildLoad2(g->B, scalar(g, e), llvm.BuildBitCast(g->B, src, llvm.PointerType(scalar(g, e), 0), ""), "");
    llvm.SetAlignment(v, 1);
    return fixed(g, v);
}

/* The scalar of a slot with cst, computed once at the function's entry. */
LLVMValueRef cvm_nat_cst_scalar(const gen *g, uint32_t slot)
{
    if (!g->cval[slot]) {
        LLVMBasicBlockRef cur = llvm.GetInsertBlock(g->B);
        llvm.PositionBuilderAtEnd(g->B, g->entry);
        g->cval[slot] = cvm_nat_launch_scalar(g, &g->code[g->cst[slot] - 1]);
        llvm.PositionBuilderAtEnd(g->B, cur);
    }
    return g->cval[slot];
}

/* Whether slot i holds its start value (zero) at resume point pc: no
 * instruction before pc touches it, and no loop around pc does (a later
 * write would come round). A plane goes forward but for loops' rounds, so
 * nothing has written it; a suspend need not store it (the file holds
 * the cube start's zero, or values no lane reads: decode.c), a resume
 * makes it zero again. The reductions of a softmax suspend at barriers
 * before most of the kernel's registers are born. */
static bool unborn_at(const gen *g, uint32_t i, uint32_t pc)
{
    if (g->first_touch[i] < pc)
        return false;
    uint32_t lo, hi;
    return !outer_loop(g, pc, &lo, &hi) || g->first_touch[i] > hi;
}

/* Whether a resume at pc makes slot i again (remake) rather than
 * reloading it: a remat register of 32-bit lanes whose writer comes
 * before pc, or of any width in code for cubes of pairs of rows (gen's
 * pairs), where the positions' lanes are constants and one scalar, and so
 * is what is made of them: LLVM folds the quick paths' tests of their
 * forms (matmul's tile offsets), which a reload hides from it. (Elsewhere
 * a 64-bit one would cost a widening and its ops on twice the
 * vectors, more than its reload: matmul's hoisted `(long)threadIdx.x`
 * and `threadIdx.x * 4` took 4% more instructions; one still comes back
 * as an operand of a 32-bit one, where LLVM narrows it.) */
static bool remade_at(const gen *g, uint32_t i, uint32_t pc)
{
    return g->remat[i] && g->remat[i] - 1 < pc && (cvm_vm_esz(g->slot_elem[i]) == 4 || g->pairs);
}

/* Spills slots [s, s + n) to the file, or reloads them from it; with
 * live_pc != UINT32_MAX only those live at that resume point. */
static void spill_live(const gen *g, uint32_t s, uint32_t n, bool out, uint32_t live_pc)
{
    LLVMValueRef regs = load_fixed(g, g->p, offsetof(cvm_vm_plane, regs), g->i8p);
    const unsigned rs = rshift_of(g->W);
    for (uint32_t i = s; i < s + n && i < g->nslots; i++) {
        if (live_pc != UINT32_MAX && !live_at(g, i, live_pc)) {
            if (!out && renewed_at(g, i, live_pc)) /* read after it is written again: its other lanes defined */
                llvm.BuildStore(g->B, llvm.ConstNull(slot_type(g, i)), g->slot[i]);
            continue;
        }
        if (live_pc != UINT32_MAX && unborn_at(g, i, live_pc)) {
            if (!out)
                llvm.BuildStore(g->B, llvm.ConstNull(slot_type(g, i)), g->slot[i]);
            continue;
        }
        if (live_pc != UINT32_MAX && !out && remade_at(g, i, live_pc))
            continue; /* made again after the reloads (remake) */
        if (live_pc != UINT32_MAX && g->cst[i]) { /* made again, not stored */
            if (!out) {
                LLVMValueRef c = cvm_nat_cst_scalar(g, i);
                llvm.BuildStore(g->B, g->puni[i] ? c : splat(g, c), g->slot[i]);
            }
            continue;
        }
        if (live_pc != UINT32_MAX && out && g->settled[i])
            continue; /* the file holds it since its last write */
        LLVMValueRef at = slot_ptr(g, regs, i, rs);
        if (out) {
            LLVMValueRef st = llvm.BuildStore(g->B, reg_out(g, i, true), at);
            llvm.SetAlignment(st, 8);
        } else if (g->puni[i] || (live_pc != UINT32_MAX && g->uni_settled[i])) {
            /* one value in the lanes that can read it: the first active lane's, broadcast
             * (lane 0 when none is active: the file holds the value spilled there in
             * every lane of a plane-uniform slot, and no lane reads a uni_settled one) */
            LLVMValueRef l = first_lane(g, load(g, g->p, offsetof(cvm_vm_plane, active), g->i64));
            LLVMTypeRef et = scalar(g, g->slot_elem[i]);
            LLVMValueRef ep = llvm.BuildGEP2(g->B, et, llvm.BuildBitCast(g->B, at, llvm.PointerType(et, 0), ""), &l, 1, "");
            LLVMValueRef v = llvm.BuildLoad2(g->B, et, ep, "");
            llvm.BuildStore(g->B, g->puni[i] ? v : splat(g, v), g->slot[i]);
            g->fwd[i] = (fval){0};
        } else {
            LLVMValueRef v = llvm.BuildLoad2(g->B, vec(g, g->slot_elem[i]), at, "");
            llvm.SetAlignment(v, 8);
            llvm.BuildStore(g->B, v, g->slot[i]);
            g->fwd[i] = (fval){0};
        }
    }
}

static void spill(const gen *g, uint32_t s, uint32_t n, bool out)
{
    spill_live(g, s, n, out, UINT32_MAX);
}

/* After instruction pc (outside loops: settled slots are written nowhere
 * else): the settled slots it wrote, to the register file, unless no
 * stop after it needs them. */
static void write_through(const gen *g, uint32_t pc)
{
    uint32_t list[CVM_BC_MAX_OPERANDS + 4];
    unsigned n, nw;
    cvm_nat_named(g, &g->code[pc], list, &n, &nw);
    for (unsigned i = 0; i < nw; i++)
        for (uint32_t t = list[i]; t < list[i] + width_at(g, list[i]) && t < g->nslots; t++)
            if (pc < g->settled[t]) /* (0: not settled) */
                spill(g, t, 1, true);
}

/* Stores the masks of constructs 0..depth-1 to the plane's frames, or loads them. */
static void frames(const gen *g, unsigned depth, bool out)
{
    LLVMValueRef stack = load_fixed(g, g->p, offsetof(cvm_vm_plane, stack), g->i8p);
    for (unsigned d = 0; d < depth; d++)
        for (unsigned k = 0; k < 2; k++) {
            if (!g->con[d].m[k])
                continue;
            const size_t off = sizeof(cvm_vm_frame) * d + offsetof(cvm_vm_frame, m) + 8 * k;
            if (out)
                store(g, llvm.BuildLoad2(g->B, g->i64, g->con[d].m[k], ""), stack, off);
            else
                llvm.BuildStore(g->B, load(g, stack, off, g->i64), g->con[d].m[k]);
        }
}

/* Writes the plane's masks (and quantum) to its record. */
static void sync_record(const gen *g)
{
    store(g, get_active(g), g->p, offsetof(cvm_vm_plane, active));
    store(g, llvm.BuildLoad2(g->B, g->i64, g->exited, ""), g->p, offsetof(cvm_vm_plane, exited));
}

/* Leaves the function with the plane resumable at pc (a barrier's next pc
 * or a loop body's first). */
/* The plane's state at resume point pc (what its resume block restores)
 * to its record. */
static void save_state(gen *g, uint32_t pc)
{
    spill_live(g, 0, g->nslots, true, pc);
    frames(g, g->depth, true);
    sync_record(g);
    store(g, llvm.BuildLoad2(g->B, g->i32, g->quantum, ""), g->p, offsetof(cvm_vm_plane, quantum));
}

static void suspend(gen *g, uint32_t pc, LLVMValueRef result)
{
    save_state(g, pc);
    store(g, c32(g, pc), g->p, offsetof(cvm_vm_plane, pc));
    store(g, c32(g, g->depth), g->p, offsetof(cvm_vm_plane, sp));
    llvm.BuildRet(g->B, result);
}

/* At resume point pc, after the reloads and the masks: the registers
 * live there that gen's `remat` makes again, with the ones they are made
 * from, by their writers in order, in every lane (the writers ran in all
 * live lanes, and one inactive here may read them after the construct).
 * Nothing forwarded leaves the resume block. */
static void remake(gen *g, uint32_t pc)
{
    bool any = false;
    for (uint32_t s = 0; s < g->nslots; s++) {
        g->remade[s] = remade_at(g, s, pc) && live_at(g, s, pc) && !unborn_at(g, s, pc);
        any |= g->remade[s];
    }
    if (!any)
        return;
    uint32_t list[CVM_BC_MAX_OPERANDS + 4];
    unsigned k, nw;
    for (uint32_t w = pc; w-- > 0;) { /* what they are made from: writers come first */
        cvm_nat_named(g, &g->code[w], list, &k, &nw);
        if (nw != 1 || list[0] >= g->nslots || g->remat[list[0]] != w + 1 || !g->remade[list[0]])
            continue;
        for (unsigned i = nw; i < k; i++)
            if (g->remat[list[i]])
                g->remade[list[i]] = 1;
    }
    LLVMValueRef act = get_active(g);
    set_active(g, c64(g, ~UINT64_C(0)));
    for (uint32_t w = 0; w < pc; w++) {
        cvm_nat_named(g, &g->code[w], list, &k, &nw);
        const uint32_t d = list[0];
        if (nw != 1 || d >= g->nslots || g->remat[d] != w + 1 || !g->remade[d])
            continue;
        if (!cvm_nat_lane_op(g, &g->code[w])) /* (remat_op's ops all compile) */
            fail(g, "pc %u: a register to make again at a resume does not compile%s", w, "");
    }
    set_active(g, act);
    for (uint32_t s = 0; s < g->nslots; s++)
        if (g->remade[s])
            g->fwd[s] = (fval){0};
}

/* A resume point at pc: the entry's switch restores the state and goes to `to`. */
static void add_resume(gen *g, uint32_t pc, LLVMBasicBlockRef to)
{
    if (g->fastcopy)
        return; /* the general copy's resume point for pc restores the same state */
    if (g->nres == g->capres) {
        g->capres = g->capres ? g->capres * 2 : 8;
        resume *r = realloc(g->res, sizeof *r * g->capres);
        if (!r) {
            fail(g, "out of memory at pc %u%s", pc, "");
            g->again = true;
            return;
        }
        g->res = r;
    }
    LLVMBasicBlockRef cur = llvm.GetInsertBlock(g->B);
    LLVMBasicBlockRef bb = llvm.AppendBasicBlockInContext(g->C, g->fn, "resume");
    llvm.PositionBuilderAtEnd(g->B, bb);
    spill_live(g, 0, g->nslots, false, pc);
    frames(g, g->depth, false);
    set_active(g, load(g, g->p, offsetof(cvm_vm_plane, active), g->i64));
    llvm.BuildStore(g->B, load(g, g->p, offsetof(cvm_vm_plane, exited), g->i64), g->exited);
    llvm.BuildStore(g->B, load(g, g->p, offsetof(cvm_vm_plane, quantum), g->i32), g->quantum);
    remake(g, pc);
    llvm.BuildBr(g->B, to);
    llvm.PositionBuilderAtEnd(g->B, cur);
    g->res[g->nres++] = (resume){pc, bb};
}

/* The innermost construct's next marker (the end of the kernel at depth 0). */
static LLVMBasicBlockRef next_marker(const gen *g)
{
    return g->depth ? g->con[g->depth - 1].next : g->done;
}

/* Goes on in a new block when the active mask is not empty, else to the next marker. */
static void continue_if_active(gen *g)
{
    LLVMBasicBlockRef go = block(g, "go");
    LLVMValueRef any = llvm.BuildICmp(g->B, LLVMIntNE, get_active(g), c64(g, 0), "");
    llvm.BuildCondBr(g->B, any, go, next_marker(g));
    llvm.PositionBuilderAtEnd(g->B, go);
}

/* After an unconditional jump: code up to the next marker is unreachable. */
static void dead_block(gen *g)
{
    llvm.PositionBuilderAtEnd(g->B, block(g, "dead"));
}

/* Condition register (bools, bit 0) as a 64-bit lane mask, within the
 * active lanes; one value in every lane (a forwarded scalar compare: a
 * versioned loop's bounds) selects the active lanes or none, without
 * the vector (AVX2 made it a broadcast, a shift and a vpmovmskb). */
static LLVMValueRef cond_mask(const gen *g, uint32_t slot)
{
    LLVMValueRef s;
    if (form_at(g, slot, &s) == F_UNI)
        return llvm.BuildSelect(g->B, llvm.BuildTrunc(g->B, s, g->i1, ""), get_active(g), c64(g, 0), "");
    LLVMValueRef v = llvm.BuildTrunc(g->B, reg_get(g, slot), g->vmask, "");
    return llvm.BuildAnd(g->B, mask_bits(g, v), get_active(g), "");
}

/* The active lanes where the test of `if` at pc holds: cond_mask, or a
 * count of lanes from one end where the test compares lane positions
 * with one value (cvm_nat_consec_mask). */
static LLVMValueRef if_mask(gen *g, uint32_t pc)
{
    const uint32_t slot = g->code[pc].a;
    LLVMValueRef s, m;
    if (form_at(g, slot, &s) == F_UNI || !(m = cvm_nat_consec_mask(g, pc)))
        return cond_mask(g, slot);
    return llvm.BuildAnd(g->B, m, get_active(g), "");
}

/* ---- the full-mask copy (gen's fullcopy, full) ---- */

/* Here every lane is active: the mask a constant, which LLVM folds into
 * what reads it (the quick paths' test of a full plane, the merge of a
 * lane op's result with the inactive lanes' old values). */
static void set_full(gen *g)
{
    set_active(g, full_mask(g));
    g->full = true;
}

/* Whether every lane is active here and condition slot holds one value
 * in them: all lanes take the branch, or none. */
static bool all_or_none(const gen *g, uint32_t slot)
{
    LLVMValueRef s;
    return g->full && form_at(g, slot, &s) == F_UNI;
}

/* An exit to construct t (-1: the kernel's end) that some lanes take
 * while others stay: the constructs it leaves end with fewer lanes than
 * began them, and a loop it breaks out of (brk) goes on to its
 * continuing part with fewer. */
static void lanes_left(gen *g, int t, bool brk)
{
    for (int d = t + 1; d < (int)g->depth; d++)
        g->con[d].lost = true;
    if (t >= 0 && brk)
        g->con[t].brk_partial = true;
}

/* At a marker in a full-mask copy, after the test for an empty mask:
 * every lane is active when all of them began the construct and none
 * left it with others staying (`whole`); an exit all of them take leaves
 * the mask empty, and the code here unreached. */
static void regain(gen *g, bool whole)
{
    if (whole && g->fullcopy)
        set_full(g);
    else
        g->full = false;
}

LLVMValueRef cvm_nat_entry_alloca(gen *g, LLVMTypeRef t, const char *name)
{
    LLVMBasicBlockRef cur = llvm.GetInsertBlock(g->B);
    LLVMBasicBlockRef entry = llvm.GetEntryBasicBlock(g->fn);
    LLVMValueRef first = llvm.GetFirstInstruction(entry);
    if (first)
        llvm.PositionBuilderBefore(g->B, first);
    else
        llvm.PositionBuilderAtEnd(g->B, entry);
    LLVMValueRef a = llvm.BuildAlloca(g->B, t, name);
    llvm.PositionBuilderAtEnd(g->B, cur);
    return a;
}

static LLVMValueRef new_mask(gen *g, const char *name, LLVMValueRef init)
{
    LLVMValueRef a = cvm_nat_entry_alloca(g, g->i64, name);
    llvm.BuildStore(g->B, init, a);
    return a;
}

/* ---- the fallback: one instruction through the interpreter ---- */

/* The register operands (first slots) instruction `in` names, in its
 * format's order: the destination first when it has one (*nw: 0 or 1). */
void cvm_nat_named(const gen *g, const cvm_vm_dinsn *in, uint32_t *list, unsigned *n, unsigned *nw)
{
    const cvm_bc_opinfo *f0 = cvm_bc_op_info(in->h);
    *nw = f0 && f0->format[0] == 'd';
    const cvm_bc_opinfo *oi = cvm_bc_op_info(in->h);
    const uint32_t src[3] = {in->a, in->b, in->c};
    unsigned nr = 0;
    *n = 0;
    for (const char *f = oi ? oi->format : ""; *f; f++) {
        if (*f == 'r' && f[1] == '*') {
            const cvm_vm_arg *args = in->ptr;
            for (uint32_t i = 0; i < in->n; i++)
                list[(*n)++] = args[i].slot;
            break;
        }
        if (*f == 'd')
            list[(*n)++] = in->d;
        else if (*f == 'r' && nr < 3)
            list[(*n)++] = src[nr++];
    }
    (void)g;
}

static void chain(gen *g, bool finished);

/* Whether operand i of an instruction (cvm_nat_named's list) is a local
 * register (gen's local) it only writes: the interpreter writes its
 * active lanes, and the others are never read, so what it held is not
 * stored first (a load's old value, else kept live from round to round
 * for its slow path alone). */
static bool only_written(const gen *g, const uint32_t *list, unsigned n, unsigned nw, unsigned i)
{
    if (i >= nw || list[i] >= g->nslots || !g->local[list[i]] || width_at(g, list[i]) != 1)
        return false;
    for (unsigned j = nw; j < n; j++)
        if (list[j] == list[i])
            return false;
    return true;
}

/* Runs instruction pc through the interpreter; a barrier that waits
 * suspends the plane with its resume point at pc + 1 (and a cube
 * barrier goes on with the next plane: chain). */
void cvm_nat_fallback(gen *g, uint32_t pc)
{
    const cvm_vm_dinsn *in = &g->code[pc];
    uint32_t list[CVM_BC_MAX_OPERANDS + 4];
    unsigned n, nw;
    cvm_nat_named(g, in, list, &n, &nw);
    for (unsigned i = 0; i < n; i++)
        if (!only_written(g, list, n, nw, i))
            spill(g, list[i], width_at(g, list[i]), true);
    sync_record(g);
    LLVMValueRef args[3] = {g->x, g->p, c32(g, pc)};
    LLVMValueRef r = llvm.BuildCall2(g->B, g->ty_step, g->fn_step, args, 3, "");
    for (unsigned i = 0; i < n; i++)
        if (i < nw || !g->stale[list[i]]) /* a lazy register it only reads keeps what is forwarded */
            spill(g, list[i], width_at(g, list[i]), false);
    LLVMBasicBlockRef ok = block(g, "ok"), other = block(g, "stop");
    llvm.BuildCondBr(g->B, llvm.BuildICmp(g->B, LLVMIntEQ, r, c32(g, CVM_VM_R_YIELD), ""), ok, other);
    llvm.PositionBuilderAtEnd(g->B, other);
    const bool waits = in->h == CVM_OP_SYNC_CUBE || in->h == CVM_OP_SYNC_CUBE_COUNT ||
                       in->h == CVM_OP_SYNC_CUBE_AND || in->h == CVM_OP_SYNC_CUBE_OR ||
                       in->h == CVM_OP_BAR_SYNC;
    if (waits) {
        forget(g);
        LLVMBasicBlockRef wait = block(g, "wait"), stop = block(g, "fault");
        llvm.BuildCondBr(g->B, llvm.BuildICmp(g->B, LLVMIntEQ, r, c32(g, CVM_VM_R_WAIT), ""), wait,
                        stop);
        llvm.PositionBuilderAtEnd(g->B, wait);
        /* the interpreter's record says AT_SYNC/AT_BAR at pc; it resumes at pc + 1 */
        spill_live(g, 0, g->nslots, true, pc + 1);
        frames(g, g->depth, true);
        store(g, llvm.BuildLoad2(g->B, g->i32, g->quantum, ""), g->p, offsetof(cvm_vm_plane, quantum));
        store(g, c32(g, g->depth), g->p, offsetof(cvm_vm_plane, sp));
        if (in->h == CVM_OP_BAR_SYNC)
            llvm.BuildRet(g->B, r); /* a named barrier's release is the interpreter's */
        else
            chain(g, false); /* a cube barrier, released as a plain one is */
        llvm.PositionBuilderAtEnd(g->B, stop);
        llvm.BuildRet(g->B, r);
        llvm.PositionBuilderAtEnd(g->B, ok);
        add_resume(g, pc + 1, ok);
        /* a plane released by a barrier was made runnable at pc + 1 by interp.c */
        set_active(g, load(g, g->p, offsetof(cvm_vm_plane, active), g->i64));
        return;
    }
    llvm.BuildRet(g->B, r);
    llvm.PositionBuilderAtEnd(g->B, ok);
}

/* After a plane's arrival at a cube barrier, its state stored: goes on
 * with the next plane of the pass in this call (vm/jit_rt.c
 * cvm_jit_chain), at the dispatch, or returns the wait to run_cube.
 * After a plane finished (`finished`), only the inline look: the next
 * plane in index order when it is runnable, else the return of
 * CVM_VM_R_DONE, after which run_cube goes on as it would have. A
 * kernel's planes thus run in one call where nothing stops them, and
 * what the entry computes once (parameters, their buffers' bounds, a
 * constant's vector) serves them all: vadd's 8 planes a cube paid the
 * function's entry, its buffer lookups and its return 8 times. */
static void chain(gen *g, bool finished)
{
    if (g->nchains == g->capchains) {
        g->capchains = g->capchains ? g->capchains * 2 : 8;
        LLVMBasicBlockRef *c = realloc(g->chains, sizeof *c * g->capchains);
        if (!c) {
            fail(g, "out of memory at pc %u%s", 0, "");
            g->again = true;
            llvm.BuildRet(g->B, c32(g, finished ? CVM_VM_R_DONE : CVM_VM_R_WAIT));
            return;
        }
        g->chains = c;
    }
    /* the common case inline: the next plane in index order is runnable
     * (cvm_jit_chain's first look, and what it then records) */
    LLVMBasicBlockRef look = block(g, "look"), fast = block(g, "fast"), slow = block(g, "slow"),
                      go = block(g, "chain");
    if (!finished)
        store(g, llvm.ConstInt(g->i8, 1, false), g->x, offsetof(cvm_vm_exec, chain_waited));
    LLVMValueRef on = llvm.BuildICmp(g->B, LLVMIntNE, load_fixed(g, g->x, offsetof(cvm_vm_exec, chain), g->i8),
                                     llvm.ConstInt(g->i8, 0, false), "");
    LLVMValueRef after = llvm.BuildAdd(g->B, load_fixed(g, g->p, offsetof(cvm_vm_plane, index), g->i32), c32(g, 1), "");
    LLVMValueRef more = llvm.BuildICmp(g->B, LLVMIntULT, after,
                                       load_fixed(g, g->x, offsetof(cvm_vm_exec, nplanes), g->i32), "");
    llvm.BuildCondBr(g->B, llvm.BuildAnd(g->B, on, more, ""), look, slow);
    llvm.PositionBuilderAtEnd(g->B, look);
    LLVMValueRef size = c64(g, sizeof(cvm_vm_plane));
    LLVMValueRef q = llvm.BuildGEP2(g->B, g->i8, g->p, &size, 1, "");
    llvm.BuildCondBr(g->B, llvm.BuildICmp(g->B, LLVMIntEQ, load(g, q, offsetof(cvm_vm_plane, state), g->i32),
                                          c32(g, CVM_VM_RUNNABLE), ""), fast, slow);
    llvm.PositionBuilderAtEnd(g->B, fast);
    store(g, q, g->x, offsetof(cvm_vm_exec, chained));
    store(g, llvm.ConstInt(g->i8, 0, false), g->x, offsetof(cvm_vm_exec, synced));
    LLVMBasicBlockRef join = finished ? go : block(g, "next");
    llvm.BuildBr(g->B, join);
    llvm.PositionBuilderAtEnd(g->B, slow);
    LLVMValueRef nx = q;
    if (finished) {
        llvm.BuildRet(g->B, c32(g, CVM_VM_R_DONE));
    } else {
        LLVMBasicBlockRef wait = block(g, "wait");
        LLVMValueRef args[2] = {g->x, g->p};
        LLVMValueRef next = llvm.BuildCall2(g->B, g->ty_chain, g->fn_chain, args, 2, "next");
        llvm.BuildCondBr(g->B,
                         llvm.BuildICmp(g->B, LLVMIntEQ, llvm.BuildPtrToInt(g->B, next, g->i64, ""), c64(g, 0), ""),
                         wait, join);
        llvm.PositionBuilderAtEnd(g->B, wait);
        llvm.BuildRet(g->B, c32(g, CVM_VM_R_WAIT));
        llvm.PositionBuilderAtEnd(g->B, join);
        nx = llvm.BuildPhi(g->B, g->i8p, "next");
        llvm.AddIncoming(nx, (LLVMValueRef[]){q, next}, (LLVMBasicBlockRef[]){fast, slow}, 2);
        llvm.BuildBr(g->B, go);
    }
    llvm.PositionBuilderAtEnd(g->B, go); /* (emit() puts the edge's undefined allocas here) */
    llvm.BuildBr(g->B, g->dispatch);
    llvm.AddIncoming(g->p_phi, &nx, &go, 1);
    g->chains[g->nchains++] = go;
}

/* sync_cube, the interpreter's handler inline when the plane's active
 * lanes are all its unfinished ones: the plane waits at pc, and
 * release_sync (vm/interp.c) makes it runnable at pc + 1, where the
 * resume point cvm_nat_fallback() made goes on. Other masks run through the
 * interpreter, which waits the same way or, in checked mode, reports the
 * barrier divergence. The inline arrival saves the interpreter's call for
 * one instruction; either way the call goes on with the pass's next
 * plane (chain). */
static void sync_cube(gen *g, uint32_t pc)
{
    LLVMValueRef live = load_fixed(g, g->p, offsetof(cvm_vm_plane, live), g->i64);
    LLVMValueRef want = llvm.BuildAnd(g->B, live, llvm.BuildNot(g->B, llvm.BuildLoad2(g->B, g->i64, g->exited, ""), ""), "");
    LLVMBasicBlockRef arrive = block(g, "arrive"), other = block(g, "diverged");
    llvm.BuildCondBr(g->B, llvm.BuildICmp(g->B, LLVMIntEQ, get_active(g), want, ""), arrive, other);
    llvm.PositionBuilderAtEnd(g->B, arrive);
    store(g, c32(g, CVM_VM_AT_SYNC), g->p, offsetof(cvm_vm_plane, state));
    store(g, c32(g, pc), g->p, offsetof(cvm_vm_plane, wait_pc));
    sync_record(g);
    spill_live(g, 0, g->nslots, true, pc + 1);
    frames(g, g->depth, true);
    store(g, llvm.BuildLoad2(g->B, g->i32, g->quantum, ""), g->p, offsetof(cvm_vm_plane, quantum));
    store(g, c32(g, g->depth), g->p, offsetof(cvm_vm_plane, sp));
    chain(g, false);
    llvm.PositionBuilderAtEnd(g->B, other);
    cvm_nat_fallback(g, pc);
}

/* Whether instruction `in` is a lane op compiled inline (else: fallback). */

/* ---- loop versioning ---- */

/* A register's lanes as the code before a loop suggests they will be
 * there: one value (F_UNI), or lane f's value + (l - f) in lane l
 * (F_CONS), or neither. Only a guess: version_loop tests it. */

/* The first slot instruction in writes, UINT32_MAX if none. */
/* Whether each candidate has its form in every active lane: lane f's
 * value in all of them, or lane f's + (l - f) in lane l (for that, lane
 * 0's value); val[i] the form's scalar (fval's s). */
static LLVMValueRef form_test(gen *g, const vcand *cand, unsigned nc, LLVMValueRef *val)
{
    LLVMValueRef act = get_active(g), f = first_lane(g, act);
    LLVMValueRef ok = llvm.ConstInt(g->i1, 1, false);
    for (unsigned i = 0; i < nc; i++) {
        const uint32_t s = cand[i].slot;
        const unsigned e = g->slot_elem[s];
        LLVMValueRef du, dc, ds;
        if (cvm_nat_dyn_form(g, s, &du, &dc, &ds)) { /* known at run time: no test of the lanes */
            ok = llvm.BuildAnd(g->B, ok, cand[i].form == F_UNI ? du : dc, "");
            val[i] = ds;
            continue;
        }
        LLVMValueRef v = reg_get(g, s), vf = llvm.BuildExtractElement(g->B, v, f, ""), same;
        if (cand[i].form == F_UNI) {
            same = llvm.BuildICmp(g->B, LLVMIntEQ, v, splat(g, vf), "");
            val[i] = vf;
        } else {
            LLVMTypeRef t = scalar(g, e);
            val[i] = llvm.BuildSub(g->B, vf, cvm_vm_esz(e) == 8 ? llvm.BuildZExt(g->B, f, g->i64, "") : f, "");
            same = llvm.BuildICmp(g->B, LLVMIntEQ, llvm.BuildSub(g->B, v, iota(g, t), ""), splat(g, val[i]), "");
        }
        LLVMValueRef bad = llvm.BuildAnd(g->B, mask_bits(g, llvm.BuildNot(g->B, same, "")), act, "");
        ok = llvm.BuildAnd(g->B, ok, llvm.BuildICmp(g->B, LLVMIntEQ, bad, c64(g, 0), ""), "");
    }
    return ok;
}

/* The block the entry's switch sends pc to. */
static LLVMBasicBlockRef resume_block(const gen *g, uint32_t pc)
{
    for (unsigned i = 0; i < g->nres; i++)
        if (g->res[i].pc == pc)
            return g->res[i].bb;
    return NULL;
}

/* In a versioned copy at loop pc's head: goes on where ok holds; where
 * it fails, the state goes to the plane's record and on in the general
 * copy, at the resume point of the loop's head (as a plane stopped there
 * would resume: before the first round it is the same state), never to
 * come back. False where there is no such point (a failed compile). */
static bool or_general(gen *g, uint32_t pc, LLVMValueRef ok)
{
    LLVMBasicBlockRef to = resume_block(g, pc + 1);
    if (!to) {
        fail(g, "pc %u: a versioned loop has no resume point%s", pc, "");
        return false;
    }
    LLVMBasicBlockRef body = block(g, "body"), deopt = block(g, "deopt");
    llvm.BuildCondBr(g->B, ok, body, deopt);
    llvm.PositionBuilderAtEnd(g->B, deopt);
    save_state(g, pc + 1);
    llvm.BuildBr(g->B, to);
    llvm.PositionBuilderAtEnd(g->B, body);
    return true;
}

/* The loop at pc in a versioned copy: the forms of its candidates not
 * already forwarded, tested and forwarded. Those the loop does not write
 * (written false) once, before its head: lanes only leave the loop, so
 * what holds at its entry holds in every round; those it writes (a
 * counter) at its head, each round; where a test fails, the plane goes
 * on in the general copy (or_general). */
static void guard(gen *g, uint32_t pc, bool written)
{
    vcand cand[MAXVERSIONED];
    LLVMValueRef val[MAXVERSIONED], sc;
    construct *c = &g->con[g->depth - 1];
    if (!written) /* before the head: the loop's candidates, for both tests */
        c->ncand = cvm_nat_loop_candidates(g, pc, c->cand);
    unsigned k = 0, at[MAXVERSIONED];
    for (unsigned i = 0; i < c->ncand; i++) {
        const vcand *v = &c->cand[i];
        if (written && c->ind_at[i]) /* at the head: an inductive one's scalar, carried */
            forward(g, v->slot, v->form, llvm.BuildLoad2(g->B, scalar(g, g->slot_elem[v->slot]), c->ind_at[i], ""), NULL);
        if ((v->written && !v->inductive) == written && (form_at(g, v->slot, &sc) == F_VAR || v->inductive))
            at[k] = i, cand[k++] = *v;
    }
    const unsigned nc = k;
    if (!nc)
        return;
    if (!or_general(g, pc, form_test(g, cand, nc, val)))
        return;
    for (unsigned i = 0; i < nc; i++) {
        if (cand[i].inductive) { /* before the head: its scalar's carrier */
            LLVMBasicBlockRef cur = llvm.GetInsertBlock(g->B);
            llvm.PositionBuilderAtEnd(g->B, g->entry);
            c->ind_at[at[i]] = llvm.BuildAlloca(g->B, scalar(g, g->slot_elem[cand[i].slot]), "ind");
            llvm.PositionBuilderAtEnd(g->B, cur);
            llvm.BuildStore(g->B, val[i], c->ind_at[at[i]]);
        }
        forward(g, cand[i].slot, cand[i].form, val[i], NULL);
    }
}

/* After instruction in at a versioned loop's top level: an inductive
 * register it writes has its new scalar stored for the next round's
 * head (forwarded by form_op, as native_loop.c's induct found; else read from lane f). */
static void note_inductive(gen *g, const cvm_vm_dinsn *in)
{
    if (!g->fastcopy || !g->depth || g->con[g->depth - 1].kind != CVM_VM_F_LOOP)
        return;
    const construct *c = &g->con[g->depth - 1];
    const uint32_t d = cvm_nat_dest_slot(g, in);
    for (unsigned i = 0; d != UINT32_MAX && i < c->ncand; i++) {
        if (!c->ind_at[i] || c->cand[i].slot != d)
            continue;
        LLVMValueRef s = NULL;
        if (form_at(g, d, &s) != c->cand[i].form) {
            const unsigned e = g->slot_elem[d];
            LLVMValueRef f = first_lane(g, get_active(g));
            s = llvm.BuildExtractElement(g->B, reg_raw(g, d), f, "");
            if (c->cand[i].form == F_CONS)
                s = llvm.BuildSub(g->B, s, cvm_vm_esz(e) == 8 ? llvm.BuildZExt(g->B, f, g->i64, "") : f, "");
        }
        llvm.BuildStore(g->B, s, c->ind_at[i]);
    }
}

/* ---- control flow ---- */

static construct *push(gen *g, int kind, uint32_t pc)
{
    construct *c = &g->con[g->depth++];
    *c = (construct){.kind = kind, .open = pc};
    return c;
}

/* Before a versioned copy's loop at lo: what the loop writes is not forwarded into it. */
static void unwritten(const gen *g, uint32_t lo)
{
    for (uint32_t pc = lo; pc <= g->code[lo].end && pc < g->kp->ninsns; pc++) {
        uint32_t list[CVM_BC_MAX_OPERANDS + 4];
        unsigned n, nw;
        cvm_nat_named(g, &g->code[pc], list, &n, &nw);
        for (uint32_t w = 0; nw && w < width_at(g, list[0]) && list[0] + w < g->nslots; w++)
            g->fwd[list[0] + w] = (fval){0};
    }
}

/* Whether the loop at pc has a barrier in its body. In code for cubes
 * of rows or pairs, its head makes again (remake) the registers of
 * positions and launch constants live there, as a resume does: the
 * rounds then read what LLVM sees is made of positions, not a merge of
 * the values the barrier's resume and the round before made (a
 * reduction's `threadIdx.x` and its shared pointers, whose forms its
 * accesses test). Loops without one gain nothing: pool5's windows were
 * 0.6% slower. */
static bool has_barrier(const gen *g, uint32_t pc)
{
    for (uint32_t q = pc + 1; q < g->code[pc].end && q < g->kp->ninsns; q++)
        if (is_barrier(g->code[q].h))
            return true;
    return false;
}

static void control(gen *g, uint32_t pc)
{
    const cvm_vm_dinsn *in = &g->code[pc];
    construct *c;
    switch (in->h) {
    case CVM_OP_IF: {
        LLVMValueRef act = get_active(g), cm, all, ok;
        bool uni = all_or_none(g, in->a);
        if (g->full && !uni && pc == g->exit_if) { /* (at its loop's top level) */
            /* a full-mask copy's loop exit test (a grid-stride loop's
             * `i < n`): every lane leaves or none, else the plane goes on
             * in the general copy at the loop's head, which makes the
             * test again (cvm_nat_loop_exit) */
            if ((ok = cvm_nat_exit_scalar(g, pc, &all))) {
                cm = llvm.BuildSelect(g->B, all, full_mask(g), c64(g, 0), "");
            } else {
                cm = cond_mask(g, in->a);
                LLVMValueRef none = llvm.BuildICmp(g->B, LLVMIntEQ, cm, c64(g, 0), "");
                all = llvm.BuildICmp(g->B, LLVMIntEQ, cm, full_mask(g), "");
                ok = llvm.BuildOr(g->B, none, all, "");
            }
            uni = or_general(g, g->con[g->depth - 1].open, ok);
        } else {
            cm = if_mask(g, pc);
        }
        c = push(g, CVM_VM_F_IF, pc);
        c->was_full = g->full, c->uni = uni;
        snapshot(g, g->depth - 1);
        c->m[0] = new_mask(g, "pending", llvm.BuildAnd(g->B, act, llvm.BuildNot(g->B, cm, ""), ""));
        c->next = block(g, "marker");
        set_active(g, cm);
        LLVMBasicBlockRef then = block(g, "then");
        llvm.BuildCondBr(g->B, llvm.BuildICmp(g->B, LLVMIntNE, cm, c64(g, 0), ""), then, c->next);
        llvm.PositionBuilderAtEnd(g->B, then);
        regain(g, c->uni);
        break;
    }
    case CVM_OP_ELSE: {
        c = &g->con[g->depth - 1];
        llvm.BuildBr(g->B, c->next);
        llvm.PositionBuilderAtEnd(g->B, c->next);
        rejoin(g, g->depth - 1);
        /* the then part's lanes wait in m0; the else part runs the pending ones */
        LLVMValueRef done = get_active(g), pend = llvm.BuildLoad2(g->B, g->i64, c->m[0], "");
        llvm.BuildStore(g->B, done, c->m[0]);
        set_active(g, pend);
        c->next = block(g, "end");
        continue_if_active(g);
        regain(g, c->uni);
        break;
    }
    case CVM_OP_LOOP: {
        /* a resume point enters the general copy's head; a versioned
         * copy's head is entered from before the loop and its back edge */
        if (g->fastcopy)
            unwritten(g, pc);
        else
            forget(g);
        c = push(g, CVM_VM_F_LOOP, pc);
        c->m[0] = new_mask(g, "brk", c64(g, 0));
        c->m[1] = new_mask(g, "cont", c64(g, 0));
        c->head = block(g, "head");
        c->next = block(g, "marker");
        if (g->fastcopy) {
            guard(g, pc, false);
            cvm_nat_lazy(g, pc);
        }
        llvm.BuildBr(g->B, c->head);
        llvm.PositionBuilderAtEnd(g->B, c->head);
        add_resume(g, pc + 1, c->head);
        if ((g->rows || g->pairs) && !g->fastcopy && has_barrier(g, pc))
            remake(g, pc + 1);
        if (g->fastcopy) {
            /* (from the second round on, the back edge brings its lazy registers' allocas behind) */
            for (uint32_t s = 0; s < g->nslots; s++)
                if (g->lazy[s] == pc + 1)
                    g->stale[s] = (uint8_t)g->depth;
            guard(g, pc, true);
            /* a full-mask copy's rounds begin with every lane; the
             * back edge's mask folds to all lanes where no lane left
             * without the others */
            if (g->fullcopy && or_general(g, pc, all_lanes(g, get_active(g))))
                set_full(g), c->was_full = true;
        }
        /* (after the test: what it proved holds at the markers too, for
         * what the loop writes is forwarded no more once written) */
        snapshot(g, g->depth - 1);
        break;
    }
    case CVM_OP_CONTINUING: {
        c = &g->con[g->depth - 1];
        llvm.BuildBr(g->B, c->next);
        llvm.PositionBuilderAtEnd(g->B, c->next);
        rejoin(g, g->depth - 1);
        LLVMValueRef cont = llvm.BuildLoad2(g->B, g->i64, c->m[1], "");
        set_active(g, llvm.BuildOr(g->B, get_active(g), cont, ""));
        llvm.BuildStore(g->B, c64(g, 0), c->m[1]);
        c->next = block(g, "end");
        continue_if_active(g);
        regain(g, c->was_full && !c->lost && !c->brk_partial);
        break;
    }
    case CVM_OP_BREAK_IF: {
        c = &g->con[in->aux];
        LLVMValueRef cm = cond_mask(g, in->a);
        const bool uni = all_or_none(g, in->a);
        if (!uni)
            lanes_left(g, (int)in->aux, true);
        llvm.BuildStore(g->B, llvm.BuildOr(g->B, llvm.BuildLoad2(g->B, g->i64, c->m[0], ""), cm, ""), c->m[0]);
        set_active(g, llvm.BuildAnd(g->B, get_active(g), llvm.BuildNot(g->B, cm, ""), ""));
        continue_if_active(g);
        regain(g, uni);
        break;
    }
    case CVM_OP_BREAK: case CVM_OP_CONTINUE: case CVM_OP_EXIT: {
        c = &g->con[in->aux];
        if (!g->full)
            lanes_left(g, (int)in->aux, in->h == CVM_OP_BREAK);
        LLVMValueRef m = c->m[in->h == CVM_OP_CONTINUE ? 1 : 0];
        llvm.BuildStore(g->B, llvm.BuildOr(g->B, llvm.BuildLoad2(g->B, g->i64, m, ""), get_active(g), ""), m);
        set_active(g, c64(g, 0));
        llvm.BuildBr(g->B, next_marker(g));
        dead_block(g);
        break;
    }
    case CVM_OP_RETURN:
        if (!g->full)
            lanes_left(g, -1, false);
        llvm.BuildStore(g->B, llvm.BuildOr(g->B, llvm.BuildLoad2(g->B, g->i64, g->exited, ""), get_active(g), ""),
                       g->exited);
        set_active(g, c64(g, 0));
        llvm.BuildBr(g->B, next_marker(g));
        dead_block(g);
        break;
    case CVM_OP_BLOCK:
        c = push(g, CVM_VM_F_BLOCK, pc);
        c->was_full = g->full;
        snapshot(g, g->depth - 1);
        c->m[0] = new_mask(g, "exitm", c64(g, 0));
        c->next = block(g, "end");
        break;
    case CVM_OP_END: {
        c = &g->con[g->depth - 1];
        llvm.BuildBr(g->B, c->next);
        llvm.PositionBuilderAtEnd(g->B, c->next);
        rejoin(g, g->depth - 1);
        LLVMValueRef a = get_active(g);
        if (c->kind == CVM_VM_F_LOOP) {
            LLVMValueRef cont = llvm.BuildLoad2(g->B, g->i64, c->m[1], "");
            a = llvm.BuildOr(g->B, a, cont, "");
            llvm.BuildStore(g->B, c64(g, 0), c->m[1]);
            set_active(g, a);
            LLVMBasicBlockRef back = block(g, "back"), out = block(g, "out");
            llvm.BuildCondBr(g->B, llvm.BuildICmp(g->B, LLVMIntNE, a, c64(g, 0), ""), back, out);
            /* the back-edge: a quantum spent yields to the other planes */
            llvm.PositionBuilderAtEnd(g->B, back);
            LLVMValueRef q = llvm.BuildSub(g->B, llvm.BuildLoad2(g->B, g->i32, g->quantum, ""), c32(g, 1), "");
            llvm.BuildStore(g->B, q, g->quantum);
            LLVMBasicBlockRef spent = block(g, "spent");
            llvm.BuildCondBr(g->B, llvm.BuildICmp(g->B, LLVMIntEQ, q, c32(g, 0), ""), spent, c->head);
            llvm.PositionBuilderAtEnd(g->B, spent);
            llvm.BuildStore(g->B, c32(g, CVM_VM_QUANTUM), g->quantum);
            store(g, c32(g, c->open + 1), g->p, offsetof(cvm_vm_plane, pc));
            sync_record(g);
            LLVMValueRef args[2] = {g->x, g->p};
            LLVMValueRef r = llvm.BuildCall2(g->B, g->ty_backedge, g->fn_backedge, args, 2, "");
            LLVMBasicBlockRef go = block(g, "go"), stop = block(g, "stop"), yield = block(g, "yield"),
                              fault = block(g, "fault");
            llvm.BuildCondBr(g->B, llvm.BuildICmp(g->B, LLVMIntEQ, r, llvm.ConstInt(g->i32, (uint64_t)-1, true), ""), go, stop);
            llvm.PositionBuilderAtEnd(g->B, go);
            llvm.BuildBr(g->B, c->head);
            llvm.PositionBuilderAtEnd(g->B, stop);
            llvm.BuildCondBr(g->B, llvm.BuildICmp(g->B, LLVMIntEQ, r, c32(g, CVM_VM_R_YIELD), ""), yield, fault);
            llvm.PositionBuilderAtEnd(g->B, yield);
            suspend(g, c->open + 1, r);
            llvm.PositionBuilderAtEnd(g->B, fault);
            llvm.BuildRet(g->B, r);
            llvm.PositionBuilderAtEnd(g->B, out);
            for (uint32_t s = 0; s < g->nslots; s++)
                if (g->lazy[s] == c->open + 1 && g->stale[s]) /* dead from here on */
                    g->stale[s] = 0, g->fwd[s] = (fval){0};
            a = llvm.BuildLoad2(g->B, g->i64, c->m[0], "");
        } else {
            a = llvm.BuildOr(g->B, a, llvm.BuildLoad2(g->B, g->i64, c->m[0], ""), "");
        }
        set_active(g, a);
        g->depth--;
        continue_if_active(g);
        regain(g, c->was_full && !c->lost);
        break;
    }
    default:
        fail(g, "pc %u: %s is not compiled by the native tier", pc, cvm_bc_op_info(in->h)->mnemonic);
        break;
    }
}

static void emit_range(gen *g, uint32_t lo, uint32_t hi);

/* A loop compiled twice or three times (docs/design.md "Tiers"): where, at its
 * entry, the registers it reads (native_loop.c) have the forms
 * it guesses in every active lane, the second copy runs, where
 * they are forwarded as forms (fval: one scalar, or a scalar plus <0, 1,
 * ..>): lane ops on them are scalar ops (form_op; pooling's and
 * convolution's coordinates, split from a linear index) and the quick
 * path's test of consecutive lanes is gone. The copy tests the forms
 * of the registers a loop writes again at each of its heads (a loop
 * counter changes each round) and where one fails goes on in the general
 * copy, except those the loop provably keeps (native_loop.c's induct: a grid-stride
 * index, a counter), whose scalar it carries instead. Lanes only leave a
 * loop's body, so a form true at the head holds in every active lane of
 * the round, and inactive lanes are never read through it (spills and
 * merges use reg_raw). A plane that stops inside the versioned copy
 * resumes in the general one, which holds the same state. A loop with
 * guesses made from unit_pos.y or .z (gen's weak) gets a third copy,
 * tried where those fail, that guesses only the others: in a cube of
 * another shape than rows a plane may hold two rows, and a loop's
 * counter is then one value while `threadIdx.y`'s offsets stay vectors
 * (code for cubes of pairs of rows, gen's pairs, guesses no form for x
 * and y: their lanes are known). Returns false (nothing emitted)
 * for a loop with nothing to version. */
static bool version_loop(gen *g, uint32_t lo)
{
    vcand cand[MAXVERSIONED], strong[MAXVERSIONED];
    LLVMValueRef val[2][MAXVERSIONED];
    const uint32_t hi = g->code[lo].end;
    /* a loop that only loops enclose is entered, in the common case,
     * with every lane of the plane: its copies are full-mask ones */
    bool full = cvm_nat_loop_versionable(g, lo);
    for (unsigned d = 0; d < g->depth; d++)
        full = full && g->con[d].kind == CVM_VM_F_LOOP;
    const unsigned nc = cvm_nat_loop_candidates(g, lo, cand);
    /* (not a loop whose index is consecutive and steps, unless its exit
     * test comes first and can be taken by all lanes or none (control's
     * `if`): else a grid-stride loop's exit is a vector compare after
     * which its body's mask is not known anyway, and the copy's head test
     * only cost softmax's loops about 40 instructions a round) */
    bool steps = false;
    for (unsigned i = 0; i < nc; i++)
        steps = steps || (cand[i].written && cand[i].form == F_CONS);
    const uint32_t exit_if = full && steps && cvm_nat_loop_fixed_buffers(g, lo) ? cvm_nat_loop_exit(g, lo) : UINT32_MAX;
    full = full && (!steps || exit_if != UINT32_MAX);
    if (!nc && !full)
        return false;
    bool weak = false; /* (g->weak is the guess at lo until the next call) */
    for (unsigned i = 0; i < nc; i++)
        weak = weak || g->weak[cand[i].slot];
    unsigned ns = 0;
    if (weak) {
        g->strong_only = true;
        ns = cvm_nat_loop_candidates(g, lo, strong);
        g->strong_only = false;
    }
    /* the copies, each tried in turn where the one before does not hold:
     * every guess; the strong ones (a full-mask copy: none, too) */
    struct vcopy {
        const vcand *c;
        unsigned n;
        bool strong;
    } copy[2];
    unsigned ncopy = 0;
    if (nc)
        copy[ncopy++] = (struct vcopy){cand, nc, false};
    if ((weak && (ns || full)) || !nc)
        copy[ncopy++] = (struct vcopy){strong, ns, weak};
    LLVMValueRef whole = full ? all_lanes(g, get_active(g)) : NULL;
    LLVMBasicBlockRef general = block(g, "general"), joined = block(g, "joined"), at[2];
    for (unsigned k = 0; k < ncopy; k++) {
        LLVMValueRef ok = form_test(g, copy[k].c, copy[k].n, val[k]);
        LLVMBasicBlockRef other = k + 1 < ncopy ? block(g, "next") : general;
        at[k] = block(g, "versioned");
        llvm.BuildCondBr(g->B, whole ? llvm.BuildAnd(g->B, ok, whole, "") : ok, at[k], other);
        llvm.PositionBuilderAtEnd(g->B, other);
    }
    g->versioning = true;
    emit_range(g, lo, hi + 1);
    llvm.BuildBr(g->B, joined);
    for (unsigned k = 0; k < ncopy; k++) {
        llvm.PositionBuilderAtEnd(g->B, at[k]);
        g->fastcopy = true;
        g->strong_only = copy[k].strong;
        g->fullcopy = full;
        g->exit_if = exit_if;
        if (full)
            set_full(g);
        /* what the test found of the registers the loop does not write,
         * forwarded as the loop's guard would (same pc, same lanes),
         * which then tests none of them again; its own test read the
         * lanes where the forms were known at run time (fval's du, dc).
         * (Those it writes are forgotten at the loop (unwritten) and
         * tested by the guard, an inductive one's scalar carried.) */
        for (unsigned i = 0; i < copy[k].n; i++) {
            const vcand *v = &copy[k].c[i];
            LLVMValueRef known;
            if (!v->written && form_at(g, v->slot, &known) == F_VAR)
                forward(g, v->slot, v->form, val[k][i], NULL);
        }
        emit_range(g, lo, hi + 1);
        g->fullcopy = g->full = false;
        g->exit_if = UINT32_MAX;
        llvm.BuildBr(g->B, joined);
        memset(g->lazy, 0, sizeof *g->lazy * g->nslots);
        memset(g->stale, 0, g->nslots);
        forget(g);
    }
    g->fastcopy = g->versioning = g->strong_only = false;
    llvm.PositionBuilderAtEnd(g->B, joined);
    forget(g);
    return true;
}

/* ---- the function ---- */

/* Code for instructions [lo, hi). */
static void emit_range(gen *g, uint32_t lo, uint32_t hi)
{
    for (uint32_t pc = lo; pc < hi && !g->failed; pc++) {
        const cvm_vm_dinsn *in = &g->code[pc];
        const cvm_bc_opinfo *oi = cvm_bc_op_info(in->h);
        if (!oi) {
            fail(g, "pc %u: unknown op%s", pc, "");
            break;
        }
        if (in->h == CVM_OP_LOOP && !g->versioning && version_loop(g, pc)) {
            pc = in->end;
            continue;
        }
        if (oi->flags & CVM_OPF_CTRL) {
            control(g, pc);
            continue;
        }
        if ((in->h == CVM_OP_LD || in->h == CVM_OP_ST) && in->line == 1 && in->elem != CVM_T_BOOL &&
            (in->ea == CVM_T_PTR_GLOBAL || in->ea == CVM_T_PTR_SHARED))
            cvm_nat_memory(g, pc);
        else if (cvm_nat_deferred_add(g, pc))
            g->fwd[in->d] = (fval){0}; /* made by the access that reads it */
        else if (cvm_nat_divide(g, pc) || cvm_nat_lane_op(g, in))
            ;
        else if (in->h == CVM_OP_SYNC_CUBE)
            sync_cube(g, pc);
        else
            cvm_nat_fallback(g, pc);
        write_through(g, pc);
        note_inductive(g, in);
    }
}

void cvm_nat_emit(gen *g)
{
    const cvm_vm_kprog *kp = g->kp;
    LLVMBasicBlockRef entry = g->entry = block(g, "entry");
    llvm.PositionBuilderAtEnd(g->B, entry);
    g->active = llvm.BuildAlloca(g->B, g->i64, "active");
    g->exited = llvm.BuildAlloca(g->B, g->i64, "exited");
    g->quantum = llvm.BuildAlloca(g->B, g->i32, "quantum");
    for (uint32_t s = 0; s < g->nslots; s++)
        g->slot[s] = llvm.BuildAlloca(g->B, slot_type(g, s), "r");
    LLVMValueRef p0 = g->p;
    g->dispatch = block(g, "dispatch");
    llvm.PositionBuilderAtEnd(g->B, g->dispatch);
    g->p = g->p_phi = llvm.BuildPhi(g->B, g->i8p, "p");
    llvm.AddIncoming(g->p_phi, &p0, &entry, 1);
    g->start = block(g, "start");
    g->done = block(g, "done");

    llvm.PositionBuilderAtEnd(g->B, g->start);
    /* registers start as the cube's start left them: zero (decode.c proved
     * every other register written before it is read) */
    for (uint32_t s = 0; s < g->nslots; s++)
        llvm.BuildStore(g->B, llvm.ConstNull(slot_type(g, s)), g->slot[s]);
    set_active(g, load(g, g->p, offsetof(cvm_vm_plane, active), g->i64));
    llvm.BuildStore(g->B, load(g, g->p, offsetof(cvm_vm_plane, exited), g->i64), g->exited);
    llvm.BuildStore(g->B, load(g, g->p, offsetof(cvm_vm_plane, quantum), g->i32), g->quantum);

    emit_range(g, 0, kp->ninsns);
    if (g->failed)
        return;
    llvm.BuildBr(g->B, g->done);

    /* every lane has finished: FINISH's effect */
    llvm.PositionBuilderAtEnd(g->B, g->done);
    llvm.BuildStore(g->B, llvm.BuildOr(g->B, llvm.BuildLoad2(g->B, g->i64, g->exited, ""), get_active(g), ""),
                   g->exited);
    set_active(g, c64(g, 0));
    sync_record(g);
    store(g, c32(g, 0), g->p, offsetof(cvm_vm_plane, sp));
    store(g, c32(g, CVM_VM_DONE), g->p, offsetof(cvm_vm_plane, state));
    store(g, c32(g, kp->ninsns), g->p, offsetof(cvm_vm_plane, pc));
    chain(g, true);

    /* a chained plane's code starts from nothing: every alloca (slots,
     * masks, scalars) undefined on that edge, as at the entry, so that
     * LLVM carries no value of the plane before across it */
    for (unsigned i = 0; i < g->nchains; i++) {
        llvm.PositionBuilderBefore(g->B, llvm.GetFirstInstruction(g->chains[i]));
        for (LLVMValueRef a = llvm.GetFirstInstruction(entry); a; a = llvm.GetNextInstruction(a))
            if (llvm.IsAAllocaInst(a))
                llvm.BuildStore(g->B, llvm.GetUndef(llvm.GetAllocatedType(a)), a);
    }
    /* the entry, then the dispatch: start at pc 0, or resume where the plane stopped */
    llvm.PositionBuilderAtEnd(g->B, entry);
    llvm.BuildBr(g->B, g->dispatch);
    llvm.PositionBuilderAtEnd(g->B, g->dispatch);
    LLVMValueRef pc = load(g, g->p, offsetof(cvm_vm_plane, pc), g->i32);
    LLVMValueRef sw = llvm.BuildSwitch(g->B, pc, g->start, g->nres);
    for (unsigned i = 0; i < g->nres; i++)
        llvm.AddCase(sw, c32(g, g->res[i].pc), g->res[i].bb);
}
