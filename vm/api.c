/*
 * api.c - the public API's devices, buffers and streams: the device
 * registry (vm/devices.def), the counting allocator, the argument checks
 * and dispatch through each device's table (vm/device.h), and the cpu
 * device's implementation, whose stream operations are queued for the
 * worker pool (vm/pool.c). The cpu device's launches are in api_launch.c;
 * modules, kernels and the bytecode tool wrappers in api_module.c.
 */
#include "api.h"

#include "pool.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- memory ---- */

static void *device_default_alloc(void *user, void *ptr, size_t old_size, size_t new_size);

/* The host's hook is called by one thread at a time, whichever device or
 * worker asks: a hook written for Lua's contract (a counter, an arena)
 * need not be thread-safe. Workers grow their scratch through it at the
 * start of a launch, all at once. Those calls are few (a launch usually
 * allocates nothing), so one lock for the process costs nothing that
 * shows; the library's own allocator goes unlocked. */
static bool hook_busy;

static void *call_hook(const cvm_mem *m, void *ptr, size_t old_size, size_t new_size)
{
    if (m->fn == device_default_alloc)
        return m->fn(m->user, ptr, old_size, new_size);
    while (__atomic_test_and_set(&hook_busy, __ATOMIC_ACQUIRE))
        sched_yield();
    void *p = m->fn(m->user, ptr, old_size, new_size);
    __atomic_clear(&hook_busy, __ATOMIC_RELEASE);
    return p;
}

void *cvm_vm_mem_alloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    cvm_mem *m = user;
    if (new_size == 0) {
        if (ptr) {
            call_hook(m, ptr, old_size, 0);
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
        void *p = call_hook(m, ptr, old_size, new_size);
        if (!p)
            __atomic_fetch_sub(&m->used, grow, __ATOMIC_RELAXED);
        return p;
    }
    void *p = call_hook(m, ptr, old_size, new_size);
    if (p) {
        if (new_size >= old_size)
            __atomic_fetch_add(&m->used, new_size - old_size, __ATOMIC_RELAXED);
        else
            __atomic_fetch_sub(&m->used, old_size - new_size, __ATOMIC_RELAXED);
    }
    return p;
}

/* A device's memory when the host gave no allocator: the library's, but
 * blocks of 4 MiB and more (buffers) start on a 2 MiB boundary and ask
 * for transparent huge pages. A kernel that walks a buffer across its
 * rows (a transpose, a grid-stride sum) touches a new 4 KiB page at each
 * step and misses the TLB at each one; huge pages cover 512 times as
 * much. Linux grants them where THP is "madvise" or "always"; elsewhere
 * the advice is ignored and nothing changes. posix_memalign rather than
 * a mapping of our own, so that such a block is freed like any other
 * (free() needs no size); the cost is up to 2 MiB of address space per
 * block, and where glibc serves one from its heap (after its mmap
 * threshold has grown) the advice stays on that range of the heap. */
#define HUGE_MIN ((size_t)4 << 20)
#define HUGE_PAGE ((size_t)2 << 20)

static void *device_default_alloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    if (new_size < HUGE_MIN)
        return cvm_default_alloc(user, ptr, old_size, new_size);
    void *p;
    if (posix_memalign(&p, HUGE_PAGE, new_size))
        return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(p, new_size & ~(size_t)4095, MADV_HUGEPAGE); /* advice: its failure changes nothing */
