// expect error: cub_include.cu:3:10: error: <cub/cub.cuh> (CUB) is not supported in kernels
// Device libraries have no built-in version; the include is named, not just missing.
#include <cub/cub.cuh>

__global__ void k(float *out)
{
    typedef cub::BlockReduce<float, 128> BlockReduce;
    __shared__ typename BlockReduce::TempStorage tmp;
    float s = BlockReduce(tmp).Sum(out[threadIdx.x]);
    if (threadIdx.x == 0)
        out[0] = s;
}
