// scan_exclusive.cu - Blelloch work-efficient exclusive scan: each block
// scans 2 * blockDim.x elements in shared memory (up-sweep, clear, down-sweep)
// and writes its segment total to blockSums (for a later add pass).
#define MAX_ELEMS 2048

__global__ void scanExclusive(const unsigned int *in, unsigned int *out, unsigned int *blockSums, int n)
{
    __shared__ unsigned int temp[MAX_ELEMS];
    int tid = threadIdx.x;
    int m = 2 * blockDim.x;
    int base = blockIdx.x * m;

    temp[2 * tid] = (base + 2 * tid < n) ? in[base + 2 * tid] : 0u;
    temp[2 * tid + 1] = (base + 2 * tid + 1 < n) ? in[base + 2 * tid + 1] : 0u;

    int offset = 1;
    for (int d = m >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (tid < d) {
            int ai = offset * (2 * tid + 1) - 1;
            int bi = offset * (2 * tid + 2) - 1;
            temp[bi] += temp[ai];
        }
        offset *= 2;
    }

    if (tid == 0) {
        blockSums[blockIdx.x] = temp[m - 1];
        temp[m - 1] = 0;
    }

    for (int d = 1; d < m; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (tid < d) {
            int ai = offset * (2 * tid + 1) - 1;
            int bi = offset * (2 * tid + 2) - 1;
            unsigned int t = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
    }
    __syncthreads();

    if (base + 2 * tid < n)
        out[base + 2 * tid] = temp[2 * tid];
    if (base + 2 * tid + 1 < n)
        out[base + 2 * tid + 1] = temp[2 * tid + 1];
}
