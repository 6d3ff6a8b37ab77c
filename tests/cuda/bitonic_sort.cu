// bitonic_sort.cu - each block sorts its segment of SEG keys ascending with a
// bitonic network in shared memory (SEG / 2 threads, two keys each); the
// tail of the last segment is padded with INT_MAX and not written back.
#include <climits>

#define SEG 1024

__device__ inline void compareSwap(int &a, int &b, bool ascending)
{
    if ((a > b) == ascending) {
        int t = a;
        a = b;
        b = t;
    }
}

__global__ void bitonicSortBlock(int *keys, int n)
{
    __shared__ int s[SEG];
    int base = blockIdx.x * SEG;
    for (int i = threadIdx.x; i < SEG; i += blockDim.x)
        s[i] = base + i < n ? keys[base + i] : INT_MAX;
    __syncthreads();

    for (int size = 2; size <= SEG; size <<= 1) {
        for (int stride = size / 2; stride > 0; stride >>= 1) {
            for (int t = threadIdx.x; t < SEG / 2; t += blockDim.x) {
                int pos = 2 * t - (t & (stride - 1));
                bool ascending = (pos & size) == 0;
                compareSwap(s[pos], s[pos + stride], ascending);
            }
            __syncthreads();
        }
    }

    for (int i = threadIdx.x; i < SEG; i += blockDim.x)
        if (base + i < n)
            keys[base + i] = s[i];
}
