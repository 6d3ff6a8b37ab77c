/*
 * test_runtime.c - the cpu device's runtime: worker threads, stream
 * ordering, faults over several workers, skipped launches, map, deferred
 * free, views, by-value arguments, device limits and the launch memory
 * limit. Expected values are computed here by hand, not by the VM.
 */
#include "../vm/cubevm.h"
#include "tap.h"

#include <stdbool.h>
#include <stdlib.h>

static const char src[] =
    /* out[i] = i * k + add for i < n; faults (out of bounds) when out is too small */
    ".kernel lin\n.param out buffer u32 write\n.param n scalar u32\n.param k comptime u32\n"
    ".param s struct 8 4\n"
    ".reg u32 %i, %n, %k, %add, %v\n.reg bool %in\n.reg i64 %off, %four\n.reg ptr.global %p\n"
    "    sreg.u32 %i, abs_pos.x\n    param.u32 %n, n, 0\n    param.u32 %k, k, 0\n"
    "    param.u32 %add, s, 4\n    lt.u32 %in, %i, %n\n"
    "    if %in\n"
    "        mul.u32 %v, %i, %k\n        add.u32 %v, %v, %add\n"
    "        cvt.i64 %off, %i\n        const.i64 %four, 4\n        mul.i64 %off, %off, %four\n"
    "        param.ptr.global %p, out, 0\n        ptr.add.ptr.global %p, %p, %off\n"
    "        st.u32 [%p], %v\n"
    "    end\n    return\n.end\n"
    /* every unit adds 1 to counts[i % 4] (order-independent result) */
    ".kernel count\n.param counts buffer u32 readwrite\n"
    ".reg u32 %i, %m, %one, %old\n.reg i64 %off, %four\n.reg ptr.global %p\n"
    "    sreg.u32 %i, abs_pos.x\n    const.u32 %m, 3\n    and.u32 %i, %i, %m\n"
    "    cvt.i64 %off, %i\n    const.i64 %four, 4\n    mul.i64 %off, %off, %four\n"
    "    param.ptr.global %p, counts, 0\n    ptr.add.ptr.global %p, %p, %off\n"
    "    const.u32 %one, 1\n    atom.add.relaxed.device.u32 %old, [%p], %one\n"
    "    return\n.end\n"
    /* prints its cube index from unit 0 */
    ".kernel hello\n.reg u32 %c, %t, %z\n.reg bool %first\n"
    "    sreg.u32 %c, cube_pos.x\n    sreg.u32 %t, unit_pos.x\n    const.u32 %z, 0\n"
    "    eq.u32 %first, %t, %z\n    if %first\n        print \"c%u\", %c\n    end\n"
    "    return\n.end\n"
    ".kernel big\n.local 4096\n    return\n.end\n"
    /* prints a NUL with %c, then a second line */
    ".kernel nul\n.reg u32 %z\n    const.u32 %z, 0\n    print \"a%cb\", %z\n    print \"c\"\n    return\n.end\n"
    /* stores 0xdead at byte `off` of out (out of bounds when off is past it) */
    ".kernel poke\n.param out buffer u32 write\n.param off scalar i64\n"
    ".reg i64 %o\n.reg u32 %v\n.reg ptr.global %p\n"
    "    param.ptr.global %p, out, 0\n    param.i64 %o, off, 0\n"
    "    ptr.add.ptr.global %p, %p, %o\n    const.u32 %v, 57005\n    st.u32 [%p], %v\n"
    "    return\n.end\n"
    /* every unit waits until flag[0] is nonzero (read atomically) */
    ".kernel wait_flag\n.param flag buffer u32 readwrite\n"
    ".reg u32 %v, %z\n.reg bool %set\n.reg ptr.global %p\n"
    "    param.ptr.global %p, flag, 0\n    const.u32 %z, 0\n"
    "    loop\n        atom.add.relaxed.device.u32 %v, [%p], %z\n        ne.u32 %set, %v, %z\n"
    "        if %set\n            break\n        end\n    end\n    return\n.end\n";

