// particles_helper_math.cu - particle integration written against a
// helper_math.h-style set of float3/float4 operators (the CUDA samples'
// particles/nbody style): free operator functions on the built-in vector
// types, make_float3(float4) overloading the built-in constructor, +=,
// unary minus, dot and length.
#include <cuda_runtime.h>

inline __host__ __device__ float3 make_float3(float4 a) { return make_float3(a.x, a.y, a.z); }
inline __host__ __device__ float4 make_float4(float3 a, float w) { return make_float4(a.x, a.y, a.z, w); }
inline __host__ __device__ float3 operator+(float3 a, float3 b) { return make_float3(a.x + b.x, a.y + b.y, a.z + b.z); }
inline __host__ __device__ float3 operator-(float3 a, float3 b) { return make_float3(a.x - b.x, a.y - b.y, a.z - b.z); }
inline __host__ __device__ float3 operator-(float3 a) { return make_float3(-a.x, -a.y, -a.z); }
inline __host__ __device__ float3 operator*(float3 a, float b) { return make_float3(a.x * b, a.y * b, a.z * b); }
inline __host__ __device__ float3 operator*(float b, float3 a) { return make_float3(b * a.x, b * a.y, b * a.z); }
inline __host__ __device__ void operator+=(float3 &a, float3 b) { a.x += b.x; a.y += b.y; a.z += b.z; }
inline __host__ __device__ void operator*=(float3 &a, float b) { a.x *= b; a.y *= b; a.z *= b; }
inline __host__ __device__ float dot(float3 a, float3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline __host__ __device__ float length(float3 v) { return sqrtf(dot(v, v)); }
inline __host__ __device__ float4 operator+(float4 a, float4 b) { return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w); }
inline __host__ __device__ float4 operator*(float4 a, float b) { return make_float4(a.x * b, a.y * b, a.z * b, a.w * b); }
inline __host__ __device__ void operator+=(float4 &a, float4 b) { a.x += b.x; a.y += b.y; a.z += b.z; a.w += b.w; }

// One step: gravity and the force, damping, a bounce off the floor at y = -1
// that reverses (and halves) the y velocity; w carries the age.
__global__ void integrate(float4 *pos, float4 *vel, const float3 *force, float dt, float damping, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float3 p = make_float3(pos[i]);
    float3 v = make_float3(vel[i]);
    v += (force[i] + make_float3(0.0f, -9.8f, 0.0f)) * dt;
    v *= damping;
    p += v * dt;
    if (p.y < -1.0f) {
        p.y = -1.0f;
        v.y = -v.y * 0.5f;
    }
    pos[i] = make_float4(p, pos[i].w + dt);
    vel[i] = make_float4(v, length(v));
}

// Sum of float4 values per block with += on the vector type.
__global__ void sum4(const float4 *in, float4 *out, int n)
{
    __shared__ float4 s[128];
    int t = threadIdx.x;
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x)
        acc += in[i] * 2.0f;
    s[t] = acc;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k)
            s[t] = s[t] + s[t + k];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}
