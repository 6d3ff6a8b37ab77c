// expect error: continue_outside_loop.cu:7:9: error: 'continue' statement not in loop statement
// todo: F4 compiler: continue outside a loop reaches the verifier (internal error, no position)
__global__ void k(int *out, int n)
{
    int i = threadIdx.x;
    if (i >= n)
        continue;
    out[i] = i;
}
