// Fixture for tests/suites/device_*.sh: a __forceinline__ helper (itself inlining another) used by two kernels,
// two calls on one line, and a __noinline__ device function.
__device__ __forceinline__ float scale(float x)
{
    return x * 0.5f;
}
__device__ __forceinline__ float helper(float x, int i)
{
    return scale(x) * 2.0f + i;
}
__device__ __noinline__ float notinl(float x) { return x * x - 1.0f; }
__global__ void kernA(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = helper(in[i], i) + notinl(in[i]);
}
__global__ void kernB(float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = helper(out[i], n) + helper(out[i], 1);
}
