/*
 * test_launch_path.c - the cpu device's launch path (vm/pool.c,
 * vm/api_launch.c): one-cube launches and small buffer operations are not
 * announced to the workers and run on the thread that waits for them, so
 * every way of waiting must still run them in stream order: sync, read,
 * map, output, buffer free, stream destroy, device close, and waits from
 * other host threads and streams. Faults of such launches reach sync;
 * long queues, recycled operation records, arguments too large for a
 * recycled record and the region table rebuilt after the buffer list
 * changes are covered too. Expected values are computed here, not by the VM.
 * Meant to run under TSan too.
 */
#include "../vm/cubevm.h"
#include "tap.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

static const char src[] =
    /* one step of x[i] = x[i] * 3 + r for every unit i: the result depends on the order */
    ".kernel step\n.param x buffer u32 readwrite\n.param r scalar u32\n"
    ".reg u32 %i, %v, %r, %three\n.reg i64 %off, %four\n.reg ptr.global %p\n"
    "    sreg.u32 %i, abs_pos.x\n    param.u32 %r, r, 0\n"
    "    cvt.i64 %off, %i\n    const.i64 %four, 4\n    mul.i64 %off, %off, %four\n"
    "    param.ptr.global %p, x, 0\n    ptr.add.ptr.global %p, %p, %off\n"
    "    ld.u32 %v, [%p]\n    const.u32 %three, 3\n    mul.u32 %v, %v, %three\n"
    "    add.u32 %v, %v, %r\n    st.u32 [%p], %v\n    return\n.end\n"
    /* out[0] = the last u32 of a 2000-byte struct argument */
    ".kernel last\n.param out buffer u32 write\n.param s struct 2000 4\n"
    ".reg u32 %v\n.reg ptr.global %p\n"
    "    param.u32 %v, s, 1996\n    param.ptr.global %p, out, 0\n    st.u32 [%p], %v\n"
    "    return\n.end\n"
    /* prints its r argument from unit 0 */
    ".kernel say\n.param r scalar u32\n.reg u32 %r, %t, %z\n.reg bool %first\n"
    "    param.u32 %r, r, 0\n    sreg.u32 %t, unit_pos.x\n    const.u32 %z, 0\n"
    "    eq.u32 %first, %t, %z\n    if %first\n        print \"r%u\", %r\n    end\n"
    "    return\n.end\n";

enum { UNITS = 32 };

static cvm_module *load(cvm_device *dev)
{
    void *bytes = NULL;
    size_t size = 0;
    cvm_module *m = NULL;
    cvm_diag d;
    if (cvm_assemble(src, strlen(src), "launch_path.cbs", &bytes, &size, &d) != CVM_OK) {
        diag("assemble: %s:%u:%u: %s", d.file, d.line, d.col, d.message);
        return NULL;
    }
    if (cvm_module_load(dev, bytes, size, &m, &d) != CVM_OK)
        diag("load: %s", d.message);
    cvm_free_bytes(bytes);
    return m;
}

static cvm_device *open_dev(uint32_t threads, const cvm_config *base)
{
    cvm_config cfg = {0};
    if (base)
        cfg = *base;
    cfg.threads = threads;
    cvm_device *dev = NULL;
    cvm_diag d;
    if (cvm_device_open("cpu", &cfg, &dev, &d) != CVM_OK)
        diag("open: %s", d.message);
    return dev;
}

/* A device (open_dev) with the module loaded and kernels n1 (and n2, when
 * not NULL) found; NULL, with a skip written and nothing left open, when
 * any of it fails. */
static cvm_device *open_kernels(uint32_t threads, const cvm_config *base, const char *n1,
                                const cvm_kernel **k1, const char *n2, const cvm_kernel **k2)
{
    cvm_device *dev = open_dev(threads, base);
    cvm_module *m = dev ? load(dev) : NULL;
    if (!m || cvm_kernel_get(m, n1, k1, NULL) || (n2 && cvm_kernel_get(m, n2, k2, NULL))) {
        skip("no module");
        cvm_device_close(dev);
        return NULL;
    }
    return dev;
}

/* One cube of `units` units: x[i] = x[i] * 3 + r for i < units. */
static cvm_status step(cvm_stream *s, const cvm_kernel *k, cvm_buffer *x, uint32_t units,
                       uint32_t r)
{
    cvm_arg args[2] = {{CVM_ARG_BUFFER, x, 0, NULL, 0}, {CVM_ARG_BYTES, NULL, 0, &r, 4}};
    cvm_launch_config cfg = {.grid = {1, 1, 1}, .block = {units, 1, 1}};
    return cvm_launch(s, k, &cfg, args, 2, NULL);
}

