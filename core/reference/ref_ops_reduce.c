/*
 * ref_ops_reduce.c — reductions over one dim (sum, mean, amax, amin,
 * logsumexp) and softmax / log_softmax, numerically stable (the maximum
 * is subtracted before exponentiating).
 *
 * A tensor reduced over `dim` is a set of "lines": line l = (o, i) with o
 * over the dims before `dim` and i over the dims after it, elements
 * x[o*n*inner + j*inner + i] for j < n.  Threads take contiguous ranges
 * of lines, so neighbouring lines share cache lines when inner > 1.
 */
#include <config.h>

#include <math.h>

#include "ref_internal.h"

#define LINE_MIN_ELEMS 32768

typedef struct lines {
    const double *x;
    double *y;
    long n, inner;
    kf_op op;
    int log_form;
} lines;

static int split_dims(const kf_shape *sx, int dim, long *outer, long *n, long *inner)
{
    dim = kf_ref_norm_dim(dim, sx->rank);
    if (dim < 0)
        return -1;
    *outer = 1;
    *inner = 1;
    for (int k = 0; k < dim; k++)
        *outer *= (long)sx->d[k];
    *n = (long)sx->d[dim];
    for (int k = dim + 1; k < sx->rank; k++)
        *inner *= (long)sx->d[k];
    return 0;
}

/* max with NaN propagation, as torch.amax */
static inline double max_nan(double a, double b)
{
    return isnan(a) || a > b ? a : b;
}

static inline double min_nan(double a, double b)
{
    return isnan(a) || a < b ? a : b;
}

static double line_max(const double *p, long n, long st)
{
    double m = -INFINITY;
    for (long j = 0; j < n; j++)
        m = max_nan(m, p[j * st]);
    return m;
}

/* log(sum(exp(p))) as torch.logsumexp: an infinite max is not subtracted. */
static double line_logsumexp(const double *p, long n, long st)
{
    double m = line_max(p, n, st);
    if (isnan(m))
        return m;
    double shift = isinf(m) ? 0.0 : m;
    double s = 0.0;
    for (long j = 0; j < n; j++)
        s += exp(p[j * st] - shift);
    return log(s) + shift;
}

static void reduce_lines(void *ctx, long begin, long end)
{
    const lines *L = ctx;
    for (long l = begin; l < end; l++) {
        long o = l / L->inner, i = l % L->inner;
        const double *p = L->x + o * L->n * L->inner + i;
        long st = L->inner, n = L->n;
        double r;
        switch (L->op) {
        case KF_OP_SUM:
        case KF_OP_MEAN:
            r = 0.0;
            for (long j = 0; j < n; j++)
                r += p[j * st];
            if (L->op == KF_OP_MEAN)
                r /= (double)n;
            break;
        case KF_OP_AMAX:
            r = line_max(p, n, st);
            break;
        case KF_OP_AMIN:
            r = INFINITY;
            for (long j = 0; j < n; j++)
                r = min_nan(r, p[j * st]);
            break;
        default:   /* KF_OP_LOGSUMEXP */
            r = line_logsumexp(p, n, st);
            break;
        }
        L->y[l] = r;
    }
}

static long min_lines(long n)
{
    return n >= LINE_MIN_ELEMS ? 1 : LINE_MIN_ELEMS / (n > 0 ? n : 1);
}

int kf_ref_reduce(kf_op op, const double *x, const kf_shape *sx, int dim, double *y,
                  int n_threads, kf_error *err)
{
    char s1[96];
    if (op < KF_OP_SUM || op > KF_OP_LOGSUMEXP)
        return kf_fail(err, KF_E_BAD_INPUT, "reference: op %d is not a reduction", (int)op);
    lines L = {x, y, 0, 0, op, 0};
    long outer;
    if (split_dims(sx, dim, &outer, &L.n, &L.inner) < 0)
        return kf_fail(err, KF_E_BAD_INPUT, "reduction: dim %d is out of range for shape %s", dim,
                       kf_ref_shape_str(sx, s1, sizeof s1));
    if (L.n == 0 && (op == KF_OP_AMAX || op == KF_OP_AMIN))
        return kf_fail(err, KF_E_BAD_INPUT, "reduction: amax/amin over an empty dim of %s",
                       kf_ref_shape_str(sx, s1, sizeof s1));
    kf_parallel(outer * L.inner, min_lines(L.n), n_threads, reduce_lines, &L);
    return 0;
}

static void softmax_lines(void *ctx, long begin, long end)
{
    const lines *L = ctx;
    for (long l = begin; l < end; l++) {
        long o = l / L->inner, i = l % L->inner;
        long off = o * L->n * L->inner + i, st = L->inner, n = L->n;
        const double *p = L->x + off;
        double *q = L->y + off;
        double m = line_max(p, n, st);
        double shift = isinf(m) ? 0.0 : m;
        double s = 0.0;
        for (long j = 0; j < n; j++)
            s += exp(p[j * st] - shift);
        if (L->log_form) {
            double lse = log(s);
            for (long j = 0; j < n; j++)
                q[j * st] = p[j * st] - shift - lse;
        } else {
            double inv = 1.0 / s;
            for (long j = 0; j < n; j++)
                q[j * st] = exp(p[j * st] - shift) * inv;
        }
    }
}

int kf_ref_softmax(const double *x, const kf_shape *sx, int dim, int log_form, double *y,
                   int n_threads, kf_error *err)
{
    char s1[96];
    lines L = {x, y, 0, 0, KF_OP_SOFTMAX, log_form};
    long outer;
    if (split_dims(sx, dim, &outer, &L.n, &L.inner) < 0)
        return kf_fail(err, KF_E_BAD_INPUT, "%s: dim %d is out of range for shape %s",
                       log_form ? "log_softmax" : "softmax", dim,
                       kf_ref_shape_str(sx, s1, sizeof s1));
    kf_parallel(outer * L.inner, min_lines(L.n), n_threads, softmax_lines, &L);
    return 0;
}
