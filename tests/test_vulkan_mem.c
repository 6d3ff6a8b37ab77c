/*
 * test_vulkan_mem.c - global memory beyond (parameter, offset) on the
 * vulkan device (lavapipe): module __device__ variables as buffers of
 * their own (host writes and reads through cvm_module_symbol_write/read
 * between launches, atomics on them; refused by name on a device whose
 * buffers are staged), and buffer device address for global pointers that
 * are not (parameter, offset) (refused by name on a device without it),
 * and `print` through a record buffer (every argument type, line order,
 * the cpu device's lines, an overflowing launch, %s refused). The results are checked against host
 * arithmetic and against the cpu device. Skipped with the reason when
 * Vulkan is unavailable; the validation layer must stay silent.
 */
#include "../backends/vulkan/vk.h"
#include "tap.h"
#include "vk_env.h"

#include <stdint.h>
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
    cvm_status st = vk_test_load(dev, sym_cbs, &m, d);
    st = st ? st : cvm_kernel_get(m, "syms", &k, d);
    st = st ? st : cvm_buffer_create(dev, SYM_UNITS * 4, "out", &bo, d);
    cvm_arg a = {CVM_ARG_BUFFER, bo, 0, NULL, 0};
    cvm_launch_config cfg = {.grid = {3, 1, 1}, .block = {64, 1, 1}};
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

/*
 * Buffer device address: the pointer is chosen between two buffers per
 * unit (select), stored to local memory and loaded back, then used for a
 * word load, a byte store (the word's other bytes survive) and ptr.diff;
 * a __device__ counter is reached by its address too. `a` is passed at a
 * byte offset, which an address carries.
 */
static const char bda_cbs[] =
    ".global hits u32 4 4\n"
    ".kernel bdamix\n"
    ".param a buffer u32 readwrite\n"
    ".param b buffer u32 readwrite\n"
    ".param out buffer u32 write\n"
    ".local 16\n"
    ".reg u32 %t, %h, %one, %z, %v, %dv\n"
    ".reg u8 %by\n"
    ".reg bool %c\n"
    ".reg i64 %off, %four, %d, %i1\n"
    ".reg ptr.local %l\n"
    ".reg ptr.global %pa, %pb, %p, %q, %q2, %ph\n"
    "    sreg.u32 %t, unit_pos.x\n"
    "    const.u32 %one, 1\n"
    "    const.u32 %z, 0\n"
    "    const.i64 %four, 4\n"
    "    const.i64 %i1, 1\n"
    "    const.u8 %by, 90\n"
    "    and.u32 %h, %t, %one\n"
    "    eq.u32 %c, %h, %z\n"
    "    param.ptr.global %pa, a, 0\n"
    "    param.ptr.global %pb, b, 0\n"
    "    select.ptr.global %p, %pa, %pb, %c\n"
    "    const.ptr.local %l, 0\n"
    "    st.ptr.global [%l], %p\n"
    "    ld.ptr.global %q, [%l]\n"
    "    shr.u32 %h, %t, %one\n"
    "    cvt.i64 %off, %h\n"
    "    mul.i64 %off, %off, %four\n"
    "    ptr.add.ptr.global %q2, %q, %off\n"
    "    ld.u32 %v, [%q2]\n"
    "    ptr.add.ptr.global %q, %q2, %i1\n"
    "    st.u8 [%q], %by\n"
    "    sym.ptr.global %ph, hits\n"
    "    atom.add.relaxed.device.u32 %dv, [%ph], %one\n"
    "    ptr.diff.i64 %d, %q2, %p\n"
    "    cvt.u32 %dv, %d\n"
    "    add.u32 %v, %v, %dv\n"
    "    cvt.i64 %off, %t\n"
    "    mul.i64 %off, %off, %four\n"
    "    param.ptr.global %q, out, 0\n"
    "    ptr.add.ptr.global %q, %q, %off\n"
    "    st.u32 [%q], %v\n"
    "    return\n"
    ".end\n";

enum { BDA_UNITS = 64, BDA_OFF = 4 /* words */ };

