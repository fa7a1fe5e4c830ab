/* bench/cpu_gemm/study/fma_ingredients.c — which part of the fp32 micro-kernel's loop costs FMA
 * throughput on a core (issue 15: on the 16-core Xeon host the 12 x 32 micro-kernel with its data
 * in L1 ran at 77-87% of 24 register-only FMA chains, where it runs at 97-98% on a Zen 4;
 * ../../results/xeon16-gemm-levels-2026-12-02).  Loops of 24 FMAs an iteration, one thread each:
 *   chains   acc = acc * m + c, m and c in registers (the FMA peak of bench/cpu_gemm/harness.c)
 *   bcast    acc[i][v] = fma(bcast(A[k][i]), m_v, acc): the 12 broadcasts loaded, B in registers
 *   bload    acc[i][v] = fma(a_i, B[k][v], acc): 2 vectors of B loaded, A in registers (8 x 2
 *            accumulators and 8 a_i, for the registers: 16 FMAs and 2 loads an iteration)
 *   ukernel  acc[i][v] = fma(bcast(A[k][i]), B[k][v], acc): both loaded (kf_ukernel's form)
 *   chains+ld  chains with the micro-kernel's 14 loads an iteration beside them (2 vectors, 12
 *            broadcasts; their values unused, so they feed no FMA and take no FP port)
 *   regs     acc[i][v] = fma(a_i, b_v, acc) with 8 x 2 accumulators, 8 a_i and 2 b_v all in
 *            registers (the micro-kernel's dependence pattern, nothing loaded)
 * Data (A 12 x 128, B 128 x 32 floats) stays in L1.  Each case's GFLOP per CPU-second and its
 * share of the same round's chains; medians over ROUNDS rounds.
 *   cc -O3 -march=native -fopenmp fma_ingredients.c -o fi && ./fi THREADS ROUNDS [FLOPS] */
