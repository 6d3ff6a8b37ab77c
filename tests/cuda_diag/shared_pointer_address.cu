// expect error: shared_pointer_address.cu:9:10: error: taking the address of a pointer to shared or local memory is not supported
// Pointers stored in memory are global ones; a pointer into shared memory has no such form.
__device__ void bump(float **pp) { *pp += 1; }

__global__ void k(float *out)
{
    __shared__ float tile[64];
    float *p = tile;
    bump(&p);
    out[0] = p[0];
}
