// expect error: try.cu:5:5: error: exceptions are not supported in kernels
__global__ void k(int *out)
{
    int i = threadIdx.x;
    try {
        out[i] = i;
    } catch (...) {
        out[i] = -1;
    }
}
