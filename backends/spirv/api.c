/*
 * api.c - cvm_spirv_compile, the public entry of the SPIR-V backend: .cbc
 * bytes in (read and verified here), one kernel's SPIR-V words out, for a
 * target with lavapipe's features (the `cubevm spirv` command uses it).
 */
#include "spv.h"

#include <string.h>

static cvm_status find_kernel(const cvm_bc_module *mod, const char *name, uint32_t *out,
                              cvm_diag *diag)
{
    if (!name) {
        if (mod->nkernels == 1) {
            *out = 0;
            return CVM_OK;
        }
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT,
                            "the module has %u kernels; name one (--kernel NAME)", mod->nkernels);
    }
    for (uint32_t k = 0; k < mod->nkernels; k++)
        if (strcmp(cvm_bc_str(mod, mod->kernels[k].name), name) == 0) {
            *out = k;
            return CVM_OK;
        }
    return cvm_diag_set(diag, CVM_NOT_FOUND, "no kernel named '%s' in the module", name);
}

/* lavapipe's features (docs/backends.md "Device features"); the versions and widths from opts. */
static cvm_status make_target(const cvm_bc_kernel *k, const cvm_spirv_options *opts,
                              cvm_spv_target *t, cvm_diag *diag)
{
    memset(t, 0, sizeof *t);
    t->spirv_version = opts && opts->spirv_version ? opts->spirv_version : 0x10600;
    t->subgroup_size = opts && opts->subgroup_size ? opts->subgroup_size : 8;
    t->plane_width = opts && opts->plane_width ? opts->plane_width
                     : k->plane_width              ? k->plane_width
                                                   : t->subgroup_size;
    if (t->spirv_version < 0x10300 || t->spirv_version > 0x10600 || (t->spirv_version & 0xff0000ffu))
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT,
                            "SPIR-V version 0x%x: expected 0x10300 (1.3) to 0x10600 (1.6)",
                            t->spirv_version);
    uint32_t w[2] = {t->subgroup_size, t->plane_width};
    for (int i = 0; i < 2; i++)
        if (w[i] > 128 || (w[i] & (w[i] - 1)))
            return cvm_diag_set(diag, CVM_INVALID_ARGUMENT,
                                "%s %u: expected a power of two from 1 to 128",
                                i ? "plane width" : "subgroup size", w[i]);
    t->f64 = t->f16 = t->int8 = t->int16 = t->int64 = t->int64_atomics = true;
    t->float_atomic_add = t->float_atomic_minmax = t->buffer_device_address = true;
    t->vulkan_memory_model = true;
    return CVM_OK;
}

cvm_status cvm_spirv_compile(const void *cbc_bytes, size_t size, const char *kernel,
                             const cvm_spirv_options *opts, void **out_words, size_t *out_size,
                             cvm_diag *diag)
{
    if ((size && !cbc_bytes) || !out_words || !out_size)
        return cvm_diag_set(diag, CVM_INVALID_ARGUMENT, "cvm_spirv_compile: NULL argument");
    *out_words = NULL;
    *out_size = 0;
    cvm_bc_module *mod = NULL;
    cvm_bc_verified *ver = NULL;
    uint32_t *words = NULL, ki = 0;
    size_t count = 0;
    cvm_spv_layout layout;
    cvm_spv_target t;
    memset(&layout, 0, sizeof layout);
    cvm_status st = cvm_bc_module_read(cbc_bytes, size, cvm_default_alloc, NULL, &mod, diag);
    if (st)
        goto fail;
    if ((st = cvm_bc_verify(mod, &ver, diag)) || (st = find_kernel(mod, kernel, &ki, diag)) ||
        (st = make_target(&mod->kernels[ki], opts, &t, diag)))
        goto fail;
    st = cvm_spv_compile(mod, ver, ki, &t, &words, &count, &layout, diag);
    if (st)
        goto fail;
    /* the module's allocator is the default one, which cvm_free_bytes releases */
    *out_words = words;
    *out_size = count * 4;
    cvm_spv_layout_free(mod, &layout);
    cvm_bc_verified_free(mod, ver);
    cvm_bc_module_free(mod);
    return CVM_OK;
fail:
    cvm_spv_layout_free(mod, &layout);
    if (ver)
        cvm_bc_verified_free(mod, ver);
    cvm_bc_module_free(mod);
    return st;
}
