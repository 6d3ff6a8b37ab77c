// expect error: bitfield.cu:3:14: error: bit-fields are not supported in kernels; use a whole integer member and shifts and masks
struct BF {
    unsigned a : 3;
    unsigned b;
};
__global__ void k(int *o)
{
    BF x;
    x.b = 1;
    o[0] = (int)x.b;
}
