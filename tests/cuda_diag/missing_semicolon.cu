// expect error: missing_semicolon.cu:6:22: error: expected ';'
// todo: F4 compiler: a missing ';' is reported at the next token (next line), not after the expression
__global__ void k(float *out)
{
    int i = threadIdx.x;
    out[i] = 2.0f * i
    out[i] += 1.0f;
}
