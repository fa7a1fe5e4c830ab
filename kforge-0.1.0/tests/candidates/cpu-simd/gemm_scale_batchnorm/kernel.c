/*
 * 33_Gemm_Scale_BatchNorm: h = (x · Wᵀ + b) * scale[j]; y = BatchNorm1d in
 * training mode: each column normalised with the batch mean and biased
 * variance, eps 1e-5, weight 1, bias 0.
 * inputs x (B,K), W (N,K), b (N), scale (N); output y (B,N); dims B, K, N.
 */
#include <math.h>

#include "kforge-cpu.h"
#include "kf_gemm.h"

#define EPS 1e-5
#define COLS 64   /* columns per block: one block's rows stay in L2 */

static void scale_cols(float *c, long i, long j, int n, const void *ctx)
{
    const float *scale = ctx;
    (void)i;
    for (int q = 0; q < n; q++)
        c[q] *= scale[j + q];
}

/* Batch-normalises columns [j0, j0+n) of the B×N matrix y in place. */
static void norm_cols(float *y, long B, long N, long j0, int n)
{
    double sum[COLS] = {0}, sq[COLS] = {0};
    float mean[COLS], inv[COLS];
    for (long i = 0; i < B; i++)
        for (int q = 0; q < n; q++)
            sum[q] += y[i * N + j0 + q];
    for (int q = 0; q < n; q++)
        mean[q] = (float)(sum[q] / (double)B);
    for (long i = 0; i < B; i++)
        for (int q = 0; q < n; q++) {
            float d = y[i * N + j0 + q] - mean[q];
            sq[q] += (double)d * d;
        }
    for (int q = 0; q < n; q++)
        inv[q] = (float)(1.0 / sqrt(sq[q] / (double)B + EPS));
    for (long i = 0; i < B; i++)
        for (int q = 0; q < n; q++)
            y[i * N + j0 + q] = (y[i * N + j0 + q] - mean[q]) * inv[q];
}

void kf_kernel(const kf_cpu_args *a)
{
    long B = a->dims[0], K = a->dims[1], N = a->dims[2];
    float *y = a->out[0];
    if (kf_gemm_nt(a->in[0], a->in[1], a->in[2], y, N, B, N, K, scale_cols, a->in[3],
                   a->n_threads))
        return;
#pragma omp parallel for schedule(static) num_threads(a->n_threads)
    for (long j0 = 0; j0 < N; j0 += COLS)
        norm_cols(y, B, N, j0, (int)(N - j0 < COLS ? N - j0 : COLS));
}
