// expect error: function_pointer.cu:9:11: error: function pointers are not supported in kernels
__device__ float twice(float x)
{
    return 2.0f * x;
}

__global__ void k(float *out)
{
    float (*f)(float) = twice;
    out[threadIdx.x] = f(out[threadIdx.x]);
}
