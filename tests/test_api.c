/*
 * test_api.c - the public API on the cpu device: devices, module loading
 * (bytes, files, bad input), kernel lookup and introspection, argument and
 * launch-config checks, buffers, a vadd launch checked against a C loop,
 * fault -> skipped launch -> sync, print output, the memory limit and a
 * failing-allocator sweep that also checks every byte is given back, and
 * that workers never call the host's allocator at the same time.
 */
#include "../vm/cubevm.h"
#include "count_alloc.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char src[] =
    ".kernel vadd\n"
    ".param a buffer f32 read\n.param b buffer f32 read\n.param c buffer f32 write\n"
    ".param n scalar u32\n"
    ".reg u32 %i, %n\n.reg bool %in\n.reg i64 %off, %four\n.reg ptr.global %pa, %pb, %pc\n"
    ".reg f32 %x, %y, %s\n"
    "    sreg.u32 %i, abs_pos.x\n    param.u32 %n, n, 0\n    lt.u32 %in, %i, %n\n"
    "    if %in\n"
    "        cvt.i64 %off, %i\n        const.i64 %four, 4\n        mul.i64 %off, %off, %four\n"
    "        param.ptr.global %pa, a, 0\n        param.ptr.global %pb, b, 0\n"
    "        param.ptr.global %pc, c, 0\n"
    "        ptr.add.ptr.global %pa, %pa, %off\n        ptr.add.ptr.global %pb, %pb, %off\n"
    "        ptr.add.ptr.global %pc, %pc, %off\n"
    "        ld.f32 %x, [%pa]\n        ld.f32 %y, [%pb]\n        add.f32 %s, %x, %y\n"
    "        st.f32 [%pc], %s\n"
    "    end\n    return\n.end\n"
    /* every unit stores to out[unit]: out of bounds when out is too small */
    ".kernel fill\n.param out buffer u32 write\n"
    ".reg u32 %t\n.reg i64 %off, %four\n.reg ptr.global %p\n"
    "    sreg.u32 %t, abs_pos.x\n    cvt.i64 %off, %t\n    const.i64 %four, 4\n"
    "    mul.i64 %off, %off, %four\n    param.ptr.global %p, out, 0\n"
    "    ptr.add.ptr.global %p, %p, %off\n    print \"<%u>\", %t\n    st.u32 [%p], %t\n"
    "    return\n.end\n"
    ".kernel req\n.param s struct 16 8\n.param k comptime u32\n"
    ".plane_width 32\n.shared 1024\n.local 64\n.max_cube 256\n"
    "    return\n.end\n";

static cvm_device *dev;
static cvm_module *mod;

static void *assemble(size_t *size)
{
    void *bytes = NULL;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    if (cvm_assemble(src, strlen(src), "api.cbs", &bytes, size, &d) != CVM_OK)
        diag("assemble: %s:%u:%u: %s", d.file, d.line, d.col, d.message);
    return bytes;
}

static void test_devices(void)
{
    cvm_diag d;
    cvm_device *x = NULL;
    is_int(cvm_device_open("cpu", NULL, &dev, &d), CVM_OK, "open cpu");
    ok(cvm_device_stream(dev) != NULL, "cpu has a default stream");
    /* A device that is not built in (vulkan's own cases are in tests/test_vulkan.c; this
     * test stays off the Vulkan loader so the valgrind subset sees only cubevm's memory). */
    cvm_status st = cvm_device_open("cuda:0", NULL, &x, &d);
    ok(st == CVM_UNAVAILABLE && x == NULL && strstr(d.message, "device 'cuda:0' is not available"),
       "cuda:0: unavailable (%s)", d.message);
    st = cvm_device_open("cuda:1", NULL, &x, &d);
    ok(st == CVM_UNAVAILABLE && strstr(d.message, "'cuda:1'"), "cuda:1 unavailable (%s)", d.message);
    st = cvm_device_open("tpu", NULL, &x, &d);
    ok(st == CVM_UNAVAILABLE && strstr(d.message, "unknown device"), "tpu: unknown (%s)", d.message);
}

