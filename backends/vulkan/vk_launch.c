/*
 * vk_launch.c - kernels on the vulkan device. A kernel is translated to
 * SPIR-V (backends/spirv/) the first time it is launched at a plane width,
 * giving a "variant" (shader module, descriptor set layout, pipeline
 * layout); each variant keeps one compute pipeline per specialization
 * (local size, dynamic shared bytes), built through the device's
 * VkPipelineCache. A launch fills a descriptor set from a pool of its own
 * (released with the submission), pushes scalars and structs as push
 * constants (or a uniform buffer, as the layout says), dispatches and
 * submits; cvm_stream_sync waits on the fence.
 */
#include "vk.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

typedef struct vk_pipe {
    struct vk_pipe *next;
    uint32_t local[3], dyn_shared;
    VkPipeline pipeline;
} vk_pipe;

struct cvm_vk_variant {
    struct cvm_vk_variant *next;
    uint32_t plane_width;
    cvm_status status;       /* a translation failure, kept for later launches */
    cvm_diag why;
    VkShaderModule shader;
    VkDescriptorSetLayout dsl;
    VkPipelineLayout layout;
    cvm_spv_layout spv;
    bool owns_spv;           /* spv.params come from cvm_spv_compile */
    vk_pipe *pipes;
};

typedef struct vk_module {
    pthread_mutex_t lock;    /* the variant lists and their pipelines */
    cvm_vk_variant **variants; /* per kernel */
    /* The const space (m->const_data) the variants were translated with: the
     * SPIR-V module embeds it, so a host write to a constant symbol
     * (cvm_module_symbol_write) means translating again. */
    uint8_t *consts;
    bool consts_taken;       /* consts holds a copy (the first launch takes it) */
} vk_module;

/* ---- variants and pipelines ---- */

static VkDescriptorType binding_type(const cvm_spv_layout *l, uint32_t binding)
{
    for (uint32_t i = 0; i < l->nparams; i++)
        if (l->params[i].kind == CVM_SPV_BIND_UNIFORM && l->params[i].binding == binding)
            return VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}

cvm_status cvm_vk_variant_build(cvm_device *dev, const uint32_t *words, size_t count,
                                const cvm_spv_layout *spv, cvm_vk_variant *v, cvm_diag *diag)
{
    vk_dev *d = vkd(dev);
    if (spv->nbindings > 64)
        return cvm_diag_set(diag, CVM_LIMIT, "%u buffer bindings is more than 64", spv->nbindings);
    if (spv->push_size > d->props.limits.maxPushConstantsSize)
        return cvm_diag_set(diag, CVM_LIMIT, "%u bytes of push constants is more than the "
                            "device's %u", spv->push_size, d->props.limits.maxPushConstantsSize);
    v->spv = *spv;
    VkShaderModuleCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                   .codeSize = count * 4,
                                   .pCode = words};
    VkResult r = d->vk.vkCreateShaderModule(d->device, &si, NULL, &v->shader);
    if (r != VK_SUCCESS)
        return cvm_vk_result(r, diag, "vkCreateShaderModule");
    VkDescriptorSetLayoutBinding b[64];
    for (uint32_t i = 0; i < spv->nbindings; i++)
        b[i] = (VkDescriptorSetLayoutBinding){i, binding_type(spv, i), 1,
                                              VK_SHADER_STAGE_COMPUTE_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                          .bindingCount = spv->nbindings,
                                          .pBindings = b};
    if ((r = d->vk.vkCreateDescriptorSetLayout(d->device, &li, NULL, &v->dsl)) != VK_SUCCESS)
        return cvm_vk_result(r, diag, "vkCreateDescriptorSetLayout");
    VkPushConstantRange pr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, spv->push_size};
    VkPipelineLayoutCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                     .setLayoutCount = 1,
                                     .pSetLayouts = &v->dsl,
                                     .pushConstantRangeCount = spv->push_size ? 1 : 0,
                                     .pPushConstantRanges = &pr};
    if ((r = d->vk.vkCreatePipelineLayout(d->device, &pi, NULL, &v->layout)) != VK_SUCCESS)
        return cvm_vk_result(r, diag, "vkCreatePipelineLayout");
    return CVM_OK;
}

