// expect error: no_such_kernel.cu: error: no __global__ function named 'sclae'
// status: NOT_FOUND
// kernel: sclae
__global__ void scale(float *out)
{
    out[threadIdx.x] *= 3.0f;
}