/* What `n` steps with r = base, base + 1, ... make of x[i] = start. */
static uint32_t steps_of(uint32_t start, uint32_t base, int n)
{
    uint32_t v = start;
    for (int j = 0; j < n; j++)
        v = v * 3u + base + (uint32_t)j;
    return v;
}

static bool all_equal(const uint32_t *got, uint32_t n, uint32_t want)
{
    for (uint32_t i = 0; i < n; i++)
        if (got[i] != want)
            return false;
    return true;
}

/* Many one-cube launches, then each way of waiting. */
static void test_small_launches(uint32_t threads)
{
    const cvm_kernel *k = NULL;
    cvm_device *dev = open_kernels(threads, NULL, "step", &k, NULL, NULL);
    if (!dev)
        return;
    cvm_stream *s = cvm_device_stream(dev);
    cvm_buffer *x = NULL;
    cvm_diag d;
    uint32_t got[UNITS], init[UNITS];
    for (uint32_t i = 0; i < UNITS; i++)
        init[i] = 2;
    cvm_buffer_create(dev, sizeof got, "x", &x, NULL);

    /* a small write, 100 one-cube launches (past the quiet queue), then sync */
    cvm_buffer_write(s, x, 0, init, sizeof init, NULL);
    bool queued = true;
    for (int j = 0; j < 100; j++)
        queued &= step(s, k, x, UNITS, 10u + (uint32_t)j) == CVM_OK;
    is_int(cvm_stream_sync(s, &d), CVM_OK, "%u workers: 100 one-cube launches then sync", threads);
    cvm_buffer_read(s, x, 0, got, sizeof got, NULL);
    ok(queued && all_equal(got, UNITS, steps_of(2, 10, 100)),
       "%u workers: they ran once each, in stream order (x = %u)", threads, got[0]);

    /* a read with no sync before it runs what is queued */
    cvm_buffer_fill(s, x, 0, sizeof got, 0, NULL);
    for (int j = 0; j < 5; j++)
        step(s, k, x, UNITS, 1u + (uint32_t)j);
    memset(got, 0xee, sizeof got);
    cvm_buffer_read(s, x, 0, got, sizeof got, NULL);
    ok(all_equal(got, UNITS, steps_of(0, 1, 5)), "%u workers: read waits for queued launches",
       threads);

    /* map, from the buffer alone */
    step(s, k, x, UNITS, 7);
    void *p = NULL;
    cvm_buffer_map(x, &p, NULL);
    ok(p && all_equal(p, UNITS, steps_of(0, 1, 5) * 3u + 7u), "%u workers: map waits too",
       threads);
    cvm_buffer_unmap(x);

    /* a zero-byte read is a wait in stream order */
    step(s, k, x, 16, 1);
    cvm_buffer_read(s, x, 0, got, 0, NULL);
    cvm_buffer_read(s, x, 0, got, sizeof got, NULL);
    uint32_t before = steps_of(0, 1, 5) * 3u + 7u;
    ok(got[0] == before * 3u + 1u && got[15] == before * 3u + 1u && got[16] == before,
       "%u workers: a launch of 16 units touches 16 (%u %u %u)", threads, got[0], got[15], got[16]);

    /* the buffer freed while a queued launch uses it: released after the launch */
    cvm_buffer *tmp = NULL;
    cvm_buffer_create(dev, sizeof got, "tmp", &tmp, NULL);
    step(s, k, tmp, UNITS, 5);
    cvm_buffer_free(tmp);
    is_int(cvm_stream_sync(s, &d), CVM_OK, "%u workers: deferred free of a buffer in use", threads);
    cvm_buffer_free(x);
    cvm_device_close(dev);
}