static void test_modules(void)
{
    cvm_diag d;
    size_t size = 0;
    void *bytes = assemble(&size);
    cvm_status st = bytes ? cvm_module_load(dev, bytes, size, &mod, &d) : CVM_INTERNAL;
    ok(st == CVM_OK, "load the assembled module (%s)", st ? d.message : "");
    if (bytes) {
        /* the module owns a copy: scribbling over the caller's bytes changes nothing */
        memset(bytes, 0xee, size);
        cvm_free_bytes(bytes);
    }
    if (st != CVM_OK)
        return;
    is_int(cvm_module_kernel_count(mod), 3, "three kernels");
    is_str(cvm_module_kernel_name(mod, 0), "vadd", "kernel 0 is vadd");
    ok(cvm_module_kernel_name(mod, 3) == NULL, "kernel 3 does not exist");
    const cvm_kernel *k = NULL;
    st = cvm_kernel_get(mod, "nope", &k, &d);
    ok(st == CVM_NOT_FOUND && strstr(d.message, "'nope'"), "unknown kernel: not found, named");

    is_int(cvm_kernel_get(mod, "vadd", &k, &d), CVM_OK, "find vadd");
    cvm_kernel_info ki;
    cvm_kernel_info_get(k, &ki);
    ok(!strcmp(ki.name, "vadd") && ki.param_count == 4 && ki.plane_width == 0 && ki.max_cube_units == 0,
       "vadd info: 4 params, any width, no bound");
    static const char *names[] = {"a", "b", "c", "n"};
    static const cvm_access acc[] = {CVM_ACCESS_READ, CVM_ACCESS_READ, CVM_ACCESS_WRITE};
    for (uint32_t i = 0; i < 4; i++) {
        cvm_param_info p;
        cvm_kernel_param(k, i, &p);
        if (i < 3)
            ok(!strcmp(p.name, names[i]) && p.kind == CVM_PARAM_BUFFER && p.elem == CVM_F32 &&
                   p.access == acc[i] && p.line == 1, "vadd param %s: buffer f32", names[i]);
        else
            ok(!strcmp(p.name, "n") && p.kind == CVM_PARAM_SCALAR && p.elem == CVM_U32 && p.size == 4,
               "vadd param n: scalar u32, 4 bytes");
    }
    cvm_param_info p;
    is_int(cvm_kernel_param(k, 4, &p), CVM_NOT_FOUND, "param 4: not found");

    cvm_kernel_get(mod, "req", &k, &d);
    cvm_kernel_info_get(k, &ki);
    ok(ki.plane_width == 32 && ki.shared_bytes == 1024 && ki.local_bytes == 64 && ki.max_cube_units == 256,
       "req: width 32, shared 1024, local 64, max cube 256");
    cvm_kernel_param(k, 0, &p);
    ok(p.kind == CVM_PARAM_STRUCT && p.size == 16, "req param s: struct of 16 bytes");
    cvm_kernel_param(k, 1, &p);
    ok(p.kind == CVM_PARAM_COMPTIME && p.elem == CVM_U32 && p.size == 4, "req param k: comptime u32");
}

