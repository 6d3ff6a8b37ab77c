/*
 * test_vulkan_params.c - launch plumbing of the vulkan device (lavapipe)
 * beyond push constants: by-value parameter blocks larger than the 128
 * bytes of push constants go through a per-launch uniform buffer (the
 * translated module passes spirv-val; the results match host arithmetic
 * and the cpu device; with buffer device address too), and `trap` / `assert` come back from the record
 * buffer as the launch's kernel fault, with the cpu device's status,
 * message and fault record at the same plane width. Skipped with the
 * reason when Vulkan is unavailable; the validation layer must stay silent.
 */
#include "../backends/vulkan/vk.h"
#include "tap.h"
#include "vk_env.h"

#include <math.h>
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

/*
 * The same struct with buffer device address: a pointer selected between
 * a (even units) and b (odd units) has no single buffer, so buffer
 * addresses stay in the push constants and the struct moves to the
 * uniform buffer: a[i] = s.w49 + 2i, b[i] = s.w49 + 2i + 1.
 */
static const char bigbda_cbs[] =
    ".kernel bigbda\n"
    ".param s struct 200 8\n"
    ".param a buffer u32 write\n"
    ".param b buffer u32 write\n"
    ".reg u32 %t, %w, %h, %one, %z\n"
    ".reg bool %c\n"
    ".reg i64 %off, %four\n"
    ".reg ptr.global %pa, %pb, %p\n"
    "    sreg.u32 %t, abs_pos.x\n"
    "    param.u32 %w, s, 196\n"
    "    add.u32 %w, %w, %t\n"
    "    const.u32 %one, 1\n"
    "    const.u32 %z, 0\n"
    "    const.i64 %four, 4\n"
    "    and.u32 %h, %t, %one\n"
    "    eq.u32 %c, %h, %z\n"
    "    param.ptr.global %pa, a, 0\n"
    "    param.ptr.global %pb, b, 0\n"
    "    select.ptr.global %p, %pa, %pb, %c\n"
    "    shr.u32 %h, %t, %one\n"
    "    cvt.i64 %off, %h\n"
    "    mul.i64 %off, %off, %four\n"
    "    ptr.add.ptr.global %p, %p, %off\n"
    "    st.u32 [%p], %w\n"
    "    return\n"
    ".end\n";

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
    cvm_status st = vk_test_load(dev, big_cbs, &m, d);
    st = st ? st : cvm_kernel_get(m, "big", &k, d);
    st = st ? st : cvm_buffer_create(dev, BIG_UNITS * 16, "out", &bo, d);
    cvm_arg a[3] = {{CVM_ARG_BYTES, NULL, 0, sb, sizeof sb},
                    {CVM_ARG_BYTES, NULL, 0, &kv, 4},
                    {CVM_ARG_BUFFER, bo, 0, NULL, 0}};
    cvm_launch_config cfg = {.grid = {2, 1, 1}, .block = {32, 1, 1}};
    st = st ? st : cvm_launch(s, k, &cfg, a, 3, d);
    st = st ? st : cvm_stream_sync(s, d);
    st = st ? st : cvm_buffer_read(s, bo, 0, out, BIG_UNITS * 16, d);
    cvm_buffer_free(bo);
    cvm_module_free(m);
    return st;
}

/* Whether a SPIR-V module declares capability `cap` and a variable in storage class `sc`. */
static void scan_module(const uint32_t *w, size_t n, uint32_t cap, uint32_t sc, int *has_cap,
                        int *has_sc)
{
    for (size_t i = 5; i < n;) {
        uint32_t wc = w[i] >> 16, op = w[i] & 0xffff;
        if (wc == 0 || i + wc > n)
            break;
        if (op == 17 && wc == 2 && w[i + 1] == cap) /* OpCapability */
            *has_cap = 1;
        if (op == 59 && wc >= 4 && w[i + 3] == sc) /* OpVariable type id storage-class */
            *has_sc = 1;
        i += wc;
    }
}

