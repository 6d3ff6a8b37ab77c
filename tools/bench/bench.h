/*
 * bench.h - shared types of the `make bench` harness (tools/bench/).
 *
 * A case owns its random inputs and the plain C result every contender's
 * output is checked against. A contender prepares a case (setup), runs it
 * once and returns the wall time of that run (run), and hands back its
 * output for the check (output). The driver in bench.c interleaves the
 * runs of all contenders round by round.
 */
#ifndef BENCH_H
#define BENCH_H

#include <stddef.h>
#include <stdint.h>

enum case_kind {
    K_POOL, K_VADD, K_SAXPY, K_SUM, K_SOFTMAX, K_TRANSPOSE, K_CONV, K_MATMUL, K_LAUNCH
};

typedef struct bench_case {
    const char *name;
    enum case_kind kind;
    /* shape: pool (n,h,w,c,k,s,p,oh,ow); conv (n,ci,co,h,w,k,p); rows/cols;
       vectors of len elements */
    int n, h, w, c, k, s, p, oh, ow, ci, co;
    int rows, cols;
    long len;
    float alpha;             /* saxpy */
    float *in[2];            /* inputs (host, 64-byte aligned) */
    size_t in_count[2];
    int n_in;
    size_t out_count;        /* elements of the output */
    float *ref;              /* the plain C result */
    double atol, rtol;       /* how close an output must be to ref */
    double bytes, flops;     /* that must move / be computed, per run */
} bench_case;

/* Result of preparing a case for a contender. */
enum { PREP_OK = 0, PREP_UNAVAILABLE = 1, PREP_NA = 2 };

typedef struct contender {
    const char *name;
    /* PREP_OK, or PREP_UNAVAILABLE / PREP_NA with the reason in why */
    int (*setup)(const bench_case *bc, char *why, size_t whylen);
    /* one run; wall milliseconds, or < 0 on failure (reason in why) */
    double (*run)(const bench_case *bc, char *why, size_t whylen);
    /* the output of the last run (host memory valid until the next call) */
    const float *(*output)(const bench_case *bc);
    void (*teardown)(const bench_case *bc);
    /* free-text note printed once under the table (kernel used, ...) */
    char note[256];
} contender;

/* shared settings */
extern int g_threads;
extern const char *g_root;   /* repository root (kernels, driver script) */
extern const char *g_outdir; /* build/bench */

double now_ms(void);
void *xalloc(size_t bytes);  /* 64-byte aligned; exits on failure (a tool, not the library) */
void fill_random(float *p, size_t n, uint64_t seed, float lo, float hi);

/* the plain C contender and the floor probes (cases.c) */
extern contender c_contender;
void c_prepare_case(bench_case *bc); /* inputs, reference, bytes/flops */
void c_release_case(bench_case *bc);
extern contender floor_contender;
void probe_init(void);      /* probe arrays and the FMA peak */
void probe_fini(void);
double probe_gbs(int read, int runs); /* triad (read = 0) or read-only GB/s, median */
double probe_peak_gflops(void);
double probe_fma_gflops(void);

/* the others */
extern contender cubevm_contender, cubevm_interp_contender, cubevm_native_contender;
extern contender pocl_contender, onednn_contender, openblas_contender;
extern contender torch_contender, torch_nchw_contender;
int cubevm_global_init(char *why, size_t whylen);
void cubevm_global_fini(void);
/* launch case: median launch+sync (already measured by setup) and enqueue rate */
double cubevm_enqueue_per_s(void);
void torch_global_fini(void);
/* lavapipe.c: the same kernels on the vulkan device with Mesa's lavapipe */
extern contender lavapipe_contender;
void lavapipe_global_fini(void);

#endif