#endif
    if (ptr) {
        memcpy(p, ptr, old_size < new_size ? old_size : new_size);
        free(ptr);
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

cvm_status cvm_vm_oom(const cvm_device *dev, cvm_diag *diag, const char *what, size_t size)
{
    if (dev->mem.limit && dev->mem.used + size > dev->mem.limit)
        return cvm_diag_set(diag, CVM_OUT_OF_MEMORY,
                            "out of memory: %s (%zu bytes) exceeds the memory limit "
                            "(%llu of %llu bytes in use)", what, size,
                            (unsigned long long)dev->mem.used,
                            (unsigned long long)dev->mem.limit);
    return cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory: %s (%zu bytes)", what, size);
}

void cvm_vm_diag_ok(cvm_diag *d)
{
    if (!d)
        return;
    d->status = CVM_OK;
    d->message[0] = d->file[0] = '\0';
    d->line = d->col = 0;
    d->has_offset = d->has_fault = 0;
    d->offset = 0;
}

/* ---- the device registry ---- */

typedef struct device_row {
    const char *name;
    const cvm_vm_device_ops *ops; /* NULL: not built in */
    const char *absent;
} device_row;

static const device_row registry[] = {
#define CVM_DEVICE(name, ops, why) {#name, ops, why},
#include "devices.def"
#undef CVM_DEVICE
};

static cvm_status unknown_device(const char *name, cvm_diag *diag)
{
    char known[128] = "";
    size_t n = 0;
    for (size_t i = 0; i < sizeof registry / sizeof registry[0] && n < sizeof known; i++)
        n += (size_t)snprintf(known + n, sizeof known - n, "%s%s", i ? ", " : "",
                              registry[i].name);
    return cvm_diag_set(diag, CVM_UNAVAILABLE,
                        "device '%s' is not available: unknown device (known: %s)", name, known);
}

cvm_status cvm_device_open(const char *name, const cvm_config *cfg, cvm_device **out_dev,
                           cvm_diag *diag)
{
    if (!out_dev)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_device_open: out_dev is NULL");
    *out_dev = NULL;
    if (!name)
        name = "cpu";
    size_t n = strcspn(name, ":");
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++) {
        const device_row *r = &registry[i];
        if (strlen(r->name) != n || strncmp(r->name, name, n) != 0)
            continue;
        if (!r->ops)
            return cvm_diag_set(diag, CVM_UNAVAILABLE, "device '%s' is not available: %s", name,
                                r->absent);
        return r->ops->open(name, cfg, out_dev, diag);
    }
    return unknown_device(name, diag);
}

void cvm_device_close(cvm_device *dev)
{
    if (dev)
        dev->ops->close(dev);
}

cvm_stream *cvm_device_stream(cvm_device *dev) { return dev ? &dev->stream : NULL; }

cvm_status cvm_device_limits_get(const cvm_device *dev, cvm_device_limits *out, cvm_diag *diag)
{
    if (!dev || !out)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_device_limits_get: NULL argument");
    memset(out, 0, sizeof *out);
    dev->ops->limits(dev, out);
    return CVM_OK;
}

cvm_status cvm_buffer_create(cvm_device *dev, size_t size, const char *name, cvm_buffer **out_buf,
                             cvm_diag *diag)
{
    if (!dev || !out_buf)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_buffer_create: NULL device or out_buf");
    return dev->ops->buffer_alloc(dev, size, name, out_buf, diag);
}

void cvm_buffer_free(cvm_buffer *buf)
{
    if (buf)
        buf->dev->ops->buffer_free(buf);
}

cvm_status cvm_buffer_map(cvm_buffer *buf, void **out_ptr, cvm_diag *diag)
{
    if (!buf || !out_ptr)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_buffer_map: NULL buffer or out_ptr");
    *out_ptr = NULL; /* NULL after a failure */
    return buf->dev->ops->buffer_map(buf, out_ptr, diag);
}

void cvm_buffer_unmap(cvm_buffer *buf)
{
    if (buf && buf->dev->ops->buffer_unmap)
        buf->dev->ops->buffer_unmap(buf);
}

cvm_status cvm_stream_create(cvm_device *dev, cvm_stream **out_stream, cvm_diag *diag)
{
    if (!dev || !out_stream)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_stream_create: NULL argument");
    return dev->ops->stream_create(dev, out_stream, diag);
}

void cvm_stream_destroy(cvm_stream *s)
{
    if (s && s != &s->dev->stream)
        s->dev->ops->stream_destroy(s);
}

cvm_status cvm_stream_sync(cvm_stream *s, cvm_diag *diag)
{
    if (!s)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_stream_sync: NULL stream");
    return s->dev->ops->stream_sync(s, diag);
}

