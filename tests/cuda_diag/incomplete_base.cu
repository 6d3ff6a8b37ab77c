// expect error: incomplete_base.cu:4:17: error: base class 'Shape' is incomplete (declared but not defined before 'Circle')
struct Shape;

struct Circle : Shape
{
    float r;
};

__global__ void k(float *out)
{
    Circle c;
    c.r = 1.0f;
    out[0] = c.r;
}
