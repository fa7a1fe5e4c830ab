/* report_anchors.c — PyTorch's times beside every problem of a report
 * (kf_report_load_anchors, report.h). */
#include "config.h"
#include "report_internal.h"
#include "util/fileio.h"

#include <json-c/json.h>
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
    int matched = 0;
    for (int i = 0; i < r->n; i++) {
        kf_report_entry *e = &r->e[i];
        json_object *p;
        e->torch_eager_s = e->torch_compile_s = e->vs_torch = 0;
        if (!e->name || !json_object_object_get_ex(probs, e->name, &p) || !json_object_is_type(p, json_type_object))
            continue;
        e->torch_eager_s = ms_field(p, "eager_ms");
        e->torch_compile_s = ms_field(p, "compile_ms");
        double best = e->torch_eager_s > 0 && (e->torch_compile_s <= 0 || e->torch_eager_s < e->torch_compile_s)
                          ? e->torch_eager_s : e->torch_compile_s;
        if (best > 0) matched++;
        if (best > 0 && e->status == KF_REPORT_CORRECT && e->best_s > 0) e->vs_torch = best / e->best_s;
    }
    free(r->anchors_path);
    r->anchors_path = strdup(path);
    free(r->anchors_machine);
    r->anchors_machine = NULL;
    json_object *m;
    if (json_object_object_get_ex(root, "machine", &m))
        r->anchors_machine = strdup(json_object_to_json_string_ext(m, JSON_C_TO_STRING_PLAIN |
                                                                          JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(root);
    kf_report_summarize(r);
    if (matched == 0 && r->n > 0)
        return kf_fail(err, KF_E_BAD_INPUT, "%s names none of the report's %d problems (the anchors are by problem "
                       "name, e.g. \"%s\")", path, r->n, r->e[0].name ? r->e[0].name : "?");
    return 0;
}