cvm_status cvm_launch(cvm_stream *s, const cvm_kernel *k, const cvm_launch_config *cfg,
                      const cvm_arg *args, uint32_t arg_count, cvm_diag *diag)
{
    if (!s || !k || !cfg)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_launch: NULL stream, kernel or config");
    if (!(cfg->timeout_s >= 0)) /* NaN too, on every device */
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_launch: timeout must be >= 0 seconds");
    return s->dev->ops->launch(s, k, cfg, args, arg_count, diag);
}

/* ---- device records ---- */

cvm_status cvm_vm_device_alloc(const cvm_config *cfg, const cvm_vm_device_ops *ops,
                               const char *name, cvm_device **out, cvm_diag *diag)
{
    cvm_mem mem = {device_default_alloc, NULL, cfg ? cfg->memory_limit : 0, 0};
    if (cfg && cfg->alloc) {
        mem.fn = cfg->alloc;
        mem.user = cfg->alloc_user;
    }
    *out = NULL;
    /* The device record itself counts against the limit like everything else. */
    cvm_device *dev = cvm_bc_alloc(cvm_vm_mem_alloc, &mem, sizeof *dev);
    if (!dev)
        return cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory opening device '%s'", name);
    dev->mem = mem;
    dev->ops = ops;
    dev->stream.dev = dev;
    if (pthread_mutex_init(&dev->lock, NULL) != 0) {
        cvm_bc_free(cvm_vm_mem_alloc, &mem, dev, sizeof *dev);
        return cvm_diag_set(diag, CVM_INTERNAL, "cannot create the device lock");
    }
    *out = dev;
    return CVM_OK;
}

/* The buffer-tag bitmap's words: one bit per 16-bit tag. */
#define TAG_WORDS ((UINT16_MAX + 1) / 64)

void cvm_vm_device_dealloc(cvm_device *dev)
{
    pthread_mutex_destroy(&dev->lock);
    if (dev->tags_used)
        cvm_bc_free(cvm_vm_mem_alloc, &dev->mem, dev->tags_used, TAG_WORDS * sizeof(uint64_t));
    cvm_mem mem = dev->mem;
    cvm_bc_free(cvm_vm_mem_alloc, &mem, dev, sizeof *dev);
}

void cvm_vm_device_release_all(cvm_device *dev)
{
    /* Modules first, as they own buffers. */
    while (dev->modules)
        cvm_vm_module_release(dev->modules);
    while (dev->buffers)
        dev->ops->buffer_free(dev->buffers);
}

/* ---- the cpu device ---- */

static cvm_status cpu_open(const char *name, const cvm_config *cfg, cvm_device **out_dev,
                           cvm_diag *diag)
{
    if (strcmp(name, "cpu") != 0 && strcmp(name, "cpu:0") != 0)
        return cvm_diag_set(diag, CVM_UNAVAILABLE,
                            "device '%s' is not available: the cpu device is 'cpu' (or 'cpu:0')",
                            name);
    cvm_config c = {NULL, NULL, 0, 0, NULL, CVM_SCHEDULE_PARALLEL, 0};
    if (cfg)
        c = *cfg;
    const cvm_vm_profile *pf = cvm_vm_profile_find(c.profile);
    if (!pf)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "unknown profile '%s' (known: %s)",
                            c.profile, cvm_vm_profile_names());
    if ((unsigned)c.schedule > CVM_SCHEDULE_RANDOM)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "unknown schedule %d", (int)c.schedule);
    uint32_t threads = c.threads;
    if (!threads) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cores > 0 && cores < 1024 ? (uint32_t)cores : 1;
    }
    if (threads > 1024)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "%u worker threads is more than 1024",
                            threads);
    cvm_device *dev = NULL;
    cvm_status st = cvm_vm_device_alloc(&c, &cvm_vm_cpu_ops, name, &dev, diag);
    if (st)
        return st;
    dev->profile = pf;
    dev->schedule = (uint8_t)c.schedule;
    dev->seed = c.seed;
    st = cvm_vm_pool_new(dev, c.schedule == CVM_SCHEDULE_PARALLEL ? threads : 1, &dev->pool, diag);
    if (st) {
        cvm_vm_device_dealloc(dev);
        return st;
    }
    *out_dev = dev;
    return CVM_OK;
}

