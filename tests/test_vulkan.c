/*
 * test_vulkan.c - the vulkan device on Mesa's lavapipe (VK_DRIVER_FILES
 * picks it): opening and limits, buffer stream operations against a host
 * reference, a GLSL compute shader (glslangValidator) dispatched through
 * the device's pipeline path, docs/examples/vadd.cbs through the public
 * API, launch errors, and the conformance suite (tests/conformance/) run
 * on vulkan and on the cpu device at the same plane width and compared
 * under each case's mode, f32 atomic adds into global and shared memory
 * with the float-add extension and without it (CUBEVM_VK_NO_FLOAT_ATOMIC)
 * against a hand-computed sum. Kernels the SPIR-V backend rejects are skipped
 * with its diagnostic. Without a loader or driver the whole test is
 * skipped with the reason. Run from the repository root.
 */
#include "vk_driver.h"
#include "../backends/vulkan/vk.h"
#include "tap.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static cvm_device *vk, *cpu;
static char tmpdir[64];

/* ---- buffers ---- */

static void test_buffers(cvm_device *dev)
{
    cvm_stream *s = cvm_device_stream(dev);
    cvm_buffer *a = NULL, *b = NULL;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    unsigned char ref[37], got[37], refb[37];
    ok(cvm_buffer_create(dev, 37, "a", &a, &d) == CVM_OK &&
       cvm_buffer_create(dev, 37, "b", &b, &d) == CVM_OK, "two 37-byte buffers (%s)", d.message);
    if (!a || !b)
        return;
    cvm_buffer_read(s, a, 0, got, 37, &d);
    memset(ref, 0, sizeof ref);
    ok(!memcmp(got, ref, 37), "a new buffer reads as zeros");
    for (int i = 0; i < 37; i++)
        ref[i] = (unsigned char)(i * 7 + 1);
    cvm_status st = cvm_buffer_write(s, a, 0, ref, 37, &d);
    st = st ? st : cvm_buffer_fill(s, a, 3, 10, 0xab, &d);   /* unaligned: staged */
    st = st ? st : cvm_buffer_fill(s, a, 20, 8, 0x5c, &d);   /* aligned: vkCmdFillBuffer */
    st = st ? st : cvm_buffer_fill(s, a, 32, 5, 0x11, &d);   /* to the end of the buffer */
    st = st ? st : cvm_buffer_copy(s, b, 1, a, 0, 30, &d);   /* another buffer */
    st = st ? st : cvm_buffer_copy(s, a, 5, a, 0, 20, &d);   /* overlapping, forward */
    ok(st == CVM_OK, "write, fills and copies are queued (%s)", d.message);
    memset(ref + 3, 0xab, 10);
    memset(ref + 20, 0x5c, 8);
    memset(ref + 32, 0x11, 5);
    memset(refb, 0, sizeof refb);
    memcpy(refb + 1, ref, 30);
    memmove(ref + 5, ref, 20);
    ok(cvm_buffer_read(s, a, 0, got, 37, &d) == CVM_OK && !memcmp(got, ref, 37),
       "buffer a matches the host reference after write/fill/overlapping copy");
    ok(cvm_buffer_read(s, b, 0, got, 37, &d) == CVM_OK && !memcmp(got, refb, 37),
       "buffer b holds the copied range");
    void *p = NULL;
    ok(cvm_buffer_map(a, &p, &d) == CVM_OK && p && !memcmp(p, ref, 37), "map shows the bytes");
    cvm_buffer_unmap(a);
    is_int(cvm_buffer_write(s, a, 30, ref, 8, &d), CVM_INVALID_ARGUMENT,
           "a write past the end is refused");
    is_int(cvm_stream_sync(s, &d), CVM_OK, "the stream syncs clean");
    cvm_buffer_free(a);
    cvm_buffer_free(b);
}

/* ---- the memory type choice on made-up memory tables ---- */

static int pick_type(const VkMemoryPropertyFlags *types, uint32_t n, uint32_t bits)
{
    vk_dev d;
    memset(&d, 0, sizeof d);
    d.mem_props.memoryTypeCount = n;
    for (uint32_t i = 0; i < n; i++)
        d.mem_props.memoryTypes[i].propertyFlags = types[i];
    uint32_t out = 99;
    return cvm_vk_memory_type(&d, bits, &out) == CVM_OK ? (int)out : -1;
}

static void test_memory_choice(void)
{
    enum {
        DL = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
        HV = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
        HC = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
        CA = VK_MEMORY_PROPERTY_HOST_CACHED_BIT
    };
    const VkMemoryPropertyFlags lavapipe[] = {DL | HV | HC | CA};
    const VkMemoryPropertyFlags discrete[] = {DL, HV | HC, HV | HC | CA};
    const VkMemoryPropertyFlags rebar[] = {DL, HV | HC, DL | HV | HC, HV | HC | CA};
    const VkMemoryPropertyFlags none[] = {DL, HV};
    is_int(pick_type(lavapipe, 1, ~0u), 0, "lavapipe: its one (device-local, host) memory type");
    is_int(pick_type(discrete, 3, ~0u), 1, "discrete GPU: the first host-visible coherent type");
    is_int(pick_type(rebar, 4, ~0u), 2, "resizable BAR: host-visible and device-local preferred");
    is_int(pick_type(rebar, 4, 1u << 1 | 1u << 3), 1, "only the types the buffer allows");
    is_int(pick_type(none, 2, ~0u), -1, "no host-visible coherent type: unsupported");
}

/* ---- device-local buffers through staging (forced on lavapipe) ---- */

static int staged_on(const VkMemoryPropertyFlags *types, uint32_t n, uint32_t host, bool force)
{
    vk_dev d;
    memset(&d, 0, sizeof d);
    d.mem_props.memoryTypeCount = n;
    for (uint32_t i = 0; i < n; i++)
        d.mem_props.memoryTypes[i].propertyFlags = types[i];
    d.host_mem_type = host;
    cvm_vk_choose_layout(&d, ~0u, force);
    return d.staged ? (int)d.local_mem_type : -1;
}

static int run_vadd(cvm_device *dev, const float *a, const float *b, float *c, uint32_t n,
                    uint32_t block, cvm_diag *d);

static void test_staged(void)
{
    enum {
        DL = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
        HVC = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
    };
    const VkMemoryPropertyFlags discrete[] = {DL, HVC}, rebar[] = {DL, HVC, DL | HVC};
    const VkMemoryPropertyFlags lavapipe[] = {DL | HVC}, host_only[] = {HVC};
    is_int(staged_on(discrete, 2, 1, false), 0, "discrete GPU: device-local buffers, staged");
    is_int(staged_on(rebar, 3, 2, false), -1, "resizable BAR: mapped device-local buffers");
    is_int(staged_on(lavapipe, 1, 0, false), -1, "lavapipe: mapped buffers");
    is_int(staged_on(lavapipe, 1, 0, true), 0, "CUBEVM_VK_STAGED=1 forces staging");
    is_int(staged_on(host_only, 1, 0, true), -1, "no device-local type: never staged");
    cvm_device *sd = NULL;
    cvm_diag d;
    setenv("CUBEVM_VK_STAGED", "1", 1);
    cvm_status st = cvm_device_open("vulkan", NULL, &sd, &d);
    unsetenv("CUBEVM_VK_STAGED");
    if (st != CVM_OK) {
        ok(0, "open vulkan with staged buffers: %s", d.message);
        return;
    }
    ok(vkd(sd)->staged, "the device uses staged buffers");
    test_buffers(sd); /* write, fills, copies, read, map */
    enum { N = 300 };
    float a[N], c[N];
    for (int i = 0; i < N; i++)
        a[i] = (float)i * 0.25f;
    ok(run_vadd(sd, a, a, c, N, 64, &d) == CVM_OK && c[N - 1] == 2 * a[N - 1] && c[7] == 2 * a[7],
       "vadd on staged buffers (%s)", d.message);
    cvm_buffer *b = NULL;
    uint32_t *p = NULL, got[4] = {0}, want[4] = {7, 8, 9, 10};
    cvm_buffer_create(sd, 16, "m", &b, &d);
    if (b && cvm_buffer_map(b, (void **)&p, &d) == CVM_OK && p) {
        memcpy(p, want, sizeof want);
        cvm_buffer_unmap(b);
    }
    ok(b && p && cvm_buffer_read(cvm_device_stream(sd), b, 0, got, 16, &d) == CVM_OK &&
           !memcmp(got, want, 16),
       "writes through a staged buffer's mapping reach the device at unmap");
    cvm_buffer_free(b);
    cvm_device_close(sd);
}

