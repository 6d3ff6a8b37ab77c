/*
 * test_race.c - kernels that race on purpose, for the ThreadSanitizer run
 * (make tsan). Every unit of 64 cubes, over 4 workers, stores its id to the
 * same word with plain st and loads it back with plain ld: on a GPU the
 * result is some unit's id, and in the VM these are plain C accesses that
 * race by design (docs/design.md "Memory model"). tests/tsan.supp suppresses
 * exactly them; if the interpreter's plain accesses move out of cvm_vm_mem,
 * the TSan run reports this test. Outside TSan it checks the racy result
 * is still one of the values written.
 */
#include "../vm/cubevm.h"
#include "tap.h"

#define CUBES 64u
#define UNITS 32u

static const char src[] =
    ".kernel race\n.param out buffer u32 readwrite\n"
    ".reg u32 %t, %v\n.reg i64 %off, %four\n.reg ptr.global %p, %q\n"
    "    sreg.u32 %t, abs_pos.x\n    param.ptr.global %p, out, 0\n    st.u32 [%p], %t\n"
    "    ld.u32 %v, [%p]\n"
    /* out[1 + abs_pos] = what this unit read: some unit's id */
    "    cvt.i64 %off, %t\n    const.i64 %four, 4\n    mul.i64 %off, %off, %four\n"
    "    ptr.add.ptr.global %q, %p, %off\n    ptr.add.ptr.global %q, %q, %four\n"
    "    st.u32 [%q], %v\n    return\n.end\n";

int main(void)
{
    cvm_config cfg = {.threads = 4};
    cvm_device *dev = NULL;
    cvm_module *mod = NULL;
    cvm_buffer *out = NULL;
    const cvm_kernel *k = NULL;
    void *bytes = NULL;
    size_t size = 0;
    cvm_diag d;
    static uint32_t got[1 + CUBES * UNITS];
    if (cvm_assemble(src, strlen(src), "race.cbs", &bytes, &size, &d) != CVM_OK ||
        cvm_device_open("cpu", &cfg, &dev, &d) != CVM_OK || cvm_module_load(dev, bytes, size, &mod, &d) != CVM_OK ||
        cvm_kernel_get(mod, "race", &k, &d) != CVM_OK ||
        cvm_buffer_create(dev, sizeof got, "out", &out, &d) != CVM_OK) {
        ok(0, "set up: %s", d.message);
    } else {
        cvm_stream *s = cvm_device_stream(dev);
        cvm_arg a = {CVM_ARG_BUFFER, out, 0, NULL, 0};
        cvm_launch_config lc = {.grid = {CUBES, 1, 1}, .block = {UNITS, 1, 1}};
        cvm_status st = cvm_launch(s, k, &lc, &a, 1, &d);
        if (st == CVM_OK)
            st = cvm_stream_sync(s, &d);
        is_int(st, CVM_OK, "64 cubes over 4 workers store to one word (%s)", st ? d.message : "");
        cvm_buffer_read(s, out, 0, got, sizeof got, &d);
        int bad = 0;
        for (uint32_t i = 0; i <= CUBES * UNITS; i++)
            bad += got[i] >= CUBES * UNITS;
        is_int(bad, 0, "every value read and left behind is some unit's id");
    }
    cvm_buffer_free(out);
    cvm_module_free(mod);
    cvm_device_close(dev);
    cvm_free_bytes(bytes);
    return done_testing();
}
