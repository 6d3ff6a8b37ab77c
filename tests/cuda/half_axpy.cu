// half_axpy.cu - half precision: y = a * x + y computed in float from
// __half inputs and rounded back to __half, plus a pure-__half product.
#include <cuda_fp16.h>

__global__ void haxpy(int n, float a, const __half *x, __half *y, __half *prod)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float xf = __half2float(x[i]);
        float yf = __half2float(y[i]);
        y[i] = __float2half(a * xf + yf);
        prod[i] = __hmul(x[i], __float2half(a));
    }
}
