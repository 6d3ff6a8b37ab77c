// expect error: too_few_args.cu:11:14: error: too few arguments
// regression: this diagnostic was once wrong (see git log)
__device__ float axpy(float a, float x, float y)
{
    return a * x + y;
}

__global__ void k(float *out, const float *x)
{
    int i = threadIdx.x;
    out[i] = axpy(2.0f, x[i]);
}