void cvm_vk_variant_free(cvm_device *dev, const cvm_bc_module *bc, cvm_vk_variant *v)
{
    vk_dev *d = vkd(dev);
    while (v->pipes) {
        vk_pipe *p = v->pipes;
        v->pipes = p->next;
        if (!d->hung)
            d->vk.vkDestroyPipeline(d->device, p->pipeline, NULL);
        cvm_vm_dev_free(dev, p, sizeof *p);
    }
    if (v->layout && !d->hung)
        d->vk.vkDestroyPipelineLayout(d->device, v->layout, NULL);
    if (v->dsl && !d->hung)
        d->vk.vkDestroyDescriptorSetLayout(d->device, v->dsl, NULL);
    if (v->shader && !d->hung)
        d->vk.vkDestroyShaderModule(d->device, v->shader, NULL);
    if (v->owns_spv && bc)
        cvm_spv_layout_free(bc, &v->spv);
    cvm_vm_dev_free(dev, v, sizeof *v);
}

/* The pipeline for one specialization; built on first use (caller holds the lock). */
static cvm_status pipe_get(cvm_device *dev, cvm_vk_variant *v, const uint32_t local[3],
                           uint32_t dyn_shared, VkPipeline *out, cvm_diag *diag)
{
    vk_dev *d = vkd(dev);
    for (vk_pipe *p = v->pipes; p; p = p->next)
        if (!memcmp(p->local, local, sizeof p->local) && p->dyn_shared == dyn_shared) {
            *out = p->pipeline;
            return CVM_OK;
        }
    vk_pipe *p = cvm_vm_dev_alloc(dev, sizeof *p);
    if (!p)
        return cvm_vm_oom(dev, diag, "a pipeline record", sizeof *p);
    uint32_t values[4] = {local[0], local[1], local[2], dyn_shared};
    VkSpecializationMapEntry map[4];
    for (uint32_t i = 0; i < 4; i++)
        map[i] = (VkSpecializationMapEntry){i < 3 ? v->spv.spec_local_size[i] : v->spv.spec_dyn_shared,
                                            i * 4, 4};
    VkSpecializationInfo spec = {4, map, sizeof values, values};
    /* A plane width other than the default subgroup size needs a required size. */
    VkPipelineShaderStageRequiredSubgroupSizeCreateInfo req = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO,
        .requiredSubgroupSize = v->plane_width};
    bool fixed = d->target.subgroup_size_control && v->plane_width != d->subgroup_size &&
                 v->plane_width >= d->subgroup_min && v->plane_width <= d->subgroup_max;
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .pNext = fixed ? &req : NULL,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = v->shader,
                  .pName = "main",
                  .pSpecializationInfo = &spec},
        .layout = v->layout};
    VkResult r = d->vk.vkCreateComputePipelines(d->device, d->pipeline_cache, 1, &ci, NULL,
                                                &p->pipeline);
    if (r != VK_SUCCESS) {
        cvm_vm_dev_free(dev, p, sizeof *p);
        return cvm_vk_result(r, diag, "vkCreateComputePipelines");
    }
    __atomic_fetch_add(&d->pipelines_built, 1, __ATOMIC_RELAXED);
    memcpy(p->local, local, sizeof p->local);
    p->dyn_shared = dyn_shared;
    p->next = v->pipes;
    v->pipes = p;
    *out = p->pipeline;
    return CVM_OK;
}

/* ---- recording a dispatch ---- */

/* One descriptor pool and set holding the launch's buffers. */
static cvm_status bind_set(cvm_stream *s, vk_sub *sub, const cvm_vk_variant *v,
                           VkDescriptorSet *out, cvm_diag *diag)
{
    vk_dev *d = vkd(s->dev);
    uint32_t n = v->spv.nbindings ? v->spv.nbindings : 1; /* counts must be positive */
    VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, n},
                                     {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, n}};
    VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .maxSets = 1,
                                     .poolSizeCount = 2,
                                     .pPoolSizes = sizes};
    VkResult r = d->vk.vkCreateDescriptorPool(d->device, &pi, NULL, &sub->dpool);
    if (r == VK_SUCCESS) {
        VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                          .descriptorPool = sub->dpool,
                                          .descriptorSetCount = 1,
                                          .pSetLayouts = &v->dsl};
        r = d->vk.vkAllocateDescriptorSets(d->device, &ai, out);
    }
    return cvm_vk_result(r, diag, "allocating a descriptor set");
}

