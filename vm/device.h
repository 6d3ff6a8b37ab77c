/*
 * device.h - the device interface: what a device (cpu; vulkan in
 * backends/vulkan/; cuda later) implements behind the public API. The
 * public entry points in vm/api.c and vm/api_module.c check their arguments
 * and call through the device's table; vm/devices.def, the only place that
 * names devices, lists each device's table or why it is absent.
 *
 * Shared records (vm/api.h): every device allocates its cvm_device with
 * cvm_vm_device_alloc and keeps the common fields (allocator, lists, the
 * default stream); its own state hangs off the `impl` pointers of the
 * device, stream, buffer and module records. A buffer's `data` must be host
 * memory the device keeps coherent with its copy (cpu: the buffer itself;
 * vulkan: the persistent mapping), because module symbols are initialized
 * and read through it once the stream has drained.
 */
#ifndef CVM_VM_DEVICE_H
#define CVM_VM_DEVICE_H

#include "cubevm.h"

typedef struct cvm_vm_device_ops {
    /* `spec` is the name given to cvm_device_open ("cpu", "vulkan:1"). */
    cvm_status (*open)(const char *spec, const cvm_config *cfg, cvm_device **out_dev,
                       cvm_diag *diag);
    void (*close)(cvm_device *dev);
    void (*limits)(const cvm_device *dev, cvm_device_limits *out);
    cvm_status (*buffer_alloc)(cvm_device *dev, size_t size, const char *name,
                               cvm_buffer **out_buf, cvm_diag *diag);
    void (*buffer_free)(cvm_buffer *buf);
    cvm_status (*buffer_map)(cvm_buffer *buf, void **out_ptr, cvm_diag *diag);
    void (*buffer_unmap)(cvm_buffer *buf);
    /* Stream operations; arguments (ranges, devices) are already checked and size > 0. */
    cvm_status (*buffer_write)(cvm_stream *s, cvm_buffer *buf, size_t offset, const void *src,
                               size_t size, cvm_diag *diag);
    cvm_status (*buffer_read)(cvm_stream *s, const cvm_buffer *buf, size_t offset, void *dst,
                              size_t size, cvm_diag *diag);
    cvm_status (*buffer_fill)(cvm_stream *s, cvm_buffer *buf, size_t offset, size_t size,
                              uint8_t byte, cvm_diag *diag);
    cvm_status (*buffer_copy)(cvm_stream *s, cvm_buffer *dst, size_t dst_offset,
                              const cvm_buffer *src, size_t src_offset, size_t size,
                              cvm_diag *diag);
    /* After verification: the device's form of the module (cpu: the interpreter
     * program; vulkan: its pipeline cache per kernel). module_fini undoes a
     * complete or partial module_init. */
    cvm_status (*module_init)(cvm_module *mod, cvm_diag *diag);
    void (*module_fini)(cvm_module *mod);
    cvm_status (*stream_create)(cvm_device *dev, cvm_stream **out_stream, cvm_diag *diag);
    void (*stream_destroy)(cvm_stream *s);
    /* Waits for queued work and reports (then clears) the first fault. */
    cvm_status (*stream_sync)(cvm_stream *s, cvm_diag *diag);
    /* Waits for queued work, keeping any fault for the next sync. */
    void (*stream_wait)(cvm_stream *s);
    /* Waits until no stream of the device has queued work. */
    void (*device_wait)(cvm_device *dev);
    /* Waits until no queued launch uses the module (cpu: its own launches
     * only, so a free never waits on another module's kernel). */
    void (*module_wait)(cvm_module *mod);
    const char *(*stream_output)(cvm_stream *s);
    cvm_status (*launch)(cvm_stream *s, const cvm_kernel *k, const cvm_launch_config *cfg,
                         const cvm_arg *args, uint32_t nargs, cvm_diag *diag);
} cvm_vm_device_ops;

/* The cpu device (vm/api.c). */
extern const cvm_vm_device_ops cvm_vm_cpu_ops;
/* The vulkan device (backends/vulkan/), built when volk.h is found (CVM_HAVE_VULKAN). */
extern const cvm_vm_device_ops cvm_vk_ops;

#endif /* CVM_VM_DEVICE_H */
