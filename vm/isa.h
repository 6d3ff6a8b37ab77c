/*
 * isa.h - which compiled variant of the interpreter's hot code runs.
 *
 * The Makefile compiles interp_run.c, interp_mem.c and interp_plane.c once
 * per x86-64 level (baseline x86-64, x86-64-v3, x86-64-v4) with
 * -DCVM_ISA_SUFFIX, which renames their entry points (interp.h); isa.c
 * defines the plain cvm_vm_run_plane that interp.c calls and forwards it to
 * the best level this CPU runs, or the one CUBEVM_ISA names. Builds without
 * variants (other architectures, ISA=off) have the single level "native".
 */
#ifndef CVM_VM_ISA_H
#define CVM_VM_ISA_H

#include "../bytecode/bc.h"

enum { CVM_VM_ISA_X86_64, CVM_VM_ISA_V3, CVM_VM_ISA_V4, CVM_VM_ISA_COUNT };

/* "x86-64", "x86-64-v3", "x86-64-v4" ("native" in a build without variants). */
const char *cvm_vm_isa_name(unsigned level);

/* Bit per level that is compiled in and that this CPU (and OS) runs. */
unsigned cvm_vm_isa_supported(void);

/*
 * The level to run: `forced` (a level name; NULL or "" for the best level
 * in `mask`) checked against `mask`. An unknown name gives
 * CVM_INVALID_ARGUMENT, a level outside `mask` CVM_UNSUPPORTED.
 */
cvm_status cvm_vm_isa_choose(const char *forced, unsigned mask, unsigned *out_level,
                             cvm_diag *diag);

/*
 * The level in use, chosen once per process (thread-safe) from
 * cvm_vm_isa_supported() and the environment variable CUBEVM_ISA. Returns
 * the choice's status; launches fail with it while it is an error.
 */
cvm_status cvm_vm_isa_current(unsigned *out_level, cvm_diag *diag);

/*
 * Whether a cube's planes may run in lockstep (vm/interp_lockstep.c):
 * true unless the environment variable CUBEVM_LOCKSTEP is "0" (read once
 * per process), so tests and benchmarks can compare both ways.
 */
bool cvm_vm_lockstep_allowed(void);

#endif /* CVM_VM_ISA_H */
