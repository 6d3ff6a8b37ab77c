// vec4_copy.cu - copy with 16-byte float4 loads and stores; the threads of
// the first block copy the n % 4 tail elements one by one.
__global__ void copyVec4(const float *__restrict__ src, float *__restrict__ dst, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n4 = n / 4;
    const float4 *s4 = reinterpret_cast<const float4 *>(src);
    float4 *d4 = reinterpret_cast<float4 *>(dst);
    for (int k = i; k < n4; k += blockDim.x * gridDim.x)
        d4[k] = s4[k];
    int tail = n4 * 4 + i;
    if (tail < n)
        dst[tail] = src[tail];
}
