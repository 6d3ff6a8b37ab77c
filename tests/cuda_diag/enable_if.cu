// expect error: enable_if.cu:3:48: error: std::enable_if (SFINAE) is not supported
#include <type_traits>
template <typename T> __device__ typename std::enable_if<std::is_floating_point<T>::value, T>::type twice(T x)
{
    return x + x;
}
__global__ void k(float *out)
{
    out[threadIdx.x] = twice(1.0f);
}
