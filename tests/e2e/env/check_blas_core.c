/* A cpu-simd candidate for tests/e2e/test_worker_env.sh: computes y = x only
 * when the OpenBLAS it loads (as the baseline's GEMMs do) runs the kernel set
 * named by KF_EXPECT_VALUE (openblas_get_corename, case aside), else writes
 * zeros (a mismatch) and says which set it got. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include "kforge-cpu.h"

void kf_kernel(const kf_cpu_args *a)
{
    const char *want = getenv("KF_EXPECT_VALUE");
    void *h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    char *(*corename)(void) = h ? (char *(*)(void))dlsym(h, "openblas_get_corename") : NULL;
    const char *got = corename ? corename() : "(no libopenblas.so.0)";
    int ok = want && strcasecmp(got, want) == 0;
    if (!ok) fprintf(stderr, "check_blas_core: OpenBLAS runs the %s kernels, expected %s\n", got, want ? want : "?");
    long n = (long)(a->dims[0] * a->dims[1]);
    for (long i = 0; i < n; i++) a->out[0][i] = ok ? a->in[0][i] : 0.0f;
}
