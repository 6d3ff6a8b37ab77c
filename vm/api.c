/*
 * api.c - the public API for the `cpu` device: devices and their counting
 * allocator, buffers, the default stream and launches.
 *
 * This issue runs every stream operation synchronously on the calling
 * thread; the stream still keeps the asynchronous contract (a fault is
 * reported by cvm_stream_sync, later launches are skipped until then), so
 * the worker pool of the runtime issue changes nothing for callers.
 * Modules, kernels and the bytecode tool wrappers are in api_module.c.
 */
#include "api.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* ---- memory ---- */

void *cvm_vm_mem_alloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    cvm_mem *m = user;
    if (new_size == 0) {
        if (ptr) {
            m->fn(m->user, ptr, old_size, 0);
            __atomic_fetch_sub(&m->used, old_size, __ATOMIC_RELAXED);
        }
        return NULL;
    }
    if (!ptr)
        old_size = 0;
    if (new_size > old_size && m->limit) {
        /* Reserve first so concurrent allocations cannot overshoot the limit together. */
        uint64_t grow = new_size - old_size;
        uint64_t before = __atomic_fetch_add(&m->used, grow, __ATOMIC_RELAXED);
        if (before + grow > m->limit || before + grow < before) {
            __atomic_fetch_sub(&m->used, grow, __ATOMIC_RELAXED);
            return NULL;
        }
        void *p = m->fn(m->user, ptr, old_size, new_size);
        if (!p)
            __atomic_fetch_sub(&m->used, grow, __ATOMIC_RELAXED);
        return p;
    }
    void *p = m->fn(m->user, ptr, old_size, new_size);
    if (p) {
        if (new_size >= old_size)
            __atomic_fetch_add(&m->used, new_size - old_size, __ATOMIC_RELAXED);
        else
            __atomic_fetch_sub(&m->used, old_size - new_size, __ATOMIC_RELAXED);
    }
    return p;
}

void *cvm_vm_dev_alloc(cvm_device *dev, size_t size)
{
    return cvm_bc_alloc(cvm_vm_mem_alloc, &dev->mem, size);
}

void cvm_vm_dev_free(cvm_device *dev, void *p, size_t size)
{
    cvm_bc_free(cvm_vm_mem_alloc, &dev->mem, p, size);
}

static cvm_status oom(cvm_device *dev, cvm_diag *diag, const char *what, size_t size)
{
    if (dev->mem.limit && dev->mem.used + size > dev->mem.limit)
        return cvm_diag_set(diag, CVM_OUT_OF_MEMORY,
                            "out of memory: %s (%zu bytes) exceeds the memory limit "
                            "(%llu of %llu bytes in use)", what, size,
                            (unsigned long long)dev->mem.used,
                            (unsigned long long)dev->mem.limit);
    return cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory: %s (%zu bytes)", what, size);
}

/* ---- devices ---- */

static cvm_status unavailable(const char *name, cvm_diag *diag)
{
    size_t n = strcspn(name, ":");
    if ((n == 6 && strncmp(name, "vulkan", 6) == 0) || (n == 4 && strncmp(name, "cuda", 4) == 0))
        return cvm_diag_set(diag, CVM_UNAVAILABLE,
                            "device '%s' is not available: the %.*s backend is not built in yet "
                            "(available: cpu)", name, (int)n, name);
    return cvm_diag_set(diag, CVM_UNAVAILABLE,
                        "device '%s' is not available: unknown device (known: cpu, vulkan[:N], "
                        "cuda[:N]; built in: cpu)", name);
}

cvm_status cvm_device_open(const char *name, const cvm_config *cfg, cvm_device **out_dev,
                           cvm_diag *diag)
{
    if (!out_dev)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_device_open: out_dev is NULL");
    *out_dev = NULL;
    if (!name)
        name = "cpu";
    if (strcmp(name, "cpu") != 0 && strcmp(name, "cpu:0") != 0)
        return unavailable(name, diag);
    cvm_mem mem = {cvm_default_alloc, NULL, 0, 0};
    if (cfg) {
        if (cfg->alloc) {
            mem.fn = cfg->alloc;
            mem.user = cfg->alloc_user;
        }
        mem.limit = cfg->memory_limit;
    }
    /* The device record itself counts against the limit like everything else. */
    cvm_device *dev = cvm_bc_alloc(cvm_vm_mem_alloc, &mem, sizeof *dev);
    if (!dev)
        return cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory opening device '%s'", name);
    dev->mem = mem;
    if (pthread_mutex_init(&dev->lock, NULL) != 0) {
        cvm_bc_free(cvm_vm_mem_alloc, &mem, dev, sizeof *dev);
        return cvm_diag_set(diag, CVM_INTERNAL, "cannot create the device lock");
    }
    dev->stream.dev = dev;
    *out_dev = dev;
    return CVM_OK;
}

static void text_free(cvm_device *dev, cvm_vm_text *t)
{
    if (t->data)
        cvm_vm_dev_free(dev, t->data, t->cap);
    memset(t, 0, sizeof *t);
}

void cvm_device_close(cvm_device *dev)
{
    if (!dev)
        return;
    /* Leftovers are released rather than leaked: modules first, as they own buffers. */
    while (dev->modules)
        cvm_vm_module_release(dev->modules);
    while (dev->buffers)
        cvm_buffer_free(dev->buffers);
    text_free(dev, &dev->stream.out);
    text_free(dev, &dev->stream.shown);
    pthread_mutex_destroy(&dev->lock);
    cvm_mem mem = dev->mem;
    cvm_bc_free(cvm_vm_mem_alloc, &mem, dev, sizeof *dev);
}

