/*
 * api_launch.c - cvm_launch: checks a launch against the kernel and the
 * device limits, packs the parameter bytes and the region table that
 * checked mode uses to name buffers, and runs the launch through the
 * interpreter (vm/exec.h) on the calling thread.
 */
#include "api.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define MAX_CUBE_UNITS 1024u
#define MAX_SHARED_BYTES (1u << 20)

/* The launch facts after defaults and checks. */
typedef struct shape {
    uint32_t grid[3], block[3], plane_width, dyn_shared;
} shape;

static bool is_pow2(uint32_t v) { return v && !(v & (v - 1)); }

static cvm_status check_shape(const cvm_bc_module *bc, const cvm_bc_kernel *bk,
                              const cvm_launch_config *cfg, shape *out, cvm_diag *diag)
{
    const char *kname = cvm_bc_str(bc, bk->name);
    uint64_t units = 1;
    for (int i = 0; i < 3; i++) {
        out->grid[i] = cfg->grid[i] ? cfg->grid[i] : 1;
        out->block[i] = cfg->block[i] ? cfg->block[i] : 1;
        units *= out->block[i]; /* each factor < 2^32 and the product stays checked below */
        if (units > MAX_CUBE_UNITS)
            return cvm_diag_set(diag, CVM_LIMIT,
                                "kernel '%s': block %ux%ux%u has more than %u units per cube",
                                kname, cfg->block[0] ? cfg->block[0] : 1,
                                cfg->block[1] ? cfg->block[1] : 1,
                                cfg->block[2] ? cfg->block[2] : 1, MAX_CUBE_UNITS);
    }
    if (bk->max_cube && units > bk->max_cube)
        return cvm_diag_set(diag, CVM_LIMIT,
                            "kernel '%s' allows at most %u units per cube (.max_cube), the launch "
                            "has %llu", kname, bk->max_cube, (unsigned long long)units);
    bool fixed = bk->plane_width && (bk->flags & CVM_KF_FIXED_WIDTH);
    uint32_t pw = cfg->plane_width;
    if (!pw)
        pw = bk->plane_width ? bk->plane_width : 32;
    if (!is_pow2(pw) || pw > CVM_BC_MAX_PLANE)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT,
                            "plane width %u is invalid: it must be a power of two from 1 to %u",
                            pw, CVM_BC_MAX_PLANE);
    if (fixed && pw != bk->plane_width)
        return cvm_diag_set(diag, CVM_UNSUPPORTED,
                            "kernel '%s' requires plane width %u, the launch asks for %u", kname,
                            bk->plane_width, pw);
    uint64_t shared = (uint64_t)bk->shared_bytes + cfg->shared_bytes;
    if (shared > MAX_SHARED_BYTES)
        return cvm_diag_set(diag, CVM_LIMIT,
                            "kernel '%s': shared memory %u static + %u dynamic = %llu bytes "
                            "exceeds the cpu device's %u bytes per cube", kname, bk->shared_bytes,
                            cfg->shared_bytes, (unsigned long long)shared, MAX_SHARED_BYTES);
    out->plane_width = pw;
    out->dyn_shared = cfg->shared_bytes;
    return CVM_OK;
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

/* Checks each argument against its parameter; computes the packed layout. */
static cvm_status check_args(const cvm_stream *s, const cvm_bc_module *bc, const cvm_bc_kernel *bk,
                             const cvm_arg *args, uint32_t nargs, uint32_t *offsets,
                             size_t *out_bytes, cvm_diag *diag)
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
        r[i] = (cvm_vm_region){(uintptr_t)b->data, b->size, b->name, b->writable};
    qsort(r, n, sizeof *r, region_cmp);
    *out = r;
    *out_n = n;
done:
    pthread_mutex_unlock(&dev->lock);
    return st;
}

static void record_fault(cvm_stream *s, cvm_status st, const cvm_diag *d)
{
    s->fault = st;
    if (d)
        s->fault_diag = *d;
    s->fault_diag.status = st;
    if (!s->fault_diag.message[0])
        snprintf(s->fault_diag.message, sizeof s->fault_diag.message, "%s", cvm_status_str(st));
}

