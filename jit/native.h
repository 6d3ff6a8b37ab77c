/*
 * native.h - the native tier's compiler, private to jit/: the state of one
 * kernel's code generation (gen), the small helpers every part uses, and
 * the parts' entry points. native.c drives it (registers, control flow,
 * loop versioning, the function, LLVM's JIT); native_ops.c compiles lane
 * ops, native_mem.c global and shared loads and stores, native_facts.c
 * the registers' facts found before any code is emitted. docs/design.md
 * "Tiers" says what the tier does; native.c's header how.
 */
#ifndef CVM_JIT_NATIVE_H
#define CVM_JIT_NATIVE_H

#include "backend.h"
#include "../vm/numerics.h"

#include "llvm.h"

#include <stddef.h>
#include <string.h>

enum { MAXDEPTH = CVM_BC_MAX_DEPTH };
enum { F_VAR = 0, F_UNI = 1, F_CONS = 2 }; /* fval kinds, loop versioning's guesses */
enum { MAXVERSIONED = 8 };                  /* registers a versioned loop tests */

/* A register a versioned loop tests at its head (native_loop.c). */
typedef struct vcand {
    uint32_t slot;
    uint8_t form;
    bool written;   /* by the loop */
    bool inductive; /* written, and its form kept by every round (induct) */
} vcand;

typedef struct construct {
    int kind;                 /* CVM_VM_F_* */
    uint32_t open;            /* pc of its opening instruction */
    LLVMBasicBlockRef next;   /* where an empty mask goes: the next marker */
    LLVMBasicBlockRef head;   /* loop: the body's first block */
    LLVMValueRef m[2];        /* i64 allocas: if m0 (pending lanes); loop m0 brk, m1 cont; block m0 */
    /* a versioned copy's loop: its candidates (found once, before its
     * head) and, for the inductive ones, an alloca of the scalar, stored
     * where the loop's top level writes it, read at the head */
    unsigned ncand;
    vcand cand[MAXVERSIONED];
    LLVMValueRef ind_at[MAXVERSIONED];
    /* a full-mask copy's construct (gen's full): it began with every lane
     * active (was_full); lanes left through it with others staying, so
     * its end has fewer (lost); lanes broke out of this loop with others
     * staying, so its continuing part has fewer (brk_partial); its `if`
     * tested one value with every lane active (uni) */
    bool was_full, lost, brk_partial, uni;
} construct;

/* What a register holds in every active lane where it is forwarded
 * (gen's fwd): v its vector; kind F_UNI, s its one value; F_CONS, s lane
 * 0's value and lane l's s + l; F_VAR only v. An F_VAR's form may be
 * known at run time instead (du not NULL): du, an i1, says its lanes are
 * ds, dc that lane l holds ds + l (a division by one value: an index
 * split into coordinates, native_ops.c cvm_nat_dyn_form). */
