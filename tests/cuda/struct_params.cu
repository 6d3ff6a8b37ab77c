// struct_params.cu - kernel arguments grouped in a struct passed by value,
// with device pointers inside it: out[i] = in[i] * scale + bias[i % nbias].
struct AffineArgs {
    const float *in;
    const float *bias;
    float *out;
    int n;
    int nbias;
    float scale;
};

__global__ void affine(AffineArgs args)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < args.n)
        args.out[i] = args.in[i] * args.scale + args.bias[i % args.nbias];
}