static void test_bad_modules(void)
{
    cvm_diag d;
    cvm_module *m = NULL;
    cvm_status st = cvm_module_load_file(dev, "/nonexistent/dir/x.cbc", &m, &d);
    ok(st == CVM_IO && m == NULL && strstr(d.message, "/nonexistent/dir/x.cbc") &&
           strstr(d.message, "No such file"), "missing file: CVM_IO with path and reason (%s)", d.message);
    static const char junk[] = "this is not a module at all, just some text bytes";
    st = cvm_module_load(dev, junk, sizeof junk, &m, &d);
    ok((st == CVM_MALFORMED || st == CVM_VERIFY) && m == NULL, "junk bytes: malformed (%s)", d.message);
    st = cvm_module_load(dev, junk, 3, &m, &d);
    ok(st == CVM_MALFORMED && m == NULL, "3 bytes: malformed (%s)", d.message);
    const char *tmp = getenv("TEST_TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/bad.cbs", tmp && *tmp ? tmp : "/tmp");
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(".kernel k\n    frobnicate %r0\n.end\n", f);
        fclose(f);
    }
    st = cvm_module_load_file(dev, path, &m, &d);
    ok(st == CVM_SYNTAX && d.line == 2 && strstr(d.file, "bad.cbs"), "bad .cbs: syntax error at line 2 (%s:%u: %s)",
       d.file, d.line, d.message);
    is_str(cvm_verify(junk, sizeof junk, &d) == CVM_OK ? "ok" : "error", "error", "cvm_verify rejects junk");
    /* text that assembles but does not verify: the verifier's error at the instruction's
     * line and column (a load through an i32 on line 4), or at the .kernel line */
    static const char unverified[] = ".kernel k\n.reg i32 %r0\n    add.i32 %r0, %r0, %r0\n"
                                     "      ld.i32 %r0, [%r0]\n    return\n.end\n";
    void *bytes = NULL;
    size_t size = 0;
    st = cvm_assemble(unverified, strlen(unverified), "uv.cbs", &bytes, &size, &d);
    ok(st == CVM_VERIFY && !bytes && d.line == 4 && d.col == 7 && !strcmp(d.file, "uv.cbs") &&
           !strncmp(d.message, "uv.cbs:4:7: error: kernel 'k' pc 1 (ld): ", 41),
       "cvm_assemble verifies: the error at 4:7 (%s:%u:%u: %s)", d.file, d.line, d.col, d.message);
    static const char badparam[] = "\n.kernel k\n.param s struct 0 4\n    return\n.end\n";
    st = cvm_assemble(badparam, strlen(badparam), "bp.cbs", &bytes, &size, &d);
    ok(st == CVM_VERIFY && d.line == 2 && d.col == 1 && strstr(d.message, "struct parameter 0"),
       "a kernel-level verifier error points at its .kernel line (%s)", d.message);
}

static cvm_buffer *buf(const char *name, size_t size)
{
    cvm_buffer *b = NULL;
    cvm_diag d;
    if (cvm_buffer_create(dev, size, name, &b, &d) != CVM_OK)
        diag("buffer %s: %s", name, d.message);
    return b;
}

