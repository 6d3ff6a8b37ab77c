// expect error: reference_member.cu:4:12: error: reference members are not supported in kernels (the struct would hold a copy); hold a pointer, or pass the object to the member functions
struct Acc
{
    float &sum;
    __device__ Acc(float &s) : sum(s) {}
    __device__ void add(float v) { sum += v; }
};

__global__ void k(float *o)
{
    float total = 1.0f;
    Acc a(total);
    a.add(2.0f);
    o[0] = total;
}