/* The device address of byte `offset` of a buffer (created with the address usage). */
static bool put_address(const vk_dev *d, const cvm_buffer *buf, size_t offset,
                        const cvm_spv_bind *b, const cvm_spv_layout *l, uint8_t *push)
{
    if (!d->target.buffer_device_address || b->offset + 8 > l->push_size)
        return false;
    VkBufferDeviceAddressInfo ai = {.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO,
                                    .buffer = ((const vk_buffer *)buf->impl)->buffer};
    uint64_t a = d->vk.vkGetBufferDeviceAddress(d->device, &ai) + offset;
    memcpy(push + b->offset, &a, 8);
    return true;
}

/*
 * The module's __device__ symbols the kernel addresses, each its own
 * buffer: a descriptor at a binding, or its address in the push constants.
 */
static cvm_status bind_symbols(const vk_dev *d, const cvm_spv_layout *l,
                               cvm_buffer *const *symbufs, VkDescriptorBufferInfo *info,
                               uint32_t *binding, uint32_t *nw, uint8_t *push, cvm_diag *diag)
{
    for (uint32_t i = 0; i < l->nsyms; i++) {
        const cvm_spv_symbind *sb = &l->syms[i];
        const cvm_buffer *buf = symbufs ? symbufs[sb->symbol] : NULL;
        bool okb = buf && sb->bind.kind == CVM_SPV_BIND_STORAGE_BUFFER && sb->bind.binding < l->nbindings;
        if (buf && sb->bind.kind == CVM_SPV_BIND_ADDRESS && put_address(d, buf, 0, &sb->bind, l, push))
            continue;
        if (!okb)
            return cvm_diag_set(diag, CVM_INTERNAL, "module symbol %u has no buffer or binding",
                                sb->symbol);
        const vk_buffer *vb = buf->impl;
        info[*nw] = (VkDescriptorBufferInfo){vb->buffer, 0, vb->vsize};
        binding[(*nw)++] = sb->bind.binding;
    }
    return CVM_OK;
}

