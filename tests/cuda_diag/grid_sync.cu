// expect error: grid_sync.cu:10:9: error: grid-wide synchronization
// regression: this diagnostic was once wrong (see git log)
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void k(int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = 1;
    cg::this_grid().sync();
    out[i] += out[0];
}
