/*
 * 45_Gemm_Sigmoid_LogSumExp: h = sigmoid(x · W1ᵀ + b1); z = h · W2ᵀ + b2;
 * y[i] = logsumexp_j z[i, j].
 * inputs x (B,K), W1 (H,K), b1 (H), W2 (O,H), b2 (O); output y (B);
 * dims B, K, H, O; scratch hidden (B×H floats), logits (B×O floats).
 */
#include <math.h>

#include "kforge-cpu.h"
#include "kf_gemm.h"

static void sigmoid_seg(float *c, long i, long j, int n, const void *ctx)
{
    (void)i; (void)j; (void)ctx;
    for (int q = 0; q < n; q++)
        c[q] = 1.0f / (1.0f + expf(-c[q]));
}

static float logsumexp_row(const float *z, long n)
{
    float m = z[0];
    double s = 0;
    for (long j = 1; j < n; j++)
        m = z[j] > m ? z[j] : m;
    for (long j = 0; j < n; j++)
        s += expf(z[j] - m);
    return m + (float)log(s);
}

void kf_kernel(const kf_cpu_args *a)
{
    long B = a->dims[0], K = a->dims[1], H = a->dims[2], O = a->dims[3];
    float *hidden = a->scratch[0], *logits = a->scratch[1], *y = a->out[0];
    if (kf_gemm_nt(a->in[0], a->in[1], a->in[2], hidden, H, B, H, K, sigmoid_seg, 0,
                   a->n_threads) ||
        kf_gemm_nt(hidden, a->in[3], a->in[4], logits, O, B, O, H, 0, 0, a->n_threads))
        return;
#pragma omp parallel for schedule(static) num_threads(a->n_threads)
    for (long i = 0; i < B; i++)
        y[i] = logsumexp_row(logits + i * O, O);
}