typedef struct fval {
    LLVMValueRef v, s;
    uint8_t kind;
    LLVMValueRef du, dc, ds;
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
    /* Compiled for cubes of rows (vm/jit.h cvm_jit_shape): a plane's
     * unit_pos.x is consecutive from its lane 0's, its .y and .z one
     * value (cvm_nat_sreg_form), facts of every launch that runs this code. */
    bool rows;
    /* Compiled for cubes of pairs of rows (cvm_jit_shape's
     * CVM_JIT_PAIRS): a plane's unit_pos.x is the constant lanes
     * l % (W / 2), its .y lane 0's plus l / (W / 2), its .z one value. */
    bool pairs;
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
    LLVMValueRef *slot;       /* per slot: alloca of <W x T>, or of T where puni (slot_type) */
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
    /* Per slot: the pc + 1 of its register's only writer when that
     * writer runs outside every construct (in all live lanes) and makes
     * it from unit positions and launch constants alone (rematerials():
     * an integer op, an integer conversion or a pointer add of `cst` and
     * `remat` registers written before it, or a per-lane position); 0 if
     * not, or it is plane-uniform (puni). A resume after that writer
     * makes one of 32-bit lanes again from its writers (remake,
     * remade_at) instead of reloading it: a softmax step's `threadIdx.x`
     * copies and the shared pointers made from them were four vectors
     * reloaded at each of its 16 barriers a row. The stops still store
     * it, so the file holds it as before. */
    uint32_t *remat;
    uint8_t *remade; /* remake's scratch: the slots it makes at one resume */
    LLVMValueRef *cval;       /* per slot with cst: its scalar, loaded once in the entry block */
    LLVMValueRef *cbuf;       /* per slot with cst and ld/st: its buffer (region), ditto: 4 values */
    uint32_t *first_read, *last_read; /* pcs (UINT32_MAX / 0: never read) */
    /* Per slot, in CSR form (slot s's entries from at[s] to at[s + 1]),
     * in increasing order: the pcs that read it (reads), and those that
     * write it outside every construct (kills: all live lanes run them,
     * so what the slot held before is never read again); live_at's
     * refinement (cvm_nat_written_first). */
    uint32_t *reads_at, *reads, *kills_at, *kills;
    uint32_t *first_touch;            /* the first pc that reads or writes it (UINT32_MAX: none) */
    /* Per slot: 0, or the pc + 1 of the write each round of the
     * innermost loop around its reads makes first, and that loop's END
     * (native_loop.c cvm_nat_fresh): outside [fresh, fresh_end] it is not
     * live (live_at). */
    uint32_t *fresh, *fresh_end;
    /* Per slot: 0, or it is written only outside loops and live across a
     * barrier after its first touch (settle()): then the pc of the last
     * stop (a barrier, or a loop whose head may yield) where it is live.
     * Each write before that pc is stored to the plane's register file at
     * once (write_through), so the file holds its value wherever the
     * plane stops, and a stop does not store it again. A softmax's row
     * pointers and unit coordinates, written once, were stored at each of
     * its 16 barriers a row. */
    uint32_t *settled;
    uint8_t *uni_settled; /* settled, and one value in every lane that is not exited */
    /* Per slot: the divergence analysis (bytecode/divergence.c) puts its
     * register in class PLANE or wider over the whole kernel: every write
     * runs in all of the plane's live lanes or in none, with one value, so
     * the lanes that are not exited always hold one value. Its alloca is
     * that scalar (slot_type): reads splat it and know its form, loops
     * and the plane's stops carry one scalar instead of a vector (a
     * reduction's `step`, a row pointer), and a resume reloads one lane. */
    uint8_t *puni;
    /* Per slot: trailing zero bits (64: none set) of every value it
     * holds, in every lane, over the whole kernel (cvm_nat_analyse's
     * aligned_slots): a shared access whose offsets' parts all have as
     * many as its alignment needs is not tested for it (matmul's
     * `ta[ty][kk]`, `4 * kk` plus `64 * ty`, twice a round of its loop). */
    uint8_t *tz;
    /* Per slot: a plane op reads it (its lanes, inactive ones too). */
    uint8_t *xlane;
    uint32_t *outer_lo, *outer_hi;    /* per pc: its outermost loop (lo > hi: none) */
    construct con[MAXDEPTH];
    unsigned depth;
    resume *res;
    unsigned nres, capres;
    LLVMBasicBlockRef entry, done, start;
    LLVMValueRef fn_step, fn_backedge, fn_chain;
    LLVMTypeRef ty_step, ty_backedge, ty_chain;
    /* cvm_jit_gather, _scatter, _load_run, _store_run (ty_lanes), and the frame's
     * buffers they read and write: W elements of up to 8 bytes (lane_vals)
     * and W addresses (lane_addr), made at the entry on first use */
    LLVMValueRef fn_gather, fn_scatter, fn_load_run, fn_store_run, lane_vals, lane_addr;
    LLVMTypeRef ty_lanes;
    /* The plane the code runs: the call's, or the one a barrier's arrival
     * went on with (cvm_jit_chain); `p` is this phi at the dispatch block,
     * which switches on the plane's pc. `chains` are the blocks that go
     * to it from an arrival. */
    LLVMBasicBlockRef dispatch;
    LLVMValueRef p_phi;
    LLVMBasicBlockRef *chains;
    unsigned nchains, capchains;
    /* Loop versioning (version_loop): per slot, a guess of its lanes'
     * form (F_*) at the loop being versioned. */
    uint8_t *form;
    /* Per slot: its form was guessed from unit_pos.y or .z (guess_forms);
     * strong_only: the candidates leave such registers out (the second
     * versioned copy, for cubes whose rows are narrower than a plane). */
    uint8_t *weak;
    bool strong_only;
    /* Per slot: what a lane op last wrote to it or a versioned loop's
     * head proved it holds, which its reads take (not the merge with its
     * inactive lanes) while no lane can have joined the active ones since
     * (rejoin, forget); cleared when anything else writes the slot. */
    fval *fwd;
    fval *snap[MAXDEPTH]; /* per open construct: fwd at its start (rejoin) */
    bool versioning;          /* emitting a versioned loop (either copy): no nested versioning */
    bool fastcopy;            /* emitting its versioned copy: resumes go to the general copy */
    /* Emitting a versioned copy entered, and its loop heads passed, only
     * with every lane of the plane active (fullcopy); full: here every
     * active lane is all of them, the mask a constant (docs/design.md
     * "Tiers", the full-mask copy). */
    bool fullcopy, full;
    uint32_t exit_if;         /* a full-mask copy of a grid-stride loop: its exit test's pc, taken whole (UINT32_MAX: none) */
    /* A versioned copy's lazy registers (native_loop.c cvm_nat_lazy): per
     * slot, the pc + 1 of the loop that alone writes it, at its top level
     * and first in each round, and alone reads it (0: none). While that
     * loop is emitted, `stale` is the depth of its body (0: not stale): a
     * write there stores nothing to the slot's alloca, whose lanes may
     * then be behind, and every read takes the forwarded value (reg_raw),
     * which holds in each lane that will read it. Pooling's column was
     * merged into a vector each round for a yield that seldom comes. */
    uint32_t *lazy;
    uint8_t *stale;
    /* Per slot: 1 where the float arithmetic that writes it leaves its
     * NaNs as the hardware made them, and they become the canonical NaN
     * (docs/numerics.md) only where a value leaves the plane's vectors:
     * a store, the register file (spills, the interpreter's operands).
     * raw_nans() decides it: every writer is float arithmetic (add, sub,
     * mul, div, fma, sqrt, exp: results the VM defines as canonical, so
     * making them so later gives the same bits), every reader either
     * cares only whether a value is NaN (that arithmetic, min/max,
     * compares) or is a store, and the stores lie in fewer loops than
     * every writer: an accumulator (`s += x[i]`, `acc += a * b`) is made
     * canonical once, after its loop, not at each round. */
    uint8_t *raw_nan;
    /* Per slot: a float register no lane of which ever holds a NaN
     * (no_nans(): its writers are constants that are numbers, and moves,
     * negations, min and max of such registers, a min or max with one
     * such operand included: pooling's `m = fmaxf(m, v)` from -inf), so
     * that min/max need not test it for NaN (native_ops.c fminmax). */
    uint8_t *no_nan;
} gen;

