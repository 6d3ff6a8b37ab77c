// reduce_cg.cu - sum with cooperative groups: a 32-wide tiled partition,
// cg::reduce inside each tile, tile leaders combine with atomicAdd.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

__global__ void reduceCG(const int *in, int *sum, int n)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);

    int v = 0;
    for (int i = blockIdx.x * blockDim.x + block.thread_rank(); i < n; i += blockDim.x * gridDim.x)
        v += in[i];

    int tileSum = cg::reduce(tile, v, cg::plus<int>());
    if (tile.thread_rank() == 0)
        atomicAdd(sum, tileSum);
    block.sync();
}
