/*
 * vk_stream.c - the vulkan device's buffers and streams.
 *
 * Buffers live in host-visible, coherent memory (device-local too where
 * the device has such a type), mapped for their whole life: on lavapipe
 * all memory is host memory, so staging copies would only cost time.
 * Where the host-visible memory is not device-local (discrete GPUs without
 * resizable BAR) buffers are "staged": device-local memory the host never
 * maps, reached by copies through staging buffers, with a host copy that
 * cvm_buffer_map downloads and cvm_buffer_unmap uploads. Each stream
 * submits to one queue; created streams take the device's queues in turn.
 *
 * Every stream operation (write, fill, copy, launch) records one command
 * buffer and submits it with its own fence; the stream keeps the
 * submissions in order and releases them (with their staging buffers and
 * descriptor pools) as their fences signal. Each command buffer opens with
 * a full memory barrier, which orders it after everything submitted to the
 * queue before it, and closes with a barrier that makes its writes visible
 * to the host, so reads through the mapping only have to wait on fences.
 */
#include "vk.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* ---- submissions ---- */

static void sub_release(cvm_stream *s, vk_sub *sub)
{
    cvm_device *dev = s->dev;
    vk_dev *d = vkd(dev);
    vk_stream *vs = s->impl;
    if (d->hung)
        goto host; /* the hung dispatch may use any of them */
    if (sub->fence)
        d->vk.vkDestroyFence(d->device, sub->fence, NULL);
    if (sub->cb)
        d->vk.vkFreeCommandBuffers(d->device, vs->pool, 1, &sub->cb);
    if (sub->staging)
        d->vk.vkDestroyBuffer(d->device, sub->staging, NULL);
    if (sub->staging_mem)
        d->vk.vkFreeMemory(d->device, sub->staging_mem, NULL);
    if (sub->dpool)
        d->vk.vkDestroyDescriptorPool(d->device, sub->dpool, NULL);
host:
    cvm_vk_print_free(dev, sub->print); /* leaves the driver's objects alone when hung */
    cvm_vm_dev_free(dev, sub, sizeof *sub);
}

void cvm_vk_abandon(cvm_stream *s, vk_sub *sub) { sub_release(s, sub); }

/* Records the first error since the last sync; launches after it are skipped. */
static void stream_fault(cvm_stream *s, cvm_status st, const cvm_diag *why)
{
    if (s->fault != CVM_OK)
        return;
    s->fault = st;
    s->fault_diag = *why;
}

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* A launch past its deadline: the stream's fault, and the device stops taking work. */
static void hang(cvm_stream *s, const vk_sub *sub)
{
    vk_dev *d = vkd(s->dev);
    cvm_diag why;
    memset(&why, 0, sizeof why);
    cvm_diag_set(&why, CVM_TIMEOUT,
                 "launch of '%s' did not finish within its timeout of %.3g s; Vulkan cannot stop "
                 "a running dispatch, so device '%s' takes no more work (close it)",
                 sub->kernel, sub->timeout_s, d->name);
    d->hung = d->lost = true;
    stream_fault(s, CVM_TIMEOUT, &why);
}

/*
 * Waits for (wait) or polls the oldest submissions and releases the finished
 * ones. A launch with a timeout is waited for until its deadline only.
 */
static void reap(cvm_stream *s, bool wait)
{
    vk_stream *vs = s->impl;
    vk_dev *d = vkd(s->dev);
    while (vs && vs->head) {
        vk_sub *sub = vs->head;
        uint64_t limit = UINT64_MAX;
        if (wait && sub->deadline_ns) {
            uint64_t now = now_ns();
            limit = now < sub->deadline_ns ? sub->deadline_ns - now : 0;
        }
        VkResult r = wait && !d->hung
                         ? d->vk.vkWaitForFences(d->device, 1, &sub->fence, VK_TRUE, limit)
                         : d->vk.vkGetFenceStatus(d->device, sub->fence);
        if (r == VK_TIMEOUT && wait && sub->deadline_ns && !d->hung)
            hang(s, sub);
        if (r == VK_NOT_READY || r == VK_TIMEOUT)
            return;
        if (r != VK_SUCCESS) {
            cvm_diag why;
            memset(&why, 0, sizeof why);
            if (r == VK_ERROR_DEVICE_LOST)
                d->lost = true;
            stream_fault(s, cvm_vk_result(r, &why, sub->is_launch ? "a kernel launch"
                                                                   : "a buffer operation"), &why);
        }
        if (r == VK_SUCCESS && sub->print && !cvm_vk_print_emit(s, sub->print)) {
            cvm_diag why;
            stream_fault(s, cvm_diag_set(&why, CVM_OUT_OF_MEMORY, "out of memory formatting the "
                                         "print output of '%s'", sub->kernel), &why);
        }
        cvm_diag fault;
        if (r == VK_SUCCESS && sub->print && cvm_vk_print_fault(sub->print, &fault))
            stream_fault(s, CVM_FAULT, &fault);
        vs->head = sub->next;
        if (!vs->head)
            vs->tail = NULL;
        sub_release(s, sub);
    }
}

