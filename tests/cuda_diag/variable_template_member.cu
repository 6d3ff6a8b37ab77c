// expect error: variable_template_member.cu:4:5: error: variable templates inside a struct are not supported
struct Consts {
    int n;
    template <typename T> static constexpr T one = T(1);
};
__global__ void k(float *out)
{
    Consts c = {3};
    out[threadIdx.x] = (float)c.n;
}
