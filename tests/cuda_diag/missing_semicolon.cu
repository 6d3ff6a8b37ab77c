// expect error: missing_semicolon.cu:6:22: error: expected ';'
// regression: this diagnostic was once wrong (see git log)
__global__ void k(float *out)
{
    int i = threadIdx.x;
    out[i] = 2.0f * i
    out[i] += 1.0f;
}