cvm_status cvm_vk_begin(cvm_stream *s, vk_sub **out, cvm_diag *diag)
{
    cvm_device *dev = s->dev;
    vk_dev *d = vkd(dev);
    vk_stream *vs = s->impl;
    *out = NULL;
    if (d->lost)
        return cvm_diag_set(diag, CVM_DEVICE_LOST, "the Vulkan device '%s' was lost", d->name);
    reap(s, false); /* keep the list short on long streams */
    vk_sub *sub = cvm_vm_dev_alloc(dev, sizeof *sub);
    if (!sub)
        return cvm_vm_oom(dev, diag, "a Vulkan submission record", sizeof *sub);
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = vs->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VkResult r = d->vk.vkAllocateCommandBuffers(d->device, &ai, &sub->cb);
    if (r == VK_SUCCESS)
        r = d->vk.vkCreateFence(d->device, &fi, NULL, &sub->fence);
    if (r == VK_SUCCESS)
        r = d->vk.vkBeginCommandBuffer(sub->cb, &bi);
    if (r != VK_SUCCESS) {
        sub_release(s, sub);
        return cvm_vk_result(r, diag, "starting a Vulkan command buffer");
    }
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT};
    d->vk.vkCmdPipelineBarrier(sub->cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                               VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    *out = sub;
    return CVM_OK;
}

cvm_status cvm_vk_submit(cvm_stream *s, vk_sub *sub, cvm_diag *diag)
{
    vk_dev *d = vkd(s->dev);
    vk_stream *vs = s->impl;
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_HOST_READ_BIT | VK_ACCESS_HOST_WRITE_BIT};
    d->vk.vkCmdPipelineBarrier(sub->cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                               VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    VkResult r = d->vk.vkEndCommandBuffer(sub->cb);
    if (r == VK_SUCCESS) {
        VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                           .commandBufferCount = 1,
                           .pCommandBuffers = &sub->cb};
        pthread_mutex_lock(&d->queue_lock);
        r = d->vk.vkQueueSubmit(vs->queue, 1, &si, sub->fence);
        pthread_mutex_unlock(&d->queue_lock);
    }
    if (r != VK_SUCCESS) {
        if (r == VK_ERROR_DEVICE_LOST)
            d->lost = true;
        sub_release(s, sub);
        return cvm_vk_result(r, diag, "vkQueueSubmit");
    }
    if (vs->tail)
        vs->tail->next = sub;
    else
        vs->head = sub;
    vs->tail = sub;
    return CVM_OK;
}

/* ---- streams ---- */

cvm_status cvm_vk_stream_init(cvm_device *dev, cvm_stream *s, cvm_diag *diag)
{
    vk_dev *d = vkd(dev);
    vk_stream *vs = cvm_vm_dev_alloc(dev, sizeof *vs);
    if (!vs)
        return cvm_vm_oom(dev, diag, "a Vulkan stream", sizeof *vs);
    VkCommandPoolCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
                                  .queueFamilyIndex = d->queue_family};
    VkResult r = d->vk.vkCreateCommandPool(d->device, &ci, NULL, &vs->pool);
    if (r != VK_SUCCESS) {
        cvm_vm_dev_free(dev, vs, sizeof *vs);
        return cvm_vk_result(r, diag, "vkCreateCommandPool");
    }
    /* The default stream on queue 0; created streams take the queues in turn. */
    uint32_t turn = s == &dev->stream ? 0 : __atomic_fetch_add(&d->next_queue, 1, __ATOMIC_RELAXED);
    vs->queue = d->queues[turn % d->nqueues];
    s->dev = dev;
    s->impl = vs;
    return CVM_OK;
}

