// expect error: virtual_base.cu:8:24: error: virtual base classes are not supported in kernels
struct Counter
{
    int n;
};

// a virtual base would need a pointer to it in every object (nvcc keeps one)
struct Shared : public virtual Counter
{
    int extra;
};

__global__ void k(int *out)
{
    Shared s;
    s.extra = 1;
    out[0] = s.extra;
}
