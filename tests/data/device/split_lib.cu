// Fixture for tests/suites/split_wrapper.sh: a small library of templated kernels (a reduction, a scan step,
// a saxpy over several types), so that line info is a real part of the device code as in a shipped library.
#include <cstddef>

template <typename T> __device__ __forceinline__ T warp_sum(T v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

template <typename T> __global__ void reduce_sum(const T *in, T *out, size_t n)
{
    __shared__ T part[32];
    T v = 0;
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        v += in[i];
    v = warp_sum(v);
    if ((threadIdx.x & 31) == 0)
        part[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < (blockDim.x >> 5) ? part[threadIdx.x] : T(0);
        v = warp_sum(v);
        if (threadIdx.x == 0)
            atomicAdd(out, v);
    }
}

template <typename T> __global__ void scan_step(T *data, size_t n, size_t stride)
{
    size_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= stride && i < n)
        data[i] += data[i - stride];
}

template <typename T> __global__ void saxpy(T a, const T *x, T *y, size_t n)
{
    size_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

#define INSTANTIATE(T)                                                                                           \
    template __global__ void reduce_sum<T>(const T *, T *, size_t);                                              \
    template __global__ void scan_step<T>(T *, size_t, size_t);                                                  \
    template __global__ void saxpy<T>(T, const T *, T *, size_t);
INSTANTIATE(float)
INSTANTIATE(double)
INSTANTIATE(int)
INSTANTIATE(unsigned)

// The host entry points a user of the library calls.
void lib_saxpy(float a, const float *x, float *y, size_t n)
{
    saxpy<<<(unsigned)((n + 255) / 256), 256>>>(a, x, y, n);
}
void lib_reduce(const float *in, float *out, size_t n)
{
    reduce_sum<<<64, 256>>>(in, out, n);
}
