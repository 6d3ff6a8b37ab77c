// histogram.cu - 256-bin byte histogram: each block counts into a shared
// histogram with shared-memory atomics, then merges into the global one.
#define NUM_BINS 256

__global__ void histogram256(const unsigned char *data, unsigned int *hist, int n)
{
    __shared__ unsigned int local[NUM_BINS];
    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x)
        local[b] = 0;
    __syncthreads();

    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();

    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) {
        unsigned int c = local[b];
        if (c)
            atomicAdd(&hist[b], c);
    }
}