/* The scalar of a register whose only writer is a launch constant (gen's
 * cst), computed once in the function's entry block. */
LLVMValueRef cvm_nat_cst_scalar(const gen *g, uint32_t slot);

/* The value of a `const` or `param` instruction (one lane's). */
LLVMValueRef cvm_nat_launch_scalar(const gen *g, const cvm_vm_dinsn *in);

/* The outermost loop around pc, [*lo, *hi]; false if none. */
static inline bool outer_loop(const gen *g, uint32_t pc, uint32_t *lo, uint32_t *hi)
{
    *lo = pc < g->kp->ninsns ? g->outer_lo[pc] : 1;
    *hi = pc < g->kp->ninsns ? g->outer_hi[pc] : 0;
    return *lo <= *hi;
}

/* Whether slot s is written outside every construct after pc before any
 * read from pc `from` on (native_facts.c). */
bool cvm_nat_written_first(const gen *g, uint32_t s, uint32_t from, uint32_t pc);

/* The pc of the last instruction before pc, in pc's straight run of code
 * (no control instruction or barrier between), that writes slot r;
 * UINT32_MAX if none does (native_facts.c). */
uint32_t cvm_nat_run_writer(const gen *g, uint32_t pc, uint32_t r);

/* The integer constant slot k holds at pc, sign-extended from its width
 * (*v), if it has one: a `const` in pc's run of code writes it, or its
 * only writer is a `const` (gen's cst; at pc 0 only that). */
bool cvm_nat_const_at(const gen *g, uint32_t pc, uint32_t k, int64_t *v);

/* Whether slot r holds, at pc, the value instruction w (in pc's run,
 * w < pc) read from it: nothing from w on, w included, writes it (as
 * `ptr.add p, p, off` does). */
bool cvm_nat_kept(const gen *g, uint32_t w, uint32_t pc, uint32_t r);

