// Two kernels in two streams, both stuck: a user-triggered core must name both resident kernels.
#include <cstdio>
#include <unistd.h>
__device__ __forceinline__ int peek(volatile int *f) { return *f; }
__global__ void wait_flag(volatile int *flag, int *out)
{
    long long start = clock64();
    while (peek(flag) == 0 && clock64() - start < 60000000000LL) { }
    out[threadIdx.x] = 1;
}
__device__ __noinline__ int count_down(volatile int *f, long long n)
{
    long long start = clock64();
    int s = 0;
    while (peek(f) == 0 && clock64() - start < n)
        s++;
    return s;
}
__global__ void reduce_stuck(volatile int *flag, int *out) { out[64 + threadIdx.x] = count_down(flag, 60000000000LL); }
int main()
{
    int *flag, *out;
    cudaMalloc(&flag, 4);
    cudaMalloc(&out, 4096);
    cudaMemset(flag, 0, 4);
    cudaDeviceSynchronize();
    cudaStream_t a, b;
    cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking);
    wait_flag<<<2, 64, 0, a>>>(flag, out);
    reduce_stuck<<<1, 32, 0, b>>>(flag, out);
    usleep(300000);
    fprintf(stderr, "wait_flag %s, reduce_stuck %s after 0.3 s\n",
            cudaStreamQuery(a) == cudaErrorNotReady ? "running" : "done",
            cudaStreamQuery(b) == cudaErrorNotReady ? "running" : "done");
    cudaDeviceSynchronize();
    printf("result: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 0;
}
