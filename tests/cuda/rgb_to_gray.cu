// rgb_to_gray.cu - RGBA (uchar4) image to 8-bit luminance on a 2D grid,
// with the BT.601 weights and rounding to nearest.
__global__ void rgbaToGray(const uchar4 *rgba, unsigned char *gray, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        uchar4 p = rgba[y * width + x];
        float l = 0.299f * p.x + 0.587f * p.y + 0.114f * p.z;
        gray[y * width + x] = (unsigned char)(l + 0.5f);
    }
}
