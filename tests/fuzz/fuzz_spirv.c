/*
 * fuzz_spirv.c - libFuzzer harness over the SPIR-V backend: the input is
 * read as a .cbc module and as .cbs text; a module that verifies has each
 * kernel translated with options picked by a hash of the input (subgroup
 * size, plane width, SPIR-V 1.3 or 1.6). A translation gives whole words or
 * a refusal with a message (never the internal-error status); nothing
 * allocated through the counting allocator may be left over.
 */
#include "fuzz_spv.h"

#include <stdint.h>
#include <string.h>

/* A verified module's kernels (the first 8), written back to bytes first. */
static void kernels(cvm_bc_module *mod, unsigned pick)
{
    static const uint32_t widths[] = {0, 1, 2, 4, 8, 16, 32, 64};
    cvm_spirv_options o;
    memset(&o, 0, sizeof o);
    o.subgroup_size = widths[pick & 7];
    o.plane_width = pick & 8 ? widths[(pick >> 4) & 7] : 0;
    o.spirv_version = pick & 128 ? 0x10300 : 0;
    cvm_bc_verified *ver = NULL;
    cvm_diag d;
    if (cvm_bc_verify(mod, &ver, &d) != CVM_OK)
        return;
    cvm_bc_verified_free(mod, ver);
    void *bytes = NULL;
    size_t n = 0;
    if (cvm_bc_module_write(mod, &bytes, &n, &d) != CVM_OK)
        return;
    fuzz_spirv_kernels(mod, bytes, n, &o);
    cvm_bc_free(fuzz_alloc, &heap, bytes, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const unsigned pick = (unsigned)fuzz_hash(data, size);
    cvm_bc_module *mod = NULL;
    cvm_diag d;
    if (cvm_bc_module_read(data, size, fuzz_alloc, &heap, &mod, &d) == CVM_OK) {
        kernels(mod, pick);
        cvm_bc_module_free(mod);
    }
    mod = NULL;
    if (cvm_bc_assemble((const char *)data, size, "<fuzz>", fuzz_alloc, &heap, &mod, &d) == CVM_OK) {
        kernels(mod, pick);
        cvm_bc_module_free(mod);
    }
    FUZZ_CHECK(heap.bytes == 0 && heap.blocks == 0);
    return 0;
}