void cvm_vk_stream_fini(cvm_stream *s)
{
    vk_stream *vs = s->impl;
    if (!vs)
        return;
    vk_dev *d = vkd(s->dev);
    reap(s, true);
    while (d->hung && vs->head) { /* records only: see vk_dev.hung */
        vk_sub *sub = vs->head;
        vs->head = sub->next;
        sub_release(s, sub);
    }
    if (!d->hung)
        d->vk.vkDestroyCommandPool(d->device, vs->pool, NULL);
    cvm_vm_dev_free(s->dev, vs, sizeof *vs);
    s->impl = NULL;
    cvm_vm_text_free(s->dev, &s->out); /* print text, as the cpu device's streams free it */
    cvm_vm_text_free(s->dev, &s->shown);
}

cvm_status cvm_vk_stream_create(cvm_device *dev, cvm_stream **out, cvm_diag *diag)
{
    *out = NULL;
    cvm_stream *s = cvm_vm_dev_alloc(dev, sizeof *s);
    if (!s)
        return cvm_vm_oom(dev, diag, "a stream", sizeof *s);
    cvm_status st = cvm_vk_stream_init(dev, s, diag);
    if (st) {
        cvm_vm_dev_free(dev, s, sizeof *s);
        return st;
    }
    pthread_mutex_lock(&dev->lock);
    s->next = dev->streams;
    if (dev->streams)
        dev->streams->prev = s;
    dev->streams = s;
    pthread_mutex_unlock(&dev->lock);
    *out = s;
    return CVM_OK;
}

void cvm_vk_stream_destroy(cvm_stream *s)
{
    cvm_device *dev = s->dev;
    cvm_vk_stream_fini(s);
    pthread_mutex_lock(&dev->lock);
    if (s->prev)
        s->prev->next = s->next;
    else
        dev->streams = s->next;
    if (s->next)
        s->next->prev = s->prev;
    pthread_mutex_unlock(&dev->lock);
    cvm_vm_dev_free(dev, s, sizeof *s);
}

void cvm_vk_stream_wait(cvm_stream *s) { reap(s, true); }

/* Other streams' submissions are theirs to release: only wait for the queue. */
void cvm_vk_device_wait(cvm_device *dev)
{
    vk_dev *d = vkd(dev);
    if (d->hung)
        return; /* it would never return */
    VkResult r = VK_SUCCESS;
    pthread_mutex_lock(&d->queue_lock);
    for (uint32_t i = 0; i < d->nqueues && r != VK_ERROR_DEVICE_LOST; i++)
        r = d->vk.vkQueueWaitIdle(d->queues[i]);
    pthread_mutex_unlock(&d->queue_lock);
    if (r == VK_ERROR_DEVICE_LOST)
        d->lost = true;
}

cvm_status cvm_vk_stream_sync(cvm_stream *s, cvm_diag *diag)
{
    reap(s, true);
    return cvm_vm_stream_take_fault(s, diag);
}

/* ---- buffers ---- */

