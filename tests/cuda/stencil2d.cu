// stencil2d.cu - one Jacobi step of the 5-point Laplace stencil on a
// 2D grid: a (BX+2) x (BY+2) shared tile with a one-cell halo; boundary
// cells of the domain are copied unchanged.
#define BX 16
#define BY 16

__global__ void jacobi5(const float *u, float *unew, int nx, int ny)
{
    __shared__ float s[BY + 2][BX + 2];
    int x = blockIdx.x * BX + threadIdx.x;
    int y = blockIdx.y * BY + threadIdx.y;
    int lx = threadIdx.x + 1, ly = threadIdx.y + 1;
    bool inside = x < nx && y < ny;

    if (inside) {
        s[ly][lx] = u[y * nx + x];
        if (threadIdx.x == 0 && x > 0)
            s[ly][0] = u[y * nx + x - 1];
        if ((threadIdx.x == BX - 1 || x == nx - 1) && x + 1 < nx)
            s[ly][lx + 1] = u[y * nx + x + 1];
        if (threadIdx.y == 0 && y > 0)
            s[0][lx] = u[(y - 1) * nx + x];
        if ((threadIdx.y == BY - 1 || y == ny - 1) && y + 1 < ny)
            s[ly + 1][lx] = u[(y + 1) * nx + x];
    }
    __syncthreads();

    if (!inside)
        return;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
        unew[y * nx + x] = s[ly][lx];
    else
        unew[y * nx + x] = 0.25f * (s[ly][lx - 1] + s[ly][lx + 1] + s[ly - 1][lx] + s[ly + 1][lx]);
}
