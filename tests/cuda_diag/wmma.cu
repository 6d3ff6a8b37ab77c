// expect error: wmma.cu:8:11: error: warp matrix functions (nvcuda::wmma) are not supported in kernels
// Tensor-core fragments have no lowering.
#include <mma.h>
using namespace nvcuda;

__global__ void k(const half *a, float *c)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::load_matrix_sync(fa, a, 16);
}
