#include <cstdio>
// Recursion through a __noinline__ function that hangs at depth 0: a real call stack seven deep.
__device__ __noinline__ int walk(const int *v, int depth, long acc) {
  if (depth == 0) { volatile const int *f = v; while (f[0] == 0) acc++; return (int)acc; }
  return walk(v, depth - 1, acc + v[depth]) + 1;
}
__global__ void recurse_kernel(const int *v, int *out) { out[threadIdx.x] = walk(v, 7, 0); }
int main() {
  int *v, *o;
  cudaMalloc(&v, 64 * sizeof(int)); cudaMemset(v, 0, 64 * sizeof(int)); cudaMalloc(&o, 64 * sizeof(int));
  recurse_kernel<<<1, 32>>>(v, o);
  printf("launched\n"); fflush(stdout);
  cudaDeviceSynchronize();
  return 0;
}