/* ---- a GLSL shader through the pipeline path ---- */

static const char glsl[] =
    "#version 450\n"
    "layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;\n"
    "layout(set = 0, binding = 0) readonly buffer In { float x[]; } src;\n"
    "layout(set = 0, binding = 1) buffer Out { float y[]; } dst;\n"
    "layout(push_constant) uniform P { uint n; float scale; } p;\n"
    "void main() {\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    if (i < p.n) dst.y[i] = src.x[i] * p.scale + float(i);\n"
    "}\n";

static uint32_t *compile_glsl(size_t *count, char *why, size_t cap)
{
    char src[128], spv[128], cmd[512];
    snprintf(src, sizeof src, "%s/k.comp", tmpdir);
    snprintf(spv, sizeof spv, "%s/k.spv", tmpdir);
    FILE *f = fopen(src, "w");
    if (!f || fputs(glsl, f) < 0 || fclose(f) != 0) {
        snprintf(why, cap, "cannot write %s", src);
        return NULL;
    }
    snprintf(cmd, sizeof cmd, "glslangValidator -V --target-env vulkan1.1 -o %s %s >/dev/null 2>&1",
             spv, src);
    if (system(cmd) != 0) {
        snprintf(why, cap, "glslangValidator is not installed or failed (glslang-tools)");
        return NULL;
    }
    f = fopen(spv, "rb");
    uint32_t *words = f ? malloc(1 << 16) : NULL;
    *count = words ? fread(words, 4, (1 << 16) / 4, f) : 0;
    if (f)
        fclose(f);
    return words;
}

static void test_glsl(void)
{
    char why[160];
    size_t count = 0;
    uint32_t *words = compile_glsl(&count, why, sizeof why);
    if (!words) {
        skip("GLSL dispatch: %s", why);
        return;
    }
    enum { N = 250 };
    float in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = (float)i * 0.5f - 3.0f;
    cvm_buffer *bi = NULL, *bo = NULL;
    cvm_diag d;
    cvm_stream *s = cvm_device_stream(vk);
    cvm_buffer_create(vk, sizeof in, "in", &bi, &d);
    cvm_buffer_create(vk, sizeof out, "out", &bo, &d);
    cvm_buffer_write(s, bi, 0, in, sizeof in, &d);
    uint32_t n = N;
    float scale = 3.0f;
    cvm_spv_bind binds[4] = {{CVM_SPV_BIND_STORAGE_BUFFER, 0, 0, 0},
                             {CVM_SPV_BIND_STORAGE_BUFFER, 1, 0, 0},
                             {CVM_SPV_BIND_PUSH_CONSTANT, 0, 0, 4},
                             {CVM_SPV_BIND_PUSH_CONSTANT, 0, 4, 4}};
    cvm_spv_layout lay = {.nparams = 4, .params = binds, .push_size = 8, .nbindings = 2,
                          .spec_local_size = {0, 1, 2}, .spec_dyn_shared = 3};
    cvm_arg args[4] = {{CVM_ARG_BUFFER, bi, 0, NULL, 0}, {CVM_ARG_BUFFER, bo, 0, NULL, 0},
                       {CVM_ARG_BYTES, NULL, 0, &n, 4}, {CVM_ARG_BYTES, NULL, 0, &scale, 4}};
    uint32_t grid[3] = {4, 1, 1}, block[3] = {64, 1, 1};
    cvm_status st = cvm_vk_run_spirv(s, words, count, &lay, grid, block, args, &d);
    ok(st == CVM_OK, "GLSL shader dispatched with push constants (%s)", d.message);
    cvm_buffer_read(s, bo, 0, out, sizeof out, &d);
    int bad = -1;
    for (int i = 0; i < N && bad < 0; i++)
        if (out[i] != ((float)i * 0.5f - 3.0f) * 3.0f + (float)i)
            bad = i;
    ok(bad < 0, "GLSL shader results match the host (first mismatch %d)", bad);
    cvm_buffer_free(bi);
    cvm_buffer_free(bo);
    free(words);
}

/* ---- vadd through the public API, against the cpu device ---- */

static int run_vadd(cvm_device *dev, const float *a, const float *b, float *c, uint32_t n,
                    uint32_t block, cvm_diag *d)
{
    cvm_module *m = NULL;
    const cvm_kernel *k = NULL;
    cvm_buffer *ba = NULL, *bb = NULL, *bc = NULL;
    cvm_stream *s = cvm_device_stream(dev);
    size_t bytes = n * sizeof(float);
    cvm_status st = cvm_module_load_file(dev, "docs/examples/vadd.cbs", &m, d);
    st = st ? st : cvm_kernel_get(m, "vadd", &k, d);
    st = st ? st : cvm_buffer_create(dev, bytes, "a", &ba, d);
    st = st ? st : cvm_buffer_create(dev, bytes, "b", &bb, d);
    st = st ? st : cvm_buffer_create(dev, bytes, "c", &bc, d);
    st = st ? st : cvm_buffer_write(s, ba, 0, a, bytes, d);
    st = st ? st : cvm_buffer_write(s, bb, 0, b, bytes, d);
    if (st == CVM_OK) {
        cvm_arg args[4] = {{CVM_ARG_BUFFER, ba, 0, NULL, 0}, {CVM_ARG_BUFFER, bb, 0, NULL, 0},
                           {CVM_ARG_BUFFER, bc, 0, NULL, 0}, {CVM_ARG_BYTES, NULL, 0, &n, 4}};
        cvm_launch_config cfg = {.grid = {(n + block - 1) / block, 1, 1}, .block = {block, 1, 1}};
        st = cvm_launch(s, k, &cfg, args, 4, d);
    }
    st = st ? st : cvm_stream_sync(s, d);
    st = st ? st : cvm_buffer_read(s, bc, 0, c, bytes, d);
    cvm_buffer_free(ba);
    cvm_buffer_free(bb);
    cvm_buffer_free(bc);
    cvm_module_free(m);
    return st;
}

static void test_vadd(void)
{
    enum { N = 1000 };
    static float a[N], b[N], cv[N], cc[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)i / 7.0f;
        b[i] = 1e3f - (float)i * 1.25f;
    }
    cvm_diag d;
    cvm_status st = run_vadd(vk, a, b, cv, N, 128, &d);
    if (st == CVM_UNSUPPORTED) {
        skip("vadd on vulkan: %s", d.message);
        return;
    }
    ok(st == CVM_OK, "vadd runs on vulkan (%s)", d.message);
    ok(run_vadd(cpu, a, b, cc, N, 128, &d) == CVM_OK, "vadd runs on cpu (%s)", d.message);
    int bad = -1;
    for (int i = 0; i < N && bad < 0; i++)
        if (cv[i] != a[i] + b[i] || memcmp(&cv[i], &cc[i], 4))
            bad = i;
    ok(bad < 0, "vadd: vulkan == cpu == host a+b (first mismatch %d)", bad);
}

/* ---- a grid wider than the device's x limit (lavapipe: 65535) ---- */

/*
 * A W x 2 grid of 8-unit cubes. Unit (x, y) writes out[abs_pos.x + y 8W]
 * = cube_pos.x, plus 2^20 (cube_count.x - W) and 2^21 (cube_pos - cube_pos.x
 * - W cube_pos.y): its cube's x index exactly when the x registers and the
 * linear cube index (which multiplies by the grid's width) are right. The
 * device splits the grid into dispatches of at most
 * maxComputeWorkGroupCount[0] cubes.
 */
