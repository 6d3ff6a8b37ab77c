// device_refs.cu - device functions taking references: to locals (min/max
// accumulation, swap), to a shared-memory element, and to a global element.
__device__ void minMax(int v, int &lo, int &hi)
{
    if (v < lo) lo = v;
    if (v > hi) hi = v;
}

__device__ void swapInts(int &a, int &b)
{
    int t = a;
    a = b;
    b = t;
}

__device__ void bump(int &counter, int by) { counter += by; }

// For each i: window [i, i+3] of in; out[2i] = min, out[2i+1] = max (swapped
// when the window sums odd); hits[i] counts windows with min == max (shared
// then global reference).
__global__ void windowMinMax(const int *in, int *out, int *hits, int n)
{
    __shared__ int blockHits;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0)
        blockHits = 0;
    __syncthreads();
    if (i < n) {
        int lo = in[i], hi = in[i], sum = 0;
        for (int k = 0; k < 4 && i + k < n; ++k) {
            minMax(in[i + k], lo, hi);
            sum += in[i + k];
        }
        if (sum & 1)
            swapInts(lo, hi);
        out[2 * i] = lo;
        out[2 * i + 1] = hi;
        if (lo == hi)
            atomicAdd(&blockHits, 1);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        int &h = hits[blockIdx.x];
        bump(h, blockHits);
    }
}
