// A virtual call on the device: one kernel builds the object in device memory (placement new, so its vtable
// pointer is a device address), a second kernel calls through it and the override faults.
#include <cstdio>
#include <new>
struct Shape { __device__ virtual int area(int *p, long i) const = 0; };
struct Square : Shape {
    int side;
    __device__ Square(int s) : side(s) {}
    __device__ int area(int *p, long i) const override { return side * side + p[i]; }
};
__global__ void build(void *mem) { new (mem) Square(3); }
__global__ void use(const Shape *s, int *out, long i) { out[threadIdx.x] = s->area(out, i); }
int main()
{
    void *mem;
    int *out;
    cudaMalloc(&mem, 256);
    cudaMalloc(&out, 4096);
    build<<<1, 1>>>(mem);
    cudaError_t e = cudaDeviceSynchronize();
    printf("build: %s\n", cudaGetErrorString(e));
    use<<<1, 32>>>((const Shape *)mem, out, 1L << 34);
    e = cudaDeviceSynchronize();
    printf("result: %s\n", cudaGetErrorString(e));
    return 0;
}
