/*
 * test_concurrency.c - 4 host threads x 200 launches, each thread on its
 * own stream of one shared device, module and kernel; every result is
 * checked against a value computed here. Meant to run under TSan too.
 */
#include "../vm/cubevm.h"
#include "tap.h"

#include <pthread.h>

enum { THREADS = 4, LAUNCHES = 200, N = 256 };

static const char src[] =
    ".kernel scale\n.param out buffer u32 write\n.param k scalar u32\n"
    ".reg u32 %i, %k, %v\n.reg i64 %off, %four\n.reg ptr.global %p\n"
    "    sreg.u32 %i, abs_pos.x\n    param.u32 %k, k, 0\n    mul.u32 %v, %i, %k\n"
    "    cvt.i64 %off, %i\n    const.i64 %four, 4\n    mul.i64 %off, %off, %four\n"
    "    param.ptr.global %p, out, 0\n    ptr.add.ptr.global %p, %p, %off\n"
    "    st.u32 [%p], %v\n    return\n.end\n";

static cvm_device *dev;
static const cvm_kernel *kern;

typedef struct job {
    int id;
    int bad;        /* launches whose result was wrong or that failed */
} job;

static void *host(void *arg)
{
    job *j = arg;
    cvm_stream *s = NULL;
    cvm_buffer *out = NULL;
    cvm_diag d;
    if (cvm_stream_create(dev, &s, &d) || cvm_buffer_create(dev, N * 4, "out", &out, &d)) {
        j->bad = LAUNCHES;
        return NULL;
    }
    uint32_t got[N];
    for (int r = 0; r < LAUNCHES; r++) {
        uint32_t k = (uint32_t)(j->id * 1000 + r);
        cvm_arg args[2] = {{CVM_ARG_BUFFER, out, 0, NULL, 0}, {CVM_ARG_BYTES, NULL, 0, &k, 4}};
        cvm_launch_config cfg = {.grid = {N / 32, 1, 1}, .block = {32, 1, 1}};
        if (cvm_launch(s, kern, &cfg, args, 2, &d) || cvm_buffer_read(s, out, 0, got, sizeof got, &d) ||
            cvm_stream_sync(s, &d)) {
            j->bad++;
            continue;
        }
        for (uint32_t i = 0; i < N; i++)
            if (got[i] != i * k) {
                j->bad++;
                break;
            }
    }
    cvm_buffer_free(out);
    cvm_stream_destroy(s);
    return NULL;
}

int main(void)
{
    cvm_diag d;
    void *bytes = NULL;
    size_t size = 0;
    cvm_module *m = NULL;
    cvm_config cfg = {.threads = 3};
    if (cvm_device_open("cpu", &cfg, &dev, &d) || cvm_assemble(src, strlen(src), "c.cbs", &bytes, &size, &d) ||
        cvm_module_load(dev, bytes, size, &m, &d) || cvm_kernel_get(m, "scale", &kern, &d)) {
        ok(0, "setup: %s", d.message);
        return done_testing();
    }
    cvm_free_bytes(bytes);
    pthread_t t[THREADS];
    job jobs[THREADS];
    for (int i = 0; i < THREADS; i++) {
        jobs[i] = (job){i + 1, 0};
        pthread_create(&t[i], NULL, host, &jobs[i]);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        is_int(jobs[i].bad, 0, "host thread %d: %d launches on its own stream, all results right",
               i + 1, LAUNCHES);
    }
    cvm_module_free(m);
    cvm_device_close(dev);
    return done_testing();
}
