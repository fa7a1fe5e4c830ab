#include "run_record.h"

#include <json-c/json.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "journal.h"

int kf_verdict_from_name(const char *name)
{
    for (int v = KF_PASS; v <= KF_FAIL_TIMING; v++)
        if (!strcmp(kf_verdict_name((kf_verdict)v), name)) return v;
    return -1;
}

int kf_run_save_text(const char *dir, const char *name, const char *text, kf_error *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return kf_write_file_atomic_mode(path, text ? text : "", 0600, err);
}

int kf_run_save_eval(const char *dir, const kf_eval_result *res, kf_error *err)
{
    char *full = kf_eval_result_json(res);
    int rc = kf_run_save_text(dir, "eval.json", full ? full : "{}", err);
    free(full);
    if (rc != 0) return rc;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "verdict", json_object_new_string(kf_verdict_name(res->verdict)));
    json_object_object_add(o, "summary", json_object_new_string(res->summary ? res->summary : ""));
    json_object_object_add(o, "diagnostics", json_object_new_string(res->diagnostics ? res->diagnostics : ""));
    json_object_object_add(o, "trials", json_object_new_int(res->trials_run));
    json_object_object_add(o, "profiled", json_object_new_boolean(res->profiled));
    json_object_object_add(o, "median_s", json_object_new_double(res->timing.median_s));
    json_object_object_add(o, "min_s", json_object_new_double(res->timing.min_s));
    json_object_object_add(o, "floor_s", json_object_new_double(res->roofline.floor_s));
    json_object_object_add(o, "fraction", json_object_new_double(res->roofline.fraction));
    json_object_object_add(o, "report", json_object_new_string(res->timing.report ? res->timing.report : ""));
    rc = kf_run_save_text(dir, "verdict.json", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY), err);
    json_object_put(o);
    return rc;
}

static char *get_str(json_object *o, const char *k)
{
    json_object *v;
    if (!json_object_object_get_ex(o, k, &v)) return NULL;
    const char *s = json_object_get_string(v);
    return s && *s ? strdup(s) : NULL;
}

/* A number; null (how eval.json writes NaN and infinities) reads as NaN,
 * a missing key as 0. */
static double get_num(json_object *o, const char *k)
{
    json_object *v;
    if (!json_object_object_get_ex(o, k, &v)) return 0;
    return v ? json_object_get_double(v) : NAN;
}

static int64_t get_int(json_object *o, const char *k)
{
    json_object *v;
    return json_object_object_get_ex(o, k, &v) && v ? json_object_get_int64(v) : 0;
}

static json_object *get_obj(json_object *o, const char *k, json_type t)
{
    json_object *v;
    return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, t) ? v : NULL;
}

static int load_verdict(json_object *o, kf_eval_result *res)
{
    char *v = get_str(o, "verdict");
    int vv = v ? kf_verdict_from_name(v) : -1;
    free(v);
    if (vv < 0) return -1;
    res->verdict = (kf_verdict)vv;
    return 0;
}

static void load_stats(json_object *arr, kf_eval_result *res)
{
    size_t n = arr ? json_object_array_length(arr) : 0;
    if (n == 0 || !(res->stats = calloc(n, sizeof *res->stats))) return;
    res->n_outputs = (int)n;
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(arr, i);
        kf_output_stats *s = &res->stats[i];
        s->max_abs_err = get_num(e, "max_abs_err");
        s->max_rel_err = get_num(e, "max_rel_err");
        s->max_tol_frac = get_num(e, "max_tol_frac");
        s->rel_l2 = get_num(e, "rel_l2");
        s->n_bad = get_int(e, "n_bad");
        s->n_nan = get_int(e, "n_nan");
        s->n_elems = get_int(e, "n_elems");
    }
}

static void load_mismatches(json_object *arr, kf_eval_result *res)
{
    size_t n = arr ? json_object_array_length(arr) : 0;
    for (size_t i = 0; i < n && res->n_mismatches < KF_MAX_MISMATCHES; i++) {
        json_object *e = json_object_array_get_idx(arr, i);
        kf_mismatch *m = &res->mismatches[res->n_mismatches++];
        m->output = (int)get_int(e, "output");
        m->index = get_int(e, "index");
        m->expected = get_num(e, "expected");
        m->got = get_num(e, "got");
    }
}

static void load_timing(json_object *o, kf_timing *t)
{
    t->median_s = get_num(o, "median_s");
    t->min_s = get_num(o, "min_s");
    t->max_s = get_num(o, "max_s");
    t->mean_s = get_num(o, "mean_s");
    t->p10_s = get_num(o, "p10_s");
    t->p90_s = get_num(o, "p90_s");
    char *clock = get_str(o, "clock");
    t->clock_is_device = clock && !strcmp(clock, "device");
    free(clock);
    t->n_sets = (int)get_int(o, "n_sets");
    t->report = get_str(o, "report");
    json_object *s = get_obj(o, "samples_s", json_type_array);
    size_t n = s ? json_object_array_length(s) : 0;
    if (n > 0 && (t->samples_s = calloc(n, sizeof *t->samples_s))) {
        t->n = (int)n;
        for (size_t i = 0; i < n; i++) {
            json_object *v = json_object_array_get_idx(s, i);
            t->samples_s[i] = v ? json_object_get_double(v) : NAN;
        }
    }
    json_object *c = get_obj(o, "counters", json_type_object);
    if (!c) return;
    json_object_object_foreach(c, name, val) {
        if (t->n_counters >= KF_MAX_COUNTERS) break;
        kf_counter *k = &t->counters[t->n_counters++];
        snprintf(k->name, sizeof k->name, "%s", name);
        k->value = val ? json_object_get_double(val) : NAN;
    }
}