/* A full-mask copy's loop exit test `if c` (gen's exit_if; native_loop.c) whose c is,
 * in the test's run and through `not`s, a 32-bit integer order compare
 * of consecutive lanes (s + l) with one value t: over the plane the lanes
 * step by one without wrapping when s + W - 1 does not pass the type's
 * largest value, and then c holds in every lane, or in none, as it holds
 * at both ends. Returns that test (i1), *all whether every lane holds c;
 * NULL where c is not such a compare. A grid-stride round built i's
 * lanes and a 32-bit mask from their compare (18 instructions, AVX2) only
 * to find all of them or none. */
LLVMValueRef cvm_nat_exit_scalar(gen *g, uint32_t pc, LLVMValueRef *all);

/* The lanes where the test `if c` at pc holds, as a 64-bit mask (not
 * yet limited to the active ones), where c is the compare that
 * cvm_nat_exit_scalar takes and its consecutive lanes are positions,
 * which cannot wrap (in cubes of rows a remat register of
 * `threadIdx.x` counts too): a count of lanes from one end, in scalars.
 * NULL where c is not such a compare. A reduction step's `threadIdx.x <
 * step` took a compare of four vectors, their packing and a movemask
 * (AVX2, 32 lanes) in each plane at each of its steps, most of them
 * with no lane passing. (For consecutive lanes that might wrap, a test
 * of that with the vector compare on the other path cost more than the
 * vector alone: 3.7% more in softmax, whose loop tests compare `j` with
 * `cols`; LLVM made the two paths one unless the branch was weighted.) */
LLVMValueRef cvm_nat_consec_mask(gen *g, uint32_t pc);

/* A special register's form and its scalar, or its lanes (native_ops.c). */
uint8_t cvm_nat_sreg_form(const gen *g, unsigned id, LLVMValueRef *s);

/* Whether slot i is written again before any read after the plane stops
 * and resumes at pc, by the first write of a loop round (gen's fresh). */
static inline bool renewed_at(const gen *g, uint32_t i, uint32_t pc)
{
    return g->fresh[i] && (pc < g->fresh[i] || pc > g->fresh_end[i]);
}

/* Whether slot i may be read after the plane stops and resumes at pc:
 * read at or after pc, or anywhere in the outermost loop around pc (its
 * next round reads it), and not written outside every construct before
 * that read (softmax's `m`, reloaded from shared memory after the
 * reduction loop whose barriers it crossed), nor renewed; local
 * registers never are. */
static inline bool live_at(const gen *g, uint32_t i, uint32_t pc)
{
    if (g->local[i] || g->first_read[i] == UINT32_MAX || renewed_at(g, i, pc))
        return false;
    uint32_t lo, hi;
    const bool loop = outer_loop(g, pc, &lo, &hi);
    if (g->last_read[i] < pc && !(loop && g->last_read[i] >= lo && g->first_read[i] <= hi))
        return false;
    return !cvm_nat_written_first(g, i, loop ? lo : pc, pc);
}

/* native_facts.c: gen's facts of the kernel's registers (local,
 * first_read, last_read, first_touch, outer_lo/hi, fresh, cst, settled,
 * uni_settled, raw_nan); out of memory: gen's failed and again. */
void cvm_nat_analyse(gen *g);

/* native.c: the plane function's code into g->fn (its blocks, the
 * resume points' dispatch, every instruction); a kernel it cannot
 * compile sets gen's failed and why (native_compile.c runs it). */
void cvm_nat_emit(gen *g);

/* The register operands (first slots) instruction `in` names, in its
 * format's order: the destination first when it has one (*nw: 0 or 1). */
void cvm_nat_named(const gen *g, const cvm_vm_dinsn *in, uint32_t *list, unsigned *n, unsigned *nw);
/* An alloca of type t at the start of the function's entry block (so
 * that LLVM promotes or places it once), the builder left where it was. */
LLVMValueRef cvm_nat_entry_alloca(gen *g, LLVMTypeRef t, const char *name);

/* Runs instruction pc through the interpreter on the registers it names,
 * spilled around the call; a barrier that waits suspends the plane with
 * its resume point at pc + 1. */
void cvm_nat_fallback(gen *g, uint32_t pc);

/* native_ops.c: v with its NaN lanes made the canonical NaN of elem (f32 or f64). */
LLVMValueRef cvm_nat_canon_nan(const gen *g, LLVMValueRef v, unsigned elem);

/* native_mem.c: a line-1 ld or st of global or shared memory. */
void cvm_nat_memory(gen *g, uint32_t pc);
/* Whether the ptr.add at pc is left to the one shared access that reads
 * it, which makes its lanes only on the path that needs them (native_mem.c). */