/* A fault in a one-cube launch, and the launches after it. */
static void test_small_fault(void)
{
    const cvm_kernel *k = NULL;
    cvm_device *dev = open_kernels(2, NULL, "step", &k, NULL, NULL);
    if (!dev)
        return;
    cvm_stream *s = cvm_device_stream(dev);
    cvm_buffer *shortb = NULL, *x = NULL;
    cvm_diag d;
    cvm_buffer_create(dev, 16 * 4, "short_x", &shortb, NULL);
    cvm_buffer_create(dev, UNITS * 4, "x", &x, NULL);
    step(s, k, x, UNITS, 1);
    step(s, k, shortb, UNITS, 1); /* units 16.. are out of bounds */
    step(s, k, x, UNITS, 1);
    step(s, k, x, UNITS, 1);
    cvm_status st = cvm_stream_sync(s, &d);
    ok(st == CVM_FAULT && d.has_fault && d.fault.unit[0] == 16 && strstr(d.message, "short_x"),
       "a fault in a one-cube launch reaches sync (unit %u: %s)", d.fault.unit[0], d.message);
    ok(strstr(d.message, "2 later launches skipped") != NULL, "with the launches it skipped");
    uint32_t got[UNITS];
    cvm_buffer_read(s, x, 0, got, sizeof got, NULL);
    ok(all_equal(got, UNITS, 1), "the launch before it ran, the ones after did not");
    is_int(cvm_stream_sync(s, &d), CVM_OK, "the next sync is clean");

    /* a region created after earlier launches is named in the next fault */
    cvm_buffer *late = NULL;
    cvm_buffer_create(dev, 8 * 4, "late_buffer", &late, NULL);
    step(s, k, late, UNITS, 1);
    st = cvm_stream_sync(s, &d);
    ok(st == CVM_FAULT && strstr(d.message, "late_buffer") && d.fault.unit[0] == 8,
       "a buffer created between launches is known to checked mode (%s)", d.message);
    /* and one freed is forgotten: a new buffer, perhaps at the same address, has its own name */
    cvm_buffer_free(late);
    cvm_buffer_create(dev, 8 * 4, "later_buffer", &late, NULL);
    step(s, k, late, UNITS, 1);
    st = cvm_stream_sync(s, &d);
    ok(st == CVM_FAULT && strstr(d.message, "later_buffer"), "the table follows frees (%s)",
       d.message);
    cvm_buffer_free(late);
    cvm_buffer_free(shortb);
    cvm_buffer_free(x);
    cvm_device_close(dev);
}

/* Arguments larger than a recycled record; print text of one-cube launches. */
static void test_big_args_and_text(void)
{
    const cvm_kernel *last = NULL, *say = NULL;
    cvm_device *dev = open_kernels(2, NULL, "last", &last, "say", &say);
    if (!dev)
        return;
    cvm_stream *s = cvm_device_stream(dev);
    cvm_buffer *out = NULL;
    cvm_buffer_create(dev, 4, "out", &out, NULL);
    static uint32_t big[500];
    uint32_t got = 0;
    bool right = true;
    for (uint32_t r = 0; r < 20; r++) {
        for (uint32_t i = 0; i < 500; i++)
            big[i] = r * 1000u + i;
        cvm_arg args[2] = {{CVM_ARG_BUFFER, out, 0, NULL, 0},
                           {CVM_ARG_BYTES, NULL, 0, big, sizeof big}};
        cvm_launch_config cfg = {.grid = {1, 1, 1}, .block = {1, 1, 1}};
        right &= cvm_launch(s, last, &cfg, args, 2, NULL) == CVM_OK;
        big[499] = 0; /* the launch copied its argument */
        right &= cvm_buffer_read(s, out, 0, &got, 4, NULL) == CVM_OK && got == r * 1000u + 499u;
    }
    ok(right, "a 2000-byte struct argument arrives whole, 20 times (last %u)", got);

    char want[200] = "";
    for (uint32_t r = 0; r < 12; r++) {
        cvm_arg a = {CVM_ARG_BYTES, NULL, 0, &r, 4};
        cvm_launch_config cfg = {.grid = {1, 1, 1}, .block = {8, 1, 1}};
        cvm_launch(s, say, &cfg, &a, 1, NULL);
        snprintf(want + strlen(want), sizeof want - strlen(want), "r%u\n", r);
    }
    is_str(cvm_stream_output(s), want, "print text of 12 one-cube launches, in launch order");
    cvm_buffer_free(out);
    cvm_device_close(dev);
}

/* A counting allocator: what a device holds after close. */
typedef struct counter {
    long long bytes, blocks;
} counter;

static void *counting_alloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    counter *c = user;
    void *p = NULL;
    if (new_size && !(p = aligned_alloc(64, (new_size + 63) & ~(size_t)63)))
        return NULL;
    if (ptr) {
        if (p)
            memcpy(p, ptr, old_size < new_size ? old_size : new_size);
        free(ptr);
        __atomic_sub_fetch(&c->bytes, (long long)old_size, __ATOMIC_RELAXED);
        __atomic_sub_fetch(&c->blocks, 1, __ATOMIC_RELAXED);
    }
    if (p) {
        __atomic_add_fetch(&c->bytes, (long long)new_size, __ATOMIC_RELAXED);
        __atomic_add_fetch(&c->blocks, 1, __ATOMIC_RELAXED);
    }
    return p;
}

