// expect no warnings
// Barriers every live thread of the block reaches: after an early return
// (exited threads are let out), under block-uniform conditions, in a loop
// with a uniform trip count.
__global__ void k(float *x, int n, int steps)
{
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    s[threadIdx.x] = x[i];
    __syncthreads();
    if (blockIdx.x == 0 && n > 4)
        __syncthreads();
    for (int t = 0; t < steps; t++) {
        if (threadIdx.x + 1 < blockDim.x)
            s[threadIdx.x] += 1.0f;
        __syncthreads();
    }
    x[i] = s[threadIdx.x];
}