static void test_buffers(void)
{
    cvm_stream *s = cvm_device_stream(dev);
    cvm_diag d;
    cvm_buffer *b = buf("bytes", 64);
    uint8_t got[64], want[64];
    memset(want, 0, sizeof want);
    is_int(cvm_buffer_size(b), 64, "buffer size");
    ok(cvm_buffer_read(s, b, 0, got, 64, &d) == CVM_OK && !memcmp(got, want, 64), "new buffer is zero");
    uint8_t src8[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    cvm_buffer_write(s, b, 4, src8, 10, &d);
    cvm_buffer_fill(s, b, 10, 20, 0xab, &d);
    /* bytes 4..9 from src8[0..5], 10..29 = 0xab, the rest zero */
    for (int i = 4; i < 10; i++)
        want[i] = (uint8_t)(i - 3);
    for (int i = 10; i < 30; i++)
        want[i] = 0xab;
    ok(cvm_buffer_read(s, b, 0, got, 64, &d) == CVM_OK && !memcmp(got, want, 64), "write then fill");
    ok(cvm_buffer_read(s, b, 60, got, 8, &d) == CVM_INVALID_ARGUMENT && strstr(d.message, "'bytes'"),
       "read past the end: invalid argument naming the buffer");
    ok(cvm_buffer_write(s, b, 65, src8, 0, &d) == CVM_INVALID_ARGUMENT, "offset past the end");
    ok(cvm_buffer_fill(s, b, 64, 0, 1, &d) == CVM_OK, "empty fill at the end is fine");
    cvm_buffer_free(b);
}

static void test_arg_checks(void)
{
    const cvm_kernel *k = NULL, *req = NULL;
    if (!mod || cvm_kernel_get(mod, "vadd", &k, NULL) || cvm_kernel_get(mod, "req", &req, NULL)) {
        skip("no module");
        return;
    }
    cvm_stream *s = cvm_device_stream(dev);
    cvm_buffer *a = buf("a", 16), *b = buf("b", 16), *c = buf("c", 16);
    uint32_t n = 4;
    uint64_t n64 = 4;
    cvm_arg args[4] = {{CVM_ARG_BUFFER, a, 0, NULL, 0}, {CVM_ARG_BUFFER, b, 0, NULL, 0},
                       {CVM_ARG_BUFFER, c, 0, NULL, 0}, {CVM_ARG_BYTES, NULL, 0, &n, 4}};
    cvm_launch_config cfg = {.grid = {1, 1, 1}, .block = {4, 1, 1}};
    cvm_diag d;
    cvm_status st = cvm_launch(s, k, &cfg, args, 3, &d);
    ok(st == CVM_TYPE_MISMATCH && strstr(d.message, "4 arguments"), "3 of 4 args (%s)", d.message);
    args[3] = (cvm_arg){CVM_ARG_BUFFER, a, 0, NULL, 0};
    st = cvm_launch(s, k, &cfg, args, 4, &d);
    ok(st == CVM_TYPE_MISMATCH && strstr(d.message, "'n'"), "buffer for scalar n (%s)", d.message);
    args[3] = (cvm_arg){CVM_ARG_BYTES, NULL, 0, &n64, 8};
    st = cvm_launch(s, k, &cfg, args, 4, &d);
    ok(st == CVM_TYPE_MISMATCH && strstr(d.message, "'n'") && strstr(d.message, "4 bytes"),
       "8 bytes for u32 n (%s)", d.message);
    args[3] = (cvm_arg){CVM_ARG_BYTES, NULL, 0, &n, 4};
    args[1] = (cvm_arg){CVM_ARG_BYTES, NULL, 0, &n, 4};
    st = cvm_launch(s, k, &cfg, args, 4, &d);
    ok(st == CVM_TYPE_MISMATCH && strstr(d.message, "'b'"), "bytes for buffer b (%s)", d.message);
    args[1] = (cvm_arg){CVM_ARG_BUFFER, b, 17, NULL, 0};
    st = cvm_launch(s, k, &cfg, args, 4, &d);
    ok(st == CVM_INVALID_ARGUMENT && strstr(d.message, "offset 17"), "view past the end (%s)", d.message);
    args[1].offset = 16;

    cfg.block[0] = 33;
    cfg.block[1] = 32;
    st = cvm_launch(s, k, &cfg, args, 4, &d);
    ok(st == CVM_LIMIT && strstr(d.message, "1024"), "33x32 units: limit (%s)", d.message);
    cfg.block[0] = 32;
    cfg.block[1] = 1;
    cfg.plane_width = 12;
    st = cvm_launch(s, k, &cfg, args, 4, &d);
    ok(st == CVM_INVALID_ARGUMENT && strstr(d.message, "power of two"), "width 12 (%s)", d.message);
    cfg.plane_width = 128;
    is_int(cvm_launch(s, k, &cfg, args, 4, &d), CVM_INVALID_ARGUMENT, "width 128");

    uint8_t sbytes[16] = {0};
    uint32_t kv = 1;
    cvm_arg rargs[2] = {{CVM_ARG_BYTES, NULL, 0, sbytes, 16}, {CVM_ARG_BYTES, NULL, 0, &kv, 4}};
    cfg.plane_width = 16;
    st = cvm_launch(s, req, &cfg, rargs, 2, &d);
    ok(st == CVM_UNSUPPORTED && strstr(d.message, "32") && strstr(d.message, "16"),
       "req needs width 32, asked 16 (%s)", d.message);
    cfg.plane_width = 0;
    cfg.block[0] = 512;
    st = cvm_launch(s, req, &cfg, rargs, 2, &d);
    ok(st == CVM_LIMIT && strstr(d.message, "256"), "req: 512 units > max cube 256 (%s)", d.message);
    cfg.block[0] = 64;
    cfg.shared_bytes = 1u << 20;
    st = cvm_launch(s, req, &cfg, rargs, 2, &d);
    ok(st == CVM_LIMIT && strstr(d.message, "1024 static") && strstr(d.message, "1048576 dynamic"),
       "req: shared over 1 MiB (%s)", d.message);
    cfg.shared_bytes = 0;
    st = cvm_launch(s, req, &cfg, rargs, 2, &d);
    ok(st == CVM_OK && cvm_stream_sync(s, &d) == CVM_OK, "req runs with struct + comptime (%s)", d.message);
    cvm_buffer_free(a);
    cvm_buffer_free(b);
    cvm_buffer_free(c);
}

static void test_vadd(void)
{
    const cvm_kernel *k = NULL;
    if (!mod || cvm_kernel_get(mod, "vadd", &k, NULL)) {
        skip("no module");
        return;
    }
    enum { N = 1000 };
    static float a[N], b[N], c[N], want[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)i * 0.5f;
        b[i] = 3.0f - (float)i;
        want[i] = a[i] + b[i];
    }
    cvm_stream *s = cvm_device_stream(dev);
    cvm_diag d;
    cvm_buffer *ba = buf("a", sizeof a), *bb = buf("b", sizeof b), *bc = buf("c", sizeof c);
    cvm_buffer_write(s, ba, 0, a, sizeof a, &d);
    cvm_buffer_write(s, bb, 0, b, sizeof b, &d);
    uint32_t n = N;
    cvm_arg args[4] = {{CVM_ARG_BUFFER, ba, 0, NULL, 0}, {CVM_ARG_BUFFER, bb, 0, NULL, 0},
                       {CVM_ARG_BUFFER, bc, 0, NULL, 0}, {CVM_ARG_BYTES, NULL, 0, &n, 4}};
    cvm_launch_config cfg = {.grid = {4, 0, 0}, .block = {256, 0, 0}};
    cvm_status st = cvm_launch(s, k, &cfg, args, 4, &d);
    ok(st == CVM_OK, "vadd launch (%s)", st ? d.message : "");
    st = cvm_stream_sync(s, &d);
    ok(st == CVM_OK, "vadd sync (%s)", st ? d.message : "");
    cvm_buffer_read(s, bc, 0, c, sizeof c, &d);
    ok(!memcmp(c, want, sizeof c), "vadd: c == a + b for all %d elements", N);
    cvm_buffer_free(ba);
    cvm_buffer_free(bb);
    cvm_buffer_free(bc);
}