static cvm_module *load(cvm_device *dev)
{
    void *bytes = NULL;
    size_t size = 0;
    cvm_module *m = NULL;
    cvm_diag d;
    if (cvm_assemble(src, strlen(src), "runtime.cbs", &bytes, &size, &d) != CVM_OK) {
        diag("assemble: %s:%u:%u: %s", d.file, d.line, d.col, d.message);
        return NULL;
    }
    if (cvm_module_load(dev, bytes, size, &m, &d) != CVM_OK)
        diag("load: %s", d.message);
    cvm_free_bytes(bytes);
    return m;
}

static cvm_device *open_dev(uint32_t threads, cvm_schedule sched, uint64_t limit)
{
    cvm_config cfg = {.threads = threads, .schedule = sched, .memory_limit = limit};
    cvm_device *dev = NULL;
    cvm_diag d;
    if (cvm_device_open("cpu", &cfg, &dev, &d) != CVM_OK)
        diag("open: %s", d.message);
    return dev;
}

/* Launches lin over n units (n/64 cubes of 64) writing out[i] = i*k + add. */
static cvm_status lin(cvm_stream *s, const cvm_kernel *k, cvm_buffer *out, size_t view,
                      uint32_t n, uint32_t mult, uint32_t add, cvm_diag *d)
{
    uint32_t sv[2] = {0, add};
    cvm_arg args[4] = {{CVM_ARG_BUFFER, out, view, NULL, 0}, {CVM_ARG_BYTES, NULL, 0, &n, 4},
                       {CVM_ARG_BYTES, NULL, 0, &mult, 4}, {CVM_ARG_BYTES, NULL, 0, sv, 8}};
    cvm_launch_config cfg = {.grid = {(n + 63) / 64, 1, 1}, .block = {64, 1, 1}};
    return cvm_launch(s, k, &cfg, args, 4, d);
}

static bool check_lin(const uint32_t *got, uint32_t n, uint32_t mult, uint32_t add)
{
    for (uint32_t i = 0; i < n; i++)
        if (got[i] != i * mult + add)
            return false;
    return true;
}

static void test_workers(void)
{
    enum { N = 64 * 500 };
    static uint32_t got[N];
    cvm_device *devs[2] = {open_dev(1, CVM_SCHEDULE_SEQUENTIAL, 0), open_dev(4, 0, 0)};
    for (int v = 0; v < 2; v++) {
        cvm_device *dev = devs[v];
        cvm_module *m = dev ? load(dev) : NULL;
        const cvm_kernel *k = NULL, *cnt = NULL;
        if (!m || cvm_kernel_get(m, "lin", &k, NULL) || cvm_kernel_get(m, "count", &cnt, NULL)) {
            skip("no module");
            continue;
        }
        cvm_stream *s = cvm_device_stream(dev);
        cvm_diag d;
        cvm_buffer *out = NULL, *counts = NULL;
        cvm_buffer_create(dev, sizeof got, "out", &out, NULL);
        cvm_buffer_create(dev, 16, "counts", &counts, NULL);
        cvm_status st = lin(s, k, out, 0, N, 3, 7, &d);
        ok(st == CVM_OK && cvm_stream_sync(s, &d) == CVM_OK, "%s: 500 cubes run (%s)",
           v ? "4 workers" : "sequential", d.message);
        memset(got, 0, sizeof got);
        cvm_buffer_read(s, out, 0, got, sizeof got, &d);
        ok(check_lin(got, N, 3, 7), "%s: out[i] = 3i + 7 for all %d units", v ? "4 workers" : "sequential", N);
        cvm_arg a = {CVM_ARG_BUFFER, counts, 0, NULL, 0};
        cvm_launch_config cfg = {.grid = {300, 1, 1}, .block = {40, 1, 1}};
        for (int r = 0; r < 3; r++)
            cvm_launch(s, cnt, &cfg, &a, 1, &d);
        uint32_t c[4];
        cvm_buffer_read(s, counts, 0, c, sizeof c, &d);
        /* 3 launches x 12000 units, a quarter of them per counter */
        ok(c[0] == 9000 && c[1] == 9000 && c[2] == 9000 && c[3] == 9000,
           "%s: global atomics from every cube (%u %u %u %u)", v ? "4 workers" : "sequential",
           c[0], c[1], c[2], c[3]);
        cvm_buffer_free(out);
        cvm_buffer_free(counts);
        cvm_device_limits lim;
        cvm_device_limits_get(dev, &lim, NULL);
        is_int(lim.workers, v ? 5 : 1, "limits: workers (threads + the waiting host)");
        cvm_device_close(dev);
    }
}

