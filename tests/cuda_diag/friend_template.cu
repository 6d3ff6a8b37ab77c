// expect error: friend_template.cu:4:27: error: friend templates are not supported
struct V {
    float x;
    template <typename T> friend __device__ V mul(V a, T s) { return {a.x * s}; }
};
__global__ void k(float *out)
{
    V v = {1.0f};
    out[threadIdx.x] = mul(v, 3.0f).x;
}