static void test_fault_skip(void)
{
    const cvm_kernel *fill = NULL;
    if (!mod || cvm_kernel_get(mod, "fill", &fill, NULL)) {
        skip("no module");
        return;
    }
    cvm_stream *s = cvm_device_stream(dev);
    cvm_diag d;
    cvm_buffer *small = buf("small_out", 4 * 4), *big = buf("big_out", 8 * 4);
    cvm_arg a1 = {CVM_ARG_BUFFER, small, 0, NULL, 0}, a2 = {CVM_ARG_BUFFER, big, 0, NULL, 0};
    cvm_launch_config cfg = {.grid = {1, 1, 1}, .block = {8, 1, 1}};
    ok(cvm_launch(s, fill, &cfg, &a1, 1, &d) == CVM_OK, "faulting launch is enqueued");
    ok(cvm_launch(s, fill, &cfg, &a2, 1, &d) == CVM_OK, "launch after it is accepted (then skipped)");
    cvm_status st = cvm_stream_sync(s, &d);
    ok(st == CVM_FAULT && d.has_fault, "sync reports the fault (%s)", d.message);
    ok(strstr(d.message, "small_out") != NULL, "fault message names the buffer");
    ok(strstr(d.message, "1 later launch skipped") != NULL, "fault message counts the skipped launch");
    ok(d.fault.unit[0] == 4 && !strcmp(d.fault.kernel, "fill"), "fault record: kernel fill, unit 4 (got %u)",
       d.fault.unit[0]);
    uint32_t got[8], zero[8] = {0};
    cvm_buffer_read(s, big, 0, got, sizeof got, &d);
    ok(!memcmp(got, zero, sizeof got), "the skipped launch did not run");
    (void)cvm_stream_output(s); /* drop the faulted launch's text */
    is_int(cvm_stream_sync(s, &d), CVM_OK, "the next sync is clean");
    ok(cvm_launch(s, fill, &cfg, &a2, 1, &d) == CVM_OK && cvm_stream_sync(s, &d) == CVM_OK,
       "launches run again after the sync");
    cvm_buffer_read(s, big, 0, got, sizeof got, &d);
    ok(got[0] == 0 && got[7] == 7, "fill wrote unit ids");
    const char *out = cvm_stream_output(s);
    ok(strstr(out, "<0>") && strstr(out, "<7>"), "print text reaches cvm_stream_output");
    is_str(cvm_stream_output(s), "", "output is cleared by reading it");
    cvm_buffer_free(small);
    cvm_buffer_free(big);
}

/* ---- memory ---- */