static void test_faults_and_streams(void)
{
    cvm_device *dev = open_dev(4, 0, 0);
    cvm_module *m = dev ? load(dev) : NULL;
    const cvm_kernel *k = NULL, *hello = NULL;
    if (!m || cvm_kernel_get(m, "lin", &k, NULL) || cvm_kernel_get(m, "hello", &hello, NULL)) {
        skip("no module");
        return;
    }
    cvm_stream *s = NULL;
    cvm_diag d;
    is_int(cvm_stream_create(dev, &s, &d), CVM_OK, "stream create");
    cvm_buffer *out = NULL, *other = NULL;
    cvm_buffer_create(dev, 1000 * 4, "short_out", &out, NULL);
    cvm_buffer_create(dev, 4096 * 4, "other", &other, NULL);
    /* 3200 units into 1000 elements: units 1000.. fault; the lowest is cube 15 unit 40 */
    ok(lin(s, k, out, 0, 3200, 1, 0, &d) == CVM_OK, "faulting launch is queued");
    ok(lin(s, k, other, 0, 64, 1, 0, &d) == CVM_OK, "a later launch is queued");
    cvm_status st = cvm_stream_sync(s, &d);
    ok(st == CVM_FAULT && d.has_fault && d.fault.cube[0] == 15 && d.fault.unit[0] == 40,
       "4 workers report the lowest faulting cube and unit (cube %u unit %u: %s)", d.fault.cube[0],
       d.fault.unit[0], d.message);
    ok(strstr(d.message, "short_out") && strstr(d.message, "1 later launch skipped"),
       "the fault names the buffer and the skipped launch");
    uint32_t got[1000];
    cvm_buffer_read(s, other, 0, got, 64 * 4, &d);
    uint32_t zeros[64] = {0};
    ok(!memcmp(got, zeros, sizeof zeros), "the skipped launch did not run");
    cvm_buffer_read(s, out, 0, got, sizeof got, &d);
    ok(check_lin(got, 960, 1, 0), "every cube below the faulting one ran");
    is_int(cvm_stream_sync(s, &d), CVM_OK, "the next sync is clean");

    /* order: write 0..9 -> launch writes out[i] = 2i + 1 (i < 6) -> copy 8 elements to
     * other[100..] -> fill other bytes [400, 404) with 0xff -> read */
    uint32_t src10[10] = {50, 51, 52, 53, 54, 55, 56, 57, 58, 59}, want[8], r8[8];
    cvm_buffer_write(s, out, 0, src10, sizeof src10, &d);
    lin(s, k, out, 0, 6, 2, 1, &d);
    cvm_buffer_copy(s, other, 400, out, 0, 8 * 4, &d);
    cvm_buffer_fill(s, other, 400, 4, 0xff, &d);
    cvm_buffer_read(s, other, 400, r8, sizeof r8, &d);
    for (uint32_t i = 0; i < 8; i++)
        want[i] = i < 6 ? 2 * i + 1 : 50 + i;
    want[0] = 0xffffffffu;
    ok(!memcmp(r8, want, sizeof want), "write, launch, copy, fill and read run in stream order");
    ok(cvm_buffer_copy(s, other, 0, out, 3996, 8, &d) == CVM_INVALID_ARGUMENT &&
       strstr(d.message, "short_out"), "copy out of range names the buffer (%s)", d.message);

    /* a view: the kernel's out[0] is byte 16 of the buffer */
    lin(s, k, other, 16, 8, 1, 100, &d);
    void *p = NULL;
    is_int(cvm_buffer_map(other, &p, &d), CVM_OK, "map");
    const uint32_t *mp = p;
    ok(mp && mp[3] == 0 && mp[4] == 100 && mp[11] == 107 && mp[12] == 0,
       "map waits for the launch; a view writes from its offset");
    cvm_buffer_unmap(other);

    /* deferred free: the buffer goes while a queued launch still uses it */
    cvm_buffer *tmp = NULL;
    cvm_buffer_create(dev, 64 * 1000 * 4, "tmp", &tmp, NULL);
    lin(s, k, tmp, 0, 64 * 1000, 1, 0, &d);
    cvm_buffer_free(tmp);
    is_int(cvm_stream_sync(s, &d), CVM_OK, "a buffer freed while in use is released after its launch");

    /* print text from 4 workers arrives in cube order */
    cvm_launch_config cfg = {.grid = {40, 1, 1}, .block = {8, 1, 1}};
    cvm_launch(s, hello, &cfg, NULL, 0, &d);
    char want_text[400] = "";
    for (int c = 0; c < 40; c++)
        snprintf(want_text + strlen(want_text), sizeof want_text - strlen(want_text), "c%d\n", c);
    is_str(cvm_stream_output(s), want_text, "print text of 40 cubes in cube order");
    /* a %c of 0 prints a NUL inside the text: the length says where it ends (everything
     * after the NUL was lost to a caller that had only the C string) */
    const cvm_kernel *nul = NULL;
    cvm_launch_config two = {.grid = {1, 1, 1}, .block = {2, 1, 1}};
    size_t got_len = 99;
    const char *text = cvm_kernel_get(m, "nul", &nul, &d) == CVM_OK &&
                              cvm_launch(s, nul, &two, NULL, 0, &d) == CVM_OK
                          ? cvm_stream_output_n(s, &got_len) : "";
    static const char want_nul[] = "a\0b\na\0b\nc\nc\n";
    ok(got_len == sizeof want_nul - 1 && memcmp(text, want_nul, sizeof want_nul - 1) == 0,
       "cvm_stream_output_n: a kernel's %%c of 0 is a NUL inside the text (%zu bytes)", got_len);
    cvm_stream_output_n(s, &got_len);
    is_int((int)got_len, 0, "cvm_stream_output_n: nothing printed since is 0 bytes");
    cvm_stream_destroy(s);
    cvm_buffer_free(out);
    cvm_buffer_free(other);
    cvm_device_close(dev);
}

