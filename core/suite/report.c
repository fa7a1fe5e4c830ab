/* report.c — building a suite report and its statistics (report.h). */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const double kf_report_p[KF_REPORT_N_P] = {0, 0.5, 0.8, 1.0, 1.5, 2.0};

void kf_report_summarize(kf_report *r)
{
    kf_report_summary *s = &r->sum;
    memset(s, 0, sizeof *s);
    s->n = r->n;
    double log_sum = 0, fb_log_sum = 0, frac_sum = 0, torch_log = 0;
    int fast[KF_REPORT_N_P] = {0}, fast_t[KF_REPORT_N_P] = {0};
    for (int i = 0; i < r->n; i++) {
        const kf_report_entry *e = &r->e[i];
        s->tokens += e->tokens_in + e->tokens_out;
        s->cost_usd += e->cost_usd;
        if (e->anchor_s > 0) s->n_anchor++;
        if (e->anchor_warning) s->n_anchor_warnings++;
        if (e->timing_warning) s->n_timing_warnings++;
        if (e->status != KF_REPORT_CORRECT) continue;
        s->n_correct++;
        frac_sum += e->fraction;
        for (int k = 0; k < KF_REPORT_N_P; k++)
            if (kf_report_p[k] == 0 || e->speedup > kf_report_p[k]) fast[k]++;
        if (e->vs_torch > 0) {
            s->n_torch++;
            torch_log += log(e->vs_torch);
            for (int k = 0; k < KF_REPORT_N_P; k++)
                if (kf_report_p[k] == 0 || e->vs_torch > kf_report_p[k]) fast_t[k]++;
        }
        if (e->speedup > 0) {
            s->n_speedup++;
            log_sum += log(e->speedup);
            fb_log_sum += log(e->speedup);
            if (s->n_speedup == 1 || e->speedup < s->min_speedup) s->min_speedup = e->speedup;
            if (e->speedup > s->max_speedup) s->max_speedup = e->speedup;
        }
    }
    for (int k = 0; k < KF_REPORT_N_P; k++) s->fast_p[k] = r->n ? (double)fast[k] / r->n : 0;
    for (int k = 0; k < KF_REPORT_N_P; k++) s->fast_p_torch[k] = r->n ? (double)fast_t[k] / r->n : 0;
    s->geomean_vs_torch = s->n_torch ? exp(torch_log / s->n_torch) : 0;
    s->geomean_correct = s->n_speedup ? exp(log_sum / s->n_speedup) : 0;
    /* incorrect problems count as 0: any one of them makes the product 0 */
    s->geomean_all_zero = (r->n && s->n_correct == r->n) ? s->geomean_correct : 0;
    /* incorrect (or unmeasured) problems keep the baseline: log(1) = 0 */
    s->geomean_fallback = r->n ? exp(fb_log_sum / r->n) : 0;
    s->mean_fraction = s->n_correct ? frac_sum / s->n_correct : 0;
    kf_report_group_seeds(r);
}

int kf_report_build(const char *const *run_dirs, int n, kf_report *out, kf_error *err)
{
    memset(out, 0, sizeof *out);
    out->e = calloc(n > 0 ? (size_t)n : 1, sizeof *out->e);
    if (!out->e) return kf_fail(err, KF_E_INTERNAL, "out of memory");
    for (int i = 0; i < n; i++) {
        if (kf_report_entry_load(run_dirs[i], &out->e[i], err) != 0) {
            kf_report_free(out);
            return -1;
        }
        out->n++;
    }
    char stamp[64];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    out->generated = strdup(stamp);
    kf_report_summarize(out);
    return 0;
}

void kf_report_free(kf_report *r)
{
    if (!r) return;
    for (int i = 0; i < r->n; i++) kf_report_entry_free(&r->e[i]);
    free(r->e);
    kf_report_machine_free(&r->machine);
    free(r->settings_json);
    free(r->generated);
    free(r->anchors_path);
    free(r->anchors_machine);
    free(r->anchors_tool);
    free(r->anchors_version);
    free(r->anchors_device);
    free(r->anchors_preset);
    kf_report_groups_free(r);
    memset(r, 0, sizeof *r);
}

int kf_report_write_all(const kf_report *r, const char *dir, kf_error *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/report.json", dir);
    if (kf_report_write_json(r, path, err) != 0) return -1;
    snprintf(path, sizeof path, "%s/report.md", dir);
    if (kf_report_write_md(r, path, err) != 0) return -1;
    snprintf(path, sizeof path, "%s/report.html", dir);
    return kf_report_write_html(r, path, err);
}
