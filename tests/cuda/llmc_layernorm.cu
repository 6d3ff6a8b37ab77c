// llmc_layernorm.cu - layer normalization written the way llm.c-style
// training code does it: a 32-thread tile per row through cooperative
// groups (meta_group_rank picks the row), cg::reduce for the two moments,
// streaming loads and stores (__ldcs, __stcs), optional mean/rstd outputs.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void layernorm_rows(float *__restrict__ out, float *__restrict__ mean, float *__restrict__ rstd,
                               const float *__restrict__ inp, const float *__restrict__ weight,
                               const float *__restrict__ bias, int N, int C)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    const int row = blockIdx.x * tile.meta_group_size() + tile.meta_group_rank();
    if (row >= N)
        return;
    const float *src = inp + (size_t)row * C;
    const int lane = tile.thread_rank(), stride = tile.size();

    float acc = 0.0f;
    for (int c = lane; c < C; c += stride)
        acc += src[c];
    const float mu = cg::reduce(tile, acc, cg::plus<float>{}) / C;

    acc = 0.0f;
    for (int c = lane; c < C; c += stride) {
        const float dev = src[c] - mu;
        acc += dev * dev;
    }
    const float inv_std = rsqrtf(cg::reduce(tile, acc, cg::plus<float>{}) / C + 1e-5f);

    if (lane == 0) {
        if (mean != nullptr)
            __stcs(mean + row, mu);
        if (rstd != nullptr)
            __stcs(rstd + row, inv_std);
    }
    float *dst = out + (size_t)row * C;
    for (int c = lane; c < C; c += stride) {
        const float xhat = (__ldcs(src + c) - mu) * inv_std;
        __stcs(dst + c, xhat * weight[c] + bias[c]);
    }
}
