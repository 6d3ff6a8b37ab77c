// expect error: case_outside_switch.cu:6:5: error: 'case' statement not in switch statement
// regression: this diagnostic was once wrong (see git log)
__global__ void k(int *out)
{
    int i = threadIdx.x;
    case 1:
    out[i] = i;
}
