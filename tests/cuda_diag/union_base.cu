// expect error: union_base.cu:7:13: error: a union cannot have a base class
struct Tag
{
    int kind;
};

union Value : Tag
{
    int i;
    float f;
};

__global__ void k(int *out)
{
    Value v;
    v.i = 1;
    out[0] = v.i;
}
