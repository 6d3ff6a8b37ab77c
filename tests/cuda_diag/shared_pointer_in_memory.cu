// expect error: shared_pointer_in_memory.cu:6:23: error: a pointer to shared memory cannot be stored in memory (an array element, a struct member, a variable whose address is taken): pointers read from memory are global ones; keep it in a local variable
// double buffering through an array of pointers to shared tiles
__global__ void k(float *o)
{
    __shared__ float sA[32], sB[32];
    float *bufs[2] = {sA, sB};
    bufs[0][threadIdx.x] = threadIdx.x;
    __syncthreads();
    o[threadIdx.x] = sA[threadIdx.x];
}
