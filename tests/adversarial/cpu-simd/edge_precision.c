/* Right in the five verification trials, then one element off on every
 * later call: what a reduced precision at the edge of the tolerance looks
 * like on the fresh inputs of the timed runs (a kernel cannot tell which
 * calls are checked; the diagnosis names both causes). */
#include "kforge-cpu.h"

static int calls;

void kf_kernel(const kf_cpu_args *a)
{
    const float *x = a->in[0], *b = a->in[1];
    float *y = a->out[0];
    int64_t M = a->dims[0], N = a->dims[1];
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++)
            y[i * N + j] = 2.0f * x[i * N + j] + b[j];
    if (++calls > 5) y[0] += 1.0f;
}
