// template_specialization.cu - an explicit specialization of a struct
// template (`template <> struct Combine<float>`), as the CUDA samples'
// SharedMemory<double> and traits classes use them: fold<int> sums with
// the primary template, fold<float> takes the maximum with the
// specialization. One thread per block folds a block-sized chunk.
template <typename T>
struct Combine {
    __device__ T first() const { return 0; }
    __device__ T apply(T a, T b) const { return a + b; }
};

template <>
struct Combine<float> {
    __device__ float first() const { return -INFINITY; }
    __device__ float apply(float a, float b) const { return fmaxf(a, b); }
};

template <typename T>
__global__ void fold(const T *in, T *out, int n, int chunk)
{
    Combine<T> op;
    if (threadIdx.x != 0)
        return;
    T v = op.first();
    int begin = blockIdx.x * chunk;
    for (int i = begin; i < begin + chunk && i < n; i++)
        v = op.apply(v, in[i]);
    out[blockIdx.x] = v;
}
