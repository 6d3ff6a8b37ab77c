// expect error: half2_compare.cu:7:14: error: comparisons of paired halves (__half2, __nv_bfloat162) are not supported in kernels
// __half2 arithmetic is supported; its comparisons (==, <, __heq2, __hbeq2 ...) are not.
#include <cuda_fp16.h>

__global__ void k(int *out, const __half2 *a, const __half2 *b)
{
    if (a[0] == b[0])
        out[0] = 1;
}
