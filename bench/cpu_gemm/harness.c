/* bench/cpu_gemm/harness.c — times generated cpu-simd kernels and OpenBLAS
 * sgemm of the same shape in one process, for linear(x[B,K], W[N,K], b)
 * problems (Level-2 09, 12, 99): each kernel.c is compiled with
 * -Dkf_kernel=kf_kernel_<i> and linked in.  The variants run interleaved,
 * REPS rounds; the minimum and median per variant are printed (the minimum
 * is the steadiest figure on a machine shared with other work), and the
 * median CPU time of the process (all threads; with OMP_WAIT_POLICY=passive
 * it is the work done, whatever the other work on the machine took of the
 * wall time: GFLOP per CPU-second against one core's peak is the kernel's
 * efficiency on the cores it got).
 *
 *   harness B K N THREADS REPS SCRATCH_BYTES... NAME...   (NVAR of each, in order)
 * SCRATCH_BYTES: the sizes of a variant's scratch buffers (packed B, packed
 * A...), comma-separated, at most 4.  Its output is checked for NaN (a
 * kernel built for other sizes writes NaN); the warm-up round compares
 * every variant's output with the first variant's (the largest difference
 * relative to the largest |y| is printed: same problem, other points).
 * Each round also times the FMA peak on the same threads (fma_peak: 24
 * independent chains of 16-lane FMAs a thread, 12 of 8 lanes on AVX2; no
 * memory traffic), and every
 * line says its GFLOP per CPU-second as a share of that peak's, measured in
 * the same rounds: on a host whose clock moves with its other tenants'
 * load, the probe's peak from another hour is not the ceiling of this one. */
#if defined(__has_include)
#if __has_include(<cblas.h>) && !defined(KF_NO_BLAS)
#define KF_HAVE_CBLAS 1
#include <cblas.h>
#endif
#endif
#ifndef KF_HAVE_CBLAS   /* no OpenBLAS headers (the GPU machine's host): the variants only */
#define KF_HAVE_CBLAS 0
#endif
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "kforge-cpu.h"

#ifndef NVAR
#define NVAR 1
#endif
#define DECL(i) void kf_kernel_##i(const kf_cpu_args *a);
DECL(0) DECL(1) DECL(2) DECL(3)
static kf_cpu_entry entries[4] = {kf_kernel_0, kf_kernel_1, kf_kernel_2, kf_kernel_3};

/* The AMX tile state, asked for as the cpu-simd plugin does: an AMX
 * (precision 5) kernel returns without writing unless a->features says so. */
static uint32_t amx_features(void)
{
#if defined(__x86_64__)
    unsigned long m = 0;
    if (syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */, 18) == 0 &&
        syscall(SYS_arch_prctl, 0x1022 /* ARCH_GET_XCOMP_PERM */, &m) == 0 && (m & (1ul << 18)))
        return KF_CPU_FEAT_AMX_BF16;
#endif
    return 0;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double cpu_now(void)   /* CPU time of the whole process (every thread) */
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* nt threads, each iters x CHAINS independent chains of FMAs; returns a sum
 * so that nothing is optimised away.  AVX-512 where the CPU has it (24 chains
 * of 16 lanes: 768 FLOP an iteration, 26 of the 32 zmm registers), else AVX2
 * (12 chains of 8 lanes: 14 of the 16 ymm registers; with 24 GCC spilled
 * chains to the stack, and on a 2-core Zen 3 that "peak" read 65 GFLOP per
 * CPU-second against 98 GFLOP/s of the 6 x 16 micro-kernel on one core:
 * every GEMM above 100% of it).  Either covers the FMA latency x pipes of
 * these CPUs (4 x 2). */
typedef float kf_v16 __attribute__((vector_size(64)));
typedef float kf_v8 __attribute__((vector_size(32)));
#define R12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define R24(X) R12(X) X(12) X(13) X(14) X(15) X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23)
#define FMA_DECL(i) V a##i = (V){0} + (float)(i);
#define FMA_STEP(i) a##i = a##i * m + c;
#define FMA_SUM(i) s_ += a##i[0];
#define FMA_CHAINS(REP, iters, out)   /* V: the vector type, a typedef in scope */                                         \
    do {                                                                       \
        V m = (V){0} + 0.99999f, c = (V){0} + 1e-6f;                           \
        REP(FMA_DECL)                                                          \
        for (long it_ = 0; it_ < (iters); it_++) { REP(FMA_STEP) }             \
        float s_ = 0;                                                          \
        REP(FMA_SUM)                                                           \
        (out) = s_;                                                            \
    } while (0)
