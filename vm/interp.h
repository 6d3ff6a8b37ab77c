/*
 * interp.h - internal structures of the CPU plane interpreter (vm/interp*.c,
 * vm/decode.c), behind vm/exec.h.
 *
 * decode.c turns each verified kernel into an array of cvm_vm_dinsn (one per
 * instruction: handler, types, register slots, resolved control targets and
 * construct-stack indexes). interp.c runs a launch cube by cube: it owns the
 * plane records, the per-cube scheduler, barriers and fault reports.
 * interp_run.c is the dispatch loop; interp_mem.c memory and atomics;
 * interp_plane.c plane ops, conversions and print.
 *
 * Register layout: every register of line N owns N consecutive "slots"; a
 * slot is a region of rb bytes (rb = 8 * a power-of-two lane count >= W,
 * so at least 64 bytes and 64-byte aligned) holding one element per lane as
 * a packed typed array: element type T at lane l is ((T *)region)[l].
 * Bools are one byte 0/1, f16/bf16 their bit patterns, ptr.global 8 bytes,
 * the 32-bit pointer spaces 4 bytes.
 */
#ifndef CVM_VM_INTERP_H
#define CVM_VM_INTERP_H

#include "exec.h"

/*
 * The opcodes this interpreter executes, each with a handler in
 * interp_run.c (the label table and decode.c's support check expand this
 * one list). An ops.def row missing here is rejected by
 * cvm_vm_program_build with CVM_UNSUPPORTED naming the op.
 */
#define CVM_VM_HANDLED(X) \
    X(NOP) X(IF) X(ELSE) X(END) X(LOOP) X(CONTINUING) X(BREAK_IF) X(BREAK) X(CONTINUE) \
    X(SWITCH) X(CASE) X(DEFAULT) X(FALLTHROUGH) X(BLOCK) X(EXIT) X(RETURN) X(MOV) X(CONST) \
    X(PARAM) X(SYM) X(SREG) X(SELECT) X(EXTRACT) X(INSERT) X(BUILD) X(SPLAT) X(ADD) X(SUB) \
    X(MUL) X(DIV) X(REM) X(MIN) X(MAX) X(NEG) X(ABS) X(FMA) X(MAD) X(MULHI) X(CLAMP) X(SQRT) \
    X(RSQRT) X(RCP) X(EXP) X(EXP2) X(EXPM1) X(LOG) X(LOG2) X(LOG10) X(LOG1P) X(SIN) X(COS) \
    X(TAN) X(ASIN) X(ACOS) X(ATAN) X(ATAN2) X(SINH) X(COSH) X(TANH) X(POW) X(ERF) X(ERFC) \
    X(CBRT) X(HYPOT) X(FLOOR) X(CEIL) X(TRUNC) X(ROUND) X(RINT) X(COPYSIGN) X(EQ) X(NE) \
    X(LT) X(LE) X(GT) X(GE) X(ISNAN) X(ISINF) X(ISFINITE) X(AND) X(OR) X(XOR) X(NOT) X(SHL) \
    X(SHR) X(POPC) X(CLZ) X(CTZ) X(BREV) X(CVT) X(BITCAST) X(PTR_ADD) X(PTR_DIFF) X(LD) \
    X(ST) X(LD_VOLATILE) X(ST_VOLATILE) X(LD_ATOMIC) X(ST_ATOMIC) X(ATOM_ADD) X(ATOM_SUB) \
    X(ATOM_MIN) X(ATOM_MAX) X(ATOM_AND) X(ATOM_OR) X(ATOM_XOR) X(ATOM_EXCH) X(ATOM_INC) \
    X(ATOM_DEC) X(ATOM_CAS) X(FENCE) X(SYNC_CUBE) X(SYNC_CUBE_COUNT) X(SYNC_CUBE_AND) \
    X(SYNC_CUBE_OR) X(BAR_SYNC) X(BAR_ARRIVE) X(SYNC_PLANE) X(ACTIVEMASK) X(SHFL_IDX) \
    X(SHFL_UP) X(SHFL_DOWN) X(SHFL_XOR) X(VOTE_ALL) X(VOTE_ANY) X(VOTE_BALLOT) X(REDUCE_ADD) \
    X(REDUCE_MIN) X(REDUCE_MAX) X(REDUCE_AND) X(REDUCE_OR) X(REDUCE_XOR) X(SCAN_ADD) \
    X(EXSCAN_ADD) X(MATCH_ANY) X(MATCH_ALL) X(ASSERT) X(TRAP) X(PRINT)

/* Handlers: every opcode is its own handler; FINISH is the implicit end of
 * a kernel's code (lanes still active there leave as if by return). The
 * fused handlers below only appear in a kernel's `fast` code (fuse.c),
 * each at the first pc of the instruction sequence it replaces. */
#define CVM_VM_H_FINISH CVM_OP_LIMIT
/* d = a + ext(b) * imm, for `[cvt.i64 v, x] const.i64 s, S; mul.i64 u, v, s;
 * ptr.add p, base, u`: k is a CVM_VM_IX_* extension, n the shift when S is
 * a power of two (k | CVM_VM_IX_SHIFT), target the pc after the sequence. */
#define CVM_VM_H_INDEX (CVM_OP_LIMIT + 1)
/* (INDEX's end: the pc of the plain ld/st right after that is the only
 * reader of d, else UINT32_MAX; interp_lockstep.c indexed.) */
/* d = ext(a) op ext(b) on 64-bit integers (op in c: add or mul), for
 * `cvt.i64 t, x` (sign extension of an i32) folded into the add or mul
 * that reads t: k bit 0 extends a, bit 1 extends b; target as above. */
