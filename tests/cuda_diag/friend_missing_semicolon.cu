// expect error: friend_missing_semicolon.cu:3:31: error: expected ';' after the friend declaration
struct S {
    friend __device__ int f() };
__global__ void k(float *out)
{
    out[threadIdx.x] = 1.0f;
}