static cvm_status run_bda(cvm_device *dev, uint32_t *a, uint32_t *b, uint32_t *out,
                          uint32_t *hits, cvm_diag *d)
{
    cvm_module *m = NULL;
    const cvm_kernel *k = NULL;
    cvm_buffer *ba = NULL, *bb = NULL, *bo = NULL;
    cvm_stream *s = cvm_device_stream(dev);
    size_t na = (BDA_OFF + BDA_UNITS / 2) * 4, nb = BDA_UNITS / 2 * 4;
    cvm_status st = vk_test_load(dev, bda_cbs, &m, d);
    st = st ? st : cvm_kernel_get(m, "bdamix", &k, d);
    st = st ? st : cvm_buffer_create(dev, na, "a", &ba, d);
    st = st ? st : cvm_buffer_create(dev, nb, "b", &bb, d);
    st = st ? st : cvm_buffer_create(dev, BDA_UNITS * 4, "out", &bo, d);
    st = st ? st : cvm_buffer_write(s, ba, 0, a, na, d);
    st = st ? st : cvm_buffer_write(s, bb, 0, b, nb, d);
    cvm_arg args[3] = {{CVM_ARG_BUFFER, ba, BDA_OFF * 4, NULL, 0}, {CVM_ARG_BUFFER, bb, 0, NULL, 0},
                       {CVM_ARG_BUFFER, bo, 0, NULL, 0}};
    cvm_launch_config cfg = {.grid = {1, 1, 1}, .block = {BDA_UNITS, 1, 1}};
    st = st ? st : cvm_launch(s, k, &cfg, args, 3, d);
    st = st ? st : cvm_stream_sync(s, d);
    st = st ? st : cvm_buffer_read(s, ba, 0, a, na, d);
    st = st ? st : cvm_buffer_read(s, bb, 0, b, nb, d);
    st = st ? st : cvm_buffer_read(s, bo, 0, out, BDA_UNITS * 4, d);
    st = st ? st : cvm_module_symbol_read(s, m, "hits", 0, hits, 4, d);
    cvm_buffer_free(ba);
    cvm_buffer_free(bb);
    cvm_buffer_free(bo);
    cvm_module_free(m);
    return st;
}

static void bda_inputs(uint32_t *a, uint32_t *b)
{
    for (uint32_t i = 0; i < BDA_OFF + BDA_UNITS / 2; i++)
        a[i] = 0x11223300u + i;
    for (uint32_t i = 0; i < BDA_UNITS / 2; i++)
        b[i] = 0x44556600u + i;
}

static void test_bda(void)
{
    uint32_t a[BDA_OFF + BDA_UNITS / 2], b[BDA_UNITS / 2], out[BDA_UNITS], hits = 0;
    uint32_t ca[BDA_OFF + BDA_UNITS / 2], cb[BDA_UNITS / 2], cout[BDA_UNITS], chits = 0;
    uint32_t wa[BDA_OFF + BDA_UNITS / 2], wb[BDA_UNITS / 2], wout[BDA_UNITS];
    cvm_diag d;
    bda_inputs(a, b);
    bda_inputs(ca, cb);
    bda_inputs(wa, wb);
    /* host reference: even units use a (from word BDA_OFF), odd ones b; word t/2 */
    for (uint32_t t = 0; t < BDA_UNITS; t++) {
        uint32_t *w = t % 2 ? &wb[t / 2] : &wa[BDA_OFF + t / 2];
        wout[t] = *w + 4 * (t / 2);
        *w = (*w & 0xffff00ffu) | 0x5a00u;
    }
    cvm_status st = run_bda(vk, a, b, out, &hits, &d);
    if (!ok(st == CVM_OK, "buffer device address: a pointer selected, stored and loaded (%s)", d.message))
        return;
    ok(run_bda(cpu, ca, cb, cout, &chits, &d) == CVM_OK, "the same on cpu (%s)", d.message);
    ok(!memcmp(out, wout, sizeof out), "loads and ptr.diff through addresses match the host");
    ok(!memcmp(a, wa, sizeof a) && !memcmp(b, wb, sizeof b),
       "byte stores through addresses keep the word's other bytes; the offset of 'a' is honoured");
    is_int(hits, BDA_UNITS, "the __device__ counter, reached by address, counts every unit");
    ok(!memcmp(out, cout, sizeof out) && !memcmp(a, ca, sizeof a) && !memcmp(b, cb, sizeof b) &&
           hits == chits, "vulkan matches cpu");
}

