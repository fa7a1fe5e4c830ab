/*
 * kf_gemm.h — a cache-blocked, OpenMP-parallel float GEMM for cpu-simd
 * candidates, with the bias and an elementwise epilogue fused into the
 * final write of each register tile:
 *
 *     C[i, j] = epi(sum_k A[i, k] * W[j, k] + bias[j])      (A · Wᵀ, nn.Linear)
 *
 * A is M×K, W is N×K (both row-major, K contiguous), C is M×N with row
 * stride ldc.  bias and epi may be NULL.  epi(c, i, j, n, ctx) gets a row
 * segment c[0..n) = C[i, j..j+n) once its sums are complete.
 *
 * Blocking (BLIS style): for each K block of KC, A and W are packed into
 * MR-row and NR-column micro-panels shared by all threads; then threads
 * take MC×NC tiles of C dynamically; a micro-kernel keeps an MR×NR tile in
 * vector registers over the K block.  Identical copies of this file live
 * in every hand-written cpu-simd candidate that needs a GEMM.
 */
#ifndef KF_GEMM_H
#define KF_GEMM_H

#include <stdlib.h>
#include <string.h>

#if defined(__AVX512F__)
#define KF_VL 16
#else
#define KF_VL 8
#endif
#define KF_MR 6
#define KF_NR (2 * KF_VL)
#define KF_KC 256
#define KF_MC (KF_MR * 16)
#define KF_NC (KF_NR * 8)

typedef float kf_vf __attribute__((vector_size(KF_VL * 4)));
typedef float kf_vfu __attribute__((vector_size(KF_VL * 4), aligned(4)));
typedef void (*kf_epi_fn)(float *c, long i, long j, int n, const void *ctx);

static inline long kf_min(long a, long b) { return a < b ? a : b; }

/* Ap[k*MR + r] = A[i0 + r, k0 + k], zero past the last row. */
static void kf_pack_a(float *Ap, const float *A, long K, long M, long i0, long k0, long kc)
{
    for (int r = 0; r < KF_MR; r++) {
        if (i0 + r < M)
            for (long k = 0; k < kc; k++)
                Ap[k * KF_MR + r] = A[(i0 + r) * K + k0 + k];
        else
            for (long k = 0; k < kc; k++)
                Ap[k * KF_MR + r] = 0.0f;
    }
}

/* Bp[k*NR + c] = W[j0 + c, k0 + k], zero past the last column. */
static void kf_pack_b(float *Bp, const float *W, long K, long N, long j0, long k0, long kc)
{
    for (int c = 0; c < KF_NR; c++) {
        if (j0 + c < N)
            for (long k = 0; k < kc; k++)
                Bp[k * KF_NR + c] = W[(j0 + c) * K + k0 + k];
        else
            for (long k = 0; k < kc; k++)
                Bp[k * KF_NR + c] = 0.0f;
    }
}

/* One MR×NR tile of C at (i, j), mr×nr of it valid, over one K block. */
static void kf_micro(long kc, const float *Ap, const float *Bp, float *C, long ldc, long i,
                     long j, int mr, int nr, int first, int last, const float *bias,
                     kf_epi_fn epi, const void *ctx)
{
    kf_vf acc[KF_MR][2];
    float tile[KF_MR][KF_NR] __attribute__((aligned(64)));
    for (int r = 0; r < KF_MR; r++)
        acc[r][0] = acc[r][1] = (kf_vf){0};
    for (long k = 0; k < kc; k++) {
        kf_vf b0 = *(const kf_vf *)(Bp + k * KF_NR);
        kf_vf b1 = *(const kf_vf *)(Bp + k * KF_NR + KF_VL);
        for (int r = 0; r < KF_MR; r++) {
            float a = Ap[k * KF_MR + r];
            acc[r][0] += a * b0;
            acc[r][1] += a * b1;
        }
    }
    for (int r = 0; r < KF_MR; r++) {
        *(kf_vf *)&tile[r][0] = acc[r][0];
        *(kf_vf *)&tile[r][KF_VL] = acc[r][1];
    }
    for (int r = 0; r < mr; r++) {
        float *c = C + (i + r) * ldc + j;
        if (nr == KF_NR) {
            kf_vf v0 = acc[r][0], v1 = acc[r][1];
            if (!first) {
                v0 += *(const kf_vfu *)c;
                v1 += *(const kf_vfu *)(c + KF_VL);
            }
            if (last && bias) {
                v0 += *(const kf_vfu *)(bias + j);
                v1 += *(const kf_vfu *)(bias + j + KF_VL);
            }
            *(kf_vfu *)c = v0;
            *(kf_vfu *)(c + KF_VL) = v1;
        } else {
            for (int q = 0; q < nr; q++)
                c[q] = tile[r][q] + (first ? 0.0f : c[q]) + (last && bias ? bias[j + q] : 0.0f);
        }
        if (last && epi)
            epi(c, i + r, j, nr, ctx);
    }
}

/* C = epi(A · Wᵀ + bias); see the header comment.  Returns 0, or -1 when
 * the packing buffers could not be allocated (C is then untouched). */
static int kf_gemm_nt(const float *A, const float *W, const float *bias, float *C, long ldc,
                      long M, long N, long K, kf_epi_fn epi, const void *ctx, int nthreads)
{
    long mp = (M + KF_MR - 1) / KF_MR, np = (N + KF_NR - 1) / KF_NR;
    long tiles_m = (M + KF_MC - 1) / KF_MC, tiles_n = (N + KF_NC - 1) / KF_NC;
    size_t abytes = ((size_t)(mp * KF_MR * KF_KC) * 4 + 63) / 64 * 64;
    size_t bbytes = ((size_t)(np * KF_NR * KF_KC) * 4 + 63) / 64 * 64;
    float *Ap = aligned_alloc(64, abytes), *Bp = aligned_alloc(64, bbytes);
    if (!Ap || !Bp) {
        free(Ap);
        free(Bp);
        return -1;
    }
    if (K == 0) {   /* empty sum: bias and epilogue only */
        memset(Ap, 0, abytes);
        memset(Bp, 0, bbytes);
    }
#pragma omp parallel num_threads(nthreads)
    for (long k0 = 0; k0 < (K ? K : 1); k0 += KF_KC) {
        long kc = kf_min(KF_KC, K - k0);
        int first = k0 == 0, last = k0 + KF_KC >= K;
        if (K) {
#pragma omp for schedule(static)
            for (long p = 0; p < mp; p++)
                kf_pack_a(Ap + p * KF_MR * kc, A, K, M, p * KF_MR, k0, kc);
#pragma omp for schedule(static)
            for (long q = 0; q < np; q++)
                kf_pack_b(Bp + q * KF_NR * kc, W, K, N, q * KF_NR, k0, kc);
        }
#pragma omp for collapse(2) schedule(dynamic)
        for (long tm = 0; tm < tiles_m; tm++)
            for (long tn = 0; tn < tiles_n; tn++) {
                long i_end = kf_min(M, (tm + 1) * KF_MC), j_end = kf_min(N, (tn + 1) * KF_NC);
                for (long j = tn * KF_NC; j < j_end; j += KF_NR)
                    for (long i = tm * KF_MC; i < i_end; i += KF_MR)
                        kf_micro(kc, Ap + (i / KF_MR) * KF_MR * kc, Bp + (j / KF_NR) * KF_NR * kc,
                                 C, ldc, i, j, (int)kf_min(KF_MR, M - i),
                                 (int)kf_min(KF_NR, N - j), first, last, bias, epi, ctx);
            }
    }
    free(Ap);
    free(Bp);
    return 0;
}

#endif /* KF_GEMM_H */
