// expect error: grid_sync.cu:10:9: error: grid-wide synchronization
// todo: F4 compiler: cg::this_grid().sync() gives "member function calls are not supported yet"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void k(int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = 1;
    cg::this_grid().sync();
    out[i] += out[0];
}
