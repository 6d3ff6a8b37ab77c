/*
 * dnnl.c - the onednn contender (max_pool2d and conv2d): Debian's oneDNN
 * through its C API. Pooling runs on the NHWC input as it is (one of
 * oneDNN's preferred layouts, so no reorder); convolution lets oneDNN pick
 * its layouts (format "any", usually blocked) and reorders the NCHW inputs
 * into them before the timing and the result back to NCHW after it. Built
 * only with dnnl.h present (BENCH_DNNL); otherwise reported unavailable.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef BENCH_DNNL

static int d_setup(const bench_case *bc, char *why, size_t whylen)
{
    (void)bc;
    snprintf(why, whylen, "built without oneDNN's dnnl.h (libdnnl-dev)");
    return PREP_UNAVAILABLE;
}
static double d_run(const bench_case *bc, char *why, size_t whylen) { (void)bc; (void)why; (void)whylen; return -1; }
static const float *d_output(const bench_case *bc) { (void)bc; return NULL; }
static void d_teardown(const bench_case *bc) { (void)bc; }

#else

#include <oneapi/dnnl/dnnl.h>
#include <omp.h>

static dnnl_engine_t eng;
static dnnl_stream_t strm;
static dnnl_primitive_t prim;
static dnnl_memory_t m_src, m_wt, m_dst, m_user_dst;
static float *host_out;

#define CHK(x) do { if ((x) != dnnl_success) { snprintf(why, whylen, "%s failed", #x); goto fail; } } while (0)

/* one primitive run from `from` to `to`, waited for */
static int reorder(dnnl_memory_t from, dnnl_memory_t to)
{
    const dnnl_memory_desc_t *fmd, *tmd;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t r = NULL;
    int rc = -1;
    dnnl_memory_get_memory_desc(from, &fmd);
    dnnl_memory_get_memory_desc(to, &tmd);
    if (dnnl_reorder_primitive_desc_create(&pd, fmd, eng, tmd, eng, NULL) == dnnl_success &&
        dnnl_primitive_create(&r, pd) == dnnl_success) {
        dnnl_exec_arg_t a[2] = { { DNNL_ARG_FROM, from }, { DNNL_ARG_TO, to } };
        rc = dnnl_primitive_execute(r, strm, 2, a) == dnnl_success && dnnl_stream_wait(strm) == dnnl_success ? 0 : -1;
    }
    if (r) dnnl_primitive_destroy(r);
    if (pd) dnnl_primitive_desc_destroy(pd);
    return rc;
}

static int setup_pool(const bench_case *bc, char *why, size_t whylen)
{
    dnnl_memory_desc_t src, dst;
    dnnl_pooling_desc_t pdesc;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_dims_t sd = { bc->n, bc->c, bc->h, bc->w }, dd = { bc->n, bc->c, bc->oh, bc->ow };
    dnnl_dims_t st = { bc->s, bc->s }, k = { bc->k, bc->k }, pl = { bc->p, bc->p };
    /* the bottom/right padding that makes oneDNN's output size the same */
    dnnl_dims_t pr = { (bc->oh - 1) * bc->s + bc->k - bc->h - bc->p, (bc->ow - 1) * bc->s + bc->k - bc->w - bc->p };
    CHK(dnnl_memory_desc_init_by_tag(&src, 4, sd, dnnl_f32, dnnl_nhwc));
    CHK(dnnl_memory_desc_init_by_tag(&dst, 4, dd, dnnl_f32, dnnl_nhwc));
    CHK(dnnl_pooling_forward_desc_init(&pdesc, dnnl_forward_inference, dnnl_pooling_max, &src, &dst, st, k, pl, pr));
    CHK(dnnl_primitive_desc_create(&pd, &pdesc, NULL, eng, NULL));
    CHK(dnnl_primitive_create(&prim, pd));
    CHK(dnnl_memory_create(&m_src, &src, eng, DNNL_MEMORY_ALLOCATE));
    CHK(dnnl_memory_create(&m_dst, &dst, eng, DNNL_MEMORY_ALLOCATE));
    void *p;
    CHK(dnnl_memory_get_data_handle(m_src, &p));
    memcpy(p, bc->in[0], bc->in_count[0] * 4);
    dnnl_primitive_desc_destroy(pd);
    return 0;
fail:
    if (pd) dnnl_primitive_desc_destroy(pd);
    return -1;
}

