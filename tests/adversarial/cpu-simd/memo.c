/* Timing: memoises by buffer address and a peek at the input (its first
 * and last element): computes once per input, then returns at once while
 * the old (still correct) outputs sit in the buffers.  The parent refills
 * the set with fresh random inputs after each lead-in (which runs on the
 * set's previous inputs and may hit), so every timed run misses: the
 * candidate does the work each time and must pass with an honest time. */
#include <string.h>
#include "kforge-cpu.h"

#define SLOTS 64
static struct { const float *x; float *y; float x0, xl; } seen[SLOTS];
static int n_seen;
int kf_memo_hits;

void kf_kernel(const kf_cpu_args *a)
{
    const float *x = a->in[0], *b = a->in[1];
    float *y = a->out[0];
    int64_t M = a->dims[0], N = a->dims[1];
    for (int k = 0; k < n_seen; k++)
        if (seen[k].x == x && seen[k].y == y && seen[k].x0 == x[0] && seen[k].xl == x[M * N - 1]) {
            kf_memo_hits++;
            return;
        }
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
