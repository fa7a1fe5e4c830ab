// gemm_mul_leakyrelu: y = leaky_relu((x W^T + b) * scale, slope), one thread
// per output; a block's rows of x are staged in dynamic shared memory
// (16 rows x K floats).  A hand-written candidate for kforge export's tests
// (a kernel plan in CUDA C with a header, float arguments and dynamic shared
// memory); the second source, kf_epilogue.cuh, is included by name.
#include "kf_epilogue.cuh"

extern "C" __global__ void gemm_mul_lrelu(const float *x, const float *W, const float *b, float *y,
                                          int B, int K, int N, float scale, float slope)
{
    extern __shared__ float xs[];
    int n = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    float *xr = xs + threadIdx.y * K;
    if (r < B)
        for (int k = threadIdx.x; k < K; k += blockDim.x) xr[k] = x[(long)r * K + k];
    __syncthreads();
    if (r >= B || n >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += xr[k] * W[(long)n * K + k];
    y[(long)r * N + n] = kf_epilogue(acc + b[n], scale, slope);
}
