/*
 * ref_norm.c — layer_norm, rms_norm, group_norm, instance_norm and
 * batch_norm in double precision.  Statistics are two-pass (mean, then
 * the biased variance of the centred values), as PyTorch computes them.
 */
#include <config.h>

#include <math.h>
#include <stdlib.h>

#include "ref_internal.h"

#define NORM_MIN_ELEMS 32768

static long min_items(long elems_per_item)
{
    return elems_per_item >= NORM_MIN_ELEMS ? 1 : NORM_MIN_ELEMS / (elems_per_item > 0 ? elems_per_item : 1);
}

/* ------------------------------------------------------- layer / rms */

typedef struct row_job {
    const double *x, *w, *b;
    double *y;
    long len;
    double eps;
    int rms;
} row_job;

static void layer_rows(void *ctx, long begin, long end)
{
    const row_job *j = ctx;
    long n = j->len;
    for (long r = begin; r < end; r++) {
        const double *p = j->x + r * n;
        double *q = j->y + r * n;
        double mean = 0.0, var = 0.0;
        if (j->rms) {
            for (long i = 0; i < n; i++)
                var += p[i] * p[i];
            var /= (double)n;
        } else {
            for (long i = 0; i < n; i++)
                mean += p[i];
            mean /= (double)n;
            for (long i = 0; i < n; i++)
                var += (p[i] - mean) * (p[i] - mean);
            var /= (double)n;
        }
        double rstd = 1.0 / sqrt(var + j->eps);
        for (long i = 0; i < n; i++) {
            double v = (p[i] - mean) * rstd;
            if (j->w)
                v *= j->w[i];
            if (j->b && !j->rms)
                v += j->b[i];
            q[i] = v;
        }
    }
}

int kf_ref_layer_norm(const double *x, const kf_shape *sx, int ndims, const double *w,
                      const double *b, double eps, int rms, double *y, int n_threads,
                      kf_error *err)
{
    char s1[96];
    if (ndims < 1 || ndims > sx->rank)
        return kf_fail(err, KF_E_BAD_INPUT, "%s: normalized_dims %d must be in 1..%d for shape %s",
                       rms ? "rms_norm" : "layer_norm", ndims, sx->rank,
                       kf_ref_shape_str(sx, s1, sizeof s1));
    long len = 1;
    for (int k = sx->rank - ndims; k < sx->rank; k++)
        len *= (long)sx->d[k];
    long rows = len ? (long)(kf_ref_elems(sx) / len) : 0;
    row_job j = {x, w, b, y, len, eps, rms};
    kf_parallel(rows, min_items(len), n_threads, layer_rows, &j);
    return 0;
}

/* ----------------------------------------------- group / instance norm */

/* x viewed as (N, C, S); block (n, g) = channels [g*C/G, (g+1)*C/G) of
 * sample n, contiguous C/G*S elements. */
typedef struct block_job {
    const double *x, *w, *b;
    double *y;
    long C, S, G;
    double eps;
} block_job;

static void norm_blocks(void *ctx, long begin, long end)
{
    const block_job *j = ctx;
    long cpg = j->C / j->G, len = cpg * j->S;
    for (long blk = begin; blk < end; blk++) {
        long g = blk % j->G;
        const double *p = j->x + blk * len;
        double *q = j->y + blk * len;
        double mean = 0.0, var = 0.0;
        for (long i = 0; i < len; i++)
            mean += p[i];
        mean /= (double)len;
        for (long i = 0; i < len; i++)
            var += (p[i] - mean) * (p[i] - mean);
        var /= (double)len;
        double rstd = 1.0 / sqrt(var + j->eps);
        for (long c = 0; c < cpg; c++) {
            long ch = g * cpg + c;
            double w = j->w ? j->w[ch] : 1.0, b = j->b ? j->b[ch] : 0.0;
            for (long s = 0; s < j->S; s++) {
                long i = c * j->S + s;
                q[i] = (p[i] - mean) * rstd * w + b;
            }
        }
    }
}

int kf_ref_group_norm(const double *x, const kf_shape *sx, int groups, const double *w,
                      const double *b, double eps, double *y, int n_threads, kf_error *err)
{
    char s1[96];
    if (sx->rank < 2)
        return kf_fail(err, KF_E_BAD_INPUT, "group_norm: input %s must be (N, C, ...)",
                       kf_ref_shape_str(sx, s1, sizeof s1));
    long C = (long)sx->d[1];
    if (groups < 1 || C % groups != 0)
        return kf_fail(err, KF_E_BAD_INPUT, "group_norm: %d groups do not divide C = %ld channels", groups, C);
    long S = 1;
    for (int k = 2; k < sx->rank; k++)
        S *= (long)sx->d[k];
    block_job j = {x, w, b, y, C, S, groups, eps};
    kf_parallel((long)sx->d[0] * groups, min_items(C / groups * S), n_threads,
                    norm_blocks, &j);
    return 0;
}

