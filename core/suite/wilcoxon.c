/* wilcoxon.c — the Wilcoxon signed-rank test (wilcoxon.h). */
#include "wilcoxon.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct absd {
    double a;                 /* |d| */
    int pos;                  /* d > 0 */
} absd;

static int cmp_abs(const void *x, const void *y)
{
    double a = ((const absd *)x)->a, b = ((const absd *)y)->a;
    return a < b ? -1 : a > b;
}

/* P(W <= t) for the signed-rank statistic of n untied ranks 1..n */
static double exact_cdf(int n, double t)
{
    int max = n * (n + 1) / 2;
    double *c = calloc((size_t)max + 1, sizeof *c);
    if (!c) return NAN;
    c[0] = 1;
    /* c[s] = number of subsets of {1..k} with sum s; below 2^50: exact in a double */
    for (int k = 1; k <= n; k++)
        for (int s = k * (k + 1) / 2; s >= k; s--) c[s] += c[s - k];
    double below = 0;
    for (int s = 0; s <= max && s <= t + 1e-9; s++) below += c[s];
    free(c);
    return below / ldexp(1.0, n);
}

int kf_wilcoxon_test(const double *d, int n, kf_wilcoxon *out, kf_error *err)
{
    memset(out, 0, sizeof *out);
    absd *v = calloc(n > 0 ? (size_t)n : 1, sizeof *v);
    if (!v) return kf_fail(err, KF_E_INTERNAL, "out of memory");
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(d[i])) {
            free(v);
            return kf_fail(err, KF_E_BAD_INPUT, "Wilcoxon test: difference %d is not a finite number", i + 1);
        }
        if (d[i] == 0) { out->n_zero++; continue; }
        v[m].a = fabs(d[i]);
        v[m].pos = d[i] > 0;
        m++;
    }
    if (m == 0) {
        free(v);
        return kf_fail(err, KF_E_BAD_INPUT, "Wilcoxon test: no nonzero difference (%d pairs, all equal)", n);
    }
    qsort(v, (size_t)m, sizeof *v, cmp_abs);
    double tie_term = 0;
    for (int i = 0; i < m;) {
        int j = i;
        while (j + 1 < m && v[j + 1].a == v[i].a) j++;
        double rank = (i + j + 2) / 2.0;      /* average of ranks i+1 .. j+1 */
        for (int k = i; k <= j; k++) {
            if (v[k].pos) out->w_plus += rank;
            else out->w_minus += rank;
        }
        int t = j - i + 1;
        if (t > 1) {
            out->n_ties++;
            tie_term += (double)t * t * t - t;
        }
        i = j + 1;
    }
    free(v);
    out->n = m;
    out->statistic = out->w_plus < out->w_minus ? out->w_plus : out->w_minus;
    if (m <= KF_WILCOXON_EXACT_MAX && out->n_ties == 0) {
        out->exact = 1;
        double p = 2 * exact_cdf(m, out->statistic);
        if (isnan(p)) return kf_fail(err, KF_E_INTERNAL, "out of memory");
        out->p = p > 1 ? 1 : p;
        return 0;
    }
    double mean = m * (m + 1) / 4.0;
    double var = m * (m + 1.0) * (2.0 * m + 1) / 24.0 - tie_term / 48.0;
    out->z = var > 0 ? (out->statistic - mean) / sqrt(var) : 0;
    out->p = var > 0 ? erfc(fabs(out->z) / sqrt(2.0)) : 1;
    if (out->p > 1) out->p = 1;
    return 0;
}
