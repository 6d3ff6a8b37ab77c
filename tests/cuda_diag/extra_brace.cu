// expect error: extra_brace.cu:8:1: error: extraneous closing brace
// regression: this diagnostic was once wrong (see git log)
__global__ void k(float *out)
{
    int i = threadIdx.x;
    out[i] = 1.0f;
}
}