#define CVM_VM_H_ARITH64 (CVM_OP_LIMIT + 2)
/* A compare (or two, joined by and/or; optionally negated) feeding an if,
 * or an `if; break|continue; end`: the compares are read from the exact
 * code at pcs a and b (b = UINT32_MAX: one compare), c is the joining op,
 * k the negation, end the if's pc, n a CVM_VM_CB_* form, target the pc
 * after the `end` of the break and continue forms. */
#define CVM_VM_H_CMPBR (CVM_OP_LIMIT + 3)
/* d = a % b and c = a / b of integers, at the pc of a `rem d, a, b` that a
 * `div c, a, b'` follows within four instructions (b' = b, or a cvt of the
 * same source as b's), or of such a div that such a rem follows (k = 1);
 * the second one's pc holds a nop; target is pc + 1. */
#define CVM_VM_H_DIVREM (CVM_OP_LIMIT + 4)
/* d = a + b * c of f32 or f64, for `mul t, b, c; add d, a, t` (or `add d,
 * t, a`), t read by the add alone: rounded twice, as the two are (no
 * contraction: -ffp-contract=off), a NaN the canonical one as the add's
 * is; target is pc + 2. */
#define CVM_VM_H_MULADD (CVM_OP_LIMIT + 5)
#define CVM_VM_NHANDLERS (CVM_OP_LIMIT + 6)

enum { CVM_VM_IX_I64 = 0, CVM_VM_IX_SEXT32 = 1, CVM_VM_IX_ZEXT32 = 2, CVM_VM_IX_SHIFT = 4 };
/* dinsn.uni bits. PLANE: every source holds one value in all active lanes
 * of a plane (the plane interpreter computes one lane and fills the
 * others). A, B: source a, or b, does (lockstep reads it once per plane
 * where that pays: a 64-bit multiply by it). Of decode's fused handlers,
 * ARITH64 carries A and B (of a folded cvt's source), CMPBR CUBE (below),
 * INDEX UNIT_X_B and CUBE_A (its base's), DIVREM none; an op that
 * fuse_mov gave the copy's destination keeps its own. CUBE: a one-element
 * lane op (decode.h cvm_vm_uniform_candidate) whose register sources all hold
 * one value in every active lane of the cube (class CUBE or GRID), or a
 * compare fuse.c loop_counters proved to read such values at a loop's
 * head; a CMPBR has it when all of its compares do, and lockstep then
 * tests one lane for all planes. STEP: the same but for its own
 * destination register among the sources (a loop counter's increment).
 * CUBE_A, CUBE_B: source a, or b, has class CUBE or GRID. UNIT_X_B (an INDEX's): the lanes of its index register b that
 * read it hold consecutive values in each plane (lane l the plane's lane
 * 0 value plus l, in b's type) wherever cube_dim.x is a multiple of 32
 * (fuse.c plane_consecutive: u + unit_pos.x, u one value in the cube,
 * or a loop's counter from it stepped by such values); in a cube that is
 * one row, with its planes in one round (synced), planes 0, 1, ... then
 * go on from one another (interp_lockstep.c indexed, row_indexed). */
enum {
    CVM_VM_UNI_PLANE = 1,
    CVM_VM_UNI_A = 2,
    CVM_VM_UNI_B = 4,
    CVM_VM_UNI_CUBE = 8,
    CVM_VM_UNI_STEP = 16,
    CVM_VM_UNI_CUBE_A = 32,
    CVM_VM_UNI_CUBE_B = 64,
    CVM_VM_UNI_UNIT_X_B = 128
};
enum { CVM_VM_CB_IF = 0, CVM_VM_CB_BREAK = 1, CVM_VM_CB_CONTINUE = 2 };

/* A pre-decoded instruction. */
typedef struct cvm_vm_dinsn {
    uint16_t h;          /* handler: opcode or CVM_VM_H_FINISH */
    uint8_t elem, line;  /* instruction type */
    uint8_t ea, eb, ec;  /* element types of source registers a, b, c */
    uint8_t la, lc;      /* lines of source registers a and c */
    uint8_t order, scope, align_log2;
    uint8_t ed;          /* element type of the destination register */
    uint8_t uni;         /* CVM_VM_UNI_* bits (decode.c, fuse.c) */
    uint8_t k;           /* handler variant chosen at decode (cvt: CVM_VM_CVT_*) */
    uint8_t esz;         /* bytes of one element of the instruction type */
    uint8_t a_fixed;     /* register a is filled once per launch (fuse.c presettable) */
    uint8_t late;        /* an INDEX whose address the ld or st at `end` computes, and that
                          * ld or st (its `end`: the INDEX's pc); kp->fast only */
    uint32_t d, a, b, c; /* register slot indexes (first slot of the register) */
    uint32_t target;     /* control: pc of the next marker (see decode.c) */
    uint32_t end;        /* control: pc of the construct's end */
    uint32_t aux;        /* stack index, element index, parameter, sreg, symbol, ... */
    uint32_t n;          /* entries behind ptr */
    uint64_t imm;        /* constant bits, parameter byte offset */
    const void *ptr;     /* string, case values (uint64_t), argument list (cvm_vm_arg) */
} cvm_vm_dinsn;

/* One register operand of a variable-length list (build, print). */
typedef struct cvm_vm_arg {
    uint32_t slot;
    uint8_t elem;
} cvm_vm_arg;

/* Plane widths 2^0 .. CVM_BC_MAX_PLANE (2^6) that native code is kept for. */
#define CVM_VM_JIT_WIDTHS 7
_Static_assert(1u << (CVM_VM_JIT_WIDTHS - 1) == CVM_BC_MAX_PLANE, "one native slot per power-of-two width");
/* Native code kept per kernel: one per width and cube shape class (vm/jit.h cvm_jit_shape). */
#define CVM_VM_JIT_SLOTS (3 * CVM_VM_JIT_WIDTHS)

