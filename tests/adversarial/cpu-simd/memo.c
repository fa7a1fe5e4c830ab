/* Memoises by buffer address and a peek at the input: computes once per
 * buffer set, then returns at once while the old (still correct) outputs
 * sit in the buffers.  Every output it leaves is right, so only the
 * roofline can catch it: a median under the hard floor is too fast. */
#include <string.h>
#include "kforge-cpu.h"

#define SLOTS 64
static struct { const float *x; float *y; float x0, xl; } seen[SLOTS];
static int n_seen;

void kf_kernel(const kf_cpu_args *a)
{
    const float *x = a->in[0], *b = a->in[1];
    float *y = a->out[0];
    int64_t M = a->dims[0], N = a->dims[1];
    for (int k = 0; k < n_seen; k++)
        if (seen[k].x == x && seen[k].y == y && seen[k].x0 == x[0] && seen[k].xl == x[M * N - 1])
            return;
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++)
            y[i * N + j] = 2.0f * x[i * N + j] + b[j];
    int slot = n_seen < SLOTS ? n_seen++ : 0;
    for (int k = 0; k < n_seen; k++)
        if (seen[k].x == x && seen[k].y == y) slot = k;
    seen[slot].x = x;
    seen[slot].y = y;
    seen[slot].x0 = x[0];
    seen[slot].xl = x[M * N - 1];
}
