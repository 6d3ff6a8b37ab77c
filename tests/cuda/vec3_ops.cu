// vec3_ops.cu - a small vector struct with overloaded operators, member
// functions and a constructor: reflects each direction d about the normal
// n (r = d - 2 (d.n) n) and writes r and |r|^2.
struct Vec3 {
    float x, y, z;
    __host__ __device__ Vec3() : x(0), y(0), z(0) {}
    __host__ __device__ Vec3(float a, float b, float c) : x(a), y(b), z(c) {}
    __device__ float dot(const Vec3 &o) const { return x * o.x + y * o.y + z * o.z; }
    __device__ Vec3 &operator+=(const Vec3 &o)
    {
        x += o.x;
        y += o.y;
        z += o.z;
        return *this;
    }
};

__device__ inline Vec3 operator+(Vec3 a, const Vec3 &b) { return a += b; }
__device__ inline Vec3 operator-(const Vec3 &a, const Vec3 &b) { return Vec3(a.x - b.x, a.y - b.y, a.z - b.z); }
__device__ inline Vec3 operator*(float s, const Vec3 &v) { return Vec3(s * v.x, s * v.y, s * v.z); }

__global__ void reflect(const float *dirs, const float *normals, float *out, float *len2, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    Vec3 d(dirs[3 * i], dirs[3 * i + 1], dirs[3 * i + 2]);
    Vec3 nn(normals[3 * i], normals[3 * i + 1], normals[3 * i + 2]);
    Vec3 r = d - 2.0f * d.dot(nn) * nn;
    r = r + Vec3();
    out[3 * i] = r.x;
    out[3 * i + 1] = r.y;
    out[3 * i + 2] = r.z;
    len2[i] = r.dot(r);
}
