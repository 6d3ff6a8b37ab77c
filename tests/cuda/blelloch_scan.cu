// blelloch_scan.cu - work-efficient (Blelloch) exclusive scan of one block's
// 2*blockDim elements with the bank-conflict padding macros of the classic
// GPU Gems chapter; the block totals go to g_sums.
#define NUM_BANKS 32
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)

__global__ void prescan(float *g_odata, const float *g_idata, float *g_sums, int n)
{
    extern __shared__ float temp[];
    int thid = threadIdx.x;
    int base = blockIdx.x * blockDim.x * 2;
    int m = 2 * blockDim.x;
    int ai = thid;
    int bi = thid + blockDim.x;
    int bankOffsetA = CONFLICT_FREE_OFFSET(ai);
    int bankOffsetB = CONFLICT_FREE_OFFSET(bi);
    temp[ai + bankOffsetA] = base + ai < n ? g_idata[base + ai] : 0.0f;
    temp[bi + bankOffsetB] = base + bi < n ? g_idata[base + bi] : 0.0f;

    int offset = 1;
    for (int d = m >> 1; d > 0; d >>= 1) { // build sum in place up the tree
        __syncthreads();
        if (thid < d) {
            int a = offset * (2 * thid + 1) - 1;
            int b = offset * (2 * thid + 2) - 1;
            a += CONFLICT_FREE_OFFSET(a);
            b += CONFLICT_FREE_OFFSET(b);
            temp[b] += temp[a];
        }
        offset *= 2;
    }
    if (thid == 0) {
        int last = m - 1 + CONFLICT_FREE_OFFSET(m - 1);
        if (g_sums) g_sums[blockIdx.x] = temp[last];
        temp[last] = 0; // clear the last element
    }
    for (int d = 1; d < m; d *= 2) { // traverse down tree & build scan
        offset >>= 1;
        __syncthreads();
        if (thid < d) {
            int a = offset * (2 * thid + 1) - 1;
            int b = offset * (2 * thid + 2) - 1;
            a += CONFLICT_FREE_OFFSET(a);
            b += CONFLICT_FREE_OFFSET(b);
            float t = temp[a];
            temp[a] = temp[b];
            temp[b] += t;
        }
    }
    __syncthreads();
    if (base + ai < n) g_odata[base + ai] = temp[ai + bankOffsetA];
    if (base + bi < n) g_odata[base + bi] = temp[bi + bankOffsetB];
}