/* A device without the feature (CUBEVM_VK_NO_BDA=1): the named rejection. */
static void test_no_bda(void)
{
    cvm_device *nd = NULL;
    cvm_diag d;
    setenv("CUBEVM_VK_NO_BDA", "1", 1);
    cvm_status st = cvm_device_open("vulkan", NULL, &nd, &d);
    unsetenv("CUBEVM_VK_NO_BDA");
    if (!ok(st == CVM_OK, "open vulkan without buffer device address (%s)", d.message))
        return;
    ok(!vkd(nd)->target.buffer_device_address, "the feature is off");
    uint32_t a[BDA_OFF + BDA_UNITS / 2], b[BDA_UNITS / 2], out[BDA_UNITS], hits = 0;
    bda_inputs(a, b);
    st = run_bda(nd, a, b, out, &hits, &d);
    ok(st == CVM_UNSUPPORTED && strstr(d.message, "'bdamix'") && strstr(d.message, "register %r") &&
           strstr(d.message, "buffer device address, which the device lacks"),
       "without it the kernel is refused naming the register (%s)", d.message);
    cvm_device_close(nd);
}

/* ---- print: records in a storage buffer, formatted on the host ---- */

static const char print_cbs[] =
    ".constant msg u8 4 1 = 0x61626300\n"
    ".kernel pr\n"
    ".reg u32 %t, %c, %three, %four, %zero\n"
    ".reg i32 %neg, %m1\n"
    ".reg u64 %big, %k\n"
    ".reg f32 %f, %f4\n"
    ".reg f64 %d, %d3\n"
    ".reg i8 %b8\n"
    ".reg bool %p\n"
    "    sreg.u32 %t, unit_pos\n"
    "    sreg.u32 %c, cube_pos\n"
    "    const.u32 %three, 3\n"
    "    const.u32 %four, 4\n"
    "    const.u32 %zero, 0\n"
    "    const.i32 %m1, -1\n"
    "    cvt.i32 %neg, %t\n"
    "    mul.i32 %neg, %neg, %m1\n"
    "    cvt.u64 %big, %t\n"
    "    const.u64 %k, 4294967296\n"
    "    add.u64 %big, %big, %k\n"
    "    cvt.f32 %f, %t\n"
    "    cvt.f32 %f4, %four\n"
    "    div.f32 %f, %f, %f4\n"
    "    cvt.f64 %d, %t\n"
    "    cvt.f64 %d3, %three\n"
    "    div.f64 %d, %d, %d3\n"
    "    cvt.i8 %b8, %neg\n"
    "    eq.u32 %p, %t, %zero\n"
    "    print \"c%u u%u: %d %llu %.3f %g %d %x %d %5.1f%%\", %c, %t, %neg, %big, %f, %d, %b8, %t, %p, %t\n"
    "    print \"second %u\", %t\n"
    "    return\n"
    ".end\n"
    ".kernel many\n"
    ".reg u32 %t\n"
    "    sreg.u32 %t, abs_pos.x\n"
    "    print \"x%u\", %t\n"
    "    return\n"
    ".end\n"
    ".kernel str\n"
    ".reg ptr.const %s\n"
    "    sym.ptr.const %s, msg\n"
    "    print \"%s\", %s\n"
    "    return\n"
    ".end\n";

