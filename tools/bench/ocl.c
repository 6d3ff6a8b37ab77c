/*
 * ocl.c - the pocl contender: an OpenCL host program running
 * kernels/bench.cl (a line-by-line translation of kernels/bench.cu: same
 * tiling, same cube size) on PoCL's CPU device. Kernels with one unit per
 * element take the best of local sizes {64, 128, 256}, chosen during the
 * warm-up; kernels whose tiling fixes the cube keep the cubevm cube.
 * Built only when the OpenCL headers are there (BENCH_OPENCL); otherwise
 * the contender is reported unavailable.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef BENCH_OPENCL

static int p_setup(const bench_case *bc, char *why, size_t whylen)
{
    (void)bc;
    snprintf(why, whylen, "built without the OpenCL headers (opencl-headers, ocl-icd-opencl-dev)");
    return PREP_UNAVAILABLE;
}
static double p_run(const bench_case *bc, char *why, size_t whylen) { (void)bc; (void)why; (void)whylen; return -1; }
static const float *p_output(const bench_case *bc) { (void)bc; return NULL; }
static void p_teardown(const bench_case *bc) { (void)bc; }

#else

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

static cl_context ctx;
static cl_command_queue q;
static cl_program prog;
static int init_done;
static char init_err[256];
static cl_mem m_in[2], m_out, m_part;
static cl_kernel kern[2];
static int nkern;
static size_t local_1d;
static float *host_out;

#define SUM_CUBES 1024

static int init_cl(void)
{
    cl_platform_id plats[8];
    cl_uint np = 0;
    cl_device_id devid;
    cl_int err;
    char path[1024], devname[128] = "";
    init_done = 1;
    if (clGetPlatformIDs(8, plats, &np) != CL_SUCCESS || np == 0) {
        snprintf(init_err, sizeof init_err, "no OpenCL platform (is pocl-opencl-icd installed?)");
        return -1;
    }
    cl_uint i;
    for (i = 0; i < np; i++)
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_CPU, 1, &devid, NULL) == CL_SUCCESS) break;
    if (i == np) { snprintf(init_err, sizeof init_err, "no OpenCL CPU device"); return -1; }
    clGetDeviceInfo(devid, CL_DEVICE_NAME, sizeof devname, devname, NULL);
    ctx = clCreateContext(NULL, 1, &devid, NULL, NULL, &err);
    if (!ctx) { snprintf(init_err, sizeof init_err, "clCreateContext: %d", err); return -1; }
    q = clCreateCommandQueue(ctx, devid, 0, &err);
    snprintf(path, sizeof path, "%s/tools/bench/kernels/bench.cl", g_root);
    FILE *f = fopen(path, "rb");
    static char src[65536];
    size_t len = f ? fread(src, 1, sizeof src - 1, f) : 0;
    if (f) fclose(f);
    src[len] = 0;
    const char *s = src;
    prog = clCreateProgramWithSource(ctx, 1, &s, &len, &err);
    if (!q || !prog || clBuildProgram(prog, 1, &devid, "-cl-std=CL1.2", NULL, NULL) != CL_SUCCESS) {
        char log[200] = "";
        if (prog) clGetProgramBuildInfo(prog, devid, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        snprintf(init_err, sizeof init_err, "building bench.cl failed: %s", log);
        return -1;
    }
    /* PoCL's pthread device: its worker count follows POCL_MAX_PTHREAD_COUNT (set by bench.c) */
    snprintf(pocl_contender.note, sizeof pocl_contender.note,
             "pocl: device \"%s\"; local size of one-unit-per-element kernels: best of 64/128/256", devname);
    return 0;
}

static int setarg(cl_kernel k, int i, size_t size, const void *p) { return clSetKernelArg(k, (cl_uint)i, size, p) != CL_SUCCESS; }

