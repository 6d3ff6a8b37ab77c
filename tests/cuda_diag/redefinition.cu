// expect error: redefinition.cu:7:9: error: redefinition of 'i'
// regression: this diagnostic was once wrong (see git log)
__global__ void k(float *out)
{
    int i = threadIdx.x;
    out[i] = 1.0f;
    int i = 2;
    out[i] = 2.0f;
}
