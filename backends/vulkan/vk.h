/*
 * vk.h - the vulkan device's internal records, shared by its files:
 * vk_device.c (instance, physical device choice, features, limits),
 * vk_stream.c (buffers, command buffers, submissions, fences, streams) and
 * vk_launch.c (pipelines per kernel specialization, descriptor sets, push
 * constants, dispatch). Vulkan entry points come from volk: instance-level
 * ones are the loader's (global), device-level ones go through each
 * device's own table, so several devices can be open at once.
 */
#ifndef CVM_VK_H
#define CVM_VK_H

#include "../../vm/api.h"
#include "../spirv/spv.h"

#include <volk.h>

/* At most this many queues of the compute family are used. */
#define CVM_VK_QUEUES 4

typedef struct vk_dev {
    VkPhysicalDevice phys;
    VkDevice device;
    struct VolkDeviceTable vk;
    VkQueue queue;                /* queues[0]: the default stream, one-shot transfers */
    VkQueue queues[CVM_VK_QUEUES]; /* of the compute family; created streams take turns */
    uint32_t nqueues, next_queue;
    uint32_t queue_family;
    pthread_mutex_t queue_lock;   /* vkQueueSubmit and vkQueueWaitIdle need it (every queue) */
    VkPipelineCache pipeline_cache;
    uint32_t pipelines_built;     /* vkCreateComputePipelines calls that succeeded (atomic) */
    size_t cache_loaded;          /* bytes of persisted pipeline cache given to the driver */
    bool cache_saved;             /* the close wrote the cache file */
    char cache_note[700];         /* what happened to the cache file (tests, diagnosis) */
    VkPhysicalDeviceProperties props;
    VkPhysicalDeviceMemoryProperties mem_props;
    uint32_t host_mem_type;       /* host-visible, coherent (device-local if possible) */
    /*
     * Buffers live in device-local memory the host cannot map, reached
     * through staging copies (discrete GPUs without a device-local
     * host-visible type; CUBEVM_VK_STAGED=1 forces it, for tests), with a
     * host shadow as cvm_buffer.data. Otherwise buffers are mapped.
     */
    bool staged;
    uint32_t local_mem_type;      /* device-local (staged only) */
    pthread_mutex_t once_lock;    /* the one-shot command pool below */
    VkCommandPool once_pool;      /* transfers outside any stream (zeroing, map, unmap) */
    uint32_t subgroup_size, subgroup_min, subgroup_max;
    bool size_control_compute;    /* a required subgroup size is possible for compute */
    uint32_t index;               /* in the loader's enumeration order */
    cvm_spv_target target;
    char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
    bool lost;                    /* VK_ERROR_DEVICE_LOST was seen, or a launch hung */
    /*
     * A launch ran past its timeout. Vulkan cannot stop a dispatch, so from
     * then on nothing waits for the queue and no Vulkan object is destroyed
     * (the running shader may still use any of them): closing the device
     * frees cubevm's own records and leaves the driver's to process exit.
     */
    bool hung;
} vk_dev;

/* A launch's print records (vk_print.c). */
typedef struct vk_print vk_print;

/* Work submitted for one stream operation; released when its fence signals. */
typedef struct vk_sub {
    struct vk_sub *next;
    VkCommandBuffer cb;
    VkFence fence;
    VkBuffer staging;             /* write/fill/copy/uniform bytes, if any */
    VkDeviceMemory staging_mem;
    VkDescriptorPool dpool;       /* a launch's descriptor set */
    vk_print *print;              /* a printing launch's records, formatted when it finished */
    bool is_launch;
    uint64_t deadline_ns;         /* a launch's timeout (CLOCK_MONOTONIC), 0: none */
    double timeout_s;
    char kernel[64];              /* a launch's kernel, for the timeout message */
} vk_sub;

typedef struct vk_stream {
    VkCommandPool pool;           /* used by the stream's host thread only */
    VkQueue queue;                /* every submission of the stream: they run in order */
    vk_sub *head, *tail;          /* submitted, oldest first */
} vk_stream;

