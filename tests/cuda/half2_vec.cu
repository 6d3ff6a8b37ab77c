// half2_vec.cu - paired half precision the way llm.c-style kernels use it:
// __half2 loads through reinterpret_cast, the paired intrinsics (__hfma2,
// __hsub2 ...), h2 operators, and the conversions between pairs, halves
// and floats, warp shuffles of pairs. (__nv_bfloat162:
// tests/cuda_bf16/bf162_axpy.cu, outside this corpus because the SPIR-V
// backend has no bf16 type.)
#include <cuda_fp16.h>

// out = b * scale + a, two elements per thread; an odd tail done in __half
__global__ void scale_add_h2(__half *out, const __half *a, const __half *b, float scale, int n)
{
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * 2;
    if (i + 1 < n) {
        __half2 va = *reinterpret_cast<const __half2 *>(a + i);
        __half2 vb = reinterpret_cast<const __half2 *>(b)[i / 2];
        __half2 s = __float2half2_rn(scale);
        *reinterpret_cast<__half2 *>(out + i) = __hfma2(vb, s, va);
    } else if (i < n) {
        out[i] = __hfma(b[i], __float2half(scale), a[i]);
    }
}

// operators on pairs, taking pairs apart and putting halves together
__global__ void h2_ops(float *fout, float *fsum, __half2 *mixed, const __half2 *x, const __half2 *y, int npairs)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= npairs)
        return;
    __half2 p = x[i] * y[i];
    p += x[i];
    p = -p;
    fout[2 * i] = __low2float(p);
    fout[2 * i + 1] = __high2float(p);
    mixed[i] = __halves2half2(__high2half(x[i]), __low2half(y[i]));
    float2 d = __half22float2(__hsub2(x[i], y[i]));
    fsum[i] = d.x + d.y;
}

// per-warp sums of __half2 pairs by a butterfly of __shfl_xor_sync
// (FasterTransformer's warpReduceSum on half2); lanes past the end add zero
__global__ void warp_sum_h2(__half2 *out, const __half2 *in, int npairs)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    __half2 v = i < npairs ? in[i] : __float2half2_rn(0.0f);
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffff, v, o);
    if ((threadIdx.x & 31) == 0 && i < npairs)
        out[i / 32] = v;
}
