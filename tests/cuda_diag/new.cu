// expect error: new.cu:5:18: error: device-side malloc is not supported
__global__ void k(float *out, int n)
{
    int i = threadIdx.x;
    float *tmp = new float[n];
    tmp[0] = 1.0f;
    out[i] = tmp[0];
}
