/* compare.c — candidate outputs against the reference: allclose with the
 * problem's atol/rtol AND a relative L2 bound per output (eval_internal.h). */
#include "eval_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int kf_compare_output(const float *got, const double *exp, int64_t n, double atol, double rtol,
                      double rel_l2_tol, int output, kf_output_stats *st, kf_mismatch *mm,
                      int max_mm, int *n_mm)
{
    memset(st, 0, sizeof *st);
    st->n_elems = n;
    double err2 = 0.0, ref2 = 0.0;
    int nonfinite_bad = 0;
    for (int64_t i = 0; i < n; i++) {
        double g = (double)got[i], e = exp[i];
        int bad;
        double diff;
        if (isnan(g)) {
            st->n_nan++;
            bad = 1;
            diff = INFINITY;
        } else if (isnan(e)) {
            bad = 1;
            diff = INFINITY;
        } else if (isinf(e) || isinf(g)) {
            bad = !(g == e);
            diff = bad ? INFINITY : 0.0;
        } else {
            diff = fabs(g - e);
            bad = !(diff <= atol + rtol * fabs(e));
            err2 += diff * diff;
            ref2 += e * e;
        }
        if (diff > st->max_abs_err) st->max_abs_err = diff;
        double allow = isinf(diff) ? 0.0 : atol + rtol * fabs(e);
        double frac = isinf(diff) ? INFINITY : allow > 0 ? diff / allow : (diff > 0 ? INFINITY : 0.0);
        if (frac > st->max_tol_frac) st->max_tol_frac = frac;
        double scale = fabs(e) > atol ? fabs(e) : atol;
        double rel = isinf(diff) ? INFINITY : scale > 0 ? diff / scale : (diff > 0 ? INFINITY : 0.0);
        if (rel > st->max_rel_err) st->max_rel_err = rel;
        if (!bad) continue;
        if (isinf(diff)) nonfinite_bad = 1;
        st->n_bad++;
        if (mm && n_mm && *n_mm < max_mm) {
            kf_mismatch *m = &mm[(*n_mm)++];
            m->output = output;
            m->index = i;
            m->expected = e;
            m->got = g;
        }
    }
    /* Spread of the reference around its mean, over its finite elements: a
     * kernel that skips the work and returns something near the mean (or
     * log of a constant plus a small variation) has an error of the order
     * of this spread, however small it is relative to the values. */
    double sum = 0;
    int64_t nf = 0;
    for (int64_t i = 0; i < n; i++)
        if (isfinite(exp[i])) {
            sum += exp[i];
            nf++;
        }
    double mean = nf ? sum / (double)nf : 0, spread2 = 0;
    for (int64_t i = 0; i < n; i++)
        if (isfinite(exp[i])) spread2 += (exp[i] - mean) * (exp[i] - mean);
    /* It applies unless the reference is constant up to float32 rounding
     * (its RMS spread under 1e-6 of its mean: no float32 kernel could
     * follow such a variation); a variation inside the tolerance band is
     * exactly what the test is for (problem 45 at `small`: log of a
     * constant plus a variation smaller than rtol). */
    (void)atol;
    double rms = nf ? sqrt(spread2 / (double)nf) : 0;
    st->spread_applies = rms > 1e-6 * fabs(mean) && rms > 1e-30;
    if (nonfinite_bad)
        st->rel_spread = INFINITY;
    else
        st->rel_spread = st->spread_applies ? sqrt(err2) / sqrt(spread2) : 0.0;
    if (nonfinite_bad)
        st->rel_l2 = INFINITY;
    else if (ref2 > 0)
        st->rel_l2 = sqrt(err2) / sqrt(ref2);
    else
        st->rel_l2 = n > 0 ? sqrt(err2 / (double)n) : 0.0;

    int r = 0;
    if (st->n_bad) r |= KF_CMP_ALLCLOSE_FAILED;
    if (!(st->rel_l2 <= rel_l2_tol)) r |= KF_CMP_REL_L2_FAILED;
    return r;
}

int kf_compare_problem_output(const kf_problem *p, const float *got, const double *exp, int64_t n, int output,
                              kf_output_stats *st, kf_mismatch *mm, int max_mm, int *n_mm)
{
    int r = kf_compare_output(got, exp, n, p->atol, p->rtol, p->rel_l2, output, st, mm, max_mm, n_mm);
    if (st->spread_applies && !(st->rel_spread <= p->rel_spread)) r |= KF_CMP_SPREAD_FAILED;
    return r;
}

void kf_output_stats_merge(kf_output_stats *worst, const kf_output_stats *s)
{
    if (s->rel_spread > worst->rel_spread || isnan(s->rel_spread)) worst->rel_spread = s->rel_spread;
    worst->spread_applies |= s->spread_applies;
    if (s->max_abs_err > worst->max_abs_err || isnan(s->max_abs_err)) worst->max_abs_err = s->max_abs_err;
    if (s->max_rel_err > worst->max_rel_err || isnan(s->max_rel_err)) worst->max_rel_err = s->max_rel_err;
    if (s->max_tol_frac > worst->max_tol_frac || isnan(s->max_tol_frac)) worst->max_tol_frac = s->max_tol_frac;
    if (s->rel_l2 > worst->rel_l2 || isnan(s->rel_l2)) worst->rel_l2 = s->rel_l2;
    if (s->n_bad > worst->n_bad) worst->n_bad = s->n_bad;
    if (s->n_nan > worst->n_nan) worst->n_nan = s->n_nan;
    worst->n_elems = s->n_elems;
}

const char *kf_format_index(const char *name, const kf_shape *shape, int64_t flat, char *buf,
                            size_t n)
{
    int64_t idx[KF_MAX_RANK] = {0};
    int rank = shape ? shape->rank : 0;
    if (rank > KF_MAX_RANK) rank = KF_MAX_RANK;
    int64_t rem = flat;
    for (int d = rank - 1; d >= 0; d--) {
        int64_t ext = shape->d[d] > 0 ? shape->d[d] : 1;
        idx[d] = rem % ext;
        rem /= ext;
    }
    size_t len = (size_t)snprintf(buf, n, "%s[", name ? name : "?");
    for (int d = 0; d < rank && len < n; d++)
        len += (size_t)snprintf(buf + len, n - len, "%s%lld", d ? "," : "", (long long)idx[d]);
    if (len < n) snprintf(buf + len, n - len, "]");
    return buf;
}
