// expect warning: cg_sync_divergent.cu:11:9: warning: barrier under a condition that depends on the thread index
// cooperative groups: the block's sync() under a per-thread condition.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void k(int *out)
{
    cg::thread_block block = cg::this_thread_block();
    out[block.thread_rank()] = 1;
    if (block.thread_rank() % 2 == 0)
        block.sync();
}
