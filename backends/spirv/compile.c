/*
 * compile.c - entry points of the SPIR-V backend: cvm_spv_compile (one
 * verified kernel to a module, assembled from the section buffers) and the
 * public cvm_spirv_compile used by `cubevm spirv`.
 */
#include "spv_int.h"

#include <stdio.h>
#include <string.h>

uint32_t spv_global(spv_ctx *c, uint32_t sc, uint32_t type, const char *name)
{
    uint32_t id = spv_id(c);
    SPV_EM(c, &c->types, SpvOpVariable, spv_t_ptr(c, sc, type), id, sc);
    if (name)
        spv_emit_str(c, &c->names, SpvOpName, id, name);
    bool listed = sc == SpvStorageClassInput || sc == SpvStorageClassOutput ||
                  c->t->spirv_version >= 0x10400;
    if (listed && c->st == CVM_OK) {
        spv_buf *b = &c->iface;
        SPV_EM(c, b, 0, id); /* a pseudo-instruction: word count 2, then the id */
    }
    return id;
}

static void free_buf(spv_ctx *c, spv_buf *b)
{
    if (b->w)
        cvm_bc_free(c->mod->alloc, c->mod->alloc_user, b->w, b->cap * 4);
    b->w = NULL;
    b->n = b->cap = 0;
}

static void append(spv_ctx *c, spv_buf *dst, const spv_buf *src)
{
    size_t i = 0;
    while (i < src->n && c->st == CVM_OK) {
        uint32_t n = src->w[i] >> 16;
        spv_emit(c, dst, src->w[i] & 0xffffu, src->w + i + 1, n - 1);
        i += n;
    }
}

/*
 * The float widths (bits 16, 32, 64) to give a float-controls execution
 * mode: those the module declares where the device offers the mode
 * (`avail`), widened to the widths the device ties together: under
 * 32-bit-only independence 16 and 64 share a mode (both or neither), under
 * none all three do. An empty set: the driver's default everywhere.
 */
static unsigned mode_widths(unsigned declared, unsigned avail, unsigned indep)
{
    unsigned w = avail & declared;
    if (indep == CVM_SPV_INDEP_32_ONLY && (w & (16 | 64)))
        w = (avail & (16 | 64)) == (16 | 64) ? w | 16 | 64 : w & 32;
    else if (indep == CVM_SPV_INDEP_NONE && w)
        w = avail == (16 | 32 | 64) ? avail : 0;
    return w;
}

/* DenormPreserve: without it a driver may flush subnormals (NVIDIA's does). */
static unsigned preserved_widths(const spv_ctx *c)
{
    const cvm_spv_target *t = c->t;
    unsigned avail = (t->denorm_preserve16 ? 16 : 0) | (t->denorm_preserve32 ? 32 : 0) |
                     (t->denorm_preserve64 ? 64 : 0);
    return mode_widths(c->float_widths, avail, t->denorm_indep);
}

/* RoundingModeRTE: OpFConvert narrows to nearest even, which exact.c relies on
 * (without the mode Vulkan lets conversions round either way). */
static unsigned rte_widths(const spv_ctx *c)
{
    const cvm_spv_target *t = c->t;
    unsigned avail = (t->rte16 ? 16 : 0) | (t->rte32 ? 32 : 0) | (t->rte64 ? 64 : 0);
    return mode_widths(c->float_widths, avail, t->rounding_indep);
}

