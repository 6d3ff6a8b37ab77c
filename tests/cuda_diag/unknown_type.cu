// expect error: unknown_type.cu:5:5: error: unknown type name 'real_t'
// regression: this diagnostic was once wrong (see git log)
__global__ void k(float *out)
{
    real_t v = out[threadIdx.x];
    out[threadIdx.x] = v;
}