/*
 * Streams are independent: a host that syncs stream A runs A's work and
 * never joins stream B's launch. B's 64 cubes spin until A's write sets
 * their flag, so a sync of A that helped with B's cubes would spin with
 * them until B's timeout, and B's sync would report it. A waiting host
 * runs queued buffer operations of any stream before it joins a launch,
 * so B's sync and a map of the flag do not wait on such cubes either.
 */
static void test_stream_independence(void)
{
    cvm_device *dev = open_dev(2, 0, 0);
    cvm_module *m = dev ? load(dev) : NULL;
    const cvm_kernel *k = NULL;
    if (!m || cvm_kernel_get(m, "wait_flag", &k, NULL)) {
        skip("no module");
        return;
    }
    cvm_stream *a = NULL, *b = NULL;
    cvm_buffer *flag = NULL;
    cvm_diag d;
    cvm_stream_create(dev, &a, NULL);
    cvm_stream_create(dev, &b, NULL);
    cvm_buffer_create(dev, 4, "flag", &flag, NULL);
    cvm_arg arg = {.kind = CVM_ARG_BUFFER, .buffer = flag};
    cvm_launch_config cfg = {.grid = {64, 1, 1}, .block = {32, 1, 1}, .timeout_s = 20};
    ok(cvm_launch(b, k, &cfg, &arg, 1, &d) == CVM_OK, "stream B: 64 cubes wait for a flag");
    uint32_t one = 1;
    cvm_buffer_write(a, flag, 0, &one, 4, &d);
    is_int(cvm_stream_sync(a, &d), CVM_OK, "stream A's sync runs A's write beside B's launch");
    cvm_status st = cvm_stream_sync(b, &d);
    ok(st == CVM_OK, "B's cubes saw the flag and ended (%s)", st ? d.message : "ok");
    /* the same, waited for from B's side (B's sync runs A's queued write first), then by a
     * map of the flag, then by closing streams: no wait blocks on cubes that need A's write */
    uint32_t zero = 0;
    cvm_buffer_write(a, flag, 0, &zero, 4, &d);
    cvm_stream_sync(a, &d);
    cvm_launch(b, k, &cfg, &arg, 1, &d);
    cvm_buffer_write(a, flag, 0, &one, 4, &d);
    st = cvm_stream_sync(b, &d);
    ok(st == CVM_OK, "B's sync runs A's queued write, which its cubes wait for (%s)", st ? d.message : "ok");
    cvm_buffer_write(a, flag, 0, &zero, 4, &d);
    cvm_stream_sync(a, &d);
    cvm_launch(b, k, &cfg, &arg, 1, &d);
    cvm_buffer_write(a, flag, 0, &one, 4, &d);
    void *mapped = NULL;
    st = cvm_buffer_map(flag, &mapped, &d);
    ok(st == CVM_OK && mapped && *(uint32_t *)mapped == 1 && cvm_stream_sync(b, &d) == CVM_OK,
       "a map of the flag waits for A's write and B's launch, which then ends (%s)", st ? d.message : "ok");
    cvm_buffer_unmap(flag);
    /* freeing another module waits for that module's launches only: it waited for every
     * stream's, so B's cubes, waiting for A's write queued after the free, timed out */
    cvm_module *m2 = load(dev);
    const cvm_kernel *k2 = NULL;
    uint32_t lin_out[64] = {0};
    cvm_buffer *out = NULL;
    cvm_buffer_create(dev, sizeof lin_out, "out", &out, NULL);
    cvm_buffer_write(a, flag, 0, &zero, 4, &d);
    cvm_stream_sync(a, &d);
    cvm_launch_config short_cfg = cfg;
    short_cfg.timeout_s = 5;
    cvm_launch(b, k, &short_cfg, &arg, 1, &d);
    cvm_module_free(m2);
    cvm_buffer_write(a, flag, 0, &one, 4, &d);
    st = cvm_stream_sync(b, &d);
    ok(st == CVM_OK, "freeing an unrelated module does not wait for B's launch (%s)", st ? d.message : "ok");
    /* ... and a module's own queued launch is waited for before its code goes */
    m2 = load(dev);
    st = m2 && out ? cvm_kernel_get(m2, "lin", &k2, &d) : CVM_INVALID_ARGUMENT;
    if (st == CVM_OK)
        st = lin(a, k2, out, 0, 64, 3, 5, &d);
    cvm_module_free(m2);
    if (st == CVM_OK)
        st = cvm_buffer_read(a, out, 0, lin_out, sizeof lin_out, &d);
    if (st == CVM_OK)
        st = cvm_stream_sync(a, &d);
    ok(st == CVM_OK && check_lin(lin_out, 64, 3, 5), "freeing a module waits for its queued launch (%s)",
       st ? d.message : "ok");
    cvm_buffer_free(out);
    cvm_stream_destroy(a);
    cvm_stream_destroy(b);
    cvm_buffer_free(flag);
    cvm_module_free(m);
    cvm_device_close(dev);
}

