// expect error: redefine_kernel.cu:7:17: error: redefinition of kernel 'scale' (kernels are named by their plain names: a __global__ function cannot be overloaded)
__global__ void scale(float *x)
{
    x[threadIdx.x] *= 2.0f;
}

__global__ void scale(int *x)
{
    x[threadIdx.x] *= 2;
}
