// pmpp_histogram.cu - text histogram in the textbook's style (PMPP ch. 9):
// letters four to a bin, a privatized shared-memory copy per block, an
// interleaved coarsened loop, and the aggregated variant.
// copy of the histogram per block in shared memory, coarsened interleaved loop.
#define NUM_BINS 7

__global__ void histo_private_kernel(const char *data, unsigned int length, unsigned int *histo)
{
    __shared__ unsigned int histo_s[NUM_BINS];
    for (unsigned int bin = threadIdx.x; bin < NUM_BINS; bin += blockDim.x) {
        histo_s[bin] = 0u;
    }
    __syncthreads();
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < length; i += blockDim.x * gridDim.x) {
        int alphabet_position = data[i] - 'a';
        if (alphabet_position >= 0 && alphabet_position < 26) {
            atomicAdd(&(histo_s[alphabet_position / 4]), 1);
        }
    }
    __syncthreads();
    for (unsigned int bin = threadIdx.x; bin < NUM_BINS; bin += blockDim.x) {
        unsigned int binValue = histo_s[bin];
        if (binValue > 0) {
            atomicAdd(&(histo[bin]), binValue);
        }
    }
}

// Aggregation: runs of equal bins are added once.
__global__ void histo_aggregated_kernel(const char *data, unsigned int length, unsigned int *histo)
{
    __shared__ unsigned int histo_s[NUM_BINS];
    for (unsigned int bin = threadIdx.x; bin < NUM_BINS; bin += blockDim.x)
        histo_s[bin] = 0u;
    __syncthreads();
    unsigned int accumulator = 0;
    int prevBinIdx = -1;
    unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned int i = tid; i < length; i += blockDim.x * gridDim.x) {
        int alphabet_position = data[i] - 'a';
        if (alphabet_position >= 0 && alphabet_position < 26) {
            int bin = alphabet_position / 4;
            if (bin == prevBinIdx) {
                ++accumulator;
            } else {
                if (accumulator > 0)
                    atomicAdd(&(histo_s[prevBinIdx]), accumulator);
                accumulator = 1;
                prevBinIdx = bin;
            }
        }
    }
    if (accumulator > 0)
        atomicAdd(&(histo_s[prevBinIdx]), accumulator);
    __syncthreads();
    for (unsigned int bin = threadIdx.x; bin < NUM_BINS; bin += blockDim.x) {
        unsigned int binValue = histo_s[bin];
        if (binValue > 0)
            atomicAdd(&(histo[bin]), binValue);
    }
}
