/*
 * native.c - the native tier's compiler (vm/jit.h): a verified kernel's
 * pre-decoded instructions (interp.h, the exact code with one slot per
 * register) to one LLVM function per kernel that runs one plane, compiled
 * by ORC's LLJIT for the host CPU.
 *
 * The function keeps every register slot as a vector of W lanes in an
 * alloca (SSA values once LLVM promotes them) and the control masks of
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
 * gather or scatter. Loops are versioned on the forms of the registers
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
 * function's entry switches on p->pc and restores them.
 *
 * Float results keep docs/numerics.md: NaN results are made canonical,
 * min/max order -0 below +0 and pass the other operand of a NaN; nothing
 * is contracted (no fast-math flags), and no instruction traps (integer
 * division is the interpreter's).
 */
#include "backend.h"

#include "llvm.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool cvm_jit_backend_built(void)
{
    return true;
}

/* ---- code generation ---- */

static unsigned kernel_serial;

enum { MAXDEPTH = CVM_BC_MAX_DEPTH };
enum { F_VAR = 0, F_UNI = 1, F_CONS = 2 }; /* fval kinds, loop versioning's guesses */

/* Register bytes of a plane that native code may hold in its frame (a
 * thread runs it only with room for twice as much: jit_rt.c). */
#define CVM_JIT_MAX_FRAME (1u << 20)

typedef struct construct {
    int kind;                 /* CVM_VM_F_* */
    uint32_t open;            /* pc of its opening instruction */
    LLVMBasicBlockRef next;   /* where an empty mask goes: the next marker */
    LLVMBasicBlockRef head;   /* loop: the body's first block */
    LLVMValueRef m[2];        /* i64 allocas: if m0 (pending lanes); loop m0 brk, m1 cont; block m0 */
} construct;

/* What a register holds in every active lane where it is forwarded
 * (gen's fwd): v its vector; kind F_UNI, s its one value; F_CONS, s lane
 * 0's value and lane l's s + l; F_VAR only v. */
typedef struct fval {
    LLVMValueRef v, s;
    uint8_t kind;
} fval;

typedef struct resume {
    uint32_t pc;
    LLVMBasicBlockRef bb;     /* restores the state, then goes on at `to` */
} resume;

typedef struct gen {
    const cvm_vm_program *prog;
    const cvm_vm_kprog *kp;
    const cvm_vm_dinsn *code;
    unsigned W;
    char *why;
    size_t nwhy;
    bool failed;
    bool again;               /* failed for want of memory: worth another try later */
    LLVMContextRef C;
    LLVMModuleRef M;
    LLVMBuilderRef B;
    LLVMValueRef fn, x, p;
    LLVMTypeRef i1, i8, i16, i32, i64, f32, f64, i8p, vmask, iW;
    LLVMValueRef active, exited, quantum;
    uint32_t nslots;
    uint8_t *slot_elem;       /* per slot: element type of its register */
    uint8_t *slot_width;      /* per first slot: the register's line (0: not a first slot) */
    LLVMValueRef *slot;       /* per slot: alloca of <W x T> */
    /* Per slot (facts of its register, analyse()): `local` registers are
     * written, then read, only within one straight run of code between
     * control instructions and barriers, where the active mask does not
     * change, so their inactive lanes are never read: they are written
     * whole (no select) and are dead wherever the plane stops. */
    uint8_t *local;
    /* Per slot: the pc + 1 of the `const` or `param` that is its
     * register's only writer, when the register is written before it is
     * read in every lane (not among decode's zeroed slots) and no plane op
     * reads it; 0 if not. Such a register holds that launch constant in
     * every lane wherever it is read, so a resume makes it again instead
     * of reloading it (LLVM then folds a constant: a scale of 4 becomes a
     * shift), a suspend does not store it, and an address takes it as a
     * scalar. */
    uint32_t *cst;
    LLVMValueRef *cval;       /* per slot with cst: its scalar, loaded once in the entry block */
    LLVMValueRef *cbuf;       /* per slot with cst and ld/st: its buffer (region), ditto: 4 values */
    uint32_t *first_read, *last_read; /* pcs (UINT32_MAX / 0: never read) */
    uint32_t *outer_lo, *outer_hi;    /* per pc: its outermost loop (lo > hi: none) */
    construct con[MAXDEPTH];
    unsigned depth;
    resume *res;
    unsigned nres, capres;
    LLVMBasicBlockRef entry, done, start;
    LLVMValueRef fn_step, fn_backedge;
    LLVMTypeRef ty_step, ty_backedge;
    /* Loop versioning (version_loop): per slot, a guess of its lanes'
     * form (F_*) at the loop being versioned. */
    uint8_t *form;
    /* Per slot: what a lane op last wrote to it or a versioned loop's
     * head proved it holds, which its reads take (not the merge with its
     * inactive lanes) while no lane can have joined the active ones since
     * (rejoin, forget); cleared when anything else writes the slot. */
    fval *fwd;
    fval *snap[MAXDEPTH]; /* per open construct: fwd at its start (rejoin) */
    bool versioning;          /* emitting a versioned loop (either copy): no nested versioning */
    bool fastcopy;            /* emitting its versioned copy: resumes go to the general copy */
} gen;

static void fail(gen *g, const char *fmt, uint32_t pc, const char *what)
{
    if (g->failed)
        return;
    g->failed = true;
    snprintf(g->why, g->nwhy, fmt, pc, what);
}

/* Scalar LLVM type of an element type (bools are bytes 0/1, 16-bit floats their bits). */
static LLVMTypeRef scalar(const gen *g, unsigned elem)
{
    switch (elem) {
    case CVM_T_F32: return g->f32;
    case CVM_T_F64: return g->f64;
    default: break;
    }
    switch (cvm_vm_esz(elem)) {
    case 1: return g->i8;
    case 2: return g->i16;
    case 4: return g->i32;
    default: return g->i64;
    }
}

static LLVMTypeRef vec(const gen *g, unsigned elem)
{
    return llvm.VectorType(scalar(g, elem), g->W);
}

static LLVMValueRef c32(const gen *g, uint64_t v) { return llvm.ConstInt(g->i32, v, false); }
static LLVMValueRef c64(const gen *g, uint64_t v) { return llvm.ConstInt(g->i64, v, false); }

static LLVMValueRef splat(const gen *g, LLVMValueRef s)
{
    LLVMTypeRef vt = llvm.VectorType(llvm.TypeOf(s), g->W);
    LLVMValueRef v = llvm.BuildInsertElement(g->B, llvm.GetUndef(vt), s, c32(g, 0), "");
    return llvm.BuildShuffleVector(g->B, v, llvm.GetUndef(vt),
                                  llvm.ConstNull(llvm.VectorType(g->i32, g->W)), "");
}

/* The vector <0, 1, ..., W-1> of type t (an integer type). */
static LLVMValueRef iota(const gen *g, LLVMTypeRef t)
{
    LLVMValueRef e[CVM_BC_MAX_PLANE];
    for (unsigned l = 0; l < g->W; l++)
        e[l] = llvm.ConstInt(t, l, false);
    return llvm.ConstVector(e, g->W);
}

/* Pointer to byte `off` of the record at base (i8*), as a pointer to t. */
static LLVMValueRef field(const gen *g, LLVMValueRef base, size_t off, LLVMTypeRef t)
{
    LLVMValueRef idx = c64(g, off);
    LLVMValueRef at = llvm.BuildGEP2(g->B, g->i8, base, &idx, 1, "");
    return llvm.BuildBitCast(g->B, at, llvm.PointerType(t, 0), "");
}

static LLVMValueRef load(const gen *g, LLVMValueRef base, size_t off, LLVMTypeRef t)
{
    return llvm.BuildLoad2(g->B, t, field(g, base, off, t), "");
}

/* A load of what no instruction of the kernel changes while the function
 * runs (the launch's parameters and shape, the cube's position, the
 * plane's record pointers, the buffer table): marked so, LLVM may hoist
 * it out of loops past the kernel's own stores. These fields do change
 * between calls (the next cube, the next launch); the mark holds because
 * the function is only ever called through a pointer, one call per plane
 * step, so no caller's loads are merged with the callee's. */
static LLVMValueRef fixed(const gen *g, LLVMValueRef ld)
{
    llvm.SetMetadata(ld, llvm.GetMDKindIDInContext(g->C, "invariant.load", 14), llvm.MDNodeInContext(g->C, NULL, 0));
    return ld;
}

static LLVMValueRef load_fixed(const gen *g, LLVMValueRef base, size_t off, LLVMTypeRef t)
{
    return fixed(g, load(g, base, off, t));
}

static void store(const gen *g, LLVMValueRef v, LLVMValueRef base, size_t off)
{
    llvm.BuildStore(g->B, v, field(g, base, off, llvm.TypeOf(v)));
}

static LLVMValueRef get_active(const gen *g)
{
    return llvm.BuildLoad2(g->B, g->i64, g->active, "act");
}

static void set_active(const gen *g, LLVMValueRef v)
{
    llvm.BuildStore(g->B, v, g->active);
}

/* The active mask as W lanes of i1. */
static LLVMValueRef lane_mask(const gen *g, LLVMValueRef act)
{
    return llvm.BuildBitCast(g->B, llvm.BuildTrunc(g->B, act, g->iW, ""), g->vmask, "");
}

/* Whether mask act holds every one of the W lanes. */
static LLVMValueRef all_lanes(const gen *g, LLVMValueRef act)
{
    return llvm.BuildICmp(g->B, LLVMIntEQ, act, c64(g, g->W >= 64 ? UINT64_MAX : (UINT64_C(1) << g->W) - 1), "");
}

/* Bits of the lanes where i1 vector v holds, as a 64-bit mask. */
static LLVMValueRef mask_bits(const gen *g, LLVMValueRef v)
{
    return llvm.BuildZExt(g->B, llvm.BuildBitCast(g->B, v, g->iW, ""), g->i64, "");
}

static LLVMValueRef intrinsic(const gen *g, const char *name, LLVMTypeRef *types, unsigned nt,
                              LLVMValueRef *args, unsigned na)
{
    unsigned id = llvm.LookupIntrinsicID(name, strlen(name));
    LLVMValueRef f = llvm.GetIntrinsicDeclaration(g->M, id, types, nt);
    LLVMTypeRef ft = llvm.IntrinsicGetType(g->C, id, types, nt);
    return llvm.BuildCall2(g->B, ft, f, args, na, "");
}

static LLVMValueRef cst_scalar(const gen *g, uint32_t slot);

/* Slot's value; a launch constant's (cst) is its scalar in every lane, so
 * that LLVM sees the constant (or the one parameter) at every read, not a
 * phi of the stores around the plane's stops. */
static LLVMValueRef reg_raw(const gen *g, uint32_t slot)
{
    if (g->cst[slot])
        return splat(g, cst_scalar(g, slot));
    return llvm.BuildLoad2(g->B, vec(g, g->slot_elem[slot]), g->slot[slot], "");
}

/* Slot's value as a lane op reads it: the forwarded value where there
 * is one, which its inactive lanes need not hold: what writes all lanes
 * (spills, reg_set's merge) uses reg_raw. */
static LLVMValueRef reg_get(const gen *g, uint32_t slot)
{
    if (g->fwd[slot].v)
        return g->fwd[slot].v;
    return reg_raw(g, slot);
}

/* Slot's form where it is known (a launch constant, or forwarded): *s
 * its scalar (fval). */
static uint8_t form_at(const gen *g, uint32_t slot, LLVMValueRef *s)
{
    if (slot >= g->nslots)
        return F_VAR;
    if (g->cst[slot]) {
        *s = cst_scalar(g, slot);
        return F_UNI;
    }
    *s = g->fwd[slot].s;
    return g->fwd[slot].v ? g->fwd[slot].kind : F_VAR;
}

/* The lanes of form kind with scalar s (fval). */
static LLVMValueRef form_vector(const gen *g, uint8_t kind, LLVMValueRef s)
{
    return kind == F_UNI ? splat(g, s) : llvm.BuildAdd(g->B, splat(g, s), iota(g, llvm.TypeOf(s)), "");
}