static void test_memory_limit(void)
{
    cvm_config cfg = {.memory_limit = 1u << 20};
    cvm_device *ld = NULL;
    cvm_diag d;
    if (cvm_device_open("cpu", &cfg, &ld, &d) != CVM_OK) {
        ok(0, "open with a limit (%s)", d.message);
        return;
    }
    cvm_buffer *b1 = NULL, *b2 = NULL;
    is_int(cvm_buffer_create(ld, 600 << 10, "first", &b1, &d), CVM_OK, "600 KiB under a 1 MiB limit");
    cvm_status st = cvm_buffer_create(ld, 600 << 10, "second", &b2, &d);
    ok(st == CVM_OUT_OF_MEMORY && b2 == NULL && strstr(d.message, "limit"),
       "a second 600 KiB exceeds the limit (%s)", d.message);
    cvm_buffer_free(b1);
    is_int(cvm_buffer_create(ld, 600 << 10, "second", &b2, &d), CVM_OK, "fits again after a free");
    cvm_buffer_free(b2);
    cvm_device_close(ld);

    /* a limit too small for the module: loading fails cleanly */
    size_t size = 0;
    void *bytes = assemble(&size);
    cfg.memory_limit = 4096;
    cvm_module *m = NULL;
    if (bytes && cvm_device_open("cpu", &cfg, &ld, &d) == CVM_OK) {
        st = cvm_module_load(ld, bytes, size, &m, &d);
        ok((st == CVM_OUT_OF_MEMORY || st == CVM_LIMIT) && m == NULL,
           "module load under a 4 KiB limit fails (%s)", d.message);
        cvm_device_close(ld);
    } else {
        ok(0, "open with a 4 KiB limit");
    }
    cvm_free_bytes(bytes);
}

/* One full use of the API under cfg: `launches` launches of fill over
 * `cubes` cubes of 8 units, each synced. */
static cvm_status session_with(const cvm_config *cfg, const void *bytes, size_t size, uint32_t cubes,
                               int launches)
{
    cvm_device *sd = NULL;
    cvm_module *m = NULL;
    cvm_buffer *out = NULL;
    const cvm_kernel *k = NULL;
    cvm_diag d;
    cvm_status st = cvm_device_open("cpu", cfg, &sd, &d);
    if (st)
        return st;
    if (!(st = cvm_module_load(sd, bytes, size, &m, &d)) && !(st = cvm_kernel_get(m, "fill", &k, &d)) &&
        !(st = cvm_buffer_create(sd, (size_t)cubes * 8 * 4, "out", &out, &d))) {
        cvm_arg a = {CVM_ARG_BUFFER, out, 0, NULL, 0};
        cvm_launch_config lc = {.grid = {cubes, 1, 1}, .block = {8, 1, 1}};
        for (int i = 0; i < launches && !st; i++)
            if (!(st = cvm_launch(cvm_device_stream(sd), k, &lc, &a, 1, &d)))
                st = cvm_stream_sync(cvm_device_stream(sd), &d);
        (void)cvm_stream_output(cvm_device_stream(sd));
    }
    cvm_buffer_free(out);
    cvm_module_free(m);
    cvm_device_close(sd);
    return st;
}

/* One full use of the API under an allocator that fails its n-th call. */
static cvm_status session(counting *c, const void *bytes, size_t size)
{
    cvm_config cfg = {.alloc = count_alloc, .alloc_user = c};
    return session_with(&cfg, bytes, size, 2, 1);
}

static void test_failing_allocator(void)
{
    size_t size = 0;
    void *bytes = assemble(&size);
    if (!bytes) {
        skip("no module bytes");
        return;
    }
    counting c = {0, 0, -1};
    cvm_status st = session(&c, bytes, size);
    ok(st == CVM_OK && c.live == 0, "a full session succeeds and frees everything (%lld bytes left)", c.live);
    long total = c.calls;
    int bad = 0, leaks = 0;
    for (long n = 0; n < total; n++) {
        counting f = {0, 0, n};
        st = session(&f, bytes, size);
        if (st != CVM_OUT_OF_MEMORY && st != CVM_OK)
            bad++;
        if (f.live != 0)
            leaks++;
    }
    ok(total > 5 && bad == 0, "failing each of %ld allocations gives CVM_OUT_OF_MEMORY (%d other)", total, bad);
    is_int(leaks, 0, "no failing-allocation path leaks");
    cvm_free_bytes(bytes);
}

