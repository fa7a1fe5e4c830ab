/* bench/cpu_gemm/study/ukernel_shapes.c — fp32 AVX-512 micro-kernel shapes and forms alone, with
 * their data in L1 (and streaming from L2 as the GEMM's tiles do), beside the FMA peak on the same
 * threads in the same rounds (issue 15: the 16-core host's micro-kernel ran at 77% of that peak
 * with one thread and its data in L1, ../../results/xeon16-gemm-levels-2026-12-02).
 *   cc -O3 -march=native -fopenmp ukernel_shapes.c -o us && ./us THREADS [ROUNDS [FLOPS [FORMS]]]
 * FLOPS: a thread's FLOPs a case (1e9); FORMS: the forms to time, by name, comma-separated (all).
 * Each form: MR x NV vectors of accumulators over k; per k NV vector loads of B and MR broadcasts
 * of A, as the emitted kf_ukernel; "pf": B's next rows prefetched as kf_ukernel does (8 k ahead,
 * one per line); "eb": each FMA takes its A element as an embedded broadcast memory operand
 * (vfmadd231ps m32{1to16}: no separate broadcast, one load a FMA); "u2": k unrolled by two.
 * Rates: GFLOP per CPU-second (each thread's CPU time over its calls, summed) and its share of
 * the same round's FMA peak (24 register chains, as bench/cpu_gemm/harness.c). */
#include <immintrin.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "study_common.h"
typedef void (*kfn)(int64_t kc, const float *ap, const float *bp, float *c, int64_t ldc);
#define KER(NAME, MR, NV, PF, EB, U)                                                                    \
__attribute__((noinline)) static void NAME(int64_t kc, const float *restrict ap, const float *restrict bp, \
                                           float *restrict c, int64_t ldc)                             \
{                                                                                                       \
    __m512 acc[MR][NV];                                                                                 \
    _Pragma("GCC unroll 64") for (int i = 0; i < MR; i++)                                               \
    _Pragma("GCC unroll 8") for (int v = 0; v < NV; v++) acc[i][v] = _mm512_setzero_ps();              \
    _Pragma(U) for (int64_t k = 0; k < kc; k++) {                                        \
        __m512 b[NV];                                                                                   \
        _Pragma("GCC unroll 8") for (int v = 0; v < NV; v++) b[v] = _mm512_loadu_ps(bp + k * NV * 16 + v * 16); \
        if (PF) _Pragma("GCC unroll 8") for (int v = 0; v < NV; v++)                                    \
            __builtin_prefetch((const void *)((uintptr_t)bp + (uintptr_t)((k + 8) * NV * 16 + v * 16) * 4), 0, 3); \
        _Pragma("GCC unroll 64") for (int i = 0; i < MR; i++) {                                         \
            if (EB) {                                                                                   \
                _Pragma("GCC unroll 8") for (int v = 0; v < NV; v++)                                    \
                    __asm__("vfmadd231ps %1%{1to16%}, %2, %0" : "+v"(acc[i][v]) : "m"(ap[k * MR + i]), "v"(b[v])); \
            } else {                                                                                    \
                __m512 a = _mm512_set1_ps(ap[k * MR + i]);                                              \
                _Pragma("GCC unroll 8") for (int v = 0; v < NV; v++) acc[i][v] = _mm512_fmadd_ps(a, b[v], acc[i][v]); \
            }                                                                                           \
        }                                                                                               \
    }                                                                                                   \
    _Pragma("GCC unroll 64") for (int i = 0; i < MR; i++)                                               \
    _Pragma("GCC unroll 8") for (int v = 0; v < NV; v++)                                                \
        _mm512_storeu_ps(c + i * ldc + v * 16, _mm512_add_ps(_mm512_loadu_ps(c + i * ldc + v * 16), acc[i][v])); \
}
KER(k12x32_pf, 12, 2, 1, 0, "GCC unroll 1")
KER(k12x32, 12, 2, 0, 0, "GCC unroll 1")
KER(k12x32_u2, 12, 2, 0, 0, "GCC unroll 2")
KER(k12x32_eb, 12, 2, 0, 1, "GCC unroll 1")
KER(k14x32, 14, 2, 0, 0, "GCC unroll 1")
KER(k14x32_eb, 14, 2, 0, 1, "GCC unroll 1")
KER(k8x48, 8, 3, 0, 0, "GCC unroll 1")
KER(k6x64_pf, 6, 4, 1, 0, "GCC unroll 1")
KER(k6x64, 6, 4, 0, 0, "GCC unroll 1")
KER(k6x64_eb, 6, 4, 0, 1, "GCC unroll 1")
KER(k7x64_eb, 7, 4, 0, 1, "GCC unroll 1")
KER(k4x96, 4, 6, 0, 0, "GCC unroll 1")
KER(k4x96_eb, 4, 6, 0, 1, "GCC unroll 1")
static const struct { const char *name; kfn f; int mr, nv; } forms[] = {
    {"12x32pf", k12x32_pf, 12, 2}, {"12x32", k12x32, 12, 2}, {"12x32u2", k12x32_u2, 12, 2}, {"12x32eb", k12x32_eb, 12, 2},
    {"14x32", k14x32, 14, 2}, {"14x32eb", k14x32_eb, 14, 2}, {"8x48", k8x48, 8, 3},
    {"6x64pf", k6x64_pf, 6, 4}, {"6x64", k6x64, 6, 4}, {"6x64eb", k6x64_eb, 6, 4}, {"7x64eb", k7x64_eb, 7, 4},
    {"4x96", k4x96, 4, 6}, {"4x96eb", k4x96_eb, 4, 6},
};
#define NF ((int)(sizeof forms / sizeof forms[0]))
#define MAXR 32
static int picked(const char *only, const char *name)   /* name in the comma-separated list (NULL: all) */
{
    if (!only) return 1;
    const size_t n = strlen(name);
    for (const char *p = only; *p; ) {
        const char *e = strchr(p, ','); const size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == n && !strncmp(p, name, n)) return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}
