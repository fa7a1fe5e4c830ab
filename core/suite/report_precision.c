/* report_precision.c — the precision and unit of a run's best kernel, read
 * from what its step directory already records (report.h): the unit a
 * cpu-simd kernel names (the profile counter "compute_unit" in eval.json),
 * else the built-in agent's search point (its "precision" knob) in the
 * candidate's notes.  Nothing is inferred from timings. */
#include "report.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/builtin/emit/emit.h"
#include "util/fileio.h"

/* the tag the built-in agent writes before its search point in a
   candidate's notes (core/agent/builtin/builtin_agent.c) */
#define POINT_TAG "builtin point: "

static json_object *read_json(const char *path)
{
    kf_error ignore = {0};
    char *text = kf_read_file(path, &ignore);
    json_object *o = text ? json_tokener_parse(text) : NULL;
    free(text);
    if (o && !json_object_is_type(o, json_type_object)) {
        json_object_put(o);
        o = NULL;
    }
    return o;
}

/* The built-in point's "precision" field (kf_bt_precision), -1 when the
   notes carry no point. */
static int point_precision(const char *notes)
{
    const char *s = notes ? strstr(notes, POINT_TAG) : NULL;
    if (!s) return -1;
    s += strlen(POINT_TAG);
    const char *end = strchr(s, '}');
    if (!end) return -1;
    char *js = strndup(s, (size_t)(end - s + 1));
    json_object *o = js ? json_tokener_parse(js) : NULL, *v;
    free(js);
    int p = -1;
    if (o && json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, "precision", &v) &&
        json_object_is_type(v, json_type_int))
        p = json_object_get_int(v);
    json_object_put(o);
    return p;
}

const char *kf_report_precision_name(int precision, const char *language)
{
    /* the C emitter's BF16 runs on AVX512_BF16 (vdpbf16ps), the others'
       on tensor cores; keyed by the plugin's declared language, as the
       emitters are, never by a plugin's name */
    int cpu = language && !strcmp(language, kf_bt_emit_c.language);
    switch (precision) {
    case 0: return "fp32";
    case 1: return "fp16-storage";
    case 2: return "tf32";
    case 3: return cpu ? "bf16-avx512" : "bf16";
    case 4: return "3xbf16";
    case 5: return "amx-bf16";
    case 6: return "amx-3xbf16";
    case 7: return "amx-2xbf16";
    case 8: return "amx-bf16c";
    case 9: return "bf16c-avx512";
    case 10: return "i16-avx2";
    default: return NULL;
    }
}

const char *kf_report_cpu_unit_name(int unit)
{
    switch (unit) {
    case 0: return "fp32";
    case 1: return "bf16-avx512";
    case 2: return "amx-bf16";
    case 3: return "amx-3xbf16";
    case 4: return "amx-2xbf16";
    case 5: return "i16-avx2";
    default: return NULL;
    }
}

void kf_report_entry_precision(kf_report_entry *e, const char *best_dir)
{
    if (!e->run_dir || !best_dir || strstr(best_dir, "..")) return;
    /* best.dir names the candidate directory, STEP/candidate, beside the
       step's eval.json */
    size_t n = strlen(best_dir), tail = strlen("/candidate");
    int step_len = n > tail && !strcmp(best_dir + n - tail, "/candidate") ? (int)(n - tail) : -1;
    char path[8400];
    /* the unit a cpu-simd kernel names (KF_CPU_USES), which the plugin
       reports as the profile counter "compute_unit": what the kernel
       itself declares, so it comes first (a built-in point's precision
       says what the GEMM would use; a rewrite without a GEMM names fp32) */
    snprintf(path, sizeof path, "%s/%.*s/eval.json", e->run_dir, step_len >= 0 ? step_len : (int)n, best_dir);
    json_object *ev = read_json(path), *t, *cs, *v;
    const char *name = NULL;
    if (ev && json_object_object_get_ex(ev, "timing", &t) && json_object_object_get_ex(t, "counters", &cs) &&
        json_object_object_get_ex(cs, "compute_unit", &v) &&
        (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double))) {
        double u = json_object_get_double(v);
        if (u >= 0 && u <= 2) name = kf_report_cpu_unit_name((int)u);   /* no cast of an out-of-range double */
    }
    json_object_put(ev);
    /* the built-in agent's search point, from the candidate's notes: read
       without a counter, and beside amx-bf16 and bf16-avx512 (bf16 or bf16c) */
    int p = -1;
    if (!name || !strcmp(name, "amx-bf16") || !strcmp(name, "bf16-avx512")) {
        if (step_len >= 0) snprintf(path, sizeof path, "%s/%s/candidate.json", e->run_dir, best_dir);
        else snprintf(path, sizeof path, "%s/%s/candidate/candidate.json", e->run_dir, best_dir);
        json_object *c = read_json(path);
        p = c && json_object_object_get_ex(c, "notes", &v) && json_object_is_type(v, json_type_string)
                ? point_precision(json_object_get_string(v)) : -1;
        json_object_put(c);
    }
    if (name) {
        /* bf16c runs on the same unit as bf16 (the tiles' peak): the point
           tells the two apart */
        int centred = (!strcmp(name, "amx-bf16") && p == 8) || (!strcmp(name, "bf16-avx512") && p == 9);
        e->precision = strdup(centred ? kf_report_precision_name(p, e->language) : name);
        e->precision_from = strdup(centred ? "compute_unit counter and builtin point" : "compute_unit counter");
        return;
    }
    name = kf_report_precision_name(p, e->language);
    if (name) {
        e->precision = strdup(name);
        e->precision_from = strdup("builtin point");
    }
}
