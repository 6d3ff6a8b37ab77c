// expect error: kernel templates need an instance: --kernel 'reduce<...>'
// status: NOT_FOUND
// A file of kernel templates only, compiled without naming an instance.
template <unsigned int blockSize>
__global__ void reduce(const int *in, int *out)
{
    if (threadIdx.x == 0)
        out[blockIdx.x] = in[blockIdx.x * blockSize];
}
