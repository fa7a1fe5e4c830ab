/* report_json.c — DIR/report.json (report.h). */
#include "config.h"
#include "report_internal.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "run/journal.h"

static json_object *num_or_null(double v) { return v > 0 ? json_object_new_double(v) : NULL; }
static json_object *str_or_null(const char *s) { return s ? json_object_new_string(s) : NULL; }

static json_object *entry_json(const kf_report_entry *e)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_object_new_string(e->name));
    json_object_object_add(o, "run_dir", json_object_new_string(e->run_dir));
    json_object_object_add(o, "status", json_object_new_string(kf_report_status_name(e->status)));
    json_object_object_add(o, "correct", json_object_new_boolean(e->status == KF_REPORT_CORRECT));
    json_object_object_add(o, "stop_reason", str_or_null(e->stop_reason));
    json_object_object_add(o, "backend", str_or_null(e->backend));
    json_object_object_add(o, "device", str_or_null(e->device));
    json_object_object_add(o, "preset", str_or_null(e->preset));
    json_object_object_add(o, "agent", str_or_null(e->agent));
    json_object_object_add(o, "best_s", num_or_null(e->best_s));
    json_object_object_add(o, "baseline_s", num_or_null(e->baseline_s));
    json_object_object_add(o, "baseline_how", str_or_null(e->baseline_how));
    if (e->torch_eager_s > 0 || e->torch_compile_s > 0) {
        json_object *t = json_object_new_object();
        json_object_object_add(t, "eager_s", num_or_null(e->torch_eager_s));
        json_object_object_add(t, "compile_s", num_or_null(e->torch_compile_s));
        json_object_object_add(t, "speedup_vs_eager", e->best_s > 0 && e->torch_eager_s > 0 && e->status == KF_REPORT_CORRECT
                                   ? json_object_new_double(e->torch_eager_s / e->best_s) : NULL);
        json_object_object_add(t, "speedup_vs_compile", e->best_s > 0 && e->torch_compile_s > 0 && e->status == KF_REPORT_CORRECT
                                   ? json_object_new_double(e->torch_compile_s / e->best_s) : NULL);
        json_object_object_add(t, "speedup_vs_faster", num_or_null(e->vs_torch));
        json_object_object_add(o, "pytorch", t);
    }
    json_object_object_add(o, "gemm_anchor_s", num_or_null(e->anchor_s));
    json_object_object_add(o, "gemm_anchor_how", str_or_null(e->anchor_how));
    json_object_object_add(o, "gemm_anchor_threads", e->anchor_threads > 0 ? json_object_new_int(e->anchor_threads) : NULL);
    json_object_object_add(o, "baseline_over_gemm_anchor", num_or_null(e->baseline_over_anchor));
    json_object *w = json_object_new_array();
    if (e->anchor_warning) json_object_array_add(w, json_object_new_string(e->anchor_warning));
    if (e->timing_warning) json_object_array_add(w, json_object_new_string(e->timing_warning));
    json_object_object_add(o, "warnings", w);
    json_object_object_add(o, "speedup", num_or_null(e->speedup));
    json_object_object_add(o, "roofline_fraction", e->status == KF_REPORT_CORRECT ? json_object_new_double(e->fraction) : NULL);
    json_object_object_add(o, "precision", str_or_null(e->status == KF_REPORT_CORRECT ? e->precision : NULL));
    json_object_object_add(o, "precision_from", str_or_null(e->status == KF_REPORT_CORRECT ? e->precision_from : NULL));
    json_object *cf = NULL;
    if (e->status == KF_REPORT_CORRECT && e->confirm_rounds > 0) {   /* the final re-timing (loop_confirm.c) */
        cf = json_object_new_object();
        json_object_object_add(cf, "rounds", json_object_new_int(e->confirm_rounds));
        json_object_object_add(cf, "step_s", num_or_null(e->confirm_step_s));
        json_object_object_add(cf, "replaced_search_best", json_object_new_boolean(e->confirm_replaced));
        json_object_object_add(cf, "baseline_kept", json_object_new_boolean(e->best_is_baseline));
    }
    json_object_object_add(o, "confirmed", cf);
    json_object_object_add(o, "steps", json_object_new_int(e->steps));
    json_object_object_add(o, "tokens_in", json_object_new_int64(e->tokens_in));
    json_object_object_add(o, "tokens_out", json_object_new_int64(e->tokens_out));
    json_object_object_add(o, "cost_usd", json_object_new_double(e->cost_usd));
    json_object_object_add(o, "wall_s", json_object_new_double(e->wall_s));
    json_object *tr = json_object_new_array();
    for (int i = 0; i < e->n_points; i++) {
        const kf_report_point *p = &e->points[i];
        json_object *pt = json_object_new_object();
        json_object_object_add(pt, "step", json_object_new_int(p->step));
        json_object_object_add(pt, "passed", json_object_new_boolean(p->passed));
        json_object_object_add(pt, "time_s", num_or_null(p->time_s));
        json_object_object_add(pt, "best_s", num_or_null(p->best_s));
        json_object_array_add(tr, pt);
    }
    json_object_object_add(o, "trace", tr);
    if (e->agent_seed > 0) {
        json_object_object_add(o, "agent_seed", json_object_new_int(e->agent_seed));
        json_object_object_add(o, "first_correct_step", e->first_correct_step ? json_object_new_int(e->first_correct_step) : NULL);
        json_object_object_add(o, "best_step", e->best_step ? json_object_new_int(e->best_step) : NULL);
    }
    return o;
}

