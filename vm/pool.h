/*
 * pool.h - the cpu device's workers and stream queues (vm/pool.c).
 *
 * Each device owns one pool: N worker threads, created when the device
 * opens and reused, each with its own execution state (vm/exec.h), plus
 * one more state for a host thread that waits: while it waits it executes
 * work too instead of sleeping. Streams queue operations; an operation
 * starts when it is the oldest of its stream and nothing else of its
 * stream runs. One launch runs at a time, its cubes spread over every
 * worker; buffer operations of other streams run beside it.
 */
#ifndef CVM_VM_POOL_H
#define CVM_VM_POOL_H

#include "api.h"

/* Starts `threads` (>= 1) workers for `dev`. */
cvm_status cvm_vm_pool_new(cvm_device *dev, uint32_t threads, cvm_vm_pool **out_pool,
                           cvm_diag *diag);
/* Waits for all queued work, stops the workers, frees their states. */
void cvm_vm_pool_free(cvm_vm_pool *pool);
/* Execution states that may run cubes of one launch at once (threads + 1). */
uint32_t cvm_vm_pool_slots(const cvm_vm_pool *pool);

/* Queues `op` on its stream (op->stream); takes a use of every buffer it
 * names, and of its kernel's module for a launch. */
void cvm_vm_pool_submit(cvm_vm_pool *pool, cvm_vm_op *op);

/* Wait, executing queued work meanwhile, until: */
void cvm_vm_pool_wait_stream(cvm_vm_pool *pool, cvm_stream *s);  /* s has no work */
void cvm_vm_pool_wait_buffer(cvm_vm_pool *pool, cvm_buffer *b);  /* no queued work uses b */
void cvm_vm_pool_wait_module(cvm_vm_pool *pool, cvm_module *m);  /* no queued launch of m's kernels */
void cvm_vm_pool_wait_all(cvm_vm_pool *pool);                    /* no work at all */

/* The pool's lock guards streams' queues and faults and buffers' and modules' uses. */
void cvm_vm_pool_lock(cvm_vm_pool *pool);
void cvm_vm_pool_unlock(cvm_vm_pool *pool);

#endif /* CVM_VM_POOL_H */
