#include <cassert>
#include <cstdio>
// A device-side assert two __noinline__ calls deep: check_range <- scaled <- assert_kernel.
__device__ __noinline__ int check_range(const int *v, int i, int n) {
  assert(i < n);
  return v[i];
}
__device__ __noinline__ int scaled(const int *v, int i, int n, int k) { return k * check_range(v, i, n); }
__global__ void assert_kernel(const int *v, int *out, int n) {
  int i = threadIdx.x + 40;
  out[threadIdx.x] = scaled(v, i, n, 3);
}
int main() {
  int *v, *o;
  cudaMalloc(&v, 64 * sizeof(int)); cudaMalloc(&o, 64 * sizeof(int));
  assert_kernel<<<1, 32>>>(v, o, 50);
  printf("sync: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
