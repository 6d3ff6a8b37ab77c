/*
 * api.h - the handles behind the public API (vm/api.c, vm/api_module.c).
 *
 * Every byte the library holds for a device goes through the device's
 * counting allocator (struct cvm_mem), which wraps the user's hook and
 * enforces cvm_config.memory_limit; the bytecode and interpreter layers
 * receive it as their cvm_alloc_fn.
 */
#ifndef CVM_VM_API_H
#define CVM_VM_API_H

#include "cubevm.h"
#include "exec.h"

#include <pthread.h>

typedef struct cvm_mem {
    cvm_alloc_fn fn; /* the user's hook or cvm_default_alloc */
    void *user;
    uint64_t limit;  /* 0 = none */
    uint64_t used;   /* bytes held now; updated with __atomic builtins */
} cvm_mem;

/* The allocator handed to every layer: `user` is a cvm_mem. */
void *cvm_vm_mem_alloc(void *user, void *ptr, size_t old_size, size_t new_size);

struct cvm_buffer {
    cvm_device *dev;
    uint8_t *data;
    size_t size;       /* bytes visible to kernels */
    size_t alloc_size; /* bytes allocated (at least 1) */
    char name[128];
    bool writable;
    cvm_buffer *prev, *next; /* the device's live buffers */
};

struct cvm_stream {
    cvm_device *dev;
    cvm_status fault;   /* first error since the last sync, CVM_OK if none */
    cvm_diag fault_diag;
    uint32_t skipped;   /* launches skipped because of that error */
    cvm_vm_text out;    /* print text accumulating */
    cvm_vm_text shown;  /* text returned by the last cvm_stream_output */
};

struct cvm_kernel {
    const cvm_module *mod;
    uint32_t index;
};

struct cvm_module {
    cvm_device *dev;
    cvm_bc_module *bc;
    cvm_bc_verified *ver;
    cvm_vm_program *prog;
    cvm_kernel *kernels;   /* bc->nkernels */
    cvm_buffer **symbufs;  /* per symbol: its buffer (global symbols), NULL for constants */
    uint64_t *sym_value;   /* per symbol: address (global) or offset in the const space */
    uint8_t *const_data;   /* the ptr.const space: bc->const_size bytes */
    cvm_module *prev, *next;
};

struct cvm_device {
    cvm_mem mem;
    pthread_mutex_t lock;  /* guards the buffer and module lists */
    cvm_stream stream;     /* the default stream */
    cvm_buffer *buffers;
    cvm_module *modules;
};

void *cvm_vm_dev_alloc(cvm_device *dev, size_t size);          /* zeroed */
void cvm_vm_dev_free(cvm_device *dev, void *p, size_t size);

/* A buffer named `name` with `align`-aligned (<= 64) storage; the device list tracks it. */
cvm_status cvm_vm_buffer_new(cvm_device *dev, size_t size, const char *name, bool writable,
                             cvm_buffer **out, cvm_diag *diag);

/* Frees a module; callers hold no lock. */
void cvm_vm_module_release(cvm_module *mod);

#endif /* CVM_VM_API_H */
