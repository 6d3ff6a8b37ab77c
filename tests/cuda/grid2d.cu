// grid2d.cu - element-wise work on a pitched 2D array with a 2D grid:
// out[y][x] = in[y][x] * scale + x - y (rows are `pitch` elements apart).
__global__ void scaleOffset2d(const int *in, int *out, int width, int height, int pitch, int scale)
{
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        int idx = y * pitch + x;
        out[idx] = in[idx] * scale + (int)x - (int)y;
    }
}
