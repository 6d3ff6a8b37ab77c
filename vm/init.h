/*
 * init.h - the uninitialized-read checker's interface to the interpreter
 * (vm/init.c; docs/debugging.md "Uninitialized reads").
 *
 * A launch with cvm_vm_launch.initcheck runs the exact code one
 * instruction at a time (interp.c run_hooked), as under the race checker,
 * and calls cvm_vm_init_step before each: a load or atomic that reads a
 * byte of shared memory no unit of the cube has written, or a byte of a
 * unit's local memory that unit has not written, is a fault. Each worker
 * has its own checker, sized when the worker is set up for the launch.
 */
#ifndef CVM_VM_INIT_H
#define CVM_VM_INIT_H

#include "interp.h"

typedef struct cvm_vm_init cvm_vm_init;

/* Bytes a checker for cubes with `shared` shared and `local` local bytes (all units) holds. */
uint64_t cvm_vm_init_bytes(uint64_t shared, uint64_t local);
/* A checker for such cubes, or NULL when out of memory. */
cvm_vm_init *cvm_vm_init_new(cvm_alloc_fn fn, void *user, uint64_t shared, uint64_t local);
void cvm_vm_init_free(cvm_vm_init *c);
/* Forgets every write at the start of x's cube. */
void cvm_vm_init_cube(cvm_vm_exec *x);
/* Before plane p executes the instruction at p->pc: false after recording
 * a fault with cvm_vm_fault. */
bool cvm_vm_init_step(cvm_vm_exec *x, cvm_vm_plane *p);

#endif /* CVM_VM_INIT_H */
