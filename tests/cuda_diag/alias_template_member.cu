// expect error: alias_template_member.cu:4:5: error: alias templates inside a struct are not supported
struct Holder {
    int n;
    template <typename T> using Ptr = T *;
};
__global__ void k(float *out)
{
    Holder h = {3};
    out[threadIdx.x] = (float)h.n;
}
