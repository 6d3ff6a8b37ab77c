// softmax.cu - row-wise softmax, one warp per row: each lane strides over
// the row, then warp shuffles (xor butterfly) give every lane the row max
// and the sum of exponentials.
#include <cuda_runtime.h>
#include <math.h>

__device__ __forceinline__ float warpMax(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

__device__ __forceinline__ float warpSum(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__global__ void softmaxRows(const float *x, float *y, int rows, int cols)
{
    int warpsPerBlock = blockDim.x / 32;
    int row = blockIdx.x * warpsPerBlock + threadIdx.x / 32;
    int lane = threadIdx.x & 31;
    if (row >= rows)
        return;
    const float *xr = x + (size_t)row * cols;
    float *yr = y + (size_t)row * cols;

    float m = -INFINITY;
    for (int c = lane; c < cols; c += 32)
        m = fmaxf(m, xr[c]);
    m = warpMax(m);

    float s = 0.0f;
    for (int c = lane; c < cols; c += 32)
        s += expf(xr[c] - m);
    s = warpSum(s);

    float inv = 1.0f / s;
    for (int c = lane; c < cols; c += 32)
        yr[c] = expf(xr[c] - m) * inv;
}