/* A buffer bound to memory of `type`; mapped at *out_map unless out_map is NULL. */
static cvm_status make_buffer(cvm_device *dev, VkDeviceSize size, VkBufferUsageFlags usage,
                              uint32_t type, VkBuffer *out_buf, VkDeviceMemory *out_mem,
                              void **out_map, cvm_diag *diag)
{
    vk_dev *d = vkd(dev);
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = size,
                             .usage = usage,
                             .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VkMemoryRequirements req;
    *out_buf = VK_NULL_HANDLE;
    *out_mem = VK_NULL_HANDLE;
    VkResult r = d->vk.vkCreateBuffer(d->device, &bi, NULL, out_buf);
    if (r != VK_SUCCESS)
        return cvm_vk_result(r, diag, "vkCreateBuffer");
    d->vk.vkGetBufferMemoryRequirements(d->device, *out_buf, &req);
    if (!(req.memoryTypeBits & (1u << type)) &&
        (!out_map || cvm_vk_memory_type(d, req.memoryTypeBits, &type) != CVM_OK)) {
        d->vk.vkDestroyBuffer(d->device, *out_buf, NULL);
        *out_buf = VK_NULL_HANDLE;
        return cvm_diag_set(diag, CVM_UNSUPPORTED, "no host-visible memory for this buffer");
    }
    /* buffers a shader reaches by address need memory allocated for it */
    VkMemoryAllocateFlagsInfo fi = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
                                    .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT};
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                               .pNext = usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT ? &fi : NULL,
                               .allocationSize = req.size,
                               .memoryTypeIndex = type};
    r = d->vk.vkAllocateMemory(d->device, &ai, NULL, out_mem);
    if (r == VK_SUCCESS)
        r = d->vk.vkBindBufferMemory(d->device, *out_buf, *out_mem, 0);
    if (r == VK_SUCCESS && out_map)
        r = d->vk.vkMapMemory(d->device, *out_mem, 0, VK_WHOLE_SIZE, 0, out_map);
    if (r != VK_SUCCESS) {
        d->vk.vkDestroyBuffer(d->device, *out_buf, NULL);
        if (*out_mem)
            d->vk.vkFreeMemory(d->device, *out_mem, NULL);
        *out_buf = VK_NULL_HANDLE;
        *out_mem = VK_NULL_HANDLE;
        return cvm_vk_result(r, diag, "allocating Vulkan memory");
    }
    return CVM_OK;
}

cvm_status cvm_vk_raw_buffer(cvm_device *dev, VkDeviceSize size, VkBufferUsageFlags usage,
                             VkBuffer *out_buf, VkDeviceMemory *out_mem, void **out_map,
                             cvm_diag *diag)
{
    return make_buffer(dev, size, usage, vkd(dev)->host_mem_type, out_buf, out_mem, out_map,
                       diag);
}

/* ---- one-shot transfers (staged buffers) ---- */

cvm_status cvm_vk_once_begin(cvm_device *dev, VkCommandBuffer *out, cvm_diag *diag)
{
    vk_dev *d = vkd(dev);
    *out = VK_NULL_HANDLE;
    if (d->lost)
        return cvm_diag_set(diag, CVM_DEVICE_LOST, "the Vulkan device '%s' was lost", d->name);
    pthread_mutex_lock(&d->once_lock);
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = d->once_pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VkResult r = d->vk.vkAllocateCommandBuffers(d->device, &ai, out);
    if (r == VK_SUCCESS && (r = d->vk.vkBeginCommandBuffer(*out, &bi)) != VK_SUCCESS)
        d->vk.vkFreeCommandBuffers(d->device, d->once_pool, 1, out);
    if (r != VK_SUCCESS) {
        pthread_mutex_unlock(&d->once_lock);
        return cvm_vk_result(r, diag, "starting a Vulkan transfer");
    }
    return CVM_OK;
}

cvm_status cvm_vk_once_end(cvm_device *dev, VkCommandBuffer cb, cvm_diag *diag)
{
    vk_dev *d = vkd(dev);
    VkFence fence = VK_NULL_HANDLE;
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_HOST_READ_BIT | VK_ACCESS_HOST_WRITE_BIT};
    d->vk.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                               0, 1, &mb, 0, NULL, 0, NULL);
    VkResult r = d->vk.vkEndCommandBuffer(cb);
    if (r == VK_SUCCESS)
        r = d->vk.vkCreateFence(d->device, &fi, NULL, &fence);
    if (r == VK_SUCCESS) {
        VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                           .commandBufferCount = 1,
                           .pCommandBuffers = &cb};
        pthread_mutex_lock(&d->queue_lock);
        r = d->vk.vkQueueSubmit(d->queue, 1, &si, fence);
        pthread_mutex_unlock(&d->queue_lock);
    }
    if (r == VK_SUCCESS)
        r = d->vk.vkWaitForFences(d->device, 1, &fence, VK_TRUE, UINT64_MAX);
    if (r == VK_ERROR_DEVICE_LOST)
        d->lost = true;
    if (fence)
        d->vk.vkDestroyFence(d->device, fence, NULL);
    d->vk.vkFreeCommandBuffers(d->device, d->once_pool, 1, &cb);
    pthread_mutex_unlock(&d->once_lock);
    return cvm_vk_result(r, diag, "a Vulkan transfer");
}

