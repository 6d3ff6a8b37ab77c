// expect error: unknown_member.cu:11:22: error: no member named 'z' in 'Pair'
struct Pair
{
    float x;
    float y;
};

__global__ void k(float *out)
{
    Pair p = {1.0f, 2.0f};
    out[0] = p.x + p.z;
}
