// Fixture: the translation unit built without -lineinfo in the mixed library.
__global__ void plainOne(float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = out[i] * 3.0f;
}
__global__ void plainTwo(int *out)
{
    out[threadIdx.x] += 1;
}
