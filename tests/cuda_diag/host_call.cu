// expect error: host_call.cu:11:14: error: calling a __host__ function from a __global__ function is not allowed
// todo: F4 compiler: a __host__-only function called from a kernel is accepted
__host__ float host_scale(float x)
{
    return 3.0f * x;
}

__global__ void k(float *out)
{
    int i = threadIdx.x;
    out[i] = host_scale(out[i]);
}
