// cg_guide.cu - cooperative groups as the CUDA Programming Guide uses them:
// reduce_sum(thread_group g, ...) called with a block and with a runtime
// tiled_partition(g, 32), int4 loads, and warp-aggregated atomics through
// coalesced_threads().
#include <cooperative_groups.h>
using namespace cooperative_groups;

__device__ int reduce_sum(thread_group g, int *temp, int val)
{
    int lane = g.thread_rank();

    // Each iteration halves the number of active threads
    // Each thread adds its partial sum[i] to sum[lane+i]
    for (int i = g.size() / 2; i > 0; i /= 2)
    {
        temp[lane] = val;
        g.sync(); // wait for all threads to store
        if(lane<i) val += temp[lane + i];
        g.sync(); // wait for all threads to load
    }
    return val; // note: only thread 0 will return full sum
}

__device__ int thread_sum(int *input, int n)
{
    int sum = 0;

    for(int i = blockIdx.x * blockDim.x + threadIdx.x;
        i < n / 4;
        i += blockDim.x * gridDim.x)
    {
        int4 in = ((int4*)input)[i];
        sum += in.x + in.y + in.z + in.w;
    }
    return sum;
}

__global__ void sum_kernel_block(int *sum, int *input, int n)
{
    int my_sum = thread_sum(input, n);

    extern __shared__ int temp[];
    auto g = this_thread_block();
    int block_sum = reduce_sum(g, temp, my_sum);

    if (g.thread_rank() == 0) atomicAdd(sum, block_sum);
}

__global__ void sum_kernel_tiles(int *sum, int *input, int n)
{
    int my_sum = thread_sum(input, n);
    extern __shared__ int workspace[];
    thread_block g = this_thread_block();
    thread_group tile32 = tiled_partition(g, 32);
    int *temp = workspace + (threadIdx.x / 32) * 32;
    int tile_sum = reduce_sum(tile32, temp, my_sum);
    if (tile32.thread_rank() == 0) atomicAdd(sum, tile_sum);
}

// Warp-aggregated atomic increment (Programming Guide, coalesced groups):
// the active threads of a warp take one atomicAdd together.
__device__ int atomicAggInc(int *ptr)
{
    coalesced_group g = coalesced_threads();
    int prev;
    if (g.thread_rank() == 0)
        prev = atomicAdd(ptr, g.size());
    prev = g.thread_rank() + g.shfl(prev, 0);
    return prev;
}

// Keeps the positive elements (in an order the atomics decide).
__global__ void filter_positive(int *dst, int *nres, const int *src, int n)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n && src[i] > 0)
        dst[atomicAggInc(nres)] = src[i];
}
