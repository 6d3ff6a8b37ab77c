// stencil1d.cu - out[i] = sum of in[i-R .. i+R] (zero outside), each block
// staging its elements plus R-element halos on both sides in shared memory.
#define RADIUS 3
#define BLOCK_SIZE 128

__global__ void stencil1d(const int *in, int *out, int n)
{
    __shared__ int temp[BLOCK_SIZE + 2 * RADIUS];
    int gindex = threadIdx.x + blockIdx.x * blockDim.x;
    int lindex = threadIdx.x + RADIUS;

    temp[lindex] = gindex < n ? in[gindex] : 0;
    if (threadIdx.x < RADIUS) {
        int left = gindex - RADIUS;
        int right = gindex + BLOCK_SIZE;
        temp[lindex - RADIUS] = left >= 0 && left < n ? in[left] : 0;
        temp[lindex + BLOCK_SIZE] = right < n ? in[right] : 0;
    }
    __syncthreads();

    if (gindex < n) {
        int result = 0;
        for (int offset = -RADIUS; offset <= RADIUS; offset++)
            result += temp[lindex + offset];
        out[gindex] = result;
    }
}
