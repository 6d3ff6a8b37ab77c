// stream_compact.cu - keeps the positive elements: each warp counts its
// survivors with __ballot_sync/__popc, lane 0 reserves space with one
// atomicAdd, and each survivor writes at its rank within the warp. Output
// order between warps is unspecified; *count receives the total.
__global__ void compactPositive(const int *in, int *out, int *count, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int v = i < n ? in[i] : 0;
    bool keep = i < n && v > 0;

    unsigned int mask = __ballot_sync(0xffffffff, keep);
    int total = __popc(mask);
    int base = 0;
    if (lane == 0 && total > 0)
        base = atomicAdd(count, total);
    base = __shfl_sync(0xffffffff, base, 0);

    if (keep) {
        int rank = __popc(mask & ((1u << lane) - 1));
        out[base + rank] = v;
    }
}
