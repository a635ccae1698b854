#include <cstdio>
// An out-of-bounds load inside a __noinline__ function with two call sites; the second one faults.
__device__ __noinline__ float load_at(const float *p, long i) { return p[i]; }
__global__ void two_callers_kernel(const float *p, float *out, long bad) {
  float a = load_at(p, threadIdx.x);
  float b = load_at(p, bad + threadIdx.x);
  out[threadIdx.x] = a + b;
}
int main() {
  float *p, *o;
  cudaMalloc(&p, 4096); cudaMalloc(&o, 4096);
  two_callers_kernel<<<1, 32>>>(p, o, 1L << 36);
  printf("sync: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
