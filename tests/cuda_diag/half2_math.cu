// expect error: half2_math.cu:6:14: error: paired-half math functions (h2exp) are not supported in kernels
// The paired math functions of cuda_fp16.h are outside the subset; the scalar ones apply to each half.
#include <cuda_fp16.h>
__global__ void k(__half2 *out, const __half2 *in)
{
    out[0] = h2exp(in[0]);
}
