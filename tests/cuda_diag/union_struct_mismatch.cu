// expect error: union_struct_mismatch.cu:6:7: error: 'Bits' was declared as a struct
struct Bits {
    unsigned u;
};

union Bits b;

__global__ void k(unsigned *o)
{
    o[0] = 1;
}
