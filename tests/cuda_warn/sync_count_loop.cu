// expect warning: sync_count_loop.cu:8:9: warning: barrier under a condition
// __syncthreads_count in a loop whose trip count depends on the thread.
__global__ void k(int *out)
{
    int lane = threadIdx.x & 31;
    int c = 0;
    for (int j = 0; j < lane; j++)
        c += __syncthreads_count(j & 1);
    out[threadIdx.x] = c;
}
