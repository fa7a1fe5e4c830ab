/* eval_json.c — kf_eval_result_json(): the result as written into run
 * records and by `kforge verify --json`.  Non-finite numbers become null
 * (JSON has no NaN or infinity). */
#include "eval_internal.h"
#include "sandbox/sandbox.h"

#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_object *num(double v)
{
    return isfinite(v) ? json_object_new_double(v) : NULL;
}

static json_object *str(const char *s)
{
    return s ? json_object_new_string(s) : NULL;
}

static json_object *timing_json(const kf_timing *t)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "n", json_object_new_int(t->n));
    json_object_object_add(o, "median_s", num(t->median_s));
    json_object_object_add(o, "min_s", num(t->min_s));
    json_object_object_add(o, "max_s", num(t->max_s));
    json_object_object_add(o, "mean_s", num(t->mean_s));
    json_object_object_add(o, "p10_s", num(t->p10_s));
    json_object_object_add(o, "p90_s", num(t->p90_s));
    json_object_object_add(o, "clock", json_object_new_string(t->clock_is_device ? "device" : "host"));
    json_object_object_add(o, "n_sets", json_object_new_int(t->n_sets));
    json_object *s = json_object_new_array();
    for (int i = 0; i < t->n && t->samples_s; i++) json_object_array_add(s, num(t->samples_s[i]));
    json_object_object_add(o, "samples_s", s);
    json_object *c = json_object_new_object();
    for (int i = 0; i < t->n_counters && i < KF_MAX_COUNTERS; i++)
        json_object_object_add(c, t->counters[i].name, num(t->counters[i].value));
    json_object_object_add(o, "counters", c);
    json_object_object_add(o, "report", str(t->report));
    json_object_object_add(o, "parent_median_s", num(t->parent_median_s));
    json_object_object_add(o, "channel_s", num(t->channel_s));
    if (t->lead_in) json_object_object_add(o, "lead_in_median_s", num(t->lead_in_median_s));
    json_object_object_add(o, "n_checked", json_object_new_int(t->n_checked));
    json_object_object_add(o, "rounds", json_object_new_int(t->rounds));
    json_object *rt = json_object_new_array();
    for (int i = 0; i < t->n && t->round_trips_s; i++) json_object_array_add(rt, num(t->round_trips_s[i]));
    json_object_object_add(o, "round_trips_s", rt);
    return o;
}

static json_object *sandbox_json(const kf_eval_result *res)
{
    json_object *o = json_object_new_object();
    char have[128], miss[128];
    kf_sandbox_layers_text(res->sandbox_layers, have, sizeof have);
    kf_sandbox_missing_text(res->sandbox_layers, miss, sizeof miss);
    json_object_object_add(o, "mode", json_object_new_string(kf_sandbox_mode_name((kf_sandbox_mode)res->sandbox_mode)));
    json_object_object_add(o, "layers", json_object_new_string(have));
    json_object_object_add(o, "missing", json_object_new_string(miss));
    json_object_object_add(o, "why", str(res->sandbox_why));
    return o;
}

static json_object *roofline_json(const kf_roofline *r)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "flops", num(r->flops));
    json_object_object_add(o, "min_bytes", num(r->min_bytes));
    json_object_object_add(o, "peak_flops", num(r->peak_flops));
    json_object_object_add(o, "peak_bytes_per_s", num(r->peak_bytes_per_s));
    json_object_object_add(o, "cache_bytes_per_s", num(r->cache_bytes_per_s));
    json_object_object_add(o, "floor_s", num(r->floor_s));
    json_object_object_add(o, "hard_floor_s", num(r->hard_floor_s));
    json_object_object_add(o, "cache_resident", json_object_new_boolean(r->cache_resident));
    json_object_object_add(o, "flop_term", json_object_new_boolean(r->flop_term));
    json_object_object_add(o, "fraction", num(r->fraction));
    json_object_object_add(o, "achieved_flops", num(r->achieved_flops));
    json_object_object_add(o, "achieved_bytes_per_s", num(r->achieved_bytes_per_s));
    json_object_object_add(o, "device_floor_s", num(r->device_floor_s));
    json_object_object_add(o, "device_fraction", num(r->device_fraction));
    json_object *u = json_object_new_array();
    for (int i = 0; i < KF_ROOFLINE_UNITS; i++) json_object_array_add(u, num(r->unit_peak_flops[i]));
    json_object_object_add(o, "unit_peak_flops", u);
    return o;
}