__attribute__((target("avx512f,fma"), noinline)) static float fma_chains512(long iters)
{
    float s;
    typedef kf_v16 V;
    FMA_CHAINS(R24, iters, s);
    return s;
}
__attribute__((target("avx2,fma"), noinline)) static float fma_chains256(long iters)
{
    float s;
    typedef kf_v8 V;
    FMA_CHAINS(R12, iters, s);
    return s;
}
static volatile float fma_sink;
static double fma_peak(int nt, long iters, int *lanes)
{
    int wide = __builtin_cpu_supports("avx512f");
    *lanes = wide ? 16 : 8;
    float s = 0;
    #pragma omp parallel num_threads(nt) reduction(+:s)
    s += wide ? fma_chains512(iters) : fma_chains256(iters);
    fma_sink = s;
    return 2.0 * (wide ? 24 : 12) * (double)*lanes * (double)iters * (double)nt;   /* FLOPs */
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 6 + NVAR) { fprintf(stderr, "usage: harness B K N THREADS REPS SCRATCH...\n"); return 2; }
    int64_t B = atoll(argv[1]), K = atoll(argv[2]), N = atoll(argv[3]);
    int nt = atoi(argv[4]), reps = atoi(argv[5]);
    float *x = aligned_alloc(64, (size_t)(B * K) * 4), *w = aligned_alloc(64, (size_t)(N * K) * 4);
    float *bias = aligned_alloc(64, (size_t)N * 4 + 64), *y = aligned_alloc(64, (size_t)(B * N) * 4);
    for (int64_t i = 0; i < B * K; i++) x[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
    for (int64_t i = 0; i < N * K; i++) w[i] = (float)((i * 104729) % 1000) / 1000.0f - 0.5f;
    for (int64_t i = 0; i < N; i++) bias[i] = 0.01f * (float)(i % 10);
    const float *in[3] = {x, w, bias};
    float *out[1] = {y};
    int64_t dims[3] = {B, K, N};   /* the problems' dim order: B, K, N */
    double t[6][256], c[6][256];   /* variants, OpenBLAS, the FMA peak */
    float *scr[NVAR][4];
    int nscr[NVAR];
    for (int v = 0; v < NVAR; v++) {
        const char *s = argv[6 + v];
        for (nscr[v] = 0; nscr[v] < 4 && *s; nscr[v]++) {
            char *end;
            long long bytes = strtoll(s, &end, 10);
            scr[v][nscr[v]] = aligned_alloc(64, ((size_t)bytes + 63) / 64 * 64 + 64);
            s = *end == ',' ? end + 1 : end;
        }
    }
    if (reps > 256) reps = 256;
    float *y0 = aligned_alloc(64, (size_t)(B * N) * 4);
    double diff[NVAR + 1] = {0};
#if KF_HAVE_CBLAS
    openblas_set_num_threads(nt);
#endif
    const uint32_t feats = amx_features();
    double flops = 2.0 * (double)B * (double)N * (double)K, peak_flops = 0;
    int lanes = 0;
    const double per_iter = __builtin_cpu_supports("avx512f") ? 2.0 * 24 * 16 : 2.0 * 12 * 8;   /* fma_peak's FLOPs a thread */
    long peak_iters = (long)(flops / (per_iter * nt) / 4);   /* about a quarter of a GEMM's FLOPs */
    for (int r = -1; r < reps; r++) {   /* r = -1: warm-up */
        for (int v = 0; v <= NVAR + 1; v++) {
            y[0] = y[B * N - 1] = NAN;   /* a kernel that writes nothing is caught below */
            double t0 = now(), c0 = cpu_now();
            if (v == NVAR + 1) {
                peak_flops = fma_peak(nt, peak_iters, &lanes);
                if (r >= 0) t[5][r] = now() - t0, c[5][r] = cpu_now() - c0;
                continue;
            }
            if (v == NVAR) {
                if (!KF_HAVE_CBLAS) continue;
#if KF_HAVE_CBLAS
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)B, (int)N, (int)K, 1.0f, x, (int)K, w,
                            (int)K, 0.0f, y, (int)N);
#endif
            } else {
                kf_cpu_args a = {in, out, scr[v], dims, 3, 1, nscr[v], 3, nt, feats};
                entries[v](&a);
            }
            if (r >= 0) t[v][r] = now() - t0, c[v][r] = cpu_now() - c0;
            if (r == -1 && v < NVAR) {   /* every variant's output against the first's */
                if (v == 0) memcpy(y0, y, (size_t)(B * N) * 4);
                double d = 0, m = 0;
                for (int64_t i = 0; i < B * N; i++) {
                    double e = fabs((double)y[i] - (double)y0[i]);
                    d = e > d || e != e ? e : d;
                    m = fabs((double)y0[i]) > m ? fabs((double)y0[i]) : m;
                }
                if (v > 0) diff[v] = d / (m > 0 ? m : 1);
            }
            if (y[0] != y[0] || y[B * N - 1] != y[B * N - 1]) {
                fprintf(stderr, "variant %d wrote NaN: built for other sizes?\n", v);
                return 1;
            }
        }
    }
    qsort(t[5], (size_t)reps, sizeof(double), cmp);
    qsort(c[5], (size_t)reps, sizeof(double), cmp);
    const double peak = peak_flops / c[5][reps / 2] / 1e9;   /* GFLOP per CPU-second: one core's rate */
    printf("fma-peak %d threads, %d lanes: %.1f GFLOP per CPU-second (median CPU time), %.1f GFLOP/s (min wall)\n", nt,
           lanes, peak, peak_flops / t[5][0] / 1e9);
    for (int v = 0; v < NVAR + KF_HAVE_CBLAS; v++) {
        qsort(t[v], (size_t)reps, sizeof(double), cmp);
        qsort(c[v], (size_t)reps, sizeof(double), cmp);
        const double rate = flops / c[v][reps / 2] / 1e9;
        printf("%s %.3f ms min %.3f ms median %.1f GFLOP/s (min); CPU time %.3f ms median, %.1f GFLOP per CPU-second "
               "(%.0f%% of fma-peak)",
               v == NVAR ? "openblas" : argv[6 + NVAR + v], t[v][0] * 1e3, t[v][reps / 2] * 1e3, flops / t[v][0] / 1e9,
               c[v][reps / 2] * 1e3, rate, 100.0 * rate / peak);
        if (v > 0 && v < NVAR) printf(" max|diff| to %s %.2g of max|y|", argv[6 + NVAR], diff[v]);
        printf("\n");
    }
    return 0;
}
