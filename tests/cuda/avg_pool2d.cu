// avg_pool2d.cu - average pooling with zero padding that is not counted
// (count_include_pad = false), on a 3D grid: x, y over the output, z over planes.
__global__ void avgPool2d(const float *in, float *out, int h, int w, int k, int stride, int pad,
                          int oh, int ow)
{
    int ox = blockIdx.x * blockDim.x + threadIdx.x;
    int oy = blockIdx.y * blockDim.y + threadIdx.y;
    int p = blockIdx.z;
    if (ox >= ow || oy >= oh)
        return;
    int y0 = oy * stride - pad, x0 = ox * stride - pad;
    int y1 = min(y0 + k, h), x1 = min(x0 + k, w);
    y0 = max(y0, 0);
    x0 = max(x0, 0);
    float sum = 0.0f;
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x)
            sum += in[(p * h + y) * w + x];
    int count = (y1 - y0) * (x1 - x0);
    out[(p * oh + oy) * ow + ox] = count > 0 ? sum / count : 0.0f;
}
