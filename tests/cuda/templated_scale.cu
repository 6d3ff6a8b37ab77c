// templated_scale.cu - a template over the element type and the number of
// elements each thread handles: scale<float, 4>, scale<int, 2>, ...
template <typename T, int ITEMS>
__global__ void scale(const T *in, T *out, T factor, int n)
{
    int base = (blockIdx.x * blockDim.x + threadIdx.x) * ITEMS;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        int i = base + k;
        if (i < n)
            out[i] = in[i] * factor;
    }
}
