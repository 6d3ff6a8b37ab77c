// black_scholes.cu - European call and put prices (Black-Scholes formula),
// with the polynomial approximation of the normal CDF of the CUDA samples.
#define A1 0.31938153f
#define A2 -0.356563782f
#define A3 1.781477937f
#define A4 -1.821255978f
#define A5 1.330274429f
#define RSQRT2PI 0.39894228040143267793994605993438f

__device__ inline float cndGPU(float d)
{
    float K = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float cnd = RSQRT2PI * __expf(-0.5f * d * d) * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
    if (d > 0)
        cnd = 1.0f - cnd;
    return cnd;
}

__device__ inline void blackScholesBodyGPU(float &callResult, float &putResult, float S, float X,
                                           float T, float R, float V)
{
    float sqrtT = sqrtf(T);
    float d1 = (__logf(S / X) + (R + 0.5f * V * V) * T) / (V * sqrtT);
    float d2 = d1 - V * sqrtT;
    float cndD1 = cndGPU(d1);
    float cndD2 = cndGPU(d2);
    float expRT = __expf(-R * T);
    callResult = S * cndD1 - X * expRT * cndD2;
    putResult = X * expRT * (1.0f - cndD2) - S * (1.0f - cndD1);
}

__global__ void blackScholesGPU(float *d_Call, float *d_Put, const float *d_S, const float *d_X,
                                const float *d_T, float R, float V, int optN)
{
    const int tid = blockDim.x * blockIdx.x + threadIdx.x;
    const int THREAD_N = blockDim.x * gridDim.x;
    for (int opt = tid; opt < optN; opt += THREAD_N)
        blackScholesBodyGPU(d_Call[opt], d_Put[opt], d_S[opt], d_X[opt], d_T[opt], R, V);
}
