// expect error: static_local.cu:4:16: error: static local variable 'c' is not supported (it would keep its value between calls); use a __device__ variable, or make it const
__device__ int next()
{
    static int c = 0;
    return ++c;
}
__global__ void k(int *o)
{
    o[0] = next();
}
