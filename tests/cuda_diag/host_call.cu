// expect error: host_call.cu:11:14: error: calling a __host__ function from a __global__ function is not allowed
// regression: this diagnostic was once wrong (see git log)
__host__ float host_scale(float x)
{
    return 3.0f * x;
}

__global__ void k(float *out)
{
    int i = threadIdx.x;
    out[i] = host_scale(out[i]);
}
