/*
 * test_vulkan_params.c - launch plumbing of the vulkan device (lavapipe)
 * beyond push constants: by-value parameter blocks larger than the 128
 * bytes of push constants go through a per-launch uniform buffer (the
 * translated module passes spirv-val; the results match host arithmetic
 * and the cpu device). Skipped with the reason when Vulkan is
 * unavailable; the validation layer must stay silent.
 */
#include "../backends/vulkan/vk.h"
#include "tap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static cvm_device *vk, *cpu;
static char tmpdir[64];

/*
 * A 200-byte struct, a scalar after it and a buffer: unit t writes
 * out[4t] = s.w0 + t * k, out[4t+1] = s.w49 + s.byte197, out[4t+2..3] =
 * s.u64 at 104 + t (the scalar k lies past the 128 bytes of push constants too).
 */
static const char big_cbs[] =
    ".kernel big\n"
    ".param s struct 200 8\n"
    ".param k scalar u32\n"
    ".param out buffer u32 write\n"
    ".reg u32 %t, %a, %b, %k, %v, %e32\n"
    ".reg u8 %e\n"
    ".reg u64 %c, %t64\n"
    ".reg i64 %off, %sixteen, %four, %eight\n"
    ".reg ptr.global %p, %q\n"
    "    sreg.u32 %t, abs_pos.x\n"
    "    param.u32 %a, s, 0\n"
    "    param.u32 %b, s, 196\n"
    "    param.u8 %e, s, 197\n"
    "    param.u64 %c, s, 104\n"
    "    param.u32 %k, k, 0\n"
    "    mul.u32 %v, %t, %k\n"
    "    add.u32 %v, %v, %a\n"
    "    const.i64 %sixteen, 16\n"
    "    const.i64 %eight, 8\n"
    "    const.i64 %four, 4\n"
    "    cvt.i64 %off, %t\n"
    "    mul.i64 %off, %off, %sixteen\n"
    "    param.ptr.global %p, out, 0\n"
    "    ptr.add.ptr.global %p, %p, %off\n"
    "    st.u32 [%p], %v\n"
    "    cvt.u32 %e32, %e\n"
    "    add.u32 %v, %b, %e32\n"
    "    ptr.add.ptr.global %q, %p, %four\n"
    "    st.u32 [%q], %v\n"
    "    cvt.u64 %t64, %t\n"
    "    add.u64 %c, %c, %t64\n"
    "    ptr.add.ptr.global %q, %p, %eight\n"
    "    st.u64 [%q], %c\n"
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

enum { BIG_UNITS = 2 * 32 };

static void big_struct(uint8_t *s)
{
    for (int i = 0; i < 200; i++)
        s[i] = (uint8_t)(i * 7 + 3);
}

static cvm_status run_big(cvm_device *dev, uint32_t *out, cvm_diag *d)
{
    cvm_module *m = NULL;
    const cvm_kernel *k = NULL;
    cvm_buffer *bo = NULL;
    cvm_stream *s = cvm_device_stream(dev);
    uint8_t sb[200];
    uint32_t kv = 11;
    big_struct(sb);
    cvm_status st = load(dev, big_cbs, &m, d);
    st = st ? st : cvm_kernel_get(m, "big", &k, d);
    st = st ? st : cvm_buffer_create(dev, BIG_UNITS * 16, "out", &bo, d);
    cvm_arg a[3] = {{CVM_ARG_BYTES, NULL, 0, sb, sizeof sb},
                    {CVM_ARG_BYTES, NULL, 0, &kv, 4},
                    {CVM_ARG_BUFFER, bo, 0, NULL, 0}};
    cvm_launch_config cfg = {{2, 1, 1}, {32, 1, 1}, 0, 0, 0, 0, 0, 0};
    st = st ? st : cvm_launch(s, k, &cfg, a, 3, d);
    st = st ? st : cvm_stream_sync(s, d);
    st = st ? st : cvm_buffer_read(s, bo, 0, out, BIG_UNITS * 16, d);
    cvm_buffer_free(bo);
    cvm_module_free(m);
    return st;
}