/* Fills the descriptor set and the push-constant block from the arguments. */
static cvm_status write_args(cvm_stream *s, vk_sub *sub, const cvm_vk_variant *v,
                             VkDescriptorSet set, const cvm_arg *args, cvm_buffer *const *symbufs,
                             uint8_t *push, cvm_diag *diag)
{
    vk_dev *d = vkd(s->dev);
    const cvm_spv_layout *l = &v->spv;
    VkDescriptorBufferInfo info[64];
    VkWriteDescriptorSet w[64];
    uint32_t nw = 0;
    uint32_t ubytes = 0;
    uint8_t *umap = NULL;
    for (uint32_t i = 0; i < l->nparams; i++)
        if (l->params[i].kind == CVM_SPV_BIND_UNIFORM &&
            l->params[i].offset + l->params[i].size > ubytes)
            ubytes = l->params[i].offset + l->params[i].size;
    ubytes = (ubytes + 15) / 16 * 16; /* the shader declares whole uvec4s */
    if (ubytes > d->props.limits.maxUniformBufferRange)
        return cvm_diag_set(diag, CVM_LIMIT, "%u bytes of by-value parameters is more than the "
                            "device's uniform buffer range (%u)", ubytes,
                            d->props.limits.maxUniformBufferRange);
    if (ubytes) {
        /* One uniform block for every by-value parameter, released with the submission. */
        cvm_status st = cvm_vk_raw_buffer(s->dev, ubytes, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
                                          &sub->staging, &sub->staging_mem, (void **)&umap, diag);
        if (st)
            return st;
        memset(umap, 0, ubytes);
    }
    bool uwritten = false;
    for (uint32_t i = 0; i < l->nparams; i++) {
        const cvm_spv_bind *b = &l->params[i];
        const cvm_arg *a = &args[i];
        if (b->kind == CVM_SPV_BIND_PUSH_CONSTANT) {
            if (a->kind != CVM_ARG_BYTES || a->size < b->size || b->offset + b->size > l->push_size)
                return cvm_diag_set(diag, CVM_INTERNAL, "parameter %u does not fit its push "
                                    "constant range", i);
            memcpy(push + b->offset, a->bytes, b->size);
            continue;
        }
        if (b->kind == CVM_SPV_BIND_ADDRESS) {
            if (a->kind != CVM_ARG_BUFFER || !put_address(d, a->buffer, a->offset, b, l, push))
                return cvm_diag_set(diag, CVM_INTERNAL, "parameter %u: no address for it", i);
            continue;
        }
        if (b->kind == CVM_SPV_BIND_UNIFORM) {
            if (a->kind != CVM_ARG_BYTES || a->size < b->size)
                return cvm_diag_set(diag, CVM_INTERNAL, "parameter %u is not bytes", i);
            memcpy(umap + b->offset, a->bytes, b->size);
            if (uwritten)
                continue; /* every uniform parameter shares the one binding */
            uwritten = true;
            info[nw] = (VkDescriptorBufferInfo){sub->staging, 0, ubytes};
        } else {
            const vk_buffer *vb = a->buffer->impl;
            VkDeviceSize align = d->props.limits.minStorageBufferOffsetAlignment;
            if (a->kind != CVM_ARG_BUFFER)
                return cvm_diag_set(diag, CVM_INTERNAL, "parameter %u is not a buffer", i);
            if (align && a->offset % align)
                return cvm_diag_set(diag, CVM_UNSUPPORTED,
                                    "buffer argument %u: offset %zu is not a multiple of the "
                                    "device's storage buffer alignment (%llu bytes)", i, a->offset,
                                    (unsigned long long)align);
            /* An empty view still needs a range: the last word (never accessed). */
            VkDeviceSize off = a->offset < vb->vsize ? a->offset : vb->vsize - 4;
            info[nw] = (VkDescriptorBufferInfo){vb->buffer, off, vb->vsize - off};
        }
        if (b->binding >= l->nbindings)
            return cvm_diag_set(diag, CVM_INTERNAL, "parameter %u: binding %u out of range", i,
                                b->binding);
        w[nw] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                       .dstSet = set,
                                       .dstBinding = b->binding,
                                       .descriptorCount = 1,
                                       .descriptorType = binding_type(l, b->binding),
                                       .pBufferInfo = &info[nw]};
        nw++;
    }
    uint32_t first = nw, binding[64];
    cvm_status st = bind_symbols(d, l, symbufs, info, binding, &nw, push, diag);
    if (st)
        return st;
    if (sub->print) {
        info[nw] = cvm_vk_print_info(sub->print);
        binding[nw++] = l->print_binding;
    }
    for (uint32_t i = first; i < nw; i++)
        w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                      .dstSet = set,
                                      .dstBinding = binding[i],
                                      .descriptorCount = 1,
                                      .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                      .pBufferInfo = &info[i]};
    d->vk.vkUpdateDescriptorSets(d->device, nw, w, 0, NULL);
    return CVM_OK;
}

