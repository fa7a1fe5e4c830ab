/* A cpu-simd candidate for tests/e2e/test_worker_env.sh: computes y = x only
 * when the worker's OMP_WAIT_POLICY is what KF_EXPECT_WAIT_POLICY says
 * ("unset": not set at all), else writes zeros (a mismatch). */
#include <stdlib.h>
#include <string.h>
#include "kforge-cpu.h"

void kf_kernel(const kf_cpu_args *a)
{
    const char *want = getenv("KF_EXPECT_WAIT_POLICY"), *v = getenv("OMP_WAIT_POLICY");
    int ok = want && (strcmp(want, "unset") == 0 ? v == NULL : v && strcmp(v, want) == 0);
    long n = (long)(a->dims[0] * a->dims[1]);
    for (long i = 0; i < n; i++) a->out[0][i] = ok ? a->in[0][i] : 0.0f;
}
