// expect error: redefine_function.cu:3:16: error: redefinition of 'twice'
__device__ int twice(int a) { return 2 * a; }
__device__ int twice(int a) { return a + a; }
__device__ int twice(float a) { return (int)(2 * a); } // an overload: fine

__global__ void k(int *x)
{
    x[threadIdx.x] = twice(x[threadIdx.x]);
}
