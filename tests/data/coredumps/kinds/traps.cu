// Three ways a kernel stops itself: __trap(), asm("trap;") and asm("brkpt;"); argv[1] picks one.
#include <cstdio>
#include <cstdlib>
__device__ __noinline__ void check_or_trap(int v) { if (v > 2) __trap(); }
__global__ void trap_builtin(int *p) { check_or_trap(p[threadIdx.x] + 3); p[0] = 1; }
__global__ void trap_asm(int *p) { if (p[threadIdx.x] == 0) asm volatile("trap;"); p[1] = 2; }
__global__ void trap_brkpt(int *p) { if (p[threadIdx.x] == 0) asm volatile("brkpt;"); p[2] = 3; }
int main(int argc, char **argv)
{
    int which = argc > 1 ? atoi(argv[1]) : 0, *p;
    cudaMalloc(&p, 4096);
    cudaMemset(p, 0, 4096);
    if (which == 0) trap_builtin<<<1, 32>>>(p);
    else if (which == 1) trap_asm<<<1, 32>>>(p);
    else trap_brkpt<<<1, 32>>>(p);
    cudaError_t e = cudaDeviceSynchronize();
    printf("result: %s\n", cudaGetErrorString(e));
    return 0;
}
