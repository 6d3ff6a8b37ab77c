// expect error: texture_object.cu:6:22: error: texture fetches (tex2D) are not supported in kernels
// Textures are read through pointers on the VM.
__global__ void k(float *out, int w, int h)
{
    int x = threadIdx.x, y = blockIdx.x;
    out[y * w + x] = tex2D<float>(0, x + 0.5f, y + 0.5f);
}
