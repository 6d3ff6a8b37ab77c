/*
 * jit.h - the native tier (tier 3, docs/design.md "Tiers"): kernels
 * compiled to machine code through LLVM's ORC JIT, one function per
 * kernel that runs one plane, lanes as SIMD vectors.
 *
 * A native plane function reads and writes the interpreter's plane record
 * and register file (interp.h), so the cube scheduler (interp.c run_cube)
 * is the same for both tiers: it returns CVM_VM_R_* as cvm_vm_run_plane
 * does, stopping at barriers and back-edge quanta with its registers in the
 * file and its construct masks in the plane's frames, and starting again
 * where it stopped (p->pc). Instructions it does not compile inline it
 * runs through the interpreter, one at a time (cvm_jit_step), on the
 * registers it spilled to the file: the two tiers share every fault and
 * every op's semantics.
 *
 * jit/native.c (with jit/llvm.c) builds it when LLVM is found, jit/none.c
 * otherwise; vm/interp.c decides per launch (cvm_jit_plan) and calls it.
 */
#ifndef CVM_VM_JIT_H
#define CVM_VM_JIT_H

#include "interp.h"

/* A compiled kernel: runs plane p of the cube x runs, from p->pc. */
typedef int (*cvm_jit_fn)(cvm_vm_exec *x, cvm_vm_plane *p);

/*
 * The worker's table of the launch's buffers for native code's quick
 * checks of global accesses: entry tag % CVM_JIT_TAB holds the buffer
 * whose tag is `tag` (0: none; a pointer without a tag, or a buffer that
 * shares its entry, goes through the interpreter's own checks). An access
 * of n bytes at untagged address a is quick when lo <= a and a + n <= end
 * (wend for stores: end, or 0 when the buffer is read-only).
 */
#define CVM_JIT_TAB 64u
typedef struct cvm_jit_region {
    uint64_t tag, lo, end, wend;
} cvm_jit_region;

/* Fills a table for launch L. */
void cvm_jit_table(const cvm_vm_launch *L, cvm_jit_region *tab);

/* Whether this build has the native tier. */
bool cvm_jit_built(void);

/*
 * The native code for kernel kp at plane width W, for cubes of the
 * shape class `shape` (cvm_jit_shape), when the launch's tier
 * (cvm_tier) wants it for a launch of `units` units in all, compiling it
 * then; NULL otherwise (the interpreter runs the launch). CVM_TIER_DEFAULT
 * follows CUBEVM_JIT: "auto" (also when unset: once the kernel's earlier
 * launches have run CVM_JIT_AUTO_UNITS units), "off" or "on" (as
 * CVM_TIER_NATIVE: compile at the kernel's first launch). Thread-safe.
 */
#define CVM_JIT_AUTO_UNITS (UINT64_C(1) << 22)
/* CVM_INVALID_ARGUMENT when a launch of this tier would follow a
 * CUBEVM_JIT that is none of off, on, auto (cvm_launch fails with it). */
cvm_status cvm_jit_check(int tier, cvm_diag *diag);
cvm_jit_fn cvm_jit_plan(const cvm_vm_program *prog, const cvm_vm_kprog *kp, unsigned W, unsigned shape,
                        uint64_t units, int tier);

/* The cube shapes native code is compiled for apart (cvm_jit_shape), each
 * knowing the lanes of unit_pos in a plane: */
enum {
    CVM_JIT_ANY,   /* nothing known */
    CVM_JIT_ROWS,  /* x extent a multiple of W: every plane full and in one
                    * row, its lanes at consecutive x and one y and z */
    CVM_JIT_PAIRS, /* x extent W / 2 and y extent even: every plane full
                    * and two rows of one z, lane l at x = l % (W / 2) and
                    * y = lane 0's y + l / (W / 2) (a 16x16 tile's plane) */
    CVM_JIT_SHAPES
};

/* The shape class of a cube of `block` units at plane width W. */
static inline unsigned cvm_jit_shape(const uint32_t block[3], unsigned W)
{
    if (W && block[0] % W == 0)
        return CVM_JIT_ROWS;
    if (W >= 2 && block[0] == W / 2 && block[1] % 2 == 0)
        return CVM_JIT_PAIRS;
    return CVM_JIT_ANY;
}

/* Bytes of a plane's registers at width W: what a native function's frame
 * holds at most, give or take the temporaries LLVM spills. */
uint64_t cvm_jit_frame_bytes(const cvm_vm_kprog *kp, unsigned W);
/* Whether the calling thread's stack has `need` bytes free below here (a
 * host thread waiting in cvm_stream_sync runs cubes too, on whatever
 * stack it has: one too small for a kernel's native frame runs its cubes
 * in the interpreter, interp.c join). */
bool cvm_jit_stack_room(uint64_t need);

/* Frees a kernel's native code (cvm_vm_program_free). */
void cvm_jit_release(cvm_vm_kprog *kp);

/* Counters for tests and tools: compiles (one per kernel, plane width
 * and cube shape class, cvm_jit_shape), compiles the tier refused (the
 * interpreter ran those launches), launches planned natively, and
 * the threads of such launches that ran their cubes interpreted for want
 * of stack (interp.c join). */
typedef struct cvm_jit_counts {
    uint64_t compiled, refused, launches, narrow_stacks;
} cvm_jit_counts;
void cvm_jit_note_narrow_stack(void);
void cvm_jit_counts_get(cvm_jit_counts *out);
/* Why the last refused kernel was refused (empty if none). */
void cvm_jit_last_refusal(char *buf, size_t n);

/* ---- called by native code (vm/jit_rt.c) ---- */

/* Runs the instruction at pc through the interpreter on the plane's
 * registers and masks (p->active and p->exited current): CVM_VM_R_YIELD
 * when done, else the interpreter's result (a wait, a fault). */
int cvm_jit_step(cvm_vm_exec *x, cvm_vm_plane *p, uint32_t pc);
/* A loop's back-edge spent the plane's quantum (p->pc is the loop body's
 * first pc): CVM_VM_R_FAULT on a timeout, CVM_VM_R_YIELD when other planes
 * should run, -1 to go on (CVM_VM_R_YIELD is 0). */
int cvm_jit_backedge(cvm_vm_exec *x, cvm_vm_plane *p);
/* Plane p has arrived at a cube barrier (p->state CVM_VM_AT_SYNC, its
 * state stored): the plane that run_cube would run next (releasing the
 * barrier where run_cube would), when the call may go on with it
 * (x->chain), else NULL (return to run_cube). */
cvm_vm_plane *cvm_jit_chain(cvm_vm_exec *x, cvm_vm_plane *p);
/* A masked gather or scatter whose lanes native code has tested (in
 * bounds, aligned): for each lane i set in mask, in lane order, the
 * esz-byte element i of vals (1, 2, 4 or 8 bytes) from or to address
 * addr[i]. Out of line where LLVM would expand the masked access into a
 * block per lane (jit/native_mem.c lanes_out_of_line): these paths are
 * rarely hot, and their inline forms were a third of the code generator's
 * time (docs/performance.md). */
void cvm_jit_gather(void *vals, const uint64_t *addr, uint64_t mask, uint32_t esz);
void cvm_jit_scatter(const void *vals, const uint64_t *addr, uint64_t mask, uint32_t esz);
/* The same for the consecutive elements at base: lane i's at base + i * esz. */
void cvm_jit_load_run(void *vals, const void *base, uint64_t mask, uint32_t esz);
void cvm_jit_store_run(const void *vals, void *base, uint64_t mask, uint32_t esz);

#endif /* CVM_VM_JIT_H */
