// expect error: label.cu:5:1: error: labels and goto are not supported
__global__ void k(int *out)
{
    out[0] = 1;
again:
    out[1] = 2;
}
