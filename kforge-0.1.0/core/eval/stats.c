/* stats.c — summary statistics of timing samples (eval_internal.h). */
#include "eval_internal.h"

#include <stdlib.h>
#include <string.h>

double kf_percentile_sorted(const double *sorted, int n, double p)
{
    if (n <= 0) return 0.0;
    if (p <= 0) return sorted[0];
    if (p >= 1) return sorted[n - 1];
    double pos = p * (double)(n - 1);
    int lo = (int)pos;
    if (lo >= n - 1) return sorted[n - 1];
    double frac = pos - (double)lo;
    return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int kf_timing_stats(const double *samples, int n, kf_timing *t)
{
    if (n < 1) return -1;
    double *s = malloc((size_t)n * sizeof *s);
    if (!s) return -1;
    memcpy(s, samples, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    double sum = 0;
    for (int i = 0; i < n; i++) sum += s[i];
    t->min_s = s[0];
    t->max_s = s[n - 1];
    t->mean_s = sum / n;
    t->median_s = kf_percentile_sorted(s, n, 0.5);
    t->p10_s = kf_percentile_sorted(s, n, 0.1);
    t->p90_s = kf_percentile_sorted(s, n, 0.9);
    free(s);
    return 0;
}
