/* fuzz_expr.c — libFuzzer target: integer expressions over a problem's dims
 * (core/candidate/expr.c), evaluated against a fixed small problem, and the
 * candidate manifest parser on the same bytes (bound, and written back and
 * parsed again: tensor maps included), and the same-code comparison's scan of
 * a source (kf_candidate_normalise_code). */
#include <json-c/json.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "candidate/candidate.h"
#include "problem/problem.h"

static const char PROBLEM[] =
    "{\"name\":\"fz\",\"dims\":[\"B\",\"K\",\"N\"],"
    "\"presets\":{\"small\":{\"B\":3,\"K\":7,\"N\":5}},"
    "\"inputs\":[{\"name\":\"x\",\"shape\":[\"B\",\"K\"],\"dtype\":\"float32\"},"
    "{\"name\":\"W\",\"shape\":[\"N\",\"K\"],\"dtype\":\"float32\"}],"
    "\"graph\":[{\"out\":\"y\",\"op\":\"linear\",\"in\":[\"x\",\"W\"]}],\"outputs\":[\"y\"]}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static kf_problem *p;
    static kf_resolved r;
    static int ready = -1;
    if (ready < 0) {
        kf_error e = {0};
        p = kf_problem_parse(PROBLEM, "fuzz", &e);
        ready = p && kf_resolve(p, 0, &r, &e) == 0;
    }
    if (!ready) abort();   /* the fixed problem must parse */
    char *s = malloc(size + 1);
    if (!s) return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    kf_error err = {0};
    int64_t v;
    kf_eval_int_expr(s, &r, &v, &err);
    free(kf_candidate_normalise_code(s));   /* the same-code comparison's scan of a source */
    kf_candidate *c = kf_candidate_parse_manifest(s, NULL, "fuzz", &err);
    if (c) {
        kf_bound b;
        if (kf_candidate_bind(c, &r, &b, &err) == 0) kf_bound_free(&b);
        /* the manifest written back (tensor maps included), its sources
           inline again, parsed again (for the sanitizers) */
        char *back = kf_candidate_manifest_json(c);
        json_object *o = back ? json_tokener_parse(back) : NULL;
        if (o) {
            json_object *srcs = json_object_new_array();
            for (int i = 0; i < c->n_sources; i++) {
                json_object *so = json_object_new_object();
                json_object_object_add(so, "name", json_object_new_string(c->sources[i].name));
                json_object_object_add(so, "text", json_object_new_string(c->sources[i].text ? c->sources[i].text : ""));
                json_object_array_add(srcs, so);
            }
            json_object_object_add(o, "sources", srcs);
            kf_candidate *c2 = kf_candidate_parse_manifest(json_object_to_json_string(o), NULL, "fuzz", &err);
            kf_candidate_free(c2);
            json_object_put(o);
        }
        free(back);
        kf_candidate_free(c);
    }
    free(s);
    return 0;
}