static int want_cap, want_sc; /* scan_module of the last validate() (bda, Uniform) */

/* spirv-val on kernel `kn` of src, translated; 1 when valid (or -1: no spirv-val). */
static int validate(const char *src, const char *kn, char *why, size_t n)
{
    void *bytes = NULL, *words = NULL;
    size_t size = 0, wsize = 0;
    cvm_diag d;
    int r = 0;
    if (system("command -v spirv-val > /dev/null 2>&1") != 0)
        return -1;
    cvm_status st = cvm_assemble(src, strlen(src), "test.cbs", &bytes, &size, &d);
    st = st ? st : cvm_spirv_compile(bytes, size, kn, NULL, &words, &wsize, &d);
    want_cap = want_sc = 0;
    if (!st) /* PhysicalStorageBufferAddresses, Uniform */
        scan_module(words, wsize / 4, 5347, 2, &want_cap, &want_sc);
    if (st) {
        snprintf(why, n, "%.200s", d.message);
    } else {
        char path[128], cmd[400];
        snprintf(path, sizeof path, "%s/%s.spv", tmpdir, kn);
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

static cvm_status run_bigbda(cvm_device *dev, uint32_t *out, cvm_diag *d)
{
    cvm_module *m = NULL;
    const cvm_kernel *k = NULL;
    cvm_buffer *ba = NULL, *bb = NULL;
    cvm_stream *s = cvm_device_stream(dev);
    uint8_t sb[200];
    big_struct(sb);
    cvm_status st = vk_test_load(dev, bigbda_cbs, &m, d);
    st = st ? st : cvm_kernel_get(m, "bigbda", &k, d);
    st = st ? st : cvm_buffer_create(dev, BIG_UNITS * 2, "a", &ba, d);
    st = st ? st : cvm_buffer_create(dev, BIG_UNITS * 2, "b", &bb, d);
    cvm_arg a[3] = {{CVM_ARG_BYTES, NULL, 0, sb, sizeof sb},
                    {CVM_ARG_BUFFER, ba, 0, NULL, 0},
                    {CVM_ARG_BUFFER, bb, 0, NULL, 0}};
    cvm_launch_config cfg = {.grid = {2, 1, 1}, .block = {32, 1, 1}};
    st = st ? st : cvm_launch(s, k, &cfg, a, 3, d);
    st = st ? st : cvm_stream_sync(s, d);
    st = st ? st : cvm_buffer_read(s, ba, 0, out, BIG_UNITS * 2, d);
    st = st ? st : cvm_buffer_read(s, bb, 0, out + BIG_UNITS / 2, BIG_UNITS * 2, d);
    cvm_buffer_free(ba);
    cvm_buffer_free(bb);
    cvm_module_free(m);
    return st;
}

/* The struct in the uniform buffer while buffer addresses fill the push constants. */
static void test_big_bda(void)
{
    static uint32_t ov[BIG_UNITS], oc[BIG_UNITS];
    char why[256] = "";
    cvm_diag d;
    int v = validate(bigbda_cbs, "bigbda", why, sizeof why);
    if (v < 0)
        skip("spirv-val is not installed");
    else
        ok(v == 1 && want_cap && want_sc, "a 200-byte struct with buffer device address: "
           "spirv-val (%s), addresses (%d), a Uniform block (%d)", why, want_cap, want_sc);
    if (!ok(run_bigbda(vk, ov, &d) == CVM_OK, "it runs on vulkan (%s)", d.message))
        return;
    ok(run_bigbda(cpu, oc, &d) == CVM_OK, "the same on cpu (%s)", d.message);
    uint8_t sb[200];
    uint32_t w49;
    big_struct(sb);
    memcpy(&w49, sb + 196, 4);
    int bad = -1;
    for (uint32_t i = 0; i < BIG_UNITS / 2 && bad < 0; i++)
        if (ov[i] != w49 + 2 * i || ov[BIG_UNITS / 2 + i] != w49 + 2 * i + 1)
            bad = (int)i;
    ok(bad < 0, "a[i] = s.w49 + 2i, b[i] = s.w49 + 2i + 1 (first mismatch %d)", bad);
    ok(!memcmp(ov, oc, sizeof ov), "vulkan and cpu agree");
}

static void test_big_params(void)
{
    static uint32_t ov[BIG_UNITS * 4], oc[BIG_UNITS * 4];
    char why[256] = "";
    cvm_diag d;
    int v = validate(big_cbs, "big", why, sizeof why);
    if (v < 0)
        skip("spirv-val is not installed");
    else
        ok(v == 1 && want_sc, "a 200-byte struct parameter: the module passes spirv-val (%s) and "
           "reads a Uniform block (%d)", why, want_sc);
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

/*
 * out[t] = t + 1 for every unit but the one at abs_pos.x == n, which traps
 * (in an if, then in a loop) or fails an assert; the others go on, and
 * a print before the fault still comes out.
 */
static const char fault_cbs[] =
    ".kernel trp\n"
    ".param n scalar u32\n"
    ".param out buffer u32 write\n"
    ".reg u32 %t, %v, %one\n"
    ".reg bool %p\n"
    ".reg i64 %off, %four\n"
    ".reg ptr.global %q\n"
    "    sreg.u32 %t, abs_pos.x\n"
    "    param.u32 %v, n, 0\n"
    "    const.u32 %one, 1\n"
    "    eq.u32 %p, %t, %v\n"
    "    if %p\n"
    "        print \"unit %u traps\", %t\n"
    "        loop\n"
    "            trap \"boom\"\n"
    "        continuing\n"
    "            break_if %p\n"
    "        end\n"
    "    end\n"
    "    add.u32 %v, %t, %one\n"
    "    const.i64 %four, 4\n"
    "    cvt.i64 %off, %t\n"
    "    mul.i64 %off, %off, %four\n"
    "    param.ptr.global %q, out, 0\n"
    "    ptr.add.ptr.global %q, %q, %off\n"
    "    st.u32 [%q], %v\n"
    "    return\n"
    ".end\n"
    ".kernel asrt\n"
    ".param n scalar u32\n"
    ".param out buffer u32 write\n"
    ".reg u32 %t, %v, %one\n"
    ".reg bool %p\n"
    ".reg i64 %off, %four\n"
    ".reg ptr.global %q\n"
    "    sreg.u32 %t, abs_pos.x\n"
    "    param.u32 %v, n, 0\n"
    "    const.u32 %one, 1\n"
    "    ne.u32 %p, %t, %v\n"
    "    assert %p, \"t != n\"\n"
    "    add.u32 %v, %t, %one\n"
    "    const.i64 %four, 4\n"
    "    cvt.i64 %off, %t\n"
    "    mul.i64 %off, %off, %four\n"
    "    param.ptr.global %q, out, 0\n"
    "    ptr.add.ptr.global %q, %q, %off\n"
    "    st.u32 [%q], %v\n"
    "    return\n"
    ".end\n";

/*
 * A trap, then a barrier and a 32-wide shfl.xor (emulated through shared
 * memory on 8-wide subgroups): the units that go on must still meet at
 * every barrier of the emulation and the sync_cube, or the launch hangs.
 * (Unit 36's partner trapped: what it reads is not defined.)
 */
static const char trapsync_cbs[] =
    ".kernel trpsync\n"
    ".param n scalar u32\n"
    ".param out buffer u32 write\n"
    ".plane_width 32\n"
    ".reg u32 %t, %v, %w, %one, %mask\n"
    ".reg bool %p\n"
    ".reg i64 %off, %four\n"
    ".reg ptr.global %q\n"
    "    sreg.u32 %t, abs_pos.x\n"
    "    param.u32 %v, n, 0\n"
    "    const.u32 %one, 1\n"
    "    const.u32 %mask, 0xffffffff\n"
    "    eq.u32 %p, %t, %v\n"
    "    if %p\n"
    "        trap \"boom\"\n"
    "    end\n"
    "    sync_cube\n"
    "    shfl.xor.u32 %w, %t, %one, %mask\n"
    "    const.i64 %four, 4\n"
    "    cvt.i64 %off, %t\n"
    "    mul.i64 %off, %off, %four\n"
    "    param.ptr.global %q, out, 0\n"
    "    ptr.add.ptr.global %q, %q, %off\n"
    "    st.u32 [%q], %w\n"
    "    return\n"
    ".end\n";

enum { FAULT_UNITS = 3 * 32 };

typedef struct fault_run {
    cvm_status launch, sync, after;  /* the launch, its sync, a clean launch after it */
    cvm_diag d;                      /* the sync's diagnostic */
    uint32_t out[FAULT_UNITS];
    char text[256];                  /* the print output */
} fault_run;

/* Kernel `name` with n = 37 (the faulting unit), then with n = 1000 (none). */
static void run_fault(cvm_device *dev, const char *src, const char *name, uint32_t width,
                      fault_run *r)
{
    cvm_module *m = NULL;
    const cvm_kernel *k = NULL;
    cvm_buffer *bo = NULL;
    cvm_stream *s = cvm_device_stream(dev);
    cvm_diag d;
    uint32_t n = 37;
    memset(r, 0, sizeof *r);
    cvm_status st = vk_test_load(dev, src, &m, &d);
    st = st ? st : cvm_kernel_get(m, name, &k, &d);
    st = st ? st : cvm_buffer_create(dev, FAULT_UNITS * 4, "out", &bo, &d);
    cvm_arg a[2] = {{CVM_ARG_BYTES, NULL, 0, &n, 4}, {CVM_ARG_BUFFER, bo, 0, NULL, 0}};
    cvm_launch_config cfg = {.grid = {3, 1, 1}, .block = {32, 1, 1}, .plane_width = width};
    r->launch = st ? st : cvm_launch(s, k, &cfg, a, 2, &d);
    if (r->launch) {
        r->d = d;
        goto done;
    }
    r->sync = cvm_stream_sync(s, &r->d);
    snprintf(r->text, sizeof r->text, "%s", cvm_stream_output(s));
    if (cvm_buffer_read(s, bo, 0, r->out, sizeof r->out, &d) != CVM_OK)
        r->out[0] = 0xdeadbeefu;
    n = 1000;
    r->after = cvm_launch(s, k, &cfg, a, 2, &d);
    r->after = r->after ? r->after : cvm_stream_sync(s, &d);
done:
    cvm_buffer_free(bo);
    cvm_module_free(m);
}

static void check_fault(const char *src, const char *name, uint32_t width, const char *what)
{
    static fault_run v, c;
    char why[256] = "";
    int val = validate(src, name, why, sizeof why);
    if (val < 0)
        skip("spirv-val is not installed");
    else
        ok(val == 1, "%s: the module passes spirv-val (%s)", name, why);
    run_fault(vk, src, name, width, &v);
    run_fault(cpu, src, name, width, &c);
    if (!ok(v.launch == CVM_OK && c.launch == CVM_OK, "%s: launched on vulkan and cpu (%s / %s)",
            name, v.d.message, c.d.message))
        return;
    ok(v.sync == CVM_FAULT && c.sync == CVM_FAULT, "%s: the sync reports a kernel fault on both "
       "(%s / %s)", name, cvm_status_str(v.sync), cvm_status_str(c.sync));
    char want[160];
    snprintf(want, sizeof want, "%s in kernel '%s' cube (1,0,0) unit (5,0,0) plane 0 lane 5 pc ",
             what, name); /* unit 37 is in the cube's first plane at width 8 and 32 */
    ok(!strncmp(v.d.message, want, strlen(want)), "%s: vulkan's message names the unit: %s", name,
       v.d.message);
    ok(!strcmp(v.d.message, c.d.message), "%s: the same message as the cpu device's (%s)", name,
       c.d.message);
    const cvm_fault *fv = &v.d.fault, *fc = &c.d.fault;
    ok(v.d.has_fault && c.d.has_fault && !strcmp(fv->kernel, fc->kernel) &&
       !memcmp(fv->cube, fc->cube, sizeof fv->cube) && !memcmp(fv->unit, fc->unit, sizeof fv->unit) &&
       fv->plane == fc->plane && fv->lane == fc->lane && fv->pc == fc->pc && fv->line == fc->line &&
       !strcmp(fv->file, fc->file) && fv->count == 1 && fc->count == 1,
       "%s: the fault record matches the cpu device's (pc %u/%u, count %u/%u)", name, fv->pc,
       fc->pc, fv->count, fc->count);
    int bad = -1;
    for (uint32_t t = 0; t < FAULT_UNITS && bad < 0; t++)
        if (t != 37 && !(width == 32 && t == 36) && v.out[t] != (width == 32 ? t ^ 1 : t + 1))
            bad = (int)t;
    ok(bad < 0 && v.out[37] == 0, "%s: on vulkan the faulting unit stopped, the others finished "
       "(first wrong unit %d, unit 37 wrote %u)", name, bad, v.out[37]);
    if (!strcmp(name, "trp"))
        ok(!strcmp(v.text, "unit 37 traps\n"), "trp: its print before the trap came out (%s)",
           v.text);
    ok(v.after == CVM_OK && c.after == CVM_OK, "%s: a launch without a fault after the sync "
       "succeeds (%s / %s)", name, cvm_status_str(v.after), cvm_status_str(c.after));
}

/* A trap in a loop's continuing part is refused naming the op. */
static void test_fault_rejected(void)
{
    static const char src[] = ".kernel k\n.reg bool %p\n    loop\n    continuing\n"
                              "        const.bool %p, 1\n        trap \"x\"\n        break_if %p\n"
                              "    end\n    return\n.end\n";
    void *bytes = NULL, *words = NULL;
    size_t size = 0, wsize = 0;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_status st = cvm_assemble(src, strlen(src), "cont.cbs", &bytes, &size, &d);
    if (!st)
        st = cvm_spirv_compile(bytes, size, "k", NULL, &words, &wsize, &d);
    ok(st == CVM_UNSUPPORTED && strstr(d.message, "'trap' inside the continuing part of a loop"),
       "a trap in a loop's continuing part is refused naming the op (%s)", d.message);
    cvm_free_bytes(bytes);
    cvm_free_bytes(words);
}

/* lavapipe ends a shader's loops after 65535 back edges in all: a loop of
 * 65534 iterations runs whole, one of 70000 faults naming the loop instead
 * of storing the count the driver cut it at (on drivers without the
 * limit both run whole). */
static const char count_cbs[] =
    ".kernel cnt\n"
    ".param n scalar u32\n"
    ".param out buffer u32 write\n"
    ".reg u32 %i, %n, %one\n"
    ".reg bool %d\n"
    ".reg ptr.global %q\n"
    "    param.u32 %n, n, 0\n"
    "    const.u32 %i, 0\n"
    "    const.u32 %one, 1\n"
    "    loop\n"
    "        ge.u32 %d, %i, %n\n"
    "        if %d\n"
    "            break\n"
    "        end\n"
    "        add.u32 %i, %i, %one\n"
    "    end\n"
    "    param.ptr.global %q, out, 0\n"
    "    st.u32 [%q], %i\n"
    "    return\n"
    ".end\n";

static void test_loop_limit(void)
{
    cvm_device_limits lim;
    memset(&lim, 0, sizeof lim);
    cvm_device_limits_get(vk, &lim, NULL);
    const bool lavapipe = strcmp(lim.profile, "lavapipe") == 0;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_module *m = NULL;
    const cvm_kernel *k = NULL;
    cvm_buffer *bo = NULL;
    cvm_stream *s = cvm_device_stream(vk);
    cvm_status st = vk_test_load(vk, count_cbs, &m, &d);
    st = st ? st : cvm_kernel_get(m, "cnt", &k, &d);
    st = st ? st : cvm_buffer_create(vk, 4, "out", &bo, &d);
    const uint32_t ns[2] = {65534, 70000};
    for (int i = 0; i < 2 && !st; i++) {
        uint32_t n = ns[i], got = 0;
        cvm_arg a[2] = {{CVM_ARG_BYTES, NULL, 0, &n, 4}, {CVM_ARG_BUFFER, bo, 0, NULL, 0}};
        cvm_launch_config cfg = {.grid = {1, 1, 1}, .block = {1, 1, 1}};
        cvm_status ls = cvm_launch(s, k, &cfg, a, 2, &d);
        ls = ls ? ls : cvm_stream_sync(s, &d);
        if (!ls)
            cvm_buffer_read(s, bo, 0, &got, 4, &d);
        if (i == 0 || !lavapipe)
            ok(ls == CVM_OK && got == n, "a loop of %u iterations runs whole (%s, count %u)", n,
               cvm_status_str(ls), got);
        else
            ok(ls == CVM_FAULT && strstr(d.message, "loop limit") && d.has_fault && d.fault.pc == 3,
               "lavapipe: a loop of %u iterations faults at the loop instead of stopping early (%s)", n,
               d.message);
    }
    ok(st == CVM_OK, "loop limit kernel set up (%s)", st ? d.message : "ok");
    cvm_buffer_free(bo);
    cvm_module_free(m);
}

/* A negative or NaN timeout is refused on both devices (vulkan took it as
 * none). */
static void test_bad_timeout(void)
{
    cvm_device *devs[2] = {cpu, vk};
    for (int i = 0; i < 2; i++) {
        cvm_diag d;
        memset(&d, 0, sizeof d);
        cvm_module *m = NULL;
        const cvm_kernel *k = NULL;
        cvm_buffer *bo = NULL;
        cvm_status st = vk_test_load(devs[i], count_cbs, &m, &d);
        st = st ? st : cvm_kernel_get(m, "cnt", &k, &d);
        st = st ? st : cvm_buffer_create(devs[i], 4, "out", &bo, &d);
        const double bad[3] = {-1.0, -1e-300, NAN};
        for (int j = 0; j < 3 && !st; j++) {
            uint32_t n = 1;
            cvm_arg a[2] = {{CVM_ARG_BYTES, NULL, 0, &n, 4}, {CVM_ARG_BUFFER, bo, 0, NULL, 0}};
            cvm_launch_config cfg = {.grid = {1, 1, 1}, .block = {1, 1, 1}};
            cfg.timeout_s = bad[j];
            cvm_status ls = cvm_launch(cvm_device_stream(devs[i]), k, &cfg, a, 2, &d);
            ok(ls == CVM_INVALID_ARGUMENT && strstr(d.message, "timeout must be >= 0 seconds"),
               "%s: a timeout of %g is refused (%s: %s)", i ? "vulkan" : "cpu", bad[j], cvm_status_str(ls),
               d.message);
        }
        ok(st == CVM_OK, "timeout kernel set up (%s)", st ? d.message : "ok");
        cvm_buffer_free(bo);
        cvm_module_free(m);
    }
}

static void test_faults(void)
{
    check_fault(fault_cbs, "trp", 8, "trap: boom");
    check_fault(fault_cbs, "asrt", 8, "assertion failed: t != n");
    check_fault(trapsync_cbs, "trpsync", 32, "trap: boom");
    test_fault_rejected();
}

int main(void)
{
    if (!vk_test_env(tmpdir, sizeof tmpdir, "vkpar") || !vk_test_open(&vk))
        return 0;
    cvm_diag d;
    if (cvm_device_open("cpu", NULL, &cpu, &d) != CVM_OK)
        return ok(0, "open cpu (%s)", d.message), done_testing();
    test_big_params();
    test_big_bda();
    test_faults();
    test_loop_limit();
    test_bad_timeout();
    vk_test_finish(tmpdir, cpu, vk);
    return done_testing();
}
