/* A cpu-simd candidate for tests/e2e/test_worker_env.sh: computes y = x
 * only when the worker's environment still holds the value the user set. */
#include <stdlib.h>
#include <string.h>
#include "kforge-cpu.h"

void kf_kernel(const kf_cpu_args *a)
{
    const char *v = getenv("KF_FIXTURE_MANGLE_ENV");
    int ok = v && strcmp(v, "libpocl.so.2:libnvidia-opencl.so.1") == 0;
    long n = (long)(a->dims[0] * a->dims[1]);
    for (long i = 0; i < n; i++) a->out[0][i] = ok ? a->in[0][i] : 0.0f;
}
