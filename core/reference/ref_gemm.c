/*
 * ref_gemm.c — the blocked, multi-threaded double GEMM of the reference.
 *
 * Classic three-level blocking (Goto/BLIS): panels of B (KC x NC) and of A
 * (MC x KC) are packed into contiguous slivers, and a 6x8 register-tile
 * micro-kernel written with GCC vector extensions runs over them.  The
 * micro-kernel is compiled twice: once for the baseline ISA the library is
 * built for and once for AVX2+FMA, chosen at run time with
 * __builtin_cpu_supports (libkforge is built with plain -O2, no -march).
 *
 * Threads split C into disjoint row ranges (or column ranges when C has
 * few rows); each thread packs its own panels.  The K loop is blocked the
 * same way whatever the split, so every thread count yields bitwise-equal
 * results.
 *
 * Large products (at least KF_REF_BLAS_FLOPS) go to OpenBLAS's cblas_dgemm
 * when libopenblas can be loaded: at the kernelbench presets the reference
 * is most of an evaluation's time (11 checked timed runs and 5 trials, each
 * a 1024x8192x8192 or larger product), and a tuned DGEMM with shared
 * packing is several times faster than this one.  Still IEEE double with
 * the same inputs; its rounding may differ from the blocked path's in the
 * last bits, far below any tolerance.  OpenBLAS is loaded with dlopen on
 * first use, never linked: libkforge is also the worker's library, and a
 * linked OpenBLAS starts its thread pool when the worker starts, before
 * the sandbox (seccomp and Landlock bind the threads that exist after
 * they are applied, so those threads would run unconfined).  Only the
 * parent computes references.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "reference.h"
#include "ref_internal.h"
#include "util/blas_env.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>

#define KF_REF_BLAS_FLOPS 2e9

/* cblas_dgemm's enums: CblasRowMajor 101, CblasNoTrans 111, CblasTrans 112 */
typedef void (*dgemm_fn)(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a,
                         int lda, const double *b, int ldb, double beta, double *c, int ldc);
typedef void (*set_threads_fn)(int n);
static dgemm_fn blas_dgemm;
static set_threads_fn blas_set_threads;
static pthread_once_t blas_once = PTHREAD_ONCE_INIT;

/* OpenBLAS's idle threads spin for 2^28 cycles (about 0.1 s) after every
 * call before they sleep: after the reference of a checked run they took
 * the CPUs from the candidate's next timed runs (a 2-core VM: 103 ms of CPU
 * in a 200 ms pause after one DGEMM; 0 with the shortest timeout).  So they
 * spin 2^4 cycles, OpenBLAS's least, unless the user set
 * OPENBLAS_THREAD_TIMEOUT; read when the library loads, as is the kernel
 * set (OPENBLAS_CORETYPE, util/blas_env.c).  The worker's environment is
 * the one kforge started with, so this stays in the parent (the worker sets
 * its own kernel set). */
static void blas_load(void)
{
    static const char *const names[] = {"libopenblas.so.0", "libopenblas.so"};
    setenv("OPENBLAS_THREAD_TIMEOUT", "4", 0);   /* 0: a value the user set stays */
    kf_openblas_env_default();   /* the kernels for this CPU's ISA (util/blas_env.c) */
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!h) continue;
        dgemm_fn d = (dgemm_fn)dlsym(h, "cblas_dgemm");
        set_threads_fn t = (set_threads_fn)dlsym(h, "openblas_set_num_threads");
        if (d && t) {
            blas_dgemm = d;
            blas_set_threads = t;
            return;           /* kept loaded for the process's life */
        }
        dlclose(h);
    }
}

#define MR 6
#define NR 8
#define KC 256
#define MC 96     /* multiple of MR */
#define NC 1024   /* multiple of NR */

typedef double v4d __attribute__((vector_size(32)));
typedef double v4d_u __attribute__((vector_size(32), aligned(8), may_alias));

typedef void (*ukernel_fn)(long kc, const double *a, const double *b, double *c, long ldc,
                           int accumulate, int mr, int nr);

/* acc(6x8) = sum_p a[p*MR + i] * b[p*NR + j]; then C = acc or C += acc.
 * a and b are packed, 32-byte aligned. */
