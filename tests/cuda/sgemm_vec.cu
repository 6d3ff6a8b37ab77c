// sgemm_vec.cu - C = alpha * A * B + beta * C (row major) with 2D block
// tiling in the style of the step-by-step SGEMM optimization write-ups: a
// template over the tile sizes, __launch_bounds__ after the return type,
// A's tile stored transposed in shared memory, float4 loads and stores
// through reinterpret_cast of element addresses, a TM x TN register tile
// per thread. M and N must be multiples of BM and BN, K of BK.
#include <cuda_runtime.h>
#define VEC4(ref) (reinterpret_cast<float4 *>(&(ref))[0])

template <const int BM, const int BN, const int BK, const int TM, const int TN>
__global__ void __launch_bounds__((BM * BN) / (TM * TN), 1)
sgemm_tiled_vec4(int M, int N, int K, float alpha, float *A, float *B, float beta, float *C)
{
    __shared__ float sA[BK * BM]; // transposed: sA[k * BM + m]
    __shared__ float sB[BK * BN];
    const int tRow = threadIdx.x / (BN / TN), tCol = threadIdx.x % (BN / TN);
    A += blockIdx.y * BM * K;
    B += blockIdx.x * BN;
    C += blockIdx.y * BM * N + blockIdx.x * BN;
    // each thread moves one float4 of A's tile and one of B's per step
    const uint aRow = threadIdx.x / (BK / 4), aCol = threadIdx.x % (BK / 4);
    const uint bRow = threadIdx.x / (BN / 4), bCol = threadIdx.x % (BN / 4);

    float acc[TM * TN] = {0.0f};
    float colA[TM], rowB[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        const float4 a4 = VEC4(A[aRow * K + aCol * 4]);
        sA[(aCol * 4 + 0) * BM + aRow] = a4.x;
        sA[(aCol * 4 + 1) * BM + aRow] = a4.y;
        sA[(aCol * 4 + 2) * BM + aRow] = a4.z;
        sA[(aCol * 4 + 3) * BM + aRow] = a4.w;
        VEC4(sB[bRow * BN + bCol * 4]) = VEC4(B[bRow * N + bCol * 4]);
        __syncthreads();
        A += BK;
        B += BK * N;
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; ++i)
                colA[i] = sA[k * BM + tRow * TM + i];
#pragma unroll
            for (int j = 0; j < TN; ++j)
                rowB[j] = sB[k * BN + tCol * TN + j];
            for (int i = 0; i < TM; ++i)
                for (int j = 0; j < TN; ++j)
                    acc[i * TN + j] += colA[i] * rowB[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < TM; ++i) {
        for (int j = 0; j < TN; j += 4) {
            float *dst = &C[(tRow * TM + i) * N + tCol * TN + j];
            float4 c4 = reinterpret_cast<float4 *>(dst)[0];
            c4.x = alpha * acc[i * TN + j + 0] + beta * c4.x;
            c4.y = alpha * acc[i * TN + j + 1] + beta * c4.y;
            c4.z = alpha * acc[i * TN + j + 2] + beta * c4.z;
            c4.w = alpha * acc[i * TN + j + 3] + beta * c4.w;
            VEC4(*dst) = c4;
        }
    }
}
