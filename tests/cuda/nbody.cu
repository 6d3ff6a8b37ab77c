// nbody.cu - one all-pairs gravity step: bodies (x, y, z, mass) are staged
// through shared memory a tile at a time, accelerations use a softening
// term, then velocities and positions are integrated with time step dt.
#define TILE 128
#define SOFTENING 1e-3f

__device__ float3 bodyBodyInteraction(float4 bi, float4 bj, float3 ai)
{
    float3 r;
    r.x = bj.x - bi.x;
    r.y = bj.y - bi.y;
    r.z = bj.z - bi.z;
    float distSqr = r.x * r.x + r.y * r.y + r.z * r.z + SOFTENING;
    float invDist = rsqrtf(distSqr);
    float invDist3 = invDist * invDist * invDist;
    float s = bj.w * invDist3;
    ai.x += r.x * s;
    ai.y += r.y * s;
    ai.z += r.z * s;
    return ai;
}

__global__ void integrateBodies(const float4 *pos, float4 *newPos, float4 *vel, int n, float dt)
{
    __shared__ float4 shPos[TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 myPos = i < n ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float3 acc = make_float3(0.0f, 0.0f, 0.0f);

    for (int tile = 0; tile < (n + TILE - 1) / TILE; ++tile) {
        int j = tile * TILE + threadIdx.x;
        shPos[threadIdx.x] = j < n ? pos[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            acc = bodyBodyInteraction(myPos, shPos[k], acc);
        __syncthreads();
    }

    if (i < n) {
        float4 v = vel[i];
        v.x += acc.x * dt;
        v.y += acc.y * dt;
        v.z += acc.z * dt;
        myPos.x += v.x * dt;
        myPos.y += v.y * dt;
        myPos.z += v.z * dt;
        vel[i] = v;
        newPos[i] = myPos;
    }
}
