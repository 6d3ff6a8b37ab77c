// expect error: duplicate_case.cu:10:10: error: duplicate case value '2'
// regression: this diagnostic was once wrong (see git log)
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
