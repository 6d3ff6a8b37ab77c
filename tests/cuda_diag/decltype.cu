// expect error: decltype.cu:5:5: error: decltype(auto) is not supported in kernels; use auto
// decltype(e) names e's type in declarations; decltype(auto) is outside the subset.
__global__ void k(float *out)
{
    decltype(auto) b = out[0];
    out[0] = b;
}
