/* study harness: like bench/cpu_gemm/harness.c without BLAS; COLD=1 rewrites
 * x and W from the main thread and sleeps 30 ms before each timed call (as
 * kforge's parent redraws inputs and freezes the worker between runs);
 * prints the phase cycles of an instrumented variant 0 (kf_ph, weak). */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "kforge-cpu.h"
#define DECL(i) void kf_kernel_##i(const kf_cpu_args *a);
DECL(0) DECL(1) DECL(2) DECL(3)
extern uint64_t kf_ph[64][8] __attribute__((weak));
static kf_cpu_entry entries[4] = {kf_kernel_0, kf_kernel_1, kf_kernel_2, kf_kernel_3};
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
int main(int argc, char **argv)
{
    int64_t B = atoll(argv[1]), K = atoll(argv[2]), N = atoll(argv[3]);
    int nt = atoi(argv[4]), reps = atoi(argv[5]), nvar = atoi(argv[6]);
    int cold = getenv("COLD") && atoi(getenv("COLD"));
    unsigned long m = 0; uint32_t feats = 0;
    if (syscall(SYS_arch_prctl, 0x1023, 18) == 0 && syscall(SYS_arch_prctl, 0x1022, &m) == 0 && (m & (1ul << 18))) feats = KF_CPU_FEAT_AMX_BF16;
    float *x = aligned_alloc(64, B * K * 4), *w = aligned_alloc(64, N * K * 4), *bias = aligned_alloc(64, N * 4 + 64), *y = aligned_alloc(64, B * N * 4);
    for (int64_t i = 0; i < B * K; i++) x[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
    for (int64_t i = 0; i < N * K; i++) w[i] = (float)((i * 104729) % 1000) / 1000.0f - 0.5f;
    for (int64_t i = 0; i < N; i++) bias[i] = 0.01f * (float)(i % 10);
    const float *in[3] = {x, w, bias}; float *out[1] = {y};
    int64_t dims[3] = {B, K, N};
    float *scr[4][4]; int nscr[4];
    for (int v = 0; v < nvar; v++) {
        const char *s = argv[7 + v];
        for (nscr[v] = 0; nscr[v] < 4 && *s; nscr[v]++) { char *e; long long b = strtoll(s, &e, 10); scr[v][nscr[v]] = aligned_alloc(64, (b + 63) / 64 * 64 + 64); s = *e == ',' ? e + 1 : e; }
    }
    static double t[4][256]; static uint64_t ph[4][256][8]; static double ph_tmax[256][8];
    (void)ph;
    float *y0 = malloc(B * N * 4);
    for (int r = -1; r < reps; r++)
        for (int v = 0; v < nvar; v++) {
            if (cold && r >= 0) {
                float f = 1.0f + 1e-6f * r;
                for (int64_t i = 0; i < B * K; i++) x[i] *= f;
                for (int64_t i = 0; i < N * K; i++) w[i] *= f;
                usleep(30000);
            }
            kf_cpu_args a = {in, out, scr[v], dims, 3, 1, nscr[v], 3, nt, feats};
            double t0 = now(); entries[v](&a); double dt = now() - t0;
            if (r >= 0) t[v][r] = dt;
            if (r >= 0 && v == 0 && &kf_ph != NULL) {
                for (int k = 0; k < 7; k++) { uint64_t mx = 0; double s = 0; for (int i = 0; i < nt; i++) { s += kf_ph[i][k]; if (kf_ph[i][k] > mx) mx = kf_ph[i][k]; } ph_tmax[r][k] = s / nt; ph[0][r][k] = mx; }
                printf("  rep %d %.3f ms phases (avg/max Mcyc over threads): fork %.3f/%.3f packA %.3f/%.3f packB %.3f/%.3f wait %.3f/%.3f tiles %.3f/%.3f busy %.3f/%.3f join %.3f/%.3f\n", r, dt * 1e3,
                       ph_tmax[r][0] / 1e6, ph[0][r][0] / 1e6, ph_tmax[r][1] / 1e6, ph[0][r][1] / 1e6, ph_tmax[r][2] / 1e6, ph[0][r][2] / 1e6, ph_tmax[r][3] / 1e6, ph[0][r][3] / 1e6,
                       ph_tmax[r][4] / 1e6, ph[0][r][4] / 1e6, ph_tmax[r][5] / 1e6, ph[0][r][5] / 1e6, ph_tmax[r][6] / 1e6, ph[0][r][6] / 1e6);
            }
            if (r == -1) {
                if (v == 0) memcpy(y0, y, B * N * 4);
                double d = 0, mm = 0;
                for (int64_t i = 0; i < B * N; i++) { double e = fabs((double)y[i] - y0[i]); d = e > d || e != e ? e : d; mm = fabs(y0[i]) > mm ? fabs(y0[i]) : mm; }
                if (v) printf("  %s: max|diff| to %s %.2g of max|y|\n", argv[7 + nvar + v], argv[7 + nvar], d / mm);
            }
        }
    double fl = 2.0 * B * N * K;
    for (int v = 0; v < nvar; v++) {
        qsort(t[v], reps, sizeof(double), cmp);
        printf("%s nt %d%s: min %.3f ms median %.3f ms (%.0f GFLOP/s at the median)\n", argv[7 + nvar + v], nt, cold ? " cold" : "", t[v][0] * 1e3, t[v][reps / 2] * 1e3, fl / t[v][reps / 2] / 1e9);
    }
    return 0;
}
