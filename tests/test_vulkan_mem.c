/*
 * test_vulkan_mem.c - global memory beyond (parameter, offset) on the
 * vulkan device (lavapipe): module __device__ variables as buffers of
 * their own (host writes and reads through cvm_module_symbol_write/read
 * between launches, atomics on them), and the named rejection on a device
 * whose buffers are staged. The results are checked against host
 * arithmetic and against the cpu device. Skipped with the reason when
 * Vulkan is unavailable; the validation layer must stay silent.
 */
#include "../backends/vulkan/vk.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static cvm_device *vk, *cpu;

/* out[t] = base + t * step[1]; every unit adds 1 to `count` and 2 to step[0]. */
static const char sym_cbs[] =
    ".global base u32 4 4 = 0x07000000\n"
    ".global count u32 4 4\n"
    ".global step u32 8 4 = 0x0000000003000000\n"
    ".kernel syms\n"
    ".param out buffer u32 write\n"
    ".reg u32 %t, %b, %s, %v, %one, %two, %old\n"
    ".reg i64 %off, %four\n"
    ".reg ptr.global %p, %q\n"
    "    sreg.u32 %t, abs_pos.x\n"
    "    const.u32 %one, 1\n"
    "    const.u32 %two, 2\n"
    "    const.i64 %four, 4\n"
    "    sym.ptr.global %p, base\n"
    "    ld.u32 %b, [%p]\n"
    "    sym.ptr.global %q, step\n"
    "    ptr.add.ptr.global %q, %q, %four\n"
    "    ld.u32 %s, [%q]\n"
    "    mul.u32 %v, %t, %s\n"
    "    add.u32 %v, %v, %b\n"
    "    sym.ptr.global %p, count\n"
    "    atom.add.relaxed.device.u32 %old, [%p], %one\n"
    "    sym.ptr.global %q, step\n"
    "    atom.add.relaxed.device.u32 %old, [%q], %two\n"
    "    cvt.i64 %off, %t\n"
    "    mul.i64 %off, %off, %four\n"
    "    param.ptr.global %p, out, 0\n"
    "    ptr.add.ptr.global %p, %p, %off\n"
    "    st.u32 [%p], %v\n"
    "    return\n"
    ".end\n";

static cvm_status load(cvm_device *dev, const char *src, cvm_module **m, cvm_diag *d)
{
    void *bytes = NULL;
    size_t size = 0;
    cvm_status st = cvm_assemble(src, strlen(src), "test.cbs", &bytes, &size, d);
    st = st ? st : cvm_module_load(dev, bytes, size, m, d);
    cvm_free_bytes(bytes);
    return st;
}

enum { SYM_UNITS = 3 * 64 };

/*
 * Two launches of `syms` with a host write of `base` and `step[1]` before
 * the second; `got` receives out of both launches, count and step after
 * each (2 + 2 * 3 words per launch).
 */
static cvm_status run_syms(cvm_device *dev, uint32_t *out, uint32_t *after, cvm_diag *d)
{
    cvm_module *m = NULL;
    const cvm_kernel *k = NULL;
    cvm_buffer *bo = NULL;
    cvm_stream *s = cvm_device_stream(dev);
    cvm_status st = load(dev, sym_cbs, &m, d);
    st = st ? st : cvm_kernel_get(m, "syms", &k, d);
    st = st ? st : cvm_buffer_create(dev, SYM_UNITS * 4, "out", &bo, d);
    cvm_arg a = {CVM_ARG_BUFFER, bo, 0, NULL, 0};
    cvm_launch_config cfg = {{3, 1, 1}, {64, 1, 1}, 0, 0, 0, 0, 0, 0};
    for (int round = 0; round < 2 && !st; round++) {
        if (round == 1) {
            uint32_t base = 1000, step1 = 5;
            st = cvm_module_symbol_write(s, m, "base", 0, &base, 4, d);
            st = st ? st : cvm_module_symbol_write(s, m, "step", 4, &step1, 4, d);
        }
        st = st ? st : cvm_launch(s, k, &cfg, &a, 1, d);
        st = st ? st : cvm_stream_sync(s, d);
        st = st ? st : cvm_buffer_read(s, bo, 0, out + round * SYM_UNITS, SYM_UNITS * 4, d);
        st = st ? st : cvm_module_symbol_read(s, m, "count", 0, after + round * 3, 4, d);
        st = st ? st : cvm_module_symbol_read(s, m, "step", 0, after + round * 3 + 1, 8, d);
    }
    cvm_buffer_free(bo);
    cvm_module_free(m);
    return st;
}

