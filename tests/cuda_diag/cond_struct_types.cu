// expect error: cond_struct_types.cu:7:20: error: operands of '?:' have different types 'P' and 'Q'
struct P { float a; };
struct Q { float a; };
__global__ void k(float *out, float x)
{
    P p = {x}; Q q = {x};
    P r = x > 1.0f ? p : q;
    out[threadIdx.x] = r.a;
}
