// expect error: array_too_many.cu:4:31: error: too many initializers for an array of 2 elements
__global__ void k(float *out)
{
    float b[2] = {1.0f, 2.0f, 3.0f};
    out[threadIdx.x] = b[0];
}
