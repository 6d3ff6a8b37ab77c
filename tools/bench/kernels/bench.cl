// bench.cl - line-by-line OpenCL C translation of bench.cu for the pocl
// contender of `make bench`: same tiling, same cube (work-group) size,
// same arithmetic order. blockIdx/threadIdx/blockDim/gridDim become
// get_group_id/get_local_id/get_local_size/get_num_groups.

#pragma OPENCL FP_CONTRACT OFF /* as cubevm and the c contender: every operation rounds */

#define TILE 32
#define MM_TILE 16

__kernel void max_pool2d_nhwc(__global const float *in, __global float *out, int n, int h, int w,
                              int c, int oh, int ow, int k, int s, int p)
{
    long total = (long)n * oh * ow * c;
    long i = (long)get_group_id(0) * get_local_size(0) + get_local_id(0);
    if (i >= total) return;
    int ch = (int)(i % c);
    long t = i / c;
    int ox = (int)(t % ow);
    t = t / ow;
    int oy = (int)(t % oh);
    int b = (int)(t / oh);
    float m = -INFINITY;
    for (int ky = 0; ky < k; ky++) {
        int y = oy * s - p + ky;
        if (y < 0 || y >= h) continue;
        for (int kx = 0; kx < k; kx++) {
            int x = ox * s - p + kx;
            if (x < 0 || x >= w) continue;
            float v = in[(((long)b * h + y) * w + x) * c + ch];
            m = fmax(m, v);
        }
    }
    out[i] = m;
}

__kernel void vadd(__global const float *a, __global const float *b, __global float *c, int n)
{
    int i = get_group_id(0) * get_local_size(0) + get_local_id(0);
    if (i < n) c[i] = a[i] + b[i];
}

__kernel void saxpy(float a, __global const float *x, __global const float *y, __global float *out,
                    int n)
{
    int i = get_group_id(0) * get_local_size(0) + get_local_id(0);
    if (i < n) out[i] = a * x[i] + y[i];
}

__kernel void sum_partial(__global const float *in, __global float *partial, int n)
{
    __local float acc[256];
    int lid = get_local_id(0);
    float s = 0.0f;
    for (int i = get_group_id(0) * get_local_size(0) + lid; i < n;
         i += get_local_size(0) * get_num_groups(0))
        s += in[i];
    acc[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int step = get_local_size(0) / 2; step > 0; step >>= 1) {
        if (lid < step) acc[lid] += acc[lid + step];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) partial[get_group_id(0)] = acc[0];
}

__kernel void sum_final(__global const float *partial, __global float *out, int n)
{
    __local float acc[256];
    int lid = get_local_id(0);
    float s = 0.0f;
    for (int i = lid; i < n; i += get_local_size(0))
        s += partial[i];
    acc[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int step = get_local_size(0) / 2; step > 0; step >>= 1) {
        if (lid < step) acc[lid] += acc[lid + step];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) out[0] = acc[0];
}

__kernel void softmax_rows(__global const float *in, __global float *out, int cols)
{
    __local float red[256];
    int lid = get_local_id(0);
    __global const float *row = in + (long)get_group_id(0) * cols;
    __global float *orow = out + (long)get_group_id(0) * cols;
    float m = -INFINITY;
    for (int j = lid; j < cols; j += get_local_size(0))
        m = fmax(m, row[j]);
    red[lid] = m;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int step = get_local_size(0) / 2; step > 0; step >>= 1) {
        if (lid < step) red[lid] = fmax(red[lid], red[lid + step]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    m = red[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    float s = 0.0f;
    for (int j = lid; j < cols; j += get_local_size(0))
        s += exp(row[j] - m);
    red[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int step = get_local_size(0) / 2; step > 0; step >>= 1) {
        if (lid < step) red[lid] += red[lid + step];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float inv = 1.0f / red[0];
    for (int j = lid; j < cols; j += get_local_size(0))
        orow[j] = exp(row[j] - m) * inv;
}

__kernel void transpose(__global const float *in, __global float *out, int rows, int cols)
{
    __local float tile[TILE][TILE + 1];
    int tx = get_local_id(0), ty = get_local_id(1);
    int x = get_group_id(0) * TILE + tx;
    int y = get_group_id(1) * TILE + ty;
    for (int j = 0; j < TILE; j += 8)
        if (x < cols && y + j < rows) tile[ty + j][tx] = in[(long)(y + j) * cols + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    x = get_group_id(1) * TILE + tx;
    y = get_group_id(0) * TILE + ty;
    for (int j = 0; j < TILE; j += 8)
        if (x < rows && y + j < cols) out[(long)(y + j) * rows + x] = tile[tx][ty + j];
}

__kernel void conv2d_nchw(__global const float *in, __global const float *wt, __global float *out,
                          int n, int ci, int co, int h, int w, int k, int p)
{
    long total = (long)n * co * h * w;
    long i = (long)get_group_id(0) * get_local_size(0) + get_local_id(0);
    if (i >= total) return;
    int x = (int)(i % w);
    long t = i / w;
    int y = (int)(t % h);
    t = t / h;
    int oc = (int)(t % co);
    int b = (int)(t / co);
    float acc = 0.0f;
    for (int c = 0; c < ci; c++) {
        for (int ky = 0; ky < k; ky++) {
            int yy = y - p + ky;
            if (yy < 0 || yy >= h) continue;
            for (int kx = 0; kx < k; kx++) {
                int xx = x - p + kx;
                if (xx < 0 || xx >= w) continue;
                acc += in[(((long)b * ci + c) * h + yy) * w + xx] * wt[((oc * ci + c) * k + ky) * k + kx];
            }
        }
    }
    out[i] = acc;
}

__kernel void matmul(__global const float *a, __global const float *b, __global float *c, int n)
{
    __local float ta[MM_TILE][MM_TILE];
    __local float tb[MM_TILE][MM_TILE];
    int tx = get_local_id(0), ty = get_local_id(1);
    int row = get_group_id(1) * MM_TILE + ty;
    int col = get_group_id(0) * MM_TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n; t += MM_TILE) {
        ta[ty][tx] = a[(long)row * n + t + tx];
        tb[ty][tx] = b[(long)(t + ty) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int kk = 0; kk < MM_TILE; kk++)
            acc += ta[ty][kk] * tb[kk][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[(long)row * n + col] = acc;
}

__kernel void empty(void) {}