/* The counters replay's result (counters.h): absent when not asked for. */
static json_object *hw_counters_json(const kf_counters *c)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "status", json_object_new_string(c->state == KF_COUNTERS_COLLECTED ? "collected"
                                                                                                 : "unavailable"));
    json_object_object_add(o, "why", str(c->why));
    json_object_object_add(o, "tool", str(c->tool));
    if (c->sandbox) {
        char have[128];
        kf_sandbox_layers_text(c->sandbox, have, sizeof have);
        json_object_object_add(o, "sandbox", json_object_new_string(have));
    }
    json_object *ks = json_object_new_array();
    for (int i = 0; i < c->n_kernels && i < KF_COUNTERS_MAX_KERNELS; i++) {
        const kf_kernel_counters *k = &c->k[i];
        json_object *e = json_object_new_object();
        json_object_object_add(e, "kernel", str(k->kernel));
        json_object_object_add(e, "id", json_object_new_int(k->id));
        json_object *m = json_object_new_object(), *u = json_object_new_object();
        for (int j = 0; j < k->n; j++) {
            json_object_object_add(m, k->m[j].name, num(k->m[j].value));
            json_object_object_add(u, k->m[j].name, str(k->m[j].unit));
        }
        json_object_object_add(e, "metrics", m);
        json_object_object_add(e, "units", u);
        json_object_array_add(ks, e);
    }
    json_object_object_add(o, "kernels", ks);
    return o;
}

char *kf_eval_result_json(const kf_eval_result *res)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "verdict", json_object_new_string(kf_verdict_name(res->verdict)));
    json_object_object_add(o, "pass", json_object_new_boolean(res->verdict == KF_PASS));
    if (res->offline) {
        /* a compile-only evaluation: "pass" means it compiled; nothing ran */
        json_object *co = json_object_new_object();
        json_object_object_add(co, "bytes", json_object_new_int64((int64_t)res->offline_size));
        json_object_object_add(co, "report", str(res->offline_report));
        json_object_object_add(o, "compile_only", co);
    }
    json_object_object_add(o, "failed_trial", json_object_new_int(res->failed_trial));
    json_object_object_add(o, "trials_run", json_object_new_int(res->trials_run));
    json_object_object_add(o, "edge_tol_frac", num(res->edge_tol_frac));
    json_object_object_add(o, "summary", str(res->summary));
    json_object_object_add(o, "diagnostics", str(res->diagnostics));
    json_object_object_add(o, "sandbox", sandbox_json(res));
    json_object *st = json_object_new_array();
    for (int i = 0; i < res->n_outputs && res->stats; i++) {
        const kf_output_stats *s = &res->stats[i];
        json_object *e = json_object_new_object();
        json_object_object_add(e, "output", json_object_new_int(i));
        json_object_object_add(e, "max_abs_err", num(s->max_abs_err));
        json_object_object_add(e, "max_rel_err", num(s->max_rel_err));
        json_object_object_add(e, "max_tol_frac", num(s->max_tol_frac));
        json_object_object_add(e, "rel_l2", num(s->rel_l2));
        json_object_object_add(e, "rel_spread", s->spread_applies ? num(s->rel_spread) : NULL);
        /* in every trial the reference had one value at all its elements:
           the check tests that value only */
        json_object_object_add(e, "reference_constant", json_object_new_boolean(!s->spread_applies && s->n_elems > 1));
        json_object_object_add(e, "n_bad", json_object_new_int64(s->n_bad));
        json_object_object_add(e, "n_nan", json_object_new_int64(s->n_nan));
        json_object_object_add(e, "n_elems", json_object_new_int64(s->n_elems));
        json_object_array_add(st, e);
    }
    json_object_object_add(o, "stats", st);
    json_object *mm = json_object_new_array();
    for (int i = 0; i < res->n_mismatches && i < KF_MAX_MISMATCHES; i++) {
        json_object *e = json_object_new_object();
        json_object_object_add(e, "output", json_object_new_int(res->mismatches[i].output));
        json_object_object_add(e, "index", json_object_new_int64(res->mismatches[i].index));
        json_object_object_add(e, "expected", num(res->mismatches[i].expected));
        json_object_object_add(e, "got", num(res->mismatches[i].got));
        json_object_array_add(mm, e);
    }
    json_object_object_add(o, "mismatches", mm);
    json_object_object_add(o, "profiled", json_object_new_boolean(res->profiled));
    if (res->profiled) {
        json_object_object_add(o, "timing", timing_json(&res->timing));
        json_object_object_add(o, "roofline", roofline_json(&res->roofline));
    }
    if (res->hw.state != KF_COUNTERS_NONE) json_object_object_add(o, "hw_counters", hw_counters_json(&res->hw));
    json_object *rc = json_object_new_object();
    json_object_object_add(rc, "cached", json_object_new_int(res->ref_cached));
    json_object_object_add(rc, "computed", json_object_new_int(res->ref_computed));
    json_object_object_add(o, "reference_sets", rc);
    json_object_object_add(o, "compile_s", num(res->compile_s));
    json_object_object_add(o, "verify_s", num(res->verify_s));
    json_object_object_add(o, "profile_s", num(res->profile_s));
    if (res->profiled) {
        json_object *pb = json_object_new_object();
        json_object_object_add(pb, "timed_calls_s", num(res->profile_calls_s));
        json_object_object_add(pb, "draw_inputs_s", num(res->profile_draw_s));
        json_object_object_add(pb, "check_runs_s", num(res->profile_check_s));
        json_object_object_add(o, "profile_breakdown", pb);
    }
    char *s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
    return s;
}
