// expect error: inline_asm.cu:5:5: error: inline PTX assembly (asm) is not supported in kernels
__global__ void k(unsigned *out)
{
    unsigned lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    out[threadIdx.x] = lane;
}
