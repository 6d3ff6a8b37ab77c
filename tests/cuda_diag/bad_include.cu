// expect error: bad_include.cu:2:10: error: cannot find include file "no_such_header.h"
#include "no_such_header.h"

__global__ void k(float *out)
{
    out[threadIdx.x] = 0.0f;
}
