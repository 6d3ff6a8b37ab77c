// expect error: decltype.cu:6:5: error: decltype is not supported in kernels
// Types are named or deduced with auto.
__global__ void k(float *out)
{
    float a = 1.0f;
    decltype(a) b = 2.0f;
    out[0] = a + b;
}
