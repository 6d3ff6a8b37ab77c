// expect error: pointer_conversion.cu:9:5: error: cannot convert 'float *' to 'int *' without a cast
__device__ void clear(int *p)
{
    p[threadIdx.x] = 0;
}

__global__ void k(float *o)
{
    clear(o);
}
