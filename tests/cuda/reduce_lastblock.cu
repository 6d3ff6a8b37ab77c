// reduce_lastblock.cu - single-pass sum: every block writes a partial sum,
// __threadfence() publishes it, and the block that takes the last ticket
// from a __device__ counter adds the partials (threadFenceReduction sample).
#define BLOCK 128

__device__ unsigned int retirementCount = 0;

__global__ void sumLastBlock(const float *in, float *partial, float *result, unsigned int n)
{
    __shared__ float sdata[BLOCK];
    __shared__ bool amLast;
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * BLOCK + tid;

    sdata[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid == 0) {
        partial[blockIdx.x] = sdata[0];
        __threadfence();
        unsigned int ticket = atomicInc(&retirementCount, gridDim.x);
        amLast = (ticket == gridDim.x - 1);
    }
    __syncthreads();

    if (amLast) {
        if (tid == 0) {
            float total = 0.0f;
            for (unsigned int b = 0; b < gridDim.x; ++b)
                total += ((volatile float *)partial)[b];
            *result = total;
            retirementCount = 0;
        }
    }
}
