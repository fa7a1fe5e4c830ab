/* Correct output, but uses its input as a scratch pad (scales x in place
 * first): the inputs must come back unchanged. */
#include "kforge-cpu.h"

void kf_kernel(const kf_cpu_args *a)
{
    float *x = (float *)a->in[0];
    const float *b = a->in[1];
    float *y = a->out[0];
    int64_t M = a->dims[0], N = a->dims[1];
    for (int64_t k = 0; k < M * N; k++)
        x[k] *= 2.0f;
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++)
            y[i * N + j] = x[i * N + j] + b[j];
}
