// Demo device code: a forced-inline helper used by two kernels, so the line table carries an inline chain.
#include "vecops.h"

__device__ __forceinline__ float scale_clamp(float x, float s)
{
    float y = x * s;
    return y > 1.0f ? 1.0f : y;
}

__global__ void scale_kernel(float *v, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = scale_clamp(v[i], s);
}

__global__ void saxpy_kernel(float *y, const float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = scale_clamp(x[i], a) + y[i];
}

int vecops_scale(float *dev, float s, int n)
{
    scale_kernel<<<(n + 255) / 256, 256>>>(dev, s, n);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

int vecops_saxpy(float *y, const float *x, float a, int n)
{
    saxpy_kernel<<<(n + 255) / 256, 256>>>(y, x, a, n);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}
