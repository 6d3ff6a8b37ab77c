// union_keys.cu - unions as real code uses them: a float4 loaded once and
// indexed as an array, a float's bits as an order-preserving radix-sort
// key, and two 16-bit counters packed in one word through an anonymous
// struct inside an anonymous union.
union Vec4 {
    float4 v;
    float a[4];
};

union Bits {
    float f;
    unsigned int u;
};

struct Counts {
    union {
        struct {
            unsigned short neg, other;
        };
        unsigned int word;
    };
};

__device__ unsigned int sort_key(float x)
{
    Bits b;
    b.f = x;
    return (b.u & 0x80000000u) ? ~b.u : (b.u | 0x80000000u);
}

__global__ void unionKeys(const float4 *in, unsigned int *keys, unsigned int *counts, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    Vec4 x;
    x.v = in[i];
    Counts c;
    c.word = 0;
    for (int j = 0; j < 4; j++) {
        keys[4 * i + j] = sort_key(x.a[j]);
        if (x.a[j] < 0.0f)
            c.neg++;
        else
            c.other++;
    }
    counts[i] = c.word;
}
