/*
 * api_launch.c - the cpu device's launch: checks a launch against the
 * kernel, the device's target profile (vm/profile.c) and its memory limit,
 * packs the parameter bytes, and queues it for the worker pool (vm/pool.c),
 * which calls back here to build the region table that checked mode uses
 * to name buffers when the launch starts.
 */
#include "api.h"

#include "pool.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static bool is_pow2(uint32_t v) { return v && !(v & (v - 1)); }

/* The kernel's own requirements, then the profile's limits. */
static cvm_status check_shape(const cvm_device *dev, const cvm_module *mod, uint32_t kernel,
                              const cvm_launch_config *cfg, cvm_vm_shape *out, cvm_diag *diag)
{
    const cvm_bc_module *bc = mod->bc;
    const cvm_bc_kernel *bk = &bc->kernels[kernel];
    const char *kname = cvm_bc_str(bc, bk->name);
    uint64_t units = 1;
    for (int i = 0; i < 3; i++) {
        out->grid[i] = cfg->grid[i] ? cfg->grid[i] : 1;
        out->block[i] = cfg->block[i] ? cfg->block[i] : 1;
        units *= out->block[i];
    }
    bool fixed = bk->plane_width && (bk->flags & CVM_KF_FIXED_WIDTH);
    uint32_t pw = cfg->plane_width;
    if (!pw)
        pw = bk->plane_width ? bk->plane_width : dev->profile->pw_default;
    out->plane_width = pw;
    out->dyn_shared = cfg->shared_bytes;
    out->opt_in = cfg->shared_opt_in != 0;
    if (!is_pow2(pw) || pw > CVM_BC_MAX_PLANE)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT,
                            "plane width %u is invalid: it must be a power of two from 1 to %u",
                            pw, CVM_BC_MAX_PLANE);
    cvm_status st = cvm_vm_profile_check_shape(dev->profile, kname, out, diag);
    if (st)
        return st;
    if (bk->max_cube && units > bk->max_cube)
        return cvm_diag_set(diag, CVM_LIMIT,
                            "kernel '%s' allows at most %u units per cube (.max_cube), the launch "
                            "has %llu", kname, bk->max_cube, (unsigned long long)units);
    if (fixed && pw != bk->plane_width)
        return cvm_diag_set(diag, CVM_UNSUPPORTED,
                            "kernel '%s' requires plane width %u, the launch asks for %u", kname,
                            bk->plane_width, pw);
    return cvm_vm_profile_check(dev->profile, mod->prog, kernel, out, diag);
}

static const char *kind_name(unsigned kind)
{
    switch (kind) {
    case CVM_PARAM_BUFFER: return "buffer";
    case CVM_PARAM_SCALAR: return "scalar";
    case CVM_PARAM_STRUCT: return "struct";
    case CVM_PARAM_COMPTIME: return "comptime";
    }
    return "?";
}

cvm_status cvm_vm_check_args(const cvm_stream *s, const cvm_bc_module *bc,
                             const cvm_bc_kernel *bk, const cvm_arg *args, uint32_t nargs,
                             uint32_t *offsets, size_t *out_bytes, cvm_diag *diag)
{
    const char *kname = cvm_bc_str(bc, bk->name);
    if (nargs != bk->nparams || (nargs && !args))
        return cvm_diag_set(diag, CVM_TYPE_MISMATCH, "kernel '%s' takes %u argument%s, got %u",
                            kname, bk->nparams, bk->nparams == 1 ? "" : "s", nargs);
    size_t off = 0;
    for (uint32_t i = 0; i < nargs; i++) {
        const cvm_bc_param *p = &bk->params[i];
        const cvm_arg *a = &args[i];
        const char *pname = cvm_bc_str(bc, p->name);
        uint32_t size = p->kind == CVM_PARAM_BUFFER ? 8 : p->size;
        if (p->kind == CVM_PARAM_BUFFER) {
            if (a->kind != CVM_ARG_BUFFER || !a->buffer)
                return cvm_diag_set(diag, CVM_TYPE_MISMATCH,
                                    "kernel '%s' parameter %u '%s' is a buffer; pass a buffer "
                                    "argument", kname, i, pname);
            if (a->buffer->dev != s->dev)
                return cvm_diag_set(diag, CVM_INVALID_ARGUMENT,
                                    "kernel '%s' parameter '%s': buffer '%s' belongs to another "
                                    "device", kname, pname, a->buffer->name);
            if (a->offset > a->buffer->size)
                return cvm_diag_set(diag, CVM_INVALID_ARGUMENT,
                                    "kernel '%s' parameter '%s': offset %zu is past the end of "
                                    "buffer '%s' (%zu bytes)", kname, pname, a->offset,
                                    a->buffer->name, a->buffer->size);
        } else {
            if (a->kind != CVM_ARG_BYTES || (a->size && !a->bytes))
                return cvm_diag_set(diag, CVM_TYPE_MISMATCH,
                                    "kernel '%s' parameter %u '%s' is a %s passed by value; "
                                    "pass its bytes", kname, i, pname, kind_name(p->kind));
            if (a->size != p->size)
                return cvm_diag_set(diag, CVM_TYPE_MISMATCH,
                                    "kernel '%s' parameter %u '%s' takes %u bytes, got %zu",
                                    kname, i, pname, p->size, a->size);
        }
        uint32_t align = p->align ? p->align : 1;
        if (p->kind == CVM_PARAM_BUFFER && align < 8)
            align = 8;
        off = (off + align - 1) & ~(size_t)(align - 1);
        offsets[i] = (uint32_t)off;
        off += size;
    }
    *out_bytes = off;
    return CVM_OK;
}