static void test_symbols(void)
{
    static uint32_t ov[2 * SYM_UNITS], oc[2 * SYM_UNITS];
    uint32_t av[6] = {0}, ac[6] = {0};
    cvm_diag d;
    cvm_status st = run_syms(vk, ov, av, &d);
    if (!ok(st == CVM_OK, "__device__ variables on vulkan: two launches, host writes between (%s)",
            d.message))
        return;
    ok(run_syms(cpu, oc, ac, &d) == CVM_OK, "the same on cpu (%s)", d.message);
    int bad = -1;
    for (uint32_t i = 0; i < SYM_UNITS && bad < 0; i++)
        if (ov[i] != 7 + i * 3 || ov[SYM_UNITS + i] != 1000 + i * 5)
            bad = (int)i;
    ok(bad < 0, "initializers read in the first launch, host writes in the second (first "
                "mismatch %d)", bad);
    /* count: 192 then 384; step[0]: 0 + 2 * 192, then + 2 * 192 more; step[1] as written */
    const uint32_t want[6] = {SYM_UNITS, 2 * SYM_UNITS, 3, 2 * SYM_UNITS, 4 * SYM_UNITS, 5};
    ok(!memcmp(av, want, sizeof want), "atomics on symbols, read back: count %u/%u, step "
       "%u,%u/%u,%u", av[0], av[3], av[1], av[2], av[4], av[5]);
    ok(!memcmp(ov, oc, sizeof ov) && !memcmp(av, ac, sizeof av), "vulkan matches cpu");
}

/* Staged buffers keep symbols in a host shadow: the launch is refused by name. */
static void test_symbols_staged(void)
{
    cvm_device *sd = NULL;
    cvm_diag d;
    setenv("CUBEVM_VK_STAGED", "1", 1);
    cvm_status st = cvm_device_open("vulkan", NULL, &sd, &d);
    unsetenv("CUBEVM_VK_STAGED");
    if (!ok(st == CVM_OK, "open vulkan with staged buffers (%s)", d.message))
        return;
    uint32_t out[2 * SYM_UNITS], after[6];
    st = run_syms(sd, out, after, &d);
    ok(st == CVM_UNSUPPORTED && strstr(d.message, "'syms'") && strstr(d.message, "__device__") &&
           strstr(d.message, "staged"),
       "__device__ variables with staged buffers: refused (%s)", d.message);
    cvm_device_close(sd);
}

int main(void)
{
    char tmp[64];
    setenv("VK_DRIVER_FILES", "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json", 1);
    setenv("XDG_RUNTIME_DIR", "/tmp", 1);
    snprintf(tmp, sizeof tmp, "/tmp/cvm-test-vkmem.XXXXXX");
    if (!mkdtemp(tmp)) {
        printf("1..0 # SKIP cannot create a temporary directory\n");
        return 0;
    }
    setenv("MESA_SHADER_CACHE_DIR", tmp, 1);
    setenv("CUBEVM_CACHE_DIR", tmp, 1);
    setenv("CUBEVM_VK_VALIDATION", "1", 1);
    cvm_diag d;
    cvm_status st = cvm_device_open("vulkan", NULL, &vk, &d);
    if (st == CVM_UNAVAILABLE && strstr(d.message, "CUBEVM_VK_VALIDATION")) {
        skip("the validation layer: %s", d.message);
        unsetenv("CUBEVM_VK_VALIDATION");
        st = cvm_device_open("vulkan", NULL, &vk, &d);
    }
    if (st != CVM_OK) {
        printf("1..0 # SKIP vulkan is not available here: %s\n", d.message);
        return 0;
    }
    if (cvm_device_open("cpu", NULL, &cpu, &d) != CVM_OK)
        return ok(0, "open cpu (%s)", d.message), done_testing();
    test_symbols();
    test_symbols_staged();
    char first[512];
    uint32_t msgs = cvm_vk_validation_messages(first, sizeof first);
    ok(msgs == 0, "the validation layer stayed silent (%u messages; first: %.300s)", msgs,
       msgs ? first : "none");
    cvm_device_close(cpu);
    cvm_device_close(vk);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    if (system(cmd) != 0)
        diag("could not remove %s", tmp);
    return done_testing();
}
