// bit_ops.cu - the integer intrinsics, one output row of 8 per input:
// __popc, __clz, __ffs, __brev, __byte_perm, __popcll, __clzll, __umulhi.
#include <stdint.h>

__global__ void bitOps(const unsigned int *in, const unsigned long long *in64, unsigned int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned int v = in[i];
    unsigned long long w = in64[i];
    uint32_t *o = out + 8 * i;
    o[0] = __popc(v);
    o[1] = __clz(v);
    o[2] = __ffs(v);
    o[3] = __brev(v);
    o[4] = __byte_perm(v, 0x11223344u, 0x5140);
    o[5] = __popcll(w);
    o[6] = __clzll(w);
    o[7] = __umulhi(v, 0x9e3779b9u);
}
