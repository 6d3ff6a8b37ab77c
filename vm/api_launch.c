/*
 * api_launch.c - the cpu device's launch: checks a launch against the
 * kernel, the device's target profile (vm/profile.c) and its memory limit,
 * packs the parameter bytes, and queues it for the worker pool (vm/pool.c),
 * which calls back here to refresh the region table that checked mode uses
 * to name buffers when the launch starts. Operation records (also the
 * buffer operations of vm/api.c) come from here: one block each, recycled.
 */
#include "api.h"
#include "isa.h"
#include "jit.h"

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

/* Where parameter p goes in the packed bytes when `off` bytes precede it; returns its end. */
static size_t place(const cvm_bc_param *p, size_t off, uint32_t *at)
{
    uint32_t size = p->kind == CVM_PARAM_BUFFER ? 8 : p->size;
    uint32_t align = p->align ? p->align : 1;
    if (p->kind == CVM_PARAM_BUFFER && align < 8)
        align = 8;
    off = (off + align - 1) & ~(size_t)(align - 1);
    if (at)
        *at = (uint32_t)off;
    return off + size;
}

cvm_status cvm_vm_check_args(const cvm_stream *s, const cvm_bc_module *bc,
                             const cvm_bc_kernel *bk, const cvm_arg *args, uint32_t nargs,
                             uint32_t *offsets, size_t *out_bytes, cvm_diag *diag)
{
    const char *kname = cvm_bc_str(bc, bk->name);
    if (nargs && !args)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "kernel '%s': %u arguments counted but the list is NULL",
                            kname, nargs);
    if (nargs != bk->nparams)
        return cvm_diag_set(diag, CVM_TYPE_MISMATCH, "kernel '%s' takes %u argument%s, got %u",
                            kname, bk->nparams, bk->nparams == 1 ? "" : "s", nargs);
    size_t off = 0;
    for (uint32_t i = 0; i < nargs; i++) {
        const cvm_bc_param *p = &bk->params[i];
        const cvm_arg *a = &args[i];
        const char *pname = cvm_bc_str(bc, p->name);
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
        off = place(p, off, &offsets[i]);
    }
    *out_bytes = off;
    return CVM_OK;
}

static int region_cmp(const void *a, const void *b)
{
    const cvm_vm_region *x = a, *y = b;
    return x->base < y->base ? -1 : x->base > y->base;
}

/* Every live buffer (including module globals), sorted by address, into the device's table. */
static cvm_status build_regions(cvm_device *dev, cvm_diag *diag)
{
    uint32_t n = 0;
    for (cvm_buffer *b = dev->buffers; b; b = b->next)
        n++;
    if (!dev->regions || n > dev->cap_regions) {
        uint32_t cap = n > 16 ? n + n / 2 : 16;
        cvm_vm_region *r = cvm_vm_dev_alloc(dev, (size_t)cap * sizeof *r);
        if (!r)
            return cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory building the region table");
        if (dev->regions)
            cvm_vm_dev_free(dev, dev->regions, (size_t)dev->cap_regions * sizeof *r);
        dev->regions = r;
        dev->cap_regions = cap;
    }
    uint32_t i = 0;
    for (cvm_buffer *b = dev->buffers; b; b = b->next, i++)
        dev->regions[i] =
            (cvm_vm_region){(uintptr_t)b->data, b->size, b->name, b->writable, b->tag};
    qsort(dev->regions, n, sizeof *dev->regions, region_cmp);
    dev->nregions = n;
    dev->regions_gen = dev->buffers_gen;
    return CVM_OK;
}

cvm_status cvm_vm_launch_prepare(cvm_vm_op *op, cvm_diag *diag)
{
    cvm_device *dev = op->stream->dev;
    cvm_status st = CVM_OK;
    pthread_mutex_lock(&dev->lock);
    if (!dev->regions || dev->regions_gen != dev->buffers_gen)
        st = build_regions(dev, diag);
    pthread_mutex_unlock(&dev->lock);
    op->L.regions = dev->regions;
    op->L.nregions = st == CVM_OK ? dev->nregions : 0;
    return st;
}

/* ---- operation records ---- */

/* The block size kept for reuse: the record, the run record and common arguments. */
#define OP_BLOCK 3072u
#define OP_SPARE_MAX 8u
#define OP_HEAD ((sizeof(cvm_vm_op) + 63) / 64 * 64)

uint8_t *cvm_vm_op_extra(cvm_vm_op *op) { return (uint8_t *)op + OP_HEAD; }