void cvm_vm_text_free(cvm_device *dev, cvm_vm_text *t)
{
    if (t->data)
        cvm_vm_dev_free(dev, t->data, t->cap);
    memset(t, 0, sizeof *t);
}

static void stream_free(cvm_stream *s)
{
    cvm_device *dev = s->dev;
    cvm_vm_text_free(dev, &s->out);
    cvm_vm_text_free(dev, &s->shown);
    if (s != &dev->stream)
        cvm_vm_dev_free(dev, s, sizeof *s);
}

static void cpu_close(cvm_device *dev)
{
    cvm_vm_pool_wait_all(dev->pool);
    /* Leftovers are released rather than leaked. */
    cvm_vm_device_release_all(dev);
    cvm_vm_pool_free(dev->pool);
    cvm_vm_op_cache_free(dev);
    while (dev->streams) {
        cvm_stream *s = dev->streams;
        dev->streams = s->next;
        stream_free(s);
    }
    stream_free(&dev->stream);
    cvm_vm_device_dealloc(dev);
}

static void cpu_limits(const cvm_device *dev, cvm_device_limits *out)
{
    snprintf(out->device, sizeof out->device, "cpu");
    cvm_vm_profile_limits(dev->profile, out);
    out->workers = dev->schedule == CVM_VM_SCHED_PARALLEL ? cvm_vm_pool_slots(dev->pool) : 1;
    out->memory_limit = dev->mem.limit;
}

/* ---- buffers ---- */

cvm_status cvm_vm_buffer_new(cvm_device *dev, size_t size, const char *name, bool writable,
                             cvm_buffer **out, cvm_diag *diag)
{
    *out = NULL;
    cvm_buffer *b = cvm_vm_dev_alloc(dev, sizeof *b);
    if (!b)
        return cvm_vm_oom(dev, diag, "a buffer record", sizeof *b);
    b->alloc_size = size ? size : 1;
    b->data = cvm_vm_dev_alloc(dev, b->alloc_size); /* zero-filled, 64-byte aligned */
    if (!b->data) {
        char what[160];
        cvm_vm_dev_free(dev, b, sizeof *b);
        snprintf(what, sizeof what, "buffer '%s'", name && *name ? name : "(unnamed)");
        return cvm_vm_oom(dev, diag, what, size);
    }
    b->dev = dev;
    b->size = size;
    b->writable = writable;
    snprintf(b->name, sizeof b->name, "%s", name && *name ? name : "(unnamed buffer)");
    cvm_status st = cvm_vm_buffer_link(b, diag);
    if (st) {
        cvm_vm_dev_free(dev, b->data, b->alloc_size);
        cvm_vm_dev_free(dev, b, sizeof *b);
        return st;
    }
    *out = b;
    return CVM_OK;
}

static bool tag_used(const cvm_device *dev, uint32_t t)
{
    return dev->tags_used && (dev->tags_used[t >> 6] >> (t & 63) & 1);
}

/*
 * Lists buffer b and gives it a tag: 1..65535, the next one after the last
 * handed out that no live buffer holds (0 means "no provenance"), so a
 * pointer that overflows one buffer into another never carries the other's
 * tag. Until the tags first wrap every next one is free; then a bitmap of
 * the live buffers' tags is made (8 KiB). CVM_LIMIT when 65535 buffers are
 * live.
 */