int kf_ref_instance_norm(const double *x, const kf_shape *sx, const double *w,
                         const double *b, double eps, double *y, int n_threads,
                         kf_error *err)
{
    char s1[96];
    if (sx->rank < 2 || sx->rank > 4)
        return kf_fail(err, KF_E_BAD_INPUT, "instance_norm: input %s must be (C, L), (N, C, L) or (N, C, H, W)",
                       kf_ref_shape_str(sx, s1, sizeof s1));
    /* (C, L) is one instance; otherwise dim 0 is N, dim 1 is C and the
     * statistics run over every later dim (L, or H x W) */
    long N = sx->rank >= 3 ? (long)sx->d[0] : 1;
    long C = (long)sx->d[sx->rank >= 3 ? 1 : 0], L = 1;
    for (int k = sx->rank >= 3 ? 2 : 1; k < sx->rank; k++)
        L *= (long)sx->d[k];
    block_job j = {x, w, b, y, C, L, C, eps};
    kf_parallel(N * C, min_items(L), n_threads, norm_blocks, &j);
    return 0;
}

/* ------------------------------------------------------- batch norm */

typedef struct bn_job {
    const double *x, *w, *b, *rmean, *rvar;
    double *y, *mean, *var;
    long N, C, L;
    double eps;
    int training;
} bn_job;

/* Channels [c0, c1): statistics (training) and the normalised output. */
static void bn_channels(void *ctx, long c0, long c1)
{
    const bn_job *j = ctx;
    long N = j->N, C = j->C, L = j->L;
    double cnt = (double)N * (double)L;
    if (j->training) {
        for (long c = c0; c < c1; c++)
            j->mean[c] = j->var[c] = 0.0;
        for (long n = 0; n < N; n++)
            for (long c = c0; c < c1; c++) {
                const double *p = j->x + (n * C + c) * L;
                for (long l = 0; l < L; l++)
                    j->mean[c] += p[l];
            }
        for (long c = c0; c < c1; c++)
            j->mean[c] /= cnt;
        for (long n = 0; n < N; n++)
            for (long c = c0; c < c1; c++) {
                const double *p = j->x + (n * C + c) * L;
                double m = j->mean[c];
                for (long l = 0; l < L; l++)
                    j->var[c] += (p[l] - m) * (p[l] - m);
            }
        for (long c = c0; c < c1; c++)
            j->var[c] /= cnt;       /* biased, as PyTorch normalises with */
    } else {
        for (long c = c0; c < c1; c++) {
            j->mean[c] = j->rmean[c];
            j->var[c] = j->rvar[c];
        }
    }
    for (long c = c0; c < c1; c++)
        j->var[c] = 1.0 / sqrt(j->var[c] + j->eps);     /* now rstd */
    for (long n = 0; n < N; n++)
        for (long c = c0; c < c1; c++) {
            const double *p = j->x + (n * C + c) * L;
            double *q = j->y + (n * C + c) * L;
            double m = j->mean[c], rs = j->var[c];
            double w = j->w ? j->w[c] : 1.0, b = j->b ? j->b[c] : 0.0;
            for (long l = 0; l < L; l++)
                q[l] = (p[l] - m) * rs * w + b;
        }
}

int kf_ref_batch_norm(const double *x, const kf_shape *sx, const double *w, const double *b,
                      const double *rmean, const double *rvar, int training, double eps,
                      double *y, int n_threads, kf_error *err)
{
    char s1[96];
    if (sx->rank < 2 || sx->rank > 4)
        return kf_fail(err, KF_E_BAD_INPUT, "batch_norm: input %s must be (N, C), (N, C, L) or (N, C, H, W)",
                       kf_ref_shape_str(sx, s1, sizeof s1));
    if (!training && (!rmean || !rvar))
        return kf_fail(err, KF_E_BAD_INPUT, "batch_norm: evaluation mode needs running_mean and "
                       "running_var inputs (or set \"training\": true)");
    long N = (long)sx->d[0], C = (long)sx->d[1], L = 1;   /* L: every dim after C */
    for (int k = 2; k < sx->rank; k++)
        L *= (long)sx->d[k];
    double *stats = malloc(sizeof(double) * 2 * (size_t)(C > 0 ? C : 1));
    if (!stats)
        return kf_fail(err, KF_E_INTERNAL, "batch_norm: out of memory for %ld channel statistics", C);
    bn_job j = {x, w, b, rmean, rvar, y, stats, stats + C, N, C, L, eps, training};
    kf_parallel(C, min_items(N * L), n_threads, bn_channels, &j);
    free(stats);
    return 0;
}