#define WIDE_W 70000u
static const char wide_cbs[] =
    ".kernel wide\n.param out buffer u32 write\n"
    ".reg u32 %a, %cx, %cy, %n, %cl, %k, %t, %u, %v, %s, %row\n.reg i64 %off, %four\n"
    ".reg ptr.global %po\n"
    "    sreg.u32 %a, abs_pos.x\n    sreg.u32 %cx, cube_pos.x\n    sreg.u32 %cy, cube_pos.y\n"
    "    sreg.u32 %n, cube_count.x\n    sreg.u32 %cl, cube_pos\n"
    "    const.u32 %k, 70000\n    const.u32 %s, 1048576\n"
    "    sub.u32 %t, %n, %k\n    mul.u32 %t, %t, %s\n"
    "    mul.u32 %u, %cy, %k\n    sub.u32 %u, %cl, %u\n    sub.u32 %u, %u, %cx\n"
    "    add.u32 %u, %u, %u\n    mul.u32 %u, %u, %s\n"
    "    add.u32 %v, %cx, %t\n    add.u32 %v, %v, %u\n"
    "    const.u32 %row, 560000\n    mul.u32 %row, %row, %cy\n    add.u32 %a, %a, %row\n"
    "    cvt.i64 %off, %a\n    const.i64 %four, 4\n    mul.i64 %off, %off, %four\n"
    "    param.ptr.global %po, out, 0\n    ptr.add.ptr.global %po, %po, %off\n"
    "    st.u32 [%po], %v\n    return\n.end\n";

static void test_wide_grid(void)
{
    void *bytes = NULL;
    size_t size = 0;
    cvm_module *m = NULL;
    const cvm_kernel *k = NULL;
    cvm_buffer *out = NULL;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    const uint32_t cube = 8, row = WIDE_W * cube, n = 2 * row;
    uint32_t *got = malloc((size_t)n * 4);
    cvm_stream *s = cvm_device_stream(vk);
    cvm_status st = got ? CVM_OK : CVM_OUT_OF_MEMORY;
    st = st ? st : cvm_assemble(wide_cbs, strlen(wide_cbs), "wide.cbs", &bytes, &size, &d);
    st = st ? st : cvm_module_load(vk, bytes, size, &m, &d);
    st = st ? st : cvm_kernel_get(m, "wide", &k, &d);
    st = st ? st : cvm_buffer_create(vk, (size_t)n * 4, "out", &out, &d);
    cvm_arg arg = {CVM_ARG_BUFFER, out, 0, NULL, 0};
    cvm_launch_config cfg = {.grid = {WIDE_W, 2, 1}, .block = {cube, 1, 1}};
    st = st ? st : cvm_launch(s, k, &cfg, &arg, 1, &d);
    st = st ? st : cvm_stream_sync(s, &d);
    st = st ? st : cvm_buffer_read(s, out, 0, got, (size_t)n * 4, &d);
    if (ok(st == CVM_OK, "a grid of %u x 2 cubes runs on vulkan (%s)", WIDE_W, d.message)) {
        long bad = -1;
        for (uint32_t i = 0; i < n && bad < 0; i++)
            if (got[i] != i % row / cube)
                bad = i;
        ok(bad < 0, "every unit saw its cube_pos.x, abs_pos.x, cube_pos and cube_count.x (first bad %ld: %u)",
           bad, bad < 0 ? 0 : got[bad]);
    }
    cvm_buffer_free(out);
    cvm_module_free(m);
    cvm_free_bytes(bytes);
    free(got);
}

static void test_errors(void)
{
    cvm_module *m = NULL;
    const cvm_kernel *k = NULL;
    cvm_buffer *buf = NULL;
    cvm_diag d;
    uint32_t n = 4;
    cvm_module_load_file(vk, "docs/examples/vadd.cbs", &m, &d);
    cvm_kernel_get(m, "vadd", &k, &d);
    cvm_buffer_create(vk, 256, "buf", &buf, &d);
    if (!k || !buf) {
        ok(0, "setup for the error checks (%s)", d.message);
        return;
    }
    cvm_arg args[4] = {{CVM_ARG_BUFFER, buf, 0, NULL, 0}, {CVM_ARG_BUFFER, buf, 0, NULL, 0},
                       {CVM_ARG_BUFFER, buf, 0, NULL, 0}, {CVM_ARG_BYTES, NULL, 0, &n, 4}};
    cvm_launch_config cfg = {.grid = {1, 1, 1}, .block = {4096, 1, 1}};
    cvm_stream *s = cvm_device_stream(vk);
    is_int(cvm_launch(s, k, &cfg, args, 4, &d), CVM_LIMIT, "a 4096-unit cube: %s", d.message);
    cfg.block[0] = 4;
    is_int(cvm_launch(s, k, &cfg, args, 3, &d), CVM_TYPE_MISMATCH, "too few arguments: %s",
           d.message);
    args[0].offset = 4;
    cvm_device_limits lim;
    cvm_device_limits_get(vk, &lim, &d);
    cvm_status st = cvm_launch(s, k, &cfg, args, 4, &d);
    ok(st == CVM_UNSUPPORTED || st == CVM_OK, "a view at offset 4: ok or unsupported (%s)",
       st ? d.message : "aligned enough");
    is_int(cvm_stream_sync(s, &d), CVM_OK, "stream clean after refused launches");
    cvm_buffer_free(buf);
    cvm_module_free(m);
}

/* ---- the conformance suite, vulkan against cpu ---- */

#define MAX_ITEMS 16

typedef struct item {
    char name[64], mode[16];
    int is_buffer;
    size_t count, size;
    int is_float;
    double a, r;          /* ulp N: a = N; absrel A R */
    unsigned char *init;  /* NULL: zeros */
    unsigned char *want;  /* the case's expected values, NULL if none */
} item;

typedef struct kcase {
    char kernel[64], skip[200];
    uint32_t grid, block, width;
    item items[MAX_ITEMS];
    int nitems;
} kcase;

static size_t type_size(const char *t, int *is_float)
{
    static const char *const names[] = {"i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64",
                                        "f32", "f64"};
    static const size_t sizes[] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
    for (size_t i = 0; i < 10; i++)
        if (!strcmp(t, names[i])) {
            *is_float = i >= 8;
            return sizes[i];
        }
    return 0;
}

static unsigned char *parse_values(const item *it, const char *s)
{
    unsigned char *out = calloc(it->count ? it->count : 1, it->size);
    char *end;
    for (size_t i = 0; out && i < it->count; i++, s = end) {
        unsigned char *dst = out + i * it->size;
        if (it->is_float && it->size == 4) {
            float f = (float)strtod(s, &end);
            memcpy(dst, &f, 4);
        } else if (it->is_float) {
            double v = strtod(s, &end);
            memcpy(dst, &v, 8);
        } else {
            while (*s == ' ')
                s++;
            unsigned long long v = *s == '-' ? (unsigned long long)strtoll(s, &end, 0)
                                             : strtoull(s, &end, 0);
            memcpy(dst, &v, it->size); /* little-endian: the low bytes */
        }
        if (end == s) {
            free(out);
            return NULL;
        }
    }
    return out;
}

static int read_case(const char *path, kcase *c, uint32_t features)
{
    FILE *f = fopen(path, "r");
    char line[8192];
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f)) {
        char w[5][64] = {{0}};
        char *eq = strstr(line, " = ");
        if (eq)
            *eq = 0;
        int n = sscanf(line, "%63s %63s %63s %63s %63s", w[0], w[1], w[2], w[3], w[4]);
        if (n <= 0 || w[0][0] == '#')
            continue;
        item *it = &c->items[c->nitems];
        if (!strcmp(w[0], "kernel")) {
            snprintf(c->kernel, sizeof c->kernel, "%s", w[1]);
        } else if (!strcmp(w[0], "launch")) {
            c->grid = (uint32_t)atoi(w[1]);
            c->block = (uint32_t)atoi(w[2]);
        } else if (!strcmp(w[0], "require")) {
            if (!strcmp(w[1], "plane_width"))
                c->width = (uint32_t)atoi(w[2]);
            else if (!(strcmp(w[1], "f64") == 0 && (features & CVM_FEATURE_F64)) && !c->skip[0])
                snprintf(c->skip, sizeof c->skip, "vulkan device lacks: %s %s", w[1], w[2]);
        } else if ((!strcmp(w[0], "buffer") || !strcmp(w[0], "scalar")) && c->nitems < MAX_ITEMS) {
            snprintf(it->name, sizeof it->name, "%s", w[1]);
            it->is_buffer = w[0][0] == 'b';
            it->size = type_size(w[2], &it->is_float);
            it->count = it->is_buffer ? (size_t)strtoull(w[3], NULL, 0) : 1;
            const char *vals = eq ? eq + 3 : it->is_buffer ? NULL : strstr(line, w[2]) + strlen(w[2]);
            if (!it->size || (vals && !(it->init = parse_values(it, vals))))
                break;
            c->nitems++;
        } else if (!strcmp(w[0], "expect")) {
            for (int i = 0; i < c->nitems; i++)
                if (!strcmp(c->items[i].name, w[1])) {
                    snprintf(c->items[i].mode, sizeof c->items[i].mode, "%.15s", w[2]);
                    c->items[i].a = n > 3 ? atof(w[3]) : 0;
                    c->items[i].r = n > 4 ? atof(w[4]) : 0;
                    if (eq)
                        c->items[i].want = parse_values(&c->items[i], eq + 3);
                }
        }
    }
    fclose(f);
    return c->kernel[0] && c->grid && c->block;
}