cvm_stream *cvm_device_stream(cvm_device *dev) { return dev ? &dev->stream : NULL; }

/* ---- buffers ---- */

cvm_status cvm_vm_buffer_new(cvm_device *dev, size_t size, const char *name, bool writable,
                             cvm_buffer **out, cvm_diag *diag)
{
    *out = NULL;
    cvm_buffer *b = cvm_vm_dev_alloc(dev, sizeof *b);
    if (!b)
        return oom(dev, diag, "a buffer record", sizeof *b);
    b->alloc_size = size ? size : 1;
    b->data = cvm_vm_dev_alloc(dev, b->alloc_size); /* zero-filled, 64-byte aligned */
    if (!b->data) {
        cvm_vm_dev_free(dev, b, sizeof *b);
    {
        char what[160];
        snprintf(what, sizeof what, "buffer '%s'", name && *name ? name : "(unnamed)");
        return oom(dev, diag, what, size);
    }
    }
    b->dev = dev;
    b->size = size;
    b->writable = writable;
    snprintf(b->name, sizeof b->name, "%s", name && *name ? name : "(unnamed buffer)");
    pthread_mutex_lock(&dev->lock);
    b->next = dev->buffers;
    if (dev->buffers)
        dev->buffers->prev = b;
    dev->buffers = b;
    pthread_mutex_unlock(&dev->lock);
    *out = b;
    return CVM_OK;
}

cvm_status cvm_buffer_create(cvm_device *dev, size_t size, const char *name, cvm_buffer **out_buf,
                             cvm_diag *diag)
{
    if (!dev || !out_buf)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_buffer_create: NULL device or out_buf");
    return cvm_vm_buffer_new(dev, size, name, true, out_buf, diag);
}

void cvm_buffer_free(cvm_buffer *buf)
{
    if (!buf)
        return;
    cvm_device *dev = buf->dev;
    pthread_mutex_lock(&dev->lock);
    if (buf->prev)
        buf->prev->next = buf->next;
    else
        dev->buffers = buf->next;
    if (buf->next)
        buf->next->prev = buf->prev;
    pthread_mutex_unlock(&dev->lock);
    cvm_vm_dev_free(dev, buf->data, buf->alloc_size);
    cvm_vm_dev_free(dev, buf, sizeof *buf);
}

size_t cvm_buffer_size(const cvm_buffer *buf) { return buf ? buf->size : 0; }

static cvm_status check_range(const cvm_stream *s, const cvm_buffer *buf, size_t offset,
                              size_t size, const void *mem, const char *fn, cvm_diag *diag)
{
    if (!s || !buf || (size && !mem))
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "%s: NULL stream, buffer or pointer", fn);
    if (buf->dev != s->dev)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT,
                            "%s: buffer '%s' belongs to another device", fn, buf->name);
    if (offset > buf->size || size > buf->size - offset)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT,
                            "%s: range [%zu, +%zu) is outside buffer '%s' of %zu bytes", fn,
                            offset, size, buf->name, buf->size);
    return CVM_OK;
}

cvm_status cvm_buffer_write(cvm_stream *s, cvm_buffer *buf, size_t offset, const void *src,
                            size_t size, cvm_diag *diag)
{
    cvm_status st = check_range(s, buf, offset, size, src, "cvm_buffer_write", diag);
    if (st == CVM_OK && size)
        memcpy(buf->data + offset, src, size);
    return st;
}

cvm_status cvm_buffer_read(cvm_stream *s, const cvm_buffer *buf, size_t offset, void *dst,
                           size_t size, cvm_diag *diag)
{
    cvm_status st = check_range(s, buf, offset, size, dst, "cvm_buffer_read", diag);
    if (st == CVM_OK && size)
        memcpy(dst, buf->data + offset, size);
    return st;
}

cvm_status cvm_buffer_fill(cvm_stream *s, cvm_buffer *buf, size_t offset, size_t size,
                           uint8_t byte, cvm_diag *diag)
{
    cvm_status st = check_range(s, buf, offset, size, buf, "cvm_buffer_fill", diag);
    if (st == CVM_OK && size)
        memset(buf->data + offset, byte, size);
    return st;
}

/* ---- streams ---- */

cvm_status cvm_stream_sync(cvm_stream *s, cvm_diag *diag)
{
    if (!s)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_stream_sync: NULL stream");
    cvm_status st = s->fault;
    if (st != CVM_OK) {
        if (diag) {
            *diag = s->fault_diag;
            if (s->skipped) {
                size_t n = strlen(diag->message);
                snprintf(diag->message + n, sizeof diag->message - n,
                         " (%u later launch%s skipped)", s->skipped, s->skipped == 1 ? "" : "es");
            }
        }
        s->fault = CVM_OK;
        s->skipped = 0;
        memset(&s->fault_diag, 0, sizeof s->fault_diag);
    } else if (diag) {
        memset(diag, 0, sizeof *diag);
    }
    return st;
}

const char *cvm_stream_output(cvm_stream *s)
{
    if (!s)
        return "";
    cvm_device *dev = s->dev;
    text_free(dev, &s->shown);
    if (!s->out.len) {
        text_free(dev, &s->out);
        return "";
    }
    /* Copy into an exact, NUL-terminated block: the interpreter's text may lack the NUL. */
    char *copy = cvm_vm_dev_alloc(dev, s->out.len + 1);
    if (!copy)
        return "";
    memcpy(copy, s->out.data, s->out.len);
    s->shown.data = copy;
    s->shown.len = s->out.len;
    s->shown.cap = s->out.len + 1;
    text_free(dev, &s->out);
    return copy;
}
