// spmv_csr.cu - y = A * x for a CSR matrix: the scalar kernel (one thread
// per row) and the vector kernel (one warp per row, shuffle reduction).
__global__ void spmvCsrScalar(int rows, const int *rowPtr, const int *colIdx, const float *vals,
                              const float *x, float *y)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float dot = 0.0f;
        for (int j = rowPtr[row]; j < rowPtr[row + 1]; ++j)
            dot += vals[j] * x[colIdx[j]];
        y[row] = dot;
    }
}

__global__ void spmvCsrVector(int rows, const int *rowPtr, const int *colIdx, const float *vals,
                              const float *x, float *y)
{
    int warpId = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    if (warpId >= rows)
        return;
    float sum = 0.0f;
    for (int j = rowPtr[warpId] + lane; j < rowPtr[warpId + 1]; j += 32)
        sum += vals[j] * x[colIdx[j]];
    for (int off = 16; off > 0; off /= 2)
        sum += __shfl_down_sync(0xffffffff, sum, off);
    if (lane == 0)
        y[warpId] = sum;
}
