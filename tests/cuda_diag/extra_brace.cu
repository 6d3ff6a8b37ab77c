// expect error: extra_brace.cu:8:1: error: extraneous closing brace
// todo: F4 compiler: a stray '}' at file scope gives "expected a type"
__global__ void k(float *out)
{
    int i = threadIdx.x;
    out[i] = 1.0f;
}
}
