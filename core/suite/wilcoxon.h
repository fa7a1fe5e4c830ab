/*
 * wilcoxon.h — the Wilcoxon signed-rank test of paired differences, two
 * sided, as scipy.stats.wilcoxon computes it (zero_method="wilcox",
 * correction=False; method="exact" or "approx" as chosen below):
 *   - zero differences are dropped (Wilcoxon's method);
 *   - the absolute differences are ranked, ties get their average rank;
 *     W+ and W- are the rank sums of the positive and negative ones and the
 *     statistic is min(W+, W-);
 *   - with at most KF_WILCOXON_EXACT_MAX nonzero differences and no ties
 *     among their absolute values, the p-value is exact: 2 P(W <= statistic) under
 *     the null distribution of W (all 2^n sign patterns equally likely),
 *     counted by dynamic programming, capped at 1;
 *   - otherwise (ties, or more differences) the normal approximation: mean n(n+1)/4, variance
 *     n(n+1)(2n+1)/24 - sum over tie groups of (t^3 - t)/48, z = (statistic
 *     - mean) / sd, p = 2 Phi(-|z|), no continuity correction.
 */
#ifndef KF_WILCOXON_H
#define KF_WILCOXON_H

#include "util/error.h"

#define KF_WILCOXON_EXACT_MAX 50

typedef struct kf_wilcoxon {
    int n;                    /* nonzero differences used */
    int n_zero;               /* zero differences dropped */
    int n_ties;               /* tie groups (t >= 2) among the absolute differences */
    double w_plus, w_minus;   /* rank sums */
    double statistic;         /* min(w_plus, w_minus) */
    int exact;                /* 1: exact distribution; 0: normal approximation */
    double z;                 /* the approximation's z (0 when exact) */
    double p;                 /* two-sided p-value */
} kf_wilcoxon;

/* Tests d[0..n-1] (e.g. log(time_a) - log(time_b) per problem).  Returns 0,
 * or -1 when no nonzero difference is left or a difference is not finite
 * (err: code 2, says which). */
int kf_wilcoxon_test(const double *d, int n, kf_wilcoxon *out, kf_error *err);

#endif
