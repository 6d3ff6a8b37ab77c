// expect error: unsized_local.cu:4:9: error: array 'a' has no size: give its length or an initializer
__global__ void k(int *o)
{
    int a[];
    a[0] = 3;
    o[0] = a[0];
}