static void load_roofline(json_object *o, kf_roofline *r)
{
    r->flops = get_num(o, "flops");
    r->min_bytes = get_num(o, "min_bytes");
    r->peak_flops = get_num(o, "peak_flops");
    r->peak_bytes_per_s = get_num(o, "peak_bytes_per_s");
    r->cache_bytes_per_s = get_num(o, "cache_bytes_per_s");
    r->floor_s = get_num(o, "floor_s");
    r->hard_floor_s = get_num(o, "hard_floor_s");
    r->fraction = get_num(o, "fraction");
    r->achieved_flops = get_num(o, "achieved_flops");
    r->achieved_bytes_per_s = get_num(o, "achieved_bytes_per_s");
    r->device_floor_s = get_num(o, "device_floor_s");   /* 0 in records from before: the fraction decides */
    r->device_fraction = get_num(o, "device_fraction");
    json_object *b;
    r->cache_resident = json_object_object_get_ex(o, "cache_resident", &b) && json_object_get_boolean(b);
    r->flop_term = json_object_object_get_ex(o, "flop_term", &b) && json_object_get_boolean(b);
    /* each unit's peak (0 in records from before): the analyzer rates a precision change at
       the new unit's peak, and a resumed run must rate it as the live one did */
    json_object *u = get_obj(o, "unit_peak_flops", json_type_array);
    for (int i = 0; u && i < KF_ROOFLINE_UNITS && i < (int)json_object_array_length(u); i++)
        r->unit_peak_flops[i] = json_object_get_double(json_object_array_get_idx(u, i));
}

/* eval.json, as kf_eval_result_json() wrote it: the whole result back,
 * timing samples, counters and every roofline figure included, so that a
 * resumed run decides from what the interrupted one saw. */
static int load_full(json_object *o, kf_eval_result *res)
{
    if (load_verdict(o, res) != 0) return -1;
    res->failed_trial = (int)get_int(o, "failed_trial");
    res->trials_run = (int)get_int(o, "trials_run");
    res->edge_tol_frac = get_num(o, "edge_tol_frac");
    res->summary = get_str(o, "summary");
    res->diagnostics = get_str(o, "diagnostics");
    load_stats(get_obj(o, "stats", json_type_array), res);
    load_mismatches(get_obj(o, "mismatches", json_type_array), res);
    json_object *p;
    res->profiled = json_object_object_get_ex(o, "profiled", &p) && json_object_get_boolean(p);
    json_object *t = get_obj(o, "timing", json_type_object);
    json_object *r = get_obj(o, "roofline", json_type_object);
    if (t) load_timing(t, &res->timing);
    if (r) load_roofline(r, &res->roofline);
    res->compile_s = get_num(o, "compile_s");
    res->verify_s = get_num(o, "verify_s");
    res->profile_s = get_num(o, "profile_s");
    return 0;
}

/* verdict.json: what records from before eval.json was read back hold. */
static int load_short(json_object *o, kf_eval_result *res)
{
    if (load_verdict(o, res) != 0) return -1;
    res->failed_trial = -1;
    res->summary = get_str(o, "summary");
    res->diagnostics = get_str(o, "diagnostics");
    res->trials_run = (int)get_num(o, "trials");
    json_object *p;
    res->profiled = json_object_object_get_ex(o, "profiled", &p) && json_object_get_boolean(p);
    res->timing.median_s = get_num(o, "median_s");
    res->timing.min_s = get_num(o, "min_s");
    res->timing.report = get_str(o, "report");
    res->roofline.floor_s = get_num(o, "floor_s");
    res->roofline.fraction = get_num(o, "fraction");
    return 0;
}

int kf_run_load_eval(const char *dir, kf_eval_result *res, kf_error *err)
{
    char path[4200];
    struct stat sb;
    snprintf(path, sizeof path, "%s/eval.json", dir);
    int full = stat(path, &sb) == 0;
    if (!full) snprintf(path, sizeof path, "%s/verdict.json", dir);
    char *text = kf_read_file(path, err);
    if (!text) return -1;
    json_object *o = json_tokener_parse(text);
    free(text);
    if (!o || !json_object_is_type(o, json_type_object)) {
        json_object_put(o);
        return kf_fail(err, KF_E_BAD_INPUT, "%s: not a JSON object (the run directory is damaged)", path);
    }
    memset(res, 0, sizeof *res);
    int rc = full ? load_full(o, res) : load_short(o, res);
    json_object_put(o);
    if (rc != 0) {
        kf_eval_result_free(res);
        return kf_fail(err, KF_E_BAD_INPUT, "%s: unknown verdict (the run directory is damaged)", path);
    }
    return 0;
}

int kf_run_save_io(const char *dir, const kf_agent_io *io, kf_error *err)
{
    if (io->prompt && kf_run_save_text(dir, "prompt.md", io->prompt, err) != 0) return -1;
    if (io->answer && kf_run_save_text(dir, "answer.md", io->answer, err) != 0) return -1;
    return 0;
}
