// expect error: bad_pp_expr.cu:2:9: error: token "*" is not valid in a preprocessor expression
#if 1 + * 2
#define WIDTH 4
#endif

__global__ void k(float *out)
{
    out[threadIdx.x] = 0.0f;
}
