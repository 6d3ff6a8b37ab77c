// expect error: clock64.cu:5:20: error: clock64() is not supported in kernels
// The VM has no cycle counter.
__global__ void k(long long *out)
{
    long long t0 = clock64();
    out[threadIdx.x] = t0;
}