/* spirv-val on the translated kernel; 1 when valid (or -1: no spirv-val). */
static int validate_big(char *why, size_t n)
{
    void *bytes = NULL, *words = NULL;
    size_t size = 0, wsize = 0;
    cvm_diag d;
    int r = 0;
    if (system("command -v spirv-val > /dev/null 2>&1") != 0)
        return -1;
    cvm_status st = cvm_assemble(big_cbs, strlen(big_cbs), "test.cbs", &bytes, &size, &d);
    st = st ? st : cvm_spirv_compile(bytes, size, "big", NULL, &words, &wsize, &d);
    if (st) {
        snprintf(why, n, "%.200s", d.message);
    } else {
        char path[128], cmd[400];
        snprintf(path, sizeof path, "%s/big.spv", tmpdir);
        FILE *f = fopen(path, "wb");
        if (f && fwrite(words, 1, wsize, f) == wsize && fclose(f) == 0) {
            f = NULL;
            snprintf(cmd, sizeof cmd, "spirv-val --target-env vulkan1.3 '%s' > '%s.log' 2>&1",
                     path, path);
            r = system(cmd) == 0;
            snprintf(why, n, "see %s.log", path);
        }
        if (f)
            fclose(f);
    }
    cvm_free_bytes(bytes);
    cvm_free_bytes(words);
    return r;
}

static void test_big_params(void)
{
    static uint32_t ov[BIG_UNITS * 4], oc[BIG_UNITS * 4];
    char why[256] = "";
    cvm_diag d;
    int v = validate_big(why, sizeof why);
    if (v < 0)
        skip("spirv-val is not installed");
    else
        ok(v == 1, "a 200-byte struct parameter: the module passes spirv-val (%s)", why);
    cvm_status st = run_big(vk, ov, &d);
    if (!ok(st == CVM_OK, "a 200-byte struct and a scalar run on vulkan (%s)", d.message))
        return;
    ok(run_big(cpu, oc, &d) == CVM_OK, "the same on cpu (%s)", d.message);
    uint8_t sb[200];
    big_struct(sb);
    uint32_t w0, w49;
    uint64_t c104;
    memcpy(&w0, sb, 4);
    memcpy(&w49, sb + 196, 4);
    memcpy(&c104, sb + 104, 8);
    int bad = -1;
    for (uint32_t t = 0; t < BIG_UNITS && bad < 0; t++) {
        uint64_t c = c104 + t, got;
        memcpy(&got, &ov[t * 4 + 2], 8);
        if (ov[t * 4] != w0 + t * 11 || ov[t * 4 + 1] != w49 + sb[197] || got != c)
            bad = (int)t;
    }
    ok(bad < 0, "fields at offsets 0, 104, 196 and byte 197, and the scalar after the struct, "
                "read from the uniform buffer (first mismatch at unit %d)", bad);
    ok(!memcmp(ov, oc, sizeof ov), "vulkan and cpu agree on every word");
}

int main(void)
{
    setenv("VK_DRIVER_FILES", "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json", 1);
    setenv("XDG_RUNTIME_DIR", "/tmp", 1);
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cvm-test-vkpar.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        printf("1..0 # SKIP cannot create a temporary directory\n");
        return 0;
    }
    setenv("MESA_SHADER_CACHE_DIR", tmpdir, 1);
    setenv("CUBEVM_CACHE_DIR", tmpdir, 1);
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
    test_big_params();
    char first[512];
    uint32_t msgs = cvm_vk_validation_messages(first, sizeof first);
    ok(msgs == 0, "the validation layer stayed silent (%u messages; first: %.300s)", msgs,
       msgs ? first : "none");
    cvm_device_close(cpu);
    cvm_device_close(vk);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        diag("could not remove %s", tmpdir);
    return done_testing();
}
