/* A cpu-simd candidate for tests/e2e/test_worker_env.sh: computes y = x only
 * when the worker's variable named by KF_EXPECT_NAME has the value
 * KF_EXPECT_VALUE ("unset": not set at all), else writes zeros (a mismatch). */
#include <stdlib.h>
#include <string.h>
#include "kforge-cpu.h"

void kf_kernel(const kf_cpu_args *a)
{
    const char *name = getenv("KF_EXPECT_NAME"), *want = getenv("KF_EXPECT_VALUE");
    const char *v = name ? getenv(name) : NULL;
    int ok = name && want && (strcmp(want, "unset") == 0 ? v == NULL : v && strcmp(v, want) == 0);
    long n = (long)(a->dims[0] * a->dims[1]);
    for (long i = 0; i < n; i++) a->out[0][i] = ok ? a->in[0][i] : 0.0f;
}