/* Forwards v (kind F_VAR), or the lanes of form kind with scalar s (v NULL: made here), in slot. */
static void forward(const gen *g, uint32_t slot, uint8_t kind, LLVMValueRef s, LLVMValueRef v)
{
    g->fwd[slot] = (fval){v ? v : form_vector(g, kind, s), s, kind};
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

/* Writes v to the active lanes of slot. */
static void reg_set(const gen *g, uint32_t slot, LLVMValueRef v)
{
    g->fwd[slot] = (fval){0};
    if (g->local[slot]) {
        llvm.BuildStore(g->B, v, g->slot[slot]);
        return;
    }
    LLVMValueRef old = reg_raw(g, slot);
    LLVMValueRef m = lane_mask(g, get_active(g));
    llvm.BuildStore(g->B, llvm.BuildSelect(g->B, m, v, old, ""), g->slot[slot]);
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

/* Whether slot i may be read after the plane stops and resumes at pc:
 * read at or after pc, or anywhere in the outermost loop around pc (its
 * next round reads it); local registers never are. */
static bool live_at(const gen *g, uint32_t i, uint32_t pc)
{
    if (g->local[i] || g->first_read[i] == UINT32_MAX)
        return false;
    if (g->last_read[i] >= pc)
        return true;
    const uint32_t lo = pc < g->kp->ninsns ? g->outer_lo[pc] : 1, hi = pc < g->kp->ninsns ? g->outer_hi[pc] : 0;
    return lo <= hi && g->last_read[i] >= lo && g->first_read[i] <= hi;
}

/* The value of a `const` or `param` instruction (one lane's). */
static LLVMValueRef launch_scalar(const gen *g, const cvm_vm_dinsn *in)
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
static LLVMValueRef cst_scalar(const gen *g, uint32_t slot)
{
    if (!g->cval[slot]) {
        LLVMBasicBlockRef cur = llvm.GetInsertBlock(g->B);
        llvm.PositionBuilderAtEnd(g->B, g->entry);
        g->cval[slot] = launch_scalar(g, &g->code[g->cst[slot] - 1]);
        llvm.PositionBuilderAtEnd(g->B, cur);
    }
    return g->cval[slot];
}

/* Spills slots [s, s + n) to the file, or reloads them from it; with
 * live_pc != UINT32_MAX only those live at that resume point. */
static void spill_live(const gen *g, uint32_t s, uint32_t n, bool out, uint32_t live_pc)
{
    LLVMValueRef regs = load_fixed(g, g->p, offsetof(cvm_vm_plane, regs), g->i8p);
    const unsigned rs = rshift_of(g->W);
    for (uint32_t i = s; i < s + n && i < g->nslots; i++) {
        if (live_pc != UINT32_MAX && !live_at(g, i, live_pc))
            continue;
        if (live_pc != UINT32_MAX && g->cst[i]) { /* made again, not stored */
            if (!out)
                llvm.BuildStore(g->B, splat(g, cst_scalar(g, i)), g->slot[i]);
            continue;
        }
        LLVMValueRef at = slot_ptr(g, regs, i, rs);
        if (out) {
            LLVMValueRef st = llvm.BuildStore(g->B, reg_raw(g, i), at);
            llvm.SetAlignment(st, 8);
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

/* The register starting at first slot s: its width in slots. */
static uint32_t width_at(const gen *g, uint32_t s)
{
    return s < g->nslots && g->slot_width[s] ? g->slot_width[s] : 1;
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
    llvm.BuildBr(g->B, to);
    llvm.PositionBuilderAtEnd(g->B, cur);
    g->res[g->nres++] = (resume){pc, bb};
}

static LLVMBasicBlockRef block(const gen *g, const char *name)
{
    return llvm.AppendBasicBlockInContext(g->C, g->fn, name);
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

/* Condition register (bools, bit 0) as a 64-bit lane mask, within the active lanes. */
static LLVMValueRef cond_mask(const gen *g, uint32_t slot)
{
    LLVMValueRef v = llvm.BuildTrunc(g->B, reg_get(g, slot), g->vmask, "");
    return llvm.BuildAnd(g->B, mask_bits(g, v), get_active(g), "");
}

static LLVMValueRef new_mask(gen *g, const char *name, LLVMValueRef init)
{
    LLVMBasicBlockRef cur = llvm.GetInsertBlock(g->B);
    LLVMBasicBlockRef entry = llvm.GetEntryBasicBlock(g->fn);
    LLVMValueRef first = llvm.GetFirstInstruction(entry);
    if (first)
        llvm.PositionBuilderBefore(g->B, first);
    else
        llvm.PositionBuilderAtEnd(g->B, entry);
    LLVMValueRef a = llvm.BuildAlloca(g->B, g->i64, name);
    llvm.PositionBuilderAtEnd(g->B, cur);
    llvm.BuildStore(g->B, init, a);
    return a;
}

/* ---- the fallback: one instruction through the interpreter ---- */

/* The register operands (first slots) instruction `in` names, in its
 * format's order: the destination first when it has one (*nw: 0 or 1). */
static void named(const gen *g, const cvm_vm_dinsn *in, uint32_t *list, unsigned *n, unsigned *nw)
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

/* Runs instruction pc through the interpreter; a barrier that waits
 * suspends the plane with its resume point at pc + 1. */
static void fallback(gen *g, uint32_t pc)
{
    const cvm_vm_dinsn *in = &g->code[pc];
    uint32_t list[CVM_BC_MAX_OPERANDS + 4];
    unsigned n, nw;
    named(g, in, list, &n, &nw);
    for (unsigned i = 0; i < n; i++)
        spill(g, list[i], width_at(g, list[i]), true);
    sync_record(g);
    LLVMValueRef args[3] = {g->x, g->p, c32(g, pc)};
    LLVMValueRef r = llvm.BuildCall2(g->B, g->ty_step, g->fn_step, args, 3, "");
    for (unsigned i = 0; i < n; i++)
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
        llvm.BuildRet(g->B, r);
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

/* sync_cube, the interpreter's handler inline when the plane's active
 * lanes are all its unfinished ones: the plane waits at pc, and
 * release_sync (vm/interp.c) makes it runnable at pc + 1, where the
 * resume point fallback() made goes on. Other masks run through the
 * interpreter, which waits the same way or, in checked mode, reports the
 * barrier divergence. A barrier costs a return to the cube's scheduler
 * either way; this saves the interpreter's call for one instruction. */
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
    llvm.BuildRet(g->B, c32(g, CVM_VM_R_WAIT));
    llvm.PositionBuilderAtEnd(g->B, other);
    fallback(g, pc);
}

/* ---- lane ops ---- */

static LLVMValueRef canon_nan(const gen *g, LLVMValueRef v, unsigned elem)
{
    LLVMValueRef nan = elem == CVM_T_F32
                           ? llvm.ConstBitCast(llvm.ConstInt(g->i32, 0x7fc00000u, false), g->f32)
                           : llvm.ConstBitCast(c64(g, UINT64_C(0x7ff8000000000000)), g->f64);
    LLVMValueRef isnan = llvm.BuildFCmp(g->B, LLVMRealUNO, v, v, "");
    return llvm.BuildSelect(g->B, isnan, splat(g, nan), v, "");
}

static bool is_float(unsigned e) { return e == CVM_T_F32 || e == CVM_T_F64; }
static bool is_int(unsigned e) { return cvm_bc_elem_is_int(e); }
static bool is_signed(unsigned e) { return cvm_bc_elem_is_signed(e); }

/* min or max by docs/numerics.md: NaN gives the other operand, -0 < +0.
 * a where it is strictly beyond b or b is NaN (a NaN a then gives b);
 * equal operands give their bits' AND (max) or OR (min), which is the
 * same value except for zeros of both signs, where it is +0 or -0; only
 * two NaNs give a NaN, made canonical. Nine vector ops per register. */
static LLVMValueRef fminmax(const gen *g, LLVMValueRef a, LLVMValueRef b, unsigned elem, bool max)
{
    LLVMTypeRef it = llvm.VectorType(elem == CVM_T_F32 ? g->i32 : g->i64, g->W);
    LLVMValueRef pick_a = llvm.BuildOr(g->B, llvm.BuildFCmp(g->B, max ? LLVMRealOGT : LLVMRealOLT, a, b, ""),
                                      llvm.BuildFCmp(g->B, LLVMRealUNO, b, b, ""), "");
    LLVMValueRef r = llvm.BuildSelect(g->B, pick_a, a, b, "");
    LLVMValueRef ai = llvm.BuildBitCast(g->B, a, it, ""), bi = llvm.BuildBitCast(g->B, b, it, "");
    LLVMValueRef both = llvm.BuildBitCast(g->B, max ? llvm.BuildAnd(g->B, ai, bi, "") : llvm.BuildOr(g->B, ai, bi, ""),
                                          llvm.TypeOf(a), "");
    r = llvm.BuildSelect(g->B, llvm.BuildFCmp(g->B, LLVMRealOEQ, a, b, ""), both, r, "");
    return canon_nan(g, r, elem);
}

/* Shift by docs/numerics.md: counts >= the width give 0 (or the sign fill). */
static LLVMValueRef shift(const gen *g, const cvm_vm_dinsn *in, LLVMValueRef a, LLVMValueRef b)
{
    const unsigned bits = cvm_vm_esz(in->elem) * 8, bbits = cvm_vm_esz(in->eb) * 8;
    LLVMTypeRef vt = vec(g, in->elem);
    LLVMTypeRef wt = llvm.VectorType(g->i64, g->W);
    LLVMValueRef cnt64 = bbits < 64 ? llvm.BuildZExt(g->B, b, wt, "") : b;
    LLVMValueRef big = llvm.BuildICmp(g->B, LLVMIntUGE, cnt64, splat(g, c64(g, bits)), "");
    LLVMValueRef safe64 = llvm.BuildSelect(g->B, big, llvm.ConstNull(wt), cnt64, "");
    LLVMValueRef cnt = bits < 64 ? llvm.BuildTrunc(g->B, safe64, vt, "") : safe64;
    if (in->h == CVM_OP_SHL)
        return llvm.BuildSelect(g->B, big, llvm.ConstNull(vt), llvm.BuildShl(g->B, a, cnt, ""), "");
    if (!is_signed(in->elem))
        return llvm.BuildSelect(g->B, big, llvm.ConstNull(vt), llvm.BuildLShr(g->B, a, cnt, ""), "");
    LLVMValueRef fill = llvm.BuildAShr(g->B, a, splat(g, llvm.ConstInt(scalar(g, in->elem), bits - 1, false)), "");
    return llvm.BuildSelect(g->B, big, fill, llvm.BuildAShr(g->B, a, cnt, ""), "");
}

static LLVMValueRef compare(const gen *g, const cvm_vm_dinsn *in, LLVMValueRef a, LLVMValueRef b)
{
    if (is_float(in->ea)) {
        LLVMRealPredicate pr;
        switch (in->h) {
        case CVM_OP_EQ: pr = LLVMRealOEQ; break;
        case CVM_OP_NE: pr = LLVMRealUNE; break;
        case CVM_OP_LT: pr = LLVMRealOLT; break;
        case CVM_OP_LE: pr = LLVMRealOLE; break;
        case CVM_OP_GT: pr = LLVMRealOGT; break;
        default: pr = LLVMRealOGE; break;
        }
        return llvm.BuildFCmp(g->B, pr, a, b, "");
    }
    const bool s = is_signed(in->ea);
    LLVMIntPredicate pr;
    switch (in->h) {
    case CVM_OP_EQ: pr = LLVMIntEQ; break;
    case CVM_OP_NE: pr = LLVMIntNE; break;
    case CVM_OP_LT: pr = s ? LLVMIntSLT : LLVMIntULT; break;
    case CVM_OP_LE: pr = s ? LLVMIntSLE : LLVMIntULE; break;
    case CVM_OP_GT: pr = s ? LLVMIntSGT : LLVMIntUGT; break;
    default: pr = s ? LLVMIntSGE : LLVMIntUGE; break;
    }
    return llvm.BuildICmp(g->B, pr, a, b, "");
}

/* cvt kinds that are one LLVM instruction with the interpreter's bits. */
static LLVMValueRef convert(const gen *g, const cvm_vm_dinsn *in, LLVMValueRef a)
{
    LLVMTypeRef dt = vec(g, in->elem);
    switch (in->k) {
    case CVM_VM_CVT_COPY1: case CVM_VM_CVT_COPY2: case CVM_VM_CVT_COPY4: case CVM_VM_CVT_COPY8:
    case CVM_VM_CVT_F32_F32: case CVM_VM_CVT_F64_F64:
        return llvm.BuildBitCast(g->B, a, dt, "");
    case CVM_VM_CVT_TRUNC16_8: case CVM_VM_CVT_TRUNC32_8: case CVM_VM_CVT_TRUNC32_16:
    case CVM_VM_CVT_TRUNC64_8: case CVM_VM_CVT_TRUNC64_16: case CVM_VM_CVT_TRUNC64:
        return llvm.BuildTrunc(g->B, a, dt, "");
    case CVM_VM_CVT_SEXT8_16: case CVM_VM_CVT_SEXT8_32: case CVM_VM_CVT_SEXT8_64:
    case CVM_VM_CVT_SEXT16_32: case CVM_VM_CVT_SEXT16_64: case CVM_VM_CVT_SEXT32:
        return llvm.BuildSExt(g->B, a, dt, "");
    case CVM_VM_CVT_ZEXT8_16: case CVM_VM_CVT_ZEXT8_32: case CVM_VM_CVT_ZEXT8_64:
    case CVM_VM_CVT_ZEXT16_32: case CVM_VM_CVT_ZEXT16_64: case CVM_VM_CVT_ZEXT32:
        return llvm.BuildZExt(g->B, a, dt, "");
    case CVM_VM_CVT_I8_F32: case CVM_VM_CVT_I16_F32: case CVM_VM_CVT_I32_F32:
    case CVM_VM_CVT_I8_F64: case CVM_VM_CVT_I16_F64: case CVM_VM_CVT_I32_F64:
        return llvm.BuildSIToFP(g->B, a, dt, "");
    case CVM_VM_CVT_U8_F32: case CVM_VM_CVT_U16_F32: case CVM_VM_CVT_U8_F64:
    case CVM_VM_CVT_U16_F64: case CVM_VM_CVT_U32_F64:
        return llvm.BuildUIToFP(g->B, a, dt, "");
    case CVM_VM_CVT_F32_F64:
        return llvm.BuildFPExt(g->B, a, dt, "");
    default:
        return NULL;
    }
}

/* Special registers read as 32-bit values per lane; NULL when not inline. */
static LLVMValueRef sreg(const gen *g, unsigned id)
{
    const size_t L_off = offsetof(cvm_vm_exec, L);
    switch (id) {
    case CVM_SREG_UNIT_POS_X: case CVM_SREG_UNIT_POS_Y: case CVM_SREG_UNIT_POS_Z: {
        LLVMValueRef v = llvm.BuildLoad2(
            g->B, llvm.VectorType(g->i32, g->W),
            field(g, g->p, offsetof(cvm_vm_plane, upos) + sizeof(uint32_t) * 64 * (id - CVM_SREG_UNIT_POS_X),
                  llvm.VectorType(g->i32, g->W)), "");
        llvm.SetAlignment(v, 4);
        return fixed(g, v);
    }
    case CVM_SREG_CUBE_POS_X: case CVM_SREG_CUBE_POS_Y: case CVM_SREG_CUBE_POS_Z:
        return splat(g, load_fixed(g, g->x, offsetof(cvm_vm_exec, cube) + 4 * (id - CVM_SREG_CUBE_POS_X), g->i32));
    case CVM_SREG_CUBE_DIM_X: case CVM_SREG_CUBE_DIM_Y: case CVM_SREG_CUBE_DIM_Z: {
        LLVMValueRef L = load_fixed(g, g->x, L_off, g->i8p);
        return splat(g, load_fixed(g, L, offsetof(cvm_vm_launch, block) + 4 * (id - CVM_SREG_CUBE_DIM_X), g->i32));
    }
    case CVM_SREG_CUBE_COUNT_X: case CVM_SREG_CUBE_COUNT_Y: case CVM_SREG_CUBE_COUNT_Z: {
        LLVMValueRef L = load_fixed(g, g->x, L_off, g->i8p);
        return splat(g, load_fixed(g, L, offsetof(cvm_vm_launch, grid) + 4 * (id - CVM_SREG_CUBE_COUNT_X), g->i32));
    }
    case CVM_SREG_PLANE_DIM: return splat(g, c32(g, g->W));
    case CVM_SREG_UNIT_POS_PLANE: return iota(g, g->i32);
    case CVM_SREG_PLANE_POS: return splat(g, load_fixed(g, g->p, offsetof(cvm_vm_plane, index), g->i32));
    case CVM_SREG_UNIT_POS: {
        LLVMValueRef base = llvm.BuildMul(g->B, load_fixed(g, g->p, offsetof(cvm_vm_plane, index), g->i32), c32(g, g->W), "");
        return llvm.BuildAdd(g->B, splat(g, base), iota(g, g->i32), "");
    }
    case CVM_SREG_CUBE_POS: return splat(g, load_fixed(g, g->x, offsetof(cvm_vm_exec, cube_linear), g->i32));
    default: return NULL;
    }
}

static bool is_barrier(unsigned h)
{
    const cvm_bc_opinfo *oi = cvm_bc_op_info(h);
    return oi && (oi->flags & CVM_OPF_BARRIER);
}

/* The pc of the last instruction before pc, in pc's straight run of code
 * (no control instruction or barrier between), that writes slot r;
 * UINT32_MAX if none does. */
static uint32_t run_writer(const gen *g, uint32_t pc, uint32_t r)
{
    while (pc-- > 0) {
        const cvm_vm_dinsn *in = &g->code[pc];
        const cvm_bc_opinfo *oi = cvm_bc_op_info(in->h);
        if (!oi || (oi->flags & CVM_OPF_CTRL) || is_barrier(in->h))
            return UINT32_MAX;
        uint32_t list[CVM_BC_MAX_OPERANDS + 4];
        unsigned n, nw;
        named(g, in, list, &n, &nw);
        if (nw && list[0] <= r && r < list[0] + width_at(g, list[0]))
            return pc;
    }
    return UINT32_MAX;
}

/* Whether slot r holds, at pc, the value instruction w (in pc's run,
 * w < pc) read from it: nothing from w on, w included, writes it (as
 * `ptr.add p, p, off` does). */
static bool kept(const gen *g, uint32_t w, uint32_t pc, uint32_t r)
{
    const uint32_t last = run_writer(g, pc, r);
    return last == UINT32_MAX || last < w;
}

/* The 64-bit constant register k holds wherever it is read, if it has one. */
static bool const_slot(const gen *g, uint32_t k, uint64_t *v)
{
    if (k >= g->nslots || !g->cst[k] || g->code[g->cst[k] - 1].h != CVM_OP_CONST ||
        cvm_vm_esz(g->slot_elem[k]) != 8)
        return false;
    *v = g->code[g->cst[k] - 1].imm;
    return true;
}

/* An address the quick path can test without its vector: global pointer
 * P + ext(I) * esz, computed in the access's own run of code (so for the
 * same active lanes) by ptr.add of a plane-uniform P (the verifier's
 * fact, CVM_VM_UNI_A) and an offset mul of a 64-bit cvt of the 32-bit I
 * by the constant esz, P and I unchanged since (or of a 64-bit I itself:
 * `wide`). Then the lanes are consecutive when I's are, which is one
 * compare shared by every access indexed by I in the run (32-bit where I
 * is), lane f's address is scalar arithmetic (the frontend's code for
 * a[i]), and the bounds are a range of I that depends on P only. */
typedef struct affine {
    uint32_t P, I;
    bool sext, wide; /* wide: I is the 64-bit offset in elements itself (no cvt) */
} affine;

static bool affine_address(const gen *g, uint32_t pc, affine *af)
{
    const cvm_vm_dinsn *in = &g->code[pc];
    const uint32_t pa = run_writer(g, pc, in->a);
    if (pa == UINT32_MAX)
        return false;
    const cvm_vm_dinsn *add = &g->code[pa];
    if (add->h != CVM_OP_PTR_ADD || add->elem != CVM_T_PTR_GLOBAL || add->line != 1 ||
        !(add->uni & CVM_VM_UNI_A) || (add->eb != CVM_T_I64 && add->eb != CVM_T_U64) ||
        !kept(g, pa, pc, add->a))
        return false;
    const uint32_t pm = run_writer(g, pa, add->b);
    if (pm == UINT32_MAX)
        return false;
    const cvm_vm_dinsn *mul = &g->code[pm];
    uint64_t k;
    uint32_t x;
    if (mul->h != CVM_OP_MUL || mul->line != 1 || cvm_vm_esz(mul->elem) != 8 || !is_int(mul->elem))
        return false;
    if (const_slot(g, mul->b, &k))
        x = mul->a;
    else if (const_slot(g, mul->a, &k))
        x = mul->b;
    else
        return false;
    if (k != in->esz)
        return false;
    af->P = add->a;
    const uint32_t pcv = run_writer(g, pm, x);
    const cvm_vm_dinsn *cvt = pcv == UINT32_MAX ? NULL : &g->code[pcv];
    if (cvt && cvt->h == CVM_OP_CVT && cvt->line == 1 &&
        (cvt->k == CVM_VM_CVT_SEXT32 || cvt->k == CVM_VM_CVT_ZEXT32) && kept(g, pcv, pc, cvt->a)) {
        af->I = cvt->a;
        af->sext = cvt->k == CVM_VM_CVT_SEXT32;
        af->wide = false;
        return true;
    }
    /* else the 64-bit offset itself (pooling's ((b * h + y) * w + x) * c + ch) */
    if (x >= g->nslots || width_at(g, x) != 1 || !kept(g, pm, pc, x))
        return false;
    af->I = x;
    af->sext = af->wide = true;
    return true;
}

/* The buffer table's entry for global pointer ptr's tag: out[0] the tag,
 * out[1] the entry's tag, out[2] its first address, out[3] its end for a
 * load (ld) or a store. */
static void buffer_of(const gen *g, LLVMValueRef ptr, bool ld, LLVMValueRef *out)
{
    LLVMValueRef t = llvm.BuildLShr(g->B, ptr, c64(g, CVM_VM_PTR_TAG_SHIFT), "");
    LLVMValueRef tab = load_fixed(g, g->x, offsetof(cvm_vm_exec, jtab), g->i8p);
    LLVMValueRef eoff = llvm.BuildMul(g->B, llvm.BuildURem(g->B, t, c64(g, CVM_JIT_TAB), ""),
                                     c64(g, sizeof(cvm_jit_region)), "");
    LLVMValueRef e = llvm.BuildGEP2(g->B, g->i8, tab, &eoff, 1, "");
    out[0] = t;
    out[1] = load_fixed(g, e, offsetof(cvm_jit_region, tag), g->i64);
    out[2] = load_fixed(g, e, offsetof(cvm_jit_region, lo), g->i64);
    out[3] = load_fixed(g, e, ld ? offsetof(cvm_jit_region, end) : offsetof(cvm_jit_region, wend), g->i64);
}

/* Index value x of an affine address (scalar or vector) as 64 bits. */
static LLVMValueRef index64(const gen *g, const affine *af, LLVMValueRef x, LLVMTypeRef t64)
{
    if (af->wide)
        return x;
    return af->sext ? llvm.BuildSExt(g->B, x, t64, "") : llvm.BuildZExt(g->B, x, t64, "");
}

/* The quick path's facts about P alone, from its table entry c
 * (buffer_of): out[0] whether P's tag names the entry and P's address is
 * an aligned element of the buffer; then the range [out[1], out[2]] of
 * x (signed, within 2^48 of 0 when out[0]) for which P + x * esz is an
 * element of it: loop-invariant where P is, so that in a loop each access
 * only compares its first and last lanes' x. */
static void quick_range(const gen *g, LLVMValueRef P, const LLVMValueRef *c, uint64_t esz, uint64_t align,
                        LLVMValueRef *out)
{
    const uint64_t low = (UINT64_C(1) << CVM_VM_PTR_TAG_SHIFT) - 1;
    LLVMValueRef t = c[0], etag = c[1], lo = c[2], end = c[3];
    LLVMValueRef pa = llvm.BuildAnd(g->B, P, c64(g, low), ""), lim = llvm.BuildSub(g->B, end, c64(g, esz), "");
    LLVMValueRef ok = llvm.BuildAnd(g->B, llvm.BuildICmp(g->B, LLVMIntNE, t, c64(g, 0), ""),
                                    llvm.BuildICmp(g->B, LLVMIntEQ, etag, t, ""), "");
    ok = llvm.BuildAnd(g->B, ok, llvm.BuildICmp(g->B, LLVMIntUGE, end, c64(g, esz), ""), "");
    ok = llvm.BuildAnd(g->B, ok, llvm.BuildICmp(g->B, LLVMIntUGE, pa, lo, ""), "");
    ok = llvm.BuildAnd(g->B, ok, llvm.BuildICmp(g->B, LLVMIntULE, pa, lim, ""), "");
    if (align > 1)
        ok = llvm.BuildAnd(g->B, ok, llvm.BuildICmp(g->B, LLVMIntEQ, llvm.BuildAnd(g->B, pa, c64(g, align - 1), ""),
                                                    c64(g, 0), ""), "");
    out[0] = ok;
    out[1] = llvm.BuildSub(g->B, c64(g, 0), llvm.BuildUDiv(g->B, llvm.BuildSub(g->B, pa, lo, ""), c64(g, esz), ""), "");
    out[2] = llvm.BuildUDiv(g->B, llvm.BuildSub(g->B, lim, pa, ""), c64(g, esz), "");
}

/* Two-run loads (a plane's halves, H = W / 2 lanes each): lanes 0 and H
 * of V, each across its half. */
static LLVMValueRef half_heads(const gen *g, LLVMValueRef V)
{
    LLVMValueRef pick[CVM_BC_MAX_PLANE], undef = llvm.GetUndef(llvm.TypeOf(V));
    for (unsigned l = 0; l < g->W; l++)
        pick[l] = c32(g, l < g->W / 2 ? 0 : 1);
    LLVMValueRef two = llvm.BuildInsertElement(g->B, undef, llvm.BuildExtractElement(g->B, V, c32(g, 0), ""),
                                               c32(g, 0), "");
    two = llvm.BuildInsertElement(g->B, two, llvm.BuildExtractElement(g->B, V, c32(g, g->W / 2), ""), c32(g, 1), "");
    return llvm.BuildShuffleVector(g->B, two, undef, llvm.ConstVector(pick, g->W), "");
}

/* (l mod H) * k in each lane l, as integers of type t. */
static LLVMValueRef half_steps(const gen *g, LLVMTypeRef t, uint64_t k)
{
    LLVMValueRef step[CVM_BC_MAX_PLANE];
    for (unsigned l = 0; l < g->W; l++)
        step[l] = llvm.ConstInt(t, (l % (g->W / 2)) * k, false);
    return llvm.ConstVector(step, g->W);
}

/* The W lanes of two vectors of H: v0's, then v1's. */
static LLVMValueRef join_halves(const gen *g, LLVMValueRef v0, LLVMValueRef v1)
{
    LLVMValueRef whole[CVM_BC_MAX_PLANE];
    for (unsigned l = 0; l < g->W; l++)
        whole[l] = c32(g, l);
    return llvm.BuildShuffleVector(g->B, v0, v1, llvm.ConstVector(whole, g->W), "");
}

/* A shared-memory load whose plane reads two runs, every lane active:
 * each half of the lanes at consecutive offsets, or at one offset (a
 * 16x16 cube's plane of 32 covers two rows of a tile: matmul's tb[k][tx]
 * and ta[ty][k]). Two vector or two scalar loads instead of a gather; to
 * `done`, or to `no` for the per-lane test. R: the lanes' 32-bit offsets;
 * size: the cube's shared bytes (at most 2^31, so the offsets and the
 * sums below cannot wrap in 64 bits). */
static void shared_halves(gen *g, const cvm_vm_dinsn *in, LLVMValueRef R, LLVMValueRef act,
                          LLVMValueRef shared_p, LLVMValueRef size, LLVMBasicBlockRef no, LLVMBasicBlockRef done)
{
    const unsigned W = g->W, H = W / 2, esz = in->esz;
    const uint64_t align = in->align_log2 ? UINT64_C(1) << in->align_log2 : (esz < 16 ? esz : 16);
    LLVMTypeRef st = scalar(g, in->elem), ht = llvm.VectorType(st, H);
    LLVMValueRef h0 = llvm.BuildExtractElement(g->B, R, c32(g, 0), "");
    LLVMValueRef h1 = llvm.BuildExtractElement(g->B, R, c32(g, H), "");
    LLVMValueRef base = half_heads(g, R);
    LLVMValueRef cons = llvm.BuildICmp(g->B, LLVMIntEQ, mask_bits(g, llvm.BuildICmp(g->B, LLVMIntNE, R,
                                       llvm.BuildAdd(g->B, base, half_steps(g, g->i32, esz), ""), "")), c64(g, 0), "");
    LLVMValueRef uni = llvm.BuildICmp(g->B, LLVMIntEQ, mask_bits(g, llvm.BuildICmp(g->B, LLVMIntNE, R, base, "")),
                                      c64(g, 0), "");
    LLVMValueRef full = all_lanes(g, act);
    /* each run inside the shared bytes, aligned */
    LLVMValueRef o0 = llvm.BuildZExt(g->B, h0, g->i64, ""), o1 = llvm.BuildZExt(g->B, h1, g->i64, "");
    LLVMValueRef top = llvm.BuildICmp(g->B, LLVMIntUGT, o0, o1, "");
    LLVMValueRef hi = llvm.BuildSelect(g->B, top, o0, o1, "");
    LLVMValueRef span = llvm.BuildSelect(g->B, cons, c64(g, (uint64_t)H * esz), c64(g, esz), "");
    LLVMValueRef ok = llvm.BuildICmp(g->B, LLVMIntULE, llvm.BuildAdd(g->B, hi, span, ""), size, "");
    ok = llvm.BuildAnd(g->B, ok, llvm.BuildOr(g->B, cons, uni, ""), "");
    ok = llvm.BuildAnd(g->B, ok, full, "");
    if (align > 1)
        ok = llvm.BuildAnd(g->B, ok, llvm.BuildICmp(g->B, LLVMIntEQ, llvm.BuildAnd(g->B, llvm.BuildOr(g->B, o0, o1, ""),
                                                                                c64(g, align - 1), ""), c64(g, 0), ""), "");
    LLVMBasicBlockRef bc = block(g, "runs"), bu = block(g, "runs1"), go = block(g, "halves");
    llvm.BuildCondBr(g->B, ok, go, no);
    llvm.PositionBuilderAtEnd(g->B, go);
    const uint32_t d = in->d;
    LLVMValueRef p0 = llvm.BuildGEP2(g->B, g->i8, shared_p, &o0, 1, ""), p1 = llvm.BuildGEP2(g->B, g->i8, shared_p, &o1, 1, "");
    llvm.BuildCondBr(g->B, cons, bc, bu);
    llvm.PositionBuilderAtEnd(g->B, bc);
    {
        LLVMTypeRef hp = llvm.PointerType(ht, 0);
        LLVMValueRef v0 = llvm.BuildLoad2(g->B, ht, llvm.BuildBitCast(g->B, p0, hp, ""), "");
        LLVMValueRef v1 = llvm.BuildLoad2(g->B, ht, llvm.BuildBitCast(g->B, p1, hp, ""), "");
        llvm.SetAlignment(v0, esz);
        llvm.SetAlignment(v1, esz);
        llvm.BuildStore(g->B, join_halves(g, v0, v1), g->slot[d]);
        llvm.BuildBr(g->B, done);
    }
    llvm.PositionBuilderAtEnd(g->B, bu);
    {
        LLVMTypeRef sp = llvm.PointerType(st, 0);
        LLVMValueRef s0 = llvm.BuildLoad2(g->B, st, llvm.BuildBitCast(g->B, p0, sp, ""), "");
        LLVMValueRef s1 = llvm.BuildLoad2(g->B, st, llvm.BuildBitCast(g->B, p1, sp, ""), "");
        llvm.SetAlignment(s0, esz);
        llvm.SetAlignment(s1, esz);
        LLVMValueRef v = llvm.BuildInsertElement(g->B, llvm.GetUndef(vec(g, in->elem)), s0, c32(g, 0), "");
        v = llvm.BuildInsertElement(g->B, v, s1, c32(g, H), "");
        llvm.BuildStore(g->B, half_heads(g, v), g->slot[d]);
        llvm.BuildBr(g->B, done);
    }
}

/* A quick-path load (P + I * esz) whose plane reads two runs of the
 * buffer, every lane active: each half's I consecutive (a 16x16 cube's
 * plane covers two rows of a tile: matmul's a[row * n + t + tx]). Each
 * run's first and last index in P's range qr (quick_range), and, for a
 * 32-bit I, no wrap inside a run (its last lane's index, widened, is the
 * first's plus H - 1); then two vector loads. To `done`, or to `no`. */
static void global_halves(gen *g, const cvm_vm_dinsn *in, const affine *af, LLVMValueRef P, const LLVMValueRef *qr,
                          LLVMValueRef act, LLVMBasicBlockRef no, LLVMBasicBlockRef done)
{
    const unsigned W = g->W, H = W / 2, esz = in->esz;
    const uint64_t low = (UINT64_C(1) << CVM_VM_PTR_TAG_SHIFT) - 1;
    LLVMTypeRef st = scalar(g, in->elem), ht = llvm.VectorType(st, H);
    LLVMValueRef I = reg_get(g, af->I);
    LLVMValueRef off = llvm.BuildICmp(g->B, LLVMIntNE, I,
                                      llvm.BuildAdd(g->B, half_heads(g, I), half_steps(g, af->wide ? g->i64 : g->i32, 1), ""), "");
    LLVMValueRef full = all_lanes(g, act);
    LLVMValueRef ok = llvm.BuildAnd(g->B, full, llvm.BuildICmp(g->B, LLVMIntEQ, mask_bits(g, off), c64(g, 0), ""), "");
    ok = llvm.BuildAnd(g->B, ok, qr[0], "");
    LLVMValueRef x[2];
    for (unsigned h = 0; h < 2; h++) {
        LLVMValueRef a = llvm.BuildExtractElement(g->B, I, c32(g, h * H), "");
        LLVMValueRef b = llvm.BuildExtractElement(g->B, I, c32(g, h * H + H - 1), "");
        a = index64(g, af, a, g->i64), b = index64(g, af, b, g->i64);
        /* b = a + H - 1 exactly, a >= lo's index, b <= the last's (no overflow: the range is within 2^48) */
        ok = llvm.BuildAnd(g->B, ok, llvm.BuildICmp(g->B, LLVMIntEQ, b, llvm.BuildAdd(g->B, a, c64(g, H - 1), ""), ""), "");
        ok = llvm.BuildAnd(g->B, ok, llvm.BuildICmp(g->B, LLVMIntSGE, a, qr[1], ""), "");
        ok = llvm.BuildAnd(g->B, ok, llvm.BuildICmp(g->B, LLVMIntSLE, a, llvm.BuildSub(g->B, qr[2], c64(g, H - 1), ""), ""), "");
        x[h] = a;
    }
    LLVMBasicBlockRef go = block(g, "runs2");
    llvm.BuildCondBr(g->B, ok, go, no);
    llvm.PositionBuilderAtEnd(g->B, go);
    LLVMValueRef pa = llvm.BuildAnd(g->B, P, c64(g, low), ""), v[2];
    for (unsigned h = 0; h < 2; h++) {
        LLVMValueRef at = llvm.BuildAdd(g->B, pa, llvm.BuildMul(g->B, x[h], c64(g, esz), ""), "");
        v[h] = llvm.BuildLoad2(g->B, ht, llvm.BuildIntToPtr(g->B, at, llvm.PointerType(ht, 0), ""), "");
        llvm.SetAlignment(v[h], esz);
    }
    llvm.BuildStore(g->B, join_halves(g, v[0], v[1]), g->slot[in->d]);
    llvm.BuildBr(g->B, done);
}

/* A plain ld or st of global or shared memory: the quick path when every
 * active lane's access lies in one buffer (or in shared memory), aligned;
 * the interpreter otherwise. Consecutive lanes (the common case) are
 * tested once, as a vector compare, and then only their first and last
 * active lanes are checked, as scalars, before one masked vector access;
 * other addresses are checked lane by lane and gathered or scattered. */
static void memory(gen *g, uint32_t pc)
{
    const cvm_vm_dinsn *in = &g->code[pc];
    const bool ld = in->h == CVM_OP_LD, global = in->ea == CVM_T_PTR_GLOBAL;
    const unsigned esz = in->esz;
    const uint64_t align = in->align_log2 ? UINT64_C(1) << in->align_log2 : (esz < 16 ? esz : 16);
    const uint64_t low = (UINT64_C(1) << CVM_VM_PTR_TAG_SHIFT) - 1;
    const uint32_t vslot = ld ? in->d : in->b;
    LLVMTypeRef wt = llvm.VectorType(g->i64, g->W);
    LLVMValueRef act = get_active(g), m = lane_mask(g, act);
    LLVMValueRef A = reg_get(g, in->a);
    /* the first and last active lanes (act is not empty where code runs) */
    LLVMValueRef f64v = intrinsic(g, "llvm.cttz", (LLVMTypeRef[]){g->i64}, 1,
                                  (LLVMValueRef[]){act, llvm.ConstInt(g->i1, 0, false)}, 2);
    LLVMValueRef f = llvm.BuildTrunc(g->B, f64v, g->i32, "");
    f = llvm.BuildSelect(g->B, llvm.BuildICmp(g->B, LLVMIntULT, f, c32(g, g->W), ""), f, c32(g, 0), "");
    LLVMValueRef f64 = llvm.BuildZExt(g->B, f, g->i64, "");
    LLVMValueRef lz = intrinsic(g, "llvm.ctlz", (LLVMTypeRef[]){g->i64}, 1,
                                (LLVMValueRef[]){act, llvm.ConstInt(g->i1, 0, false)}, 2);
    LLVMValueRef last = llvm.BuildSub(g->B, c64(g, 63), lz, "");
    /* each lane's pointer as 64 bits: global ones tagged, shared offsets widened */
    affine af;
    const bool quick = global && align <= esz && esz % align == 0 && affine_address(g, pc, &af);
    LLVMValueRef R = NULL, r0 = NULL, d = NULL, sf = NULL, P = NULL, i_f = NULL, xf = NULL;
    LLVMTypeRef it = quick && af.wide ? g->i64 : g->i32; /* I's lanes */
    if (quick) { /* lane f's index, I[f], and as 64 bits, xf */
        LLVMValueRef is;
        /* (a forwarded form says it: consecutive, I[l] - l is its scalar) */
        d = form_at(g, af.I, &is) == F_CONS ? splat(g, is) : llvm.BuildSub(g->B, reg_get(g, af.I), iota(g, it), "");
        sf = llvm.BuildExtractElement(g->B, d, f, ""); /* I[l] - l, the same in consecutive lanes */
        i_f = llvm.BuildAdd(g->B, sf, af.wide ? f64 : f, "");
        xf = index64(g, &af, i_f, g->i64);
        P = form_at(g, af.P, &is) == F_UNI ? is : llvm.BuildExtractElement(g->B, reg_get(g, af.P), f, "");
    } else {
        R = A; /* shared memory: 32-bit offsets, kept 32-bit in vectors */
        r0 = llvm.BuildExtractElement(g->B, R, f, "");
        if (!global)
            r0 = llvm.BuildZExt(g->B, r0, g->i64, "");
    }
    LLVMValueRef fsz = llvm.BuildMul(g->B, f64, c64(g, esz), "");
    LLVMValueRef t = NULL, etag = NULL, lo = NULL, end = NULL, shared = NULL, shared_p = NULL, size = NULL;
    LLVMValueRef i_l = NULL; /* quick: lane last's index */
    if (global) { /* the buffer of the first active lane's tag (quick: P's, the same or the slow path) */
        LLVMValueRef *c = quick && g->cst[af.P] ? &g->cbuf[8 * af.P + 4 * ld] : NULL;
        LLVMBasicBlockRef cur = llvm.GetInsertBlock(g->B);
        if (c && !c[0]) { /* a launch constant's buffer: looked up once, at the entry */
            llvm.PositionBuilderAtEnd(g->B, g->entry);
            buffer_of(g, P, ld, c);
            llvm.PositionBuilderAtEnd(g->B, cur);
        }
        LLVMValueRef here[4];
        if (!c)
            buffer_of(g, quick ? P : r0, ld, c = here);
        t = c[0], etag = c[1], lo = c[2], end = c[3];
    } else {
        size = llvm.BuildZExt(g->B, load_fixed(g, g->x, offsetof(cvm_vm_exec, shared_size), g->i32), g->i64, "");
        shared_p = load_fixed(g, g->x, offsetof(cvm_vm_exec, shared), g->i8p);
        shared = llvm.BuildPtrToInt(g->B, shared_p, g->i64, "");
    }
    LLVMTypeRef vt = vec(g, in->elem), st = scalar(g, in->elem);
    LLVMTypeRef sp = llvm.PointerType(st, 0), vp = llvm.PointerType(vt, 0), vpv = llvm.VectorType(sp, g->W);
    LLVMValueRef alignv = c32(g, esz);
    LLVMBasicBlockRef bc = block(g, "consecutive"), bl = block(g, "lanes"), bv = block(g, "vector"),
                      bgat = block(g, "gather"), bs = block(g, "slow"), bj = block(g, "joined");

    /* consecutive: lane l at lane f's pointer + (l - f) * esz (an
     * alignment above the element size needs every lane's test) */
    if (quick) {
        /* I[l] = I[f] + (l - f) (in 32 bits where I is), and no wrap between lanes f and last */
        LLVMValueRef off = llvm.BuildAnd(g->B, m, llvm.BuildICmp(g->B, LLVMIntNE, d, splat(g, sf), ""), "");
        LLVMValueRef cons = llvm.BuildICmp(g->B, LLVMIntEQ, mask_bits(g, off), c64(g, 0), "");
        i_l = llvm.BuildAdd(g->B, sf, af.wide ? last : llvm.BuildTrunc(g->B, last, g->i32, ""), "");
        cons = llvm.BuildAnd(g->B, cons, llvm.BuildICmp(g->B, af.sext ? LLVMIntSGE : LLVMIntUGE, i_l, i_f, ""), "");
        llvm.BuildCondBr(g->B, cons, bc, bl);
    } else if (align <= esz) {
        /* (shared: modulo 2^32, and the first and last lanes' offsets are
         * then tested in 64 bits below 2^31: no lane between wraps) */
        LLVMTypeRef et = global ? g->i64 : g->i32;
        LLVMValueRef base = llvm.BuildSub(g->B, r0, fsz, "");
        LLVMValueRef expect = llvm.BuildAdd(g->B, splat(g, global ? base : llvm.BuildTrunc(g->B, base, g->i32, "")),
                                            llvm.BuildMul(g->B, iota(g, et), splat(g, llvm.ConstInt(et, esz, false)), ""), "");
        LLVMValueRef off = llvm.BuildAnd(g->B, m, llvm.BuildICmp(g->B, LLVMIntNE, R, expect, ""), "");
        llvm.BuildCondBr(g->B, llvm.BuildICmp(g->B, LLVMIntEQ, mask_bits(g, off), c64(g, 0), ""), bc, bl);
    } else {
        llvm.BuildBr(g->B, bl);
    }
    llvm.PositionBuilderAtEnd(g->B, bc);
    LLVMValueRef cok, first, inside = NULL; /* cok: the consecutive path's test; inside (ld): the whole vector lies in the buffer */
    if (quick) {
        /* lanes f to last, consecutive, in bounds: I[f] and I[last] in P's range */
        LLVMValueRef xl = index64(g, &af, i_l, g->i64);
        LLVMValueRef x0 = llvm.BuildSub(g->B, xf, f64, ""); /* lane 0's index */
        /* computed where they are used: at the function's entry, or
         * before the branch to here, vadd and saxpy (no loop to take them
         * out of) ran slower (docs/performance.md) */
        LLVMValueRef qr[3];
        quick_range(g, P, (LLVMValueRef[]){t, etag, lo, end}, esz, align, qr);
        cok = llvm.BuildAnd(g->B, llvm.BuildICmp(g->B, LLVMIntSGE, xf, qr[1], ""),
                           llvm.BuildICmp(g->B, LLVMIntSLE, xl, qr[2], ""), "");
        cok = llvm.BuildAnd(g->B, qr[0], cok, "");
        first = llvm.BuildAdd(g->B, llvm.BuildAnd(g->B, P, c64(g, low), ""), llvm.BuildMul(g->B, x0, c64(g, esz), ""), "");
        if (ld)
            inside = llvm.BuildAnd(g->B, llvm.BuildICmp(g->B, LLVMIntSGE, x0, qr[1], ""),
                                   llvm.BuildICmp(g->B, LLVMIntSLE, x0, llvm.BuildSub(g->B, qr[2], c64(g, g->W - 1), ""), ""), "");
    } else {
        /* the last active lane's pointer, r0 + (last - f) * esz */
        LLVMValueRef rl = llvm.BuildAdd(g->B, r0, llvm.BuildMul(g->B, llvm.BuildSub(g->B, last, f64, ""),
                                                               c64(g, esz), ""), "");
        LLVMValueRef a0 = global ? llvm.BuildAnd(g->B, r0, c64(g, low), "") : r0;
        LLVMValueRef al = global ? llvm.BuildAnd(g->B, rl, c64(g, low), "") : rl;
        LLVMValueRef lim = llvm.BuildSub(g->B, global ? end : size, c64(g, esz), "");
        /* in bounds without wrapping: lim computed only when the limit is >= esz */
        cok = llvm.BuildAnd(g->B, llvm.BuildICmp(g->B, LLVMIntUGE, global ? end : size, c64(g, esz), ""),
                           llvm.BuildICmp(g->B, LLVMIntULE, al, lim, ""), "");
        if (global) {
            /* one tag on both ends, not carried into (rl >= r0), the table's entry */
            cok = llvm.BuildAnd(g->B, cok, llvm.BuildICmp(g->B, LLVMIntNE, t, c64(g, 0), ""), "");
            cok = llvm.BuildAnd(g->B, cok, llvm.BuildICmp(g->B, LLVMIntEQ, etag, t, ""), "");
            cok = llvm.BuildAnd(g->B, cok, llvm.BuildICmp(g->B, LLVMIntEQ,
                                                        llvm.BuildLShr(g->B, rl, c64(g, CVM_VM_PTR_TAG_SHIFT), ""), t, ""), "");
            cok = llvm.BuildAnd(g->B, cok, llvm.BuildICmp(g->B, LLVMIntUGE, rl, r0, ""), "");
            cok = llvm.BuildAnd(g->B, cok, llvm.BuildICmp(g->B, LLVMIntUGE, a0, lo, ""), "");
        }
        if (align > 1)
            cok = llvm.BuildAnd(g->B, cok, llvm.BuildICmp(g->B, LLVMIntEQ, llvm.BuildAnd(g->B, a0, c64(g, align - 1), ""),
                                                        c64(g, 0), ""), "");
        /* lane 0's host address (lanes before f are masked off, never touched) */
        LLVMValueRef at = llvm.BuildSub(g->B, a0, fsz, ""); /* lane 0's address or shared offset */
        first = global ? at : llvm.BuildAdd(g->B, at, shared, "");
        if (ld) {
            const uint64_t span = (uint64_t)g->W * esz;
            LLVMValueRef top = global ? end : size, bottom = global ? lo : c64(g, 0);
            inside = llvm.BuildAnd(g->B, llvm.BuildICmp(g->B, LLVMIntUGE, at, bottom, ""),
                                   llvm.BuildICmp(g->B, LLVMIntUGE, top, c64(g, span), ""), "");
            inside = llvm.BuildAnd(g->B, inside, llvm.BuildICmp(g->B, LLVMIntULE, at,
                                                                 llvm.BuildSub(g->B, top, c64(g, span), ""), ""), "");
        }
    }
    llvm.BuildCondBr(g->B, cok, bv, bl); /* bl fails too, to the slow path */
    llvm.PositionBuilderAtEnd(g->B, bv);
    LLVMValueRef vptr = llvm.BuildIntToPtr(g->B, first, vp, "");
    /* A plain vector access where it may touch every lane's element:
     * a load whose whole vector lies in the buffer, into a local
     * register (the inactive lanes' elements are read and nobody
     * reads them after) or with every lane active; a store of a full
     * plane. Masked accesses cost several times as much on this
     * development VM's AMD cores (docs/performance.md, "The native
     * tier"); a select after a load would be folded into one. */
    LLVMBasicBlockRef bwhole = block(g, "whole"), bmask = block(g, "masked");
    LLVMValueRef whole, full = all_lanes(g, act);
    if (ld) {
        whole = inside;
        if (!g->local[vslot])
            whole = llvm.BuildAnd(g->B, whole, full, "");
    } else {
        whole = full;
    }
    llvm.BuildCondBr(g->B, whole, bwhole, bmask);
    llvm.PositionBuilderAtEnd(g->B, bwhole);
    if (ld) {
        LLVMValueRef v = llvm.BuildLoad2(g->B, vt, vptr, "");
        llvm.SetAlignment(v, esz);
        llvm.BuildStore(g->B, v, g->slot[vslot]);
    } else {
        LLVMValueRef sv = llvm.BuildStore(g->B, reg_get(g, vslot), vptr);
        llvm.SetAlignment(sv, esz);
    }
    llvm.BuildBr(g->B, bj);
    llvm.PositionBuilderAtEnd(g->B, bmask);
    if (ld) {
        LLVMValueRef v = intrinsic(g, "llvm.masked.load", (LLVMTypeRef[]){vt, vp}, 2,
                                   (LLVMValueRef[]){vptr, alignv, m, reg_get(g, vslot)}, 4);
        llvm.BuildStore(g->B, v, g->slot[vslot]); /* masked: inactive lanes kept */
    } else {
        intrinsic(g, "llvm.masked.store", (LLVMTypeRef[]){vt, vp}, 2,
                  (LLVMValueRef[]){reg_get(g, vslot), vptr, alignv, m}, 4);
    }
    llvm.BuildBr(g->B, bj);

    /* other addresses: one address in every active lane (a quick load),
     * two runs of shared memory, else every active lane tested */
    llvm.PositionBuilderAtEnd(g->B, bl);
    if (quick && ld) { /* I[l] = I[f]: one element, loaded once (conv2d's weight) */
        LLVMBasicBlockRef bu = block(g, "one"), each = block(g, "each");
        LLVMValueRef same = llvm.BuildAnd(g->B, m, llvm.BuildICmp(g->B, LLVMIntNE, reg_get(g, af.I), splat(g, i_f), ""), "");
        LLVMValueRef qr[3];
        quick_range(g, P, (LLVMValueRef[]){t, etag, lo, end}, esz, align, qr);
        LLVMValueRef one = llvm.BuildAnd(g->B, llvm.BuildICmp(g->B, LLVMIntEQ, mask_bits(g, same), c64(g, 0), ""), qr[0], "");
        one = llvm.BuildAnd(g->B, one, llvm.BuildAnd(g->B, llvm.BuildICmp(g->B, LLVMIntSGE, xf, qr[1], ""),
                                                     llvm.BuildICmp(g->B, LLVMIntSLE, xf, qr[2], ""), ""), "");
        llvm.BuildCondBr(g->B, one, bu, each);
        llvm.PositionBuilderAtEnd(g->B, bu);
        LLVMValueRef at = llvm.BuildAdd(g->B, llvm.BuildAnd(g->B, P, c64(g, low), ""), llvm.BuildMul(g->B, xf, c64(g, esz), ""), "");
        LLVMValueRef v = llvm.BuildLoad2(g->B, st, llvm.BuildIntToPtr(g->B, at, sp, ""), "");
        llvm.SetAlignment(v, esz);
        v = splat(g, v);
        if (!g->local[vslot])
            v = llvm.BuildSelect(g->B, m, v, reg_get(g, vslot), "");
        llvm.BuildStore(g->B, v, g->slot[vslot]);
        llvm.BuildBr(g->B, bj);
        llvm.PositionBuilderAtEnd(g->B, each);
        if (g->W >= 8) { /* two runs of the buffer (matmul's tile loads: two rows of 16) */
            LLVMBasicBlockRef other = block(g, "each");
            global_halves(g, in, &af, P, qr, act, other, bj);
            llvm.PositionBuilderAtEnd(g->B, other);
        }
    }
    if (!global && ld && align <= esz && g->W >= 8) {
        LLVMBasicBlockRef each = block(g, "each");
        shared_halves(g, in, R, act, shared_p, size, each, bj);
        llvm.PositionBuilderAtEnd(g->B, each);
    }
    {
        LLVMValueRef addr, okv, ok; /* (quick is global only: R is set for shared memory) */
        if (quick && g->local[in->a]) {
            /* the address register made again here from P and I (the same
             * value in the active lanes, and a local register's other lanes
             * are never read), so that the chain that computed it is dead
             * code where only quick accesses read it */
            LLVMValueRef I = index64(g, &af, llvm.BuildFreeze(g->B, reg_get(g, af.I), ""), wt);
            A = llvm.BuildAdd(g->B, reg_get(g, af.P), llvm.BuildMul(g->B, I, splat(g, c64(g, esz)), ""), "");
            llvm.BuildStore(g->B, A, g->slot[in->a]);
        }
        if (global) {
            addr = llvm.BuildAnd(g->B, A, splat(g, c64(g, low)), "");
            LLVMValueRef tags = llvm.BuildLShr(g->B, A, splat(g, c64(g, CVM_VM_PTR_TAG_SHIFT)), "");
            okv = llvm.BuildICmp(g->B, LLVMIntEQ, tags, splat(g, t), "");
            okv = llvm.BuildAnd(g->B, okv, llvm.BuildICmp(g->B, LLVMIntUGE, addr, splat(g, lo), ""), "");
            ok = llvm.BuildAnd(g->B, llvm.BuildICmp(g->B, LLVMIntEQ, etag, t, ""),
                               llvm.BuildICmp(g->B, LLVMIntNE, t, c64(g, 0), ""), "");
        } else {
            addr = R;
            okv = NULL;
            ok = llvm.ConstInt(g->i1, 1, false);
        }
        /* addr + esz <= limit, written so that it cannot wrap: addr <= limit - esz, limit >= esz
         * (shared: 32-bit offsets against a size of at most 2^31) */
        LLVMValueRef limit = global ? end : size;
        LLVMTypeRef et = global ? g->i64 : g->i32;
        ok = llvm.BuildAnd(g->B, ok, llvm.BuildICmp(g->B, LLVMIntUGE, limit, c64(g, esz), ""), "");
        LLVMValueRef lim = llvm.BuildSub(g->B, limit, c64(g, esz), "");
        LLVMValueRef in_b = llvm.BuildICmp(g->B, LLVMIntULE, addr, splat(g, global ? lim : llvm.BuildTrunc(g->B, lim, g->i32, "")), "");
        okv = okv ? llvm.BuildAnd(g->B, okv, in_b, "") : in_b;
        if (align > 1)
            okv = llvm.BuildAnd(g->B, okv, llvm.BuildICmp(g->B, LLVMIntEQ,
                                                        llvm.BuildAnd(g->B, addr, splat(g, llvm.ConstInt(et, align - 1, false)), ""),
                                                        llvm.ConstNull(llvm.VectorType(et, g->W)), ""), "");
        LLVMValueRef bad = llvm.BuildAnd(g->B, m, llvm.BuildNot(g->B, okv, ""), "");
        ok = llvm.BuildAnd(g->B, ok, llvm.BuildICmp(g->B, LLVMIntEQ, mask_bits(g, bad), c64(g, 0), ""), "");
        llvm.BuildCondBr(g->B, ok, bgat, bs);
        llvm.PositionBuilderAtEnd(g->B, bgat);
        LLVMValueRef ptrs;
        if (global) {
            ptrs = llvm.BuildIntToPtr(g->B, addr, vpv, "");
        } else { /* base + 32-bit offsets (below 2^31: the same signed), so 32-bit gather indexes */
            LLVMValueRef at = llvm.BuildGEP2(g->B, g->i8, shared_p, &addr, 1, "");
            ptrs = llvm.BuildBitCast(g->B, at, vpv, "");
        }
        if (ld) {
            LLVMValueRef v = intrinsic(g, "llvm.masked.gather", (LLVMTypeRef[]){vt, vpv}, 2,
                                       (LLVMValueRef[]){ptrs, alignv, m, reg_get(g, vslot)}, 4);
            llvm.BuildStore(g->B, v, g->slot[vslot]);
        } else {
            /* overlapping lanes store in lane order, as the interpreter does */
            intrinsic(g, "llvm.masked.scatter", (LLVMTypeRef[]){vt, vpv}, 2,
                      (LLVMValueRef[]){reg_get(g, vslot), ptrs, alignv, m}, 4);
        }
        llvm.BuildBr(g->B, bj);
    }

    llvm.PositionBuilderAtEnd(g->B, bs);
    fallback(g, pc);
    llvm.BuildBr(g->B, bj);
    llvm.PositionBuilderAtEnd(g->B, bj);
}

/* Integer div or rem of 32- or 64-bit lanes: in doubles when every active
 * lane's operands lie in [0, 2^52) and the divisor is not 0 (then
 * trunc(fl(a / b)) is the quotient: a / b is at least 1/(a + b) > 2^-53
 * of its size below the next integer, more than the half ulp it rounds
 * by), else through the interpreter (negative operands, division by
 * zero and its fault). x86 has no vector integer division; this is four
 * vector divides for 32 lanes where scalar code would take 32. */
static bool divide(gen *g, uint32_t pc)
{
    const cvm_vm_dinsn *in = &g->code[pc];
    const unsigned e = in->elem, esz = cvm_vm_esz(e);
    if ((in->h != CVM_OP_DIV && in->h != CVM_OP_REM) || !is_int(e) || in->line != 1 ||
        (esz != 4 && esz != 8))
        return false;
    LLVMTypeRef wt = llvm.VectorType(g->i64, g->W), dt = llvm.VectorType(g->f64, g->W);
    LLVMValueRef m = lane_mask(g, get_active(g));
    LLVMValueRef a = reg_get(g, in->a), b = reg_get(g, in->b);
    if (esz == 4) {
        a = is_signed(e) ? llvm.BuildSExt(g->B, a, wt, "") : llvm.BuildZExt(g->B, a, wt, "");
        b = is_signed(e) ? llvm.BuildSExt(g->B, b, wt, "") : llvm.BuildZExt(g->B, b, wt, "");
    }
    /* as unsigned: [0, 2^52) also excludes negative signed values */
    LLVMValueRef lim = splat(g, c64(g, UINT64_C(1) << 52));
    LLVMValueRef okv = llvm.BuildAnd(g->B, llvm.BuildICmp(g->B, LLVMIntULT, a, lim, ""),
                                    llvm.BuildICmp(g->B, LLVMIntULT, b, lim, ""), "");
    okv = llvm.BuildAnd(g->B, okv, llvm.BuildICmp(g->B, LLVMIntNE, b, llvm.ConstNull(wt), ""), "");
    LLVMValueRef bad = llvm.BuildAnd(g->B, m, llvm.BuildNot(g->B, okv, ""), "");
    LLVMBasicBlockRef bq = block(g, "div"), bs = block(g, "slow"), bj = block(g, "joined");
    llvm.BuildCondBr(g->B, llvm.BuildICmp(g->B, LLVMIntEQ, mask_bits(g, bad), c64(g, 0), ""), bq, bs);
    llvm.PositionBuilderAtEnd(g->B, bs);
    fallback(g, pc);
    llvm.BuildBr(g->B, bj);
    llvm.PositionBuilderAtEnd(g->B, bq);
    LLVMValueRef one = splat(g, c64(g, 1));
    LLVMValueRef bsafe = llvm.BuildSelect(g->B, okv, b, one, ""); /* inactive lanes divide by 1 */
    LLVMValueRef asafe = llvm.BuildSelect(g->B, okv, a, llvm.ConstNull(wt), "");
    LLVMValueRef q = llvm.BuildFPToUI(g->B, llvm.BuildFDiv(g->B, llvm.BuildUIToFP(g->B, asafe, dt, ""),
                                                         llvm.BuildUIToFP(g->B, bsafe, dt, ""), ""),
                                     wt, "");
    LLVMValueRef r = in->h == CVM_OP_DIV ? q : llvm.BuildSub(g->B, asafe, llvm.BuildMul(g->B, q, bsafe, ""), "");
    if (esz == 4)
        r = llvm.BuildTrunc(g->B, r, vec(g, e), "");
    reg_set(g, in->d, r);
    llvm.BuildBr(g->B, bj);
    llvm.PositionBuilderAtEnd(g->B, bj);
    return true;
}

/* W lanes of the f64 constant v. */
static LLVMValueRef dsplat(const gen *g, double v)
{
    union { double d; uint64_t u; } c = {v};
    return splat(g, llvm.ConstBitCast(c64(g, c.u), g->f64));
}

/* f32 e^x, the bits of the interpreter's cvm_n_qf(cvm_m_expf_inline(x))
 * (vm/mathlib.h) step by step: the same clamp, the same f64 operations in
 * the same order (none contracted, rint in the default rounding mode),
 * 2^k from its bits, one rounding to f32, the same special values. Softmax
 * calls it for every element; through the interpreter (cvm_jit_step) it
 * cost more than the rest of the kernel's native code. */
static LLVMValueRef exp_f32(const gen *g, LLVMValueRef xf)
{
    LLVMTypeRef dt = vec(g, CVM_T_F64), lt = llvm.VectorType(g->i64, g->W);
    LLVMValueRef x0 = llvm.BuildFPExt(g->B, xf, dt, "");
    LLVMValueRef big = llvm.BuildFCmp(g->B, LLVMRealOGT, x0, dsplat(g, 89), "");
    LLVMValueRef small = llvm.BuildFCmp(g->B, LLVMRealOLT, x0, dsplat(g, -104), "");
    LLVMValueRef nan = llvm.BuildFCmp(g->B, LLVMRealUNO, x0, x0, "");
    LLVMValueRef x = llvm.BuildSelect(g->B, nan, dsplat(g, 0), x0, "");
    x = llvm.BuildSelect(g->B, small, dsplat(g, -104), x, "");
    x = llvm.BuildSelect(g->B, big, dsplat(g, 89), x, "");
    LLVMValueRef kd = intrinsic(g, "llvm.rint", &dt, 1,
                                (LLVMValueRef[]){llvm.BuildFMul(g->B, x, dsplat(g, 0x1.71547652b82fep+0), "")}, 1);
    LLVMValueRef r = llvm.BuildFSub(g->B, x, llvm.BuildFMul(g->B, kd, dsplat(g, 0x1.62e42fee00000p-1), ""), "");
    r = llvm.BuildFSub(g->B, r, llvm.BuildFMul(g->B, kd, dsplat(g, 0x1.a39ef35793c76p-33), ""), "");
    /* 1/13!, 1/12!, ..., 1/2!, then 1 twice: Horner, as the C */
    static const double coef[] = {1.0 / 479001600, 1.0 / 39916800, 1.0 / 3628800, 1.0 / 362880,
                                  1.0 / 40320,     1.0 / 5040,     1.0 / 720,     1.0 / 120,
                                  1.0 / 24,        1.0 / 6,        1.0 / 2,       1.0,
                                  1.0};
    LLVMValueRef q = dsplat(g, 1.0 / 6227020800.0);
    for (size_t i = 0; i < sizeof coef / sizeof coef[0]; i++)
        q = llvm.BuildFAdd(g->B, llvm.BuildFMul(g->B, q, r, ""), dsplat(g, coef[i]), "");
    LLVMValueRef t = llvm.BuildBitCast(g->B, llvm.BuildFAdd(g->B, kd, dsplat(g, 0x1p52 + 1023), ""), lt, "");
    LLVMValueRef sc = llvm.BuildBitCast(g->B, llvm.BuildShl(g->B, t, splat(g, c64(g, 52)), ""), dt, "");
    LLVMValueRef y = llvm.BuildFPTrunc(g->B, llvm.BuildFMul(g->B, q, sc, ""), vec(g, CVM_T_F32), "");
    LLVMValueRef inf = splat(g, llvm.ConstBitCast(c32(g, 0x7f800000u), g->f32));
    y = llvm.BuildSelect(g->B, small, llvm.ConstNull(vec(g, CVM_T_F32)), y, "");
    y = llvm.BuildSelect(g->B, big, inf, y, "");
    return canon_nan(g, llvm.BuildSelect(g->B, nan, xf, y, ""), CVM_T_F32);
}

/* Whether instruction `in` is a lane op compiled inline (else: fallback). */
/* A lane op on registers of known form (form_at) as one scalar op: the
 * integer and bool ops whose lanes are then one value (or consecutive
 * ones: adding one value to them), so that LLVM sees scalars (a
 * versioned loop's coordinates, lane positions, launch values). False:
 * not such an op, lane_op does it on vectors. */
static bool form_op(gen *g, const cvm_vm_dinsn *in)
{
    const unsigned e = in->elem;
    LLVMValueRef a = NULL, b = NULL, r = NULL;
    const uint8_t fa = form_at(g, in->a, &a), fb = form_at(g, in->b, &b);
    const bool uu = fa == F_UNI && fb == F_UNI, ints = is_int(e) || e == CVM_T_BOOL;
    uint8_t k = F_UNI;
    switch (in->h) {
    case CVM_OP_MOV:
        if (fa == F_VAR)
            return false;
        r = a, k = fa;
        break;
    case CVM_OP_CONST: case CVM_OP_PARAM: r = launch_scalar(g, in); break;
    case CVM_OP_ADD: case CVM_OP_SUB:
        if (!is_int(e))
            return false;
        if (!uu && !(fa == F_CONS && fb == F_UNI) && !(in->h == CVM_OP_ADD && fa == F_UNI && fb == F_CONS))
            return false;
        k = uu ? F_UNI : F_CONS; /* (s + l) + t = (s + t) + l, modulo 2^n */
        r = in->h == CVM_OP_ADD ? llvm.BuildAdd(g->B, a, b, "") : llvm.BuildSub(g->B, a, b, "");
        break;
    case CVM_OP_MUL:
        if (!is_int(e) || !uu)
            return false;
        r = llvm.BuildMul(g->B, a, b, "");
        break;
    case CVM_OP_AND: case CVM_OP_OR: case CVM_OP_XOR:
        if (!ints || !uu)
            return false;
        r = in->h == CVM_OP_AND ? llvm.BuildAnd(g->B, a, b, "")
            : in->h == CVM_OP_OR ? llvm.BuildOr(g->B, a, b, "") : llvm.BuildXor(g->B, a, b, "");
        break;
    case CVM_OP_NOT:
        if (!ints || fa != F_UNI)
            return false;
        r = e == CVM_T_BOOL ? llvm.BuildXor(g->B, a, llvm.ConstInt(g->i8, 1, false), "") : llvm.BuildNot(g->B, a, "");
        break;
    case CVM_OP_EQ: case CVM_OP_NE: case CVM_OP_LT: case CVM_OP_LE: case CVM_OP_GT: case CVM_OP_GE:
        if (!uu || !(is_int(in->ea) || in->ea == CVM_T_BOOL))
            return false;
        r = llvm.BuildZExt(g->B, compare(g, in, a, b), g->i8, "");
        break;
    case CVM_OP_CVT:
        if (fa == F_VAR || !is_int(e) || !is_int(in->ea))
            return false;
        switch (in->k) {
        case CVM_VM_CVT_COPY4: case CVM_VM_CVT_COPY8: r = a, k = fa; break;
        case CVM_VM_CVT_TRUNC64: r = llvm.BuildTrunc(g->B, a, g->i32, ""), k = fa; break; /* modulo 2^32 */
        case CVM_VM_CVT_SEXT32: r = fa == F_UNI ? llvm.BuildSExt(g->B, a, g->i64, "") : NULL; break;
        case CVM_VM_CVT_ZEXT32: r = fa == F_UNI ? llvm.BuildZExt(g->B, a, g->i64, "") : NULL; break;
        default: break;
        }
        if (!r)
            return false;
        break;
    case CVM_OP_PTR_ADD:
        if (!uu || e != CVM_T_PTR_GLOBAL)
            return false;
        r = llvm.BuildAdd(g->B, a, in->eb == CVM_T_I64 || in->eb == CVM_T_U64 ? b : llvm.BuildSExt(g->B, b, g->i64, ""), "");
        break;
    default:
        return false;
    }
    LLVMValueRef v = form_vector(g, k, r);
    reg_set(g, in->d, v);
    forward(g, in->d, k, r, v);
    return true;
}

static bool lane_op(gen *g, const cvm_vm_dinsn *in)
{
    const unsigned e = in->elem;
    if (in->line != 1 || in->la > 1 || in->lc > 1)
        return false;
    if (form_op(g, in))
        return true;
    LLVMValueRef r = NULL;
    switch (in->h) {
    case CVM_OP_NOP: return true;
    case CVM_OP_MOV: r = reg_get(g, in->a); break;
    case CVM_OP_CONST: case CVM_OP_PARAM: r = splat(g, launch_scalar(g, in)); break;
    case CVM_OP_SREG: {
        if (cvm_vm_esz(e) != 4)
            return false;
        r = sreg(g, in->aux);
        if (!r)
            return false;
        break;
    }
    case CVM_OP_SELECT: {
        LLVMValueRef c = llvm.BuildTrunc(g->B, reg_get(g, in->c), g->vmask, "");
        r = llvm.BuildSelect(g->B, c, reg_get(g, in->a), reg_get(g, in->b), "");
        break;
    }
    case CVM_OP_ADD: case CVM_OP_SUB: case CVM_OP_MUL: case CVM_OP_DIV: {
        LLVMValueRef a = reg_get(g, in->a), b = reg_get(g, in->b);
        if (is_float(e)) {
            r = in->h == CVM_OP_ADD   ? llvm.BuildFAdd(g->B, a, b, "")
                : in->h == CVM_OP_SUB ? llvm.BuildFSub(g->B, a, b, "")
                : in->h == CVM_OP_MUL ? llvm.BuildFMul(g->B, a, b, "")
                                      : llvm.BuildFDiv(g->B, a, b, "");
            r = canon_nan(g, r, e);
        } else if (is_int(e) && in->h != CVM_OP_DIV) {
            r = in->h == CVM_OP_ADD   ? llvm.BuildAdd(g->B, a, b, "")
                : in->h == CVM_OP_SUB ? llvm.BuildSub(g->B, a, b, "")
                                      : llvm.BuildMul(g->B, a, b, "");
        } else {
            return false;
        }
        break;
    }
    case CVM_OP_MIN: case CVM_OP_MAX: {
        LLVMValueRef a = reg_get(g, in->a), b = reg_get(g, in->b);
        const bool max = in->h == CVM_OP_MAX;
        if (is_float(e)) {
            r = fminmax(g, a, b, e, max);
        } else if (is_int(e)) {
            LLVMIntPredicate pr = is_signed(e) ? (max ? LLVMIntSGT : LLVMIntSLT)
                                               : (max ? LLVMIntUGT : LLVMIntULT);
            r = llvm.BuildSelect(g->B, llvm.BuildICmp(g->B, pr, a, b, ""), a, b, "");
        } else {
            return false;
        }
        break;
    }
    case CVM_OP_NEG: case CVM_OP_ABS: {
        LLVMValueRef a = reg_get(g, in->a);
        if (is_float(e)) {
            LLVMTypeRef it = llvm.VectorType(e == CVM_T_F32 ? g->i32 : g->i64, g->W);
            LLVMValueRef bits = llvm.BuildBitCast(g->B, a, it, "");
            uint64_t sign = e == CVM_T_F32 ? UINT64_C(0x80000000) : UINT64_C(1) << 63;
            LLVMValueRef s = splat(g, llvm.ConstInt(llvm.GetElementType(it), sign, false));
            bits = in->h == CVM_OP_NEG ? llvm.BuildXor(g->B, bits, s, "")
                                       : llvm.BuildAnd(g->B, bits, llvm.BuildNot(g->B, s, ""), "");
            r = llvm.BuildBitCast(g->B, bits, vec(g, e), "");
        } else if (is_int(e)) {
            LLVMValueRef neg = llvm.BuildSub(g->B, llvm.ConstNull(vec(g, e)), a, "");
            if (in->h == CVM_OP_NEG || !is_signed(e))
                r = in->h == CVM_OP_NEG ? neg : a;
            else
                r = llvm.BuildSelect(g->B, llvm.BuildICmp(g->B, LLVMIntSLT, a, llvm.ConstNull(vec(g, e)), ""),
                                    neg, a, "");
        } else {
            return false;
        }
        break;
    }
    case CVM_OP_FMA:
        if (!is_float(e))
            return false;
        r = intrinsic(g, "llvm.fma", (LLVMTypeRef[]){vec(g, e)}, 1,
                      (LLVMValueRef[]){reg_get(g, in->a), reg_get(g, in->b), reg_get(g, in->c)}, 3);
        r = canon_nan(g, r, e);
        break;
    case CVM_OP_MAD:
        if (!is_int(e))
            return false;
        r = llvm.BuildAdd(g->B, llvm.BuildMul(g->B, reg_get(g, in->a), reg_get(g, in->b), ""),
                         reg_get(g, in->c), "");
        break;
    case CVM_OP_BITCAST: /* one element to one of the same width: the bits */
        if (!(is_int(e) || is_float(e)) || !(is_int(in->ea) || is_float(in->ea)) ||
            cvm_vm_esz(e) != cvm_vm_esz(in->ea))
            return false;
        r = llvm.BuildBitCast(g->B, reg_get(g, in->a), vec(g, e), "");
        break;
    case CVM_OP_EXP:
        if (e != CVM_T_F32)
            return false;
        r = exp_f32(g, reg_get(g, in->a));
        break;
    case CVM_OP_SQRT:
        if (!is_float(e))
            return false;
        r = canon_nan(g, intrinsic(g, "llvm.sqrt", (LLVMTypeRef[]){vec(g, e)}, 1,
                                   (LLVMValueRef[]){reg_get(g, in->a)}, 1), e);
        break;
    case CVM_OP_EQ: case CVM_OP_NE: case CVM_OP_LT: case CVM_OP_LE: case CVM_OP_GT: case CVM_OP_GE:
        if (!is_float(in->ea) && !is_int(in->ea) && in->ea != CVM_T_BOOL)
            return false;
        r = llvm.BuildZExt(g->B, compare(g, in, reg_get(g, in->a), reg_get(g, in->b)), vec(g, CVM_T_BOOL), "");
        break;
    case CVM_OP_AND: case CVM_OP_OR: case CVM_OP_XOR: {
        if (!is_int(e) && e != CVM_T_BOOL)
            return false;
        LLVMValueRef a = reg_get(g, in->a), b = reg_get(g, in->b);
        r = in->h == CVM_OP_AND  ? llvm.BuildAnd(g->B, a, b, "")
            : in->h == CVM_OP_OR ? llvm.BuildOr(g->B, a, b, "")
                                 : llvm.BuildXor(g->B, a, b, "");
        break;
    }
    case CVM_OP_NOT:
        if (e == CVM_T_BOOL)
            r = llvm.BuildXor(g->B, reg_get(g, in->a), splat(g, llvm.ConstInt(g->i8, 1, false)), "");
        else if (is_int(e))
            r = llvm.BuildNot(g->B, reg_get(g, in->a), "");
        else
            return false;
        break;
    case CVM_OP_SHL: case CVM_OP_SHR:
        if (!is_int(e) || !is_int(in->eb))
            return false;
        r = shift(g, in, reg_get(g, in->a), reg_get(g, in->b));
        break;
    case CVM_OP_CVT:
        r = convert(g, in, reg_get(g, in->a));
        if (!r)
            return false;
        break;
    case CVM_OP_PTR_ADD: {
        LLVMValueRef a = reg_get(g, in->a), b = reg_get(g, in->b);
        const bool wide = in->eb == CVM_T_I64 || in->eb == CVM_T_U64;
        if (e == CVM_T_PTR_GLOBAL)
            r = llvm.BuildAdd(g->B, a, wide ? b : llvm.BuildSExt(g->B, b, vec(g, CVM_T_I64), ""), "");
        else
            r = llvm.BuildAdd(g->B, a, wide ? llvm.BuildTrunc(g->B, b, vec(g, CVM_T_U32), "") : b, "");
        break;
    }
    default:
        return false;
    }
    reg_set(g, in->d, r);
    forward(g, in->d, F_VAR, NULL, r);
    return true;
}

/* ---- loop versioning ---- */

/* A register's lanes as the code before a loop suggests they will be
 * there: one value (F_UNI), or lane f's value + (l - f) in lane l
 * (F_CONS), or neither. Only a guess: version_loop tests it. */

static uint8_t form_of(const gen *g, uint32_t r)
{
    return r < g->nslots ? g->form[r] : F_VAR;
}

/* gen's `form` at pc lo, from the instructions before it in order (the
 * branches not followed): unit_pos.x is consecutive, the other positions
 * and launch values uniform; i / c of a consecutive i by a uniform c is
 * guessed uniform and i % c consecutive (true when c is a multiple of
 * the plane width and the plane's lanes start at one: the indexing of
 * `i = blockIdx.x * blockDim.x + threadIdx.x` split into coordinates). */
static void guess_forms(gen *g, uint32_t lo)
{
    memset(g->form, F_UNI, g->nslots); /* registers start as zero */
    for (uint32_t pc = 0; pc < lo; pc++) {
        const cvm_vm_dinsn *in = &g->code[pc];
        uint32_t list[CVM_BC_MAX_OPERANDS + 4];
        unsigned n, nw;
        named(g, in, list, &n, &nw);
        if (!nw || list[0] >= g->nslots)
            continue;
        const uint32_t d = list[0];
        const uint8_t a = form_of(g, in->a), b = form_of(g, in->b);
        const bool uu = a == F_UNI && b == F_UNI, cu = a == F_CONS && b == F_UNI;
        uint8_t f = (in->uni & CVM_VM_UNI_PLANE) ? F_UNI : F_VAR;
        switch (in->h) {
        case CVM_OP_CONST: case CVM_OP_PARAM: f = F_UNI; break;
        case CVM_OP_SREG:
            f = in->aux == CVM_SREG_UNIT_POS_X || in->aux == CVM_SREG_UNIT_POS_PLANE || in->aux == CVM_SREG_UNIT_POS
                    ? F_CONS : F_UNI;
            break;
        case CVM_OP_MOV: f = a; break;
        case CVM_OP_CVT: f = is_int(in->elem) && is_int(in->ea) ? a : a == F_UNI ? F_UNI : F_VAR; break;
        case CVM_OP_ADD: f = uu ? F_UNI : cu || (a == F_UNI && b == F_CONS) ? F_CONS : F_VAR; break;
        case CVM_OP_SUB: f = uu ? F_UNI : cu ? F_CONS : F_VAR; break;
        case CVM_OP_DIV: f = uu || cu ? F_UNI : F_VAR; break;
        case CVM_OP_REM: f = uu ? F_UNI : cu ? F_CONS : F_VAR; break;
        case CVM_OP_MUL: case CVM_OP_AND: case CVM_OP_OR: case CVM_OP_XOR: case CVM_OP_SHL: case CVM_OP_SHR:
        case CVM_OP_PTR_ADD:
            f = uu ? F_UNI : F_VAR;
            break;
        default: break;
        }
        if (in->line != 1 || width_at(g, d) != 1 || (f == F_CONS && !is_int(g->slot_elem[d])))
            f = F_VAR;
        for (uint32_t w = 0; w < width_at(g, d) && d + w < g->nslots; w++)
            g->form[d + w] = f;
    }
}

enum { MAXVERSIONED = 8, MAXVERSIONLEN = 2000 };

typedef struct vcand {
    uint32_t slot;
    uint8_t form;
    bool written; /* by the loop */
} vcand;

/* The registers loop lo (its LOOP's pc) reads whose forms a versioned
 * copy tests at its head: 4- or 8-byte, one slot, not a launch constant,
 * read by no plane op of the loop (those read inactive lanes), guessed
 * uniform or (integers) consecutive. */
static unsigned loop_candidates(gen *g, uint32_t lo, vcand *cand)
{
    const uint32_t hi = g->code[lo].end;
    if (hi <= lo || hi >= g->kp->ninsns || hi - lo > MAXVERSIONLEN)
        return 0;
    /* 1 read, 2 written, 4 read by a plane op, 8 written before any read
     * (in the order of the code: a register the head needs not test) */
    uint8_t *use = calloc(g->nslots + 1, 1);
    if (!use)
        return 0;
    for (uint32_t pc = lo; pc <= hi; pc++) {
        const cvm_vm_dinsn *in = &g->code[pc];
        const cvm_bc_opinfo *oi = cvm_bc_op_info(in->h);
        uint32_t list[CVM_BC_MAX_OPERANDS + 4];
        unsigned n, nw;
        named(g, in, list, &n, &nw);
        if (oi && (oi->flags & CVM_OPF_CTRL) && in->h != CVM_OP_IF && in->h != CVM_OP_BREAK_IF &&
            in->h != CVM_OP_SWITCH)
            n = 0;
        for (unsigned j = 0; j < n; j++) { /* sources first, as they are read */
            const unsigned i = (j + nw) % n;
            for (uint32_t w = 0; w < width_at(g, list[i]) && list[i] + w < g->nslots; w++) {
                uint8_t *u = &use[list[i] + w];
                if (!*u && i < nw)
                    *u = 8;
                *u |= (uint8_t)(i < nw ? 2 : oi && (oi->flags & CVM_OPF_PLANE) ? 5 : 1);
            }
        }
    }
    guess_forms(g, lo);
    unsigned nc = 0;
    for (uint32_t s = 0; s < g->nslots && nc < MAXVERSIONED; s++) {
        const unsigned e = g->slot_elem[s], esz = cvm_vm_esz(e);
        if ((use[s] & 13) == 1 && !g->cst[s] && g->slot_width[s] == 1 && (esz == 4 || esz == 8) && !is_float(e) &&
            (g->form[s] == F_UNI || (g->form[s] == F_CONS && is_int(e))))
            cand[nc++] = (vcand){s, g->form[s], (use[s] & 2) != 0};
    }
    free(use);
    return nc;
}

/* Whether each candidate has its form in every active lane: lane f's
 * value in all of them, or lane f's + (l - f) in lane l (for that, lane
 * 0's value); val[i] the form's scalar (fval's s). */
static LLVMValueRef form_test(gen *g, const vcand *cand, unsigned nc, LLVMValueRef *val)
{
    LLVMValueRef act = get_active(g);
    LLVMValueRef f = llvm.BuildTrunc(g->B, intrinsic(g, "llvm.cttz", (LLVMTypeRef[]){g->i64}, 1,
                                                     (LLVMValueRef[]){act, llvm.ConstInt(g->i1, 0, false)}, 2),
                                     g->i32, "");
    f = llvm.BuildSelect(g->B, llvm.BuildICmp(g->B, LLVMIntULT, f, c32(g, g->W), ""), f, c32(g, 0), "");
    LLVMValueRef ok = llvm.ConstInt(g->i1, 1, false);
    for (unsigned i = 0; i < nc; i++) {
        const uint32_t s = cand[i].slot;
        const unsigned e = g->slot_elem[s];
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

/* The head of the loop at pc in a versioned copy: the forms of its
 * candidates not already forwarded, tested each round and forwarded
 * through the round; where one fails, the state goes to the plane's
 * record and on in the general copy, at the resume point of the loop's
 * head (as a plane stopped there would resume), never to come back. */
static void head_test(gen *g, uint32_t pc)
{
    vcand cand[MAXVERSIONED];
    LLVMValueRef val[MAXVERSIONED], sc;
    unsigned nc = loop_candidates(g, pc, cand), k = 0;
    for (unsigned i = 0; i < nc; i++)
        if (form_at(g, cand[i].slot, &sc) == F_VAR)
            cand[k++] = cand[i];
    nc = k;
    LLVMBasicBlockRef to = resume_block(g, pc + 1);
    if (!nc)
        return;
    if (!to) {
        fail(g, "pc %u: a versioned loop has no resume point%s", pc, "");
        return;
    }
    LLVMValueRef ok = form_test(g, cand, nc, val);
    LLVMBasicBlockRef body = block(g, "body"), deopt = block(g, "deopt");
    llvm.BuildCondBr(g->B, ok, body, deopt);
    llvm.PositionBuilderAtEnd(g->B, deopt);
    save_state(g, pc + 1);
    llvm.BuildBr(g->B, to);
    llvm.PositionBuilderAtEnd(g->B, body);
    for (unsigned i = 0; i < nc; i++)
        forward(g, cand[i].slot, cand[i].form, val[i], NULL);
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
        named(g, &g->code[pc], list, &n, &nw);
        for (uint32_t w = 0; nw && w < width_at(g, list[0]) && list[0] + w < g->nslots; w++)
            g->fwd[list[0] + w] = (fval){0};
    }
}

static void control(gen *g, uint32_t pc)
{
    const cvm_vm_dinsn *in = &g->code[pc];
    construct *c;
    switch (in->h) {
    case CVM_OP_IF: {
        LLVMValueRef act = get_active(g);
        LLVMValueRef cm = cond_mask(g, in->a);
        c = push(g, CVM_VM_F_IF, pc);
        snapshot(g, g->depth - 1);
        c->m[0] = new_mask(g, "pending", llvm.BuildAnd(g->B, act, llvm.BuildNot(g->B, cm, ""), ""));
        c->next = block(g, "marker");
        set_active(g, cm);
        LLVMBasicBlockRef then = block(g, "then");
        llvm.BuildCondBr(g->B, llvm.BuildICmp(g->B, LLVMIntNE, cm, c64(g, 0), ""), then, c->next);
        llvm.PositionBuilderAtEnd(g->B, then);
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
        llvm.BuildBr(g->B, c->head);
        llvm.PositionBuilderAtEnd(g->B, c->head);
        add_resume(g, pc + 1, c->head);
        if (g->fastcopy)
            head_test(g, pc);
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
        break;
    }
    case CVM_OP_BREAK_IF: {
        c = &g->con[in->aux];
        LLVMValueRef cm = cond_mask(g, in->a);
        llvm.BuildStore(g->B, llvm.BuildOr(g->B, llvm.BuildLoad2(g->B, g->i64, c->m[0], ""), cm, ""), c->m[0]);
        set_active(g, llvm.BuildAnd(g->B, get_active(g), llvm.BuildNot(g->B, cm, ""), ""));
        continue_if_active(g);
        break;
    }
    case CVM_OP_BREAK: case CVM_OP_CONTINUE: case CVM_OP_EXIT: {
        c = &g->con[in->aux];
        LLVMValueRef m = c->m[in->h == CVM_OP_CONTINUE ? 1 : 0];
        llvm.BuildStore(g->B, llvm.BuildOr(g->B, llvm.BuildLoad2(g->B, g->i64, m, ""), get_active(g), ""), m);
        set_active(g, c64(g, 0));
        llvm.BuildBr(g->B, next_marker(g));
        dead_block(g);
        break;
    }
    case CVM_OP_RETURN:
        llvm.BuildStore(g->B, llvm.BuildOr(g->B, llvm.BuildLoad2(g->B, g->i64, g->exited, ""), get_active(g), ""),
                       g->exited);
        set_active(g, c64(g, 0));
        llvm.BuildBr(g->B, next_marker(g));
        dead_block(g);
        break;
    case CVM_OP_BLOCK:
        c = push(g, CVM_VM_F_BLOCK, pc);
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
            a = llvm.BuildLoad2(g->B, g->i64, c->m[0], "");
        } else {
            a = llvm.BuildOr(g->B, a, llvm.BuildLoad2(g->B, g->i64, c->m[0], ""), "");
        }
        set_active(g, a);
        g->depth--;
        continue_if_active(g);
        break;
    }
    default:
        fail(g, "pc %u: %s is not compiled by the native tier", pc, cvm_bc_op_info(in->h)->mnemonic);
        break;
    }
}

static void emit_range(gen *g, uint32_t lo, uint32_t hi);

/* A loop compiled twice (docs/design.md "Tiers"): where, at its
 * entry, the registers it reads (loop_candidates) have the forms
 * guess_forms expects in every active lane, the second copy runs, where
 * they are forwarded as forms (fval: one scalar, or a scalar plus <0, 1,
 * ..>): lane ops on them are scalar ops (form_op; pooling's and
 * convolution's coordinates, split from a linear index) and the quick
 * path's test of consecutive lanes is gone. The copy tests the forms
 * again at each of its loops' heads (a loop counter changes each round)
 * and where one fails goes on in the general copy. Lanes only leave a
 * loop's body, so a form true at the head holds in every active lane of
 * the round, and inactive lanes are never read through it (spills and
 * merges use reg_raw). A plane that stops inside the versioned copy
 * resumes in the general one, which holds the same state. Returns false
 * (nothing emitted) for a loop with nothing to version. */
static bool version_loop(gen *g, uint32_t lo)
{
    vcand cand[MAXVERSIONED];
    LLVMValueRef val[MAXVERSIONED];
    const uint32_t hi = g->code[lo].end;
    const unsigned nc = loop_candidates(g, lo, cand);
    if (!nc)
        return false;
    LLVMValueRef ok = form_test(g, cand, nc, val);
    LLVMBasicBlockRef general = block(g, "general"), versioned = block(g, "versioned"), joined = block(g, "joined");
    llvm.BuildCondBr(g->B, ok, versioned, general);
    g->versioning = true;
    llvm.PositionBuilderAtEnd(g->B, general);
    emit_range(g, lo, hi + 1);
    llvm.BuildBr(g->B, joined);
    llvm.PositionBuilderAtEnd(g->B, versioned);
    g->fastcopy = true;
    emit_range(g, lo, hi + 1);
    llvm.BuildBr(g->B, joined);
    g->fastcopy = g->versioning = false;
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
            (in->ea == CVM_T_PTR_GLOBAL || in->ea == CVM_T_PTR_SHARED)) {
            memory(g, pc);
            continue;
        }
        if (divide(g, pc) || lane_op(g, in))
            continue;
        if (in->h == CVM_OP_SYNC_CUBE)
            sync_cube(g, pc);
        else
            fallback(g, pc);
    }
}

static void emit(gen *g)
{
    const cvm_vm_kprog *kp = g->kp;
    LLVMBasicBlockRef entry = g->entry = block(g, "entry");
    llvm.PositionBuilderAtEnd(g->B, entry);
    g->active = llvm.BuildAlloca(g->B, g->i64, "active");
    g->exited = llvm.BuildAlloca(g->B, g->i64, "exited");
    g->quantum = llvm.BuildAlloca(g->B, g->i32, "quantum");
    for (uint32_t s = 0; s < g->nslots; s++)
        g->slot[s] = llvm.BuildAlloca(g->B, vec(g, g->slot_elem[s]), "r");
    g->start = block(g, "start");
    g->done = block(g, "done");

    llvm.PositionBuilderAtEnd(g->B, g->start);
    /* registers start as the cube's start left them: zero (decode.c proved
     * every other register written before it is read) */
    for (uint32_t s = 0; s < g->nslots; s++)
        llvm.BuildStore(g->B, llvm.ConstNull(vec(g, g->slot_elem[s])), g->slot[s]);
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
    llvm.BuildRet(g->B, c32(g, CVM_VM_R_DONE));

    /* the entry: start at pc 0, or resume where the plane stopped */
    llvm.PositionBuilderAtEnd(g->B, entry);
    LLVMValueRef pc = load(g, g->p, offsetof(cvm_vm_plane, pc), g->i32);
    LLVMValueRef sw = llvm.BuildSwitch(g->B, pc, g->start, g->nres);
    for (unsigned i = 0; i < g->nres; i++)
        llvm.AddCase(sw, c32(g, g->res[i].pc), g->res[i].bb);
}

/* gen's `cst`: registers whose only writer is one `const`. */
static void constants(gen *g)
{
    const cvm_vm_kprog *kp = g->kp;
    if (kp->zero_all)
        return;
    uint8_t *no = calloc(g->nslots + 1, 1); /* written otherwise, read across lanes, or zeroed */
    if (!no)
        return; /* no facts: no constants */
    for (uint32_t i = 0; i < kp->nzero; i++)
        for (uint32_t s = kp->zero[2 * i]; s < kp->zero[2 * i] + kp->zero[2 * i + 1] && s < g->nslots; s++)
            no[s] = 1;
    for (uint32_t pc = 0; pc < kp->ninsns; pc++) {
        const cvm_vm_dinsn *in = &g->code[pc];
        const cvm_bc_opinfo *oi = cvm_bc_op_info(in->h);
        uint32_t list[CVM_BC_MAX_OPERANDS + 4];
        unsigned k, nw;
        named(g, in, list, &k, &nw);
        for (unsigned i = 0; i < k; i++) {
            const uint32_t r = list[i];
            if (r >= g->nslots)
                continue;
            if (i >= nw) {
                if (oi && (oi->flags & CVM_OPF_PLANE))
                    for (uint32_t w = 0; w < width_at(g, r) && r + w < g->nslots; w++)
                        no[r + w] = 1;
                continue;
            }
            const bool one = (in->h == CVM_OP_CONST || in->h == CVM_OP_PARAM) && in->line == 1 &&
                             width_at(g, r) == 1;
            const cvm_vm_dinsn *was = g->cst[r] ? &g->code[g->cst[r] - 1] : NULL;
            if (!one || (was && (was->h != in->h || was->elem != in->elem || was->imm != in->imm ||
                                 was->aux != in->aux))) {
                for (uint32_t w = 0; w < width_at(g, r) && r + w < g->nslots; w++)
                    no[r + w] = 1;
            } else {
                g->cst[r] = pc + 1;
            }
        }
    }
    for (uint32_t s = 0; s < g->nslots; s++)
        if (no[s])
            g->cst[s] = 0;
    free(no);
}

/* The facts of gen's `local`, `first_read`, `last_read`, `outer_lo/hi`. */
static void analyse(gen *g)
{
    const uint32_t n = g->kp->ninsns;
    uint32_t *seg = calloc(g->nslots + 1, sizeof *seg), depth = 0, lo = 1, hi = 0, cur = 1;
    if (!seg) {
        g->failed = g->again = true;
        snprintf(g->why, g->nwhy, "out of memory");
        return;
    }
    for (uint32_t s = 0; s < g->nslots; s++) {
        g->first_read[s] = UINT32_MAX;
        g->local[s] = g->slot_width[s] == 1; /* until an access says otherwise */
    }
    for (uint32_t pc = 0; pc < n; pc++) {
        const cvm_vm_dinsn *in = &g->code[pc];
        const cvm_bc_opinfo *oi = cvm_bc_op_info(in->h);
        const bool ctl = oi && (oi->flags & CVM_OPF_CTRL);
        /* a control instruction changes the mask after reading its
         * condition (if, break_if: the run before it), a barrier stops the
         * plane before it counts */
        const bool reads_in_run = in->h == CVM_OP_IF || in->h == CVM_OP_BREAK_IF;
        if ((ctl && !reads_in_run) || is_barrier(in->h))
            cur++;
        if (in->h == CVM_OP_LOOP && depth++ == 0)
            lo = pc, hi = in->end;
        else if (in->h == CVM_OP_END && pc == hi)
            depth = 0;
        else if (in->h == CVM_OP_END && depth && g->code[in->target].h == CVM_OP_LOOP)
            depth--;
        g->outer_lo[pc] = depth || pc == hi ? lo : 1;
        g->outer_hi[pc] = depth || pc == hi ? hi : 0;
        uint32_t list[CVM_BC_MAX_OPERANDS + 4];
        unsigned k, nw;
        named(g, in, list, &k, &nw);
        if (ctl && in->h != CVM_OP_IF && in->h != CVM_OP_BREAK_IF && in->h != CVM_OP_SWITCH)
            k = 0;
        /* an instruction reads its sources before it writes its
         * destination (named() lists the destination first); a plane op
         * reads other lanes, inactive ones too, so what it reads keeps
         * its inactive lanes as the interpreter does (decode.c
         * cross_lane) */
        const bool cross_lane = oi && (oi->flags & CVM_OPF_PLANE);
        for (unsigned j = 0; j < k; j++) {
            const unsigned i = j < k - nw ? nw + j : j - (k - nw);
            const uint32_t r = list[i];
            if (r >= g->nslots)
                continue;
            const bool write = i < nw;
            for (uint32_t w = 0; w < width_at(g, r) && r + w < g->nslots; w++) {
                const uint32_t t = r + w;
                if (!write) {
                    if (g->first_read[t] == UINT32_MAX)
                        g->first_read[t] = pc;
                    g->last_read[t] = pc;
                    if (cross_lane)
                        g->local[t] = 0;
                }
                if (!seg[t]) {
                    seg[t] = cur;
                    if (!write)
                        g->local[t] = 0; /* read before written here: may hold older values */
                } else if (seg[t] != cur) {
                    g->local[t] = 0;
                }
            }
        }
        if (ctl || is_barrier(in->h))
            cur++;
    }
    free(seg);
    constants(g);
}

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
    g->cval = calloc(g->nslots + 1, sizeof *g->cval);
    g->cbuf = calloc(8 * ((size_t)g->nslots + 1), sizeof *g->cbuf);
    g->first_read = calloc(g->nslots + 1, sizeof *g->first_read);
    g->last_read = calloc(g->nslots + 1, sizeof *g->last_read);
    g->outer_lo = calloc(g->kp->ninsns + 1, sizeof *g->outer_lo);
    g->outer_hi = calloc(g->kp->ninsns + 1, sizeof *g->outer_hi);
    g->form = calloc(g->nslots + 1, 1);
    g->fwd = calloc(g->nslots + 1, sizeof *g->fwd);
    if (!g->form || !g->fwd || !g->slot_elem || !g->slot_width || !g->slot || !g->local || !g->cst || !g->cval || !g->cbuf || !g->first_read ||
        !g->last_read || !g->outer_lo || !g->outer_hi)
        return false;
    uint32_t s = 0;
    for (uint32_t r = 0; r < k->nregs && s < g->nslots; r++) {
        unsigned line = k->regs[r].line ? k->regs[r].line : 1;
        g->slot_width[s] = (uint8_t)line;
        for (unsigned i = 0; i < line && s < g->nslots; i++)
            g->slot_elem[s++] = k->regs[r].elem;
    }
    return true;
}

typedef struct jit_handle {
    LLVMOrcResourceTrackerRef rt;
} jit_handle;

/* Frees a kernel's code and its tracker (an error removing it is dropped:
 * the memory stays with the JIT, nothing else depends on it). */
static void drop_tracker(LLVMOrcResourceTrackerRef rt)
{
    LLVMErrorRef e = llvm.OrcResourceTrackerRemove(rt);
    if (e)
        llvm.ConsumeError(e);
    llvm.OrcReleaseResourceTracker(rt);
}

static cvm_jit_fn compile(const cvm_vm_program *prog, const cvm_vm_kprog *kp, unsigned W,
                          void **out_handle, char *why, size_t n, bool *again)
{
    cvm_jit_fn fn = NULL;
    *out_handle = NULL;
    if (!cvm_llvm_start(why, n))
        return NULL;
    gen g = {.prog = prog, .kp = kp, .code = kp->code, .W = W, .why = why, .nwhy = n};
    if (!layout(&g)) {
        snprintf(why, n, "out of memory");
        g.again = true;
        goto out;
    }
    /* the registers live in the function's frame, on the stack of whatever
     * thread runs the cube: bounded here, and checked against the thread's
     * room before it runs (cvm_jit_stack_room) */
    analyse(&g);
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
    g.fn_step = llvm.ConstIntToPtr(llvm.ConstInt(g.i64, (uint64_t)(uintptr_t)&cvm_jit_step, false),
                                  llvm.PointerType(g.ty_step, 0));
    g.ty_backedge = llvm.FunctionType(g.i32, sp, 2, false);
    g.fn_backedge = llvm.ConstIntToPtr(llvm.ConstInt(g.i64, (uint64_t)(uintptr_t)&cvm_jit_backedge, false),
                                      llvm.PointerType(g.ty_backedge, 0));
    emit(&g);
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
    free(g.cval);
    free(g.cbuf);
    free(g.first_read);
    free(g.last_read);
    free(g.outer_lo);
    free(g.outer_hi);
    free(g.form);
    free(g.fwd);
    for (unsigned d = 0; d < MAXDEPTH; d++)
        free(g.snap[d]);
    free(g.res);
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
    void **handle;
    char *why;
    size_t n;
    bool again;
    cvm_jit_fn fn;
} job;

static void *compile_job(void *arg)
{
    job *j = arg;
    j->fn = compile(j->prog, j->kp, j->W, j->handle, j->why, j->n, &j->again);
    return NULL;
}

cvm_jit_fn cvm_jit_backend_compile(const cvm_vm_program *prog, const cvm_vm_kprog *kp, unsigned W,
                                   void **handle, char *why, size_t n, bool *again)
{
    job j = {prog, kp, W, handle, why, n, false, NULL};
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
