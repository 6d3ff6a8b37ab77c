// expect error: structured_binding.cu:5:10: error: structured bindings (auto [a, b] = ...) are not supported in kernels; index the array or name the members
__global__ void k(int *out)
{
    int a[2] = {1, 2};
    auto [x, y] = a;
    out[0] = x + y;
}
