// math_funcs.cu - CUDA's single-precision math library on one input array:
// out[k * n + i] holds function k of x[i] (see the list in the kernel).
#include <math.h>

__global__ void mathFuncs(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    float a = fabsf(v) + 0.5f;
    float s, c;
    sincosf(v, &s, &c);
    out[0 * n + i] = sqrtf(a);
    out[1 * n + i] = expf(v);
    out[2 * n + i] = logf(a);
    out[3 * n + i] = sinf(v);
    out[4 * n + i] = cosf(v);
    out[5 * n + i] = tanhf(v);
    out[6 * n + i] = atan2f(v, a);
    out[7 * n + i] = powf(a, v);
    out[8 * n + i] = s + c;
    out[9 * n + i] = floorf(v * 3.0f) + ceilf(v) + truncf(v * 7.0f) + roundf(v * 5.0f);
    out[10 * n + i] = fminf(v, 0.25f) + fmaxf(v, -0.25f) + copysignf(1.0f, v);
    out[11 * n + i] = fmaf(v, 3.0f, 1.0f) + hypotf(v, 2.0f);
}