int main(int argc, char **argv)
{
    const int nt = atoi(argv[1]), rounds = argc > 2 && atoi(argv[2]) < MAXR ? atoi(argv[2]) : 5;
    const double target = argc > 3 ? atof(argv[3]) : 1.0e9;   /* FLOPs a thread a case */
    const char *only = argc > 4 ? argv[4] : NULL;
    enum { L1, L2, NL };
    static double rate[2 * 16][NL][MAXR], peak[MAXR];
    float *ap_[256], *bp_[256], *cb_[256];
    #pragma omp parallel num_threads(nt)
    {
        const int t = omp_get_thread_num();   /* l2: 43 A panels of 14 x 384 at most, 4 B panels of 384 x 96 */
        ap_[t] = aligned_alloc(64, 43 * 14 * 384 * 4); bp_[t] = aligned_alloc(64, 4 * 96 * 384 * 4);
        cb_[t] = aligned_alloc(64, (size_t)43 * 14 * 512 * 4);
        for (int64_t i = 0; i < 43 * 14 * 384; i++) ap_[t][i] = 1e-3f * (float)(i % 7);
        for (int64_t i = 0; i < 4 * 96 * 384; i++) bp_[t][i] = 1e-3f * (float)(i % 5);
        memset(cb_[t], 0, (size_t)43 * 14 * 512 * 4);
    }
    for (int r = 0; r < rounds; r++) {
        for (int f = -1; f < NF; f++) {
            if (f >= 0 && !picked(only, forms[f].name)) continue;
            for (int lv = 0; lv < (f < 0 ? 1 : NL); lv++) {
                double flops = 0, cpu = 0;
                #pragma omp parallel num_threads(nt) reduction(+:flops, cpu)
                {
                    const int t = omp_get_thread_num();
                    #pragma omp barrier
                    const double c0 = cpu_now();
                    if (f < 0) {
                        long it = (long)(target / (2.0 * 24 * 16));
                        sink = chains(it); flops += 2.0 * 24 * 16 * it;
                    } else {
                        const int mr = forms[f].mr, nr = forms[f].nv * 16;
                        const int64_t kc = lv == L1 ? 128 : 384, np = lv == L1 ? 1 : 43, nb = lv == L1 ? 1 : 4;
                        const double per = 2.0 * mr * nr * kc;
                        long calls = (long)(target / per), done = 0;
                        while (done < calls)
                            for (int64_t ip = 0; ip < np && done < calls; ip++)
                                for (int64_t jb = 0; jb < nb && done < calls; jb++, done++)
                                    forms[f].f(kc, ap_[t] + ip * mr * kc, bp_[t] + jb * nr * kc, cb_[t] + ip * mr * 512 + jb * nr, 512);
                        flops += per * done;
                        sink = cb_[t][0];
                    }
                    cpu += cpu_now() - c0;
                }
                if (f < 0) peak[r] = flops / cpu / 1e9; else rate[f][lv][r] = flops / cpu / 1e9;
            }
        }
    }
    double p[MAXR]; memcpy(p, peak, sizeof(double) * rounds); qsort(p, rounds, sizeof(double), cmpd);
    printf("threads %d, %d rounds: FMA peak %.1f GFLOP per CPU-second (median; %.1f-%.1f)\n", nt, rounds, p[rounds / 2], p[0], p[rounds - 1]);
    printf("%-10s %24s %24s\n", "form", "l1 (kc 128): rate, share", "l2 (kc 384, 43 x 4 panels)");
    for (int f = 0; f < NF; f++) {
        if (!picked(only, forms[f].name)) continue;
        printf("%-10s", forms[f].name);
        for (int lv = 0; lv < NL; lv++) {
            double s[MAXR], sh[MAXR];
            for (int r = 0; r < rounds; r++) { s[r] = rate[f][lv][r]; sh[r] = rate[f][lv][r] / peak[r]; }
            qsort(s, rounds, sizeof(double), cmpd); qsort(sh, rounds, sizeof(double), cmpd);
            printf("   %6.1f  %3.0f%% (%2.0f-%3.0f%%)", s[rounds / 2], 100 * sh[rounds / 2], 100 * sh[0], 100 * sh[rounds - 1]);
        }
        printf("\n");
    }
    return 0;
}
