/*
 * 30_Gemm_GroupNorm_Hardtanh: h = x · Wᵀ + b; GroupNorm(16 groups of N/16
 * contiguous channels, eps 1e-5, weight 1, bias 0); y = hardtanh(h, -2, 2).
 * inputs x (B,K), W (N,K), b (N); output y (B,N); dims B, K, N.
 */
#include <math.h>

#include "kforge-cpu.h"
#include "kf_gemm.h"

#define GROUPS 16
#define EPS 1e-5

/* Normalises one group of n channels in place, then clamps to [-2, 2]. */
static void norm_group(float *g, long n)
{
    double sum = 0, sq = 0;
    for (long c = 0; c < n; c++)
        sum += g[c];
    float mean = (float)(sum / (double)n);
    for (long c = 0; c < n; c++) {
        float d = g[c] - mean;
        sq += (double)d * d;
    }
    float inv = (float)(1.0 / sqrt(sq / (double)n + EPS));
    for (long c = 0; c < n; c++) {
        float v = (g[c] - mean) * inv;
        g[c] = v < -2.0f ? -2.0f : v > 2.0f ? 2.0f : v;
    }
}

void kf_kernel(const kf_cpu_args *a)
{
    long B = a->dims[0], K = a->dims[1], N = a->dims[2], per = N / GROUPS;
    float *y = a->out[0];
    if (kf_gemm_nt(a->in[0], a->in[1], a->in[2], y, N, B, N, K, 0, 0, a->n_threads))
        return;
#pragma omp parallel for collapse(2) schedule(static) num_threads(a->n_threads)
    for (long i = 0; i < B; i++)
        for (long g = 0; g < GROUPS; g++)
            norm_group(y + i * N + g * per, per);
}