cvm_status cvm_vm_buffer_link(cvm_buffer *b, cvm_diag *diag)
{
    cvm_device *dev = b->dev;
    pthread_mutex_lock(&dev->lock);
    if (dev->last_tag == UINT16_MAX && !dev->tags_used) {
        dev->tags_used = cvm_bc_alloc(cvm_vm_mem_alloc, &dev->mem, TAG_WORDS * sizeof(uint64_t));
        if (!dev->tags_used) {
            pthread_mutex_unlock(&dev->lock);
            return cvm_vm_oom(dev, diag, "the table of buffer tags", TAG_WORDS * sizeof(uint64_t));
        }
        memset(dev->tags_used, 0, TAG_WORDS * sizeof(uint64_t));
        for (const cvm_buffer *o = dev->buffers; o; o = o->next)
            dev->tags_used[o->tag >> 6] |= UINT64_C(1) << (o->tag & 63);
    }
    uint32_t t = dev->last_tag;
    for (uint32_t n = 0; n < UINT16_MAX; n++) {
        t = t == UINT16_MAX ? 1 : t + 1;
        if (!tag_used(dev, t))
            break;
    }
    if (tag_used(dev, t)) {
        pthread_mutex_unlock(&dev->lock);
        return cvm_diag_set(diag, CVM_LIMIT, "buffer '%s': %u buffers are live, the most a device holds",
                            b->name, (unsigned)UINT16_MAX);
    }
    if (dev->tags_used)
        dev->tags_used[t >> 6] |= UINT64_C(1) << (t & 63);
    dev->last_tag = (uint16_t)t;
    b->tag = (uint16_t)t;
    dev->buffers_gen++;
    b->prev = NULL;
    b->next = dev->buffers;
    if (dev->buffers)
        dev->buffers->prev = b;
    dev->buffers = b;
    pthread_mutex_unlock(&dev->lock);
    return CVM_OK;
}

void cvm_vm_buffer_unlink(cvm_buffer *buf)
{
    cvm_device *dev = buf->dev;
    pthread_mutex_lock(&dev->lock);
    if (buf->prev)
        buf->prev->next = buf->next;
    else if (dev->buffers == buf)
        dev->buffers = buf->next;
    if (buf->next)
        buf->next->prev = buf->prev;
    buf->prev = buf->next = NULL;
    if (dev->tags_used)
        dev->tags_used[buf->tag >> 6] &= ~(UINT64_C(1) << (buf->tag & 63));
    dev->buffers_gen++;
    pthread_mutex_unlock(&dev->lock);
}

static cvm_status cpu_buffer_alloc(cvm_device *dev, size_t size, const char *name,
                                   cvm_buffer **out_buf, cvm_diag *diag)
{
    return cvm_vm_buffer_new(dev, size, name, true, out_buf, diag);
}

void cvm_vm_buffer_destroy(cvm_buffer *buf)
{
    cvm_device *dev = buf->dev;
    cvm_vm_buffer_unlink(buf);
    cvm_vm_dev_free(dev, buf->data, buf->alloc_size);
    cvm_vm_dev_free(dev, buf, sizeof *buf);
}

static void cpu_buffer_free(cvm_buffer *buf)
{
    cvm_vm_pool *pool = buf->dev->pool;
    cvm_vm_pool_lock(pool);
    bool in_use = buf->uses > 0;
    buf->freed = true; /* the last queued use frees it */
    cvm_vm_pool_unlock(pool);
    if (!in_use)
        cvm_vm_buffer_destroy(buf);
}

