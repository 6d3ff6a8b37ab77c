// gemv_warp.cu - y = alpha * A x + beta * y (A row-major rows x cols), one
// warp per row: lanes stride across the row, __shfl_xor_sync reduces.
__global__ void gemvWarp(const float *A, const float *x, float *y, int rows, int cols, float alpha,
                         float beta)
{
    const int lane = threadIdx.x % warpSize;
    const int row = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    if (row >= rows)
        return;
    float sum = 0.0f;
    for (int c = lane; c < cols; c += warpSize)
        sum += A[(size_t)row * cols + c] * x[c];
    for (int mask = warpSize / 2; mask > 0; mask >>= 1)
        sum += __shfl_xor_sync(0xffffffff, sum, mask);
    if (lane == 0)
        y[row] = alpha * sum + beta * y[row];
}
