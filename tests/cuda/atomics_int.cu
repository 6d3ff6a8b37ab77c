// atomics_int.cu - every integer atomic on a handful of global counters;
// the final values do not depend on the order the threads run in.
//   acc[0] += v        acc[1] -= 1        acc[2] = min     acc[3] = max
//   acc[4] &= ~bit     acc[5] |= bit      acc[6] ^= v      acc[7] inc mod 17
//   acc[8] dec wrap 100   acc[9] unsigned long long sum of v
__global__ void atomicsInt(const int *in, int *acc, unsigned int *uacc, unsigned long long *sum64, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];
    atomicAdd(&acc[0], v);
    atomicSub(&acc[1], 1);
    atomicMin(&acc[2], v);
    atomicMax(&acc[3], v);
    atomicAnd(&uacc[0], ~(1u << (i % 32)));
    atomicOr(&uacc[1], 1u << (v & 31));
    atomicXor(&uacc[2], (unsigned int)v);
    atomicInc(&uacc[3], 16u);
    atomicDec(&uacc[4], 99u);
    atomicAdd(sum64, (unsigned long long)(v & 0xffff));
    int prev = atomicExch(&acc[4], i);
    (void)prev;
}
