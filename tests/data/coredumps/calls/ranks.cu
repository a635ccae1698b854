#include <cstdio>
#include <cstdlib>
// Stands for one tensor-parallel rank. Every rank but the faulting one waits in a collective-like kernel (a
// spin on a flag the faulting rank never sets, as an NCCL kernel waits for its peers); the faulting rank's
// matmul-like kernel reads out of bounds.
__device__ __noinline__ void wait_for_peers(volatile int *flag) { while (*flag == 0) { } }
__global__ void allreduce_wait_kernel(volatile int *flag, float *buf) { wait_for_peers(flag); buf[threadIdx.x] += 1.0f; }
__global__ void gemm_like_kernel(const float *a, float *c, long lda) {
  float s = 0;
  for (int k = 0; k < 4; k++) s += a[(long)threadIdx.x * lda + k];
  c[threadIdx.x] = s;
}
int main(int argc, char **argv) {
  int rank = atoi(argv[1]), faulty = atoi(argv[2]);
  int *flag; float *buf;
  cudaMalloc(&flag, 4); cudaMemset(flag, 0, 4); cudaMalloc(&buf, 4096);
  if (rank == faulty) gemm_like_kernel<<<1, 32>>>(buf, buf, 1L << 34);
  else allreduce_wait_kernel<<<1, 32>>>(flag, buf);
  printf("rank %d launched\n", rank); fflush(stdout);
  printf("rank %d sync: %s\n", rank, cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