/*
 * Copies [offset, offset + size) of a staged buffer to the host (`to_host`)
 * or from it, through a staging buffer, outside any stream.
 */
static cvm_status transfer(cvm_device *dev, const vk_buffer *vb, size_t offset, void *host,
                           size_t size, bool to_host, cvm_diag *diag)
{
    vk_dev *d = vkd(dev);
    VkBuffer staging;
    VkDeviceMemory mem;
    void *map = NULL;
    VkCommandBuffer cb;
    cvm_status st = cvm_vk_raw_buffer(dev, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT, &staging, &mem, &map, diag);
    if (st)
        return st;
    if (!to_host)
        memcpy(map, host, size);
    if (!(st = cvm_vk_once_begin(dev, &cb, diag))) {
        VkBufferCopy region = {to_host ? offset : 0, to_host ? 0 : offset, size};
        d->vk.vkCmdCopyBuffer(cb, to_host ? vb->buffer : staging, to_host ? staging : vb->buffer,
                              1, &region);
        st = cvm_vk_once_end(dev, cb, diag);
    }
    if (!st && to_host)
        memcpy(host, map, size);
    if (!d->hung) {
        d->vk.vkDestroyBuffer(d->device, staging, NULL);
        d->vk.vkFreeMemory(d->device, mem, NULL);
    }
    return st;
}

/* Device memory counts against cvm_config.memory_limit like host memory. */
static bool reserve(cvm_device *dev, uint64_t bytes)
{
    uint64_t before = __atomic_fetch_add(&dev->mem.used, bytes, __ATOMIC_RELAXED);
    if (dev->mem.limit && (before + bytes > dev->mem.limit || before + bytes < before)) {
        __atomic_fetch_sub(&dev->mem.used, bytes, __ATOMIC_RELAXED);
        return false;
    }
    return true;
}

static void unreserve(cvm_device *dev, uint64_t bytes)
{
    __atomic_fetch_sub(&dev->mem.used, bytes, __ATOMIC_RELAXED);
}

/* Usage of cubevm buffers: storage, transfers, and a device address where kernels may use one. */
static VkBufferUsageFlags storage_usage(const vk_dev *d)
{
    return VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
           VK_BUFFER_USAGE_TRANSFER_DST_BIT |
           (d->target.buffer_device_address ? VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT : 0);
}

/* Device-local memory, zeroed on the device, and a zeroed host shadow at *out_shadow. */
static cvm_status alloc_staged(cvm_device *dev, vk_buffer *vb, void **out_shadow, cvm_diag *diag)
{
    vk_dev *d = vkd(dev);
    VkCommandBuffer cb;
    cvm_status st = make_buffer(dev, vb->vsize, storage_usage(d), d->local_mem_type, &vb->buffer,
                                &vb->memory, NULL, diag);
    if (st)
        return st;
    if (!(st = cvm_vk_once_begin(dev, &cb, diag))) {
        d->vk.vkCmdFillBuffer(cb, vb->buffer, 0, VK_WHOLE_SIZE, 0);
        st = cvm_vk_once_end(dev, cb, diag);
    }
    if (!st && !(*out_shadow = cvm_vm_dev_alloc(dev, vb->vsize)))
        st = cvm_vm_oom(dev, diag, "a staged buffer's host copy", vb->vsize);
    if (st) {
        d->vk.vkDestroyBuffer(d->device, vb->buffer, NULL);
        d->vk.vkFreeMemory(d->device, vb->memory, NULL);
    }
    return st;
}

