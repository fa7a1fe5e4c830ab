/* example.c — calls kf_45_gemm_sigmoid_logsumexp() on uniform [0,1) inputs and prints each output's sum. */
#include <stdio.h>
#include <stdlib.h>
#include "kf_45_gemm_sigmoid_logsumexp.h"

static float *buffer(long long n)
{
    return aligned_alloc(4096, ((size_t)n * sizeof(float) + 4095) / 4096 * 4096);
}

int main(void)
{
    unsigned s = 1;
    float *x = buffer(kf_45_gemm_sigmoid_logsumexp_x_ELEMS);
    if (!x) return 1;
    for (long long i = 0; i < kf_45_gemm_sigmoid_logsumexp_x_ELEMS; i++) { s = s * 1103515245u + 12345u; x[i] = (float)(s >> 8) / 16777216.0f; }
    float *W1 = buffer(kf_45_gemm_sigmoid_logsumexp_W1_ELEMS);
    if (!W1) return 1;
    for (long long i = 0; i < kf_45_gemm_sigmoid_logsumexp_W1_ELEMS; i++) { s = s * 1103515245u + 12345u; W1[i] = (float)(s >> 8) / 16777216.0f; }
    float *b1 = buffer(kf_45_gemm_sigmoid_logsumexp_b1_ELEMS);
    if (!b1) return 1;
    for (long long i = 0; i < kf_45_gemm_sigmoid_logsumexp_b1_ELEMS; i++) { s = s * 1103515245u + 12345u; b1[i] = (float)(s >> 8) / 16777216.0f; }
    float *W2 = buffer(kf_45_gemm_sigmoid_logsumexp_W2_ELEMS);
    if (!W2) return 1;
    for (long long i = 0; i < kf_45_gemm_sigmoid_logsumexp_W2_ELEMS; i++) { s = s * 1103515245u + 12345u; W2[i] = (float)(s >> 8) / 16777216.0f; }
    float *b2 = buffer(kf_45_gemm_sigmoid_logsumexp_b2_ELEMS);
    if (!b2) return 1;
    for (long long i = 0; i < kf_45_gemm_sigmoid_logsumexp_b2_ELEMS; i++) { s = s * 1103515245u + 12345u; b2[i] = (float)(s >> 8) / 16777216.0f; }
    float *y = buffer(kf_45_gemm_sigmoid_logsumexp_y_ELEMS);
    if (!y) return 1;
    if (kf_45_gemm_sigmoid_logsumexp(x, W1, b1, W2, b2, y, 0) != 0) return 1;
    double sum_0 = 0;
    for (long long i = 0; i < kf_45_gemm_sigmoid_logsumexp_y_ELEMS; i++) sum_0 += y[i];
    printf("y: %lld elements, sum %.6g\n", (long long)kf_45_gemm_sigmoid_logsumexp_y_ELEMS, sum_0);
    free(x);
    free(W1);
    free(b1);
    free(W2);
    free(b2);
    free(y);
    return 0;
}