typedef struct cvm_vm_kprog {
    const cvm_bc_kernel *k;
    uint32_t index;
    uint32_t ninsns;      /* real instructions; code[ninsns] is FINISH */
    cvm_vm_dinsn *code;
    /* The same code with fused super-instructions (fuse.c): the
     * first instruction of each fused sequence replaced by a CVM_VM_H_*
     * handler that does the whole sequence and skips the rest; every
     * other pc holds the instruction `code` has. Used when no step budget
     * is set (a fused sequence counts as one step); NULL when nothing
     * fused. */
    cvm_vm_dinsn *fast;
    /* pcs of instructions whose register holds one value for the whole
     * launch (const, param, launch-wide sreg; written once, never read
     * before): interp.c fills those registers when a worker joins a run,
     * and `fast` has a nop at these pcs. */
    uint32_t *preset;
    uint32_t npreset;
    uint32_t nslots;      /* register slots per lane */
    uint32_t max_depth;   /* construct stack entries a plane needs */
    bool reads_dyn_shared; /* it reads where dynamic shared memory starts or its size (extern __shared__) */
    uint64_t *cases;      /* case values, converted to the selector's width */
    uint32_t ncases;
    cvm_vm_arg *args;
    uint32_t nargs;
    /* Register slots a cube must zero before it starts (decode.c
     * zero_ranges): pairs of first slot and count; zero_all when every
     * slot must be (no verifier facts). */
    uint32_t *zero;
    uint32_t nzero, zero_cap;
    bool zero_all;
    /* The register layout `fast` runs in (decode.c allocate_slots: slots
     * shared by registers whose lives do not overlap), NULL when `fast`
     * uses `code`'s: the unfused instructions in that layout (the
     * compares CMPBR reads, the preset instructions), the list operands
     * `fast` points at, and the zeroed ranges (nzero pairs). `code` keeps
     * one slot per register. */
    cvm_vm_dinsn *fast_exact;
    cvm_vm_arg *fast_args;
    uint32_t *fast_zero;
    uint32_t fast_nslots;
    /* The planes of a cube may run in lockstep (interp_lockstep.c): no
     * instruction whose observable order between planes would change
     * (print). */
    bool lockstep;
    /* Native code (vm/jit.h), made by the first launch the tier policy
     * picks it for: written under jit_rt.c's lock, so the fields change
     * although the program is const everywhere else. Per plane width 2^w
     * (other widths are interpreted) and cube shape, at i = 2w + rows
     * (cvm_jit_plan): jit_state[i] 0 not yet, 1 compiled (jit_fn[i],
     * jit_handle[i]), 2 refused. */
    uint8_t jit_state[CVM_VM_JIT_SLOTS];
    void *jit_fn[CVM_VM_JIT_SLOTS], *jit_handle[CVM_VM_JIT_SLOTS];
    uint64_t jit_units;   /* units launched so far (the auto policy) */
} cvm_vm_kprog;

struct cvm_vm_program {
    cvm_alloc_fn alloc;
    void *alloc_user;
    const cvm_bc_module *mod;
    const cvm_bc_verified *ver;
    uint32_t nkernels;
    cvm_vm_kprog *kernels;
};

/* Construct-stack frame kinds. */
enum { CVM_VM_F_IF, CVM_VM_F_LOOP, CVM_VM_F_SWITCH, CVM_VM_F_BLOCK };

/*
 * A construct frame. Masks by kind:
 *   if:     m[0] else_mask, m[1] then_done, m[2] has_else (0/1)
 *   loop:   m[0] brk, m[1] cont
 *   switch: m[0] entry, m[1] brk, m[2] ft, m[3] lanes matching no case (taken by
 *           default; without a default, end lets them continue)
 *   block:  m[0] exitm
 * `next` is the pc of the next marker of the construct, where a plane goes
 * when its active mask becomes empty.
 */
typedef struct cvm_vm_frame {
    uint32_t kind, open, next, pad;
    uint64_t m[4];
} cvm_vm_frame;

enum { CVM_VM_RUNNABLE, CVM_VM_AT_SYNC, CVM_VM_AT_BAR, CVM_VM_DONE, CVM_VM_FAULTED };
/* a plane has finished when its state is at least CVM_VM_DONE (run_cube) */
_Static_assert(CVM_VM_FAULTED == CVM_VM_DONE + 1, "DONE and FAULTED are the last states");

typedef struct cvm_vm_plane {
    uint32_t index;      /* plane index in the cube */
    uint32_t nlanes;     /* existing lanes (the last plane may be partial) */
    uint64_t live;       /* mask of existing lanes */
    uint64_t active, exited;
    uint32_t pc;
    uint32_t sp;         /* frames in use */
    uint32_t state, bar; /* CVM_VM_*; barrier id when AT_BAR */
    uint32_t wait_pc;    /* pc of the barrier instruction waited on */
    uint32_t quantum;    /* back-edges left before a scheduling point */
    uint64_t steps;      /* instructions executed (step budget) */
    cvm_vm_frame *stack;
    uint8_t *regs;
    /* unit_pos x, y, z of each lane (interp.c join, once per launch: the
     * special registers read them instead of dividing) */
    uint32_t upos[3][64];
} cvm_vm_plane;

/* The fault being reported for a launch (lowest unit of the first faulting cube). */
typedef struct cvm_vm_faultrec {
    bool has;
    cvm_status status;   /* CVM_FAULT, CVM_TIMEOUT, CVM_OUT_OF_MEMORY */
    uint32_t unit;       /* linear unit in the cube */
    uint32_t plane, lane, pc;
    uint32_t count;
    char what[320];
} cvm_vm_faultrec;

/* Where one cube's print text starts in its worker's text. */
typedef struct cvm_vm_seg {
    uint64_t cube;
    size_t off;
} cvm_vm_seg;

/* One worker's view of the launch it runs: launch facts copied from the run,
 * memory from the worker's state (vm/interp.c). */
