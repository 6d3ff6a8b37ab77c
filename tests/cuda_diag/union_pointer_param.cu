// expect error: union_pointer_param.cu:6:33: error: a union that holds a pointer cannot be a kernel parameter (each buffer pointer is a parameter of its own); pass the pointer beside it
union Src {
    const float *p;
    unsigned long long bits;
};
__global__ void k(float *o, Src s)
{
    o[0] = 1.0f;
}
