// warp_max_smem.cu - the maximum of each warp's 32 elements through shared
// memory, with no warp function: lane 0 of each warp reads its warp's
// slots. Only warpSize ties the result to warps of 32 (a device whose
// subgroups are 8 must still run it 32 wide: CUDA's warpSize is 32).
#include <climits>

__global__ void warpMaxSmem(const int *in, int *out, int n)
{
    __shared__ int s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i] : INT_MIN;
    __syncthreads();
    int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
    if (lane == 0) {
        int m = s[threadIdx.x];
        for (int j = 1; j < warpSize; ++j)
            m = max(m, s[threadIdx.x + j]);
        out[blockIdx.x * (blockDim.x / warpSize) + warp] = m;
    }
}
