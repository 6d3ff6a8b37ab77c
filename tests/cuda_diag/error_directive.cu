// expect error: error_directive.cu:3:1: error: #error this kernel needs BLOCK defined
#ifndef BLOCK
#error this kernel needs BLOCK defined
#endif

__global__ void k(float *out)
{
    out[threadIdx.x] = 0.0f;
}