cvm_status cvm_vk_buffer_alloc(cvm_device *dev, size_t size, const char *name,
                               cvm_buffer **out_buf, cvm_diag *diag)
{
    *out_buf = NULL;
    const char *shown = name && *name ? name : "(unnamed buffer)";
    cvm_buffer *b = cvm_vm_dev_alloc(dev, sizeof *b);
    vk_buffer *vb = b ? cvm_vm_dev_alloc(dev, sizeof *vb) : NULL;
    if (!vb) {
        cvm_vm_dev_free(dev, b, sizeof *b);
        return cvm_vm_oom(dev, diag, "a buffer record", sizeof *b + sizeof *vb);
    }
    /* A whole number of 32-bit words, so fills and views never need a partial word. */
    vb->vsize = size > SIZE_MAX - 4 ? size : ((size ? size : 1) + 3) & ~(size_t)3;
    char what[160];
    snprintf(what, sizeof what, "buffer '%s'", shown);
    cvm_status st;
    void *map = NULL;
    if (size > vkd(dev)->props.limits.maxStorageBufferRange) {
        st = cvm_diag_set(diag, CVM_LIMIT,
                          "buffer '%s' of %zu bytes is larger than the device's storage buffer "
                          "range (%u bytes)", shown, size,
                          vkd(dev)->props.limits.maxStorageBufferRange);
        goto fail;
    }
    if (!reserve(dev, vb->vsize)) {
        st = cvm_vm_oom(dev, diag, what, size);
        goto fail;
    }
    vb->staged = vkd(dev)->staged;
    if (vb->staged)
        st = alloc_staged(dev, vb, &map, diag);
    else
        st = cvm_vk_raw_buffer(dev, vb->vsize, storage_usage(vkd(dev)), &vb->buffer, &vb->memory, &map,
                               diag);
    if (st) {
        unreserve(dev, vb->vsize);
        goto fail;
    }
    memset(map, 0, vb->vsize); /* buffers start zero-filled */
    b->dev = dev;
    b->data = map;
    b->size = size;
    b->alloc_size = vb->vsize;
    b->writable = true;
    b->impl = vb;
    snprintf(b->name, sizeof b->name, "%s", shown);
    if ((st = cvm_vm_buffer_link(b, diag)) != CVM_OK) {
        cvm_vk_buffer_free(b); /* unlinking a buffer not listed changes nothing */
        return st;
    }
    *out_buf = b;
    return CVM_OK;
fail:
    cvm_vm_dev_free(dev, vb, sizeof *vb);
    cvm_vm_dev_free(dev, b, sizeof *b);
    return st;
}

/* Waits for the queue, so no submitted work still uses the buffer. */
void cvm_vk_buffer_free(cvm_buffer *buf)
{
    cvm_device *dev = buf->dev;
    vk_dev *d = vkd(dev);
    vk_buffer *vb = buf->impl;
    cvm_vk_device_wait(dev);
    cvm_vm_buffer_unlink(buf);
    if (!d->hung) {
        d->vk.vkDestroyBuffer(d->device, vb->buffer, NULL);
        d->vk.vkFreeMemory(d->device, vb->memory, NULL);
    }
    if (vb->staged)
        cvm_vm_dev_free(dev, buf->data, vb->vsize);
    unreserve(dev, vb->vsize);
    cvm_vm_dev_free(dev, vb, sizeof *vb);
    cvm_vm_dev_free(dev, buf, sizeof *buf);
}

/* A staged buffer's shadow is refreshed from the device; unmap writes it back. */
cvm_status cvm_vk_buffer_map(cvm_buffer *buf, void **out_ptr, cvm_diag *diag)
{
    const vk_buffer *vb = buf->impl;
    cvm_vk_device_wait(buf->dev);
    cvm_status st = vb->staged ? transfer(buf->dev, vb, 0, buf->data, vb->vsize, true, diag)
                               : CVM_OK;
    *out_ptr = st ? NULL : buf->data;
    return st;
}

void cvm_vk_buffer_unmap(cvm_buffer *buf)
{
    const vk_buffer *vb = buf->impl;
    if (vb->staged && transfer(buf->dev, vb, 0, buf->data, vb->vsize, false, NULL) != CVM_OK)
        vkd(buf->dev)->lost = true; /* the host's writes are gone: nothing is right any more */
}

/* A begun operation whose staging buffer holds `size` bytes at *out_map. */
static cvm_status begin_staged(cvm_stream *s, size_t size, vk_sub **out, void **out_map,
                               cvm_diag *diag)
{
    cvm_status st = cvm_vk_begin(s, out, diag);
    if (st)
        return st;
    st = cvm_vk_raw_buffer(s->dev, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                           VK_BUFFER_USAGE_TRANSFER_DST_BIT, &(*out)->staging,
                           &(*out)->staging_mem, out_map, diag);
    if (st) {
        cvm_vk_abandon(s, *out);
        *out = NULL;
    }
    return st;
}

