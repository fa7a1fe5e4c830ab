/* blas_env.c — the OpenBLAS kernel set a process asks for (blas_env.h).
 *
 * OpenBLAS built with DYNAMIC_ARCH (Debian's) picks its kernels by CPU
 * family and model, and a model its version does not know gets the generic
 * ones: Debian 12's 0.3.21 on an Emerald Rapids Xeon (family 6, model 207)
 * chose "Prescott" (SSE3, no FMA), and its sgemm ran at 20-28 GFLOP per
 * CPU-second against 99-144 with the SkylakeX kernels on the same vCPU
 * (the 2-core development VM, problem 9's 512 x 2048 x 2048 GEMM,
 * bench/cpu_gemm/micro.sh; bench/results/xeon2-openblas-core-2026-11-28).
 * The op-by-op baseline's GEMMs, its GEMM anchor and the reference's DGEMM
 * all call it, so the speedups over the baseline were inflated about 4.5x
 * on such a host.  The kernel set is chosen from the ISA instead; on the
 * Xeons OpenBLAS does recognise (Cooperlake, SapphireRapids) SkylakeX is
 * the set their sgemm and dgemm use anyway.  A value the user set is kept,
 * and a build without DYNAMIC_ARCH ignores the variable. */
#include <config.h>

#include <stdlib.h>

#include "blas_env.h"

const char *kf_openblas_core_for_host(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
        return "SkylakeX";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
#endif
    return NULL;
}

void kf_openblas_env_default(void)
{
    const char *core = kf_openblas_core_for_host();
    if (core) setenv("OPENBLAS_CORETYPE", core, 0);   /* 0: a value the user set stays */
}