#include <immintrin.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "study_common.h"
#define KD 128
__attribute__((noinline)) static float chains_ld(long iters, const float *A, const float *B)
{
    __m512 a[24], m = _mm512_set1_ps(0.99999f), c = _mm512_set1_ps(1e-6f);
    for (int j = 0; j < 24; j++) a[j] = _mm512_set1_ps((float)j);
    for (long it = 0; it < iters; it++) {
        const int64_t k = it & (KD - 1);
        __m512 t;   /* loads kept by volatile asm, their values unused: no FP port taken (the
                       address in a register operand, not "m": that made GCC keep a[] in memory) */
        const float *pb = B + k * 32, *pa = A + k * 12;
        __asm__ volatile("vmovups (%1), %0\n\tvmovups 64(%1), %0" : "=&v"(t) : "r"(pb));
        __asm__ volatile("vbroadcastss (%1), %0\n\tvbroadcastss 4(%1), %0\n\tvbroadcastss 8(%1), %0\n\t"
                         "vbroadcastss 12(%1), %0\n\tvbroadcastss 16(%1), %0\n\tvbroadcastss 20(%1), %0\n\t"
                         "vbroadcastss 24(%1), %0\n\tvbroadcastss 28(%1), %0\n\tvbroadcastss 32(%1), %0\n\t"
                         "vbroadcastss 36(%1), %0\n\tvbroadcastss 40(%1), %0\n\tvbroadcastss 44(%1), %0"
                         : "=&v"(t) : "r"(pa));
        _Pragma("GCC unroll 24") for (int j = 0; j < 24; j++) a[j] = _mm512_fmadd_ps(a[j], m, c);
    }
    float s = 0; for (int j = 0; j < 24; j++) s += _mm512_reduce_add_ps(a[j]);
    return s;
}
__attribute__((noinline)) static float bcast(long iters, const float *A)
{
    __m512 acc[12][2], b0 = _mm512_set1_ps(0.5f), b1 = _mm512_set1_ps(0.25f);
    for (int i = 0; i < 12; i++) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
    for (long it = 0; it < iters; it++) {
        const int64_t k = it & (KD - 1);
        _Pragma("GCC unroll 12") for (int i = 0; i < 12; i++) {
            __m512 a = _mm512_set1_ps(A[k * 12 + i]);
            acc[i][0] = _mm512_fmadd_ps(a, b0, acc[i][0]); acc[i][1] = _mm512_fmadd_ps(a, b1, acc[i][1]);
        }
    }
    float s = 0; for (int i = 0; i < 12; i++) s += _mm512_reduce_add_ps(_mm512_add_ps(acc[i][0], acc[i][1]));
    return s;
}
__attribute__((noinline)) static float bload(long iters, const float *B)
{
    __m512 acc[8][2], a[8];
    for (int i = 0; i < 8; i++) { acc[i][0] = acc[i][1] = _mm512_setzero_ps(); a[i] = _mm512_set1_ps(1e-3f * (float)i); }
    for (long it = 0; it < iters; it++) {
        const int64_t k = it & (KD - 1);
        __m512 b0 = _mm512_loadu_ps(B + k * 32), b1 = _mm512_loadu_ps(B + k * 32 + 16);
        _Pragma("GCC unroll 8") for (int i = 0; i < 8; i++) {
            acc[i][0] = _mm512_fmadd_ps(a[i], b0, acc[i][0]); acc[i][1] = _mm512_fmadd_ps(a[i], b1, acc[i][1]);
        }
    }
    float s = 0; for (int i = 0; i < 8; i++) s += _mm512_reduce_add_ps(_mm512_add_ps(acc[i][0], acc[i][1]));
    return s;
}
__attribute__((noinline)) static float regs(long iters)
{
    __m512 acc[8][2], a[8], b0 = _mm512_set1_ps(0.5f), b1 = _mm512_set1_ps(0.25f);
    for (int i = 0; i < 8; i++) { acc[i][0] = acc[i][1] = _mm512_setzero_ps(); a[i] = _mm512_set1_ps(1e-3f * (float)i); }
    for (long it = 0; it < iters; it++) {
        _Pragma("GCC unroll 8") for (int i = 0; i < 8; i++) {
            acc[i][0] = _mm512_fmadd_ps(a[i], b0, acc[i][0]); acc[i][1] = _mm512_fmadd_ps(a[i], b1, acc[i][1]);
        }
        __asm__ volatile("" : "+v"(b0), "+v"(b1));   /* b0, b1 not hoisted as constants */
    }
    float s = 0; for (int i = 0; i < 8; i++) s += _mm512_reduce_add_ps(_mm512_add_ps(acc[i][0], acc[i][1]));
    return s;
}
__attribute__((noinline)) static float ukernel(long iters, const float *A, const float *B)
{
    __m512 acc[12][2];
    for (int i = 0; i < 12; i++) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
    for (long it = 0; it < iters; it++) {
        const int64_t k = it & (KD - 1);
        __m512 b0 = _mm512_loadu_ps(B + k * 32), b1 = _mm512_loadu_ps(B + k * 32 + 16);
        _Pragma("GCC unroll 12") for (int i = 0; i < 12; i++) {
            __m512 a = _mm512_set1_ps(A[k * 12 + i]);
            acc[i][0] = _mm512_fmadd_ps(a, b0, acc[i][0]); acc[i][1] = _mm512_fmadd_ps(a, b1, acc[i][1]);
        }
    }
    float s = 0; for (int i = 0; i < 12; i++) s += _mm512_reduce_add_ps(_mm512_add_ps(acc[i][0], acc[i][1]));
    return s;
}
enum { CHAINS, BCAST, BLOAD, UKERNEL, CHAINS_LD, REGS, NC };
static const char *names[NC] = {"chains", "bcast", "bload", "ukernel", "chains+ld", "regs"};
static const int fmas[NC] = {24, 24, 16, 24, 24, 16};   /* FMAs an iteration */
int main(int argc, char **argv)
{
    const int nt = atoi(argv[1]), rounds = argc > 2 && atoi(argv[2]) < 64 ? atoi(argv[2]) : 5;
    const double target = argc > 3 ? atof(argv[3]) : 4e9;
    static double rate[NC][64];
    for (int r = 0; r < rounds; r++)
        for (int c = 0; c < NC; c++) {
            double flops = 0, cpu = 0;
            #pragma omp parallel num_threads(nt) reduction(+:flops, cpu)
            {
                float *A = aligned_alloc(64, 12 * KD * 4), *B = aligned_alloc(64, 32 * KD * 4);
                for (int i = 0; i < 12 * KD; i++) A[i] = 1e-3f * (float)(i % 7);
                for (int i = 0; i < 32 * KD; i++) B[i] = 1e-3f * (float)(i % 5);
                const long it = (long)(target / (2.0 * 16 * fmas[c]));
                #pragma omp barrier
                const double c0 = cpu_now();
                float s = 0;
                switch (c) {
                case CHAINS: s = chains(it); break;
                case BCAST: s = bcast(it, A); break;
                case BLOAD: s = bload(it, B); break;
                case UKERNEL: s = ukernel(it, A, B); break;
                case CHAINS_LD: s = chains_ld(it, A, B); break;
                default: s = regs(it); break;
                }
                cpu += cpu_now() - c0;
                sink = s;
                flops += 2.0 * 16 * fmas[c] * it;
                free(A); free(B);
            }
            rate[c][r] = flops / cpu / 1e9;
        }
    printf("threads %d, %d rounds, %.0e FLOPs a thread a case: GFLOP per CPU-second, median (min-max); share of the round's chains\n", nt, rounds, target);
    for (int c = 0; c < NC; c++) {
        double s[64], sh[64];
        for (int r = 0; r < rounds; r++) { s[r] = rate[c][r]; sh[r] = rate[c][r] / rate[CHAINS][r]; }
        qsort(s, rounds, sizeof(double), cmpd); qsort(sh, rounds, sizeof(double), cmpd);
        printf("%-10s %6.1f (%.1f-%.1f)  %3.0f%% (%.0f-%.0f%%)\n", names[c], s[rounds / 2], s[0], s[rounds - 1], 100 * sh[rounds / 2], 100 * sh[0], 100 * sh[rounds - 1]);
    }
    return 0;
}
