// expect error: coalesced_member.cu:9:15: error: coalesced_group has no member function 'shfl_down' in cubevm
// Only rank-addressed operations of a coalesced group are supported.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void k(int *out)
{
    cg::coalesced_group g = cg::coalesced_threads();
    int v = g.shfl_down(1, 1);
    out[threadIdx.x] = v;
}
