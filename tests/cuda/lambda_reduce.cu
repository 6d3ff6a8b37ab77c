// lambda_reduce.cu - Transform-reduce with device lambdas: a generic warp/block reduction that
// takes the combining operation as a callable (lambda or functor).
#include <cuda_runtime.h>
#include <float.h>

template <typename T, typename Op>
__device__ __forceinline__ T warpReduce(T val, Op op)
{
#pragma unroll
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        val = op(val, __shfl_down_sync(0xffffffff, val, offset));
    return val;
}

template <typename T, typename Op>
__device__ T blockReduce(T val, Op op, T identity)
{
    __shared__ T shared[32];
    int lane = threadIdx.x % warpSize;
    int wid = threadIdx.x / warpSize;
    val = warpReduce(val, op);
    if (lane == 0)
        shared[wid] = val;
    __syncthreads();
    val = (threadIdx.x < (blockDim.x + warpSize - 1) / warpSize) ? shared[lane] : identity;
    if (wid == 0)
        val = warpReduce(val, op);
    return val;
}

struct MaxOp {
    __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

// Per block: the sum of scale * x^2 + shift and the largest |x|.
__global__ void sumsq_max(const float *x, float *sums, float *maxes, int n, float scale, float shift)
{
    auto transform = [&](float v) { return scale * v * v + shift; };
    auto add = [] __device__ (float a, float b) { return a + b; };
    float acc = 0.0f, mx = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        acc += transform(x[i]);
        mx = MaxOp()(mx, fabsf(x[i]));
    }
    float s = blockReduce(acc, add, 0.0f);
    __syncthreads();
    float m = blockReduce(mx, MaxOp(), 0.0f);
    if (threadIdx.x == 0) {
        sums[blockIdx.x] = s;
        maxes[blockIdx.x] = m;
    }
}

// A lambda that writes through its captures, and one called on the spot.
__global__ void clamp_count(const int *in, int *out, int *count, int n, int lo, int hi)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int clamped = 0;
    auto clamp = [&](int v) -> int {
        if (v < lo) { clamped++; return lo; }
        if (v > hi) { clamped++; return hi; }
        return v;
    };
    if (i < n)
        out[i] = clamp(in[i]);
    int total = [&]() { return __syncthreads_count(clamped > 0); }();
    if (threadIdx.x == 0)
        atomicAdd(count, total);
}
