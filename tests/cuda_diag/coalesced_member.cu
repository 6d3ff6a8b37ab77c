// expect error: coalesced_member.cu:9:15: error: coalesced_group has no member function 'match_any' in cubevm
// The rank-addressed operations, votes and cg::reduce of a coalesced group are supported; match_* are not.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void k(int *out)
{
    cg::coalesced_group g = cg::coalesced_threads();
    int v = g.match_any(1);
    out[threadIdx.x] = v;
}
