// Do two kernels in two streams overlap? Each records its start and end (%globaltimer, ns).
#include <cstdio>
#include <cstring>
#include <cuda.h>
__device__ unsigned long long now() { unsigned long long t; asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t)); return t; }
__global__ void k(unsigned long long *t, int slot)
{
    unsigned long long s = now();
    while (now() - s < 500000000ULL) { }
    if (threadIdx.x == 0) { t[2 * slot] = s; t[2 * slot + 1] = now(); }
}
int main(int argc, char **argv)
{
    cudaFree(0);
    if (argc > 1 && !strcmp(argv[1], "api")) {
        int on = 1; size_t sz = sizeof on;
        CUresult r = cuCoredumpSetAttributeGlobal(CU_COREDUMP_ENABLE_ON_EXCEPTION, &on, &sz);
        fprintf(stderr, "cuCoredumpSetAttributeGlobal: %d\n", (int)r);
    }
    unsigned long long *t, h[4];
    cudaMalloc(&t, 32);
    cudaStream_t a, b;
    cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking);
    k<<<1, 32, 0, a>>>(t, 0);
    k<<<1, 32, 0, b>>>(t, 1);
    cudaDeviceSynchronize();
    cudaMemcpy(h, t, 32, cudaMemcpyDeviceToHost);
    printf("%s: k0 %.3f-%.3f s, k1 %.3f-%.3f s -> %s\n", argc > 1 ? argv[1] : "plain", 0.0, (h[1] - h[0]) / 1e9,
           ((long long)(h[2] - h[0])) / 1e9, ((long long)(h[3] - h[0])) / 1e9, h[2] < h[1] && h[0] < h[3] ? "overlap" : "serial");
    return 0;
}