cvm_status cvm_vk_dispatch(cvm_stream *s, cvm_vk_variant *v, VkPipeline pipeline,
                           const uint32_t grid[3], const cvm_arg *args, const cvm_bc_module *bc,
                           cvm_buffer *const *symbufs, double timeout_s, const char *kname,
                           cvm_diag *diag)
{
    vk_dev *d = vkd(s->dev);
    vk_sub *sub = NULL;
    VkDescriptorSet set = VK_NULL_HANDLE;
    uint8_t push[256];
    memset(push, 0, sizeof push);
    /* A grid wider than the device's x limit runs as dispatches of at most
     * that many cubes, each told its first cube and the grid's width (spv.h
     * grid_x), unless the kernel had no room for those words (16 buffer
     * addresses) or the shader is raw SPIR-V (cvm_vk_run_spirv) */
    uint32_t max_x = d->props.limits.maxComputeWorkGroupCount[0];
    if (grid[0] > max_x && (v->spv.grid_x_fixed || !bc))
        return cvm_diag_set(diag, CVM_LIMIT,
                            "launch of '%s': grid %u in dimension x exceeds the device's %u, and %s",
                            kname ? kname : "(kernel)", grid[0], max_x,
                            bc ? "the kernel's push constants have no room for a split grid's "
                                 "position (16 buffer addresses)"
                               : "a raw SPIR-V dispatch is not split");
    cvm_status st = cvm_vk_begin(s, &sub, diag);
    if (st)
        return st;
    sub->is_launch = true;
    if (timeout_s > 0) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        double ns = timeout_s * 1e9 < 1e18 ? timeout_s * 1e9 : 1e18; /* at most ~31 years */
        sub->deadline_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec + (uint64_t)ns;
        sub->timeout_s = timeout_s;
    }
    snprintf(sub->kernel, sizeof sub->kernel, "%s", kname ? kname : "(kernel)");
    if (v->spv.push_size > sizeof push) {
        st = cvm_diag_set(diag, CVM_LIMIT, "%u bytes of push constants", v->spv.push_size);
        goto fail;
    }
    if (v->spv.nprints && bc &&
        (st = cvm_vk_print_begin(s, &v->spv, bc, kname, &sub->print, diag)))
        goto fail;
    if ((st = bind_set(s, sub, v, &set, diag)) ||
        (st = write_args(s, sub, v, set, args, symbufs, push, diag)))
        goto fail;
    d->vk.vkCmdBindPipeline(sub->cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    d->vk.vkCmdBindDescriptorSets(sub->cb, VK_PIPELINE_BIND_POINT_COMPUTE, v->layout, 0, 1, &set,
                                  0, NULL);
    bool gx = v->spv.grid_x;
    uint32_t gx_off = v->spv.grid_x_offset;
    if (gx)
        memcpy(push + gx_off + 4, &grid[0], 4);
    for (uint32_t first = 0; first < grid[0]; first += max_x) {
        uint32_t n = grid[0] - first < max_x ? grid[0] - first : max_x;
        if (gx)
            memcpy(push + gx_off, &first, 4);
        if (v->spv.push_size && (first == 0 || gx))
            d->vk.vkCmdPushConstants(sub->cb, v->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                                     v->spv.push_size, push);
        d->vk.vkCmdDispatch(sub->cb, n, grid[1], grid[2]);
        if (grid[0] - first <= max_x)
            break; /* (first + max_x would wrap for grids near 2^32) */
    }
    return cvm_vk_submit(s, sub, diag);
fail:
    cvm_vk_abandon(s, sub);
    return st;
}

cvm_status cvm_vk_run_spirv(cvm_stream *s, const uint32_t *words, size_t count,
                            const cvm_spv_layout *layout, const uint32_t grid[3],
                            const uint32_t block[3], const cvm_arg *args, cvm_diag *diag)
{
    cvm_device *dev = s->dev;
    cvm_vk_variant *v = cvm_vm_dev_alloc(dev, sizeof *v);
    if (!v)
        return cvm_vm_oom(dev, diag, "a kernel variant", sizeof *v);
    v->plane_width = vkd(dev)->subgroup_size;
    VkPipeline pipeline;
    cvm_status st = cvm_vk_variant_build(dev, words, count, layout, v, diag);
    if (!st)
        st = pipe_get(dev, v, block, 0, &pipeline, diag);
    if (!st)
        st = cvm_vk_dispatch(s, v, pipeline, grid, args, NULL, NULL, 0, NULL, diag);
    cvm_vk_stream_wait(s);
    cvm_vk_variant_free(dev, NULL, v);
    if (st == CVM_OK && diag)
        memset(diag, 0, sizeof *diag);
    return st;
}

/* ---- modules ---- */

