// expect error: specialization_not_template.cu:4:20: error: explicit specialization of 'Pair', which is not a struct template
// An explicit specialization needs its primary template declared first.
struct Pair { int a, b; };
template <> struct Pair<float> { float a, b; };

__global__ void k(int *out) { out[0] = 1; }