/* {"n", "median", "min", "max", "q1", "q3"}; null when n == 0 */
static json_object *spread_json(const kf_report_spread *s)
{
    if (s->n == 0) return NULL;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "n", json_object_new_int(s->n));
    json_object_object_add(o, "median", json_object_new_double(s->median));
    json_object_object_add(o, "min", json_object_new_double(s->min));
    json_object_object_add(o, "max", json_object_new_double(s->max));
    json_object_object_add(o, "q1", json_object_new_double(s->q1));
    json_object_object_add(o, "q3", json_object_new_double(s->q3));
    return o;
}

static json_object *interval(double v, double lo, double hi)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "value", json_object_new_double(v));
    json_object_object_add(o, "ci95_lo", json_object_new_double(lo));
    json_object_object_add(o, "ci95_hi", json_object_new_double(hi));
    return o;
}

/* "seeds": the statistics over agent seeds (kforge suite --seeds N) */
static json_object *seeds_json(const kf_report *r)
{
    const kf_report_seed_summary *s = &r->seeds;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "seeds", json_object_new_int(s->seeds));
    json_object *sum = json_object_new_object();
    json_object_object_add(sum, "success_rate_bootstrap", interval(s->mean_success, s->success_lo, s->success_hi));
    json_object_object_add(sum, "geomean_median_speedup_bootstrap",
                           s->n_median_speedup ? interval(s->geomean_median_speedup, s->geomean_lo, s->geomean_hi) : NULL);
    json_object_object_add(sum, "problems_with_median_speedup", json_object_new_int(s->n_median_speedup));
    json_object_object_add(sum, "per_seed_success_rate", spread_json(&s->per_seed_success));
    json_object_object_add(sum, "per_seed_geomean_speedup", spread_json(&s->per_seed_geomean));
    json_object_object_add(sum, "per_seed_mean_steps_to_first_correct", spread_json(&s->per_seed_first_correct));
    json_object_object_add(o, "summary", sum);
    json_object *arr = json_object_new_array();
    for (int g = 0; g < r->n_groups; g++) {
        const kf_report_group *gr = &r->groups[g];
        json_object *p = json_object_new_object();
        json_object_object_add(p, "name", json_object_new_string(gr->name));
        json_object_object_add(p, "runs", json_object_new_int(gr->n_runs));
        json_object_object_add(p, "correct", json_object_new_int(gr->n_correct));
        json_object_object_add(p, "success_rate", json_object_new_double(gr->success_rate));
        json_object_object_add(p, "steps_to_first_correct", spread_json(&gr->first_correct));
        json_object_object_add(p, "steps_to_best", spread_json(&gr->best_step));
        json_object_object_add(p, "speedup", spread_json(&gr->speedup));
        json_object_object_add(p, "best_s", spread_json(&gr->best_s));
        json_object *dirs = json_object_new_array();
        for (int i = 0; i < gr->n_runs; i++) json_object_array_add(dirs, json_object_new_string(r->e[gr->idx[i]].run_dir));
        json_object_object_add(p, "run_dirs", dirs);
        json_object_array_add(arr, p);
    }
    json_object_object_add(o, "problems", arr);
    json_object_object_add(o, "notes", json_object_new_string(
        "per problem over its agent seeds: success_rate = correct runs / runs; steps_to_first_correct and "
        "steps_to_best over the correct runs; speedup over the correct runs with a measured baseline; each "
        "as median, min, max and quartiles (linear interpolation). Error bars of the summary, two ways: "
        "per_seed_* = the statistic computed on the runs of one agent seed alone, its median and min..max "
        "over the seeds; *_bootstrap = 95% percentile interval of 2000 bootstrap resamples of the problems "
        "(fixed RNG seed), the statistic being the mean success rate and the geometric mean of the "
        "per-problem median speedups"));
    return o;
}

