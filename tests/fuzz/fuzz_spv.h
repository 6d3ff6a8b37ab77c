/*
 * fuzz_spv.h - the SPIR-V check fuzz_spirv and fuzz_cuda share: the first
 * 8 kernels of a module (each translation verifies the whole module
 * again) through cvm_spirv_compile give whole words or a refusal with a
 * message, never the internal-error status. Options the input picked
 * (non-NULL o) may also be refused as invalid.
 */
#ifndef CVM_FUZZ_SPV_H
#define CVM_FUZZ_SPV_H

#include "../../bytecode/bc.h"
#include "fuzz_common.h"

#include <string.h>

static void fuzz_spirv_kernels(const cvm_bc_module *mod, const void *bytes, size_t size,
                               const cvm_spirv_options *o)
{
    for (uint32_t k = 0; k < mod->nkernels && k < 8; k++) {
        void *words = NULL;
        size_t n = 0;
        cvm_diag d;
        memset(&d, 0, sizeof d);
        cvm_status st = cvm_spirv_compile(bytes, size, cvm_bc_str(mod, mod->kernels[k].name), o, &words, &n, &d);
        if (st == CVM_OK) {
            FUZZ_CHECK(words && n && n % 4 == 0);
            cvm_free_bytes(words);
        } else {
            FUZZ_CHECK(!words && d.message[0]);
            FUZZ_CHECK(st == CVM_UNSUPPORTED || st == CVM_LIMIT || st == CVM_OUT_OF_MEMORY ||
                       (o && st == CVM_INVALID_ARGUMENT));
        }
    }
}

#endif
