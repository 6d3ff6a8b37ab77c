// expect error: half2.cu:5:19: error: __half2 (paired half precision) is not supported in kernels
// Paired half-precision types and their intrinsics are outside the subset.
#include <cuda_fp16.h>

__global__ void k(__half2 *out, const __half2 *in)
{
    out[threadIdx.x] = __hadd2(in[threadIdx.x], in[threadIdx.x]);
}
