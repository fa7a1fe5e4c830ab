/* report_anchors.c — a reference framework's times (PyTorch eager and
 * torch.compile, or ONNX Runtime) beside every problem of a report
 * (kf_report_load_anchors, report.h). */
#include "config.h"
#include "report_internal.h"
#include "util/fileio.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double ms_field(json_object *o, const char *key)
{
    json_object *v;
    if (!json_object_object_get_ex(o, key, &v)) return 0;
    if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int)) return 0;
    double x = json_object_get_double(v);
    return x > 0 && x < 1e9 ? x * 1e-3 : 0;
}

/* A copy of the string member KEY of O, or NULL when absent or not a non-empty string. */
static char *str_field(json_object *o, const char *key)
{
    json_object *v;
    if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string)) return NULL;
    const char *s = json_object_get_string(v);
    return s && *s ? strdup(s) : NULL;
}

static void set(char **dst, char *src)
{
    free(*dst);
    *dst = src;
}

const char *kf_report_anchors_label(const kf_report *r)
{
    const char *t = r->anchors_tool;
    if (!t || strcmp(t, "pytorch") == 0) return "PyTorch";
    if (strcmp(t, "onnxruntime") == 0) return "ONNX Runtime";
    return t;
}

const char *kf_report_anchors_desc(const kf_report *r, char *buf, size_t n)
{
    char thr[48] = "";
    if (r->anchors_threads > 0)
        snprintf(thr, sizeof thr, ", %d thread%s", r->anchors_threads, r->anchors_threads == 1 ? "" : "s");
    snprintf(buf, n, "%s%s%s on %s%s, preset %s", r->anchors_tool ? r->anchors_tool : "pytorch",
             r->anchors_version ? " " : "", r->anchors_version ? r->anchors_version : "",
             r->anchors_device ? r->anchors_device : "an unstated device", thr,
             r->anchors_preset ? r->anchors_preset : "not stated");
    return buf;
}

/* The first entry run at another preset than the anchors', or NULL. */
static const kf_report_entry *other_preset(const kf_report *r, const char *preset)
{
    if (!preset) return NULL;
    for (int i = 0; i < r->n; i++)
        if (r->e[i].preset && strcmp(r->e[i].preset, preset) != 0) return &r->e[i];
    return NULL;
}

int kf_report_load_anchors(kf_report *r, const char *path, kf_error *err)
{
    char *text = kf_read_file(path, err);
    if (!text) return -1;
    json_object *root = json_tokener_parse(text);
    free(text);
    json_object *probs = NULL;
    if (!root || !json_object_is_type(root, json_type_object) ||
        !json_object_object_get_ex(root, "problems", &probs) || !json_object_is_type(probs, json_type_object)) {
        json_object_put(root);
        return kf_fail(err, KF_E_BAD_INPUT, "%s: not an anchors file (a JSON object with \"problems\": {NAME: "
                       "{\"eager_ms\", \"compile_ms\"}}, as bench/anchors/torch_anchors.py writes)", path);
    }
    char *preset = str_field(root, "preset");
    const kf_report_entry *o = other_preset(r, preset);
    if (o) {
        kf_fail(err, KF_E_BAD_INPUT, "%s: the anchors were measured at preset '%s' but %s ran at '%s': measure the "
                "anchors at the runs' preset (--preset %s)", path, preset, o->name ? o->name : "a run", o->preset,
                o->preset);
        free(preset);
        json_object_put(root);
        return -1;
    }
    int matched = 0, has_compile = 0;
    for (int i = 0; i < r->n; i++) {
        kf_report_entry *e = &r->e[i];
        json_object *p;
        e->torch_eager_s = e->torch_compile_s = e->vs_torch = 0;
        if (!e->name || !json_object_object_get_ex(probs, e->name, &p) || !json_object_is_type(p, json_type_object))
            continue;
        e->torch_eager_s = ms_field(p, "eager_ms");
        e->torch_compile_s = ms_field(p, "compile_ms");
        if (e->torch_compile_s > 0) has_compile = 1;
        double best = e->torch_eager_s > 0 && (e->torch_compile_s <= 0 || e->torch_eager_s < e->torch_compile_s)
                          ? e->torch_eager_s : e->torch_compile_s;
        if (best > 0) matched++;
        if (best > 0 && e->status == KF_REPORT_CORRECT && e->best_s > 0) e->vs_torch = best / e->best_s;
    }
    set(&r->anchors_path, strdup(path));
    set(&r->anchors_preset, preset);
    set(&r->anchors_tool, str_field(root, "tool"));
    json_object *m = NULL, *v;
    json_object_object_get_ex(root, "machine", &m);
    char *version = str_field(root, "version");
    if (!version && (!r->anchors_tool || strcmp(r->anchors_tool, "pytorch") == 0))
        version = str_field(m, "torch");   /* files of torch_anchors.py before "version" */
    set(&r->anchors_version, version);
    set(&r->anchors_device, str_field(root, "device"));
    r->anchors_threads = json_object_object_get_ex(root, "threads", &v) && json_object_is_type(v, json_type_int) &&
                                 json_object_get_int(v) > 0 ? json_object_get_int(v) : 0;
    r->anchors_matched = matched;
    r->kforge_threads = 0;
    for (int i = 0; i < r->n; i++) {
        int t = r->e[i].anchor_threads;
        if (t <= 0) continue;
        if (r->kforge_threads == 0) r->kforge_threads = t;
        else if (r->kforge_threads != t) r->kforge_threads = -1;
    }
    r->anchors_has_compile = has_compile;
    set(&r->anchors_machine, m ? strdup(json_object_to_json_string_ext(m, JSON_C_TO_STRING_PLAIN |
                                                                               JSON_C_TO_STRING_NOSLASHESCAPE))
                               : NULL);
    json_object_put(root);
    kf_report_summarize(r);
    if (matched == 0 && r->n > 0)
        return kf_fail(err, KF_E_BAD_INPUT, "%s names none of the report's %d problems (the anchors are by problem "
                       "name, e.g. \"%s\")", path, r->n, r->e[0].name ? r->e[0].name : "?");
    return 0;
}
