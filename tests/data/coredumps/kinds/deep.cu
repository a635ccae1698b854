// A 100-deep device recursion that faults at the bottom: the unwound stack must go all the way up.
#include <cstdio>
__device__ __noinline__ int descend(int *p, int depth, long bad)
{
    if (depth == 0)
        return p[bad];
    return descend(p, depth - 1, bad) + depth;
}
__global__ void deep_kernel(int *p, long bad) { p[threadIdx.x] = descend(p, 100, bad); }
int main()
{
    int *p;
    cudaDeviceSetLimit(cudaLimitStackSize, 64 * 1024);
    cudaMalloc(&p, 4096);
    deep_kernel<<<1, 1>>>(p, 1L << 34);
    cudaError_t e = cudaDeviceSynchronize();
    printf("result: %s\n", cudaGetErrorString(e));
    return 0;
}
