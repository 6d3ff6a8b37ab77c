// expect error: tiled_partition_runtime.cu:9:49: error: tiled_partition(g, n) needs a tile size known at compile time
// A tile size that only the launch knows cannot be compiled.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void k(int *out, int n)
{
    cg::thread_block b = cg::this_thread_block();
    cg::thread_group t = cg::tiled_partition(b, n);
    out[threadIdx.x] = t.thread_rank();
}
