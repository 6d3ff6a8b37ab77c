// expect error: if_init.cu:4:9: error: a declaration in an if condition (if (int t = f(); t > 0)) is not supported in kernels; declare the variable before the if
__global__ void k(int *out)
{
    if (int t = out[1]; t > 0)
        out[0] = t;
}
