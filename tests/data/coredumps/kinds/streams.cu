// One stream's kernel spins on a flag nobody sets while another stream's kernel faults: the exception core
// must name both resident kernels.
#include <cstdio>
#include <unistd.h>
__device__ __forceinline__ int peek(volatile int *f) { return *f; }
// Spins until the flag is set or about 20 s have passed (a spin without end kept the faulting stream's core
// from being written on an H100: the process was still waiting when the first run's 120 s ran out).
__global__ void spinner(volatile int *flag, int *out)
{
    long long start = clock64();
    while (peek(flag) == 0 && clock64() - start < 40000000000LL) { }
    out[threadIdx.x] = 1;
}
__device__ __forceinline__ void poke(int *p, long i) { p[i] = 7; }
// waits about 0.5 s on the device first, so the spinner is surely resident when the fault happens
__global__ void faulter(int *p, long n)
{
    long long start = clock64();
    while (clock64() - start < 1000000000LL) { }
    poke(p, (long)threadIdx.x * 1000000 + n);
}
int main(int argc, char **argv)
{
    int blocks = argc > 1 ? atoi(argv[1]) : 2;
    int *flag, *out;
    cudaMalloc(&flag, 4);
    cudaMalloc(&out, 4096);
    cudaMemset(flag, 0, 4);
    cudaDeviceSynchronize(); /* the streams below do not wait for the legacy stream's memset */
    cudaStream_t a, b;
    cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking);
    spinner<<<blocks, 64, 0, a>>>(flag, out);
    usleep(300000);
    fprintf(stderr, "spinner %s after 0.3 s\n", cudaStreamQuery(a) == cudaErrorNotReady ? "still running" : "already done");
    faulter<<<1, 32, 0, b>>>(out, 1L << 34);
    cudaError_t e = cudaStreamSynchronize(b);
    printf("result: %s\n", cudaGetErrorString(e));
    return 0;
}
