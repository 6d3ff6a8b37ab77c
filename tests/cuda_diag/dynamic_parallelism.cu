// expect error: dynamic_parallelism.cu:11:9: error: dynamic parallelism (launching a kernel from device code) is not supported
// todo: F4 compiler: a <<<>>> launch in device code gives a generic parse error at '<'
__global__ void child(int *out)
{
    out[threadIdx.x] = 1;
}

__global__ void parent(int *out)
{
    if (threadIdx.x == 0)
        child<<<1, 32>>>(out);
}
