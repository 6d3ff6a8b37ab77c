// expect error: continue_outside_loop.cu:7:9: error: 'continue' statement not in loop statement
// regression: this diagnostic was once wrong (see git log)
__global__ void k(int *out, int n)
{
    int i = threadIdx.x;
    if (i >= n)
        continue;
    out[i] = i;
}
