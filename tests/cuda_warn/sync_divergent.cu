// expect warning: sync_divergent.cu:10:9: warning: barrier under a condition that depends on the thread index
// A block barrier only the first half-warp reaches.
__global__ void k(float *x)
{
    __shared__ float s[64];
    int i = threadIdx.x;
    s[i] = x[i];
    if (i < 16) {
        x[i] = s[i + 1];
        __syncthreads();
    }
}