/* Runs the case on `dev`; the buffers' final bytes go to out[i] (malloc'ed). */
static cvm_status run_case(cvm_device *dev, const char *cbs, const kcase *c, unsigned char **out,
                           cvm_diag *d)
{
    cvm_module *m = NULL;
    const cvm_kernel *k = NULL;
    cvm_buffer *bufs[MAX_ITEMS] = {0};
    cvm_arg args[MAX_ITEMS];
    cvm_stream *s = cvm_device_stream(dev);
    cvm_status st = cvm_module_load_file(dev, cbs, &m, d);
    st = st ? st : cvm_kernel_get(m, c->kernel, &k, d);
    for (int i = 0; !st && i < c->nitems; i++) {
        const item *it = &c->items[i];
        if (!it->is_buffer) {
            args[i] = (cvm_arg){CVM_ARG_BYTES, NULL, 0, it->init, it->size};
            continue;
        }
        st = cvm_buffer_create(dev, it->count * it->size, it->name, &bufs[i], d);
        if (!st && it->init)
            st = cvm_buffer_write(s, bufs[i], 0, it->init, it->count * it->size, d);
        args[i] = (cvm_arg){CVM_ARG_BUFFER, bufs[i], 0, NULL, 0};
    }
    cvm_launch_config cfg = {.grid = {c->grid, 1, 1}, .block = {c->block, 1, 1}, .plane_width = c->width};
    st = st ? st : cvm_launch(s, k, &cfg, args, (uint32_t)c->nitems, d);
    st = st ? st : cvm_stream_sync(s, d);
    for (int i = 0; i < c->nitems; i++) {
        if (!st && bufs[i]) {
            out[i] = malloc(c->items[i].count * c->items[i].size + 1);
            st = cvm_buffer_read(s, bufs[i], 0, out[i], c->items[i].count * c->items[i].size, d);
        }
        cvm_buffer_free(bufs[i]);
    }
    cvm_module_free(m);
    return st;
}

static size_t g_size;
static int cmp_bytes(const void *x, const void *y) { return memcmp(x, y, g_size); }