bool cvm_nat_deferred_add(const gen *g, uint32_t pc);

/* native_ops.c: integer div or rem inline where its lanes allow (false:
 * not such an op), and every other lane op it compiles (false: the caller
 * runs it through the interpreter). */
bool cvm_nat_divide(gen *g, uint32_t pc);
bool cvm_nat_lane_op(gen *g, const cvm_vm_dinsn *in);
/* The lanes a ptr.add makes from its operands (native_ops.c). */
LLVMValueRef cvm_nat_ptr_add(const gen *g, const cvm_vm_dinsn *in);
/* The one LLVM instruction a cvt kind is (native_ops.c; NONE: it is not
 * one, the interpreter runs it). */
enum {
    CVM_NAT_CVT_NONE, CVM_NAT_CVT_COPY, CVM_NAT_CVT_TRUNC, CVM_NAT_CVT_SEXT, CVM_NAT_CVT_ZEXT,
    CVM_NAT_CVT_SITOFP, CVM_NAT_CVT_UITOFP, CVM_NAT_CVT_FPEXT
};
unsigned cvm_nat_cvt_class(unsigned k);
/* The form of what in writes from operands of forms fa, fb in g's code (native_ops.c). */
uint8_t cvm_nat_form_rule(const gen *g, const cvm_vm_dinsn *in, uint8_t fa, uint8_t fb);

/* native_loop.c: the slot instruction `in` writes (UINT32_MAX: none);
 * whether loop lo (its LOOP's pc) may be versioned at all (no barrier,
 * not too long); the registers it reads whose forms a versioned copy
 * tests at its head, at most MAXVERSIONED, into cand (their count: 0
 * too where it may not be versioned). */
uint32_t cvm_nat_dest_slot(const gen *g, const cvm_vm_dinsn *in);
bool cvm_nat_loop_versionable(const gen *g, uint32_t lo);
/* The pc of loop lo's exit test, when its body begins with one: ops
 * that make values from their operands alone (no memory, no fault),
 * each reading nothing that it or a later one of them writes, then `if c
 * break end` (a CUDA `for` or `while` head). A full-mask copy takes that
 * exit with all lanes or none; where the lanes differ, the plane goes on
 * in the general copy at the loop's head, whose rerun of those ops makes
 * the same values (jit/native.c control). UINT32_MAX: none. */
uint32_t cvm_nat_loop_exit(const gen *g, uint32_t lo);
/* Whether every global access in loop lo is at a launch-constant
 * pointer (its buffer looked up once, at the function's entry), or at
 * one plus an offset. (A full-mask copy's loop with an exit test does
 * not rotate, its head leaving by two edges, and LLVM then keeps the
 * buffer lookup of another pointer in every round: softmax's `row[j]`.) */
bool cvm_nat_loop_fixed_buffers(const gen *g, uint32_t lo);
unsigned cvm_nat_loop_candidates(gen *g, uint32_t lo, vcand *cand);
/* The registers loop lo of a versioned copy may leave behind in their
 * allocas: gen's lazy. */
void cvm_nat_lazy(gen *g, uint32_t lo);
/* gen's fresh and fresh_end (called by cvm_nat_analyse). */
void cvm_nat_fresh(gen *g);

/* Scalar LLVM type of an element type (bools are bytes 0/1, 16-bit floats their bits). */
static inline LLVMTypeRef scalar(const gen *g, unsigned elem)
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

static inline LLVMTypeRef vec(const gen *g, unsigned elem)
{
    return llvm.VectorType(scalar(g, elem), g->W);
}

static inline LLVMValueRef c32(const gen *g, uint64_t v) { return llvm.ConstInt(g->i32, v, false); }

static inline LLVMValueRef c64(const gen *g, uint64_t v) { return llvm.ConstInt(g->i64, v, false); }

static inline LLVMValueRef splat(const gen *g, LLVMValueRef s)
{
    LLVMTypeRef vt = llvm.VectorType(llvm.TypeOf(s), g->W);
    LLVMValueRef v = llvm.BuildInsertElement(g->B, llvm.GetUndef(vt), s, c32(g, 0), "");
    return llvm.BuildShuffleVector(g->B, v, llvm.GetUndef(vt),
                                  llvm.ConstNull(llvm.VectorType(g->i32, g->W)), "");
}

