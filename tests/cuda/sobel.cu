// sobel.cu - Sobel edge detection on an 8-bit image: 2D grid, const local
// 3x3 masks, nested #pragma unroll loops, min() of int, unsigned char output.
__global__ void sobel(const unsigned char *in, unsigned char *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x <= 0 || y <= 0 || x >= w - 1 || y >= h - 1) {
        if (x < w && y < h) out[y * w + x] = 0;
        return;
    }
    const int gx[3][3] = {{-1, 0, 1}, {-2, 0, 2}, {-1, 0, 1}};
    const int gy[3][3] = {{-1, -2, -1}, {0, 0, 0}, {1, 2, 1}};
    int sx = 0, sy = 0;
    #pragma unroll
    for (int j = -1; j <= 1; ++j)
        #pragma unroll
        for (int i = -1; i <= 1; ++i) {
            int p = in[(y + j) * w + (x + i)];
            sx += gx[j + 1][i + 1] * p;
            sy += gy[j + 1][i + 1] * p;
        }
    int mag = (int)sqrtf((float)(sx * sx + sy * sy));
    out[y * w + x] = (unsigned char)min(255, mag);
}
