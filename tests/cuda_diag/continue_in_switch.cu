// expect error: continue_in_switch.cu:9:9: error: 'continue' statement not in loop statement
// todo: F4 compiler: continue in a switch outside a loop reaches the verifier (internal error, no position)
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
