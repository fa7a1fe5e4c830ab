/*
 * ref_ops_matmul.c — matmul (PyTorch torch.matmul, batch dims broadcast,
 * optional transposed b) and linear (x W^T + bias) on top of the GEMM.
 */
#include <config.h>

#include <stdlib.h>

#include "ref_internal.h"

typedef struct mm_batch {
    const double *a, *b;
    double *y;
    long M, N, K;
    int trans_b;
    const int64_t *a_off, *b_off;   /* per output batch: matrix offsets */
} mm_batch;

static void mm_batch_range(void *ctx, long begin, long end)
{
    const mm_batch *m = ctx;
    long lda = m->K, ldb = m->trans_b ? m->K : m->N;
    for (long i = begin; i < end; i++)
        kf_ref_gemm_ex(m->a + m->a_off[i] * m->M * m->K, lda,
                       m->b + m->b_off[i] * m->K * m->N, ldb, m->trans_b,
                       m->y + i * m->M * m->N, m->N, m->M, m->N, m->K, 1);
}

int kf_ref_matmul(const double *a, const kf_shape *sa, const double *b, const kf_shape *sb,
                  int transpose_b, double *y, const kf_shape *sy, int n_threads,
                  kf_error *err)
{
    char s1[96], s2[96], s3[96];
    if (sa->rank < 1 || sb->rank < 1)
        return kf_fail(err, KF_E_BAD_INPUT, "matmul: operands must have rank >= 1, got %s and %s",
                       kf_ref_shape_str(sa, s1, sizeof s1), kf_ref_shape_str(sb, s2, sizeof s2));
    /* matrices and batch dims of each operand */
    long M = sa->rank == 1 ? 1 : sa->d[sa->rank - 2];
    long Ka = sa->d[sa->rank - 1];
    long Kb, N;
    int b_trans = transpose_b;
    if (sb->rank == 1) {
        Kb = sb->d[0];
        N = 1;
        b_trans = 0;
    } else if (transpose_b) {
        N = sb->d[sb->rank - 2];
        Kb = sb->d[sb->rank - 1];
    } else {
        Kb = sb->d[sb->rank - 2];
        N = sb->d[sb->rank - 1];
    }
    if (Ka != Kb)
        return kf_fail(err, KF_E_BAD_INPUT, "matmul: inner dims differ: %s @ %s%s",
                       kf_ref_shape_str(sa, s1, sizeof s1), kf_ref_shape_str(sb, s2, sizeof s2),
                       transpose_b ? " (transpose_b)" : "");
    int ra = sa->rank > 2 ? sa->rank - 2 : 0, rb = sb->rank > 2 ? sb->rank - 2 : 0;
    int rb_out = ra > rb ? ra : rb;
    int64_t bshape[KF_MAX_RANK] = {0};
    for (int k = 0; k < rb_out; k++) {
        int ia = k - (rb_out - ra), ib = k - (rb_out - rb);
        int64_t da = ia >= 0 ? sa->d[ia] : 1, db = ib >= 0 ? sb->d[ib] : 1;
        if (da != db && da != 1 && db != 1)
            return kf_fail(err, KF_E_BAD_INPUT, "matmul: batch dims of %s and %s do not broadcast",
                           kf_ref_shape_str(sa, s1, sizeof s1),
                           kf_ref_shape_str(sb, s2, sizeof s2));
        bshape[k] = da > db ? da : db;
    }
    int64_t n_batch = 1;
    for (int k = 0; k < rb_out; k++)
        n_batch *= bshape[k];
    if (kf_ref_elems(sy) != n_batch * M * N)
        return kf_fail(err, KF_E_BAD_INPUT, "matmul: output shape %s does not match %s @ %s",
                       kf_ref_shape_str(sy, s1, sizeof s1), kf_ref_shape_str(sa, s2, sizeof s2),
                       kf_ref_shape_str(sb, s3, sizeof s3));
    long lda = Ka, ldb = b_trans ? Kb : N;
    int64_t a_batch = 1, b_batch = 1;
    for (int k = 0; k < ra; k++)
        a_batch *= sa->d[k];
    for (int k = 0; k < rb; k++)
        b_batch *= sb->d[k];
    if (b_batch == 1 && a_batch == n_batch) {
        /* b shared by every batch: one tall GEMM */
        kf_ref_gemm_ex(a, lda, b, ldb, b_trans, y, N, (long)(n_batch * M), N, Ka, n_threads);
        return 0;
    }
    int64_t *a_off = malloc(sizeof(int64_t) * (size_t)n_batch);
    int64_t *b_off = malloc(sizeof(int64_t) * (size_t)n_batch);
    if (!a_off || !b_off) {
        free(a_off);
        free(b_off);
        return kf_fail(err, KF_E_INTERNAL, "matmul: out of memory for %lld batch offsets",
                       (long long)n_batch);
    }
    /* matrix offsets of a and b for each output batch (broadcast dims: 0) */
    for (int64_t i = 0; i < n_batch; i++) {
        int64_t rem = i, oa = 0, ob = 0, stride_a = 1, stride_b = 1;
        for (int k = rb_out - 1; k >= 0; k--) {
            int64_t idx = rem % bshape[k];
            rem /= bshape[k];
            int ia = k - (rb_out - ra), ib = k - (rb_out - rb);
            if (ia >= 0) {
                if (sa->d[ia] != 1)
                    oa += idx * stride_a;
                stride_a *= sa->d[ia];
            }
            if (ib >= 0) {
                if (sb->d[ib] != 1)
                    ob += idx * stride_b;
                stride_b *= sb->d[ib];
            }
        }
        a_off[i] = oa;
        b_off[i] = ob;
    }
    mm_batch mb = {a, b, y, M, N, Ka, b_trans, a_off, b_off};
    double per_batch = 2.0 * (double)M * (double)N * (double)Ka;
    if (per_batch < 4e6) {
        kf_parallel((long)n_batch, 1, per_batch * (double)n_batch < 4e6 ? 1 : n_threads,
                        mm_batch_range, &mb);
    } else {
        for (int64_t i = 0; i < n_batch; i++)
            kf_ref_gemm_ex(a + a_off[i] * M * Ka, lda, b + b_off[i] * Ka * N, ldb, b_trans,
                           y + i * M * N, N, M, N, Ka, n_threads);
    }
    free(a_off);
    free(b_off);
    return 0;
}

