/*
 * fuzz_load.c - libFuzzer harness over the bytecode layer: the input is
 * read as a .cbc module (structural read, verify, disassemble) and as .cbs
 * text (assemble, then the same checks on the result). A verified module's
 * canonical text must assemble back to a module with the same text and the
 * same bytes (docs/design.md "The bytecode" item 11), so a disassembler,
 * assembler or verifier disagreement is a finding, not just a crash; and
 * the optimizer's output of a verified module must verify too.
 * Every byte allocated for an input must be freed before the next one.
 */
#include "../../bytecode/bc.h"
#include "fuzz_common.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>


/* Text of a module, or NULL (the status must then be a clean error). */
static char *disasm(const cvm_bc_module *mod, size_t *len)
{
    char *text = NULL;
    cvm_diag d;
    cvm_status st = cvm_bc_disassemble(mod, &text, len, &d);
    FUZZ_CHECK(st == CVM_OK ? text != NULL : text == NULL);
    FUZZ_CHECK(st == CVM_OK || st == CVM_OUT_OF_MEMORY || st == CVM_MALFORMED || st == CVM_VERIFY);
    return text;
}

/* Canonical text of a verified module assembles to a module with the same text. */
static void round_trip(const cvm_bc_module *mod, const char *text, size_t len)
{
    cvm_bc_module *back = NULL;
    cvm_diag d;
    cvm_status st = cvm_bc_assemble(text, len, "<fuzz-disasm>", fuzz_alloc, &heap, &back, &d);
    FUZZ_CHECK(st == CVM_OK);
    size_t len2 = 0;
    char *text2 = disasm(back, &len2);
    FUZZ_CHECK(text2 && len2 == len && memcmp(text, text2, len) == 0);
    cvm_bc_free(fuzz_alloc, &heap, text2, len2 + 1);
    /* binary -> text -> binary: the module written again is byte-identical */
    void *b1 = NULL, *b2 = NULL;
    size_t n1 = 0, n2 = 0;
    if (cvm_bc_module_write((cvm_bc_module *)mod, &b1, &n1, &d) == CVM_OK &&
        cvm_bc_module_write(back, &b2, &n2, &d) == CVM_OK)
        FUZZ_CHECK(n1 == n2 && memcmp(b1, b2, n1) == 0);
    if (b1)
        cvm_bc_free(fuzz_alloc, &heap, b1, n1);
    if (b2)
        cvm_bc_free(fuzz_alloc, &heap, b2, n2);
    cvm_bc_module_free(back);
}

/* The loop-invariant code motion of a verified module (bytecode/opt.c)
 * gives a module that reads back and verifies. */
static void optimized(const cvm_bc_module *mod, const cvm_bc_verified *ver)
{
    void *bytes = NULL;
    size_t size = 0;
    cvm_diag d;
    cvm_status st = cvm_bc_optimize(mod, ver, &bytes, &size, NULL, &d);
    FUZZ_CHECK(st == CVM_OK ? bytes != NULL : st == CVM_OUT_OF_MEMORY);
    if (st != CVM_OK)
        return;
    cvm_bc_module *back = NULL;
    cvm_bc_verified *vback = NULL;
    FUZZ_CHECK(cvm_bc_module_read(bytes, size, fuzz_alloc, &heap, &back, &d) == CVM_OK);
    FUZZ_CHECK(back && cvm_bc_verify(back, &vback, &d) == CVM_OK);
    if (vback)
        cvm_bc_verified_free(back, vback);
    cvm_bc_module_free(back);
    cvm_bc_free(fuzz_alloc, &heap, bytes, size);
}

/* Verify and disassemble a module that was read or assembled. */
static void exercise(const cvm_bc_module *mod)
{
    cvm_bc_verified *ver = NULL;
    cvm_diag d;
    cvm_status st = cvm_bc_verify(mod, &ver, &d);
    FUZZ_CHECK(st == CVM_OK ? ver != NULL : ver == NULL);
    size_t len = 0;
    char *text = disasm(mod, &len);
    if (text) {
        FUZZ_CHECK(strlen(text) == len);
        if (st == CVM_OK)
            round_trip(mod, text, len);
        cvm_bc_free(fuzz_alloc, &heap, text, len + 1);
    }
    /* a verified module serializes (with its own allocator) and reads back */
    if (st == CVM_OK) {
        void *bytes = NULL;
        size_t size = 0;
        cvm_bc_module *copy = NULL;
        if (cvm_bc_module_write((cvm_bc_module *)mod, &bytes, &size, &d) == CVM_OK) {
            FUZZ_CHECK(cvm_bc_module_read(bytes, size, fuzz_alloc, &heap, &copy, &d) == CVM_OK);
            cvm_bc_module_free(copy);
            cvm_bc_free(fuzz_alloc, &heap, bytes, size);
        }
        optimized(mod, ver);
        cvm_bc_verified_free(mod, ver);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cvm_bc_module *mod = NULL;
    cvm_diag d;
    if (cvm_bc_module_read(data, size, fuzz_alloc, &heap, &mod, &d) == CVM_OK) {
        exercise(mod);
        cvm_bc_module_free(mod);
    } else {
        FUZZ_CHECK(mod == NULL);
    }
    mod = NULL;
    if (cvm_bc_assemble((const char *)data, size, "<fuzz>", fuzz_alloc, &heap, &mod, &d) == CVM_OK) {
        exercise(mod);
        cvm_bc_module_free(mod);
    } else {
        FUZZ_CHECK(mod == NULL);
    }
    FUZZ_CHECK(heap.bytes == 0 && heap.blocks == 0);
    return 0;
}
