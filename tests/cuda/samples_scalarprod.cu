// samples_scalarprod.cu - scalarProd of the CUDA samples: vectorN dot
// products of elementN elements each; every block takes vectors in a
// grid-stride loop, accumulates ACCUM_N partial sums in shared memory with
// a block-stride loop and reduces them with a tree. __mul24 through the
// samples' IMUL macro.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define IMUL(a, b) __mul24(a, b)

// Accumulators cache size; must be a power of two and a multiple of the block size
#define ACCUM_N 1024

__global__ void scalarProdGPU(float *d_C, float *d_A, float *d_B, int vectorN, int elementN)
{
    cg::thread_block cta = cg::this_thread_block();
    __shared__ float accumResult[ACCUM_N];

    // Cycle through every pair of vectors,
    // taking into account that vector counts can be different
    // from total number of thread blocks
    for (int vec = blockIdx.x; vec < vectorN; vec += gridDim.x) {
        int vectorBase = IMUL(elementN, vec);
        int vectorEnd = vectorBase + elementN;

        // Each accumulator cycles through vectors with
        // stride equal to number of total number of accumulators ACCUM_N
        for (int iAccum = threadIdx.x; iAccum < ACCUM_N; iAccum += blockDim.x) {
            float sum = 0;

            for (int pos = vectorBase + iAccum; pos < vectorEnd; pos += ACCUM_N)
                sum += d_A[pos] * d_B[pos];

            accumResult[iAccum] = sum;
        }

        // Perform tree-like reduction of accumulators' results.
        for (int stride = ACCUM_N / 2; stride > 0; stride >>= 1) {
            cg::sync(cta);

            for (int iAccum = threadIdx.x; iAccum < stride; iAccum += blockDim.x)
                accumResult[iAccum] += accumResult[stride + iAccum];
        }

        cg::sync(cta);

        if (threadIdx.x == 0) d_C[vec] = accumResult[0];
    }
}
