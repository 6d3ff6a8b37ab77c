// expect error: destructor_body.cu:6:16: error: destructors with a body are not supported in kernels
// A destructor that does something would have to run at every scope exit.
struct Guard {
    int *flag;
    __device__ Guard(int *f) : flag(f) {}
    __device__ ~Guard() { *flag = 1; }
};

__global__ void k(int *out)
{
    Guard g(out);
}
