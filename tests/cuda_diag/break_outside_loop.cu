// expect error: break_outside_loop.cu:7:9: error: 'break' statement not in loop or switch statement
// todo: F4 compiler: break outside a loop reaches the verifier (internal error, no position)
__global__ void k(int *out, int n)
{
    int i = threadIdx.x;
    if (i >= n)
        break;
    out[i] = i;
}
