/* Within the tolerance on every element, one in 64 near its edge (0.8 of
 * atol + rtol |y|; the relative L2 error stays inside its bound) on every
 * call, and one element beyond it from the seventh call on: what a reduced
 * precision whose worst element sits at the tolerance looks like when one
 * draw of the inputs passes and another does not.  Five trials pass; so
 * thin a margin makes the evaluation draw fifteen more, and the seventh
 * trial fails (a mismatch, before any timed run).  test_adversarial also
 * runs it with the element off only after twenty calls: twenty trials pass,
 * and the first checked timed run fails (stale, with the trials' margin). */
#include <math.h>
#include "kforge-cpu.h"

static int calls;

void kf_kernel(const kf_cpu_args *a)
{
    const float *x = a->in[0], *b = a->in[1];
    float *y = a->out[0];
    int64_t M = a->dims[0], N = a->dims[1];
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            float v = 2.0f * x[i * N + j] + b[j];
            y[i * N + j] = j % 64 ? v : v + 0.8f * (1e-4f + 1e-4f * fabsf(v));   /* the problem's atol and rtol */
        }
    if (++calls > 6) y[0] += 3e-4f * (1.0f + fabsf(y[0]));
}
