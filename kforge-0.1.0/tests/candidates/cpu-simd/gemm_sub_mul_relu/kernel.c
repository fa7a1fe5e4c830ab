/*
 * 9_Matmul_Subtract_Multiply_ReLU: y = relu((x · Wᵀ + b - 2.0) * 1.5)
 * inputs x (B,K), W (N,K), b (N); output y (B,N); dims B, K, N.
 */
#include "kforge-cpu.h"
#include "kf_gemm.h"

static void sub_mul_relu(float *c, long i, long j, int n, const void *ctx)
{
    (void)i; (void)j; (void)ctx;
    for (int q = 0; q < n; q++) {
        float v = (c[q] - 2.0f) * 1.5f;
        c[q] = v > 0.0f ? v : 0.0f;
    }
}

void kf_kernel(const kf_cpu_args *a)
{
    long B = a->dims[0], K = a->dims[1], N = a->dims[2];
    kf_gemm_nt(a->in[0], a->in[1], a->in[2], a->out[0], N, B, N, K, sub_mul_relu, 0,
               a->n_threads);
}