typedef struct vk_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize vsize;           /* bytes of the VkBuffer (>= 4, a multiple of 4) */
    bool staged;                  /* device-local; cvm_buffer.data is a host shadow */
} vk_buffer;

static inline vk_dev *vkd(const cvm_device *dev) { return dev->impl; }

/* vk_device.c */
cvm_status cvm_vk_result(VkResult r, cvm_diag *diag, const char *what);
/*
 * With CUBEVM_VK_VALIDATION=1 in the environment the instance enables
 * VK_LAYER_KHRONOS_validation (opening fails as unavailable without it) and
 * keeps its warnings and errors: the count since the process started, and
 * the first message's text in `first` (may be NULL).
 */
uint32_t cvm_vk_validation_messages(char *first, size_t cap);
cvm_status cvm_vk_memory_type(const vk_dev *d, uint32_t type_bits, uint32_t *out);
/*
 * Staging is worth it when the chosen host-visible type is not device-local
 * while a device-local type is usable (`force`: CUBEVM_VK_STAGED=1). Sets
 * d->staged and d->local_mem_type; a pure function of the memory table.
 */
void cvm_vk_choose_layout(vk_dev *d, uint32_t type_bits, bool force);

/* vk_cache.c */
/* The cache file of this device (and its directory); false when no directory can be named. */
bool cvm_vk_cache_path(const vk_dev *d, char *out, size_t cap, char *dir, size_t dir_cap);
/* Creates d->pipeline_cache from the persisted file when it is usable, else empty. */
cvm_status cvm_vk_cache_open(cvm_device *dev, cvm_diag *diag);
/* Writes the cache back (atomically) if pipelines were built; failures are ignored. */
void cvm_vk_cache_save(cvm_device *dev);

/* vk_stream.c */
cvm_status cvm_vk_stream_init(cvm_device *dev, cvm_stream *s, cvm_diag *diag);
void cvm_vk_stream_fini(cvm_stream *s);
/* A host-visible buffer with `usage`, mapped at *out_map (staging/uniform bytes). */
cvm_status cvm_vk_raw_buffer(cvm_device *dev, VkDeviceSize size, VkBufferUsageFlags usage,
                             VkBuffer *out_buf, VkDeviceMemory *out_mem, void **out_map,
                             cvm_diag *diag);
/* Begins a command buffer for one stream operation (with the ordering barrier). */
cvm_status cvm_vk_begin(cvm_stream *s, vk_sub **out, cvm_diag *diag);
/* Ends, submits with a fence, and queues `sub` on the stream; on failure releases it. */
cvm_status cvm_vk_submit(cvm_stream *s, vk_sub *sub, cvm_diag *diag);
/* Releases an operation that was begun but not submitted. */
void cvm_vk_abandon(cvm_stream *s, vk_sub *sub);
/* A transfer outside any stream: begins a command buffer (holding once_lock)... */
cvm_status cvm_vk_once_begin(cvm_device *dev, VkCommandBuffer *out, cvm_diag *diag);
/* ...then submits it, waits for it and releases the lock (also on failure). */
cvm_status cvm_vk_once_end(cvm_device *dev, VkCommandBuffer cb, cvm_diag *diag);

extern const cvm_vm_device_ops cvm_vk_ops;
cvm_status cvm_vk_buffer_alloc(cvm_device *dev, size_t size, const char *name,
                               cvm_buffer **out_buf, cvm_diag *diag);
void cvm_vk_buffer_free(cvm_buffer *buf);
cvm_status cvm_vk_buffer_map(cvm_buffer *buf, void **out_ptr, cvm_diag *diag);
void cvm_vk_buffer_unmap(cvm_buffer *buf);
cvm_status cvm_vk_buffer_write(cvm_stream *s, cvm_buffer *buf, size_t offset, const void *src,
                               size_t size, cvm_diag *diag);