static double as_double(const item *it, const unsigned char *p)
{
    if (it->size == 4) {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    double v;
    memcpy(&v, p, 8);
    return v;
}

/* Element `bad` where vulkan and cpu differ under the item's mode, or -1. */
static long compare(const item *it, unsigned char *v, unsigned char *c)
{
    if (!strcmp(it->mode, "unordered")) {
        g_size = it->size;
        qsort(v, it->count, it->size, cmp_bytes);
        qsort(c, it->count, it->size, cmp_bytes);
    }
    for (size_t i = 0; i < it->count; i++) {
        const unsigned char *x = v + i * it->size, *y = c + i * it->size;
        if (!memcmp(x, y, it->size))
            continue;
        if (!it->is_float)
            return (long)i;
        double a = as_double(it, x), b = as_double(it, y);
        if (isnan(a) && isnan(b))
            continue;
        if (!strcmp(it->mode, "absrel") && fabs(a - b) <= it->a + it->r * fabs(b))
            continue;
        if (!strcmp(it->mode, "ulp")) {
            double ulp = it->size == 4 ? fabs(nextafterf((float)b, INFINITY) - (float)b)
                                       : fabs(nextafter(b, INFINITY) - b);
            if (fabs(a - b) <= it->a * ulp)
                continue;
        }
        return (long)i;
    }
    return -1;
}

/*
 * Differences found on lavapipe that belong to the SPIR-V backend, reported as
 * TAP TODO so they stay visible without failing the build; remove a row when
 * the backend fixes it (prove then reports the case as unexpectedly passing).
 */
static const char *known_failure(const char *name)
{
    static const char *const rows[][2] = {
        {NULL, NULL}, /* none today: the backend's exact fma and exp fixed fma_f32 and exp_f32 */
    };
    for (size_t i = 0; rows[i][0]; i++)
        if (!strcmp(rows[i][0], name))
            return rows[i][1];
    /* A driver that cannot keep f32 subnormals (NVIDIA's: no
     * shaderDenormPreserveFloat32) flushes them in plain f32 arithmetic; the
     * backend's sequences (div, sqrt, fma, exp, ...) keep them. */
    if (!vk_test_on_lavapipe() && !vkd(vk)->target.denorm_preserve32 && !strcmp(name, "add_f32"))
        return "the driver flushes f32 subnormals (docs/backends.md)";
    return NULL;
}

static void conformance_case(const char *name, uint32_t features, uint32_t width)
{
    char path[512], cbs[512];
    kcase c;
    memset(&c, 0, sizeof c);
    snprintf(path, sizeof path, "tests/conformance/%s.case", name);
    snprintf(cbs, sizeof cbs, "tests/conformance/%s.cbs", name);
    if (!read_case(path, &c, features)) {
        ok(0, "conformance %s: cannot read the case", name);
        goto done;
    }
    if (c.skip[0]) {
        skip("conformance %s: %s", name, c.skip);
        goto done;
    }
    if (!c.width)
        c.width = width; /* the cpu runs at the vulkan device's plane width */
    unsigned char *outv[MAX_ITEMS] = {0}, *outc[MAX_ITEMS] = {0};
    cvm_diag d;
    cvm_status st = run_case(vk, cbs, &c, outv, &d);
    if (st == CVM_UNSUPPORTED) {
        skip("conformance %s on vulkan: %s", name, d.message);
    } else if (st != CVM_OK) {
        ok(0, "conformance %s on vulkan: %s", name, d.message);
    } else if ((st = run_case(cpu, cbs, &c, outc, &d)) != CVM_OK) {
        ok(0, "conformance %s on cpu at plane width %u: %s", name, c.width, d.message);
    } else {
        long bad = -1;
        int which = 0;
        /* Tolerance modes bound each device's distance from the case's (independent)
         * expected values; two devices within N ulp may be 2N apart, so those compare
         * against the expectation, exact and unordered ones against the cpu's bytes. */
        for (int i = 0; i < c.nitems && bad < 0; i++) {
            item *it = &c.items[i];
            int tolerant = !strcmp(it->mode, "ulp") || !strcmp(it->mode, "absrel");
            if (it->is_buffer && it->mode[0] &&
                (bad = compare(it, outv[i], tolerant && it->want ? it->want : outc[i])) >= 0)
                which = i;
        }
        const char *todo = known_failure(name);
        printf("%s %d - conformance %s: vulkan matches %s at plane width %u%s%s (element %ld)%s%s\n",
               bad < 0 ? "ok" : "not ok", ++tap_n, name, "cpu/expected", c.width,
               bad >= 0 ? " - differs in " : "", bad >= 0 ? c.items[which].name : "", bad,
               todo ? " # TODO " : "", todo ? todo : "");
        if (bad >= 0 && !todo)
            tap_failed++;
    }
    for (int i = 0; i < MAX_ITEMS; i++) {
        free(outv[i]);
        free(outc[i]);
    }
done:
    for (int i = 0; i < c.nitems; i++) {
        free(c.items[i].init);
        free(c.items[i].want);
    }
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void conformance(uint32_t features, uint32_t width)
{
    DIR *dir = opendir("tests/conformance");
    char *names[256];
    size_t n = 0;
    struct dirent *e;
    while (dir && (e = readdir(dir)) && n < 256) {
        size_t len = strlen(e->d_name);
        if (len > 5 && !strcmp(e->d_name + len - 5, ".case"))
            names[n++] = strndup(e->d_name, len - 5);
    }
    if (dir)
        closedir(dir);
    ok(n > 0, "%zu conformance cases found", n);
    qsort(names, n, sizeof *names, name_cmp);
    for (size_t i = 0; i < n; i++) {
        conformance_case(names[i], features, width);
        free(names[i]);
    }
}

/* ---- pipelines once per specialization; step budgets refused ---- */

static cvm_status launch_vadd(const cvm_kernel *k, cvm_buffer *buf, uint32_t block,
                              uint32_t shared, uint64_t steps, cvm_diag *d)
{
    uint32_t n = 64;
    cvm_arg args[4] = {{CVM_ARG_BUFFER, buf, 0, NULL, 0}, {CVM_ARG_BUFFER, buf, 0, NULL, 0},
                       {CVM_ARG_BUFFER, buf, 0, NULL, 0}, {CVM_ARG_BYTES, NULL, 0, &n, 4}};
    cvm_launch_config cfg = {.grid = {64 / block, 1, 1}, .block = {block, 1, 1}, .shared_bytes = shared, .step_budget = steps, .timeout_s = 5.0};
    cvm_stream *s = cvm_device_stream(vk);
    cvm_status st = cvm_launch(s, k, &cfg, args, 4, d);
    return st ? st : cvm_stream_sync(s, d);
}

static void test_pipelines(void)
{
    cvm_module *m = NULL;
    const cvm_kernel *k = NULL;
    cvm_buffer *buf = NULL;
    cvm_diag d;
    cvm_module_load_file(vk, "docs/examples/vadd.cbs", &m, &d);
    cvm_kernel_get(m, "vadd", &k, &d);
    cvm_buffer_create(vk, 256, "buf", &buf, &d);
    if (!k || !buf) {
        ok(0, "setup for the pipeline checks (%s)", d.message);
        return;
    }
    const uint32_t *built = &vkd(vk)->pipelines_built;
    uint32_t b0 = *built;
    int fine = launch_vadd(k, buf, 64, 0, 0, &d) == CVM_OK;
    uint32_t b1 = *built;
    fine = fine && launch_vadd(k, buf, 64, 0, 0, &d) == CVM_OK;
    uint32_t b2 = *built;
    fine = fine && launch_vadd(k, buf, 32, 0, 0, &d) == CVM_OK;
    uint32_t b3 = *built;
    fine = fine && launch_vadd(k, buf, 32, 16, 0, &d) == CVM_OK &&
           launch_vadd(k, buf, 64, 0, 0, &d) == CVM_OK && launch_vadd(k, buf, 32, 16, 0, &d) == CVM_OK;
    uint32_t b4 = *built;
    ok(fine, "vadd launches at cube 64, 32 and 32 + 16 shared bytes (%s)", fine ? "" : d.message);
    ok(b1 - b0 == 1 && b2 == b1, "the first launch builds a pipeline, the same shape again none");
    ok(b3 - b2 == 1, "another cube size is another specialization: one pipeline");
    is_int(b4 - b3, 1, "dynamic shared bytes specialize once; repeated shapes build nothing");
    is_int(launch_vadd(k, buf, 64, 0, 100, &d), CVM_UNSUPPORTED, "a step budget is refused: %s",
           d.message);
    ok(strstr(d.message, "cannot count steps") != NULL, "the refusal says why");
    cvm_buffer_free(buf);
    cvm_module_free(m);
}

/* ---- two created streams, each in order, independent of each other ---- */

static void test_streams(void)
{
    cvm_stream *st[2] = {NULL, NULL};
    cvm_buffer *b[2] = {NULL, NULL};
    cvm_diag d;
    memset(&d, 0, sizeof d);
    uint32_t want[2][64], got[2][64];
    cvm_status rc = CVM_OK;
    for (int i = 0; i < 2 && !rc; i++) {
        rc = cvm_stream_create(vk, &st[i], &d);
        rc = rc ? rc : cvm_buffer_create(vk, sizeof want[i], "s", &b[i], &d);
    }
    for (int i = 0; i < 64; i++)
        want[0][i] = (uint32_t)i * 3u, want[1][i] = 0x01010101u * 7u;
    /* stream 0: write then copy within; stream 1: fill then write a part */
    rc = rc ? rc : cvm_buffer_write(st[0], b[0], 0, want[0], 128, &d);
    rc = rc ? rc : cvm_buffer_fill(st[1], b[1], 0, sizeof want[1], 7, &d);
    rc = rc ? rc : cvm_buffer_copy(st[0], b[0], 128, b[0], 0, 128, &d);
    rc = rc ? rc : cvm_buffer_write(st[1], b[1], 64, want[1], 16, &d);
    for (int i = 32; i < 64; i++)
        want[0][i] = want[0][i - 32];
    rc = rc ? rc : cvm_stream_sync(st[1], &d);
    rc = rc ? rc : cvm_stream_sync(st[0], &d);
    rc = rc ? rc : cvm_buffer_read(st[0], b[0], 0, got[0], sizeof got[0], &d);
    rc = rc ? rc : cvm_buffer_read(st[1], b[1], 0, got[1], sizeof got[1], &d);
    ok(rc == CVM_OK && !memcmp(got, want, sizeof want),
       "two streams (on %u queue(s)) each run their operations in order (%s)", vkd(vk)->nqueues,
       d.message);
    for (int i = 0; i < 2; i++) {
        cvm_buffer_free(b[i]);
        if (st[i])
            cvm_stream_destroy(st[i]);
    }
}

/* ---- the persisted pipeline cache ---- */

static int cache_file(char *path, size_t cap)
{
    char dir[512];
    return cvm_vk_cache_path(vkd(vk), path, cap, dir, sizeof dir);
}

/* Reopens the vulkan device, builds one pipeline, returns what happened to the cache file. */
static size_t reopen_and_build(char *note, size_t cap)
{
    cvm_diag d;
    if (vk)
        cvm_device_close(vk);
    vk = NULL;
    if (cvm_device_open("vulkan", NULL, &vk, &d) != CVM_OK)
        return (size_t)-1;
    size_t loaded = vkd(vk)->cache_loaded;
    snprintf(note, cap, "%s", vkd(vk)->cache_note);
    float a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, c[8];
    if (run_vadd(vk, a, a, c, 8, 8, &d) != CVM_OK || c[7] != 16.0f)
        snprintf(note, cap, "vadd failed after the reopen: %s", d.message);
    return loaded;
}

static void close_vk(void)
{
    if (vk)
        cvm_device_close(vk);
    vk = NULL;
}

static void patch_file(const char *path, long at, const void *bytes, size_t n, long truncate_to)
{
    FILE *f = fopen(path, "r+b");
    if (f && at >= 0 && fseek(f, at, SEEK_SET) == 0)
        fwrite(bytes, 1, n, f);
    if (f)
        fclose(f);
    if (truncate_to >= 0 && truncate(path, truncate_to) != 0)
        diag("cannot truncate %s", path);
}

static void test_cache(void)
{
    char path[600], note[700];
    if (!cache_file(path, sizeof path)) {
        ok(0, "a cache path under CUBEVM_CACHE_DIR");
        return;
    }
    ok(strncmp(path, tmpdir, strlen(tmpdir)) == 0, "the cache file lies under CUBEVM_CACHE_DIR: %s",
       path);
    size_t loaded = reopen_and_build(note, sizeof note);
    ok(access(path, R_OK) == 0, "closing the device wrote the pipeline cache");
    ok(loaded > 0 && loaded != (size_t)-1 && strstr(note, "loaded"),
       "the reopened device read it back (%s)", note);
    unsigned char magic[8] = {0};
    FILE *f = fopen(path, "rb");
    ok(f && fread(magic, 1, 8, f) == 8 && !memcmp(magic, "CVMVKPC1", 8), "cubevm's header leads");
    long size = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (f)
        fclose(f);
    /* A flipped payload byte, a foreign device UUID, a truncated file, garbage. */
    unsigned char x = 0x5a;
    close_vk(); /* its close would write the file again */
    patch_file(path, size - 1, &x, 1, -1);
    loaded = reopen_and_build(note, sizeof note);
    ok(loaded == 0 && strstr(note, "checksum"), "a corrupt payload is ignored: %s", note);
    unsigned char uuid[16];
    memset(uuid, 0xee, sizeof uuid);
    close_vk();
    patch_file(path, 24, uuid, sizeof uuid, -1); /* magic 8 + 4 ids x 4 bytes */
    loaded = reopen_and_build(note, sizeof note);
    ok(loaded == 0 && strstr(note, "does not match"), "a foreign device's file is ignored: %s",
       note);
    close_vk();
    patch_file(path, -1, NULL, 0, 10);
    loaded = reopen_and_build(note, sizeof note);
    ok(loaded == 0 && strstr(note, "truncated"), "a truncated file is ignored: %s", note);
    close_vk();
    f = fopen(path, "wb");
    for (int i = 0; f && i < 4096; i++)
        fputc(i * 37 & 0xff, f);
    if (f)
        fclose(f);
    loaded = reopen_and_build(note, sizeof note);
    ok(loaded == 0 && strstr(note, "ignored"), "garbage is ignored: %s", note);
    loaded = reopen_and_build(note, sizeof note);
    ok(loaded > 0 && loaded != (size_t)-1, "each close rewrote a valid file (%s)", note);
    char dir[512], cmd[700];
    cvm_vk_cache_path(vkd(vk), path, sizeof path, dir, sizeof dir);
    snprintf(cmd, sizeof cmd, "ls -A '%s' | grep -c '^\\.pipelines' >/dev/null", dir);
    ok(system(cmd) != 0, "no temporary files are left in %s", dir);
    close_vk();
    chmod(dir, 0777);
    loaded = reopen_and_build(note, sizeof note);
    ok(loaded == 0 && strstr(note, "not private"), "a directory others may write is not read: %s",
       note);
    chmod(dir, 0700);
}

/* ---- a launch past its timeout ---- */

/*
 * Counts in `count` until the host writes a non-zero word to `stop`, or
 * each unit has counted 2^21 times. lavapipe ends a shader's loops after
 * 65535 iterations in all, so the launch is long by its size: 1024 x 64
 * units on one atomic counter take minutes, unless `stop` ends them. A
 * GPU's driver may stage buffers (the host's write to `stop` then never
 * reaches the device while it is hung), and the process cannot exit while
 * a dispatch runs (NVIDIA's driver waits for it at exit), so there the
 * bound ends the spin: 2^37 increments, seconds on an H200, whose one
 * counter took 2^31 in 0.07 s.
 */
#define SPIN_STOP "ld.volatile.u32 %v, [%ps]\n ne.u32 %p, %v, %zero\n or.bool %p, %p, %q\n" \
                  " if %p\n break\n end\n"
static const char spin_cbs[] =
    ".kernel spin\n.param stop buffer u32 read\n.param count buffer u32 readwrite\n"
    ".reg u32 %v, %one, %old, %zero, %lim, %i\n.reg bool %p, %q\n.reg ptr.global %ps, %pc\n"
    "    const.u32 %one, 1\n    const.u32 %zero, 0\n    const.u32 %lim, 0x200000\n"
    "    const.u32 %i, 0\n    ne.u32 %q, %zero, %zero\n"
    "    param.ptr.global %ps, stop, 0\n    param.ptr.global %pc, count, 0\n"
    " loop\n loop\n loop\n atom.add.relaxed.device.u32 %old, [%pc], %one\n"
    " add.u32 %i, %i, %one\n ge.u32 %q, %i, %lim\n" SPIN_STOP
    " end\n" SPIN_STOP " end\n" SPIN_STOP " end\n return\n.end\n";

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Last: the hung device is left to process exit (see vk_dev.hung). */
static void test_timeout(void)
{
    cvm_device *h = NULL;
    cvm_module *m = NULL;
    const cvm_kernel *k = NULL;
    cvm_buffer *stop = NULL, *count = NULL;
    void *bytes = NULL;
    size_t size = 0;
    cvm_diag d;
    cvm_status st = cvm_device_open("vulkan", NULL, &h, &d);
    st = st ? st : cvm_assemble(spin_cbs, strlen(spin_cbs), "spin.cbs", &bytes, &size, &d);
    st = st ? st : cvm_module_load(h, bytes, size, &m, &d);
    cvm_free_bytes(bytes);
    st = st ? st : cvm_kernel_get(m, "spin", &k, &d);
    st = st ? st : cvm_buffer_create(h, 4, "stop", &stop, &d);
    st = st ? st : cvm_buffer_create(h, 4, "count", &count, &d);
    if (st) {
        ok(0, "setup for the timeout check: %s", d.message);
        goto done;
    }
    cvm_arg args[2] = {{CVM_ARG_BUFFER, stop, 0, NULL, 0}, {CVM_ARG_BUFFER, count, 0, NULL, 0}};
    cvm_launch_config cfg = {.grid = {1024, 1, 1}, .block = {64, 1, 1}, .timeout_s = 0.3};
    cvm_stream *s = cvm_device_stream(h);
    double t0 = seconds();
    st = cvm_launch(s, k, &cfg, args, 2, &d);
    if (st == CVM_UNSUPPORTED) {
        skip("timeout: the spin kernel does not translate: %s", d.message);
        goto done;
    }
    is_int(st, CVM_OK, "a kernel that spins is launched with a 0.3 s timeout (%s)", d.message);
    st = cvm_stream_sync(s, &d);
    double dt = seconds() - t0;
    ok(st == CVM_TIMEOUT && strstr(d.message, "timeout") && dt < 5.0,
       "the sync reports CVM_TIMEOUT after %.2f s: %s", dt, d.message);
    is_int(cvm_launch(s, k, &cfg, args, 2, &d), CVM_DEVICE_LOST,
           "the device takes no more work: %s", d.message);
    void *p = NULL;
    if (cvm_buffer_map(stop, &p, &d) == CVM_OK && p) {
        uint32_t one = 1;
        __atomic_store_n((uint32_t *)p, one, __ATOMIC_SEQ_CST); /* lets the shader end */
    }
    ok(p != NULL, "a hung device's buffer still maps (the host can end the spin)");
done:
    cvm_buffer_free(stop);
    cvm_buffer_free(count);
    cvm_module_free(m);
    if (h)
        cvm_device_close(h);
    ok(1, "closing a hung device returns");
}

/* `cubevm devices` and `cubevm run --device vulkan` (CUBEVM: the binary; make check sets it). */
static void test_cli(void)
{
    const char *bin = getenv("CUBEVM");
    char cmd[1024], out[4096];
    if (!bin || access(bin, X_OK) != 0) {
        skip("cubevm CLI: CUBEVM is not set to the binary");
        return;
    }
    snprintf(cmd, sizeof cmd, "'%s' devices 2>&1", bin);
    FILE *p = popen(cmd, "r");
    size_t n = p ? fread(out, 1, sizeof out - 1, p) : 0;
    out[n] = 0;
    int lvp = vk_test_on_lavapipe();
    ok(p && pclose(p) == 0 && strstr(out, "cpu (generic)") && strstr(out, "vulkan:0 [default] (") &&
       (!lvp || (strstr(out, "vulkan:0 [default] (lavapipe)") && strstr(out, "plane width: 8"))),
       "cubevm devices lists cpu and %s", lvp ? "lavapipe" : "vulkan:0");
    snprintf(cmd, sizeof cmd, "'%s' run docs/examples/vadd.cbs --device vulkan --grid 1 --block 8 "
             "a=@docs/examples/vadd_a.npy b=@docs/examples/vadd_b.npy c=zeros:8 n=8 --print c 2>&1",
             bin);
    p = popen(cmd, "r");
    n = p ? fread(out, 1, sizeof out - 1, p) : 0;
    out[n] = 0;
    ok(p && pclose(p) == 0 && strstr(out, "c: 0 11 22 33 44 55 66 77"),
       "cubevm run --device vulkan runs vadd (%.200s)", out);
    /* Pointer comparisons: as offsets into their own buffers, every buffer's pointer was
     * null and two buffers' equal (llm.c's `if (mean != nullptr)` was never taken) */
    const char *tmp = getenv("TEST_TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/ptrcmp.cu", tmp && *tmp ? tmp : "/tmp");
    FILE *src = fopen(path, "w");
    if (src) {
        fputs("__global__ void k(int *a, int *b, int *out, int f)\n{\n    int *p = f ? a : b;\n"
              "    out[0] = a == b;\n    out[1] = p != nullptr;\n    out[2] = out != nullptr;\n"
              "    out[3] = a == p;\n}\n", src);
        fclose(src);
    }
    snprintf(cmd, sizeof cmd, "'%s' run '%s' --device vulkan a=zeros:4 b=zeros:4 out=zeros:4 f=1 "
             "--print out 2>&1", bin, path);
    p = popen(cmd, "r");
    n = p ? fread(out, 1, sizeof out - 1, p) : 0;
    out[n] = 0;
    ok(p && pclose(p) == 0 && strstr(out, "out: 0 1 1 1"),
       "pointer comparisons on vulkan: buffers differ from each other and from null (%.200s)", out);
    /* round keeps a zero's sign (-0.3 rounds to -0: 0x80000000), and fmaxf/fminf of two NaNs
     * give the canonical NaN (0x7fc00000), as on the cpu (docs/numerics.md) */
    snprintf(path, sizeof path, "%s/roundnan.cu", tmp && *tmp ? tmp : "/tmp");
    if ((src = fopen(path, "w")) != NULL) {
        fputs("__global__ void k(unsigned *out, float m, float z)\n{\n"
              "    float n1 = __uint_as_float(0x7fc00001u), n2 = __uint_as_float(0xffc00000u);\n"
              "    out[0] = __float_as_uint(roundf(m)); out[1] = __float_as_uint(roundf(z));\n"
              "    out[2] = __float_as_uint(fmaxf(n1, n2)); out[3] = __float_as_uint(fminf(n2, n1));\n}\n",
              src);
        fclose(src);
    }
    snprintf(cmd, sizeof cmd, "'%s' run '%s' --device vulkan out=zeros:4 m=-0.3 z=-0.0 --print out 2>&1", bin, path);
    p = popen(cmd, "r");
    n = p ? fread(out, 1, sizeof out - 1, p) : 0;
    out[n] = 0;
    ok(p && pclose(p) == 0 && strstr(out, "out: 2147483648 2147483648 2143289344 2143289344"),
       "vulkan: roundf(-0.3) and roundf(-0) are -0, fmaxf/fminf of two NaNs the canonical NaN (%.200s)", out);
    /* Every option of `cubevm run` on vulkan: honoured, or refused saying why. */
    static const struct { const char *opts; int status; const char *want; } rows[] = {
        {"--timeout 5 --unchecked --shared 64 --plane-width 8", 0, "c: 0 11 22"},
        {"--kernel vadd --profile lavapipe --schedule parallel", 0, "c: 0 11 22"},
        {"--steps 1000", 1, "cannot count steps"},
        {"--racecheck", 1, "the vulkan device cannot check for data races"},
        {"--initcheck", 1, "the vulkan device cannot check for uninitialized reads"},
        {"--threads 2", 1, "cannot run the cubes on 2 worker threads"},
        {"--schedule sequential", 1, "cannot follow a sequential schedule"},
        {"--schedule random --seed 3", 1, "cannot follow a random schedule"},
        {"--profile sm_80", 1, "profile 'sm_80' describes another target"},
        {"--plane-width 3", 1, "power of two"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (!lvp && (strstr(rows[i].opts, "lavapipe") || strstr(rows[i].opts, "width 8"))) {
            skip("cubevm run --device vulkan %s: lavapipe's own", rows[i].opts);
            continue;
        }
        snprintf(cmd, sizeof cmd, "'%s' run docs/examples/vadd.cbs --device vulkan --grid 1 "
                 "--block 8 a=@docs/examples/vadd_a.npy b=@docs/examples/vadd_b.npy c=zeros:8 n=8 "
                 "--print c %s 2>&1", bin, rows[i].opts);
        p = popen(cmd, "r");
        n = p ? fread(out, 1, sizeof out - 1, p) : 0;
        out[n] = 0;
        int rc = p ? pclose(p) : -1;
        ok((rc == 0) == (rows[i].status == 0) && strstr(out, rows[i].want),
           "cubevm run --device vulkan %s: %.200s", rows[i].opts, out);
    }
    /* No driver: `cubevm devices` says vulkan is unavailable and why. */
    snprintf(cmd, sizeof cmd, "VK_DRIVER_FILES=/nonexistent/icd.json '%s' devices 2>&1", bin);
    p = popen(cmd, "r");
    n = p ? fread(out, 1, sizeof out - 1, p) : 0;
    out[n] = 0;
    ok(p && pclose(p) == 0 && strstr(out, "vulkan: unavailable: ") && strstr(out, "no driver"),
       "cubevm devices without a driver: %.200s", strstr(out, "vulkan") ? strstr(out, "vulkan") : out);
    /* A launch past its timeout: the CLI reports it and leaves at once (with
     * _exit: a driver may wait for the running dispatch at exit). */
    char spin[128];
    snprintf(spin, sizeof spin, "%s/spin.cbs", tmpdir);
    FILE *f = fopen(spin, "w");
    if (!f || fputs(spin_cbs, f) < 0 || fclose(f) != 0) {
        ok(0, "write %s", spin);
        return;
    }
    snprintf(cmd, sizeof cmd, "timeout 60 '%s' run '%s' --device vulkan --grid 1024 --block 64 "
             "--timeout 0.3 stop=zeros:1 count=zeros:1 2>&1", bin, spin);
    double t0 = seconds();
    p = popen(cmd, "r");
    n = p ? fread(out, 1, sizeof out - 1, p) : 0;
    out[n] = 0;
    int rc = p ? pclose(p) : -1;
    double dt = seconds() - t0;
    ok(WIFEXITED(rc) && WEXITSTATUS(rc) == 1 && strstr(out, "did not finish within its timeout") && dt < 30,
       "cubevm run past --timeout 0.3: exit 1 after %.1f s: %.200s", dt, out);
}

/* ---- f32 atomic add: OpAtomicFAddEXT where the device has it, a CAS loop otherwise ---- */

/* Every unit adds its (integer-valued) position to global slot t%4 and shared slot t%4;
 * after the cube barrier units 0..3 add the cube's shared totals to global slots 4..7. */
static const char fadd_cbs[] =
    ".kernel fadd\n.param out buffer f32 readwrite\n.shared 16\n"
    ".reg u32 %t, %three, %four\n.reg i32 %slot, %c4\n.reg f32 %v, %old, %zero\n.reg i64 %off\n"
    ".reg ptr.global %p\n.reg ptr.shared %q\n.reg bool %lo\n"
    "    sreg.u32 %t, unit_pos.x\n    const.u32 %three, 3\n    const.u32 %four, 4\n"
    "    const.i32 %c4, 4\n    const.f32 %zero, 0.0\n    cvt.f32 %v, %t\n"
    "    lt.u32 %lo, %t, %four\n    and.u32 %t, %t, %three\n    cvt.i32 %slot, %t\n"
    "    mul.i32 %slot, %slot, %c4\n    const.ptr.shared %q, 0\n    ptr.add.ptr.shared %q, %q, %slot\n"
    "    if %lo\n        st.f32 [%q], %zero\n    end\n    sync_cube\n"
    "    atom.add.relaxed.cube.f32 %old, [%q], %v\n"
    "    cvt.i64 %off, %slot\n    param.ptr.global %p, out, 0\n    ptr.add.ptr.global %p, %p, %off\n"
    "    atom.add.relaxed.device.f32 %old, [%p], %v\n    sync_cube\n"
    "    if %lo\n        ld.f32 %v, [%q]\n        const.i64 %off, 16\n"
    "        ptr.add.ptr.global %p, %p, %off\n        atom.add.relaxed.device.f32 %old, [%p], %v\n"
    "    end\n    return\n.end\n";

static cvm_status run_fadd(cvm_device *dev, float *got, cvm_diag *d)
{
    void *bytes = NULL;
    size_t size = 0;
    cvm_module *m = NULL;
    const cvm_kernel *k = NULL;
    cvm_buffer *b = NULL;
    cvm_stream *s = cvm_device_stream(dev);
    cvm_status st = cvm_assemble(fadd_cbs, sizeof fadd_cbs - 1, "fadd.cbs", &bytes, &size, d);
    st = st ? st : cvm_module_load(dev, bytes, size, &m, d);
    st = st ? st : cvm_kernel_get(m, "fadd", &k, d);
    st = st ? st : cvm_buffer_create(dev, 8 * sizeof(float), "out", &b, d);
    st = st ? st : cvm_buffer_fill(s, b, 0, 8 * sizeof(float), 0, d);
    cvm_arg arg = {CVM_ARG_BUFFER, b, 0, NULL, 0};
    cvm_launch_config cfg = {.grid = {8, 1, 1}, .block = {256, 1, 1}};
    st = st ? st : cvm_launch(s, k, &cfg, &arg, 1, d);
    st = st ? st : cvm_stream_sync(s, d);
    st = st ? st : cvm_buffer_read(s, b, 0, got, 8 * sizeof(float), d);
    cvm_buffer_free(b);
    cvm_module_free(m);
    cvm_free_bytes(bytes);
    return st;
}

static void test_float_atomics(uint32_t features)
{
    float want[8] = {0}, cpu_got[8], got[8];
    for (uint32_t c = 0; c < 8; c++) /* by hand; sums below 2^24 are exact in any order */
        for (uint32_t t = 0; t < 256; t++)
            want[t % 4] += (float)t, want[4 + t % 4] += (float)t;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    if (vk_test_on_lavapipe())
        ok(features & CVM_FEATURE_ATOMIC_F32_ADD, "lavapipe reports f32 atomic add");
    else
        diag("f32 atomic add: %s", features & CVM_FEATURE_ATOMIC_F32_ADD ? "reported" : "not reported");
    if (ok(run_fadd(cpu, cpu_got, &d) == CVM_OK, "f32 atomic add on cpu (%s)", d.message))
        ok(!memcmp(cpu_got, want, sizeof want), "cpu: f32 atomic sums are exact");
    if (ok(run_fadd(vk, got, &d) == CVM_OK, "f32 atomic add on vulkan (OpAtomicFAddEXT) (%s)",
           d.message))
        ok(!memcmp(got, want, sizeof want), "vulkan (extension): global and shared sums match cpu "
           "(%g %g %g %g %g %g %g %g)", got[0], got[1], got[2], got[3], got[4], got[5], got[6], got[7]);
    cvm_device *nf = NULL;
    setenv("CUBEVM_VK_NO_FLOAT_ATOMIC", "1", 1);
    cvm_status st = cvm_device_open("vulkan", NULL, &nf, &d);
    unsetenv("CUBEVM_VK_NO_FLOAT_ATOMIC");
    if (!ok(st == CVM_OK, "open vulkan without the float-add extension (%s)", d.message))
        return;
    cvm_device_limits lim;
    cvm_device_limits_get(nf, &lim, &d);
    ok(!(lim.features & CVM_FEATURE_ATOMIC_F32_ADD), "CUBEVM_VK_NO_FLOAT_ATOMIC: no f32 atomic add");
    memset(got, 0, sizeof got);
    if (ok(run_fadd(nf, got, &d) == CVM_OK, "f32 atomic add on vulkan (CAS loop) (%s)", d.message))
        ok(!memcmp(got, want, sizeof want), "vulkan (CAS loop): global and shared sums match cpu");
    cvm_device_close(nf);
}

int main(void)
{
    setenv("VK_DRIVER_FILES", vk_test_driver(), 1);
    setenv("XDG_RUNTIME_DIR", "/tmp", 1);
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cvm-test-vulkan.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        printf("1..0 # SKIP cannot create a temporary directory\n");
        return 0;
    }
    setenv("MESA_SHADER_CACHE_DIR", tmpdir, 1); /* a cache per test run */
    setenv("CUBEVM_CACHE_DIR", tmpdir, 1);      /* the pipeline cache too */
    setenv("CUBEVM_VK_VALIDATION", "1", 1);     /* the Khronos layer; any message fails */
    cvm_diag d;
    /* A loader without a driver: "unavailable" with the reason, not a crash. */
    setenv("VK_DRIVER_FILES", "/nonexistent/cubevm_icd.json", 1);
    cvm_status st = cvm_device_open("vulkan", NULL, &vk, &d);
    ok(st == CVM_UNAVAILABLE && vk == NULL && strstr(d.message, "not available"),
       "no driver: %s", d.message);
    setenv("VK_DRIVER_FILES", vk_test_driver(), 1);
    st = cvm_device_open("vulkan", NULL, &vk, &d);
    if (st == CVM_UNAVAILABLE && strstr(d.message, "CUBEVM_VK_VALIDATION")) {
        skip("the validation layer: %s", d.message); /* the rest still runs, unchecked */
        unsetenv("CUBEVM_VK_VALIDATION");
        st = cvm_device_open("vulkan", NULL, &vk, &d);
    }
    if (st == CVM_UNAVAILABLE) { /* TAP lines were printed already: no "1..0" plan */
        skip("vulkan is not available here: %s", d.message);
        return done_testing();
    }
    ok(st == CVM_OK, "open vulkan (%s)", d.message);
    if (st != CVM_OK)
        return done_testing();
    cvm_device_limits lim;
    cvm_device_limits_get(vk, &lim, &d);
    diag("%s (%s): plane width %u [%u, %u], cube <= %u, shared %u bytes, features 0x%x",
         lim.device, lim.profile, lim.default_plane_width, lim.plane_width_min,
         lim.plane_width_max, lim.max_cube_units, lim.shared_bytes, lim.features);
    const cvm_spv_target *tg = &vkd(vk)->target;
    diag("subnormals kept on request (DenormPreserve): f16 %d, f32 %d, f64 %d", tg->denorm_preserve16,
         tg->denorm_preserve32, tg->denorm_preserve64);
    is_str(lim.device, "vulkan:0", "the device is vulkan:0");
    ok(!!(lim.features & CVM_FEATURE_F32_SUBNORMALS) == (vk_test_on_lavapipe() || tg->denorm_preserve32),
       "f32 subnormals reported as kept exactly where DenormPreserve 32 is offered, or on lavapipe");
    if (vk_test_on_lavapipe()) {
        is_str(lim.profile, "lavapipe", "lavapipe is recognized");
        is_int(lim.default_plane_width, 8, "lavapipe's subgroup size is 8 (PLATFORM.md)");
        is_int(lim.shared_bytes, 32768, "32 KiB of shared memory");
    }
    is_int(lim.max_cube_units, 1024, "1024 units per cube");
    ok(lim.features & CVM_FEATURE_F64, "f64 is reported");
    cvm_device *v1 = NULL;
    is_int(cvm_device_open("vulkan:7", NULL, &v1, &d), CVM_UNAVAILABLE, "vulkan:7: %s", d.message);
    is_int(cvm_device_open("vulkan:x", NULL, &v1, &d), CVM_INVALID_ARGUMENT, "vulkan:x: %s",
           d.message);
    if (cvm_device_open("cpu", NULL, &cpu, &d) != CVM_OK)
        return ok(0, "open cpu (%s)", d.message), done_testing();
    test_buffers(vk);
    test_memory_choice();
    test_staged();
    test_glsl();
    test_vadd();
    test_wide_grid();
    test_errors();
    test_pipelines();
    test_streams();
    test_float_atomics(lim.features);
    conformance(lim.features, lim.default_plane_width);
    test_cli();
    test_cache();
    char first[512];
    uint32_t msgs = cvm_vk_validation_messages(first, sizeof first);
    ok(msgs == 0, "the validation layer stayed silent (%u messages; first: %.300s)", msgs,
       msgs ? first : "none");
    cvm_device_close(cpu);
    if (vk)
        cvm_device_close(vk);
    test_timeout();
    char cmd[256];
    /* The timed-out device's driver threads may still be writing Mesa's shader cache. */
    snprintf(cmd, sizeof cmd, "rm -rf %s 2>/dev/null || (sleep 1; rm -rf %s)", tmpdir, tmpdir);
    if (system(cmd) != 0)
        diag("could not remove %s", tmpdir);
    return done_testing();
}
