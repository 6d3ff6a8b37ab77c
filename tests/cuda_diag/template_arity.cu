// expect error: error: template 'scale' takes 1 arguments, 2 given
// kernel: scale<float, 4>
template <int N>
__global__ void scale(float *out)
{
    out[threadIdx.x] *= (float)N;
}
