/*
 * exec.h - the CPU interpreter's internal interface (vm/interp*.c).
 *
 * The API layer (vm/api.c) builds a cvm_vm_program once per loaded module
 * (pre-decoded instructions for every kernel), then executes launches
 * described by cvm_vm_launch. This runtime runs cubes on the
 * calling thread; the worker pool arrives with the runtime issue and uses
 * the same entry points per cube range.
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
} cvm_vm_region;

/* Growable text for the `print` op (allocated through the launch allocator). */
typedef struct cvm_vm_text {
    char *data;
    size_t len, cap;
} cvm_vm_text;

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
} cvm_vm_launch;

typedef struct cvm_vm_program cvm_vm_program;

/* Pre-decodes every kernel of a verified module. The module and verified
 * info must outlive the program. */
cvm_status cvm_vm_program_build(const cvm_bc_module *mod, const cvm_bc_verified *ver,
                                cvm_alloc_fn fn, void *user, cvm_vm_program **out_prog,
                                cvm_diag *diag);
void cvm_vm_program_free(cvm_vm_program *prog);

/*
 * Runs a whole launch on the calling thread. Returns CVM_OK, CVM_FAULT
 * (diag->has_fault with the record of the lowest (cube, unit) fault),
 * CVM_TIMEOUT, CVM_LIMIT or CVM_OUT_OF_MEMORY. Never raises a signal for
 * a kernel bug in checked mode.
 */
cvm_status cvm_vm_execute(const cvm_vm_program *prog, const cvm_vm_launch *launch,
                          cvm_diag *diag);

#endif /* CVM_VM_EXEC_H */