/* The vector <0, 1, ..., W-1> of type t (an integer type). */
static inline LLVMValueRef iota(const gen *g, LLVMTypeRef t)
{
    LLVMValueRef e[CVM_BC_MAX_PLANE];
    for (unsigned l = 0; l < g->W; l++)
        e[l] = llvm.ConstInt(t, l, false);
    return llvm.ConstVector(e, g->W);
}

/* Pointer to byte `off` of the record at base (i8*), as a pointer to t. */
static inline LLVMValueRef field(const gen *g, LLVMValueRef base, size_t off, LLVMTypeRef t)
{
    LLVMValueRef idx = c64(g, off);
    LLVMValueRef at = llvm.BuildGEP2(g->B, g->i8, base, &idx, 1, "");
    return llvm.BuildBitCast(g->B, at, llvm.PointerType(t, 0), "");
}

static inline LLVMValueRef load(const gen *g, LLVMValueRef base, size_t off, LLVMTypeRef t)
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
static inline LLVMValueRef fixed(const gen *g, LLVMValueRef ld)
{
    llvm.SetMetadata(ld, llvm.GetMDKindIDInContext(g->C, "invariant.load", 14), llvm.MDNodeInContext(g->C, NULL, 0));
    return ld;
}

static inline LLVMValueRef load_fixed(const gen *g, LLVMValueRef base, size_t off, LLVMTypeRef t)
{
    return fixed(g, load(g, base, off, t));
}

static inline void store(const gen *g, LLVMValueRef v, LLVMValueRef base, size_t off)
{
    llvm.BuildStore(g->B, v, field(g, base, off, llvm.TypeOf(v)));
}

static inline LLVMValueRef get_active(const gen *g)
{
    return llvm.BuildLoad2(g->B, g->i64, g->active, "act");
}

static inline void set_active(const gen *g, LLVMValueRef v)
{
    llvm.BuildStore(g->B, v, g->active);
}

/* The active mask as W lanes of i1. With AVX-512's mask registers a
 * bitcast (one kmov); without them LLVM 14 lowers that bitcast to a shift,
 * an and and an insert per lane (about a hundred instructions for 32
 * lanes), so there each lane tests its bit of the broadcast mask: a
 * broadcast, an and and a compare per vector register. */
static inline LLVMValueRef lane_mask(const gen *g, LLVMValueRef act)
{
    if (cvm_llvm_avx512)
        return llvm.BuildBitCast(g->B, llvm.BuildTrunc(g->B, act, g->iW, ""), g->vmask, "");
    LLVMTypeRef t = g->W > 32 ? g->i64 : g->i32;
    LLVMValueRef bit[CVM_BC_MAX_PLANE];
    for (unsigned l = 0; l < g->W; l++)
        bit[l] = llvm.ConstInt(t, UINT64_C(1) << l, false);
    LLVMValueRef a = splat(g, g->W > 32 ? act : llvm.BuildTrunc(g->B, act, g->i32, ""));
    LLVMValueRef b = llvm.BuildAnd(g->B, a, llvm.ConstVector(bit, g->W), "");
    return llvm.BuildICmp(g->B, LLVMIntNE, b, llvm.ConstNull(llvm.TypeOf(b)), "");
}

/* The mask of every one of the W lanes. */
static inline LLVMValueRef full_mask(const gen *g)
{
    return c64(g, g->W >= 64 ? UINT64_MAX : (UINT64_C(1) << g->W) - 1);
}

/* Whether mask act holds every one of the W lanes. */
static inline LLVMValueRef all_lanes(const gen *g, LLVMValueRef act)
{
    return llvm.BuildICmp(g->B, LLVMIntEQ, act, full_mask(g), "");
}

/* Bits of the lanes where i1 vector v holds, as a 64-bit mask. */
static inline LLVMValueRef mask_bits(const gen *g, LLVMValueRef v)
{
    return llvm.BuildZExt(g->B, llvm.BuildBitCast(g->B, v, g->iW, ""), g->i64, "");
}

static inline LLVMValueRef intrinsic(const gen *g, const char *name, LLVMTypeRef *types, unsigned nt,
                              LLVMValueRef *args, unsigned na)
{
    unsigned id = llvm.LookupIntrinsicID(name, strlen(name));
    LLVMValueRef f = llvm.GetIntrinsicDeclaration(g->M, id, types, nt);
    LLVMTypeRef ft = llvm.IntrinsicGetType(g->C, id, types, nt);
    return llvm.BuildCall2(g->B, ft, f, args, na, "");
}

