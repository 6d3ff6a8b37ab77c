// cg_guide.cu - cooperative groups the way the CUDA Programming Guide
// presents them: a reduction over any thread_group passed as a parameter
// (called with the whole block and with a tiled_partition(block, 32)),
// per-thread partial sums from int4 loads, and warp-aggregated atomics
// through coalesced_threads().
#include <cooperative_groups.h>
using namespace cooperative_groups;

// Tree sum over the group's ranks in scratch[0 .. g.size()); rank 0 gets the total.
__device__ int group_sum(thread_group g, int *scratch, int v)
{
    const int r = g.thread_rank();
    for (int half = g.size() / 2; half > 0; half /= 2) {
        scratch[r] = v;
        g.sync();
        if (r < half)
            v += scratch[r + half];
        g.sync();
    }
    return v;
}

// Grid-stride sum of whole int4 vectors (the n % 4 tail is not read).
__device__ int partial_sum(const int *input, int n)
{
    int s = 0;
    const int4 *v = reinterpret_cast<const int4 *>(input);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n / 4; i += blockDim.x * gridDim.x) {
        int4 q = v[i];
        s += q.x + q.y + q.z + q.w;
    }
    return s;
}

__global__ void sum_block(int *sum, const int *input, int n)
{
    extern __shared__ int scratch[];
    int mine = partial_sum(input, n);
    auto block = this_thread_block();
    int total = group_sum(block, scratch, mine);
    if (block.thread_rank() == 0)
        atomicAdd(sum, total);
}

__global__ void sum_tiles(int *sum, const int *input, int n)
{
    extern __shared__ int scratch[];
    int mine = partial_sum(input, n);
    thread_block block = this_thread_block();
    thread_group warp = tiled_partition(block, 32);
    int total = group_sum(warp, scratch + (threadIdx.x / 32) * 32, mine);
    if (warp.thread_rank() == 0)
        atomicAdd(sum, total);
}

// One atomicAdd per warp for all the threads that take this branch: the
// lowest active lane adds the count, each thread gets its own slot.
__device__ int claim_slot(int *counter)
{
    coalesced_group active = coalesced_threads();
    int base = 0;
    if (active.thread_rank() == 0)
        base = atomicAdd(counter, active.size());
    return active.shfl(base, 0) + active.thread_rank();
}

// Keeps the positive elements (in an order the atomics decide).
__global__ void filter_positive(int *dst, int *nres, const int *src, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && src[i] > 0)
        dst[claim_slot(nres)] = src[i];
}
