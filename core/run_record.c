#include "run_record.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "journal.h"

const char *kf_run_fmt_time(double s, char *buf, size_t n)
{
    if (s <= 0) snprintf(buf, n, "-");
    else if (s < 1e-3) snprintf(buf, n, "%.1f us", s * 1e6);
    else if (s < 1) snprintf(buf, n, "%.3g ms", s * 1e3);
    else snprintf(buf, n, "%.3g s", s);
    return buf;
}

int kf_verdict_from_name(const char *name)
{
    for (int v = KF_PASS; v <= KF_FAIL_INTERNAL; v++)
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

static double get_num(json_object *o, const char *k)
{
    json_object *v;
    return json_object_object_get_ex(o, k, &v) ? json_object_get_double(v) : 0;
}

int kf_run_load_eval(const char *dir, kf_eval_result *res, kf_error *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/verdict.json", dir);
    char *text = kf_read_file(path, err);
    if (!text) return -1;
    json_object *o = json_tokener_parse(text);
    free(text);
    if (!o) return kf_fail(err, 2, "%s: not valid JSON (the run directory is damaged)", path);
    memset(res, 0, sizeof *res);
    char *v = get_str(o, "verdict");
    int vv = v ? kf_verdict_from_name(v) : -1;
    free(v);
    if (vv < 0) {
        json_object_put(o);
        return kf_fail(err, 2, "%s: unknown verdict", path);
    }
    res->verdict = (kf_verdict)vv;
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
    json_object_put(o);
    return 0;
}

int kf_run_save_io(const char *dir, const kf_agent_io *io, kf_error *err)
{
    if (io->prompt && kf_run_save_text(dir, "prompt.md", io->prompt, err) != 0) return -1;
    if (io->answer && kf_run_save_text(dir, "answer.md", io->answer, err) != 0) return -1;
    return 0;
}
