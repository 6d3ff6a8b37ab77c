// expect error: missing_paren.cu:5:33: error: expected ')'
__global__ void k(float *out, const float *a, const float *b)
{
    int i = threadIdx.x;
    out[i] = (a[i] + b[i] * 0.5f;
}
