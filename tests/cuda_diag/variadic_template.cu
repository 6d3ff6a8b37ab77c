// expect error: variadic_template.cu:2:16: error: variadic templates (template <class... Ts>) are not supported in kernels; write an overload per argument count
template <class... Ts> __device__ int count(Ts... xs) { return sizeof...(Ts); }
__global__ void k(int *out) { out[0] = count(1, 2.f); }