/*
 * Buffer tags are never shared by two live buffers: after 65,534 buffers
 * came and went, B would have had A's tag again, and a store through A's
 * pointer that ran into B would have passed as A's. 65,535 live buffers
 * are the most; the next is refused.
 */
static void test_buffer_tags(void)
{
    cvm_device *dev = open_dev(1, 0, 0);
    cvm_module *m = dev ? load(dev) : NULL;
    const cvm_kernel *k = NULL;
    if (!m || cvm_kernel_get(m, "poke", &k, NULL)) {
        skip("no module");
        return;
    }
    cvm_buffer *a = NULL, *b = NULL, *t = NULL;
    cvm_diag d;
    cvm_buffer_create(dev, 4096, "A", &a, NULL);
    int churned = 0;
    for (int i = 0; i < 65534; i++)
        if (cvm_buffer_create(dev, 4, "tmp", &t, NULL) == CVM_OK) {
            cvm_buffer_free(t);
            churned++;
        }
    cvm_buffer_create(dev, 4096, "B", &b, NULL);
    void *pa = NULL, *pb = NULL;
    cvm_buffer_map(a, &pa, NULL);
    cvm_buffer_map(b, &pb, NULL);
    int64_t off = pa && pb ? (char *)pb - (char *)pa : 0;
    cvm_arg args[2] = {{.kind = CVM_ARG_BUFFER, .buffer = a}, {.kind = CVM_ARG_BYTES, .bytes = &off, .size = 8}};
    cvm_launch_config cfg = {.grid = {1, 1, 1}, .block = {1, 1, 1}};
    cvm_launch(cvm_device_stream(dev), k, &cfg, args, 2, &d);
    cvm_status st = cvm_stream_sync(cvm_device_stream(dev), &d);
    ok(churned == 65534 && st == CVM_FAULT && strstr(d.message, "of buffer 'A'") && pb &&
       *(uint32_t *)pb == 0, "a store from A into B faults after 65,534 buffers came and went (%s)",
       d.message);
    cvm_buffer_unmap(a);
    cvm_buffer_unmap(b);
    /* A and B are live: 65,533 more fill the tags */
    static cvm_buffer *live[65533];
    int made = 0;
    for (int i = 0; i < 65533; i++)
        made += cvm_buffer_create(dev, 4, "live", &live[i], NULL) == CVM_OK;
    st = cvm_buffer_create(dev, 4, "one_more", &t, &d);
    ok(made == 65533 && st == CVM_LIMIT && strstr(d.message, "one_more") && strstr(d.message, "65535"),
       "the 65,536th live buffer is refused (%s)", st ? d.message : "created");
    for (int i = 0; i < made; i++)
        cvm_buffer_free(live[i]);
    is_int(cvm_buffer_create(dev, 4, "again", &t, &d), CVM_OK, "a tag is free again after a free");
    cvm_buffer_free(t);
    cvm_buffer_free(a);
    cvm_buffer_free(b);
    cvm_module_free(m);
    cvm_device_close(dev);
}