static void copy_cmd(vk_dev *d, VkCommandBuffer cb, VkBuffer src, VkDeviceSize src_off,
                     VkBuffer dst, VkDeviceSize dst_off, VkDeviceSize size)
{
    VkBufferCopy region = {src_off, dst_off, size};
    d->vk.vkCmdCopyBuffer(cb, src, dst, 1, &region);
}

cvm_status cvm_vk_buffer_write(cvm_stream *s, cvm_buffer *buf, size_t offset, const void *src,
                               size_t size, cvm_diag *diag)
{
    vk_sub *sub = NULL;
    void *map = NULL;
    cvm_status st = begin_staged(s, size, &sub, &map, diag);
    if (st)
        return st;
    memcpy(map, src, size); /* the host's bytes are taken now */
    copy_cmd(vkd(s->dev), sub->cb, sub->staging, 0, ((vk_buffer *)buf->impl)->buffer, offset, size);
    return cvm_vk_submit(s, sub, diag);
}

cvm_status cvm_vk_buffer_read(cvm_stream *s, const cvm_buffer *buf, size_t offset, void *dst,
                              size_t size, cvm_diag *diag)
{
    const vk_buffer *vb = buf->impl;
    reap(s, true);
    if (vb->staged)
        return transfer(s->dev, vb, offset, dst, size, true, diag);
    memcpy(dst, buf->data + offset, size);
    return CVM_OK;
}

cvm_status cvm_vk_buffer_fill(cvm_stream *s, cvm_buffer *buf, size_t offset, size_t size,
                              uint8_t byte, cvm_diag *diag)
{
    vk_buffer *vb = buf->impl;
    vk_sub *sub = NULL;
    cvm_status st;
    /* vkCmdFillBuffer writes whole words; the buffer's padding may take the last one. */
    size_t end = offset + size;
    if (offset % 4 == 0 && (end % 4 == 0 || end == buf->size)) {
        if ((st = cvm_vk_begin(s, &sub, diag)))
            return st;
        uint32_t word = byte * 0x01010101u;
        vkd(s->dev)->vk.vkCmdFillBuffer(sub->cb, vb->buffer, offset, (size + 3) & ~(size_t)3, word);
    } else {
        void *map = NULL;
        if ((st = begin_staged(s, size, &sub, &map, diag)))
            return st;
        memset(map, byte, size);
        copy_cmd(vkd(s->dev), sub->cb, sub->staging, 0, vb->buffer, offset, size);
    }
    return cvm_vk_submit(s, sub, diag);
}

cvm_status cvm_vk_buffer_copy(cvm_stream *s, cvm_buffer *dst, size_t dst_offset,
                              const cvm_buffer *src, size_t src_offset, size_t size,
                              cvm_diag *diag)
{
    vk_dev *d = vkd(s->dev);
    VkBuffer vdst = ((vk_buffer *)dst->impl)->buffer, vsrc = ((vk_buffer *)src->impl)->buffer;
    bool overlap = dst == src && dst_offset < src_offset + size && src_offset < dst_offset + size;
    vk_sub *sub = NULL;
    void *map = NULL;
    cvm_status st;
    if (!overlap) {
        if ((st = cvm_vk_begin(s, &sub, diag)))
            return st;
        copy_cmd(d, sub->cb, vsrc, src_offset, vdst, dst_offset, size);
        return cvm_vk_submit(s, sub, diag);
    }
    /* Vulkan forbids overlapping copy regions: go through a staging buffer. */
    if ((st = begin_staged(s, size, &sub, &map, diag)))
        return st;
    copy_cmd(d, sub->cb, vsrc, src_offset, sub->staging, 0, size);
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT};
    d->vk.vkCmdPipelineBarrier(sub->cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
                               VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    copy_cmd(d, sub->cb, sub->staging, 0, vdst, dst_offset, size);
    return cvm_vk_submit(s, sub, diag);
}
