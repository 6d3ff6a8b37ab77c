// expect error: static_nonconst.cu:4:22: error: static local variable 'z' needs a constant initializer (it is set once, before any call)
__global__ void k(int *o)
{
    static const int z = o[0] + 1;
    o[1] = z;
}
