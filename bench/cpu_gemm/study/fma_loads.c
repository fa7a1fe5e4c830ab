/* bench/cpu_gemm/study/fma_loads.c — 24 register-only FMA chains with NB broadcast loads and NV
 * 512-bit vector loads beside them each iteration (values unused: they feed no FMA and take no FP
 * port), against the chains alone, one case after another in every round (issue 15: on the 16-core
 * Xeon host the micro-kernel's loop lost a fifth of the FMA rate in some minutes and none in others,
 * and its broadcasts cost more than its vector loads; fma_ingredients.c).
 *   cc -O3 -march=native -fopenmp fma_loads.c -o fl && ./fl THREADS ROUNDS [FLOPS]
 * Prints each case's median share of the same round's chains, and the rounds' spread. */
#include <immintrin.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "study_common.h"
#define B1(o) "vbroadcastss " #o "(%1), %0\n\t"
#define V1(o) "vmovups " #o "(%2), %0\n\t"
#define LOADS_B0 ""
#define LOADS_B2 B1(0) B1(4)
#define LOADS_B4 LOADS_B2 B1(8) B1(12)
#define LOADS_B6 LOADS_B4 B1(16) B1(20)
#define LOADS_B8 LOADS_B6 B1(24) B1(28)
#define LOADS_B12 LOADS_B8 B1(32) B1(36) B1(40) B1(44)
#define LOADS_V0 ""
#define LOADS_V2 V1(0) V1(64)
#define LOADS_V4 LOADS_V2 V1(128) V1(192)
#define LOADS_V6 LOADS_V4 V1(256) V1(320)
#define CASE(NAME, LB, LV)                                                                         \
__attribute__((noinline)) static float NAME(long iters, const float *A, const float *B)             \
{                                                                                                    \
    __m512 a[24], m = _mm512_set1_ps(0.99999f), c = _mm512_set1_ps(1e-6f);                           \
    for (int j = 0; j < 24; j++) a[j] = _mm512_set1_ps((float)j);                                     \
    for (long it = 0; it < iters; it++) {                                                             \
        const int64_t k = it & 63;                                                                     \
        __m512 t;                                                                                      \
        __asm__ volatile(LB LV "" : "=&v"(t) : "r"(A + k * 12), "r"(B + k * 96));                      \
        _Pragma("GCC unroll 24") for (int j = 0; j < 24; j++) a[j] = _mm512_fmadd_ps(a[j], m, c);    \
    }                                                                                                  \
    float s = 0; for (int j = 0; j < 24; j++) s += _mm512_reduce_add_ps(a[j]);                        \
    return s;                                                                                          \
}
CASE(b0v0, LOADS_B0, LOADS_V0)
CASE(b4v0, LOADS_B4, LOADS_V0)
CASE(b6v0, LOADS_B6, LOADS_V0)
CASE(b8v0, LOADS_B8, LOADS_V0)
CASE(b12v0, LOADS_B12, LOADS_V0)
CASE(b0v2, LOADS_B0, LOADS_V2)
CASE(b0v4, LOADS_B0, LOADS_V4)
CASE(b0v6, LOADS_B0, LOADS_V6)
CASE(b12v2, LOADS_B12, LOADS_V2)
CASE(b8v3, LOADS_B8 V1(0) V1(64), V1(128))
CASE(b6v4, LOADS_B6, LOADS_V4)
CASE(b4v6, LOADS_B4, LOADS_V6)
typedef float (*fn)(long, const float *, const float *);
static const struct { const char *name; fn f; } cases[] = {
    {"chains", b0v0}, {"4 bcast", b4v0}, {"6 bcast", b6v0}, {"8 bcast", b8v0}, {"12 bcast", b12v0},
    {"2 vec", b0v2}, {"4 vec", b0v4}, {"6 vec", b0v6},
    {"12b+2v (12x32)", b12v2}, {"8b+3v (8x48)", b8v3}, {"6b+4v (6x64)", b6v4}, {"4b+6v (4x96)", b4v6},
};
#define NCASE ((int)(sizeof cases / sizeof cases[0]))
int main(int argc, char **argv)
{
    const int nt = atoi(argv[1]), rounds = argc > 2 && atoi(argv[2]) < 64 ? atoi(argv[2]) : 9;
    const double target = argc > 3 ? atof(argv[3]) : 4e9;
    static double rate[NCASE][64];
    for (int r = 0; r < rounds; r++)
        for (int c = 0; c < NCASE; c++) {
            double flops = 0, cpu = 0;
            #pragma omp parallel num_threads(nt) reduction(+:flops, cpu)
            {
                float *A = aligned_alloc(64, 64 * 12 * 4 + 64), *B = aligned_alloc(64, 64 * 96 * 4 + 512);
                for (int i = 0; i < 64 * 12; i++) A[i] = 1.0f;
                for (int i = 0; i < 64 * 96 + 128; i++) B[i] = 1.0f;
                const long it = (long)(target / (2.0 * 16 * 24));
                #pragma omp barrier
                const double c0 = cpu_now();
                sink = cases[c].f(it, A, B);
                cpu += cpu_now() - c0;
                flops += 2.0 * 16 * 24 * it;
                free(A); free(B);
            }
            rate[c][r] = flops / cpu / 1e9;
        }
    printf("threads %d, %d rounds: share of the same round's chains, median (min-max); chains %.1f GFLOP per CPU-second (median)\n", nt, rounds,
           ({ double s[64]; for (int r = 0; r < rounds; r++) s[r] = rate[0][r]; qsort(s, rounds, sizeof(double), cmpd); s[rounds / 2]; }));
    for (int c = 1; c < NCASE; c++) {
        double sh[64];
        for (int r = 0; r < rounds; r++) sh[r] = rate[c][r] / rate[0][r];
        qsort(sh, rounds, sizeof(double), cmpd);
        printf("%-16s %4.0f%% (%.0f-%.0f%%)\n", cases[c].name, 100 * sh[rounds / 2], 100 * sh[0], 100 * sh[rounds - 1]);
    }
    return 0;
}
