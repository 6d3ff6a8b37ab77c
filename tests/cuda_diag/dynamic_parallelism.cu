// expect error: dynamic_parallelism.cu:11:9: error: dynamic parallelism (launching a kernel from device code) is not supported
// regression: this diagnostic was once wrong (see git log)
__global__ void child(int *out)
{
    out[threadIdx.x] = 1;
}

__global__ void parent(int *out)
{
    if (threadIdx.x == 0)
        child<<<1, 32>>>(out);
}