cvm_vm_op *cvm_vm_op_new(cvm_device *dev, size_t extra)
{
    cvm_vm_op *op = NULL;
    if (extra > SIZE_MAX - OP_HEAD)
        return NULL;
    size_t block = OP_HEAD + extra;
    if (block <= OP_BLOCK) {
        block = OP_BLOCK;
        cvm_vm_pool_lock(dev->pool);
        op = dev->spare_ops;
        if (op) {
            dev->spare_ops = op->next;
            dev->nspare--;
        }
        cvm_vm_pool_unlock(dev->pool);
    }
    /* Not zeroed as a whole: each user writes its part of the extra bytes. */
    if (!op && !(op = cvm_vm_mem_alloc(&dev->mem, NULL, 0, block)))
        return NULL;
    memset(op, 0, sizeof *op);
    op->block = block;
    return op;
}

void cvm_vm_op_release(cvm_device *dev, cvm_vm_op *op, bool locked)
{
    cvm_vm_run_free(op->run);
    if (locked && op->block == OP_BLOCK && dev->nspare < OP_SPARE_MAX) {
        op->next = dev->spare_ops;
        dev->spare_ops = op;
        dev->nspare++;
        return;
    }
    cvm_vm_mem_alloc(&dev->mem, op, op->block, 0);
}

void cvm_vm_op_cache_free(cvm_device *dev)
{
    while (dev->spare_ops) {
        cvm_vm_op *op = dev->spare_ops;
        dev->spare_ops = op->next;
        cvm_vm_mem_alloc(&dev->mem, op, op->block, 0);
    }
    dev->nspare = 0;
    if (dev->regions)
        cvm_vm_dev_free(dev, dev->regions, (size_t)dev->cap_regions * sizeof *dev->regions);
    dev->regions = NULL;
    dev->nregions = dev->cap_regions = 0;
}

/* The launch's allocator (L.alloc): the run record lives in the operation's block when it fits. */
static void *op_alloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    cvm_vm_op *op = user;
    cvm_mem *mem = &op->stream->dev->mem;
    if (ptr && ptr == op->arena) {
        if (new_size <= op->arena_size) {
            if (new_size == 0)
                __atomic_store_n(&op->arena_used, false, __ATOMIC_RELEASE);
            return new_size ? ptr : NULL;
        }
        void *n = cvm_vm_mem_alloc(mem, NULL, 0, new_size);
        if (n) {
            memcpy(n, ptr, old_size);
            __atomic_store_n(&op->arena_used, false, __ATOMIC_RELEASE);
        }
        return n;
    }
    if (!ptr && new_size && new_size <= op->arena_size &&
        !__atomic_exchange_n(&op->arena_used, true, __ATOMIC_ACQUIRE))
        return op->arena;
    return cvm_vm_mem_alloc(mem, ptr, old_size, new_size);
}

/* (register files + local x units + shared) x workers against the memory limit. */
static cvm_status check_memory(const cvm_device *dev, const cvm_vm_op *op, cvm_diag *diag)
{
    uint64_t regs, local, shared, checkers, limit = dev->mem.limit;
    cvm_vm_run_sizes(op->run, &regs, &local, &shared, &checkers);
    uint64_t workers = op->L.schedule == CVM_VM_SCHED_PARALLEL ? cvm_vm_pool_slots(dev->pool) : 1;
    uint64_t per = regs + local + shared + checkers, total = per * workers;
    if (!limit || total <= limit)
        return CVM_OK;
    char extra[64] = "";
    if (checkers)
        snprintf(extra, sizeof extra, " + %llu checker", (unsigned long long)checkers);
    return cvm_diag_set(diag, CVM_LIMIT,
                        "launch of '%s' needs (%llu register + %llu local + %llu shared%s bytes) x "
                        "%llu workers = %llu bytes, over the memory limit of %llu bytes",
                        cvm_bc_str(op->kernel->mod->bc, op->kernel->mod->bc->kernels[op->kernel->index].name),
                        (unsigned long long)regs, (unsigned long long)local,
                        (unsigned long long)shared, extra, (unsigned long long)workers,
                        (unsigned long long)total, (unsigned long long)limit);
}

/* Copies the argument bytes and buffer uses into the operation. */
static void pack(cvm_vm_op *op, const cvm_bc_kernel *bk, const cvm_arg *args)
{
    uint32_t nbufs = 0;
    memset(op->params, 0, op->param_bytes); /* padding between parameters */
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
}

/* Room for the run record in a launch's block (interp.c's cvm_vm_run, with slack). */
#define OP_ARENA 1536u

/* A launch record for kernel bk: run room, offsets, buffer list and parameter bytes,
 * in one block. */
