// expect error: host_api_value.cu:5:12: error: 'cudaMalloc' is a host API function; not callable in kernels
// A host API call used as a value (the error once left the value unset: a crash)
__global__ void k(int *x)
{
    x[0] = cudaMalloc(0, 0) + 1;
}
