// expect error: pointer_to_float.cu:5:7: error: cannot convert 'float *' to 'float'
__global__ void k(float *out, float *in)
{
    float v;
    v = in + threadIdx.x;
    out[threadIdx.x] = v;
}
