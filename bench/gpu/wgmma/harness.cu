// harness.cu — times the three kernels of an emitted problem-9 candidate one
// by one (a_to_bf16, b_to_bf16, the wgmma GEMM).  KFILE: the run's
// steps/0001-0/candidate/kernel.cu with `float kf_wg_` and `#define KF_FN` given
// __device__ (NVRTC's -default-device does that for the plugin); VARIANT: a name.
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include KFILE
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at line %d\n", cudaGetErrorString(e_), __LINE__); return 1; } } while (0)
template <class F> static float tm(F f) {
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    for (int i = 0; i < 3; i++) f();
    cudaDeviceSynchronize();
    std::vector<float> t;
    for (int i = 0; i < 20; i++) { cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms); }
    std::sort(t.begin(), t.end()); return t[10] * 1000;
}
__global__ void fill(float *p, size_t n, unsigned seed, float lo, float hi) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
    unsigned h = (unsigned)i * 2654435761u ^ seed; h ^= h >> 15; h *= 2246822519u; h ^= h >> 13;
    p[i] = lo + (hi - lo) * (h >> 8) * (1.0f / 16777216.0f);
}
int main() {
    const int B = 1024, K = 8192, N = 8192;
    float *x, *W, *b, *y, *ab, *bb;
    CK(cudaMalloc(&x, (size_t)B * K * 4)); CK(cudaMalloc(&W, (size_t)N * K * 4)); CK(cudaMalloc(&b, N * 4)); CK(cudaMalloc(&y, (size_t)B * N * 4));
    CK(cudaMalloc(&ab, 16777216)); CK(cudaMalloc(&bb, 134217728));
    fill<<<B * K / 256, 256>>>(x, (size_t)B * K, 1, 0, 1); fill<<<N * K / 256, 256>>>(W, (size_t)N * K, 2, -0.011f, 0.011f); fill<<<N / 256, 256>>>(b, N, 3, -0.011f, 0.011f);
    CK(cudaFuncSetAttribute(g0_gemm_wgmma_bf16_epilogue, cudaFuncAttributeMaxDynamicSharedMemorySize, 197632));
    dim3 l(32, 8);
    float ta = tm([&] { g0_a_to_bf16<<<dim3(1024 / 32, 1024 / 8), l>>>(x, ab, B, K, N); });
    float tb = tm([&] { g0_b_to_bf16<<<dim3(1024 / 32, 8192 / 8), l>>>(W, bb, B, K, N); });
    float tg = tm([&] { g0_gemm_wgmma_bf16_epilogue<<<512, 256, 197632>>>(ab, bb, b, y, B, K, N); });
    float tall = tm([&] { g0_a_to_bf16<<<dim3(1024 / 32, 1024 / 8), l>>>(x, ab, B, K, N); g0_b_to_bf16<<<dim3(1024 / 32, 8192 / 8), l>>>(W, bb, B, K, N);
                          g0_gemm_wgmma_bf16_epilogue<<<512, 256, 197632>>>(ab, bb, b, y, B, K, N); });
    CK(cudaGetLastError());
    printf("%s: a_to_bf16 %.1f us, b_to_bf16 %.1f us, gemm %.1f us, all three %.1f us\n", VARIANT, ta, tb, tg, tall);
    return 0;
}