int kf_ref_linear(const double *x, const kf_shape *sx, const double *w, const kf_shape *sw,
                  const double *bias, const kf_shape *sbias, double *y, const kf_shape *sy,
                  int n_threads, kf_error *err)
{
    char s1[96], s2[96];
    if (sx->rank < 1 || sw->rank != 2 || sx->d[sx->rank - 1] != sw->d[1])
        return kf_fail(err, KF_E_BAD_INPUT, "linear: x %s and weight %s do not fit (weight must be (N, K))",
                       kf_ref_shape_str(sx, s1, sizeof s1), kf_ref_shape_str(sw, s2, sizeof s2));
    long K = sw->d[1], N = sw->d[0];
    long M = K > 0 ? (long)(kf_ref_elems(sx) / K) : 0;
    if (bias && kf_ref_elems(sbias) != N)
        return kf_fail(err, KF_E_BAD_INPUT, "linear: bias %s must have N = %ld elements",
                       kf_ref_shape_str(sbias, s1, sizeof s1), N);
    if (kf_ref_elems(sy) != (int64_t)M * N)
        return kf_fail(err, KF_E_BAD_INPUT, "linear: output shape %s does not match %ld x %ld",
                       kf_ref_shape_str(sy, s1, sizeof s1), M, N);
    kf_ref_gemm_ex(x, K, w, K, 1, y, N, M, N, K, n_threads);
    if (bias)
        for (long i = 0; i < M; i++)
            for (long j = 0; j < N; j++)
                y[i * N + j] += bias[j];
    return 0;
}
