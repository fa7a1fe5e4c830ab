/*
 * 14_Gemm_Divide_Sum_Scaling: y[i] = 1.5 * sum_j ((x · Wᵀ)[i, j] / 2).
 * Linearity turns the GEMM into wsum[k] = sum_j W[j, k] (one pass over W)
 * and y[i] = 0.75 * x[i, :] · wsum: memory-bound, 2·K·(B+N) FLOPs.
 * inputs x (B,K), W (N,K); output y (B,1); dims B, K, N; scratch wsum (K).
 */
#include "kforge-cpu.h"

#define KB 1024   /* columns of W per task: the partial sums stay in L1 */

void kf_kernel(const kf_cpu_args *a)
{
    long B = a->dims[0], K = a->dims[1], N = a->dims[2];
    const float *x = a->in[0], *W = a->in[1];
    float *wsum = a->scratch[0], *y = a->out[0];

#pragma omp parallel num_threads(a->n_threads)
    {
#pragma omp for schedule(static)
        for (long k0 = 0; k0 < K; k0 += KB) {
            long kn = K - k0 < KB ? K - k0 : KB;
            float *s = wsum + k0;
            for (long k = 0; k < kn; k++)
                s[k] = 0.0f;
            for (long j = 0; j < N; j++) {
                const float *w = W + j * K + k0;
                for (long k = 0; k < kn; k++)
                    s[k] += w[k];
            }
        }
#pragma omp for schedule(static)
        for (long i = 0; i < B; i++) {
            const float *xi = x + i * K;
            float acc = 0.0f;
#pragma omp simd reduction(+ : acc)
            for (long k = 0; k < K; k++)
                acc += xi[k] * wsum[k];
            y[i] = 0.75f * acc;
        }
    }
}