cvm_status cvm_vk_module_init(cvm_module *m, cvm_diag *diag)
{
    vk_module *vm = cvm_vm_dev_alloc(m->dev, sizeof *vm);
    uint32_t n = m->bc->nkernels ? m->bc->nkernels : 1;
    if (!vm)
        return cvm_vm_oom(m->dev, diag, "the module's pipeline table", sizeof *vm);
    vm->variants = cvm_vm_dev_alloc(m->dev, n * sizeof *vm->variants);
    if (!vm->variants || pthread_mutex_init(&vm->lock, NULL) != 0) {
        cvm_vm_dev_free(m->dev, vm->variants, n * sizeof *vm->variants);
        cvm_vm_dev_free(m->dev, vm, sizeof *vm);
        return cvm_vm_oom(m->dev, diag, "the module's pipeline table", n * sizeof *vm->variants);
    }
    uint32_t nc = m->bc->const_size;
    if (nc && !(vm->consts = cvm_vm_dev_alloc(m->dev, nc))) {
        pthread_mutex_destroy(&vm->lock);
        cvm_vm_dev_free(m->dev, vm->variants, n * sizeof *vm->variants);
        cvm_vm_dev_free(m->dev, vm, sizeof *vm);
        return cvm_vm_oom(m->dev, diag, "the module's constant data", nc);
    }
    m->impl = vm;
    return CVM_OK;
}

/* Drops every kernel's variants (their pipelines may be in flight: waits first). */
static void drop_variants(cvm_module *m)
{
    vk_module *vm = m->impl;
    cvm_vk_device_wait(m->dev);
    for (uint32_t k = 0; k < m->bc->nkernels; k++)
        while (vm->variants[k]) {
            cvm_vk_variant *v = vm->variants[k];
            vm->variants[k] = v->next;
            cvm_vk_variant_free(m->dev, m->bc, v);
        }
}

void cvm_vk_module_fini(cvm_module *m)
{
    vk_module *vm = m->impl;
    if (!vm)
        return;
    uint32_t n = m->bc->nkernels ? m->bc->nkernels : 1;
    drop_variants(m);
    cvm_vm_dev_free(m->dev, vm->consts, m->bc->const_size);
    pthread_mutex_destroy(&vm->lock);
    cvm_vm_dev_free(m->dev, vm->variants, n * sizeof *vm->variants);
    cvm_vm_dev_free(m->dev, vm, sizeof *vm);
    m->impl = NULL;
}

#if CVM_HAVE_SPIRV
/*
 * cvm_spv_compile on a view of the module whose constant data is the const
 * space as the host last wrote it (the module's own data is its initial value).
 */
static cvm_status translate(cvm_module *m, uint32_t kernel, const cvm_spv_target *t,
                            uint32_t **words, size_t *count, cvm_spv_layout *layout,
                            cvm_diag *diag)
{
    const cvm_bc_module *bc = m->bc;
    if (!bc->const_size)
        return cvm_spv_compile(bc, m->ver, kernel, t, words, count, layout, diag);
    uint32_t n = bc->ndata > bc->const_size ? bc->ndata : bc->const_size;
    uint8_t *data = cvm_vm_dev_alloc(m->dev, n);
    if (!data)
        return cvm_vm_oom(m->dev, diag, "the module's constant data", n);
    if (bc->ndata)
        memcpy(data, bc->data, bc->ndata);
    memcpy(data, m->const_data, bc->const_size);
    cvm_bc_module view = *bc;
    cvm_bc_verified vver = *m->ver;
    view.data = data;
    view.ndata = n;
    vver.mod = &view;
    cvm_status st = cvm_spv_compile(&view, &vver, kernel, t, words, count, layout, diag);
    cvm_vm_dev_free(m->dev, data, n);
    return st;
}
#endif

