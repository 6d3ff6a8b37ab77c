// expect error: ptr_to_array.cu:5:9: error: pointers to arrays (T (*p)[N]) are not supported in kernels; use T *p and index p[i * N + j]
__global__ void k(int *o)
{
    int a[2][4] = {};
    int (*p)[4] = a;
    o[0] = p[1][2];
}