/* Header, capabilities, imports, entry point, then the section buffers in module order. */
static void assemble(spv_ctx *c, spv_buf *out, uint32_t fn)
{
    spv_buf head = {0};
    unsigned keep = c->t->spirv_version >= 0x10400 ? preserved_widths(c) : 0;
    unsigned rte = c->t->spirv_version >= 0x10400 ? rte_widths(c) : 0;
    if (keep)
        spv_cap(c, SpvCapabilityDenormPreserve);
    if (rte)
        spv_cap(c, SpvCapabilityRoundingModeRTE);
    for (uint32_t i = 0; i < c->ncaps; i++)
        SPV_EM(c, &head, SpvOpCapability, c->capl[i]);
    if (c->exts & SPV_EXT_FLOAT_ADD)
        spv_emit_str(c, &head, SpvOpExtension, 0, "SPV_EXT_shader_atomic_float_add");
    if ((c->exts & SPV_EXT_PSB) && c->t->spirv_version < 0x10500)
        spv_emit_str(c, &head, SpvOpExtension, 0, "SPV_KHR_physical_storage_buffer");
    spv_emit_str(c, &head, SpvOpExtInstImport, c->glsl, "GLSL.std.450");
    SPV_EM(c, &head, SpvOpMemoryModel,
           c->bda ? SpvAddressingModelPhysicalStorageBuffer64 : SpvAddressingModelLogical,
           SpvMemoryModelGLSL450);
    uint32_t ep[80] = {SpvExecutionModelGLCompute, fn};
    unsigned n = 2;
    const char *name = "main";
    memset(ep + n, 0, 8);
    memcpy(ep + n, name, 4);
    n += 2;
    for (size_t i = 0; i < c->iface.n && n < 80; i += 2)
        ep[n++] = c->iface.w[i + 1];
    if (c->iface.n / 2 + 4 > 80)
        spv_fail(c, CVM_UNSUPPORTED, "too many interface variables");
    spv_emit(c, &head, SpvOpEntryPoint, ep, n);
    SPV_EM(c, &head, SpvOpExecutionMode, fn, SpvExecutionModeLocalSize, 1, 1, 1);
    for (unsigned bits = 16; bits <= 64; bits *= 2) {
        if (keep & bits)
            SPV_EM(c, &head, SpvOpExecutionMode, fn, SpvExecutionModeDenormPreserve, bits);
        if (rte & bits)
            SPV_EM(c, &head, SpvOpExecutionMode, fn, SpvExecutionModeRoundingModeRTE, bits);
    }
    if (c->st != CVM_OK || !(out->w = cvm_bc_alloc(c->mod->alloc, c->mod->alloc_user, 5 * 4)))
        goto done;
    out->cap = 5;
    out->n = 5;
    out->w[0] = SpvMagicNumber;
    out->w[1] = c->t->spirv_version;
    out->w[2] = 0; /* generator: unregistered */
    out->w[3] = 0; /* bound, set below */
    out->w[4] = 0;
    append(c, out, &head);
    append(c, out, &c->names);
    append(c, out, &c->annot);
    append(c, out, &c->types);
    append(c, out, &c->body);
    if (c->st == CVM_OK)
        out->w[3] = c->next_id;
done:
    free_buf(c, &head);
}

static void free_ctx(spv_ctx *c)
{
    cvm_alloc_fn fn = c->mod->alloc;
    void *u = c->mod->alloc_user;
    free_buf(c, &c->names);
    free_buf(c, &c->annot);
    free_buf(c, &c->types);
    free_buf(c, &c->fvars);
    free_buf(c, &c->body);
    free_buf(c, &c->iface);
    if (c->cache)
        cvm_bc_free(fn, u, c->cache, c->capcache * sizeof(spv_cached));
    if (c->regvar)
        cvm_bc_free(fn, u, c->regvar, c->k->nregs * sizeof(uint32_t));
    if (c->gbase)
        cvm_bc_free(fn, u, c->gbase, (c->vk->ninsns + 1) * sizeof(int32_t));
    if (c->gbase_reg)
        cvm_bc_free(fn, u, c->gbase_reg, (c->vk->ninsns + 1) * sizeof(uint32_t));
    if (c->bufviews)
        cvm_bc_free(fn, u, c->bufviews, (c->nbase + 1) * sizeof(spv_view));
    if (c->param_view)
        cvm_bc_free(fn, u, c->param_view, (c->nbase + 1) * sizeof(uint32_t));
    if (c->frames)
        cvm_bc_free(fn, u, c->frames, (CVM_BC_MAX_DEPTH + 2) * sizeof(spv_frame));
}

void cvm_spv_layout_free(const cvm_bc_module *mod, cvm_spv_layout *layout)
{
    if (!mod || !layout)
        return;
    if (layout->params)
        cvm_bc_free(mod->alloc, mod->alloc_user, layout->params,
                    (layout->nparams ? layout->nparams : 1) * sizeof(cvm_spv_bind));
    if (layout->syms)
        cvm_bc_free(mod->alloc, mod->alloc_user, layout->syms, layout->nsyms * sizeof *layout->syms);
    if (layout->prints)
        cvm_bc_free(mod->alloc, mod->alloc_user, layout->prints, layout->nprints * sizeof *layout->prints);
    memset(layout, 0, sizeof *layout);
}

