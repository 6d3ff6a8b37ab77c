// collatz_switch.cu - control flow: a do/while loop with break and continue,
// and a switch with fallthrough: steps of the Collatz sequence (capped),
// then a class code from the low bits of the step count.
__device__ int classify(int steps)
{
    int code = 0;
    switch (steps & 7) {
    case 0:
        code += 100;
        // fall through
    case 1:
    case 2:
        code += 10;
        break;
    case 3:
        code = -1;
        break;
    default:
        code = steps & 7;
    }
    return code;
}

__global__ void collatz(const unsigned int *start, int *steps, int *cls, int n, int cap)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned int x = start[i];
    int s = 0;
    do {
        if (x <= 1)
            break;
        ++s;
        if (x & 1) {
            x = 3 * x + 1;
            continue;
        }
        x >>= 1;
    } while (s < cap);
    steps[i] = s;
    cls[i] = classify(s);
}
