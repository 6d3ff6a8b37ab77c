/*
 * fuzz_npy.c - libFuzzer harness over the .npy reader (vm/npy.c): the
 * input is a file image. A header that parses describes the image exactly:
 * its data starts inside the image and holds `count` elements of a size
 * the element type has; anything else is a clean error with a message.
 */
#include "../../vm/npy.h"
#include "fuzz_common.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cvm_vm_npy_header h;
    cvm_diag d;
    cvm_status st = cvm_vm_npy_parse(data, size, "fuzz.npy", &h, &d);
    if (st == CVM_OK) {
        FUZZ_CHECK(h.data_offset <= size);
        FUZZ_CHECK(h.elem_size == 1 || h.elem_size == 2 || h.elem_size == 4 || h.elem_size == 8);
        /* divided, not multiplied: a count whose byte size wraps must not pass */
        FUZZ_CHECK(h.elem_size && (size - h.data_offset) % h.elem_size == 0 &&
                   h.count == (size - h.data_offset) / h.elem_size);
        FUZZ_CHECK(h.version >= 1 && h.version <= 3);
    } else {
        FUZZ_CHECK(d.message[0]);
        FUZZ_CHECK(st == CVM_MALFORMED || st == CVM_UNSUPPORTED);
    }
    return 0;
}
