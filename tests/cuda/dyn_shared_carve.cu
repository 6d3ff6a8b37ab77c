// dyn_shared_carve.cu - several typed arrays carved from one extern
// __shared__ allocation (launch with blockDim.x * (4 + 4 + 1) bytes):
// each block reverses its segment of values and keys, and marks which
// values exceed their key.
__global__ void reverseCarved(const float *vals, const int *keys, float *outVals, int *outKeys,
                              unsigned char *flags, int n)
{
    extern __shared__ char smem[];
    float *sVals = (float *)smem;
    int *sKeys = (int *)&sVals[blockDim.x];
    unsigned char *sFlag = (unsigned char *)&sKeys[blockDim.x];

    int t = threadIdx.x;
    int base = blockIdx.x * blockDim.x;
    int len = min((int)blockDim.x, n - base);
    if (t < len) {
        sVals[t] = vals[base + t];
        sKeys[t] = keys[base + t];
        sFlag[t] = sVals[t] > (float)sKeys[t];
    }
    __syncthreads();
    if (t < len) {
        int r = len - 1 - t;
        outVals[base + t] = sVals[r];
        outKeys[base + t] = sKeys[r];
        flags[base + t] = sFlag[r];
    }
}
