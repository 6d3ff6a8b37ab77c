// scan_inclusive.cu - Hillis-Steele inclusive prefix sum of each block's
// segment (blockDim.x elements), double-buffered in dynamic shared memory
// (2 * blockDim.x ints).
__global__ void scanInclusive(const int *in, int *out, int n)
{
    extern __shared__ int temp[];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;
    int pout = 0, pin = 1;

    temp[pout * blockDim.x + tid] = gid < n ? in[gid] : 0;
    __syncthreads();

    for (int offset = 1; offset < blockDim.x; offset <<= 1) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (tid >= offset)
            temp[pout * blockDim.x + tid] = temp[pin * blockDim.x + tid] + temp[pin * blockDim.x + tid - offset];
        else
            temp[pout * blockDim.x + tid] = temp[pin * blockDim.x + tid];
        __syncthreads();
    }
    if (gid < n)
        out[gid] = temp[pout * blockDim.x + tid];
}
