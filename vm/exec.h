/*
 * exec.h - the CPU interpreter's internal interface (vm/interp*.c).
 *
 * The API layer (vm/api.c) builds a cvm_vm_program once per loaded module
 * (pre-decoded instructions for every kernel), then executes launches
 * described by cvm_vm_launch. A launch becomes a cvm_vm_run (its facts and
 * the cube counter); each worker thread owns a cvm_vm_state (its memory,
 * grown between launches) and calls cvm_vm_run_work, which takes cube
 * batches until none are left; cvm_vm_run_finish then picks the fault to
 * report and merges print text in cube order. cvm_vm_execute does all of it
 * on the calling thread.
 */
#ifndef CVM_VM_EXEC_H
#define CVM_VM_EXEC_H

#include "../bytecode/bc.h"

/* A global allocation visible to kernels, for checked-mode lookups. */
typedef struct cvm_vm_region {
    uintptr_t base;
    size_t size;
    const char *name; /* buffer or symbol name, for fault messages */
    bool writable;
    uint16_t tag;     /* the buffer's provenance tag (see below) */
} cvm_vm_region;

/*
 * Global pointers handed to kernels carry their buffer's tag in bits 48..63
 * (x86-64 user addresses fit in 47 bits). ptr.add keeps it, so checked mode
 * attributes every access to the buffer the pointer came from: an overflow
 * that lands inside a neighbouring buffer is a fault, not a silent write.
 * Tag 0 means unknown provenance (then the address alone is checked).
 */
#define CVM_VM_PTR_TAG_SHIFT 48
#define CVM_VM_PTR_ADDR(v) ((uint64_t)(v) & ((UINT64_C(1) << CVM_VM_PTR_TAG_SHIFT) - 1))
#define CVM_VM_PTR_TAG(v) ((uint16_t)((uint64_t)(v) >> CVM_VM_PTR_TAG_SHIFT))
#define CVM_VM_PTR_MAKE(addr, tag) \
    ((uint64_t)(addr) | ((uint64_t)(tag) << CVM_VM_PTR_TAG_SHIFT))

/* Growable text for the `print` op (allocated through the launch allocator). */
typedef struct cvm_vm_text {
    char *data;
    size_t len, cap;
} cvm_vm_text;

/* Cube and plane order (cvm_schedule in cubevm.h has the same values). */
enum { CVM_VM_SCHED_PARALLEL = 0, CVM_VM_SCHED_SEQUENTIAL = 1, CVM_VM_SCHED_RANDOM = 2 };

struct cvm_vm_exec;
struct cvm_vm_plane;

typedef struct cvm_vm_launch {
    uint32_t kernel;             /* index in the module */
    uint32_t grid[3], block[3];  /* all >= 1, checked by the caller */
    uint32_t dyn_shared;         /* bytes of dynamic shared memory */
    uint32_t plane_width;        /* 1..64 */
    const uint8_t *params;       /* packed parameter bytes */
    const uint32_t *param_offset;/* per parameter: offset into params */
    const cvm_vm_region *regions;/* sorted by base, non-overlapping */
    uint32_t nregions;
    const uint8_t *const_data;   /* ptr.const space (module constant data) */
    uint32_t const_size;
    const uint64_t *sym_value;   /* per module symbol: address (global) or const offset */
    uint64_t step_budget;        /* instructions per plane; 0 = none */
    double timeout_s;            /* 0 = none */
    bool checked;                /* bounds, alignment, division and barrier checks */
    cvm_alloc_fn alloc;
    void *alloc_user;
    cvm_vm_text *print_out;      /* may be NULL: print output is dropped */
    uint8_t schedule;            /* CVM_VM_SCHED_* */
    uint64_t seed;               /* random schedule */
    /* The debugger's hook (vm/api_debug.c), or NULL. With a hook the launch
     * runs the exact code one instruction at a time (interp.c run_hooked)
     * and calls it before each with CVM_VM_HOOK_STEP, and with
     * CVM_VM_HOOK_FAULT after an instruction faults; a nonzero return ends
     * the launch (CVM_CANCELED). Set only with the sequential schedule. */
    int (*hook)(void *user, struct cvm_vm_exec *x, struct cvm_vm_plane *p, int event);
    void *hook_user;
    /* The race checker (vm/race.h): the exact code one instruction at a
     * time, as under a hook, with each worker's checker told of every
     * instruction before it runs and of barrier releases. At most
     * CVM_VM_RACE_MAX_UNITS units per cube (cvm_vm_run_new: CVM_LIMIT). */
    bool racecheck;
    /* The uninitialized-read checker (vm/init.h), run the same way. */
    bool initcheck;
    /* cvm_tier (cubevm.h): the engine the launch asks for (vm/jit.h). */
    uint8_t tier;
} cvm_vm_launch;

enum { CVM_VM_HOOK_STEP = 0, CVM_VM_HOOK_FAULT = 1 };

