// expect error: braced_narrowing.cu:5:35: error: narrowing conversion from a float to an integer in a braced list
__device__ float g(float a, int b) { return a + b; }
__global__ void k(float *out)
{
    out[threadIdx.x] = g({2.5f}, {out[0]});
}