/* Runs kernel `name` of print_cbs; returns a malloc'ed copy of the stream output. */
static char *run_print(cvm_device *dev, const char *name, uint32_t grid, uint32_t block, cvm_status *st,
                       cvm_diag *d)
{
    cvm_module *m = NULL;
    const cvm_kernel *k = NULL;
    cvm_stream *s = cvm_device_stream(dev);
    char *text = NULL;
    *st = vk_test_load(dev, print_cbs, &m, d);
    *st = *st ? *st : cvm_kernel_get(m, name, &k, d);
    cvm_launch_config cfg = {.grid = {grid, 1, 1}, .block = {block, 1, 1}};
    *st = *st ? *st : cvm_launch(s, k, &cfg, NULL, 0, d);
    *st = *st ? *st : cvm_stream_sync(s, d);
    if (!*st)
        text = strdup(cvm_stream_output(s));
    cvm_module_free(m);
    return text;
}

static int line_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Splits text into lines (in place); returns the count. */
static size_t lines_of(char *text, char **lines, size_t max)
{
    size_t n = 0;
    for (char *p = text; p && *p && n < max;) {
        char *e = strchr(p, '\n');
        if (e)
            *e = '\0';
        lines[n++] = p;
        p = e ? e + 1 : NULL;
    }
    return n;
}

enum { PR_GRID = 2, PR_BLOCK = 40, PR_LINES = 2 * PR_GRID * PR_BLOCK };

static void test_print(void)
{
    cvm_status st;
    cvm_diag d;
    char *tv = run_print(vk, "pr", PR_GRID, PR_BLOCK, &st, &d);
    if (!ok(st == CVM_OK && tv, "print on vulkan (%s)", st ? d.message : ""))
        return;
    char *tc = run_print(cpu, "pr", PR_GRID, PR_BLOCK, &st, &d);
    static char want[PR_LINES][160];
    char *lv[PR_LINES + 1], *lc[PR_LINES + 1];
    size_t n = 0;
    for (uint32_t c = 0; c < PR_GRID; c++)
        for (uint32_t t = 0; t < PR_BLOCK; t++) {
            snprintf(want[n++], sizeof want[0], "c%u u%u: %d %llu %.3f %g %d %x %d %5.1f%%", c, t, -(int)t,
                     (unsigned long long)t + 4294967296ull, (double)((float)t / 4.0f), (double)t / 3.0,
                     (int)(int8_t)-(int)t, t, t == 0, (double)t);
            snprintf(want[n++], sizeof want[0], "second %u", t);
        }
    size_t nv = lines_of(tv, lv, PR_LINES + 1), nc = tc ? lines_of(tc, lc, PR_LINES + 1) : 0;
    int order = nv == PR_LINES;
    for (size_t i = 0; order && i < nv; i++)
        order = !strcmp(lv[i], want[i]);
    ok(order, "vulkan's lines: every type formatted as on the host, by cube, unit and the unit's order "
              "(%zu lines; first: %.80s)", nv, nv ? lv[0] : "");
    int same = nv == nc && nc == PR_LINES;
    qsort(lv, nv, sizeof *lv, line_cmp);
    qsort(lc, nc, sizeof *lc, line_cmp);
    for (size_t i = 0; same && i < nv; i++)
        same = !strcmp(lv[i], lc[i]);
    ok(same, "the same lines as the cpu device (%zu and %zu)", nv, nc);
    is_str(cvm_stream_output(cvm_device_stream(vk)), "", "the output was handed out once");
    free(tv);
    free(tc);
    /* more lines than a launch's record buffer holds: the rest are counted as lost */
    tv = run_print(vk, "many", 41, 512, &st, &d);
    char *last = tv ? strrchr(tv, '(') : NULL;
    size_t lines = 0;
    for (char *p = tv; p && *p; p++)
        lines += *p == '\n';
    ok(st == CVM_OK && lines == 16385 && last && !strcmp(last, "(vulkan: 4608 print lines of this launch "
       "were lost: its record buffer holds 16384)\n"), "an overflowing launch: %zu lines, %.90s", lines,
       last ? last : "(no note)");
    free(tv);
    tv = run_print(vk, "str", 1, 1, &st, &d);
    ok(st == CVM_UNSUPPORTED && strstr(d.message, "%s conversion") && strstr(d.message, "'str'"),
       "print of a string in memory: refused by name (%s)", d.message);
    free(tv);
}

