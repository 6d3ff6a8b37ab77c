// bench.cu - the cubevm kernels of `make bench` (tools/bench/), plain CUDA C.
// Each has a line-by-line OpenCL translation in bench.cl for the pocl
// contender: same tiling, same cube size, same arithmetic order.

#define TILE 32
#define MM_TILE 16

// max_pool2d on NHWC f32: one unit per output element, channel fastest so
// neighbouring units read neighbouring addresses.
__global__ void max_pool2d_nhwc(const float *in, float *out, int n, int h, int w, int c,
                                int oh, int ow, int k, int s, int p)
{
    long total = (long)n * oh * ow * c;
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total) return;
    int ch = (int)(i % c);
    long t = i / c;
    int ox = (int)(t % ow);
    t = t / ow;
    int oy = (int)(t % oh);
    int b = (int)(t / oh);
    float m = -__int_as_float(0x7f800000);
    for (int ky = 0; ky < k; ky++) {
        int y = oy * s - p + ky;
        if (y < 0 || y >= h) continue;
        for (int kx = 0; kx < k; kx++) {
            int x = ox * s - p + kx;
            if (x < 0 || x >= w) continue;
            float v = in[(((long)b * h + y) * w + x) * c + ch];
            m = fmaxf(m, v);
        }
    }
    out[i] = m;
}

__global__ void vadd(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

__global__ void saxpy(float a, const float *x, const float *y, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}

// First pass of the sum: a fixed grid strides over the input; each cube
// reduces its 256 partial sums in shared memory and writes one value.
__global__ void sum_partial(const float *in, float *partial, int n)
{
    __shared__ float acc[256];
    float s = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        s += in[i];
    acc[threadIdx.x] = s;
    __syncthreads();
    for (int step = blockDim.x / 2; step > 0; step >>= 1) {
        if (threadIdx.x < step) acc[threadIdx.x] += acc[threadIdx.x + step];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = acc[0];
}

// Second pass: one cube of 256 units adds the partial sums.
__global__ void sum_final(const float *partial, float *out, int n)
{
    __shared__ float acc[256];
    float s = 0.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        s += partial[i];
    acc[threadIdx.x] = s;
    __syncthreads();
    for (int step = blockDim.x / 2; step > 0; step >>= 1) {
        if (threadIdx.x < step) acc[threadIdx.x] += acc[threadIdx.x + step];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[0] = acc[0];
}

// Row softmax: one cube of 256 units per row; max and sum are reduced
// through shared memory.
__global__ void softmax_rows(const float *in, float *out, int cols)
{
    __shared__ float red[256];
    const float *row = in + (long)blockIdx.x * cols;
    float *orow = out + (long)blockIdx.x * cols;
    float m = -__int_as_float(0x7f800000);
    for (int j = threadIdx.x; j < cols; j += blockDim.x)
        m = fmaxf(m, row[j]);
    red[threadIdx.x] = m;
    __syncthreads();
    for (int step = blockDim.x / 2; step > 0; step >>= 1) {
        if (threadIdx.x < step) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + step]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();
    float s = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x)
        s += expf(row[j] - m);
    red[threadIdx.x] = s;
    __syncthreads();
    for (int step = blockDim.x / 2; step > 0; step >>= 1) {
        if (threadIdx.x < step) red[threadIdx.x] += red[threadIdx.x + step];
        __syncthreads();
    }
    float inv = 1.0f / red[0];
    for (int j = threadIdx.x; j < cols; j += blockDim.x)
        orow[j] = expf(row[j] - m) * inv;
}

// Transpose through a 32x33 shared tile (the extra column avoids bank
// conflicts on a GPU); cubes of 32x8 units, each unit moves four elements.
__global__ void transpose(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += 8)
        if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(long)(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += 8)
        if (x < rows && y + j < cols) out[(long)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

// Direct convolution, NCHW, stride 1: one unit per output element.
__global__ void conv2d_nchw(const float *in, const float *wt, float *out, int n, int ci, int co,
                            int h, int w, int k, int p)
{
    long total = (long)n * co * h * w;
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total) return;
    int x = (int)(i % w);
    long t = i / w;
    int y = (int)(t % h);
    t = t / h;
    int oc = (int)(t % co);
    int b = (int)(t / co);
    float acc = 0.0f;
    for (int c = 0; c < ci; c++) {
        for (int ky = 0; ky < k; ky++) {
            int yy = y - p + ky;
            if (yy < 0 || yy >= h) continue;
            for (int kx = 0; kx < k; kx++) {
                int xx = x - p + kx;
                if (xx < 0 || xx >= w) continue;
                acc += in[(((long)b * ci + c) * h + yy) * w + xx] * wt[((oc * ci + c) * k + ky) * k + kx];
            }
        }
    }
    out[i] = acc;
}

// C = A B, row-major, 16x16 shared tiles; n a multiple of 16.
__global__ void matmul(const float *a, const float *b, float *c, int n)
{
    __shared__ float ta[MM_TILE][MM_TILE];
    __shared__ float tb[MM_TILE][MM_TILE];
    int row = blockIdx.y * MM_TILE + threadIdx.y;
    int col = blockIdx.x * MM_TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < n; t += MM_TILE) {
        ta[threadIdx.y][threadIdx.x] = a[(long)row * n + t + threadIdx.x];
        tb[threadIdx.y][threadIdx.x] = b[(long)(t + threadIdx.y) * n + col];
        __syncthreads();
        for (int kk = 0; kk < MM_TILE; kk++)
            acc += ta[threadIdx.y][kk] * tb[kk][threadIdx.x];
        __syncthreads();
    }
    c[(long)row * n + col] = acc;
}

__global__ void empty(void) {}