/* kernel arguments in bench.cu's order */
static int set_args(const bench_case *bc)
{
    static int iv[12];
    int bad = 0;
    cl_kernel k = kern[0];
    switch (bc->kind) {
    case K_POOL: {
        int v[9] = { bc->n, bc->h, bc->w, bc->c, bc->oh, bc->ow, bc->k, bc->s, bc->p };
        memcpy(iv, v, sizeof v);
        bad |= setarg(k, 0, sizeof(cl_mem), &m_in[0]) | setarg(k, 1, sizeof(cl_mem), &m_out);
        for (int i = 0; i < 9; i++) bad |= setarg(k, 2 + i, 4, &iv[i]);
        break;
    }
    case K_VADD:
    case K_MATMUL:
        iv[0] = bc->kind == K_VADD ? (int)bc->len : bc->rows;
        bad |= setarg(k, 0, sizeof(cl_mem), &m_in[0]) | setarg(k, 1, sizeof(cl_mem), &m_in[1]) |
               setarg(k, 2, sizeof(cl_mem), &m_out) | setarg(k, 3, 4, &iv[0]);
        break;
    case K_SAXPY:
        iv[0] = (int)bc->len;
        bad |= setarg(k, 0, 4, &bc->alpha) | setarg(k, 1, sizeof(cl_mem), &m_in[0]) |
               setarg(k, 2, sizeof(cl_mem), &m_in[1]) | setarg(k, 3, sizeof(cl_mem), &m_out) |
               setarg(k, 4, 4, &iv[0]);
        break;
    case K_SUM:
        iv[0] = (int)bc->len;
        iv[1] = SUM_CUBES;
        bad |= setarg(k, 0, sizeof(cl_mem), &m_in[0]) | setarg(k, 1, sizeof(cl_mem), &m_part) |
               setarg(k, 2, 4, &iv[0]);
        bad |= setarg(kern[1], 0, sizeof(cl_mem), &m_part) | setarg(kern[1], 1, sizeof(cl_mem), &m_out) |
               setarg(kern[1], 2, 4, &iv[1]);
        break;
    case K_SOFTMAX:
        iv[0] = bc->cols;
        bad |= setarg(k, 0, sizeof(cl_mem), &m_in[0]) | setarg(k, 1, sizeof(cl_mem), &m_out) | setarg(k, 2, 4, &iv[0]);
        break;
    case K_TRANSPOSE:
        iv[0] = bc->rows;
        iv[1] = bc->cols;
        bad |= setarg(k, 0, sizeof(cl_mem), &m_in[0]) | setarg(k, 1, sizeof(cl_mem), &m_out) |
               setarg(k, 2, 4, &iv[0]) | setarg(k, 3, 4, &iv[1]);
        break;
    case K_CONV: {
        int v[7] = { bc->n, bc->ci, bc->co, bc->h, bc->w, bc->k, bc->p };
        memcpy(iv, v, sizeof v);
        bad |= setarg(k, 0, sizeof(cl_mem), &m_in[0]) | setarg(k, 1, sizeof(cl_mem), &m_in[1]) |
               setarg(k, 2, sizeof(cl_mem), &m_out);
        for (int i = 0; i < 7; i++) bad |= setarg(k, 3 + i, 4, &iv[i]);
        break;
    }
    case K_LAUNCH: break;
    }
    return bad;
}

static int enqueue(const bench_case *bc)
{
    size_t g[2], l[2];
    cl_uint dims = 1;
    switch (bc->kind) {
    case K_POOL: case K_VADD: case K_SAXPY: case K_CONV:
        l[0] = local_1d;
        g[0] = (bc->out_count + local_1d - 1) / local_1d * local_1d;
        break;
    case K_SUM:
        l[0] = 256; g[0] = 256 * SUM_CUBES;
        if (clEnqueueNDRangeKernel(q, kern[0], 1, NULL, g, l, 0, NULL, NULL) != CL_SUCCESS) return -1;
        g[0] = 256;
        return clEnqueueNDRangeKernel(q, kern[1], 1, NULL, g, l, 0, NULL, NULL) != CL_SUCCESS;
    case K_SOFTMAX: l[0] = 256; g[0] = 256 * (size_t)bc->rows; break;
    case K_TRANSPOSE:
        dims = 2; l[0] = 32; l[1] = 8;
        g[0] = (size_t)(bc->cols + 31) / 32 * 32; g[1] = (size_t)(bc->rows + 31) / 32 * 8;
        break;
    case K_MATMUL: dims = 2; l[0] = l[1] = 16; g[0] = g[1] = (size_t)bc->rows; break;
    case K_LAUNCH: l[0] = g[0] = 32; break;
    }
    return clEnqueueNDRangeKernel(q, kern[0], dims, NULL, g, l, 0, NULL, NULL) != CL_SUCCESS;
}

