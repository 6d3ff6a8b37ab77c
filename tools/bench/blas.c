/*
 * blas.c - the openblas contender (matmul): cblas_sgemm from Debian's
 * libopenblas, loaded with dlopen after OPENBLAS_CORETYPE=SKYLAKEX is set,
 * because OpenBLAS 0.3.21 does not recognise these CPUs and would fall back
 * to a generic kernel (PERF.md). The kernel it used goes into the notes.
 */
#include "bench.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the CBLAS enum values (cblas.h), so the header is not needed */
enum { ROW_MAJOR = 101, NO_TRANS = 111 };
typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *, int,
                         float, float *, int);
typedef char *(*corename_fn)(void);
typedef void (*set_threads_fn)(int);

static void *lib;
static sgemm_fn sgemm;
static float *out;

static int b_setup(const bench_case *bc, char *why, size_t whylen)
{
    if (!lib) {
        int forced = __builtin_cpu_supports("avx512f"); /* SKYLAKEX needs AVX-512 */
        if (forced) setenv("OPENBLAS_CORETYPE", "SKYLAKEX", 1);
        setenv("OPENBLAS_THREAD_TIMEOUT", "4", 1); /* its threads stop spinning soon after a call */
        lib = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
        if (!lib) { snprintf(why, whylen, "%s (libopenblas-dev)", dlerror()); return PREP_UNAVAILABLE; }
        sgemm = (sgemm_fn)(uintptr_t)dlsym(lib, "cblas_sgemm");
        corename_fn core = (corename_fn)(uintptr_t)dlsym(lib, "openblas_get_corename");
        set_threads_fn nt = (set_threads_fn)(uintptr_t)dlsym(lib, "openblas_set_num_threads");
        if (nt) nt(g_threads);
        snprintf(openblas_contender.note, sizeof openblas_contender.note,
                 "openblas: kernel %s (%s), %d threads", core ? core() : "?",
                 forced ? "OPENBLAS_CORETYPE=SKYLAKEX" : "autodetected: no AVX-512, SKYLAKEX not forced", g_threads);
    }
    if (!sgemm) { snprintf(why, whylen, "libopenblas has no cblas_sgemm"); return PREP_UNAVAILABLE; }
    out = xalloc(bc->out_count * 4);
    memset(out, 0, bc->out_count * 4);
    return PREP_OK;
}

static double b_run(const bench_case *bc, char *why, size_t whylen)
{
    (void)why; (void)whylen;
    int n = bc->rows;
    double t0 = now_ms();
    sgemm(ROW_MAJOR, NO_TRANS, NO_TRANS, n, n, n, 1.0f, bc->in[0], n, bc->in[1], n, 0.0f, out, n);
    return now_ms() - t0;
}

static const float *b_output(const bench_case *bc) { (void)bc; return out; }
static void b_teardown(const bench_case *bc) { (void)bc; free(out); out = NULL; }

contender openblas_contender = { "openblas", b_setup, b_run, b_output, b_teardown, "" };
