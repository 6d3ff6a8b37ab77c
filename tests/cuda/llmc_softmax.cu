// llmc_softmax.cu - softmax forward two ways, llm.c style: a block per row
// with warp reductions and shared partials carved from extern shared memory,
// and the online (single pass) softmax with one warp per row and cg::reduce.
#include <cuda_runtime.h>
#include <float.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__device__ float warpReduceMax(float val) {
    for (int offset = 16; offset > 0; offset /= 2) {
        val = fmaxf(val, __shfl_down_sync(0xFFFFFFFF, val, offset));
    }
    return val;
}

__device__ float warpReduceSum(float val) {
    for (int offset = 16; offset > 0; offset /= 2) {
        val += __shfl_down_sync(0xFFFFFFFF, val, offset);
    }
    return val;
}

__global__ void softmax_forward_kernel4(float* out, const float* inp, int N, int C) {
    extern __shared__ float shared[];
    int idx = blockIdx.x;
    int tid = threadIdx.x;
    int warpId = threadIdx.x / 32; // warp index within a block
    int laneId = threadIdx.x % 32; // thread index within a warp

    int warpsPerBlock = blockDim.x / 32;

    float* maxvals = shared;
    float* sumvals = &shared[warpsPerBlock];

    const float* x = inp + idx * C;

    float maxval = -INFINITY;
    for (int i = tid; i < C; i += blockDim.x) {
        maxval = fmaxf(maxval, x[i]);
    }
    maxval = warpReduceMax(maxval);

    if (laneId == 0) maxvals[warpId] = maxval;
    __syncthreads();

    if (tid == 0) {
        float val = maxvals[tid];
        for (int i = 1; i < warpsPerBlock; i++) {
            val = fmaxf(val, maxvals[i]);
        }
        maxvals[0] = val;
    }
    __syncthreads();
    float offset = maxvals[0];

    for (int i = tid; i < C; i += blockDim.x) {
        out[idx * C + i] = expf(x[i] - offset);
    }

    x = out + idx * C;
    float sumval = 0.0f;
    for (int i = tid; i < C; i += blockDim.x) {
        sumval += x[i];
    }
    sumval = warpReduceSum(sumval);

    if (laneId == 0) sumvals[warpId] = sumval;
    __syncthreads();

    if (tid == 0) {
        float val = sumvals[tid];
        for (int i = 1; i < warpsPerBlock; ++i) {
            val += sumvals[i];
        }
        sumvals[0] = val;
    }
    __syncthreads();
    float sum = sumvals[0];

    for (int i = tid; i < C; i += blockDim.x) {
        out[idx * C + i] = x[i] / sum;
    }
}

// online softmax: one warp per row
__global__ void softmax_forward_online(float* out, const float* inp, int N, int C) {
    namespace cg = cooperative_groups;
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int idx = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
    if (idx >= N) return;
    const float* x = inp + idx * C;
    float maxval = -FLT_MAX;
    float sumval = 0.0f;
    for (int i = warp.thread_rank(); i < C; i += warp.size()) {
        float v = x[i];
        float nm = fmaxf(maxval, v);
        sumval = sumval * expf(maxval - nm) + expf(v - nm);
        maxval = nm;
    }
    float gmax = cg::reduce(warp, maxval, cg::greater<float>{});
    sumval *= expf(maxval - gmax);
    float gsum = cg::reduce(warp, sumval, cg::plus<float>{});
    float norm = 1.f / gsum;
    for (int i = warp.thread_rank(); i < C; i += warp.size()) {
        out[idx * C + i] = expf(x[i] - gmax) * norm;
    }
}
