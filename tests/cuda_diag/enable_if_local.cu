// expect error: enable_if_local.cu:5:10: error: std::enable_if (SFINAE) is not supported
#include <type_traits>
__global__ void k(float *out)
{
    std::enable_if_t<true, int> x = 1;
    out[threadIdx.x] = (float)x;
}