static inline __attribute__((always_inline)) void
ukernel_body(long kc, const double *restrict a, const double *restrict b, double *restrict c,
             long ldc, int accumulate, int mr, int nr)
{
    v4d c0a = {0}, c0b = {0}, c1a = {0}, c1b = {0}, c2a = {0}, c2b = {0};
    v4d c3a = {0}, c3b = {0}, c4a = {0}, c4b = {0}, c5a = {0}, c5b = {0};
    for (long p = 0; p < kc; p++) {
        const v4d b0 = *(const v4d *)(b + p * NR);
        const v4d b1 = *(const v4d *)(b + p * NR + 4);
        const double *ap = a + p * MR;
        c0a += ap[0] * b0; c0b += ap[0] * b1;
        c1a += ap[1] * b0; c1b += ap[1] * b1;
        c2a += ap[2] * b0; c2b += ap[2] * b1;
        c3a += ap[3] * b0; c3b += ap[3] * b1;
        c4a += ap[4] * b0; c4b += ap[4] * b1;
        c5a += ap[5] * b0; c5b += ap[5] * b1;
    }
    v4d acc[MR][2] = {{c0a, c0b}, {c1a, c1b}, {c2a, c2b}, {c3a, c3b}, {c4a, c4b}, {c5a, c5b}};
    if (mr == MR && nr == NR) {
        for (int i = 0; i < MR; i++) {
            v4d_u *row = (v4d_u *)(c + i * ldc);
            if (accumulate) {
                row[0] += acc[i][0];
                row[1] += acc[i][1];
            } else {
                row[0] = acc[i][0];
                row[1] = acc[i][1];
            }
        }
        return;
    }
    double tile[MR * NR];
    memcpy(tile, acc, sizeof tile);
    for (int i = 0; i < mr; i++)
        for (int j = 0; j < nr; j++) {
            if (accumulate)
                c[i * ldc + j] += tile[i * NR + j];
            else
                c[i * ldc + j] = tile[i * NR + j];
        }
}

/* Baseline ISA (SSE2 on x86-64: 16 vector registers): the 6x8 tile in two
 * 6x4 halves so that the accumulators do not spill.  Same packed layout,
 * same summation order per element as ukernel_body. */