static void test_limits(void)
{
    cvm_device *dev = open_dev(2, 0, 1u << 20);
    cvm_module *m = dev ? load(dev) : NULL;
    const cvm_kernel *big = NULL;
    if (!m || cvm_kernel_get(m, "big", &big, NULL)) {
        skip("no module");
        return;
    }
    cvm_device_limits lim;
    cvm_diag d;
    is_int(cvm_device_limits_get(dev, &lim, &d), CVM_OK, "device limits");
    ok(!strcmp(lim.device, "cpu") && !strcmp(lim.profile, "generic") && lim.plane_width_min == 1 &&
       lim.plane_width_max == 64 && lim.max_cube_units == 1024 && lim.workers == 3 &&
       lim.memory_limit == 1u << 20 && (lim.features & CVM_FEATURE_F64),
       "generic limits: widths 1..64, 1024 units, 3 workers, the memory limit, f64");
    /* 1024 units x 4096 local bytes = 4 MiB per worker, x 3 workers, over 1 MiB */
    cvm_launch_config cfg = {.grid = {1, 1, 1}, .block = {1024, 1, 1}};
    cvm_status st = cvm_launch(cvm_device_stream(dev), big, &cfg, NULL, 0, &d);
    ok(st == CVM_LIMIT && strstr(d.message, "4194304 local") && strstr(d.message, "x 3 workers") &&
       strstr(d.message, "1048576"), "launch memory over the limit: CVM_LIMIT with the numbers (%s)",
       d.message);
    cfg.block[0] = 8; /* 32 KiB local per worker fits */
    st = cvm_launch(cvm_device_stream(dev), big, &cfg, NULL, 0, &d);
    ok(st == CVM_OK && cvm_stream_sync(cvm_device_stream(dev), &d) == CVM_OK,
       "a smaller launch of it runs (%s)", d.message);
    cvm_config bad = {.profile = "sm_99"};
    cvm_device *x = NULL;
    st = cvm_device_open("cpu", &bad, &x, &d);
    ok(st == CVM_INVALID_ARGUMENT && strstr(d.message, "sm_99") && strstr(d.message, "lavapipe"),
       "unknown profile lists the known ones (%s)", d.message);
    st = cvm_device_open("cuda:0", NULL, &x, &d);
    ok(st == CVM_UNAVAILABLE && strstr(d.message, "not built in"), "cuda: not built in (%s)", d.message);
    cvm_device_close(dev);
}