static cvm_vm_op *new_launch(cvm_device *dev, const cvm_bc_kernel *bk)
{
    uint32_t nbufs = 0;
    size_t bytes = 0;
    for (uint32_t i = 0; i < bk->nparams; i++) {
        nbufs += bk->params[i].kind == CVM_PARAM_BUFFER;
        bytes = place(&bk->params[i], bytes, NULL);
    }
    size_t noffsets = bk->nparams ? bk->nparams : 1;
    size_t at_offsets = OP_ARENA, at_bufs = (at_offsets + noffsets * 4 + 7) / 8 * 8;
    size_t at_params = (at_bufs + (size_t)nbufs * sizeof(cvm_buffer *) + 15) / 16 * 16;
    cvm_vm_op *op = cvm_vm_op_new(dev, at_params + bytes);
    if (!op)
        return NULL;
    uint8_t *x = cvm_vm_op_extra(op);
    op->kind = CVM_VM_OP_LAUNCH;
    op->arena = x;
    op->arena_size = OP_ARENA;
    op->offsets = (uint32_t *)(void *)(x + at_offsets);
    op->noffsets = noffsets;
    op->bufs = (cvm_buffer **)(void *)(x + at_bufs);
    op->nbufs = nbufs;
    op->params = x + at_params;
    op->param_bytes = bytes;
    return op;
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
        .racecheck = cfg->racecheck != 0,
        .initcheck = cfg->initcheck != 0,
        .tier = (uint8_t)cfg->tier,
        .alloc = op_alloc,
        .alloc_user = op,
        .print_out = &op->stream->out,
        .schedule = dev->schedule,
        .seed = dev->seed,
    };
}

cvm_status cvm_vm_cpu_launch(cvm_stream *s, const cvm_kernel *k, const cvm_launch_config *cfg,
                             const cvm_arg *args, uint32_t arg_count, cvm_diag *diag)
{
    return cvm_vm_cpu_launch_with(s, k, cfg, args, arg_count, NULL, diag);
}

cvm_status cvm_vm_cpu_launch_with(cvm_stream *s, const cvm_kernel *k, const cvm_launch_config *cfg,
                                  const cvm_arg *args, uint32_t arg_count,
                                  const cvm_vm_debugging *dbg, cvm_diag *diag)
{
    cvm_device *dev = s->dev;
    if (k->mod->dev != dev)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT,
                            "cvm_launch: the module was loaded on another device");
    unsigned level; /* a CUBEVM_ISA that cannot run fails the launch, naming it */
    cvm_status st0 = cvm_vm_isa_current(&level, diag);
    if (st0)
        return st0;
    const cvm_bc_module *bc = k->mod->bc;
    const cvm_bc_kernel *bk = &bc->kernels[k->index];
    if (cfg->tier < CVM_TIER_DEFAULT || cfg->tier > CVM_TIER_NATIVE)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT,
                            "launch of '%s': tier %d is not a cvm_tier (0 default, 1 interp, 2 native)",
                            cvm_bc_str(bc, bk->name), cfg->tier);
    if ((st0 = cvm_jit_check(cfg->tier, diag)))
        return st0;
    if ((cfg->racecheck || cfg->initcheck) && cfg->unchecked)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT,
                            "launch of '%s': the %s check needs checked mode (unchecked is set)",
                            cvm_bc_str(bc, bk->name), cfg->racecheck ? "race" : "uninitialized-read");
    cvm_vm_shape sh;
    memset(&sh, 0, sizeof sh);
    cvm_status st = check_shape(dev, k->mod, k->index, cfg, &sh, diag);
    if (st)
        return st;
    cvm_vm_op *op = new_launch(dev, bk);
    if (!op)
        return cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory queueing a launch");
    op->stream = s;
    op->kernel = k;
    size_t bytes = 0;
    if ((st = cvm_vm_check_args(s, bc, bk, args, arg_count, op->offsets, &bytes, diag)))
        goto fail;
    pack(op, bk, args);
    describe(op, cfg, &sh);
    if (dbg) { /* one thread, cubes and planes in order (cvm_vm_run_new) */
        op->L.hook = dbg->trampoline;
        op->L.hook_user = op;
        op->L.schedule = CVM_VM_SCHED_SEQUENTIAL;
        op->debug_hook = dbg->hook;
        op->debug_user = dbg->user;
    }
    uint32_t workers = op->L.schedule == CVM_VM_SCHED_PARALLEL ? cvm_vm_pool_slots(dev->pool) : 1;
    if ((st = cvm_vm_run_new(k->mod->prog, &op->L, workers, &op->run, diag)) ||
        (st = check_memory(dev, op, diag)))
        goto fail;
    cvm_vm_pool_submit(dev->pool, op);
    cvm_vm_diag_ok(diag);
    return CVM_OK;
fail:
    cvm_vm_op_release(dev, op, false);
    return st;
}