static cvm_status cpu_buffer_map(cvm_buffer *buf, void **out_ptr, cvm_diag *diag)
{
    cvm_vm_pool_wait_buffer(buf->dev->pool, buf);
    *out_ptr = buf->data;
    return CVM_OK;
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

/* A buffer operation for the queue (with `extra` bytes); NULL when out of memory. */
static cvm_vm_op *new_op(cvm_stream *s, cvm_vm_opkind kind, cvm_buffer *dst, size_t dst_off,
                         size_t size, size_t extra)
{
    cvm_vm_op *op = cvm_vm_op_new(s->dev, extra);
    if (op) {
        op->kind = kind;
        op->stream = s;
        op->dst = dst;
        op->dst_off = dst_off;
        op->size = size;
    }
    return op;
}

static cvm_status cpu_buffer_write(cvm_stream *s, cvm_buffer *buf, size_t offset,
                                   const void *src, size_t size, cvm_diag *diag)
{
    cvm_vm_op *op = new_op(s, CVM_VM_OP_WRITE, buf, offset, size, size);
    if (!op)
        return cvm_vm_oom(s->dev, diag, "staging a buffer write", size);
    op->staged = cvm_vm_op_extra(op);
    memcpy(op->staged, src, size);
    cvm_vm_pool_submit(s->dev->pool, op);
    return CVM_OK;
}

static cvm_status cpu_buffer_read(cvm_stream *s, const cvm_buffer *buf, size_t offset, void *dst,
                                  size_t size, cvm_diag *diag)
{
    cvm_vm_pool_wait_stream(s->dev->pool, s);
    memcpy(dst, buf->data + offset, size);
    return CVM_OK;
}

static cvm_status cpu_buffer_fill(cvm_stream *s, cvm_buffer *buf, size_t offset, size_t size,
                                  uint8_t byte, cvm_diag *diag)
{
    cvm_vm_op *op = new_op(s, CVM_VM_OP_FILL, buf, offset, size, 0);
    if (!op)
        return cvm_vm_oom(s->dev, diag, "queueing a buffer fill", sizeof *op);
    op->byte = byte;
    cvm_vm_pool_submit(s->dev->pool, op);
    return CVM_OK;
}

static cvm_status cpu_buffer_copy(cvm_stream *s, cvm_buffer *dst, size_t dst_offset,
                                  const cvm_buffer *src, size_t src_offset, size_t size,
                                  cvm_diag *diag)
{
    cvm_vm_op *op = new_op(s, CVM_VM_OP_COPY, dst, dst_offset, size, 0);
    if (!op)
        return cvm_vm_oom(s->dev, diag, "queueing a buffer copy", sizeof *op);
    op->src = (cvm_buffer *)src; /* read only; non-const for the use count */
    op->src_off = src_offset;
    cvm_vm_pool_submit(s->dev->pool, op);
    return CVM_OK;
}

cvm_status cvm_buffer_write(cvm_stream *s, cvm_buffer *buf, size_t offset, const void *src,
                            size_t size, cvm_diag *diag)
{
    cvm_status st = check_range(s, buf, offset, size, src, "cvm_buffer_write", diag);
    if (st != CVM_OK || !size)
        return st;
    return s->dev->ops->buffer_write(s, buf, offset, src, size, diag);
}

cvm_status cvm_buffer_read(cvm_stream *s, const cvm_buffer *buf, size_t offset, void *dst,
                           size_t size, cvm_diag *diag)
{
    cvm_status st = check_range(s, buf, offset, size, dst, "cvm_buffer_read", diag);
    if (st != CVM_OK)
        return st;
    if (!size) {
        /* Still in order with the stream: a zero-byte read waits for it. */
        s->dev->ops->stream_wait(s);
        return CVM_OK;
    }
    return s->dev->ops->buffer_read(s, buf, offset, dst, size, diag);
}

cvm_status cvm_buffer_fill(cvm_stream *s, cvm_buffer *buf, size_t offset, size_t size,
                           uint8_t byte, cvm_diag *diag)
{
    cvm_status st = check_range(s, buf, offset, size, buf, "cvm_buffer_fill", diag);
    if (st != CVM_OK || !size)
        return st;
    return s->dev->ops->buffer_fill(s, buf, offset, size, byte, diag);
}

cvm_status cvm_buffer_copy(cvm_stream *s, cvm_buffer *dst, size_t dst_offset,
                           const cvm_buffer *src, size_t src_offset, size_t size, cvm_diag *diag)
{
    cvm_status st = check_range(s, dst, dst_offset, size, dst, "cvm_buffer_copy", diag);
    if (st == CVM_OK)
        st = check_range(s, src, src_offset, size, src, "cvm_buffer_copy", diag);
    if (st != CVM_OK || !size)
        return st;
    return s->dev->ops->buffer_copy(s, dst, dst_offset, src, src_offset, size, diag);
}

/* ---- streams ---- */

void cvm_vm_stream_wait(cvm_stream *s) { s->dev->ops->stream_wait(s); }

static void cpu_stream_wait(cvm_stream *s) { cvm_vm_pool_wait_stream(s->dev->pool, s); }
static void cpu_device_wait(cvm_device *dev) { cvm_vm_pool_wait_all(dev->pool); }
static void cpu_module_wait(cvm_module *mod) { cvm_vm_pool_wait_module(mod->dev->pool, mod); }

static cvm_status cpu_stream_create(cvm_device *dev, cvm_stream **out, cvm_diag *diag)
{
    cvm_stream *s = cvm_vm_dev_alloc(dev, sizeof *s);
    *out = NULL;
    if (!s)
        return cvm_vm_oom(dev, diag, "a stream", sizeof *s);
    s->dev = dev;
    cvm_vm_pool_lock(dev->pool);
    s->next = dev->streams;
    if (dev->streams)
        dev->streams->prev = s;
    dev->streams = s;
    cvm_vm_pool_unlock(dev->pool);
    *out = s;
    return CVM_OK;
}

static void cpu_stream_destroy(cvm_stream *s)
{
    cvm_device *dev = s->dev;
    cvm_vm_pool_wait_stream(dev->pool, s);
    cvm_vm_pool_lock(dev->pool);
    if (s->prev)
        s->prev->next = s->next;
    else
        dev->streams = s->next;
    if (s->next)
        s->next->prev = s->prev;
    cvm_vm_pool_unlock(dev->pool);
    stream_free(s);
}

/* Every device's sync ends here: hands out the stream's first fault and clears it. */
cvm_status cvm_vm_stream_take_fault(cvm_stream *s, cvm_diag *diag)
{
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
    } else {
        cvm_vm_diag_ok(diag);
    }
    return st;
}

