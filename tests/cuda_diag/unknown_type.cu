// expect error: unknown_type.cu:5:5: error: unknown type name 'real_t'
// todo: F4 compiler: an unknown type name gives "expected ';' before 'v'" at the variable
__global__ void k(float *out)
{
    real_t v = out[threadIdx.x];
    out[threadIdx.x] = v;
}
