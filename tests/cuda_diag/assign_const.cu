// expect error: assign_const.cu:5:11: error: cannot assign to a const
__global__ void k(const float *in, float *out)
{
    int i = threadIdx.x;
    in[i] = out[i];
}
