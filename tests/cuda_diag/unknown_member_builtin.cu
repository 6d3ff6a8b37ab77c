// expect error: unknown_member_builtin.cu:4:24: error: no member named 'w'
__global__ void k(int *out)
{
    out[0] = threadIdx.w;
}
