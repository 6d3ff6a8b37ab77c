// expect error: braced_arg_overloaded.cu:7:24: error: a braced argument of overloaded 'f' is not supported
struct A { float x, y; };
__device__ float f(A a) { return a.x + a.y; }
__device__ float f(float v) { return v; }
__global__ void k(float *out)
{
    out[threadIdx.x] = f({5.0f});
}
