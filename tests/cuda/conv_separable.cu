// conv_separable.cu - separable convolution (row pass, column pass) with the
// filter taps in __constant__ memory written by the host before the launch.
// Pixels outside the image count as zero.
#ifndef KERNEL_RADIUS
#define KERNEL_RADIUS 4
#endif
#define KERNEL_LENGTH (2 * KERNEL_RADIUS + 1)

__constant__ float c_Kernel[KERNEL_LENGTH];

__global__ void convolutionRows(float *dst, const float *src, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    float sum = 0.0f;
    for (int k = -KERNEL_RADIUS; k <= KERNEL_RADIUS; k++) {
        int xs = x + k;
        if (xs >= 0 && xs < w)
            sum += src[y * w + xs] * c_Kernel[KERNEL_RADIUS - k];
    }
    dst[y * w + x] = sum;
}

__global__ void convolutionColumns(float *dst, const float *src, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    float sum = 0.0f;
    for (int k = -KERNEL_RADIUS; k <= KERNEL_RADIUS; k++) {
        int ys = y + k;
        if (ys >= 0 && ys < h)
            sum += src[ys * w + x] * c_Kernel[KERNEL_RADIUS - k];
    }
    dst[y * w + x] = sum;
}
