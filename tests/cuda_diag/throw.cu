// expect error: throw.cu:6:9: error: exceptions are not supported in kernels
__global__ void k(int *out, int n)
{
    int i = threadIdx.x;
    if (i >= n)
        throw 1;
    out[i] = i;
}
