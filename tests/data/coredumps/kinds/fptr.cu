// A call through a function pointer chosen from a table at run time; the target faults.
#include <cstdio>
typedef int (*op_t)(int *, long);
__device__ __noinline__ int op_read(int *p, long i) { return p[i]; }
__device__ __noinline__ int op_neg(int *p, long i) { return -p[i & 7]; }
__device__ op_t ops[2] = { op_read, op_neg };
__global__ void dispatch_kernel(int *p, int which, long i) { p[threadIdx.x] = ops[which](p, i); }
int main()
{
    int *p;
    cudaMalloc(&p, 4096);
    dispatch_kernel<<<1, 32>>>(p, 0, 1L << 34);
    cudaError_t e = cudaDeviceSynchronize();
    printf("result: %s\n", cudaGetErrorString(e));
    return 0;
}
