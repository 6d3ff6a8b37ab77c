// expect error: atomic_half.cu:5:5: error: atomicAdd on 2-byte floating-point values is not supported (atomics take 4- and 8-byte integers, and floats for atomicAdd, atomicMin, atomicMax and atomicExch)
#include <cuda_fp16.h>
__global__ void k(__half *h)
{
    atomicAdd(&h[0], __float2half(1.0f));
}
