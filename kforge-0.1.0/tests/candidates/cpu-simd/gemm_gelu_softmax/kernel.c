/*
 * 99_Matmul_GELU_Softmax: h = gelu(x · Wᵀ + b) (erf form); y = softmax(h, dim 1).
 * inputs x (B,K), W (N,K), b (N); output y (B,N); dims B, K, N.
 */
#include <math.h>

#include "kforge-cpu.h"
#include "kf_gemm.h"

static void gelu_seg(float *c, long i, long j, int n, const void *ctx)
{
    (void)i; (void)j; (void)ctx;
    for (int q = 0; q < n; q++)
        c[q] = 0.5f * c[q] * (1.0f + erff(c[q] * 0.70710678118654752f));
}

static void softmax_row(float *y, long n)
{
    float m = y[0];
    double s = 0;
    for (long j = 1; j < n; j++)
        m = y[j] > m ? y[j] : m;
    for (long j = 0; j < n; j++) {
        y[j] = expf(y[j] - m);
        s += y[j];
    }
    float inv = (float)(1.0 / s);
    for (long j = 0; j < n; j++)
        y[j] *= inv;
}

void kf_kernel(const kf_cpu_args *a)
{
    long B = a->dims[0], K = a->dims[1], N = a->dims[2];
    float *y = a->out[0];
    if (kf_gemm_nt(a->in[0], a->in[1], a->in[2], y, N, B, N, K, gelu_seg, 0, a->n_threads))
        return;
#pragma omp parallel for schedule(static) num_threads(a->n_threads)
    for (long i = 0; i < B; i++)
        softmax_row(y + i * N, N);
}
