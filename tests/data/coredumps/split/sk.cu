// A shared library whose kernel faults through two inlined helpers: the split case (tests/suites/split_gpu.sh).
#include <cstdio>
__device__ __forceinline__ float fetch(const float *p, long i) { return p[i]; }
__device__ __forceinline__ float scaled(const float *p, long i) { return 3.0f * fetch(p, i); }
__global__ void split_kernel(const float *p, float *out, long n)
{
    int i = threadIdx.x;
    out[i] = scaled(p, (long)i * 1000000 + n);
}
extern "C" int sk_launch(void)
{
    float *p, *o;
    cudaMalloc(&p, 1024);
    cudaMalloc(&o, 1024);
    split_kernel<<<1, 32>>>(p, o, 1L << 34);
    cudaError_t e = cudaDeviceSynchronize();
    printf("result: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
__global__ void add_kernel(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
// A kernel that runs to completion: the split library must still load and compute.
extern "C" int sk_check(void)
{
    const int n = 1 << 16;
    float *h = new float[n], *a, *b, *c;
    cudaMalloc(&a, n * sizeof(float));
    cudaMalloc(&b, n * sizeof(float));
    cudaMalloc(&c, n * sizeof(float));
    for (int i = 0; i < n; i++)
        h[i] = (float)i;
    cudaMemcpy(a, h, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(b, h, n * sizeof(float), cudaMemcpyHostToDevice);
    add_kernel<<<n / 256, 256>>>(a, b, c, n);
    cudaMemcpy(h, c, n * sizeof(float), cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += h[i] != 2.0f * i;
    printf("check: %s (%d wrong)\n", bad ? "FAILED" : "ok", bad);
    delete[] h;
    return bad != 0;
}
