/*
 * fuzz_cuda.c - libFuzzer harness over the CUDA C frontend: the input is a
 * .cu source. Compiling it either gives a module that verifies, whose
 * kernels (the first 8: each translation verifies the whole module again)
 * the SPIR-V backend translates or refuses with a message, or
 * fails with one of the frontend's statuses and a message; a crash, a hang
 * or a leak (ASan's leak check, and the counting allocator for the backend)
 * is a finding. A hash of the input picks fmad; a source that compiles is
 * compiled again without the optimizer, so both pipelines see it (the
 * repository's sources all end in a newline: the last byte would pick one).
 */
#include "fuzz_spv.h"

#include <stdint.h>
#include <string.h>

/* The compiled module's kernels through the SPIR-V backend (fuzz_spv.h). */
static void to_spirv(const void *bytes, size_t size)
{
    cvm_bc_module *mod = NULL;
    cvm_diag d;
    FUZZ_CHECK(cvm_bc_module_read(bytes, size, fuzz_alloc, &heap, &mod, &d) == CVM_OK);
    if (!mod)
        return;
    fuzz_spirv_kernels(mod, bytes, size, NULL);
    cvm_bc_module_free(mod);
}

/* One compile with these options; true when it gave a module. */
static bool compile(const uint8_t *data, size_t size, int fmad, int no_opt)
{
    cvm_compile_options o;
    memset(&o, 0, sizeof o);
    o.fmad = fmad;
    o.no_opt = no_opt;
    void *bytes = NULL;
    size_t n = 0;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    /* A folder that does not exist: #include "x" finds only the built-in headers. */
    cvm_status st = cvm_compile_cuda((const char *)data, size, "/nonexistent/fuzz.cu", &o, &bytes, &n, &d);
    if (st == CVM_OK) {
        FUZZ_CHECK(bytes && n);
        FUZZ_CHECK(cvm_verify(bytes, n, &d) == CVM_OK);
        to_spirv(bytes, n);
        cvm_free_bytes(bytes);
    } else {
        FUZZ_CHECK(!bytes && !n && d.message[0]);
        FUZZ_CHECK(st == CVM_SYNTAX || st == CVM_UNSUPPORTED || st == CVM_LIMIT || st == CVM_IO ||
                   st == CVM_NOT_FOUND || st == CVM_OUT_OF_MEMORY);
    }
    FUZZ_CHECK(heap.bytes == 0 && heap.blocks == 0);
    return st == CVM_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const int fmad = (int)(fuzz_hash(data, size) & 1);
    if (compile(data, size, fmad, 0))
        compile(data, size, fmad, 1);
    return 0;
}