cvm_status cvm_vk_buffer_read(cvm_stream *s, const cvm_buffer *buf, size_t offset, void *dst,
                              size_t size, cvm_diag *diag);
cvm_status cvm_vk_buffer_fill(cvm_stream *s, cvm_buffer *buf, size_t offset, size_t size,
                              uint8_t byte, cvm_diag *diag);
cvm_status cvm_vk_buffer_copy(cvm_stream *s, cvm_buffer *dst, size_t dst_offset,
                              const cvm_buffer *src, size_t src_offset, size_t size,
                              cvm_diag *diag);
cvm_status cvm_vk_stream_create(cvm_device *dev, cvm_stream **out, cvm_diag *diag);
void cvm_vk_stream_destroy(cvm_stream *s);
cvm_status cvm_vk_stream_sync(cvm_stream *s, cvm_diag *diag);
void cvm_vk_stream_wait(cvm_stream *s);
void cvm_vk_device_wait(cvm_device *dev);

/* vk_launch.c */
/* One kernel translated at one plane width, with its pipelines. */
typedef struct cvm_vk_variant cvm_vk_variant;
cvm_status cvm_vk_variant_build(cvm_device *dev, const uint32_t *words, size_t count,
                                const cvm_spv_layout *spv, cvm_vk_variant *v, cvm_diag *diag);
/* `bc`: the module whose allocator holds the layout's params, NULL if the caller owns them. */
void cvm_vk_variant_free(cvm_device *dev, const cvm_bc_module *bc, cvm_vk_variant *v);
/*
 * `bc`: the module (print formats; NULL when the layout has no print
 * sites). `symbufs`: the module's per-symbol buffers (the layout's syms
 * index them; NULL when it has none). `timeout_s` > 0: a sync waiting
 * longer for this launch reports CVM_TIMEOUT (`kname`).
 */
cvm_status cvm_vk_dispatch(cvm_stream *s, cvm_vk_variant *v, VkPipeline pipeline,
                           const uint32_t grid[3], const cvm_arg *args, const cvm_bc_module *bc,
                           cvm_buffer *const *symbufs, double timeout_s, const char *kname,
                           cvm_diag *diag);
/*
 * Runs SPIR-V words directly (tests, diagnosis): builds a pipeline for
 * `layout` and local size `block`, dispatches `grid` with `args` (one per
 * layout parameter), waits for it and releases the pipeline.
 */
cvm_status cvm_vk_run_spirv(cvm_stream *s, const uint32_t *words, size_t count,
                            const cvm_spv_layout *layout, const uint32_t grid[3],
                            const uint32_t block[3], const cvm_arg *args, cvm_diag *diag);
cvm_status cvm_vk_module_init(cvm_module *mod, cvm_diag *diag);

/* vk_print.c */
/* The record buffer of a launch of a kernel with print, trap or assert sites (layout.nprints > 0);
 * `kernel` names it in fault reports. */
cvm_status cvm_vk_print_begin(cvm_stream *s, const cvm_spv_layout *l, const cvm_bc_module *bc,
                              const char *kernel, vk_print **out, cvm_diag *diag);
VkDescriptorBufferInfo cvm_vk_print_info(const vk_print *p);
/* Formats the finished launch's records onto the stream's output; false: out of memory. */
bool cvm_vk_print_emit(cvm_stream *s, const vk_print *p);
/* A finished launch's trap/assert fault (true: *why holds CVM_FAULT and the fault record). */
bool cvm_vk_print_fault(const vk_print *p, cvm_diag *why);
void cvm_vk_print_free(cvm_device *dev, vk_print *p);
/* cvm_stream_output: waits for the stream, hands out the text since the last call. */
const char *cvm_vk_stream_output(cvm_stream *s);
void cvm_vk_module_fini(cvm_module *mod);
cvm_status cvm_vk_launch(cvm_stream *s, const cvm_kernel *k, const cvm_launch_config *cfg,
                         const cvm_arg *args, uint32_t nargs, cvm_diag *diag);

#endif /* CVM_VK_H */
