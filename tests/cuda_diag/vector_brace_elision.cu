// expect error: vector_brace_elision.cu:5:12: error: a vector member or element needs its own braces here
struct S { float4 v; int n; };
__global__ void k(float *out)
{
    S s = {1.0f, 5};
    out[threadIdx.x] = s.v.x;
}
