// expect error: recursion.cu:4:29: error: recursion is not supported
__device__ int fact(int n)
{
    return n <= 1 ? 1 : n * fact(n - 1);
}

__global__ void k(int *out)
{
    out[threadIdx.x] = fact(threadIdx.x);
}
