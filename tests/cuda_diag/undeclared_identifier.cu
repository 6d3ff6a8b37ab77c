// expect error: undeclared_identifier.cu:5:14: error: use of undeclared identifier 'scale'
__global__ void k(float *out, int n)
{
    int i = threadIdx.x;
    out[i] = scale * out[i];
}