/* The first lane of mask act as an i32 (0 when act is empty: an index
 * that an extractelement may take). */
static inline LLVMValueRef first_lane(const gen *g, LLVMValueRef act)
{
    LLVMValueRef f = llvm.BuildTrunc(g->B, intrinsic(g, "llvm.cttz", (LLVMTypeRef[]){g->i64}, 1,
                                                     (LLVMValueRef[]){act, llvm.ConstInt(g->i1, 0, false)}, 2),
                                     g->i32, "");
    return llvm.BuildSelect(g->B, llvm.BuildICmp(g->B, LLVMIntULT, f, c32(g, g->W), ""), f, c32(g, 0), "");
}

/* The type of slot's alloca: a vector of its lanes, or one scalar for a
 * plane-uniform slot (gen's puni). */
static inline LLVMTypeRef slot_type(const gen *g, uint32_t slot)
{
    return g->puni[slot] ? scalar(g, g->slot_elem[slot]) : vec(g, g->slot_elem[slot]);
}

/* Stores v, the slot's lanes as they are now, to its alloca; a
 * plane-uniform slot keeps its first active lane's value, or its old one
 * where no lane is active (all live lanes write it or none). */
static inline void slot_put(const gen *g, uint32_t slot, LLVMValueRef v)
{
    if (g->puni[slot]) {
        LLVMValueRef act = get_active(g);
        LLVMValueRef old = llvm.BuildLoad2(g->B, slot_type(g, slot), g->slot[slot], "");
        LLVMValueRef nv = llvm.BuildExtractElement(g->B, v, first_lane(g, act), "");
        v = llvm.BuildSelect(g->B, llvm.BuildICmp(g->B, LLVMIntNE, act, c64(g, 0), ""), nv, old, "");
    }
    llvm.BuildStore(g->B, v, g->slot[slot]);
}

/* Slot's value; a launch constant's (cst) is its scalar in every lane, so
 * that LLVM sees the constant (or the one parameter) at every read, not a
 * phi of the stores around the plane's stops; a plane-uniform slot's, its
 * scalar in every lane. */
static inline LLVMValueRef reg_raw(const gen *g, uint32_t slot)
{
    if (g->cst[slot])
        return splat(g, cvm_nat_cst_scalar(g, slot));
    if (g->stale[slot] && g->fwd[slot].v) /* (its alloca may be behind) */
        return g->fwd[slot].v;
    LLVMValueRef v = llvm.BuildLoad2(g->B, slot_type(g, slot), g->slot[slot], "");
    return g->puni[slot] ? splat(g, v) : v;
}

/* Slot's value as a lane op reads it: the forwarded value where there
 * is one, which its inactive lanes need not hold: what writes all lanes
 * (spills, reg_set's merge) uses reg_raw. */
static inline LLVMValueRef reg_get(const gen *g, uint32_t slot)
{
    if (g->fwd[slot].v)
        return g->fwd[slot].v;
    return reg_raw(g, slot);
}

/* Slot's form where it is known (a launch constant, or forwarded): *s
 * its scalar (fval). */
static inline uint8_t form_at(const gen *g, uint32_t slot, LLVMValueRef *s)
{
    if (slot >= g->nslots)
        return F_VAR;
    if (g->cst[slot]) {
        *s = cvm_nat_cst_scalar(g, slot);
        return F_UNI;
    }
    if (g->puni[slot] && !g->stale[slot] && !(g->fwd[slot].v && g->fwd[slot].kind == F_UNI)) {
        *s = llvm.BuildLoad2(g->B, slot_type(g, slot), g->slot[slot], "");
        return F_UNI;
    }
    *s = g->fwd[slot].s;
    return g->fwd[slot].v ? g->fwd[slot].kind : F_VAR;
}

/* Slot's form as run-time scalars (fval's du, dc, ds), from its form
 * where one is known (constant flags) or its forwarded du; false where
 * nothing is known (native_ops.c). */
bool cvm_nat_dyn_form(const gen *g, uint32_t slot, LLVMValueRef *u, LLVMValueRef *c, LLVMValueRef *s);

/* The lanes of form kind with scalar s (fval). */
static inline LLVMValueRef form_vector(const gen *g, uint8_t kind, LLVMValueRef s)
{
    return kind == F_UNI ? splat(g, s) : llvm.BuildAdd(g->B, splat(g, s), iota(g, llvm.TypeOf(s)), "");
}