static cvm_status cpu_stream_sync(cvm_stream *s, cvm_diag *diag)
{
    cvm_vm_pool_wait_stream(s->dev->pool, s);
    cvm_vm_pool_lock(s->dev->pool);
    cvm_status st = cvm_vm_stream_take_fault(s, diag);
    cvm_vm_pool_unlock(s->dev->pool);
    return st;
}

const char *cvm_stream_output(cvm_stream *s) { return cvm_stream_output_n(s, NULL); }

const char *cvm_stream_output_n(cvm_stream *s, size_t *out_len)
{
    const char *text = s ? s->dev->ops->stream_output(s) : "";
    if (out_len) /* the devices hand out s->shown, or "" (none, or no memory for a copy) */
        *out_len = s && text == s->shown.data ? s->shown.len : 0;
    return text;
}

static const char *cpu_stream_output(cvm_stream *s)
{
    cvm_device *dev = s->dev;
    const char *text = "";
    cvm_vm_pool_wait_stream(dev->pool, s);
    cvm_vm_pool_lock(dev->pool);
    cvm_vm_text_free(dev, &s->shown);
    if (s->out.len && s->out.cap > s->out.len) {
        /* Room for the NUL: hand the text itself over, no allocation that could fail. */
        s->out.data[s->out.len] = '\0';
        s->shown = s->out;
        memset(&s->out, 0, sizeof s->out);
        text = s->shown.data;
    } else if (s->out.len) {
        /* An exact, NUL-terminated copy: the interpreter's text may lack the NUL. */
        char *copy = cvm_vm_dev_alloc(dev, s->out.len + 1);
        if (copy) {
            memcpy(copy, s->out.data, s->out.len);
            s->shown = (cvm_vm_text){copy, s->out.len, s->out.len + 1};
            text = copy;
        }
    }
    cvm_vm_text_free(dev, &s->out);
    cvm_vm_pool_unlock(dev->pool);
    return text;
}

const cvm_vm_device_ops cvm_vm_cpu_ops = {
    .open = cpu_open,
    .close = cpu_close,
    .limits = cpu_limits,
    .buffer_alloc = cpu_buffer_alloc,
    .buffer_free = cpu_buffer_free,
    .buffer_map = cpu_buffer_map,
    .buffer_unmap = NULL, /* the mapping is the buffer itself */
    .buffer_write = cpu_buffer_write,
    .buffer_read = cpu_buffer_read,
    .buffer_fill = cpu_buffer_fill,
    .buffer_copy = cpu_buffer_copy,
    .module_init = cvm_vm_cpu_module_init,
    .module_fini = cvm_vm_cpu_module_fini,
    .stream_create = cpu_stream_create,
    .stream_destroy = cpu_stream_destroy,
    .stream_sync = cpu_stream_sync,
    .stream_wait = cpu_stream_wait,
    .device_wait = cpu_device_wait,
    .module_wait = cpu_module_wait,
    .stream_output = cpu_stream_output,
    .launch = cvm_vm_cpu_launch,
};
