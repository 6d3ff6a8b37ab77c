// expect error: virtual.cu:4:5: error: virtual functions are not supported in kernels
struct Shape
{
    virtual float area() const { return 0.0f; }
};

__global__ void k(float *out)
{
    Shape s;
    out[0] = s.area();
}
