// expect error: error: no kernel template named 'scale'
// status: NOT_FOUND
// kernel: scale<3>
__global__ void scale(float *out)
{
    out[threadIdx.x] *= 3.0f;
}
