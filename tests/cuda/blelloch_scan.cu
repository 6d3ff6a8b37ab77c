// blelloch_scan.cu - work-efficient (Blelloch) exclusive scan of one
// block's 2 * blockDim elements in shared memory: an up-sweep building
// partial sums in a tree, the root cleared, a down-sweep distributing them.
// Shared indices are padded by one slot per 32 (the usual bank-conflict
// macro), so the block needs 4 * (2B + 2B / 32) bytes of dynamic shared
// memory. Block totals go to g_sums for a second pass.
#define LOG_BANKS 5
#define PAD(i) ((i) + ((i) >> LOG_BANKS))

__global__ void prescan(float *g_odata, const float *g_idata, float *g_sums, int n)
{
    extern __shared__ float buf[];
    const int t = threadIdx.x, len = 2 * blockDim.x;
    const int base = blockIdx.x * len;
    const int i0 = t, i1 = t + blockDim.x;
    buf[PAD(i0)] = base + i0 < n ? g_idata[base + i0] : 0.0f;
    buf[PAD(i1)] = base + i1 < n ? g_idata[base + i1] : 0.0f;

    int step = 1;
    for (int active = len / 2; active > 0; active /= 2, step *= 2) { // up-sweep
        __syncthreads();
        if (t < active) {
            int left = step * (2 * t + 1) - 1, right = step * (2 * t + 2) - 1;
            buf[PAD(right)] += buf[PAD(left)];
        }
    }
    if (t == 0) {
        if (g_sums)
            g_sums[blockIdx.x] = buf[PAD(len - 1)];
        buf[PAD(len - 1)] = 0.0f;
    }
    for (int active = 1; active < len; active *= 2) { // down-sweep
        step /= 2;
        __syncthreads();
        if (t < active) {
            int left = step * (2 * t + 1) - 1, right = step * (2 * t + 2) - 1;
            float l = buf[PAD(left)];
            buf[PAD(left)] = buf[PAD(right)];
            buf[PAD(right)] += l;
        }
    }
    __syncthreads();
    if (base + i0 < n)
        g_odata[base + i0] = buf[PAD(i0)];
    if (base + i1 < n)
        g_odata[base + i1] = buf[PAD(i1)];
}
