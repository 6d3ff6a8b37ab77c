/*
 * race.h - the race checker's interface to the interpreter (vm/race.c;
 * docs/debugging.md "Race checking").
 *
 * A launch with cvm_vm_launch.racecheck runs the exact code one
 * instruction at a time (interp.c run_hooked) and calls
 * cvm_vm_race_step before each. The checker keeps a vector clock per unit
 * of the cube and a record of the last accesses to every shared or global
 * byte the cube touched; an access that conflicts with an earlier one of
 * another unit that does not happen before it is a fault. Barriers report
 * their releases (cvm_vm_race_leave, then cvm_vm_race_released). Each
 * worker has its own checker, freed when the launch ends
 * (cvm_vm_state_trim); it allocates while cubes run and reports running
 * out as CVM_OUT_OF_MEMORY, a cube touching too many bytes as CVM_LIMIT.
 */
#ifndef CVM_VM_RACE_H
#define CVM_VM_RACE_H

#include "interp.h"

/* The largest cube the checker takes: its clocks are units x units words. */
#define CVM_VM_RACE_MAX_UNITS 4096u

/* The barrier index sync_cube uses (named barriers are 0..15). */
#define CVM_VM_RACE_SYNC_CUBE 16u

typedef struct cvm_vm_race cvm_vm_race;

/* Bytes a checker for cubes of `units` units holds before any access is recorded. */
uint64_t cvm_vm_race_bytes(uint32_t units);
/* A checker for cubes of up to `units` units, or NULL when out of memory. */
cvm_vm_race *cvm_vm_race_new(cvm_alloc_fn fn, void *user, uint32_t units);
void cvm_vm_race_free(cvm_vm_race *r);
/* Forgets everything at the start of x's cube. */
void cvm_vm_race_cube(cvm_vm_exec *x);
/* Before plane p executes the instruction at p->pc: false after recording
 * a fault (a race, or CVM_OUT_OF_MEMORY) with cvm_vm_fault. */
bool cvm_vm_race_step(cvm_vm_exec *x, cvm_vm_plane *p);
/* Plane q leaves barrier `bar` (a named barrier's id or
 * CVM_VM_RACE_SYNC_CUBE) that has just completed; after every plane
 * leaving it, cvm_vm_race_released. */
void cvm_vm_race_leave(cvm_vm_exec *x, const cvm_vm_plane *q, unsigned bar);
void cvm_vm_race_released(cvm_vm_exec *x, unsigned bar);

#endif /* CVM_VM_RACE_H */
