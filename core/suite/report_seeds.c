/* report_seeds.c — statistics over agent seeds (kforge suite --seeds N):
 * the runs of a problem grouped, per problem the success rate and the
 * median and spread of steps and speedup, and the summary's error bars
 * (per-seed spread and a bootstrap over problems; report.h). */
#include "report.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* quantile q of sorted v[0..n-1], linear between order statistics */
static double quantile(const double *v, int n, double q)
{
    double h = (n - 1) * q;
    int lo = (int)floor(h);
    if (lo >= n - 1) return v[n - 1];
    return v[lo] + (h - lo) * (v[lo + 1] - v[lo]);
}

void kf_report_spread_of(const double *v, int n, kf_report_spread *out)
{
    memset(out, 0, sizeof *out);
    if (n <= 0) return;
    double *s = malloc((size_t)n * sizeof *s);
    if (!s) return;
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    out->n = n;
    out->min = s[0];
    out->max = s[n - 1];
    out->median = quantile(s, n, 0.5);
    out->q1 = quantile(s, n, 0.25);
    out->q3 = quantile(s, n, 0.75);
    free(s);
}

void kf_report_groups_free(kf_report *r)
{
    for (int g = 0; g < r->n_groups; g++) free(r->groups[g].idx);
    free(r->groups);
    r->groups = NULL;
    r->n_groups = 0;
    memset(&r->seeds, 0, sizeof r->seeds);
}

static int correct(const kf_report_entry *e) { return e->status == KF_REPORT_CORRECT; }

static void group_stats(const kf_report *r, kf_report_group *g, double *buf)
{
    int n;
    g->n_correct = 0;
    for (int i = 0; i < g->n_runs; i++) g->n_correct += correct(&r->e[g->idx[i]]);
    g->success_rate = g->n_runs ? (double)g->n_correct / g->n_runs : 0;
    n = 0;
    for (int i = 0; i < g->n_runs; i++) {
        const kf_report_entry *e = &r->e[g->idx[i]];
        if (correct(e) && e->first_correct_step > 0) buf[n++] = e->first_correct_step;
    }
    kf_report_spread_of(buf, n, &g->first_correct);
    n = 0;
    for (int i = 0; i < g->n_runs; i++) {
        const kf_report_entry *e = &r->e[g->idx[i]];
        if (correct(e) && e->best_step > 0) buf[n++] = e->best_step;
    }
    kf_report_spread_of(buf, n, &g->best_step);
    n = 0;
    for (int i = 0; i < g->n_runs; i++) {
        const kf_report_entry *e = &r->e[g->idx[i]];
        if (correct(e) && e->speedup > 0) buf[n++] = e->speedup;
    }
    kf_report_spread_of(buf, n, &g->speedup);
    n = 0;
    for (int i = 0; i < g->n_runs; i++) {
        const kf_report_entry *e = &r->e[g->idx[i]];
        if (correct(e) && e->best_s > 0) buf[n++] = e->best_s;
    }
    kf_report_spread_of(buf, n, &g->best_s);
}