/* A hook that is not thread-safe, as Lua's contract allows: it notes
 * when two threads are inside it at once, and stays inside a while so
 * that an overlap would show. */
typedef struct overlap {
    counting c;
    int inside, most;
} overlap;

static void *overlap_alloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    overlap *o = user;
    int now = __atomic_add_fetch(&o->inside, 1, __ATOMIC_SEQ_CST);
    int seen = __atomic_load_n(&o->most, __ATOMIC_SEQ_CST);
    while (now > seen && !__atomic_compare_exchange_n(&o->most, &seen, now, 0, __ATOMIC_SEQ_CST,
                                                      __ATOMIC_SEQ_CST)) {
    }
    struct timespec pause = {0, 200000}; /* 0.2 ms */
    nanosleep(&pause, NULL);
    void *p = count_alloc(&o->c, ptr, old_size, new_size);
    __atomic_sub_fetch(&o->inside, 1, __ATOMIC_SEQ_CST);
    return p;
}

/* Four workers run a launch of 64 cubes that print, and each grows its
 * text buffer through the hook as it goes: the library must call the
 * hook one at a time, and then the count comes back to zero. */
static void test_hook_one_at_a_time(void)
{
    size_t size = 0;
    void *bytes = assemble(&size);
    overlap o = {{0, 0, -1}, 0, 0};
    cvm_config cfg = {.alloc = overlap_alloc, .alloc_user = &o, .threads = 4};
    cvm_status st = bytes ? session_with(&cfg, bytes, size, 64, 4) : CVM_INTERNAL;
    cvm_free_bytes(bytes);
    is_int(st, CVM_OK, "launches on four workers through a hook that is not thread-safe");
    is_int(o.most, 1, "the hook is never entered by two threads at once (%ld calls)", o.c.calls);
    ok(o.c.live == 0, "and every byte comes back (%lld left)", o.c.live);
}

/* Counts of compile options beside NULL lists, NULL strings in them and a
 * NULL kernel info are refused, never read. */
static void test_null_options(void)
{
    static const char one[] = "__global__ void k(float *o) { o[0] = 1; }";
    const char *none[1] = {NULL};
    void *bytes = NULL;
    size_t size = 0;
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_compile_options o;
    memset(&o, 0, sizeof o);
    o.kernel_count = 1;
    ok(cvm_compile_cuda(one, sizeof one - 1, "k.cu", &o, &bytes, &size, &d) == CVM_INVALID_ARGUMENT && !bytes,
       "a kernel count with a NULL list is refused (%s)", d.message);
    memset(&o, 0, sizeof o);
    o.define_count = 1;
    ok(cvm_compile_cuda(one, sizeof one - 1, "k.cu", &o, &bytes, &size, &d) == CVM_INVALID_ARGUMENT,
       "a define count with a NULL list is refused");
    memset(&o, 0, sizeof o);
    o.include_dir_count = 2;
    ok(cvm_compile_cuda(one, sizeof one - 1, "k.cu", &o, &bytes, &size, &d) == CVM_INVALID_ARGUMENT,
       "an include count with a NULL list is refused");
    memset(&o, 0, sizeof o);
    o.defines = none;
    o.define_count = 1;
    ok(cvm_compile_cuda(one, sizeof one - 1, "k.cu", &o, &bytes, &size, &d) == CVM_INVALID_ARGUMENT &&
           strstr(d.message, "NULL string"), "a NULL define is refused (%s)", d.message);
    cvm_kernel_info_get(NULL, NULL); /* nothing to write (it crashed before) */
    cvm_kernel_info info;
    memset(&info, 0xff, sizeof info);
    cvm_kernel_info_get(NULL, &info);
    ok(!info.name && !info.param_count, "the info of a NULL kernel is all zero");
}

int main(void)
{
    test_devices();
    if (dev) {
        test_modules();
        test_bad_modules();
        test_buffers();
        test_arg_checks();
        test_vadd();
        test_fault_skip();
        cvm_module_free(mod);
        cvm_device_close(dev);
    }
    test_memory_limit();
    test_failing_allocator();
    test_hook_one_at_a_time();
    test_null_options();
    return done_testing();
}
