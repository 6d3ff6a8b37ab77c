// pmpp_conv1d.cu - the textbook 1D convolutions (Kirk & Hwu): the basic
// kernel with the mask in global memory, and the tiled kernel with the mask
// in __constant__ memory (written by the host with cudaMemcpyToSymbol) and
// the halo cells loaded by the last / first threads of the block.
#define MAX_MASK_WIDTH 9
#define TILE_SIZE 64

__constant__ float M[MAX_MASK_WIDTH];

__global__ void convolution_1D_basic_kernel(float *N, float *Mask, float *P, int Mask_Width, int Width)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    float Pvalue = 0;
    int N_start_point = i - (Mask_Width / 2);
    for (int j = 0; j < Mask_Width; j++) {
        if (N_start_point + j >= 0 && N_start_point + j < Width) {
            Pvalue += N[N_start_point + j] * Mask[j];
        }
    }
    if (i < Width)
        P[i] = Pvalue;
}

__global__ void convolution_1D_tiled_kernel(float *N, float *P, int Mask_Width, int Width)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    __shared__ float N_ds[TILE_SIZE + MAX_MASK_WIDTH - 1];

    int n = Mask_Width / 2;

    int halo_index_left = (blockIdx.x - 1) * blockDim.x + threadIdx.x;
    if (threadIdx.x >= blockDim.x - n) {
        N_ds[threadIdx.x - (blockDim.x - n)] = (halo_index_left < 0) ? 0 : N[halo_index_left];
    }

    N_ds[n + threadIdx.x] = (i < Width) ? N[i] : 0;

    int halo_index_right = (blockIdx.x + 1) * blockDim.x + threadIdx.x;
    if (threadIdx.x < n) {
        N_ds[n + blockDim.x + threadIdx.x] = (halo_index_right >= Width) ? 0 : N[halo_index_right];
    }

    __syncthreads();

    float Pvalue = 0;
    for (int j = 0; j < Mask_Width; j++) {
        Pvalue += N_ds[threadIdx.x + j] * M[j];
    }
    if (i < Width)
        P[i] = Pvalue;
}

void host_setup(float *h_M, int Mask_Width)
{
    cudaMemcpyToSymbol(M, h_M, Mask_Width * sizeof(float));
}
