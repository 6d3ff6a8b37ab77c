// expect error: vector_assign_scalar.cu:5:7: error: cannot convert 'int' to 'int2'
__global__ void k(int2 *out)
{
    int2 v = make_int2(1, 2);
    v = 0;
    out[threadIdx.x] = v;
}
