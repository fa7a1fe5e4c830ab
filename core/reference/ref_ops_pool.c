/*
 * ref_ops_pool.c — max_pool1d / avg_pool1d over the last dim, PyTorch
 * defaults: floor mode, implicit -inf padding for max, and avg dividing
 * by kernel_size (count_include_pad=True).
 */
#include <config.h>

#include <math.h>

#include "ref_internal.h"

typedef struct pool_job {
    const double *x;
    double *y;
    long L, Lout;
    int k, s, p, is_max;
} pool_job;

static void pool_rows(void *ctx, long begin, long end)
{
    const pool_job *j = ctx;
    for (long r = begin; r < end; r++) {
        const double *p = j->x + r * j->L;
        double *q = j->y + r * j->Lout;
        for (long o = 0; o < j->Lout; o++) {
            long start = o * j->s - j->p;
            double acc = j->is_max ? -INFINITY : 0.0;
            for (long t = start; t < start + j->k; t++) {
                if (t < 0 || t >= j->L)
                    continue;          /* padding: -inf for max, 0 for avg */
                double v = p[t];
                if (j->is_max)
                    acc = isnan(v) || v > acc ? v : acc;
                else
                    acc += v;
            }
            q[o] = j->is_max ? acc : acc / (double)j->k;
        }
    }
}

int kf_ref_pool1d(kf_op op, const double *x, const kf_shape *sx, int kernel_size,
                  int stride, int padding, double *y, const kf_shape *sy, int n_threads,
                  kf_error *err)
{
    char s1[96], s2[96];
    if (op != KF_OP_MAX_POOL1D && op != KF_OP_AVG_POOL1D)
        return kf_fail(err, KF_E_BAD_INPUT, "reference: op %d is not a 1-d pooling", (int)op);
    const char *name = op == KF_OP_MAX_POOL1D ? "max_pool1d" : "avg_pool1d";
    if (sx->rank < 1 || sy->rank != sx->rank)
        return kf_fail(err, KF_E_BAD_INPUT, "%s: input %s and output %s must have the same rank >= 1",
                       name, kf_ref_shape_str(sx, s1, sizeof s1),
                       kf_ref_shape_str(sy, s2, sizeof s2));
    if (kernel_size < 1 || stride < 1 || padding < 0 || 2 * padding > kernel_size)
        return kf_fail(err, KF_E_BAD_INPUT, "%s: kernel_size %d, stride %d, padding %d: need kernel_size "
                       ">= 1, stride >= 1 and 0 <= padding <= kernel_size/2", name,
                       kernel_size, stride, padding);
    long L = (long)sx->d[sx->rank - 1];
    long span = L + 2L * padding - kernel_size;
    long Lout = span < 0 ? 0 : span / stride + 1;
    if (sy->d[sy->rank - 1] != Lout || kf_ref_elems(sx) / (L ? L : 1) != kf_ref_elems(sy) / (Lout ? Lout : 1))
        return kf_fail(err, KF_E_BAD_INPUT, "%s: output %s does not match input %s (last dim must be %ld)",
                       name, kf_ref_shape_str(sy, s1, sizeof s1),
                       kf_ref_shape_str(sx, s2, sizeof s2), Lout);
    long rows = L ? (long)(kf_ref_elems(sx) / L) : 0;
    pool_job j = {x, y, L, Lout, kernel_size, stride, padding, op == KF_OP_MAX_POOL1D};
    kf_parallel(rows, 32768 / (Lout * (long)kernel_size + 1) + 1, n_threads, pool_rows, &j);
    return 0;
}
