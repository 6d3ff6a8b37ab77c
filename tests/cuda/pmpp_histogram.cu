// pmpp_histogram.cu - a letter histogram in the textbook's style (Kirk &
// Hwu, parallel histogram chapter): letters grouped four to a bin (a-d,
// e-h, ...), a private copy of the bins per block in shared memory, an
// interleaved (coarsened) loop over the text, then one atomicAdd per bin
// into the global result; the aggregated variant adds a run of equal bins
// in one atomic.
#define NUM_BINS 7

__device__ int bin_of(char ch)
{
    int pos = ch - 'a';
    return pos >= 0 && pos < 26 ? pos / 4 : -1;
}

__global__ void histo_private_kernel(const char *data, unsigned int length, unsigned int *histo)
{
    __shared__ unsigned int bins[NUM_BINS];
    for (unsigned int b = threadIdx.x; b < NUM_BINS; b += blockDim.x)
        bins[b] = 0u;
    __syncthreads();
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < length; i += blockDim.x * gridDim.x) {
        int b = bin_of(data[i]);
        if (b >= 0)
            atomicAdd(&bins[b], 1u);
    }
    __syncthreads();
    for (unsigned int b = threadIdx.x; b < NUM_BINS; b += blockDim.x)
        if (bins[b] != 0u)
            atomicAdd(&histo[b], bins[b]);
}

__global__ void histo_aggregated_kernel(const char *data, unsigned int length, unsigned int *histo)
{
    __shared__ unsigned int bins[NUM_BINS];
    for (unsigned int b = threadIdx.x; b < NUM_BINS; b += blockDim.x)
        bins[b] = 0u;
    __syncthreads();
    int run_bin = -1;
    unsigned int run_len = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < length; i += blockDim.x * gridDim.x) {
        int b = bin_of(data[i]);
        if (b < 0)
            continue;
        if (b == run_bin) {
            ++run_len;
            continue;
        }
        if (run_len > 0)
            atomicAdd(&bins[run_bin], run_len);
        run_bin = b;
        run_len = 1;
    }
    if (run_len > 0)
        atomicAdd(&bins[run_bin], run_len);
    __syncthreads();
    for (unsigned int b = threadIdx.x; b < NUM_BINS; b += blockDim.x)
        if (bins[b] != 0u)
            atomicAdd(&histo[b], bins[b]);
}
