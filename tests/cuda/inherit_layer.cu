// inherit_layer.cu - struct inheritance in device code: the buffers of the
// parameter struct come from a base (a flattened parameter), an activation
// is a CRTP policy, and each sample is built from two bases, passed to a
// function taking both:
//   v = in[i] * scale; out[i] = act((v + 2v) * 0.5) + (2v - 0.5)
struct Buffers {
    const float *in;
    float *out;
};

struct Args : Buffers {
    int n;
    float scale;
};

template <class Derived> struct Activation {
    __device__ float operator()(float v) const { return static_cast<const Derived &>(*this).apply(v); }
};

struct LeakyRelu : Activation<LeakyRelu> {
    float slope;
    __device__ LeakyRelu(float s) : slope(s) {}
    __device__ float apply(float v) const { return v > 0.0f ? v : v * slope; }
};

struct Point {
    float x, y;
};

struct Weight {
    float w = 0.5f;
};

struct Sample : Point, Weight {
    int idx;
    __device__ Sample(int i, float v) : Point{v, v * 2.0f}, idx(i) {}
    __device__ float value() const { return (x + y) * w; }
};

__device__ float combine(const Point &p, const Weight &q) { return p.y - q.w; }

__global__ void layer(Args args)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= args.n)
        return;
    LeakyRelu act(0.125f);
    Sample s(i, args.in[i] * args.scale);
    args.out[i] = act(s.value()) + combine(s, s);
}
