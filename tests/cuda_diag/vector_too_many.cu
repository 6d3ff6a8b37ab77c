// expect error: vector_too_many.cu:4:41: error: too many initializers for 'float2' (it has 2 elements)
__global__ void k(float2 *out, float x)
{
    float2 v[2] = {{x, 1.0f}, {x, 2.0f, 3.0f}};
    out[threadIdx.x] = v[1];
}
