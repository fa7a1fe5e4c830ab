/* bench/cpu_gemm/study/study_common.h — what the micro-kernel studies share (ukernel_levels.c,
 * ukernel_shapes.c, fma_ingredients.c, fma_loads.c): a thread's CPU clock, the 24-chain AVX-512
 * FMA peak loop of bench/cpu_gemm/harness.c (24 x 16 x 2 FLOPs an iteration), a sink the
 * compiler cannot drop and a double comparator for medians.  Study code, not product code. */
#ifndef KF_STUDY_COMMON_H
#define KF_STUDY_COMMON_H
#include <time.h>
static double cpu_now(void) { struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
typedef float kf_study_v16 __attribute__((vector_size(64)));
#define KF_R24(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23)
#define KF_DECL(i) kf_study_v16 a##i = (kf_study_v16){0} + (float)(i);
#define KF_STEP(i) a##i = a##i * m + c;
#define KF_SUM(i) s += a##i[0];
__attribute__((noinline, unused)) static float chains(long iters)
{
    kf_study_v16 m = (kf_study_v16){0} + 0.99999f, c = (kf_study_v16){0} + 1e-6f;
    float s = 0;
    KF_R24(KF_DECL)
    for (long it = 0; it < iters; it++) { KF_R24(KF_STEP) }
    KF_R24(KF_SUM)
    return s;
}
static volatile float sink;
__attribute__((unused)) static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
#endif
