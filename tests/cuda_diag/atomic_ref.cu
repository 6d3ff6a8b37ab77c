// expect error: atomic_ref.cu:8:15: error: cuda::atomic_ref is not supported in kernels; use atomicAdd, atomicCAS and the other atomic functions (relaxed, device scope) with __threadfence for ordering
#include <cuda/atomic>
// Counts the positive elements through a cuda::atomic_ref (libcu++).
__global__ void count_pos(const float *x, int n, unsigned int *cnt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] > 0.0f) {
        cuda::atomic_ref<unsigned int, cuda::thread_scope_device> c(*cnt);
        c.fetch_add(1u, cuda::memory_order_relaxed);
    }
}