static int setup_conv(const bench_case *bc, char *why, size_t whylen)
{
    dnnl_memory_desc_t src, wt, dst, usrc, uwt, udst;
    dnnl_convolution_desc_t cdesc;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_memory_t us = NULL, uw = NULL;
    dnnl_dims_t sd = { bc->n, bc->ci, bc->h, bc->w }, wd = { bc->co, bc->ci, bc->k, bc->k };
    dnnl_dims_t dd = { bc->n, bc->co, bc->h, bc->w }, st = { 1, 1 }, pad = { bc->p, bc->p };
    CHK(dnnl_memory_desc_init_by_tag(&src, 4, sd, dnnl_f32, dnnl_format_tag_any));
    CHK(dnnl_memory_desc_init_by_tag(&wt, 4, wd, dnnl_f32, dnnl_format_tag_any));
    CHK(dnnl_memory_desc_init_by_tag(&dst, 4, dd, dnnl_f32, dnnl_format_tag_any));
    CHK(dnnl_memory_desc_init_by_tag(&usrc, 4, sd, dnnl_f32, dnnl_nchw));
    CHK(dnnl_memory_desc_init_by_tag(&uwt, 4, wd, dnnl_f32, dnnl_oihw));
    CHK(dnnl_memory_desc_init_by_tag(&udst, 4, dd, dnnl_f32, dnnl_nchw));
    CHK(dnnl_convolution_forward_desc_init(&cdesc, dnnl_forward_inference, dnnl_convolution_direct, &src, &wt,
                                           NULL, &dst, st, pad, pad));
    CHK(dnnl_primitive_desc_create(&pd, &cdesc, NULL, eng, NULL));
    CHK(dnnl_primitive_create(&prim, pd));
    CHK(dnnl_memory_create(&m_src, dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), eng, DNNL_MEMORY_ALLOCATE));
    CHK(dnnl_memory_create(&m_wt, dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0), eng, DNNL_MEMORY_ALLOCATE));
    CHK(dnnl_memory_create(&m_dst, dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), eng, DNNL_MEMORY_ALLOCATE));
    CHK(dnnl_memory_create(&us, &usrc, eng, bc->in[0]));
    CHK(dnnl_memory_create(&uw, &uwt, eng, bc->in[1]));
    CHK(dnnl_memory_create(&m_user_dst, &udst, eng, DNNL_MEMORY_ALLOCATE));
    if (reorder(us, m_src) || reorder(uw, m_wt)) { snprintf(why, whylen, "input reorder failed"); goto fail; }
    dnnl_memory_destroy(us);
    dnnl_memory_destroy(uw);
    dnnl_primitive_desc_destroy(pd);
    return 0;
fail:
    if (us) dnnl_memory_destroy(us);
    if (uw) dnnl_memory_destroy(uw);
    if (pd) dnnl_primitive_desc_destroy(pd);
    return -1;
}

static void d_teardown(const bench_case *bc)
{
    (void)bc;
    dnnl_memory_t *ms[] = { &m_src, &m_wt, &m_dst, &m_user_dst };
    for (int i = 0; i < 4; i++) { if (*ms[i]) dnnl_memory_destroy(*ms[i]); *ms[i] = NULL; }
    if (prim) dnnl_primitive_destroy(prim);
    prim = NULL;
    free(host_out);
    host_out = NULL;
}

static int d_setup(const bench_case *bc, char *why, size_t whylen)
{
    omp_set_num_threads(g_threads);
    if (!eng) {
        CHK(dnnl_engine_create(&eng, dnnl_cpu, 0));
        CHK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
        const dnnl_version_t *v = dnnl_version();
        snprintf(onednn_contender.note, sizeof onednn_contender.note,
                 "onednn: %d.%d.%d (%s), pooling on NHWC, conv2d in the layouts it picks (reorders untimed)",
                 v->major, v->minor, v->patch, v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "other runtime");
    }
    host_out = xalloc(bc->out_count * 4);
    if ((bc->kind == K_POOL ? setup_pool : setup_conv)(bc, why, whylen)) goto fail;
    return PREP_OK;
fail:
    d_teardown(bc);
    return PREP_UNAVAILABLE;
}

static double d_run(const bench_case *bc, char *why, size_t whylen)
{
    dnnl_exec_arg_t a[3] = { { DNNL_ARG_SRC, m_src }, { DNNL_ARG_DST, m_dst }, { DNNL_ARG_WEIGHTS, m_wt } };
    double t0 = now_ms();
    if (dnnl_primitive_execute(prim, strm, bc->kind == K_CONV ? 3 : 2, a) != dnnl_success ||
        dnnl_stream_wait(strm) != dnnl_success) {
        snprintf(why, whylen, "dnnl_primitive_execute failed");
        return -1;
    }
    return now_ms() - t0;
}

static const float *d_output(const bench_case *bc)
{
    void *p;
    dnnl_memory_t m = m_dst;
    if (bc->kind == K_CONV) {
        if (reorder(m_dst, m_user_dst)) return NULL;
        m = m_user_dst;
    }
    if (dnnl_memory_get_data_handle(m, &p) != dnnl_success) return NULL;
    memcpy(host_out, p, bc->out_count * 4);
    return host_out;
}

#endif

contender onednn_contender = { "onednn", d_setup, d_run, d_output, d_teardown, "" };