/* Buffers of 4 MiB and more come from the device's own huge-page path
 * (vm/api.c device_default_alloc): zero-filled like the others, read and
 * written through every byte, and still under the memory limit. */
static void test_big_buffers(void)
{
    enum { N = (8u << 20) / 4 + 3 }; /* 8 MiB + 12 bytes: not a whole number of pages */
    uint32_t *got = malloc((size_t)N * 4);
    cvm_device *dev = open_dev(2, 0, 0);
    cvm_module *m = dev ? load(dev) : NULL;
    const cvm_kernel *k = NULL;
    if (!got || !m || cvm_kernel_get(m, "lin", &k, NULL)) {
        skip("no module");
        free(got);
        return;
    }
    cvm_stream *s = cvm_device_stream(dev);
    cvm_diag d = {0};
    cvm_buffer *out = NULL;
    ok(cvm_buffer_create(dev, (size_t)N * 4, "big", &out, &d) == CVM_OK, "an 8 MiB buffer (%s)", d.message);
    memset(got, 0xa5, (size_t)N * 4);
    cvm_buffer_read(s, out, 0, got, (size_t)N * 4, &d);
    uint32_t nonzero = 0;
    for (uint32_t i = 0; i < N; i++)
        nonzero += got[i] != 0;
    ok(nonzero == 0, "it starts zero-filled (%u nonzero words)", nonzero);
    cvm_status st = lin(s, k, out, 0, N, 5, 1, &d);
    ok(st == CVM_OK && cvm_stream_sync(s, &d) == CVM_OK, "a kernel writes all of it (%s)", d.message);
    cvm_buffer_read(s, out, 0, got, (size_t)N * 4, &d);
    ok(check_lin(got, N, 5, 1), "out[i] = 5i + 1 for all %u words", (unsigned)N);
    cvm_buffer_free(out);
    cvm_device_close(dev);
    dev = open_dev(1, 0, 6u << 20);
    cvm_buffer *over = NULL;
    st = dev ? cvm_buffer_create(dev, 8u << 20, "over", &over, &d) : CVM_INTERNAL;
    ok(st == CVM_OUT_OF_MEMORY && !over && strstr(d.message, "memory limit"),
       "an 8 MiB buffer over a 6 MiB limit: out of memory (%s)", d.message);
    cvm_device_close(dev);
    free(got);
}