/* Work nobody waited for: stream destroy and device close run it and free everything. */
static void test_unwaited(void)
{
    counter c = {0};
    cvm_config cfg = {.alloc = counting_alloc, .alloc_user = &c};
    const cvm_kernel *k = NULL, *say = NULL;
    cvm_device *dev = open_kernels(2, &cfg, "step", &k, "say", &say);
    if (!dev)
        return;
    cvm_stream *s = NULL;
    cvm_buffer *x = NULL;
    cvm_stream_create(dev, &s, NULL);
    cvm_buffer_create(dev, UNITS * 4, "x", &x, NULL);
    for (int j = 0; j < 3; j++)
        step(s, k, x, UNITS, 1u + (uint32_t)j);
    cvm_stream_destroy(s); /* waits for its work */
    void *p = NULL;
    cvm_buffer_map(x, &p, NULL);
    ok(p && all_equal(p, UNITS, steps_of(0, 1, 3)), "stream destroy runs its queued launches");
    cvm_buffer_unmap(x);
    s = cvm_device_stream(dev);
    for (int j = 0; j < 40; j++)
        step(s, k, x, UNITS, (uint32_t)j);
    uint32_t r = 3;
    cvm_arg a = {CVM_ARG_BYTES, NULL, 0, &r, 4};
    cvm_launch_config one = {.grid = {1, 1, 1}, .block = {1, 1, 1}};
    cvm_launch(s, say, &one, &a, 1, NULL);
    cvm_device_close(dev);
    ok(c.bytes == 0 && c.blocks == 0,
       "device close with 41 launches never waited for gives back every block (%lld bytes, "
       "%lld blocks left)", c.bytes, c.blocks);
}

/* Host threads, each with its own stream, and one more mapping its own buffer. */
enum { HOSTS = 3, ROUNDS = 150 };

static const cvm_kernel *shared_step;
static cvm_device *shared_dev;

typedef struct job {
    int id;
    int bad;
} job;

static void *host(void *arg)
{
    job *j = arg;
    cvm_stream *s = NULL;
    cvm_buffer *x = NULL;
    if (cvm_stream_create(shared_dev, &s, NULL) ||
        cvm_buffer_create(shared_dev, UNITS * 4, "x", &x, NULL)) {
        j->bad = ROUNDS;
        return NULL;
    }
    uint32_t got[UNITS], v = 0;
    for (int r = 0; r < ROUNDS; r++) {
        /* one to three launches, then a sync, a read or a map: each must see them all */
        int n = 1 + (r + j->id) % 3;
        for (int q = 0; q < n; q++) {
            uint32_t add = (uint32_t)(j->id * 100 + r + q);
            if (step(s, shared_step, x, UNITS, add) != CVM_OK)
                j->bad++;
            v = v * 3u + add;
        }
        const uint32_t *seen = got;
        void *p = NULL;
        switch (r % 3) {
        case 0:
            if (cvm_stream_sync(s, NULL) || cvm_buffer_read(s, x, 0, got, sizeof got, NULL))
                j->bad++;
            break;
        case 1:
            if (cvm_buffer_read(s, x, 0, got, sizeof got, NULL))
                j->bad++;
            break;
        default:
            if (cvm_buffer_map(x, &p, NULL))
                j->bad++;
            seen = p;
            break;
        }
        if (!seen || !all_equal(seen, UNITS, v))
            j->bad++;
        if (p)
            cvm_buffer_unmap(x);
    }
    if (cvm_stream_sync(s, NULL))
        j->bad++;
    cvm_buffer_free(x);
    cvm_stream_destroy(s);
    return NULL;
}

