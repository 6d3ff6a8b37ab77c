/*
 * none.c - the native tier's compiler in a build without LLVM: no kernel
 * is compiled, and the interpreter runs every launch (vm/jit.h).
 */
#include "backend.h"

#include <stdio.h>

bool cvm_jit_backend_built(void)
{
    return false;
}

cvm_jit_fn cvm_jit_backend_compile(const cvm_vm_program *prog, const cvm_vm_kprog *kp, unsigned W, unsigned shape,
                                   void **handle, char *why, size_t n, bool *again)
{
    (void)prog, (void)kp, (void)W, (void)shape;
    *handle = NULL;
    *again = false;
    snprintf(why, n, "this build of cubevm has no native tier (LLVM was not found)");
    return NULL;
}

void cvm_jit_backend_free(void *handle)
{
    (void)handle;
}

bool cvm_jit_backend_ready(char *why, size_t n)
{
    snprintf(why, n, "this build of cubevm has no native tier (LLVM was not found)");
    return false;
}
