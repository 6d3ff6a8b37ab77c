// expect error: host_variable.cu:12:17: error: 'h_scale' is a host variable
// A kernel reading a variable of the host program in the same file.
#include <stdio.h>

float h_scale = 2.0f;
int numElements = 1024;

__global__ void scale(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= h_scale;
}

int main(void)
{
    printf("%d\n", numElements);
    return 0;
}
