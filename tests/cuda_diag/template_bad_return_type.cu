// expect error: template_bad_return_type.cu:2:43: error: expected a type before 'std'
template <typename T> __device__ typename std::vec_of<T>::type first(T x)
{
    return x;
}
__global__ void k(float *out)
{
    out[threadIdx.x] = first(1.0f);
}