static cvm_status setup(spv_ctx *c)
{
    cvm_alloc_fn fn = c->mod->alloc;
    void *u = c->mod->alloc_user;
    uint32_t nr = c->k->nregs ? c->k->nregs : 1;
    c->regvar = cvm_bc_alloc(fn, u, nr * sizeof(uint32_t));
    c->gbase = cvm_bc_alloc(fn, u, (c->vk->ninsns + 1) * sizeof(int32_t));
    c->gbase_reg = cvm_bc_alloc(fn, u, (c->vk->ninsns + 1) * sizeof(uint32_t));
    c->frames = cvm_bc_alloc(fn, u, (CVM_BC_MAX_DEPTH + 2) * sizeof(spv_frame));
    c->layout->params = cvm_bc_alloc(fn, u, (c->k->nparams ? c->k->nparams : 1) *
                                                sizeof(cvm_spv_bind));
    if (!c->regvar || !c->gbase || !c->gbase_reg || !c->frames || !c->layout->params)
        return spv_fail(c, CVM_OUT_OF_MEMORY, "out of memory");
    c->layout->nparams = c->k->nparams;
    c->glsl = spv_id(c);
    spv_cap(c, SpvCapabilityShader);
    if (c->t->plane_width == 0 || c->t->subgroup_size == 0)
        return spv_fail(c, CVM_INVALID_ARGUMENT, "the target's plane width and subgroup size must be set");
    if (c->k->plane_width && (c->k->flags & CVM_KF_FIXED_WIDTH) && c->k->plane_width != c->t->plane_width)
        return spv_fail(c, CVM_UNSUPPORTED, "the kernel needs plane width %u, the launch has %u",
                        c->k->plane_width, c->t->plane_width);
    if (spv_mem_plan(c) != CVM_OK)
        return c->st;
    for (uint32_t r = 0; r < c->k->nregs && c->st == CVM_OK; r++) {
        const cvm_bc_type *ty = &c->k->regs[r];
        char what[32];
        snprintf(what, sizeof what, "register %%r%u", r);
        if (spv_elem_ok(c, ty->elem, ty->line, what))
            c->regvar[r] = spv_fvar(c, spv_reg_type(c, r));
    }
    if (c->st == CVM_OK)
        spv_builtins_setup(c);
    if (c->st == CVM_OK)
        spv_mem_setup(c);
    c->exited = spv_fvar(c, spv_t_bool(c));
    spv_emit_str(c, &c->names, SpvOpName, c->exited, "exited");
    return c->st;
}

cvm_status cvm_spv_compile(const cvm_bc_module *mod, const cvm_bc_verified *ver, uint32_t kernel,
                           const cvm_spv_target *target, uint32_t **out_words, size_t *out_count,
                           cvm_spv_layout *out_layout, cvm_diag *diag)
{
    if (!mod || !ver || !target || !out_words || !out_count || !out_layout)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_spv_compile: NULL argument");
    if (kernel >= mod->nkernels || ver->mod != mod)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_spv_compile: no kernel %u", kernel);
    *out_words = NULL;
    *out_count = 0;
    memset(out_layout, 0, sizeof *out_layout);
    spv_ctx ctx, *c = &ctx;
    memset(c, 0, sizeof *c);
    c->mod = mod;
    c->k = &mod->kernels[kernel];
    c->vk = &ver->kernels[kernel];
    c->kidx = kernel;
    c->t = target;
    c->diag = diag;
    c->next_id = 1;
    c->layout = out_layout;
    spv_buf out = {0};
    if (setup(c) != CVM_OK)
        goto fail;
    uint32_t fn = spv_id(c), fnty = spv_id(c), v = spv_t_void(c);
    SPV_EM(c, &c->types, SpvOpTypeFunction, fnty, v);
    spv_emit_str(c, &c->names, SpvOpName, fn, cvm_bc_str(mod, c->k->name));
    c->frames[0].kind = SPV_F_KERNEL;
    c->nframes = 1;
    spv_buf code = c->body; /* the translated body goes after the variables */
    memset(&c->body, 0, sizeof c->body);
    spv_store(c, c->exited, spv_c_bool(c, false));
    spv_buf prologue = c->body;
    c->body = code;
    spv_translate(c);
    if (c->st == CVM_OK && c->nframes != 1)
        spv_fail(c, CVM_MALFORMED, "unbalanced constructs at the end of the kernel");
    if (c->st != CVM_OK) {
        free_buf(c, &prologue);
        goto fail;
    }
    spv_close_kernel(c);
    c->layout->scratch_words_per_unit = c->plane_scratch ? SPV_SLOT_WORDS : 0;
    code = c->body;
    memset(&c->body, 0, sizeof c->body);
    SPV_EM(c, &c->body, SpvOpFunction, v, fn, SpvFunctionControlMaskNone, fnty);
    spv_label(c, 0);
    append(c, &c->body, &c->fvars);
    append(c, &c->body, &prologue);
    append(c, &c->body, &code);
    static const uint32_t none[1] = {0};
    spv_emit(c, &c->body, SpvOpReturn, none, 0);
    spv_emit(c, &c->body, SpvOpFunctionEnd, none, 0);
    free_buf(c, &prologue);
    free_buf(c, &code);
    assemble(c, &out, fn);
    if (c->st != CVM_OK)
        goto fail;
    *out_words = out.w;
    *out_count = out.n;
    /* The caller frees n words; give back what is beyond them now. */
    if (out.cap != out.n) {
        uint32_t *w = cvm_bc_alloc(mod->alloc, mod->alloc_user, out.n * 4);
        if (!w) {
            spv_fail(c, CVM_OUT_OF_MEMORY, "out of memory");
            goto fail;
        }
        memcpy(w, out.w, out.n * 4);
        free_buf(c, &out);
        *out_words = w;
    }
    free_ctx(c);
    return CVM_OK;
fail:
    *out_words = NULL;
    *out_count = 0;
    free_buf(c, &out);
    cvm_spv_layout_free(mod, out_layout);
    free_ctx(c);
    return c->st != CVM_OK ? c->st : CVM_INTERNAL;
}