static double p_run(const bench_case *bc, char *why, size_t whylen)
{
    double t0 = now_ms();
    if (enqueue(bc) || clFinish(q) != CL_SUCCESS) { snprintf(why, whylen, "enqueue failed"); return -1; }
    return now_ms() - t0;
}

static const char *kernel_name(enum case_kind k)
{
    static const char *names[] = { "max_pool2d_nhwc", "vadd", "saxpy", "sum_partial", "softmax_rows",
                                   "transpose", "conv2d_nchw", "matmul", "empty" };
    return names[k];
}

static int p_setup(const bench_case *bc, char *why, size_t whylen)
{
    cl_int err;
    if (!init_done) init_cl();
    if (init_err[0]) { snprintf(why, whylen, "%s", init_err); return PREP_UNAVAILABLE; }
    for (int i = 0; i < bc->n_in; i++) {
        m_in[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bc->in_count[i] * 4, bc->in[i], &err);
        if (!m_in[i]) goto fail;
    }
    m_out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (bc->out_count ? bc->out_count : 1) * 4, NULL, &err);
    m_part = clCreateBuffer(ctx, CL_MEM_READ_WRITE, SUM_CUBES * 4, NULL, &err);
    nkern = bc->kind == K_SUM ? 2 : 1;
    kern[0] = clCreateKernel(prog, kernel_name(bc->kind), &err);
    kern[1] = bc->kind == K_SUM ? clCreateKernel(prog, "sum_final", &err) : NULL;
    if (!m_out || !m_part || !kern[0] || (nkern == 2 && !kern[1]) || set_args(bc)) goto fail;
    host_out = xalloc((bc->out_count ? bc->out_count : 1) * 4);
    local_1d = 256;
    if (bc->kind == K_POOL || bc->kind == K_VADD || bc->kind == K_SAXPY || bc->kind == K_CONV) {
        double best = 1e30;
        size_t best_l = 256;
        for (size_t l = 64; l <= 256; l *= 2) {
            local_1d = l;
            for (int r = 0; r < 2; r++) {
                double t = p_run(bc, why, whylen);
                if (t < 0) goto fail;
                if (t < best) { best = t; best_l = l; }
            }
        }
        local_1d = best_l;
    }
    return PREP_OK;
fail:
    snprintf(why, whylen, "OpenCL setup failed (error %d)", err);
    return PREP_UNAVAILABLE;
}

static const float *p_output(const bench_case *bc)
{
    if (bc->kind == K_LAUNCH) { host_out[0] = 0; return host_out; }
    if (clEnqueueReadBuffer(q, m_out, CL_TRUE, 0, bc->out_count * 4, host_out, 0, NULL, NULL) != CL_SUCCESS)
        return NULL;
    return host_out;
}

static void p_teardown(const bench_case *bc)
{
    (void)bc;
    for (int i = 0; i < 2; i++) {
        if (m_in[i]) clReleaseMemObject(m_in[i]);
        if (kern[i]) clReleaseKernel(kern[i]);
        m_in[i] = NULL;
        kern[i] = NULL;
    }
    if (m_out) clReleaseMemObject(m_out);
    if (m_part) clReleaseMemObject(m_part);
    m_out = m_part = NULL;
    free(host_out);
    host_out = NULL;
}

#endif

contender pocl_contender = { "pocl", p_setup, p_run, p_output, p_teardown, "" };
