// expect error: base_not_struct.cu:2:25: error: 'float' is not a struct or class: it cannot be a base class
struct Celsius : public float
{
};

__global__ void k(float *out)
{
    Celsius c;
    out[0] = 0.0f;
}
