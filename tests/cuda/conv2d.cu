// conv2d.cu - direct 2D convolution (cross-correlation, as in deep learning
// frameworks), NCHW with batch 1: out[co][y][x] = bias[co] + sum over ci, ky, kx
// of in[ci][y*stride+ky-pad][x*stride+kx-pad] * w[co][ci][ky][kx].
struct ConvShape {
    int cin, cout, h, w, k, stride, pad, oh, ow;
};

__global__ void conv2d(const float *in, const float *weight, const float *bias, float *out, ConvShape s)
{
    int ox = blockIdx.x * blockDim.x + threadIdx.x;
    int oy = blockIdx.y * blockDim.y + threadIdx.y;
    int co = blockIdx.z;
    if (ox >= s.ow || oy >= s.oh)
        return;
    float acc = bias[co];
    for (int ci = 0; ci < s.cin; ++ci) {
        for (int ky = 0; ky < s.k; ++ky) {
            int iy = oy * s.stride + ky - s.pad;
            if (iy < 0 || iy >= s.h)
                continue;
            for (int kx = 0; kx < s.k; ++kx) {
                int ix = ox * s.stride + kx - s.pad;
                if (ix < 0 || ix >= s.w)
                    continue;
                acc += in[(ci * s.h + iy) * s.w + ix] * weight[((co * s.cin + ci) * s.k + ky) * s.k + kx];
            }
        }
    }
    out[(co * s.oh + oy) * s.ow + ox] = acc;
}
