// expect error: continue_in_switch.cu:9:9: error: 'continue' statement not in loop statement
// regression: this diagnostic was once wrong (see git log)
__global__ void k(int *out)
{
    int i = threadIdx.x;
    switch (i & 3) {
    case 0:
        out[i] = 0;
        continue;
    default:
        out[i] = 1;
    }
}
