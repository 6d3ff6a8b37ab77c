// grid3d.cu - central-difference gradient magnitude squared of a 3D volume
// on a 3D grid (nx x ny x nz, x fastest); one-sided at the faces. Integer
// volume, so the result is exact.
__device__ __forceinline__ int at(const int *v, int x, int y, int z, int nx, int ny)
{
    return v[(z * ny + y) * nx + x];
}

__global__ void gradient3d(const int *vol, int *grad2, int nx, int ny, int nz)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx || y >= ny || z >= nz)
        return;
    int gx = at(vol, min(x + 1, nx - 1), y, z, nx, ny) - at(vol, max(x - 1, 0), y, z, nx, ny);
    int gy = at(vol, x, min(y + 1, ny - 1), z, nx, ny) - at(vol, x, max(y - 1, 0), z, nx, ny);
    int gz = at(vol, x, y, min(z + 1, nz - 1), nx, ny) - at(vol, x, y, max(z - 1, 0), nx, ny);
    grad2[(z * ny + y) * nx + x] = gx * gx + gy * gy + gz * gz;
}