/* The kernel at plane width `pw`: translated once; a rejection is remembered. */
static cvm_status variant_get(const cvm_kernel *k, uint32_t pw, cvm_vk_variant **out,
                              cvm_diag *diag)
{
    cvm_module *m = (cvm_module *)k->mod;
    cvm_device *dev = m->dev;
    vk_module *vm = m->impl;
    for (cvm_vk_variant *v = vm->variants[k->index]; v; v = v->next)
        if (v->plane_width == pw) {
            *out = v;
            if (v->status && diag)
                *diag = v->why;
            return v->status;
        }
    cvm_vk_variant *v = cvm_vm_dev_alloc(dev, sizeof *v);
    if (!v)
        return cvm_vm_oom(dev, diag, "a kernel variant", sizeof *v);
    v->plane_width = pw;
#if CVM_HAVE_SPIRV
    cvm_spv_target t = vkd(dev)->target;
    t.plane_width = pw;
    uint32_t *words = NULL;
    size_t count = 0;
    v->status = translate(m, k->index, &t, &words, &count, &v->spv, &v->why);
    if (v->status == CVM_OK) {
        v->owns_spv = true;
        v->status = cvm_vk_variant_build(dev, words, count, &v->spv, v, &v->why);
        cvm_bc_free(m->bc->alloc, m->bc->alloc_user, words, count * 4);
    }
#else
    v->status = cvm_diag_set(&v->why, CVM_UNSUPPORTED,
                             "kernel '%s' cannot run on vulkan: the SPIR-V backend is not built in",
                             cvm_bc_str(m->bc, m->bc->kernels[k->index].name));
#endif
    v->next = vm->variants[k->index];
    vm->variants[k->index] = v;
    *out = v;
    if (v->status && diag)
        *diag = v->why;
    return v->status;
}

/* ---- launches ---- */

static bool is_pow2(uint32_t v) { return v && !(v & (v - 1)); }

/* Grid, cube and shared memory against the kernel and the device; the plane width. */
static cvm_status check_shape(const vk_dev *d, const cvm_bc_module *bc, const cvm_bc_kernel *bk,
                              const cvm_launch_config *cfg, uint32_t grid[3], uint32_t block[3],
                              uint32_t *pw, cvm_diag *diag)
{
    const VkPhysicalDeviceLimits *l = &d->props.limits;
    const char *kname = cvm_bc_str(bc, bk->name);
    uint64_t units = 1;
    for (int i = 0; i < 3; i++) {
        grid[i] = cfg->grid[i] ? cfg->grid[i] : 1;
        block[i] = cfg->block[i] ? cfg->block[i] : 1;
        units *= block[i];
        /* x: any u32 (cvm_vk_dispatch splits a grid wider than the device's limit) */
        if ((i && grid[i] > l->maxComputeWorkGroupCount[i]) || block[i] > l->maxComputeWorkGroupSize[i])
            return cvm_diag_set(diag, CVM_LIMIT,
                                "launch of '%s': grid %u / cube %u in dimension %c exceed the "
                                "device's %u / %u", kname, grid[i], block[i], "xyz"[i],
                                l->maxComputeWorkGroupCount[i], l->maxComputeWorkGroupSize[i]);
    }
    if (units > l->maxComputeWorkGroupInvocations || (bk->max_cube && units > bk->max_cube))
        return cvm_diag_set(diag, CVM_LIMIT,
                            "launch of '%s': %llu units per cube, the limit is %u", kname,
                            (unsigned long long)units,
                            bk->max_cube && bk->max_cube < l->maxComputeWorkGroupInvocations
                                ? bk->max_cube : l->maxComputeWorkGroupInvocations);
    uint64_t shared = (uint64_t)bk->shared_bytes + cfg->shared_bytes;
    if (shared > l->maxComputeSharedMemorySize)
        return cvm_diag_set(diag, CVM_LIMIT,
                            "launch of '%s' needs %llu bytes of shared memory, the device has %u",
                            kname, (unsigned long long)shared, l->maxComputeSharedMemorySize);
    *pw = cfg->plane_width ? cfg->plane_width : bk->plane_width ? bk->plane_width
                                                                 : d->subgroup_size;
    if (!is_pow2(*pw) || *pw > CVM_BC_MAX_PLANE)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT,
                            "plane width %u is invalid: it must be a power of two from 1 to %u",
                            *pw, CVM_BC_MAX_PLANE);
    if (bk->plane_width && (bk->flags & CVM_KF_FIXED_WIDTH) && *pw != bk->plane_width)
        return cvm_diag_set(diag, CVM_UNSUPPORTED,
                            "kernel '%s' requires plane width %u, the launch asks for %u", kname,
                            bk->plane_width, *pw);
    return CVM_OK;
}

