// warp_vote.cu - warp votes and shuffles: per warp the ballot of positive
// values, whether any/all are positive, and each lane's inclusive prefix
// sum across the warp with __shfl_up_sync.
__global__ void warpVote(const int *in, unsigned int *ballots, int *anyAll, int *prefix, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int warp = i / 32;
    int v = i < n ? in[i] : 0;

    unsigned int b = __ballot_sync(0xffffffff, v > 0);
    int any = __any_sync(0xffffffff, v > 0);
    int all = __all_sync(0xffffffff, v > 0);

    int sum = v;
    for (int d = 1; d < 32; d <<= 1) {
        int t = __shfl_up_sync(0xffffffff, sum, d);
        if (lane >= d)
            sum += t;
    }
    if (i < n)
        prefix[i] = sum;
    if (lane == 0 && warp * 32 < n) {
        ballots[warp] = b;
        anyAll[2 * warp] = any;
        anyAll[2 * warp + 1] = all;
    }
}
