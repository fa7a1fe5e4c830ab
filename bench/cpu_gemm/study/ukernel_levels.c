/* bench/cpu_gemm/study/ukernel_levels.c — the emitted fp32 micro-kernel alone, with its data
 * in L1, streaming from L2 as the GEMM's tiles do, and with C at the problem's stride, beside the
 * FMA peak on the same threads in the same rounds (issue 15: where the 16-core GEMM's missing
 * share goes).  Build with the generated kernel.c of an fp32 point (kf_ukernel, KF_MR, KF_NR):
 *   cc -O3 -march=native -fopenmp -I plugins/cpu-simd -DKERNEL='"k.c"' ukernel_levels.c -o ul
 *   ./ul THREADS ROUNDS [KC [NB]]   (KC: the l2 cases' depth, 384; NB: their B micro-panels, 4)
 * Each case: every thread calls kf_ukernel over its own buffers for about the same FLOPs;
 * GFLOP per CPU-second (each thread's CPU time over its own calls, summed) against fma_peak's (24 chains, as bench/cpu_gemm/harness.c).
 *   l1      one A (MR x 128) and one B (128 x NR) micro-panel, C MR x NR contiguous: all in L1
 *   l2      depth KC: 43 A micro-panels (774 KiB at KC 384) x NB B micro-panels (192 KiB), the GEMM's
 *           order (NB tiles a row panel), C a contiguous 43 MR x 128 block: A and B from L2
 *   l2ld    the same with C at ldc 2048 (the problem's row stride: 8 KiB between C's rows)
 *   l2add   l2ld with add=1 (C loaded and added, as every depth block after the first) */
#include KERNEL
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "study_common.h"
enum { L1, L2, L2LD, L2ADD, PEAK, NCASE };
static const char *names[NCASE] = {"l1", "l2", "l2ld", "l2add", "peak"};
int main(int argc, char **argv)
{
    const int nt = atoi(argv[1]), rounds = atoi(argv[2]);
    const int64_t KC = argc > 3 ? atoll(argv[3]) : 384, NB = argc > 4 ? atoll(argv[4]) : 4;
    const double target = 2.0e9;   /* FLOPs a thread a case (about 8 of the GEMM's 268 MFLOP a thread at 16) */
    double rate[NCASE][64];
    float *ap_[256], *bp_[256], *cb_[256];
    #pragma omp parallel num_threads(nt)
    {   /* each thread's buffers, written by it (its pages local), before any timing */
        const int t = omp_get_thread_num();
        ap_[t] = aligned_alloc(64, (size_t)(43 * KF_MR * KC) * 4); bp_[t] = aligned_alloc(64, (size_t)(NB * KF_NR * KC) * 4);
        cb_[t] = aligned_alloc(64, (size_t)((43 * KF_MR) * 2048 + 64) * 4);
        for (int64_t i = 0; i < 43 * KF_MR * KC; i++) ap_[t][i] = 1e-3f * (float)(i % 7);
        for (int64_t i = 0; i < NB * KF_NR * KC; i++) bp_[t][i] = 1e-3f * (float)(i % 5);
        for (int64_t i = 0; i < 43 * KF_MR * 2048 + 64; i++) cb_[t][i] = 0;
    }
    for (int r = 0; r < rounds && r < 64; r++) {
        for (int cs = 0; cs < NCASE; cs++) {
            double flops = 0, cpu = 0;
            #pragma omp parallel num_threads(nt) reduction(+:flops, cpu)
            {
                const int t = omp_get_thread_num();
                float *ap = ap_[t], *bp = bp_[t], *cb = cb_[t];
                #pragma omp barrier
                const double c0 = cpu_now();
                if (cs == PEAK) {
                    long it = (long)(target / (2.0 * 24 * 16));
                    sink = chains(it); flops += 2.0 * 24 * 16 * it;
                } else {
                    const int64_t kc = cs == L1 ? 128 : KC, np = cs == L1 ? 1 : 43, nb = cs == L1 ? 1 : NB;
                    const int64_t ldc = cs == L2LD || cs == L2ADD ? 2048 : (cs == L1 ? KF_NR : NB * KF_NR);
                    const double per = 2.0 * KF_MR * KF_NR * kc;
                    long calls = (long)(target / per), done = 0;
                    while (done < calls)
                        for (int64_t ip = 0; ip < np && done < calls; ip++)
                            for (int64_t jb = 0; jb < nb && done < calls; jb++, done++)
                                kf_ukernel(kc, ap + ip * KF_MR * kc, bp + jb * KF_NR * kc,
                                           cb + ip * KF_MR * ldc + (cs == L1 ? 0 : jb * KF_NR), ldc, cs == L2ADD);
                    flops += per * done;
                    sink = cb[0];
                }
                cpu += cpu_now() - c0;
            }
            rate[cs][r] = flops / cpu / 1e9;
        }
    }
    printf("threads %d, MR %d NR %d, KC %lld, NB %lld, %d rounds: GFLOP per CPU-second, median (min-max); share of the peak's median\n", nt, KF_MR, KF_NR, (long long)KC, (long long)NB, rounds);
    double pk[64]; memcpy(pk, rate[PEAK], sizeof(double) * rounds); qsort(pk, rounds, sizeof(double), cmpd);
    for (int cs = 0; cs < NCASE; cs++) {
        double s[64], sh[64]; memcpy(s, rate[cs], sizeof(double) * rounds); qsort(s, rounds, sizeof(double), cmpd);
        for (int r = 0; r < rounds; r++) sh[r] = rate[cs][r] / rate[PEAK][r];
        qsort(sh, rounds, sizeof(double), cmpd);
        printf("%-6s %6.1f (%.1f-%.1f)  share of the same round's peak: median %.0f%% (%.0f-%.0f%%)\n", names[cs], s[rounds / 2], s[0], s[rounds - 1],
               100 * sh[rounds / 2], 100 * sh[0], 100 * sh[rounds - 1]);
    }
    return 0;
}