/*
 * 16 buffer addresses fill the 128-byte push constants, leaving no room for
 * a split grid's x words: the kernel still runs on a grid that fits one
 * dispatch (each unit writes abs_pos.x through a selected pointer), and a
 * grid wider than the device's x limit is refused, saying why.
 */
static void test_full_push(void)
{
    char src[2048];
    int n = snprintf(src, sizeof src, ".kernel k16\n");
    for (int i = 0; i < 16; i++)
        n += snprintf(src + n, sizeof src - (size_t)n, ".param p%d buffer u32 readwrite\n", i);
    snprintf(src + n, sizeof src - (size_t)n,
             ".reg u32 %%x\n.reg bool %%c\n.reg i64 %%off, %%four\n.reg ptr.global %%a, %%b, %%q\n"
             "    sreg.u32 %%x, abs_pos.x\n    ne.u32 %%c, %%x, %%x\n"
             "    param.ptr.global %%a, p0, 0\n    param.ptr.global %%b, p15, 0\n"
             "    select.ptr.global %%q, %%b, %%a, %%c\n"
             "    cvt.i64 %%off, %%x\n    const.i64 %%four, 4\n    mul.i64 %%off, %%off, %%four\n"
             "    ptr.add.ptr.global %%q, %%q, %%off\n    st.u32 [%%q], %%x\n    return\n.end\n");
    cvm_module *m = NULL;
    const cvm_kernel *k = NULL;
    cvm_buffer *bufs[16] = {0};
    cvm_arg args[16];
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_status st = vk_test_load(vk, src, &m, &d);
    st = st ? st : cvm_kernel_get(m, "k16", &k, &d);
    for (int i = 0; i < 16 && !st; i++) {
        st = cvm_buffer_create(vk, 64 * 4, "p", &bufs[i], &d);
        args[i] = (cvm_arg){CVM_ARG_BUFFER, bufs[i], 0, NULL, 0};
    }
    cvm_stream *s = cvm_device_stream(vk);
    cvm_launch_config cfg = {.grid = {8, 1, 1}, .block = {8, 1, 1}};
    uint32_t got[64];
    st = st ? st : cvm_launch(s, k, &cfg, args, 16, &d);
    st = st ? st : cvm_stream_sync(s, &d);
    st = st ? st : cvm_buffer_read(s, bufs[0], 0, got, sizeof got, &d); /* %c is false: p0 */
    if (ok(st == CVM_OK, "16 buffer addresses and abs_pos.x: the kernel runs (%s)", d.message)) {
        int bad = -1;
        for (int i = 0; i < 64 && bad < 0; i++)
            if (got[i] != (uint32_t)i)
                bad = i;
        ok(bad < 0, "each unit wrote its abs_pos.x through the selected pointer (first bad %d)", bad);
        cfg.grid[0] = 70000;
        st = cvm_launch(s, k, &cfg, args, 16, &d);
        st = st ? st : cvm_stream_sync(s, &d);
        ok(st == CVM_LIMIT && strstr(d.message, "push constants have no room"),
           "a grid wider than the device's x limit is refused: %s", d.message);
        cvm_stream_sync(s, &d);
    }
    for (int i = 0; i < 16; i++)
        cvm_buffer_free(bufs[i]);
    cvm_module_free(m);
}

int main(void)
{
    char tmp[64];
    if (!vk_test_env(tmp, sizeof tmp, "vkmem") || !vk_test_open(&vk))
        return 0;
    cvm_diag d;
    if (cvm_device_open("cpu", NULL, &cpu, &d) != CVM_OK)
        return ok(0, "open cpu (%s)", d.message), done_testing();
    test_symbols();
    test_symbols_staged();
    test_bda();
    test_no_bda();
    test_print();
    test_full_push();
    vk_test_finish(tmp, cpu, vk);
    return done_testing();
}
