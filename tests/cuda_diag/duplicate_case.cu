// expect error: duplicate_case.cu:10:10: error: duplicate case value '2'
// todo: F4 compiler: duplicate case value reaches the verifier (internal error, no position)
__global__ void k(int *out)
{
    int i = threadIdx.x;
    switch (i) {
    case 2:
        out[i] = 20;
        break;
    case 1 + 1:
        out[i] = 21;
        break;
    }
}
