// expect error: rounding_mode.cu:5:24: error: rounding-mode intrinsics other than _rn (round to nearest) are not supported
// Only round-to-nearest arithmetic is available.
__global__ void k(float *out, const float *a, const float *b)
{
    out[threadIdx.x] = __fmul_rz(a[threadIdx.x], b[threadIdx.x]);
}
