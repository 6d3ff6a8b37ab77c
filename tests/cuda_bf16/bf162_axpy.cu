// bf162_axpy.cu - __nv_bfloat162 pairs as llm.c-style code uses them:
// reinterpret_cast loads, __bfloat1622float2, __floats2bfloat162_rn.
// Kept out of tests/cuda (the SPIR-V corpus): bf16 has no SPIR-V type.
#include <cuda_bf16.h>

// y = a * x + y on bfloat16 pairs, computed in float and rounded back
__global__ void bf162_axpy(__nv_bfloat16 *y, const __nv_bfloat16 *x, float a, int npairs)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < npairs) {
        __nv_bfloat162 *y2 = reinterpret_cast<__nv_bfloat162 *>(y);
        __nv_bfloat162 xv = reinterpret_cast<const __nv_bfloat162 *>(x)[i];
        float2 xf = __bfloat1622float2(xv);
        float2 yf = __bfloat1622float2(y2[i]);
        y2[i] = __floats2bfloat162_rn(__fmaf_rn(a, xf.x, yf.x), __fmaf_rn(a, xf.y, yf.y));
    }
}