/* Slot's lanes as reg_get reads them, made here from its form where one
 * is known (a launch constant, or forwarded one value or consecutive):
 * for code off the common path, so that the vector the form's writer made
 * is not live on that path only to reach this one. The scalar is frozen
 * (the same value) so that LLVM does not merge the copy back into the
 * writer's vector: pooling's full planes computed a 64-bit index vector
 * each round for the partial path alone. */
static inline LLVMValueRef reg_made(const gen *g, uint32_t slot)
{
    LLVMValueRef s;
    const uint8_t k = form_at(g, slot, &s);
    return k == F_VAR ? reg_get(g, slot) : form_vector(g, k, llvm.BuildFreeze(g->B, s, ""));
}

/* Forwards v (kind F_VAR), or the lanes of form kind with scalar s (v NULL: made here), in slot. */
static inline void forward(const gen *g, uint32_t slot, uint8_t kind, LLVMValueRef s, LLVMValueRef v)
{
    g->fwd[slot] = (fval){v ? v : form_vector(g, kind, s), s, kind, NULL, NULL, NULL};
}

/* Forwards v (kind F_VAR) with its form known at run time (fval's du, dc, ds). */
static inline void forward_dyn(const gen *g, uint32_t slot, LLVMValueRef v, LLVMValueRef du, LLVMValueRef dc,
                               LLVMValueRef ds)
{
    g->fwd[slot] = (fval){v, NULL, F_VAR, du, dc, ds};
}

/* Writes v to the active lanes of slot (forwarded only, for a lazy
 * register at its loop's top level: gen's stale). */
static inline void reg_set(const gen *g, uint32_t slot, LLVMValueRef v)
{
    g->fwd[slot] = (fval){0};
    if (g->local[slot]) {
        slot_put(g, slot, v);
        return;
    }
    if (g->stale[slot] && g->stale[slot] == g->depth) { /* a lazy register at its loop's top level */
        g->fwd[slot] = (fval){v, NULL, F_VAR, NULL, NULL, NULL};
        return;
    }
    if (g->puni[slot]) { /* (no merge: its live lanes hold one value) */
        slot_put(g, slot, v);
        return;
    }
    if (g->depth == 0 && !g->xlane[slot]) {
        /* outside every construct the lanes not active are exited (or
         * missing from the cube) for good, and only a plane op might
         * read them (a shuffle from one faults): no merge; frozen, so
         * that what the op made there (undefined for LLVM: a masked
         * load's other lanes) stays a value. Transpose's per-plane set-up
         * merged each index vector with the old one under the mask. */
        slot_put(g, slot, llvm.BuildFreeze(g->B, v, ""));
        return;
    }
    LLVMValueRef old = reg_raw(g, slot);
    LLVMValueRef m = lane_mask(g, get_active(g));
    llvm.BuildStore(g->B, llvm.BuildSelect(g->B, m, v, old, ""), g->slot[slot]);
}

/* Slot's value as it leaves the plane's vectors (a store's value, the
 * register file): reg_get, or reg_raw for all lanes, with canonical NaNs
 * where the slot may hold the hardware's (gen's raw_nan). */
static inline LLVMValueRef reg_out(const gen *g, uint32_t slot, bool all_lanes)
{
    LLVMValueRef v = all_lanes ? reg_raw(g, slot) : reg_get(g, slot);
    return g->raw_nan[slot] ? cvm_nat_canon_nan(g, v, g->slot_elem[slot]) : v;
}

/* The register starting at first slot s: its width in slots. */
static inline uint32_t width_at(const gen *g, uint32_t s)
{
    return s < g->nslots && g->slot_width[s] ? g->slot_width[s] : 1;
}

static inline LLVMBasicBlockRef block(const gen *g, const char *name)
{
    return llvm.AppendBasicBlockInContext(g->C, g->fn, name);
}

static inline bool is_float(unsigned e) { return e == CVM_T_F32 || e == CVM_T_F64; }

static inline bool is_int(unsigned e) { return cvm_bc_elem_is_int(e); }

static inline bool is_signed(unsigned e) { return cvm_bc_elem_is_signed(e); }

static inline bool is_barrier(unsigned h)
{
    const cvm_bc_opinfo *oi = cvm_bc_op_info(h);
    return oi && (oi->flags & CVM_OPF_BARRIER);
}

#endif