/* Packs the arguments and runs the launch; errors become the stream's fault. */
static cvm_status run_launch(cvm_stream *s, const cvm_kernel *k, const cvm_launch_config *cfg,
                             const shape *sh, const cvm_arg *args, const uint32_t *offsets,
                             size_t param_bytes, cvm_diag *diag)
{
    cvm_device *dev = s->dev;
    const cvm_module *mod = k->mod;
    const cvm_bc_kernel *bk = &mod->bc->kernels[k->index];
    cvm_vm_region *regions = NULL;
    uint32_t nregions = 0;
    uint8_t *params = cvm_vm_dev_alloc(dev, param_bytes);
    cvm_status st = CVM_OK;
    if (!params) {
        st = cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory packing launch parameters");
        goto fail;
    }
    for (uint32_t i = 0; i < bk->nparams; i++) {
        if (bk->params[i].kind == CVM_PARAM_BUFFER) {
            uint64_t addr = (uint64_t)(uintptr_t)(args[i].buffer->data + args[i].offset);
            memcpy(params + offsets[i], &addr, sizeof addr);
        } else if (args[i].size) {
            memcpy(params + offsets[i], args[i].bytes, args[i].size);
        }
    }
    if ((st = build_regions(dev, &regions, &nregions, diag)))
        goto fail;
    cvm_vm_launch L = {
        .kernel = k->index,
        .grid = {sh->grid[0], sh->grid[1], sh->grid[2]},
        .block = {sh->block[0], sh->block[1], sh->block[2]},
        .dyn_shared = sh->dyn_shared,
        .plane_width = sh->plane_width,
        .params = params,
        .param_offset = offsets,
        .regions = regions,
        .nregions = nregions,
        .const_data = mod->const_data,
        .const_size = mod->bc->const_size,
        .sym_value = mod->sym_value,
        .step_budget = cfg->step_budget,
        .timeout_s = cfg->timeout_s,
        .checked = !cfg->unchecked,
        .alloc = cvm_vm_mem_alloc,
        .alloc_user = &dev->mem,
        .print_out = &s->out,
    };
    st = cvm_vm_execute(mod->prog, &L, diag);
fail:
    cvm_vm_dev_free(dev, regions, (size_t)nregions * sizeof *regions);
    cvm_vm_dev_free(dev, params, param_bytes);
    return st;
}

cvm_status cvm_launch(cvm_stream *s, const cvm_kernel *k, const cvm_launch_config *cfg,
                      const cvm_arg *args, uint32_t arg_count, cvm_diag *diag)
{
    if (!s || !k || !cfg)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_launch: NULL stream, kernel or config");
    if (k->mod->dev != s->dev)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT,
                            "cvm_launch: the module was loaded on another device");
    const cvm_bc_module *bc = k->mod->bc;
    const cvm_bc_kernel *bk = &bc->kernels[k->index];
    shape sh = {{0}, {0}, 0, 0};
    cvm_status st = check_shape(bc, bk, cfg, &sh, diag);
    if (st)
        return st;
    if (cfg->timeout_s < 0 || cfg->timeout_s != cfg->timeout_s)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "timeout must be >= 0 seconds");
    size_t noffsets = bk->nparams ? bk->nparams : 1;
    uint32_t *offsets = cvm_vm_dev_alloc(s->dev, noffsets * sizeof *offsets);
    if (!offsets)
        return cvm_diag_set(diag, CVM_OUT_OF_MEMORY, "out of memory checking launch arguments");
    size_t param_bytes = 0;
    if ((st = check_args(s, bc, bk, args, arg_count, offsets, &param_bytes, diag)))
        goto done;
    if (s->fault != CVM_OK) {
        /* An earlier launch faulted: this one is skipped and reported at the next sync. */
        s->skipped++;
        goto done;
    }
    cvm_diag run_diag;
    memset(&run_diag, 0, sizeof run_diag);
    cvm_status rst = run_launch(s, k, cfg, &sh, args, offsets, param_bytes, &run_diag);
    if (rst != CVM_OK)
        record_fault(s, rst, &run_diag);
    if (diag)
        memset(diag, 0, sizeof *diag);
done:
    cvm_vm_dev_free(s->dev, offsets, noffsets * sizeof *offsets);
    return st;
}
