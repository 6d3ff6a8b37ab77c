// expect error: scalar_list_too_many.cu:5:13: error: too many initializers for a scalar
__global__ void k(float *out)
{
    int x = 1;
    x = {2, 3};
    out[threadIdx.x] = (float)x;
}
