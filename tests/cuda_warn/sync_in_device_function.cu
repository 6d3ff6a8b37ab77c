// expect warning: sync_in_device_function.cu:6:5: warning: barrier under a condition
// The barrier sits in a __device__ function that only some threads call.
__device__ void stage(float *s, int i)
{
    s[i] *= 2.0f;
    __syncthreads();
}

__global__ void k(float *x)
{
    __shared__ float s[128];
    s[threadIdx.x] = x[threadIdx.x];
    if (threadIdx.x >= 64)
        stage(s, threadIdx.x);
    x[threadIdx.x] = s[threadIdx.x];
}