typedef struct cvm_vm_exec {
    const cvm_vm_program *prog;
    const cvm_vm_kprog *kp;
    const cvm_vm_launch *L;
    unsigned W;          /* plane width */
    unsigned rshift;     /* log2 of the slot size in bytes */
    size_t rb;           /* slot size in bytes */
    uint32_t units, nplanes;
    uint32_t cube[3], cube_linear;
    cvm_vm_plane *planes;
    uint8_t *shared;
    uint32_t shared_size, dyn_base;
    uint8_t *local;      /* units * local_bytes */
    uint32_t local_bytes;
    uint32_t bar_arrived[16], bar_expected[16];
    uint64_t step_limit; /* UINT64_MAX when no budget */
    /* The code this launch runs (kp->fast without a step budget, else
     * kp->code), the unfused instructions in its register layout, and
     * that layout's register slots and zeroed ranges (interp.c plan). */
    const cvm_vm_dinsn *code, *exact;
    uint32_t nslots;
    const uint32_t *zero;
    double t0;           /* start time (timeout) */
    uint32_t workers;    /* workers the run's cubes are spread over (a timeout's hint) */
    bool stopping;       /* a fault happened in this cube: planes run one more slice at most */
    cvm_vm_faultrec fault;
    uint32_t *order;     /* random schedule: plane order of the current pass; else NULL */
    uint64_t rng;        /* random schedule: generator state */
    struct cvm_vm_state *state; /* the worker running this */
    /* interp_mem.c: regions of this worker's recent quick global accesses,
     * by tag modulo 4 (a kernel's buffers usually have consecutive tags);
     * NULL at the start of each launch (copied from the zeroed template) */
    const cvm_vm_region *recent[4];
    /* Lockstep execution of the cube's planes applies to this launch
     * (interp.c plan: plane width 32, full planes, at most
     * CVM_VM_LOCKSTEP_MAX_PLANES of them, no step budget, the parallel
     * schedule, kp->lockstep). */
    bool lockstep;
    /* No plane has run alone since the cube started or since a barrier
     * released every plane (interp.c run_cube): planes that agree on a pc
     * are then at one dynamic point, the same round of every loop, which
     * lockstep's one-lane tests of cube-uniform values need. Planes that
     * ran alone can meet at one pc in different rounds (each yields after
     * its own quantum of back-edges). */
    bool synced;
    /* cvm_vm_run_plane executes one instruction (of the fast code) and
     * returns CVM_VM_R_YIELD, unless the instruction itself ends the slice. */
    bool one_step;
    /* The worker's race checker (vm/race.h) when the launch asks for one, else NULL. */
    struct cvm_vm_race *race;
    /* The worker's uninitialized-read checker (vm/init.h), or NULL. */
    struct cvm_vm_init *init;
    /* The launch's native code (vm/jit.h) when the native tier runs it,
     * else NULL; the worker's table of buffers for its quick checks. */
    int (*native)(struct cvm_vm_exec *x, cvm_vm_plane *p);
    const struct cvm_jit_region *jtab;
    /* Native code whose plane arrives at a cube barrier goes on with the
     * pass's next runnable plane in the same call (cvm_jit_chain), when
     * the pass runs the planes in index order (no random schedule);
     * `chained` is the last plane a call went on with, for run_cube to
     * take its result (NULL: none). A plane that finishes goes on the
     * same way (the next plane only, when runnable); `chain_waited` says
     * a plane of the call arrived at a barrier, so that run_cube tries a
     * release only then. */
    bool chain, chain_waited;
    cvm_vm_plane *chained;
} cvm_vm_exec;

/* The most planes a cube may have to run in lockstep (2048 units; CUDA's
 * cubes have at most 32 planes): interp_lockstep.c keeps a pc per plane on
 * its stack. */
#define CVM_VM_LOCKSTEP_MAX_PLANES 64u

/* Plane run results. */
enum { CVM_VM_R_YIELD, CVM_VM_R_WAIT, CVM_VM_R_DONE, CVM_VM_R_FAULT, CVM_VM_R_STOP };

/* Back-edges a plane takes before it yields to the other planes of its cube. */
#define CVM_VM_QUANTUM 1000u

/*
 * ISA variants (vm/isa.h): the Makefile compiles interp_run.c, interp_mem.c
 * and interp_plane.c once per x86-64 level with -DCVM_ISA_SUFFIX=_v3 etc.,
 * which gives their non-static functions that suffix; isa.c defines the
 * plain cvm_vm_run_plane. A new non-static function in those files needs a
 * line here (only cvm_vm_run_plane may be called from other files).
 */
#ifdef CVM_ISA_SUFFIX
#define CVM_ISA_CAT2(a, b) a##b
#define CVM_ISA_CAT(a, b) CVM_ISA_CAT2(a, b)
#define cvm_vm_run_plane CVM_ISA_CAT(cvm_vm_run_plane, CVM_ISA_SUFFIX)
#define cvm_vm_mem CVM_ISA_CAT(cvm_vm_mem, CVM_ISA_SUFFIX)
#define cvm_vm_bool_loaded CVM_ISA_CAT(cvm_vm_bool_loaded, CVM_ISA_SUFFIX)
#define cvm_vm_atomic CVM_ISA_CAT(cvm_vm_atomic, CVM_ISA_SUFFIX)
#define cvm_vm_mem_cube CVM_ISA_CAT(cvm_vm_mem_cube, CVM_ISA_SUFFIX)
#define cvm_vm_mem_planes CVM_ISA_CAT(cvm_vm_mem_planes, CVM_ISA_SUFFIX)
#define cvm_vm_mem_cube_range CVM_ISA_CAT(cvm_vm_mem_cube_range, CVM_ISA_SUFFIX)
#define cvm_vm_string_at CVM_ISA_CAT(cvm_vm_string_at, CVM_ISA_SUFFIX)
#define cvm_vm_plane_op CVM_ISA_CAT(cvm_vm_plane_op, CVM_ISA_SUFFIX)
#define cvm_vm_cvt CVM_ISA_CAT(cvm_vm_cvt, CVM_ISA_SUFFIX)
#define cvm_vm_bitcast CVM_ISA_CAT(cvm_vm_bitcast, CVM_ISA_SUFFIX)
#define cvm_vm_print CVM_ISA_CAT(cvm_vm_print, CVM_ISA_SUFFIX)
#define cvm_vm_run_lockstep CVM_ISA_CAT(cvm_vm_run_lockstep, CVM_ISA_SUFFIX)
#endif