/*
 * Module-symbol writes are ordered with the stream: a launch queued before
 * a write sees the old value, one queued after it the new one. Many cubes
 * make the first launch slow enough that an unordered write would win.
 */
static const char sym_src[] =
    ".global g u32 4 4\n"
    ".kernel readg\n.param out buffer u32 write\n"
    ".reg u32 %v, %c, %j, %lim, %one\n.reg bool %first, %done\n.reg ptr.global %p, %q\n"
    "    sreg.u32 %c, cube_pos\n    const.u32 %v, 0\n    eq.u32 %first, %c, %v\n"
    "    if %first\n"
    "        const.u32 %j, 0\n        const.u32 %lim, 200000\n        const.u32 %one, 1\n"
    "        loop\n            add.u32 %j, %j, %one\n"
    "        continuing\n            ge.u32 %done, %j, %lim\n            break_if %done\n        end\n"
    "        sym.ptr.global %q, g\n        ld.u32 %v, [%q]\n"
    "        param.ptr.global %p, out, 0\n        st.u32 [%p], %v\n    end\n"
    "    return\n.end\n";

static void test_symbol_order(void)
{
    cvm_device *dev = open_dev(2, CVM_SCHEDULE_PARALLEL, 0);
    void *bytes = NULL;
    size_t size = 0;
    cvm_module *m = NULL;
    const cvm_kernel *k = NULL;
    cvm_buffer *o1 = NULL, *o2 = NULL;
    cvm_diag d;
    bool good = dev && cvm_assemble(sym_src, strlen(sym_src), "sym.cbs", &bytes, &size, &d) == CVM_OK &&
                cvm_module_load(dev, bytes, size, &m, &d) == CVM_OK &&
                cvm_kernel_get(m, "readg", &k, &d) == CVM_OK &&
                cvm_buffer_create(dev, 4, "o1", &o1, &d) == CVM_OK &&
                cvm_buffer_create(dev, 4, "o2", &o2, &d) == CVM_OK;
    cvm_stream *s = dev ? cvm_device_stream(dev) : NULL;
    uint32_t one = 1, two = 2, got1 = 0, got2 = 0;
    cvm_arg a1 = {CVM_ARG_BUFFER, o1, 0, NULL, 0}, a2 = {CVM_ARG_BUFFER, o2, 0, NULL, 0};
    cvm_launch_config cfg = {.grid = {1, 1, 1}, .block = {32, 1, 1}};
    good = good && cvm_module_symbol_write(s, m, "g", 0, &one, 4, &d) == CVM_OK &&
           cvm_launch(s, k, &cfg, &a1, 1, &d) == CVM_OK &&
           cvm_module_symbol_write(s, m, "g", 0, &two, 4, &d) == CVM_OK &&
           cvm_launch(s, k, &cfg, &a2, 1, &d) == CVM_OK && cvm_stream_sync(s, &d) == CVM_OK &&
           cvm_buffer_read(s, o1, 0, &got1, 4, &d) == CVM_OK &&
           cvm_buffer_read(s, o2, 0, &got2, 4, &d) == CVM_OK;
    ok(good && got1 == 1 && got2 == 2,
       "symbol writes are ordered with queued launches (saw %u then %u) %s", got1, got2,
       good ? "" : d.message);
    cvm_free_bytes(bytes);
    cvm_buffer_free(o1);
    cvm_buffer_free(o2);
    cvm_module_free(m);
    if (dev)
        cvm_device_close(dev);
}

int main(void)
{
    test_workers();
    test_faults_and_streams();
    test_stream_independence();
    test_buffer_tags();
    test_limits();
    test_big_buffers();
    test_symbol_order();
    return done_testing();
}