static int region_cmp(const void *a, const void *b)
{
    const cvm_vm_region *x = a, *y = b;
    return x->base < y->base ? -1 : x->base > y->base;
}

/* Every live buffer (including module globals), sorted by address. */
static cvm_status build_regions(cvm_device *dev, cvm_vm_region **out, uint32_t *out_n,
                                cvm_diag *diag)
{
    cvm_status st = CVM_OK;
    pthread_mutex_lock(&dev->lock);
    uint32_t n = 0;
    for (cvm_buffer *b = dev->buffers; b; b = b->next)
        n++;
    cvm_vm_region *r = cvm_vm_dev_alloc(dev, (size_t)n * sizeof *r);
    if (!r) {
        st = cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory building the region table");
        goto done;
    }
    uint32_t i = 0;
    for (cvm_buffer *b = dev->buffers; b; b = b->next, i++)
        r[i] = (cvm_vm_region){(uintptr_t)b->data, b->size, b->name, b->writable, b->tag};
    qsort(r, n, sizeof *r, region_cmp);
    *out = r;
    *out_n = n;
done:
    pthread_mutex_unlock(&dev->lock);
    return st;
}

cvm_status cvm_vm_launch_prepare(cvm_vm_op *op, cvm_diag *diag)
{
    cvm_status st = build_regions(op->stream->dev, &op->regions, &op->nregions, diag);
    op->L.regions = op->regions;
    op->L.nregions = op->nregions;
    return st;
}

void cvm_vm_op_release(cvm_device *dev, cvm_vm_op *op)
{
    if (op->staged)
        cvm_vm_dev_free(dev, op->staged, op->size);
    cvm_vm_run_free(op->run);
    cvm_vm_dev_free(dev, op->regions, (size_t)op->nregions * sizeof *op->regions);
    cvm_vm_dev_free(dev, op->params, op->param_bytes);
    cvm_vm_dev_free(dev, op->offsets, op->noffsets * sizeof *op->offsets);
    cvm_vm_dev_free(dev, op->bufs, (op->nbufs ? op->nbufs : 1) * sizeof *op->bufs);
    cvm_vm_dev_free(dev, op, sizeof *op);
}

/* (register files + local x units + shared) x workers against the memory limit. */
static cvm_status check_memory(const cvm_device *dev, const cvm_vm_op *op, cvm_diag *diag)
{
    uint64_t regs, local, shared, limit = dev->mem.limit;
    cvm_vm_run_sizes(op->run, &regs, &local, &shared);
    uint64_t workers = dev->schedule == CVM_VM_SCHED_PARALLEL ? cvm_vm_pool_slots(dev->pool) : 1;
    uint64_t per = regs + local + shared, total = per * workers;
    if (!limit || total <= limit)
        return CVM_OK;
    return cvm_diag_set(diag, CVM_LIMIT,
                        "launch of '%s' needs (%llu register + %llu local + %llu shared bytes) x "
                        "%llu workers = %llu bytes, over the memory limit of %llu bytes",
                        cvm_bc_str(op->kernel->mod->bc, op->kernel->mod->bc->kernels[op->kernel->index].name),
                        (unsigned long long)regs, (unsigned long long)local,
                        (unsigned long long)shared, (unsigned long long)workers,
                        (unsigned long long)total, (unsigned long long)limit);
}

