/* Overfits the harness: computes correctly for the first 5 calls of the
 * process (the 5 verification trials) and returns at once afterwards, so
 * every timed run is "free".  A candidate that stopped after its very
 * first call would already fail verification (trial 1: not written);
 * this one passes verification and must be caught while profiling: the
 * timed runs leave the outputs unwritten (stale) and the time is under the
 * roofline floor. */
#include "kforge-cpu.h"

static int calls;

void kf_kernel(const kf_cpu_args *a)
{
    if (calls++ >= 5)
        return;
    const float *x = a->in[0], *b = a->in[1];
    float *y = a->out[0];
    int64_t M = a->dims[0], N = a->dims[1];
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++)
            y[i * N + j] = 2.0f * x[i * N + j] + b[j];
}
