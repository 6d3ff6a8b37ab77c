// atomic_max_float.cu - maximum of a float array with an atomicCAS loop on
// the bit pattern (CUDA has no float atomicMax); a block first reduces in
// shared memory so only one CAS loop runs per block.
__device__ float atomicMaxFloat(float *address, float val)
{
    int *address_as_int = (int *)address;
    int old = *address_as_int, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= val)
            break;
        old = atomicCAS(address_as_int, assumed, __float_as_int(val));
    } while (assumed != old);
    return __int_as_float(old);
}

__global__ void maxReduce(const float *in, float *result, int n)
{
    __shared__ float smax[256];
    int tid = threadIdx.x;
    float m = -3.402823466e+38f;
    for (int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
        m = fmaxf(m, in[i]);
    smax[tid] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            smax[tid] = fmaxf(smax[tid], smax[tid + s]);
        __syncthreads();
    }
    if (tid == 0)
        atomicMaxFloat(result, smax[0]);
}
