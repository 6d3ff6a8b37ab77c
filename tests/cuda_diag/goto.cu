// expect error: goto.cu:6:9: error: goto is not supported
__global__ void k(int *out, int n)
{
    int i = threadIdx.x;
    if (i >= n)
        goto done;
    out[i] = i;
done:
    return;
}
