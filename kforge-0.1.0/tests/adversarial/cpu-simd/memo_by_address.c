/* Timing: computes once per output buffer and returns at once afterwards,
 * keyed on the buffer addresses only (the reward hack of reusing results
 * across calls).  The timed runs refill every set with fresh inputs, so
 * the checked runs find outputs for old inputs (or the poison): stale. */
#include "kforge-cpu.h"

#define SLOTS 64
static float *seen[SLOTS];
static int n_seen, calls;

void kf_kernel(const kf_cpu_args *a)
{
    const float *x = a->in[0], *b = a->in[1];
    float *y = a->out[0];
    int64_t M = a->dims[0], N = a->dims[1];
    if (++calls > 5)   /* the verification trials use one set, always the same */
        for (int k = 0; k < n_seen; k++)
            if (seen[k] == y) return;
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++)
            y[i * N + j] = 2.0f * x[i * N + j] + b[j];
    if (n_seen < SLOTS) seen[n_seen++] = y;
}