/* The per-seed statistics: for each distinct agent seed, over its runs. */
static void per_seed(kf_report *r, double *buf)
{
    int *seeds = calloc((size_t)r->n + 1, sizeof *seeds), ns = 0;
    double *succ = calloc((size_t)r->n + 1, sizeof *succ), *geo = calloc((size_t)r->n + 1, sizeof *geo),
           *fc = calloc((size_t)r->n + 1, sizeof *fc);
    int ngeo = 0, nfc = 0;
    if (!seeds || !succ || !geo || !fc) goto out;
    for (int i = 0; i < r->n; i++) {
        int k = r->e[i].agent_seed, seen = 0;
        for (int j = 0; j < ns && !seen; j++) seen = seeds[j] == k;
        if (!seen) seeds[ns++] = k;
    }
    for (int j = 0; j < ns; j++) {
        int runs = 0, ok = 0, nsp = 0, nf = 0;
        double logs = 0, steps = 0;
        for (int i = 0; i < r->n; i++) {
            const kf_report_entry *e = &r->e[i];
            if (e->agent_seed != seeds[j]) continue;
            runs++;
            if (!correct(e)) continue;
            ok++;
            if (e->speedup > 0) { logs += log(e->speedup); nsp++; }
            if (e->first_correct_step > 0) { steps += e->first_correct_step; nf++; }
        }
        succ[j] = runs ? (double)ok / runs : 0;
        if (nsp) geo[ngeo++] = exp(logs / nsp);
        if (nf) fc[nfc++] = steps / nf;
    }
    r->seeds.seeds = ns;
    kf_report_spread_of(succ, ns, &r->seeds.per_seed_success);
    kf_report_spread_of(geo, ngeo, &r->seeds.per_seed_geomean);
    kf_report_spread_of(fc, nfc, &r->seeds.per_seed_first_correct);
out:
    (void)buf;
    free(seeds);
    free(succ);
    free(geo);
    free(fc);
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#define KF_BOOT 2000

/* The bootstrap over problems: mean success rate and geomean of the
 * per-problem median speedups. */
static void bootstrap(kf_report *r)
{
    kf_report_seed_summary *s = &r->seeds;
    int G = r->n_groups;
    double sum = 0, logs = 0;
    int nm = 0;
    for (int g = 0; g < G; g++) {
        sum += r->groups[g].success_rate;
        if (r->groups[g].speedup.n) { logs += log(r->groups[g].speedup.median); nm++; }
    }
    s->mean_success = G ? sum / G : 0;
    s->n_median_speedup = nm;
    s->geomean_median_speedup = nm ? exp(logs / nm) : 0;
    double *bs = malloc(KF_BOOT * sizeof *bs), *bg = malloc(KF_BOOT * sizeof *bg);
    if (!bs || !bg || G == 0) { free(bs); free(bg); return; }
    uint64_t state = 20261124;
    int ng = 0;
    for (int b = 0; b < KF_BOOT; b++) {
        double su = 0, lg = 0;
        int n = 0;
        for (int k = 0; k < G; k++) {
            const kf_report_group *g = &r->groups[splitmix(&state) % (uint64_t)G];
            su += g->success_rate;
            if (g->speedup.n) { lg += log(g->speedup.median); n++; }
        }
        bs[b] = su / G;
        if (n) bg[ng++] = exp(lg / n);
    }
    qsort(bs, KF_BOOT, sizeof *bs, cmp_double);
    s->success_lo = quantile(bs, KF_BOOT, 0.025);
    s->success_hi = quantile(bs, KF_BOOT, 0.975);
    if (ng) {
        qsort(bg, (size_t)ng, sizeof *bg, cmp_double);
        s->geomean_lo = quantile(bg, ng, 0.025);
        s->geomean_hi = quantile(bg, ng, 0.975);
    }
    free(bs);
    free(bg);
}

void kf_report_group_seeds(kf_report *r)
{
    kf_report_groups_free(r);
    if (r->n < 2) return;
    kf_report_group *gs = calloc((size_t)r->n, sizeof *gs);
    double *buf = calloc((size_t)r->n, sizeof *buf);
    int G = 0, multi = 0;
    for (int i = 0; gs && buf && i < r->n; i++) {
        const char *name = r->e[i].name ? r->e[i].name : "";
        int g = 0;
        while (g < G && strcmp(gs[g].name, name)) g++;
        if (g == G) {
            gs[G].name = name;
            if (!(gs[G].idx = calloc((size_t)r->n, sizeof *gs[G].idx))) break;
            G++;
        }
        /* by agent seed (run directories list ~s10 before ~s2) */
        int at = gs[g].n_runs;
        while (at > 0 && r->e[gs[g].idx[at - 1]].agent_seed > r->e[i].agent_seed) {
            gs[g].idx[at] = gs[g].idx[at - 1];
            at--;
        }
        gs[g].idx[at] = i;
        if (++gs[g].n_runs > 1) multi = 1;
    }
    if (!gs || !buf || !multi) {
        for (int g = 0; gs && g < G; g++) free(gs[g].idx);
        free(gs);
        free(buf);
        return;
    }
    r->groups = gs;
    r->n_groups = G;
    for (int g = 0; g < G; g++) group_stats(r, &gs[g], buf);
    per_seed(r, buf);
    bootstrap(r);
    free(buf);
}
