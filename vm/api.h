/*
 * api.h - the handles behind the public API (vm/api.c, vm/api_launch.c,
 * vm/api_module.c): the records every device shares, the cpu device's own
 * fields and its stream operations, which the worker pool (vm/pool.c)
 * executes. Other devices (backends/vulkan/) keep their state behind the
 * records' `impl` pointers and leave the cpu-only fields zero.
 *
 * Every byte the library holds for a device goes through the device's
 * counting allocator (struct cvm_mem), which wraps the user's hook and
 * enforces cvm_config.memory_limit; the bytecode and interpreter layers
 * receive it as their cvm_alloc_fn.
 */
#ifndef CVM_VM_API_H
#define CVM_VM_API_H

#include "cubevm.h"
#include "device.h"
#include "exec.h"
#include "profile.h"

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
    uint16_t tag;            /* provenance tag in the top bits of its kernel pointers */
    cvm_buffer *prev, *next; /* the device's live buffers */
    /* guarded by the pool lock: */
    uint32_t uses;           /* queued stream operations that use the buffer */
    bool freed;              /* cvm_buffer_free came while uses > 0: the last use frees it */
    void *impl;              /* device-specific state (not cpu) */
};

/* A queued stream operation (vm/pool.c runs them). */
typedef enum cvm_vm_opkind { CVM_VM_OP_LAUNCH, CVM_VM_OP_WRITE, CVM_VM_OP_COPY,
                             CVM_VM_OP_FILL } cvm_vm_opkind;

/*
 * One allocation holds the record and everything it points to (staged
 * bytes, parameters, offsets, buffer list, the run record); blocks of the
 * common size are kept for reuse (cvm_device.spare_ops), so a launch or a
 * buffer operation usually allocates nothing.
 */
typedef struct cvm_vm_op {
    cvm_vm_opkind kind;
    struct cvm_vm_op *next;
    size_t block;            /* bytes of the allocation that starts with this record */
    cvm_stream *stream;
    cvm_buffer *dst, *src;   /* write/copy/fill (each holds a use) */
    size_t dst_off, src_off, size;
    uint8_t byte;
    uint8_t *staged;         /* write: the host bytes, copied at enqueue (in the block) */
    /* launch */
    const cvm_kernel *kernel;
    cvm_vm_launch L;
    cvm_vm_run *run;
    uint8_t *params;
    size_t param_bytes;
    uint32_t *offsets;
    size_t noffsets;
    cvm_buffer **bufs;       /* buffer arguments (each holds a use) */
    uint32_t nbufs;
    uint8_t *arena;          /* room in the block for the run record (L.alloc) */
    size_t arena_size;
    bool arena_used;         /* atomic */
    /* a launch under the debugger (api_debug.c) */
    cvm_debug_hook debug_hook;
    void *debug_user;
    size_t debug_shown;      /* print text the hook has handed out */
} cvm_vm_op;

struct cvm_stream {
    cvm_device *dev;
    /* guarded by the pool lock: */
    cvm_vm_op *head, *tail;  /* queued operations, oldest first */
    bool busy;               /* an operation of this stream is running */
    cvm_status fault;        /* first error since the last sync, CVM_OK if none */
    cvm_diag fault_diag;
    uint32_t skipped;        /* launches skipped because of that error */
    cvm_vm_text out;         /* print text accumulating */
    cvm_vm_text shown;       /* text returned by the last cvm_stream_output */
    cvm_stream *prev, *next; /* the device's created streams */
    void *impl;              /* device-specific state (not cpu) */
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
    uint32_t uses;         /* cpu: queued launches of its kernels (guarded by the pool lock) */
    cvm_module *prev, *next;
    void *impl;            /* device-specific state (not cpu) */
};

typedef struct cvm_vm_pool cvm_vm_pool;

struct cvm_device {
    const cvm_vm_device_ops *ops;
    cvm_mem mem;
    pthread_mutex_t lock;  /* guards the buffer, module and stream lists */
    cvm_stream stream;     /* the default stream */
    cvm_buffer *buffers;
    uint16_t last_tag;     /* the last buffer tag handed out (guarded by lock) */
    uint64_t *tags_used;   /* bit t: a live buffer holds tag t; made when the tags first
                              wrap, NULL until then (guarded by lock) */
    uint64_t buffers_gen;  /* counts changes of the buffer list (guarded by lock) */
    cvm_module *modules;
    cvm_stream *streams;   /* created streams */
    cvm_vm_pool *pool;     /* the workers and the queues */
    /* cpu, guarded by the pool lock: */
    cvm_vm_op *spare_ops;  /* released operation blocks kept for reuse */
    uint32_t nspare;
    cvm_vm_region *regions;/* every live buffer by address, for checked mode; rebuilt */
    uint32_t nregions;     /* when a launch starts after the buffer list changed */
    uint32_t cap_regions;
    uint64_t regions_gen;  /* buffers_gen when it was built; valid while regions != NULL */
    const cvm_vm_profile *profile;
    uint8_t schedule;      /* CVM_VM_SCHED_* */
    uint64_t seed;
    void *impl;            /* device-specific state (not cpu) */
};

