// expect error: redefine_variable.cu:4:16: error: redefinition of 'counter'
extern __device__ int counter; // a declaration and its definition make one variable
__device__ int counter = 1;
__device__ int counter;

__global__ void k(int *x)
{
    x[threadIdx.x] = counter;
}
