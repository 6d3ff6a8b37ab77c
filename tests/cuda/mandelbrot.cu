// mandelbrot.cu - escape-time iteration counts over a width x height
// window of the complex plane, one thread per pixel on a 2D grid.
__global__ void mandelbrot(int *iters, int width, int height, float x0, float y0, float dx, float dy,
                           int maxIter)
{
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= width || py >= height)
        return;
    float cr = x0 + px * dx;
    float ci = y0 + py * dy;
    float zr = 0.0f, zi = 0.0f;
    int it = 0;
    while (it < maxIter && zr * zr + zi * zi <= 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        ++it;
    }
    iters[py * width + px] = it;
}
