// expect error: case_outside_switch.cu:6:5: error: 'case' statement not in switch statement
// todo: F4 compiler: case outside any switch is reported as a nested case label of a switch
__global__ void k(int *out)
{
    int i = threadIdx.x;
    case 1:
    out[i] = i;
}
