// layernorm.cu - layer normalization of each row (one block per row):
// block reductions in shared memory for the mean and the variance, then
// y = (x - mean) * rsqrt(var + eps) * gamma + beta.
#define MAX_THREADS 1024

__device__ float blockSum(float v, float *buf)
{
    int tid = threadIdx.x;
    buf[tid] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            buf[tid] += buf[tid + s];
        __syncthreads();
    }
    float r = buf[0];
    __syncthreads();
    return r;
}

__global__ void layerNorm(const float *x, const float *gamma, const float *beta, float *y, int cols,
                          float eps)
{
    __shared__ float buf[MAX_THREADS];
    const float *xr = x + (size_t)blockIdx.x * cols;
    float *yr = y + (size_t)blockIdx.x * cols;

    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        s += xr[c];
    float mean = blockSum(s, buf) / cols;

    float sq = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float d = xr[c] - mean;
        sq += d * d;
    }
    float var = blockSum(sq, buf) / cols;
    float inv = rsqrtf(var + eps);

    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        yr[c] = (xr[c] - mean) * inv * gamma[c] + beta[c];
}
