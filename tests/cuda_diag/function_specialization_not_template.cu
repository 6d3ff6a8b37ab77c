// expect error: function_specialization_not_template.cu:4:30: error: explicit specialization of 'twice', which is not a function template
// An explicit specialization needs its primary template declared first.
__device__ float twice(float x) { return x + x; }
template <> __device__ float twice<float>(float x) { return x * 2.0f; }

__global__ void k(float *out) { out[0] = twice(1.0f); }