/* Copies the argument bytes and buffer uses into the operation. */
static cvm_status pack(cvm_vm_op *op, const cvm_bc_kernel *bk, const cvm_arg *args,
                       cvm_diag *diag)
{
    cvm_device *dev = op->stream->dev;
    uint32_t nbufs = 0;
    for (uint32_t i = 0; i < bk->nparams; i++)
        nbufs += bk->params[i].kind == CVM_PARAM_BUFFER;
    op->params = cvm_vm_dev_alloc(dev, op->param_bytes);
    op->bufs = cvm_vm_dev_alloc(dev, (nbufs ? nbufs : 1) * sizeof *op->bufs);
    if (!op->params || !op->bufs) {
        cvm_vm_dev_free(dev, op->bufs, (nbufs ? nbufs : 1) * sizeof *op->bufs);
        op->bufs = NULL;
        return cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory packing launch parameters");
    }
    op->nbufs = nbufs;
    nbufs = 0;
    for (uint32_t i = 0; i < bk->nparams; i++) {
        if (bk->params[i].kind == CVM_PARAM_BUFFER) {
            uint64_t addr = CVM_VM_PTR_MAKE((uintptr_t)(args[i].buffer->data + args[i].offset),
                                            args[i].buffer->tag);
            memcpy(op->params + op->offsets[i], &addr, sizeof addr);
            op->bufs[nbufs++] = args[i].buffer;
        } else if (args[i].size) {
            memcpy(op->params + op->offsets[i], args[i].bytes, args[i].size);
        }
    }
    return CVM_OK;
}

/* The interpreter's view of the launch (regions come when it starts). */
static void describe(cvm_vm_op *op, const cvm_launch_config *cfg, const cvm_vm_shape *sh)
{
    const cvm_kernel *k = op->kernel;
    const cvm_module *mod = k->mod;
    cvm_device *dev = op->stream->dev;
    op->L = (cvm_vm_launch){
        .kernel = k->index,
        .grid = {sh->grid[0], sh->grid[1], sh->grid[2]},
        .block = {sh->block[0], sh->block[1], sh->block[2]},
        .dyn_shared = sh->dyn_shared,
        .plane_width = sh->plane_width,
        .params = op->params,
        .param_offset = op->offsets,
        .const_data = mod->const_data,
        .const_size = mod->bc->const_size,
        .sym_value = mod->sym_value,
        .step_budget = cfg->step_budget,
        .timeout_s = cfg->timeout_s,
        .checked = !cfg->unchecked,
        .alloc = cvm_vm_mem_alloc,
        .alloc_user = &dev->mem,
        .print_out = &op->stream->out,
        .schedule = dev->schedule,
        .seed = dev->seed,
    };
}

cvm_status cvm_vm_cpu_launch(cvm_stream *s, const cvm_kernel *k, const cvm_launch_config *cfg,
                             const cvm_arg *args, uint32_t arg_count, cvm_diag *diag)
{
    cvm_device *dev = s->dev;
    if (k->mod->dev != dev)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT,
                            "cvm_launch: the module was loaded on another device");
    const cvm_bc_module *bc = k->mod->bc;
    const cvm_bc_kernel *bk = &bc->kernels[k->index];
    cvm_vm_shape sh;
    memset(&sh, 0, sizeof sh);
    cvm_status st = check_shape(dev, k->mod, k->index, cfg, &sh, diag);
    if (st)
        return st;
    if (cfg->timeout_s < 0 || cfg->timeout_s != cfg->timeout_s)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "timeout must be >= 0 seconds");
    cvm_vm_op *op = cvm_vm_dev_alloc(dev, sizeof *op);
    if (!op)
        return cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory queueing a launch");
    op->kind = CVM_VM_OP_LAUNCH;
    op->stream = s;
    op->kernel = k;
    op->noffsets = bk->nparams ? bk->nparams : 1;
    op->offsets = cvm_vm_dev_alloc(dev, op->noffsets * sizeof *op->offsets);
    if (!op->offsets) {
        st = cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory checking launch arguments");
        goto fail;
    }
    if ((st = cvm_vm_check_args(s, bc, bk, args, arg_count, op->offsets, &op->param_bytes,
                                diag)) ||
        (st = pack(op, bk, args, diag)))
        goto fail;
    describe(op, cfg, &sh);
    uint32_t workers = dev->schedule == CVM_VM_SCHED_PARALLEL ? cvm_vm_pool_slots(dev->pool) : 1;
    if ((st = cvm_vm_run_new(k->mod->prog, &op->L, workers, &op->run, diag)) ||
        (st = check_memory(dev, op, diag)))
        goto fail;
    cvm_vm_pool_submit(dev->pool, op);
    if (diag)
        memset(diag, 0, sizeof *diag);
    return CVM_OK;
fail:
    cvm_vm_op_release(dev, op);
    return st;
}
