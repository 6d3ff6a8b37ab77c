// expect error: host_function_skipped.cu:17:12: error: calling a __host__ function from a __global__ function is not allowed
// A host helper the frontend set aside (its body launches a kernel, which
// device code cannot parse) called from a kernel.
#include <cuda_runtime.h>

__global__ void fill(float *x);

float launch_fill(float *d_x, int n)
{
    fill<<<(n + 255) / 256, 256>>>(d_x);
    cudaDeviceSynchronize();
    return 1.0f;
}

__global__ void fill(float *x)
{
    x[0] = launch_fill(x, 1);
}
