// llmc_softmax.cu - row softmax as transformer training code writes it,
// two ways: a block per row (warp shuffles, then the per-warp partials in
// two arrays carved from extern __shared__ memory), and the single-pass
// "online" softmax with one 32-thread tile per row and cg::reduce.
#include <cuda_runtime.h>
#include <float.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__device__ float warp_max(float v)
{
    for (int off = 16; off > 0; off /= 2)
        v = fmaxf(v, __shfl_down_sync(0xFFFFFFFF, v, off));
    return v;
}

__device__ float warp_sum(float v)
{
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_down_sync(0xFFFFFFFF, v, off);
    return v;
}

__global__ void softmax_block_rows(float *out, const float *inp, int N, int C)
{
    extern __shared__ float smem[];
    const int nwarps = blockDim.x / 32;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    float *part_max = smem;
    float *part_sum = smem + nwarps;
    const float *x = inp + (size_t)blockIdx.x * C;
    float *y = out + (size_t)blockIdx.x * C;

    float m = -INFINITY;
    for (int c = threadIdx.x; c < C; c += blockDim.x)
        m = fmaxf(m, x[c]);
    m = warp_max(m);
    if (lane == 0)
        part_max[warp] = m;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < nwarps; w++)
            part_max[0] = fmaxf(part_max[0], part_max[w]);
    }
    __syncthreads();
    const float row_max = part_max[0];

    float s = 0.0f;
    for (int c = threadIdx.x; c < C; c += blockDim.x) {
        const float e = expf(x[c] - row_max);
        y[c] = e;
        s += e;
    }
    s = warp_sum(s);
    if (lane == 0)
        part_sum[warp] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < nwarps; w++)
            part_sum[0] += part_sum[w];
    }
    __syncthreads();
    const float inv = 1.0f / part_sum[0];
    for (int c = threadIdx.x; c < C; c += blockDim.x)
        y[c] *= inv;
}

__global__ void softmax_online_rows(float *out, const float *inp, int N, int C)
{
    namespace cg = cooperative_groups;
    auto tile = cg::tiled_partition<32>(cg::this_thread_block());
    const int row = blockIdx.x * tile.meta_group_size() + tile.meta_group_rank();
    if (row >= N)
        return;
    const float *x = inp + (size_t)row * C;
    // one pass: a running maximum, the running sum rescaled whenever it grows
    float run_max = -FLT_MAX, run_sum = 0.0f;
    for (int c = tile.thread_rank(); c < C; c += tile.size()) {
        const float v = x[c];
        const float nm = fmaxf(run_max, v);
        run_sum = run_sum * expf(run_max - nm) + expf(v - nm);
        run_max = nm;
    }
    const float row_max = cg::reduce(tile, run_max, cg::greater<float>{});
    const float row_sum = cg::reduce(tile, run_sum * expf(run_max - row_max), cg::plus<float>{});
    for (int c = tile.thread_rank(); c < C; c += tile.size())
        out[(size_t)row * C + c] = expf(x[c] - row_max) / row_sum;
}
