// expect error: recursion_mutual.cu:13:12: error: recursion is not supported
__device__ int is_odd(int n);

__device__ int is_even(int n)
{
    if (n == 0) return 1;
    return is_odd(n - 1);
}

__device__ int is_odd(int n)
{
    if (n == 0) return 0;
    return is_even(n - 1);
}

__global__ void k(int *out)
{
    out[threadIdx.x] = is_even(threadIdx.x);
}