cvm_status cvm_vk_launch(cvm_stream *s, const cvm_kernel *k, const cvm_launch_config *cfg,
                         const cvm_arg *args, uint32_t nargs, cvm_diag *diag)
{
    cvm_device *dev = s->dev;
    const cvm_module *m = k->mod;
    if (m->dev != dev)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT,
                            "cvm_launch: the module was loaded on another device");
    const cvm_bc_kernel *bk = &m->bc->kernels[k->index];
    uint32_t grid[3], block[3], pw = 0;
    if (cfg->step_budget)
        return cvm_diag_set(diag, CVM_UNSUPPORTED,
                            "launch of '%s': the vulkan device cannot count steps (a dispatch "
                            "runs to completion); run with a step budget on the cpu device",
                            cvm_bc_str(m->bc, bk->name));
    if (cfg->racecheck || cfg->initcheck)
        return cvm_diag_set(diag, CVM_UNSUPPORTED,
                            "launch of '%s': the vulkan device cannot check for %s; run the "
                            "check on the cpu device", cvm_bc_str(m->bc, bk->name),
                            cfg->racecheck ? "data races" : "uninitialized reads");
    cvm_status st = check_shape(vkd(dev), m->bc, bk, cfg, grid, block, &pw, diag);
    if (st)
        return st;
    size_t n = bk->nparams ? bk->nparams : 1, bytes = 0;
    uint32_t *offsets = cvm_vm_dev_alloc(dev, n * sizeof *offsets);
    if (!offsets)
        return cvm_vm_oom(dev, diag, "checking launch arguments", n * sizeof *offsets);
    st = cvm_vm_check_args(s, m->bc, bk, args, nargs, offsets, &bytes, diag);
    cvm_vm_dev_free(dev, offsets, n * sizeof *offsets);
    if (st)
        return st;
    vk_module *vm = m->impl;
    cvm_vk_variant *v = NULL;
    VkPipeline pipeline = VK_NULL_HANDLE;
    pthread_mutex_lock(&vm->lock);
    uint32_t nc = m->bc->const_size;
    if (nc && (!vm->consts_taken || memcmp(vm->consts, m->const_data, nc) != 0)) {
        if (vm->consts_taken)
            drop_variants((cvm_module *)m);
        memcpy(vm->consts, m->const_data, nc);
        vm->consts_taken = true;
    }
    st = variant_get(k, pw, &v, diag);
    if (!st)
        st = pipe_get(dev, v, block, cfg->shared_bytes, &pipeline, diag);
    pthread_mutex_unlock(&vm->lock);
    if (st)
        return st;
    if (v->spv.nparams != bk->nparams)
        return cvm_diag_set(diag, CVM_INTERNAL, "the SPIR-V layout has %u parameters, the kernel %u",
                            v->spv.nparams, bk->nparams);
    const uint64_t scratch = (uint64_t)v->spv.scratch_words_per_unit * 4 * block[0] * block[1] * block[2];
    const uint64_t shared = (uint64_t)bk->shared_bytes + cfg->shared_bytes + scratch;
    if (scratch && shared > vkd(dev)->props.limits.maxComputeSharedMemorySize)
        return cvm_diag_set(diag, CVM_LIMIT,
                            "launch of '%s' needs %llu bytes of shared memory with the %llu bytes its "
                            "emulated plane ops keep there (%u per unit), the device has %u",
                            cvm_bc_str(m->bc, bk->name), (unsigned long long)shared,
                            (unsigned long long)scratch, v->spv.scratch_words_per_unit * 4,
                            vkd(dev)->props.limits.maxComputeSharedMemorySize);
    if (s->fault != CVM_OK) {
        /* As on the cpu device: after a fault, later launches until the sync are skipped. */
        s->skipped++;
        return CVM_OK;
    }
    if (v->spv.nsyms && vkd(dev)->staged)
        /* symbols are written and read through cvm_buffer.data, a host shadow here */
        return cvm_diag_set(diag, CVM_UNSUPPORTED,
                            "launch of '%s': module __device__ variables on a device whose "
                            "buffers are staged (not host-visible) are not implemented",
                            cvm_bc_str(m->bc, bk->name));
    st = cvm_vk_dispatch(s, v, pipeline, grid, args, m->bc, m->symbufs, cfg->timeout_s,
                         cvm_bc_str(m->bc, bk->name), diag);
    if (st == CVM_OK && diag)
        memset(diag, 0, sizeof *diag);
    return st;
}
