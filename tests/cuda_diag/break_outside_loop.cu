// expect error: break_outside_loop.cu:7:9: error: 'break' statement not in loop or switch statement
// regression: this diagnostic was once wrong (see git log)
__global__ void k(int *out, int n)
{
    int i = threadIdx.x;
    if (i >= n)
        break;
    out[i] = i;
}
