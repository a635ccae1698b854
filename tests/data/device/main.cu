// Fixture: host program linked with the -rdc objects (device link makes a .nv_fatbin next to __nv_relfatbin).
#include <cstdio>
__global__ void kernB(float *out, int n);
__global__ void mainKernel(float *out) { out[threadIdx.x] = 1.0f; }
int main()
{
    float *p = nullptr;
    kernB<<<1, 1>>>(p, 0);
    mainKernel<<<1, 1>>>(p);
    std::printf("%p\n", (void *)p);
    return 0;
}