/*
 * A zeroed device record for `ops`, allocated through the counting allocator
 * that `cfg` describes (the record counts against its limit), with its lock
 * and default stream set up. cvm_vm_device_dealloc frees it.
 */
cvm_status cvm_vm_device_alloc(const cvm_config *cfg, const cvm_vm_device_ops *ops,
                               const char *name, cvm_device **out, cvm_diag *diag);
void cvm_vm_device_dealloc(cvm_device *dev);
/* Releases the modules and buffers the host left behind (device close). */
void cvm_vm_device_release_all(cvm_device *dev);

/* Leaves `diag` (may be NULL) as a success does: status OK, no message,
 * position, offset or fault. Only those fields are written: clearing all
 * 1.5 KiB on every launch and sync costs more than the rest of a sync. */
void cvm_vm_diag_ok(cvm_diag *diag);

/* Adds or removes a buffer on the device's list of live buffers. */
cvm_status cvm_vm_buffer_link(cvm_buffer *buf, cvm_diag *diag);
void cvm_vm_buffer_unlink(cvm_buffer *buf);
/* "out of memory: WHAT (N bytes)", naming the memory limit when that is the cause. */
cvm_status cvm_vm_oom(const cvm_device *dev, cvm_diag *diag, const char *what, size_t size);

void *cvm_vm_dev_alloc(cvm_device *dev, size_t size);          /* zeroed */
void cvm_vm_dev_free(cvm_device *dev, void *p, size_t size);

/* A buffer named `name` with `align`-aligned (<= 64) storage; the device list tracks it. */
cvm_status cvm_vm_buffer_new(cvm_device *dev, size_t size, const char *name, bool writable,
                             cvm_buffer **out, cvm_diag *diag);

/* Unlinks and frees a buffer now (the pool calls it when a deferred free's last use ends). */
void cvm_vm_buffer_destroy(cvm_buffer *buf);

/* Frees a module; callers hold no lock. */
void cvm_vm_module_release(cvm_module *mod);

/* Returns the stream's first fault since the last sync (with the skipped-launch count in
 * diag) and clears it; the caller has waited for the stream. */
cvm_status cvm_vm_stream_take_fault(cvm_stream *s, cvm_diag *diag);
/* Waits until `s` has no queued or running operation (the device's stream_wait). */
void cvm_vm_stream_wait(cvm_stream *s);

/* api_module.c: the cpu device's module state (the interpreter program). */
cvm_status cvm_vm_cpu_module_init(cvm_module *mod, cvm_diag *diag);
void cvm_vm_cpu_module_fini(cvm_module *mod);

/* api_launch.c: the cpu device's launch (checks, packs, queues). */
cvm_status cvm_vm_cpu_launch(cvm_stream *s, const cvm_kernel *k, const cvm_launch_config *cfg,
                             const cvm_arg *args, uint32_t nargs, cvm_diag *diag);
/* A launch under the debugger (api_debug.c): the interpreter's hook and the user's. */
typedef struct cvm_vm_debugging {
    int (*trampoline)(void *op, struct cvm_vm_exec *x, struct cvm_vm_plane *p, int event);
    cvm_debug_hook hook;
    void *user;
} cvm_vm_debugging;
/* cvm_vm_cpu_launch, under a debugger when dbg is not NULL: one worker, cubes
 * and planes in order, the hook called with the launch's record (cvm_vm_op). */
cvm_status cvm_vm_cpu_launch_with(cvm_stream *s, const cvm_kernel *k, const cvm_launch_config *cfg,
                                  const cvm_arg *args, uint32_t nargs, const cvm_vm_debugging *dbg,
                                  cvm_diag *diag);
/* api_launch.c: checks each argument against its parameter (any device) and
 * computes the cpu's packed layout (offsets: one per parameter). */
cvm_status cvm_vm_check_args(const cvm_stream *s, const cvm_bc_module *bc,
                             const cvm_bc_kernel *bk, const cvm_arg *args, uint32_t nargs,
                             uint32_t *offsets, size_t *out_bytes, cvm_diag *diag);
/* api_launch.c: operation records. A zeroed record with `extra` bytes for the
 * caller at op_extra(op) (64-byte aligned); NULL when out of memory. */
cvm_vm_op *cvm_vm_op_new(cvm_device *dev, size_t extra);
uint8_t *cvm_vm_op_extra(cvm_vm_op *op);
/* Releases what the operation holds except buffer uses (the pool drops those);
 * `locked`: the caller holds the pool lock, so the block may be kept for reuse. */
void cvm_vm_op_release(cvm_device *dev, cvm_vm_op *op, bool locked);
/* Frees the blocks kept for reuse and the region table (device close). */
void cvm_vm_op_cache_free(cvm_device *dev);
/* api_launch.c: the pool's hook for launch operations. Points the launch at
 * the device's region table, rebuilt first if the buffer list changed (the
 * pool lock is held and no launch is active). */
cvm_status cvm_vm_launch_prepare(cvm_vm_op *op, cvm_diag *diag);

/* Frees a stream's print text (cvm_stream.out, .shown) and empties it. */
void cvm_vm_text_free(cvm_device *dev, cvm_vm_text *t);

#endif /* CVM_VM_API_H */
