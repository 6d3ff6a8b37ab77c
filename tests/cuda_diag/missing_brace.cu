// expect error: missing_brace.cu:8:1: error: expected '}'
__global__ void k(float *out, int n)
{
    int i = threadIdx.x;
    if (i < n) {
        out[i] = 1.0f;
    }
