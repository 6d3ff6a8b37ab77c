// expect error: static_assert.cu:4:1: error: static assertion failed: BLOCK must be a power of two
#define BLOCK 96

static_assert((BLOCK & (BLOCK - 1)) == 0, "BLOCK must be a power of two");

__global__ void k(float *out)
{
    out[threadIdx.x] = 0.0f;
}