/* decode */
const char *cvm_vm_kernel_name(const cvm_vm_program *prog, uint32_t k);

/* interp_run.c: runs one plane until a scheduling point. */
int cvm_vm_run_plane(cvm_vm_exec *x, cvm_vm_plane *p);
/* interp_lockstep.c: runs every plane of the cube in lockstep while they
 * are all runnable at the same pc; returns when they part (or wait, finish,
 * fault, or a quantum of back-edges passed), every plane record up to date
 * and a faulted plane's state CVM_VM_FAULTED. Precondition: x->lockstep and
 * every plane runnable at the same pc. */
void cvm_vm_run_lockstep(cvm_vm_exec *x);

/* interp.c: fault records and scheduling helpers used by the handlers. */
void cvm_vm_fault(cvm_vm_exec *x, const cvm_vm_plane *p, uint32_t lane, cvm_status st,
                  const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
double cvm_vm_now(void);
/* Print text one worker may hold for a launch: a kernel printing in a
 * loop faults with a message instead of taking the machine's memory. */
#define CVM_VM_PRINT_CAP (64u << 20)
/* Appends print text for the current cube: CVM_OK, CVM_LIMIT past
 * CVM_VM_PRINT_CAP, or CVM_OUT_OF_MEMORY. */
cvm_status cvm_vm_print_text(cvm_vm_exec *x, const char *text, size_t n);
/* The print text of the worker running x, of all its cubes of this run so far. */
void cvm_vm_printed(const cvm_vm_exec *x, const char **out_text, size_t *out_len);
bool cvm_vm_timed_out(cvm_vm_exec *x, const cvm_vm_plane *p);
/* Releases the cube's barrier when every unfinished plane waits at it (as
 * run_cube does between passes): true if it did. */
bool cvm_vm_release(cvm_vm_exec *x);
void cvm_vm_unit_pos(const cvm_vm_exec *x, uint32_t unit, uint32_t out[3]);

/* interp_mem.c: loads, stores, atomics. Return 0 or a CVM_VM_R_* to stop. */
int cvm_vm_mem(cvm_vm_exec *x, cvm_vm_plane *p, const cvm_vm_dinsn *in);
/* After a load of bool: every lane of its register 0 or 1 (memory may hold
 * any byte; docs/isa.md: a load reads any non-zero byte as true). */
void cvm_vm_bool_loaded(cvm_vm_exec *x, cvm_vm_plane *p, const cvm_vm_dinsn *in);
int cvm_vm_atomic(cvm_vm_exec *x, cvm_vm_plane *p, const cvm_vm_dinsn *in);
/* A plain ld/st for each plane of the cube with active lanes, in plane
 * order, as cvm_vm_mem would (the instruction's facts taken once): returns
 * the number of planes, or the first plane whose access did not complete
 * (*r: cvm_vm_mem's result for it; the planes after it have not run). */
unsigned cvm_vm_mem_planes(cvm_vm_exec *x, const cvm_vm_dinsn *in, int *r);
/* A plain ld/st of every plane of the cube at once when all are full and
 * each plane's addresses consecutive; false (nothing done) else. */
bool cvm_vm_mem_cube(cvm_vm_exec *x, const cvm_vm_dinsn *in);
/* The same when plane g's addresses are known to be at[g], at[g] + esz,
 * ... (at NULL: lo + g 32 esz, one range across the cube; full planes of
 * width 32): one check of the cube's lowest to highest address, block
 * copies in plane order. */
bool cvm_vm_mem_cube_range(cvm_vm_exec *x, const cvm_vm_dinsn *in, const uint64_t *at, uint64_t lo);
/* Host pointer of a print %s argument (NUL-terminated within its region), or NULL. */
const char *cvm_vm_string_at(cvm_vm_exec *x, const cvm_vm_plane *p, uint32_t lane,
                             unsigned elem, uint64_t addr, size_t *out_max);

/* interp_plane.c: plane ops, conversions, bitcasts, print. */
int cvm_vm_plane_op(cvm_vm_exec *x, cvm_vm_plane *p, const cvm_vm_dinsn *in);
void cvm_vm_cvt(cvm_vm_exec *x, cvm_vm_plane *p, const cvm_vm_dinsn *in);
void cvm_vm_bitcast(cvm_vm_exec *x, cvm_vm_plane *p, const cvm_vm_dinsn *in);
int cvm_vm_print(cvm_vm_exec *x, cvm_vm_plane *p, const cvm_vm_dinsn *in);

/* The conversions cvt runs as typed lane loops; decode.c's cvt_kind picks
 * one by (target, source), and a pair not listed goes through
 * interp_plane.c's per-lane path, whose bits each row gives exactly
 * (docs/numerics.md "Conversions"): the same numerics.h routine, or a
 * host conversion where that is exact (integer widening and narrowing;
 * int8/16 and bool to float, int32 to f64), a branch-free routine of the
 * same bits (f16/bf16 <-> f32), or already the rule (int32 to f32 rounds
 * to nearest even under the host's rounding mode, which cubevm leaves at
 * its default; f32 to f64 keeps a NaN's payload and quiets it, as
 * interp_plane.c's f32 -> double read does).
 *
 * X(kind, target, source, TD, TA, loop, EXPR): TD and TA are the lanes'
 * C types, EXPR the target's value from the source lane's value `v`;
 * loop V is straight code the compiler vectorizes (lockstep unrolls it),
 * S a routine per lane. A target or source CVM_VM_CVT_INT(n) is any
 * integer type of n bytes: the bits do not depend on a target's
 * signedness, nor on a source's when it is not widened (cvt_kind). */
#define CVM_VM_CVT_INT(n) (CVM_T_COUNT + (n))
#define CVM_VM_CVTS(X) \
    X(COPY1, CVM_VM_CVT_INT(1), CVM_VM_CVT_INT(1), uint8_t, uint8_t, V, v) \
    X(COPY2, CVM_VM_CVT_INT(2), CVM_VM_CVT_INT(2), uint16_t, uint16_t, V, v) \
    X(COPY4, CVM_VM_CVT_INT(4), CVM_VM_CVT_INT(4), uint32_t, uint32_t, V, v) \
    X(COPY8, CVM_VM_CVT_INT(8), CVM_VM_CVT_INT(8), uint64_t, uint64_t, V, v) \
    X(TRUNC16_8, CVM_VM_CVT_INT(1), CVM_VM_CVT_INT(2), uint8_t, uint16_t, V, v) \
    X(TRUNC32_8, CVM_VM_CVT_INT(1), CVM_VM_CVT_INT(4), uint8_t, uint32_t, V, v) \
    X(TRUNC32_16, CVM_VM_CVT_INT(2), CVM_VM_CVT_INT(4), uint16_t, uint32_t, V, v) \
    X(TRUNC64_8, CVM_VM_CVT_INT(1), CVM_VM_CVT_INT(8), uint8_t, uint64_t, V, v) \
    X(TRUNC64_16, CVM_VM_CVT_INT(2), CVM_VM_CVT_INT(8), uint16_t, uint64_t, V, v) \
    X(TRUNC64, CVM_VM_CVT_INT(4), CVM_VM_CVT_INT(8), uint32_t, uint64_t, V, v) \
    X(SEXT8_16, CVM_VM_CVT_INT(2), CVM_T_I8, uint16_t, int8_t, V, v) \
    X(SEXT8_32, CVM_VM_CVT_INT(4), CVM_T_I8, uint32_t, int8_t, V, v) \
    X(SEXT8_64, CVM_VM_CVT_INT(8), CVM_T_I8, uint64_t, int8_t, V, v) \
    X(SEXT16_32, CVM_VM_CVT_INT(4), CVM_T_I16, uint32_t, int16_t, V, v) \
    X(SEXT16_64, CVM_VM_CVT_INT(8), CVM_T_I16, uint64_t, int16_t, V, v) \
    X(SEXT32, CVM_VM_CVT_INT(8), CVM_T_I32, uint64_t, int32_t, V, v) \
    X(ZEXT8_16, CVM_VM_CVT_INT(2), CVM_T_U8, uint16_t, uint8_t, V, v) \
    X(ZEXT8_32, CVM_VM_CVT_INT(4), CVM_T_U8, uint32_t, uint8_t, V, v) \
    X(ZEXT8_64, CVM_VM_CVT_INT(8), CVM_T_U8, uint64_t, uint8_t, V, v) \
    X(ZEXT16_32, CVM_VM_CVT_INT(4), CVM_T_U16, uint32_t, uint16_t, V, v) \
    X(ZEXT16_64, CVM_VM_CVT_INT(8), CVM_T_U16, uint64_t, uint16_t, V, v) \
    X(ZEXT32, CVM_VM_CVT_INT(8), CVM_T_U32, uint64_t, uint32_t, V, v) \
    X(BOOL_8, CVM_VM_CVT_INT(1), CVM_T_BOOL, uint8_t, uint8_t, V, v & 1) \
    X(BOOL_16, CVM_VM_CVT_INT(2), CVM_T_BOOL, uint16_t, uint8_t, V, v & 1) \
    X(BOOL_32, CVM_VM_CVT_INT(4), CVM_T_BOOL, uint32_t, uint8_t, V, v & 1) \
    X(BOOL_64, CVM_VM_CVT_INT(8), CVM_T_BOOL, uint64_t, uint8_t, V, v & 1) \
    X(BOOL_BOOL, CVM_T_BOOL, CVM_T_BOOL, uint8_t, uint8_t, V, v & 1) \
    X(NZ8, CVM_T_BOOL, CVM_VM_CVT_INT(1), uint8_t, uint8_t, V, v != 0) \
    X(NZ16, CVM_T_BOOL, CVM_VM_CVT_INT(2), uint8_t, uint16_t, V, v != 0) \
    X(NZ32, CVM_T_BOOL, CVM_VM_CVT_INT(4), uint8_t, uint32_t, V, v != 0) \
    X(NZ64, CVM_T_BOOL, CVM_VM_CVT_INT(8), uint8_t, uint64_t, V, v != 0) \
    X(F32_BOOL, CVM_T_BOOL, CVM_T_F32, uint8_t, float, V, v != 0) \
    X(F64_BOOL, CVM_T_BOOL, CVM_T_F64, uint8_t, double, V, v != 0) \
    X(I8_F32, CVM_T_F32, CVM_T_I8, float, int8_t, V, v) \
    X(I16_F32, CVM_T_F32, CVM_T_I16, float, int16_t, V, v) \
    X(I32_F32, CVM_T_F32, CVM_T_I32, float, int32_t, V, v) \
    X(I64_F32, CVM_T_F32, CVM_T_I64, float, int64_t, S, cvm_n_s64_to_f32(v)) \
    X(U8_F32, CVM_T_F32, CVM_T_U8, float, uint8_t, V, v) \
    X(U16_F32, CVM_T_F32, CVM_T_U16, float, uint16_t, V, v) \
    X(U32_F32, CVM_T_F32, CVM_T_U32, float, uint32_t, S, cvm_n_u64_to_f32(v)) \
    X(U64_F32, CVM_T_F32, CVM_T_U64, float, uint64_t, S, cvm_n_u64_to_f32(v)) \
    X(I8_F64, CVM_T_F64, CVM_T_I8, double, int8_t, V, v) \
    X(I16_F64, CVM_T_F64, CVM_T_I16, double, int16_t, V, v) \
    X(I32_F64, CVM_T_F64, CVM_T_I32, double, int32_t, V, v) \
    X(I64_F64, CVM_T_F64, CVM_T_I64, double, int64_t, S, cvm_n_s64_to_f64(v)) \
    X(U8_F64, CVM_T_F64, CVM_T_U8, double, uint8_t, V, v) \
    X(U16_F64, CVM_T_F64, CVM_T_U16, double, uint16_t, V, v) \
    X(U32_F64, CVM_T_F64, CVM_T_U32, double, uint32_t, V, v) \
    X(U64_F64, CVM_T_F64, CVM_T_U64, double, uint64_t, S, cvm_n_u64_to_f64(v)) \
    X(F32_I8, CVM_T_I8, CVM_T_F32, uint8_t, float, S, cvm_n_f64_to_sint((double)v, 8)) \
    X(F32_I16, CVM_T_I16, CVM_T_F32, uint16_t, float, S, cvm_n_f64_to_sint((double)v, 16)) \
    X(F32_I32, CVM_T_I32, CVM_T_F32, uint32_t, float, S, cvm_n_f64_to_sint((double)v, 32)) \
    X(F32_I64, CVM_T_I64, CVM_T_F32, uint64_t, float, S, cvm_n_f64_to_sint((double)v, 64)) \
    X(F32_U8, CVM_T_U8, CVM_T_F32, uint8_t, float, S, cvm_n_f64_to_uint((double)v, 8)) \
    X(F32_U16, CVM_T_U16, CVM_T_F32, uint16_t, float, S, cvm_n_f64_to_uint((double)v, 16)) \
    X(F32_U32, CVM_T_U32, CVM_T_F32, uint32_t, float, S, cvm_n_f64_to_uint((double)v, 32)) \
    X(F32_U64, CVM_T_U64, CVM_T_F32, uint64_t, float, S, cvm_n_f64_to_uint((double)v, 64)) \
    X(F64_I8, CVM_T_I8, CVM_T_F64, uint8_t, double, S, cvm_n_f64_to_sint(v, 8)) \
    X(F64_I16, CVM_T_I16, CVM_T_F64, uint16_t, double, S, cvm_n_f64_to_sint(v, 16)) \
    X(F64_I32, CVM_T_I32, CVM_T_F64, uint32_t, double, S, cvm_n_f64_to_sint(v, 32)) \
    X(F64_I64, CVM_T_I64, CVM_T_F64, uint64_t, double, S, cvm_n_f64_to_sint(v, 64)) \
    X(F64_U8, CVM_T_U8, CVM_T_F64, uint8_t, double, S, cvm_n_f64_to_uint(v, 8)) \
    X(F64_U16, CVM_T_U16, CVM_T_F64, uint16_t, double, S, cvm_n_f64_to_uint(v, 16)) \
    X(F64_U32, CVM_T_U32, CVM_T_F64, uint32_t, double, S, cvm_n_f64_to_uint(v, 32)) \
    X(F64_U64, CVM_T_U64, CVM_T_F64, uint64_t, double, S, cvm_n_f64_to_uint(v, 64)) \
    X(F32_F32, CVM_T_F32, CVM_T_F32, uint32_t, uint32_t, V, v) \
    X(F64_F64, CVM_T_F64, CVM_T_F64, uint64_t, uint64_t, V, v) \
    X(F32_F64, CVM_T_F64, CVM_T_F32, double, float, V, v) \
    X(F64_F32, CVM_T_F32, CVM_T_F64, float, double, S, cvm_n_f64_to_f32(v)) \
    X(F16_F32, CVM_T_F32, CVM_T_F16, float, uint16_t, V, cvm_n_f16_to_f32_fast(v)) \
    X(BF16_F32, CVM_T_F32, CVM_T_BF16, float, uint16_t, S, cvm_n_f64_to_f32(cvm_n_bf16_to_f64(v))) \
    X(F32_F16, CVM_T_F16, CVM_T_F32, uint16_t, float, V, cvm_n_f32_to_f16_fast(v)) \
    X(F32_BF16, CVM_T_BF16, CVM_T_F32, uint16_t, float, V, cvm_n_f32_to_bf16_fast(v)) \
    X(BOOL_F32, CVM_T_F32, CVM_T_BOOL, float, uint8_t, V, (float)(v & 1)) \
    X(BOOL_F64, CVM_T_F64, CVM_T_BOOL, double, uint8_t, V, (double)(v & 1))

enum {
    CVM_VM_CVT_GENERIC,
#define CVM_VM_CVT_ENUM(K, TO, FROM, TD, TA, LOOP, EXPR) CVM_VM_CVT_##K,
    CVM_VM_CVTS(CVM_VM_CVT_ENUM)
#undef CVM_VM_CVT_ENUM
    CVM_VM_CVT_COUNT
};

/* Element sizes by type: cvm_bc_elem_size without a call, for the handlers. */
static inline unsigned cvm_vm_esz(unsigned elem)
{
    static const uint8_t size[CVM_T_COUNT] = {
        [CVM_T_BOOL] = 1, [CVM_T_I8] = 1, [CVM_T_I16] = 2, [CVM_T_I32] = 4, [CVM_T_I64] = 8,
        [CVM_T_U8] = 1, [CVM_T_U16] = 2, [CVM_T_U32] = 4, [CVM_T_U64] = 8, [CVM_T_F16] = 2,
        [CVM_T_BF16] = 2, [CVM_T_F32] = 4, [CVM_T_F64] = 8, [CVM_T_PTR_GLOBAL] = 8,
        [CVM_T_PTR_SHARED] = 4, [CVM_T_PTR_LOCAL] = 4, [CVM_T_PTR_CONST] = 4,
    };
    return elem < CVM_T_COUNT ? size[elem] : 0;
}

/* The kinds of memory access an instruction makes (the checkers of
 * vm/race.c and vm/init.c); atomic ones from CVM_VM_MK_LDV on. */
enum { CVM_VM_MK_NONE = -1, CVM_VM_MK_LD, CVM_VM_MK_ST, CVM_VM_MK_LDV, CVM_VM_MK_STV,
       CVM_VM_MK_LDA, CVM_VM_MK_STA, CVM_VM_MK_ATOM };

static inline int cvm_vm_mem_kind(unsigned h)
{
    switch (h) {
    case CVM_OP_LD: return CVM_VM_MK_LD;
    case CVM_OP_ST: return CVM_VM_MK_ST;
    case CVM_OP_LD_VOLATILE: return CVM_VM_MK_LDV;
    case CVM_OP_ST_VOLATILE: return CVM_VM_MK_STV;
    case CVM_OP_LD_ATOMIC: return CVM_VM_MK_LDA;
    case CVM_OP_ST_ATOMIC: return CVM_VM_MK_STA;
    case CVM_OP_ATOM_ADD: case CVM_OP_ATOM_SUB: case CVM_OP_ATOM_MIN: case CVM_OP_ATOM_MAX:
    case CVM_OP_ATOM_AND: case CVM_OP_ATOM_OR: case CVM_OP_ATOM_XOR: case CVM_OP_ATOM_EXCH:
    case CVM_OP_ATOM_INC: case CVM_OP_ATOM_DEC: case CVM_OP_ATOM_CAS:
        return CVM_VM_MK_ATOM;
    default: return CVM_VM_MK_NONE;
    }
}

/* A memory access kind's name in fault messages ("volatile load"). */
static inline const char *cvm_vm_mem_kind_name(int k)
{
    static const char *const name[] = {"load", "store", "volatile load", "volatile store",
                                       "atomic load", "atomic store", "atomic"};
    return k >= 0 && k <= CVM_VM_MK_ATOM ? name[k] : "access";
}

/* Whether an access of kind k reads memory, and writes it (an atomic does both). */
static inline bool cvm_vm_mem_reads(int k)
{
    return k == CVM_VM_MK_LD || k == CVM_VM_MK_LDV || k == CVM_VM_MK_LDA || k == CVM_VM_MK_ATOM;
}

static inline bool cvm_vm_mem_writes(int k)
{
    return k == CVM_VM_MK_ST || k == CVM_VM_MK_STV || k == CVM_VM_MK_STA || k == CVM_VM_MK_ATOM;
}

/* Bytes one lane's access of memory op `in` (kind k) covers: an atomic's element, else the line. */
static inline unsigned cvm_vm_mem_size(const cvm_vm_dinsn *in, int k)
{
    return cvm_vm_esz(in->elem) * (k == CVM_VM_MK_ATOM ? 1u : in->line);
}

/* Lane access helpers for the generic (non-vectorized) handlers. */
static inline uint8_t *cvm_vm_reg(const cvm_vm_exec *x, const cvm_vm_plane *p, uint32_t slot)
{
    return p->regs + ((size_t)slot << x->rshift);
}

/* The register holding plane op `in`'s member mask (its last register
 * operand), and the mask's element type (interp_plane.c; vm/race.c). */
static inline const uint8_t *cvm_vm_member_reg(const cvm_vm_exec *x, const cvm_vm_plane *p,
                                               const cvm_vm_dinsn *in, unsigned *elem)
{
    if (in->h == CVM_OP_SYNC_PLANE)
        return *elem = in->ea, cvm_vm_reg(x, p, in->a);
    if (in->h >= CVM_OP_SHFL_IDX && in->h <= CVM_OP_SHFL_XOR)
        return *elem = in->ec, cvm_vm_reg(x, p, in->c);
    return *elem = in->eb, cvm_vm_reg(x, p, in->b);
}

/* The raw bits of element type `elem` at lane l, zero-extended. */
static inline uint64_t cvm_vm_get_bits(const uint8_t *r, unsigned elem, unsigned l)
{
    switch (cvm_vm_esz(elem)) {
    case 1: return r[l];
    case 2: return ((const uint16_t *)(const void *)r)[l];
    case 4: return ((const uint32_t *)(const void *)r)[l];
    case 8: return ((const uint64_t *)(const void *)r)[l];
    default: return 0; /* no type: nothing to read */
    }
}

static inline void cvm_vm_set_bits(uint8_t *r, unsigned elem, unsigned l, uint64_t v)
{
    switch (cvm_vm_esz(elem)) {
    case 1: r[l] = (uint8_t)v; break;
    case 2: ((uint16_t *)(void *)r)[l] = (uint16_t)v; break;
    case 4: ((uint32_t *)(void *)r)[l] = (uint32_t)v; break;
    case 8: ((uint64_t *)(void *)r)[l] = v; break;
    default: break; /* no type: nothing to write */
    }
}

/* An integer (or bool, or pointer) element as a signed 64-bit value:
 * sign-extended for signed types, zero-extended otherwise. */
static inline int64_t cvm_vm_get_int(const uint8_t *r, unsigned elem, unsigned l)
{
    uint64_t v = cvm_vm_get_bits(r, elem, l);
    switch (elem) {
    case CVM_T_I8: return (int8_t)v;
    case CVM_T_I16: return (int16_t)v;
    case CVM_T_I32: return (int32_t)v;
    default: return (int64_t)v;
    }
}

#endif /* CVM_VM_INTERP_H */
