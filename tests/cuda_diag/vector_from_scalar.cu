// expect error: vector_from_scalar.cu:5:16: error: cannot convert 'float' to 'float4': CUDA's vector types have no conversion from a scalar (make_float4 with every element)
__global__ void k(float4 *out, const float *in)
{
    /* nvcc: no suitable constructor exists to convert from "float" to "float4" */
    float4 v = in[threadIdx.x];
    out[threadIdx.x] = v;
}
