// expect error: undeclared_function.cu:5:14: error: call to undeclared function 'squash'
__global__ void k(float *out)
{
    int i = threadIdx.x;
    out[i] = squash(out[i]);
}
