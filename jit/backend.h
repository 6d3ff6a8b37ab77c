/*
 * backend.h - the native tier's compiler (jit/native.c with LLVM,
 * jit/none.c without), behind vm/jit_rt.c's policy (vm/jit.h).
 */
#ifndef CVM_JIT_BACKEND_H
#define CVM_JIT_BACKEND_H

#include "../vm/jit.h"

/* Whether this build can compile kernels to native code. */
bool cvm_jit_backend_built(void);

/*
 * Compiles kernel kp for plane width W, for cubes of shape class
 * `shape` (cvm_jit_shape): the plane function, and in
 * *handle what cvm_jit_backend_free releases; NULL with the reason in
 * why (n bytes) when the kernel uses what the tier does not compile or
 * LLVM fails, and *again set when the failure was for want of memory or a
 * thread (a later launch may try again). Called under jit_rt.c's lock.
 */
cvm_jit_fn cvm_jit_backend_compile(const cvm_vm_program *prog, const cvm_vm_kprog *kp, unsigned W, unsigned shape,
                                   void **handle, char *why, size_t n, bool *again);
void cvm_jit_backend_free(void *handle);
/* Whether native code can be made in this process (LLVM loads, its JIT
 * starts): true with what makes it in why, false with the reason. Called
 * under jit_rt.c's lock, as compiles are. */
bool cvm_jit_backend_ready(char *why, size_t n);

#endif /* CVM_JIT_BACKEND_H */