static void ukernel_base(long kc, const double *restrict a, const double *restrict b,
                         double *restrict c, long ldc, int accumulate, int mr, int nr)
{
    double tile[MR * NR];
    for (int h = 0; h < 2; h++) {
        v4d c0 = {0}, c1 = {0}, c2 = {0}, c3 = {0}, c4 = {0}, c5 = {0};
        const double *bh = b + 4 * h;
        for (long p = 0; p < kc; p++) {
            const v4d bv = *(const v4d *)(bh + p * NR);
            const double *ap = a + p * MR;
            c0 += ap[0] * bv;
            c1 += ap[1] * bv;
            c2 += ap[2] * bv;
            c3 += ap[3] * bv;
            c4 += ap[4] * bv;
            c5 += ap[5] * bv;
        }
        v4d acc[MR] = {c0, c1, c2, c3, c4, c5};
        for (int i = 0; i < MR; i++)
            memcpy(tile + i * NR + 4 * h, &acc[i], sizeof acc[i]);
    }
    for (int i = 0; i < mr; i++)
        for (int j = 0; j < nr; j++) {
            if (accumulate)
                c[i * ldc + j] += tile[i * NR + j];
            else
                c[i * ldc + j] = tile[i * NR + j];
        }
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2,fma")))
static void ukernel_avx2(long kc, const double *a, const double *b, double *c, long ldc,
                         int accumulate, int mr, int nr)
{
    ukernel_body(kc, a, b, c, ldc, accumulate, mr, nr);
}
#endif

static ukernel_fn pick_ukernel(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return ukernel_avx2;
#endif
    return ukernel_base;
}

typedef struct gemm_args {
    const double *A, *B;
    double *C;
    long lda, ldb, ldc, M, N, K;
    int trans_b;
    int split_rows;     /* partition units are MR-row slivers, else NR-column slivers */
    ukernel_fn kern;
} gemm_args;

/* bp[s][p][j] = op(B)[pc + p][jc + s*NR + j], zero past nc. */
static void pack_b(const gemm_args *g, long pc, long kc, long jc, long nc, double *bp)
{
    for (long s = 0; s * NR < nc; s++) {
        double *dst = bp + s * kc * NR;
        long j0 = jc + s * NR;
        long nj = nc - s * NR < NR ? nc - s * NR : NR;
        if (!g->trans_b) {
            for (long p = 0; p < kc; p++) {
                const double *src = g->B + (pc + p) * g->ldb + j0;
                long j = 0;
                for (; j < nj; j++)
                    dst[p * NR + j] = src[j];
                for (; j < NR; j++)
                    dst[p * NR + j] = 0.0;
            }
        } else {
            long j = 0;
            for (; j < nj; j++) {
                const double *src = g->B + (j0 + j) * g->ldb + pc;
                for (long p = 0; p < kc; p++)
                    dst[p * NR + j] = src[p];
            }
            for (; j < NR; j++)
                for (long p = 0; p < kc; p++)
                    dst[p * NR + j] = 0.0;
        }
    }
}

/* ap[s][p][i] = A[ic + s*MR + i][pc + p], zero past mc. */
static void pack_a(const gemm_args *g, long ic, long mc, long pc, long kc, double *ap)
{
    for (long s = 0; s * MR < mc; s++) {
        double *dst = ap + s * kc * MR;
        long i0 = ic + s * MR;
        long ni = mc - s * MR < MR ? mc - s * MR : MR;
        long i = 0;
        for (; i < ni; i++) {
            const double *src = g->A + (i0 + i) * g->lda + pc;
            for (long p = 0; p < kc; p++)
                dst[p * MR + i] = src[p];
        }
        for (; i < MR; i++)
            for (long p = 0; p < kc; p++)
                dst[p * MR + i] = 0.0;
    }
}

/* Unblocked fallback for a region when the pack buffers cannot be had
 * (correct, slow; rounding may differ from the blocked path). */
static void region_naive(const gemm_args *g, long m0, long m1, long n0, long n1)
{
    for (long i = m0; i < m1; i++)
        for (long j = n0; j < n1; j++) {
            double s = 0.0;
            for (long p = 0; p < g->K; p++) {
                double b = g->trans_b ? g->B[j * g->ldb + p] : g->B[p * g->ldb + j];
                s += g->A[i * g->lda + p] * b;
            }
            g->C[i * g->ldc + j] = s;
        }
}

static void region(const gemm_args *g, long m0, long m1, long n0, long n1)
{
    double *ap = aligned_alloc(64, sizeof(double) * MC * KC);
    double *bp = aligned_alloc(64, sizeof(double) * KC * NC);
    if (!ap || !bp) {
        free(ap);
        free(bp);
        region_naive(g, m0, m1, n0, n1);
        return;
    }
    for (long jc = n0; jc < n1; jc += NC) {
        long nc = n1 - jc < NC ? n1 - jc : NC;
        for (long pc = 0; pc < g->K; pc += KC) {
            long kc = g->K - pc < KC ? g->K - pc : KC;
            pack_b(g, pc, kc, jc, nc, bp);
            for (long ic = m0; ic < m1; ic += MC) {
                long mc = m1 - ic < MC ? m1 - ic : MC;
                pack_a(g, ic, mc, pc, kc, ap);
                for (long jr = 0; jr < nc; jr += NR) {
                    int nr = nc - jr < NR ? (int)(nc - jr) : NR;
                    for (long ir = 0; ir < mc; ir += MR) {
                        int mr = mc - ir < MR ? (int)(mc - ir) : MR;
                        g->kern(kc, ap + (ir / MR) * kc * MR, bp + (jr / NR) * kc * NR,
                                g->C + (ic + ir) * g->ldc + jc + jr, g->ldc, pc > 0, mr, nr);
                    }
                }
            }
        }
    }
    free(ap);
    free(bp);
}

static void region_range(void *ctx, long begin, long end)
{
    const gemm_args *g = ctx;
    if (g->split_rows) {
        long m0 = begin * MR, m1 = end * MR < g->M ? end * MR : g->M;
        region(g, m0, m1, 0, g->N);
    } else {
        long n0 = begin * NR, n1 = end * NR < g->N ? end * NR : g->N;
        region(g, 0, g->M, n0, n1);
    }
}

void kf_ref_gemm_ex(const double *A, long lda, const double *B, long ldb, int trans_b,
                    double *C, long ldc, long M, long N, long K, int n_threads)
{
    if (M <= 0 || N <= 0)
        return;
    if (K <= 0) {
        for (long i = 0; i < M; i++)
            memset(C + i * ldc, 0, sizeof(double) * (size_t)N);
        return;
    }
    gemm_args g = {A, B, C, lda, ldb, ldc, M, N, K, trans_b, 1, pick_ukernel()};
    int nt = kf_parallel_threads(n_threads);
    double flops = 2.0 * (double)M * (double)N * (double)K;
    if (flops >= KF_REF_BLAS_FLOPS && M < INT_MAX && N < INT_MAX && K < INT_MAX && lda < INT_MAX &&
        ldb < INT_MAX && ldc < INT_MAX && getenv("KFORGE_REF_NO_BLAS") == NULL) {
        pthread_once(&blas_once, blas_load);
        if (blas_dgemm) {
            blas_set_threads(nt);
            blas_dgemm(101, 111, trans_b ? 112 : 111, (int)M, (int)N, (int)K, 1.0, A, (int)lda, B, (int)ldb, 0.0,
                       C, (int)ldc);
            return;
        }
    }
    if (flops < 4e6)
        nt = 1;
    long row_units = (M + MR - 1) / MR, col_units = (N + NR - 1) / NR;
    /* rows when every thread gets a few slivers, else columns */
    g.split_rows = row_units >= 4L * nt || row_units >= col_units;
    long units = g.split_rows ? row_units : col_units;
    kf_parallel(units, 1, nt, region_range, &g);
}

void kf_ref_gemm(const double *A, const double *B, double *C, long M, long N, long K,
                 int trans_b, int n_threads)
{
    kf_ref_gemm_ex(A, K, B, trans_b ? K : N, trans_b, C, N, M, N, K, n_threads);
}
