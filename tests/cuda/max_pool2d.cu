// max_pool2d.cu - max pooling over k x k windows with a stride, one thread
// per output element of an N*C stack of h x w planes (flattened 1D grid).
#include <float.h>

__global__ void maxPool2d(const float *in, float *out, int planes, int h, int w, int k, int stride,
                          int oh, int ow)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int total = planes * oh * ow;
    if (idx >= total)
        return;
    int ox = idx % ow;
    int oy = (idx / ow) % oh;
    int p = idx / (ow * oh);
    const float *plane = in + (size_t)p * h * w;
    float m = -FLT_MAX;
    for (int ky = 0; ky < k; ++ky)
        for (int kx = 0; kx < k; ++kx) {
            int iy = oy * stride + ky, ix = ox * stride + kx;
            if (iy < h && ix < w)
                m = fmaxf(m, plane[iy * w + ix]);
        }
    out[idx] = m;
}
