// expect warning: shared_flag.cu:31:9: warning: barrier under a condition that depends on the thread index
// The last-block pattern of the threadFenceReduction sample: thread 0 sets
// a __shared__ flag, a barrier, then every thread reads it at one address
// (one value for the block: quiet). The same flag read at a per-thread
// address stays a warning.
__device__ unsigned int count = 0;
__global__ void k(float *out, const float *in)
{
    __shared__ bool amLast;
    __shared__ int flags[64];
    __shared__ float part[64];
    part[threadIdx.x] = in[blockIdx.x * 64 + threadIdx.x];
    flags[threadIdx.x] = threadIdx.x & 1;
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        unsigned ticket = atomicInc(&count, gridDim.x);
        amLast = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (amLast) {
        float s = 0.0f;
        for (int i = 0; i < 64; i++)
            s += part[i];
        __syncthreads();
        if (threadIdx.x == 0)
            out[0] = s;
    }
    if (flags[threadIdx.x]) {
        part[threadIdx.x] = 0.0f;
        __syncthreads();
    }
}
