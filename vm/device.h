/*
 * device.h - the device interface: what a device (cpu here; vulkan and
 * cuda backends later) implements behind the public API. The public entry
 * points in vm/api.c check their arguments and call through the device's
 * table; vm/devices.def, the only place that names devices, lists each
 * device's table or why it is absent.
 *
 * Buffer write/read/copy/fill and kernel-module loading are the cpu
 * device's own today; a backend adds them to this table when it arrives.
 */
#ifndef CVM_VM_DEVICE_H
#define CVM_VM_DEVICE_H

#include "cubevm.h"

typedef struct cvm_vm_device_ops {
    /* `spec` is the name given to cvm_device_open ("cpu", "cuda:1"). */
    cvm_status (*open)(const char *spec, const cvm_config *cfg, cvm_device **out_dev,
                       cvm_diag *diag);
    void (*close)(cvm_device *dev);
    void (*limits)(const cvm_device *dev, cvm_device_limits *out);
    cvm_status (*buffer_alloc)(cvm_device *dev, size_t size, const char *name,
                               cvm_buffer **out_buf, cvm_diag *diag);
    void (*buffer_free)(cvm_buffer *buf);
    cvm_status (*buffer_map)(cvm_buffer *buf, void **out_ptr, cvm_diag *diag);
    cvm_status (*stream_create)(cvm_device *dev, cvm_stream **out_stream, cvm_diag *diag);
    void (*stream_destroy)(cvm_stream *s);
    cvm_status (*stream_sync)(cvm_stream *s, cvm_diag *diag);
    cvm_status (*launch)(cvm_stream *s, const cvm_kernel *k, const cvm_launch_config *cfg,
                         const cvm_arg *args, uint32_t nargs, cvm_diag *diag);
} cvm_vm_device_ops;

/* The cpu device (vm/api.c). */
extern const cvm_vm_device_ops cvm_vm_cpu_ops;

#endif /* CVM_VM_DEVICE_H */
