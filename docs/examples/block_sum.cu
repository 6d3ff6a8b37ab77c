// block_sum.cu - one partial sum per block, the way the CUDA samples reduce:
// a warp-shuffle reduction in each warp, the warp sums through shared
// memory, then the first warp reduces those. BLOCK is a template parameter,
// instantiated by name on the command line.
//
// From the repository root (x = 1, 2, ..., 1000; the last block is ragged):
//   build/bin/cubevm run docs/examples/block_sum.cu --kernel 'block_sum<256>' \
//       --grid 4 --block 256 x=@docs/examples/block_sum_x.npy partial=zeros:4 n=1000 \
//       --print partial
// prints  partial: 32896 98432 163968 205204
// (block b sums 256b+1 .. min(256b+256, 1000); the four add up to 500500).
#include <cuda_runtime.h>

__device__ __forceinline__ float warp_sum(float v)
{
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}

template <unsigned BLOCK>
__global__ void block_sum(const float *x, float *partial, int n)
{
    __shared__ float warp_sums[BLOCK / 32];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + tid;
    float v = i < n ? x[i] : 0.0f;
    v = warp_sum(v);
    if (tid % warpSize == 0)
        warp_sums[tid / warpSize] = v;
    __syncthreads();
    if (tid < warpSize) {
        v = tid < BLOCK / warpSize ? warp_sums[tid] : 0.0f;
        v = warp_sum(v);
        if (tid == 0)
            partial[blockIdx.x] = v;
    }
}
