// flash_attn_minimal.cu - a minimal flash-attention forward pass of the kind
// found in teaching repositories: one block per (batch, head), one thread
// per query row of a tile; K/V tiles, the Q tile and the score tile share
// one extern __shared__ array; each row keeps a running maximum m and sum l
// (in global memory between tiles) and rescales its output as they grow.
// N must be a multiple of Bc and Br, Bc == Br == blockDim.x; m starts at
// -inf, l and O at zero.
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void forward_kernel(const float *Q, const float *K, const float *V, const int N, const int d,
                               const int Tc, const int Tr, const int Bc, const int Br,
                               const float softmax_scale, float *l, float *m, float *O)
{
    const int t = threadIdx.x;
    const int head_rows = N * d; // floats of one (batch, head) slice
    const size_t slice = ((size_t)blockIdx.x * gridDim.y + blockIdx.y) * head_rows;
    const size_t stats = ((size_t)blockIdx.x * gridDim.y + blockIdx.y) * N;

    extern __shared__ float smem[];
    const int tile = Bc * d;
    float *q_t = smem;
    float *k_t = q_t + tile;
    float *v_t = k_t + tile;
    float *p_t = v_t + tile; // Br x Bc scores, then probabilities

    for (int kv = 0; kv < Tc; ++kv) {
        for (int c = 0; c < d; ++c) {
            k_t[t * d + c] = K[slice + kv * tile + t * d + c];
            v_t[t * d + c] = V[slice + kv * tile + t * d + c];
        }
        __syncthreads();
        for (int qb = 0; qb < Tr; ++qb) {
            const size_t row = stats + qb * Br + t;
            for (int c = 0; c < d; ++c)
                q_t[t * d + c] = Q[slice + qb * tile + t * d + c];
            float tile_max = -INFINITY;
            for (int j = 0; j < Bc; ++j) {
                float s = 0.0f;
                for (int c = 0; c < d; ++c)
                    s += q_t[t * d + c] * k_t[j * d + c];
                s *= softmax_scale;
                p_t[t * Bc + j] = s;
                tile_max = fmaxf(tile_max, s);
            }
            float tile_sum = 0.0f;
            for (int j = 0; j < Bc; ++j) {
                const float p = __expf(p_t[t * Bc + j] - tile_max);
                p_t[t * Bc + j] = p;
                tile_sum += p;
            }
            const float old_max = m[row], old_sum = l[row];
            const float new_max = max(old_max, tile_max);
            const float keep = __expf(old_max - new_max), take = __expf(tile_max - new_max);
            const float new_sum = keep * old_sum + take * tile_sum;
            for (int c = 0; c < d; ++c) {
                float pv = 0.0f;
                for (int j = 0; j < Bc; ++j)
                    pv += p_t[t * Bc + j] * v_t[j * d + c];
                float *o = &O[slice + qb * tile + t * d + c];
                *o = (old_sum * keep * *o + take * pv) / new_sum;
            }
            m[row] = new_max;
            l[row] = new_sum;
        }
        __syncthreads();
    }
}