static void test_streams_and_threads(uint32_t threads)
{
    shared_dev = open_kernels(threads, NULL, "step", &shared_step, NULL, NULL);
    if (!shared_dev)
        return;
    /* two streams from one thread: each sync runs its own stream's work */
    cvm_stream *a = NULL, *b = NULL;
    cvm_buffer *xa = NULL, *xb = NULL;
    cvm_stream_create(shared_dev, &a, NULL);
    cvm_stream_create(shared_dev, &b, NULL);
    cvm_buffer_create(shared_dev, UNITS * 4, "xa", &xa, NULL);
    cvm_buffer_create(shared_dev, UNITS * 4, "xb", &xb, NULL);
    for (int j = 0; j < 10; j++) {
        step(a, shared_step, xa, UNITS, 1u + (uint32_t)j);
        step(b, shared_step, xb, UNITS, 50u + (uint32_t)j);
    }
    uint32_t ga[UNITS], gb[UNITS];
    cvm_stream_sync(a, NULL);
    cvm_buffer_read(a, xa, 0, ga, sizeof ga, NULL);
    cvm_stream_sync(b, NULL);
    cvm_buffer_read(b, xb, 0, gb, sizeof gb, NULL);
    ok(all_equal(ga, UNITS, steps_of(0, 1, 10)) && all_equal(gb, UNITS, steps_of(0, 50, 10)),
       "%u workers: two streams of one-cube launches, interleaved", threads);
    /* stream b's launches run while stream a waits for a launch of several cubes */
    cvm_launch_config wide = {.grid = {4, 1, 1}, .block = {8, 1, 1}};
    uint32_t add = 9;
    cvm_arg args[2] = {{CVM_ARG_BUFFER, xa, 0, NULL, 0}, {CVM_ARG_BYTES, NULL, 0, &add, 4}};
    cvm_launch(a, shared_step, &wide, args, 2, NULL);
    step(b, shared_step, xb, UNITS, 2);
    cvm_buffer_read(a, xa, 0, ga, sizeof ga, NULL);
    cvm_buffer_read(b, xb, 0, gb, sizeof gb, NULL);
    ok(all_equal(ga, UNITS, steps_of(0, 1, 10) * 3u + 9u) &&
       all_equal(gb, UNITS, steps_of(0, 50, 10) * 3u + 2u),
       "%u workers: a 4-cube launch beside a one-cube launch of another stream", threads);
    cvm_buffer_free(xa);
    cvm_buffer_free(xb);
    cvm_stream_destroy(a);
    cvm_stream_destroy(b);

    pthread_t t[HOSTS];
    job jobs[HOSTS];
    for (int i = 0; i < HOSTS; i++) {
        jobs[i] = (job){i + 1, 0};
        pthread_create(&t[i], NULL, host, &jobs[i]);
    }
    int bad = 0;
    for (int i = 0; i < HOSTS; i++) {
        pthread_join(t[i], NULL);
        bad += jobs[i].bad;
    }
    is_int(bad, 0, "%u workers: %d host threads x %d rounds of launches and waits", threads, HOSTS,
           ROUNDS);
    cvm_device_close(shared_dev);
}

/*
 * Rounds where the host's wait races the workers: long queues (drained by
 * a worker woken past the quiet limit while the host waits and spins) and
 * launches of a few cubes (the host finishes its cubes first, then waits
 * for a worker's). A wake-up lost in those races hangs the test.
 */
static void test_wait_races(void)
{
    const cvm_kernel *k = NULL;
    cvm_device *dev = open_kernels(2, NULL, "step", &k, NULL, NULL);
    if (!dev)
        return;
    cvm_stream *s = cvm_device_stream(dev);
    cvm_buffer *x = NULL;
    cvm_buffer_create(dev, 4 * UNITS * 4, "x", &x, NULL);
    uint32_t got[4 * UNITS], v = 0;
    bool right = true;
    for (int r = 0; r < 8; r++) {
        for (int j = 0; j < 300; j++) {
            step(s, k, x, UNITS, (uint32_t)(r + j));
            v = v * 3u + (uint32_t)(r + j);
        }
        right &= cvm_stream_sync(s, NULL) == CVM_OK;
    }
    cvm_buffer_read(s, x, 0, got, UNITS * 4, NULL);
    ok(right && all_equal(got, UNITS, v), "8 rounds of 300 queued launches, then sync (x = %u)",
       got[0]);
    cvm_buffer_fill(s, x, 0, sizeof got, 0, NULL);
    v = 0;
    right = true;
    cvm_launch_config wide = {.grid = {4, 1, 1}, .block = {UNITS, 1, 1}};
    for (uint32_t r = 0; r < 400; r++) {
        cvm_arg args[2] = {{CVM_ARG_BUFFER, x, 0, NULL, 0}, {CVM_ARG_BYTES, NULL, 0, &r, 4}};
        right &= cvm_launch(s, k, &wide, args, 2, NULL) == CVM_OK;
        right &= cvm_stream_sync(s, NULL) == CVM_OK;
        v = v * 3u + r;
    }
    cvm_buffer_read(s, x, 0, got, sizeof got, NULL);
    ok(right && all_equal(got, 4 * UNITS, v), "400 launches of 4 cubes, each synced");
    cvm_buffer_free(x);
    cvm_device_close(dev);
}

int main(void)
{
    test_small_launches(1);
    test_small_launches(3);
    test_small_fault();
    test_big_args_and_text();
    test_unwaited();
    test_wait_races();
    test_streams_and_threads(1);
    test_streams_and_threads(2);
    return done_testing();
}