/* The region containing addr, or the nearest one below it; NULL if none below. */
static inline const cvm_vm_region *cvm_vm_region_below(const cvm_vm_launch *L, uint64_t addr)
{
    uint32_t lo = 0, hi = L->nregions;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (L->regions[mid].base <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? &L->regions[lo - 1] : NULL;
}

/* The region of the buffer with provenance tag `tag`, or NULL (freed, or not this launch's). */
static inline const cvm_vm_region *cvm_vm_region_tagged(const cvm_vm_launch *L, uint16_t tag)
{
    for (uint32_t i = 0; i < L->nregions; i++)
        if (L->regions[i].tag == tag)
            return &L->regions[i];
    return NULL;
}

/* The buffer an access at untagged address `addr` through a pointer with
 * provenance `tag` belongs to (checked mode's rule; the debugger's reads):
 * found by address first, the common case, else by tag (NULL when the tag
 * names no live buffer). */
static inline const cvm_vm_region *cvm_vm_region_of(const cvm_vm_launch *L, uint64_t addr,
                                                    uint16_t tag)
{
    const cvm_vm_region *r = cvm_vm_region_below(L, addr);
    return tag && (!r || r->tag != tag) ? cvm_vm_region_tagged(L, tag) : r;
}

typedef struct cvm_vm_program cvm_vm_program;

/* Pre-decodes every kernel of a verified module. The module and verified
 * info must outlive the program. */
cvm_status cvm_vm_program_build(const cvm_bc_module *mod, const cvm_bc_verified *ver,
                                cvm_alloc_fn fn, void *user, cvm_vm_program **out_prog,
                                cvm_diag *diag);
void cvm_vm_program_free(cvm_vm_program *prog);

typedef struct cvm_vm_run cvm_vm_run;
typedef struct cvm_vm_state cvm_vm_state;

/*
 * Plans a launch for up to `workers` workers (cube batch size, per-worker
 * memory). `L` must outlive the run. CVM_LIMIT when a cube needs too much
 * memory, CVM_INVALID_ARGUMENT for a bad shape, CVM_OUT_OF_MEMORY.
 */
cvm_status cvm_vm_run_new(const cvm_vm_program *prog, const cvm_vm_launch *L, uint32_t workers,
                          cvm_vm_run **out_run, cvm_diag *diag);
void cvm_vm_run_free(cvm_vm_run *run);
/* Bytes one worker's state holds for this run (register files, stacks, shared, local). */
uint64_t cvm_vm_run_bytes(const cvm_vm_run *run);
/* The parts of cvm_vm_run_bytes: register files (with plane records and
 * stacks), local memory of all units, shared memory, and the checkers'
 * fixed blocks (race clocks, uninitialized-read bits; 0 without them). */
void cvm_vm_run_sizes(const cvm_vm_run *run, uint64_t *out_regs, uint64_t *out_local,
                      uint64_t *out_shared, uint64_t *out_checkers);
/* Starts the run's clock (timeouts); call once, before the first worker. */
void cvm_vm_run_begin(cvm_vm_run *run);
/* Cubes are left to hand out (and no timeout or out-of-memory stopped the run). */
bool cvm_vm_run_open(const cvm_vm_run *run);
/* The worker body: runs cube batches until none are left. Never allocates
 * except for print text. Several workers may call it at once, each with
 * its own state, after cvm_vm_state_reserve for this run. */
void cvm_vm_run_work(cvm_vm_run *run, cvm_vm_state *state);
/* After every worker has returned from cvm_vm_run_work: the lowest (cube,
 * unit) fault with every worker's faults counted, and print text appended
 * to L->print_out in cube order. */
cvm_status cvm_vm_run_finish(cvm_vm_run *run, cvm_vm_state *const *states, uint32_t nstates,
                             cvm_diag *diag);

/* A worker's execution state, reused across launches. */
cvm_status cvm_vm_state_new(cvm_alloc_fn fn, void *user, cvm_vm_state **out_state);
void cvm_vm_state_free(cvm_vm_state *state);
/* Grows the state to fit `run` (only between runs: no worker may be using it). */
cvm_status cvm_vm_state_reserve(cvm_vm_state *state, const cvm_vm_run *run, cvm_diag *diag);
/* Frees what only the run that asked for it needs, the checkers (their
 * access tables grow with the memory a cube touches), so it does not stay
 * charged to the device after that launch; only between runs. */
void cvm_vm_state_trim(cvm_vm_state *state);

/*
 * Runs a whole launch on the calling thread. Returns CVM_OK, CVM_FAULT
 * (diag->has_fault with the record of the lowest (cube, unit) fault),
 * CVM_TIMEOUT, CVM_LIMIT or CVM_OUT_OF_MEMORY. Never raises a signal for
 * a kernel bug in checked mode.
 */
cvm_status cvm_vm_execute(const cvm_vm_program *prog, const cvm_vm_launch *launch,
                          cvm_diag *diag);

#endif /* CVM_VM_EXEC_H */