static json_object *summary_json(const kf_report *r)
{
    const kf_report_summary *s = &r->sum;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "problems", json_object_new_int(s->n));
    json_object_object_add(o, "correct", json_object_new_int(s->n_correct));
    json_object_object_add(o, "with_speedup", json_object_new_int(s->n_speedup));
    json_object *fp = json_object_new_object();
    for (int k = 0; k < KF_REPORT_N_P; k++) {
        char lab[16];
        json_object_object_add(fp, kf_rep_p_label(k, lab, sizeof lab), json_object_new_double(s->fast_p[k]));
    }
    json_object_object_add(o, "fast_p", fp);
    json_object_object_add(o, "geomean_speedup_correct", json_object_new_double(s->geomean_correct));
    json_object_object_add(o, "geomean_speedup_all_zero_for_incorrect", json_object_new_double(s->geomean_all_zero));
    json_object_object_add(o, "geomean_speedup_all_baseline_for_incorrect", json_object_new_double(s->geomean_fallback));
    json_object_object_add(o, "min_speedup", json_object_new_double(s->min_speedup));
    json_object_object_add(o, "max_speedup", json_object_new_double(s->max_speedup));
    json_object_object_add(o, "mean_roofline_fraction", json_object_new_double(s->mean_fraction));
    json_object_object_add(o, "with_gemm_anchor", json_object_new_int(s->n_anchor));
    json_object_object_add(o, "baseline_over_gemm_anchor_warnings", json_object_new_int(s->n_anchor_warnings));
    json_object_object_add(o, "timing_warnings", json_object_new_int(s->n_timing_warnings));
    if (r->anchors_path) {
        json_object *t = json_object_new_object();
        json_object_object_add(t, "anchors_file", json_object_new_string(r->anchors_path));
        json_object_object_add(t, "anchors_machine", str_or_null(r->anchors_machine));
        json_object_object_add(t, "tool", json_object_new_string(r->anchors_tool ? r->anchors_tool : "pytorch"));
        json_object_object_add(t, "version", str_or_null(r->anchors_version));
        json_object_object_add(t, "device", str_or_null(r->anchors_device));
        json_object_object_add(t, "threads", r->anchors_threads > 0 ? json_object_new_int(r->anchors_threads) : NULL);
        json_object_object_add(t, "preset", str_or_null(r->anchors_preset));
        json_object_object_add(t, "problems_with_anchor", json_object_new_int(r->anchors_matched));
        json_object_object_add(t, "kforge_threads", r->kforge_threads > 0 ? json_object_new_int(r->kforge_threads) : NULL);
        json_object_object_add(t, "correct_with_anchor", json_object_new_int(s->n_torch));
        json_object_object_add(t, "geomean_speedup_vs_faster", json_object_new_double(s->geomean_vs_torch));
        json_object *ft = json_object_new_object();
        for (int k = 0; k < KF_REPORT_N_P; k++) {
            char lab[16];
            json_object_object_add(ft, kf_rep_p_label(k, lab, sizeof lab), json_object_new_double(s->fast_p_torch[k]));
        }
        json_object_object_add(t, "fast_p", ft);
        json_object_object_add(o, "vs_pytorch", t);
    }
    json_object_object_add(o, "tokens", json_object_new_int64(s->tokens));
    json_object_object_add(o, "cost_usd", json_object_new_double(s->cost_usd));
    json_object_object_add(o, "notes", json_object_new_string(
        "fast_p: fraction of all problems that are correct and have speedup > p (p = 0: correct); "
        "geomean_speedup_correct: over correct problems with a measured baseline; "
        "all_zero_for_incorrect is 0 as soon as one problem has no correct kernel; "
        "all_baseline_for_incorrect counts such problems as speedup 1 (the baseline is kept); "
        KF_REP_ANCHOR_NOTE));
    return o;
}

int kf_report_write_json(const kf_report *r, const char *path, kf_error *err)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "kforge_version", json_object_new_string(PACKAGE_VERSION));
    json_object_object_add(o, "generated", str_or_null(r->generated));
    json_object *m = json_object_new_object();
    json_object_object_add(m, "hostname", str_or_null(r->machine.hostname));
    json_object_object_add(m, "cpu_model", str_or_null(r->machine.cpu_model));
    json_object_object_add(m, "cpus", json_object_new_int(r->machine.cpus));
    json_object_object_add(m, "os", str_or_null(r->machine.os));
    char devs[2048];
    kf_rep_devices(r, devs, sizeof devs);
    json_object_object_add(m, "devices", json_object_new_string(devs));
    json_object_object_add(o, "machine", m);
    json_object *settings = r->settings_json ? json_tokener_parse(r->settings_json) : NULL;
    json_object_object_add(o, "settings", settings);
    json_object_object_add(o, "summary", summary_json(r));
    json_object *arr = json_object_new_array();
    for (int i = 0; i < r->n; i++) json_object_array_add(arr, entry_json(&r->e[i]));
    json_object_object_add(o, "problems", arr);
    if (r->n_groups > 0) json_object_object_add(o, "seeds", seeds_json(r));
    const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
    int rc = kf_write_file_atomic(path, text, err);
    json_object_put(o);
    return rc;
}
