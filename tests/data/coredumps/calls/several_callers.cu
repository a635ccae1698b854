#include <cstdio>
// An out-of-bounds load in a __noinline__ function that two other __noinline__ functions call.
__device__ __noinline__ float load_at(const float *p, long i) { return p[i]; }
__device__ __noinline__ float via_even(const float *p, long i) { return load_at(p, i) * 2.0f; }
__device__ __noinline__ float via_odd(const float *p, long i) { return load_at(p, i) + 1.0f; }
__global__ void several_callers_kernel(const float *p, float *out, long bad) {
  long i = bad + threadIdx.x;
  out[threadIdx.x] = (threadIdx.x & 1) ? via_odd(p, i) : via_even(p, i);
}
int main() {
  float *p, *o;
  cudaMalloc(&p, 4096); cudaMalloc(&o, 4096);
  several_callers_kernel<<<1, 32>>>(p, o, 1L << 36);
  printf("sync: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
