// expect error: malloc.cu:5:27: error: device-side malloc is not supported
__global__ void k(float *out, int n)
{
    int i = threadIdx.x;
    float *tmp = (float *)malloc(n * sizeof(float));
    tmp[0] = 1.0f;
    out[i] = tmp[0];
    free(tmp);
}
