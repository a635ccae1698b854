# Projects shared by tests/suites/accept_clean_builds.sh and bench/accept.sh.

# write_cuda_project DIR: a CMake CUDA shared library shaped like a real one: separable compilation, CMake's
# default static cudart, a __device__ function defined in one .cu and called from two others, a 64-bit
# division in a kernel, one C++ file; one arch (sm_90) to keep it small.
write_cuda_project() {
  mkdir -p "$1"
  cat > "$1"/CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.18)
project(kernels LANGUAGES CXX CUDA)
set(CMAKE_CUDA_ARCHITECTURES 90)
add_library(kernels SHARED scale.cu chunks.cu helpers.cu api.cpp)
set_target_properties(kernels PROPERTIES CUDA_SEPARABLE_COMPILATION ON POSITION_INDEPENDENT_CODE ON)
EOF
  cat > "$1"/helpers.cuh <<'EOF'
#pragma once
#include <cstdint>
__device__ float clampf(float x, float lo, float hi);
__device__ uint64_t blocks_of(uint64_t n, uint64_t per);
EOF
  cat > "$1"/helpers.cu <<'EOF'
#include "helpers.cuh"
__device__ float clampf(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }
__device__ uint64_t blocks_of(uint64_t n, uint64_t per) { return (n + per - 1) / per; }
EOF
  cat > "$1"/scale.cu <<'EOF'
#include "helpers.cuh"
__global__ void scale(float *p, uint64_t n, float f) {
  uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  if (i < n) p[i] = clampf(p[i] * f, -1.0f, 1.0f);
}
extern "C" int launch_scale(float *p, unsigned long long n, float f) {
  scale<<<(unsigned)((n + 255) / 256), 256>>>(p, n, f);
  return (int)cudaGetLastError();
}
EOF
  cat > "$1"/chunks.cu <<'EOF'
#include "helpers.cuh"
__global__ void chunks(uint64_t *out, uint64_t n, uint64_t per) {
  out[threadIdx.x] = blocks_of(n + threadIdx.x, per) / (per + threadIdx.x + 1);
}
extern "C" int launch_chunks(uint64_t *out, unsigned long long n, unsigned long long per) {
  chunks<<<1, 32>>>(out, n, per);
  return (int)cudaDeviceSynchronize();
}
EOF
  cat > "$1"/api.cpp <<'EOF'
#include <string>
#include <vector>
extern "C" int launch_scale(float *p, unsigned long long n, float f);
std::string describe(const std::vector<float> &v) { return "n=" + std::to_string(v.size()); }
EOF
}
