/* agent.c — agent dispatch and the small shared types of agent.h. */
#include "agent.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

const char *kf_gen_kind_name(kf_gen_kind k)
{
    switch (k) {
    case KF_GEN_FIRST: return "generate";
    case KF_GEN_FIX_COMPILE: return "fix-compile";
    case KF_GEN_FIX_MISMATCH: return "fix-mismatch";
    case KF_GEN_OPTIMIZE: return "optimize";
    case KF_GEN_BASELINE: return "baseline";
    }
    return "?";
}

int kf_gen_kind_from_name(const char *name)
{
    for (int k = KF_GEN_FIRST; k <= KF_GEN_BASELINE; k++)
        if (name && !strcmp(name, kf_gen_kind_name((kf_gen_kind)k))) return k;
    return -1;
}

void kf_analysis_free(kf_analysis *a)
{
    if (!a) return;
    for (int i = 0; i < a->n_recs; i++) {
        free(a->recs[i].what);
        free(a->recs[i].why);
        free(a->recs[i].params);
    }
    free(a->recs);
    free(a->bottleneck);
    free(a->text);
    free(a->missed);
    memset(a, 0, sizeof *a);
}

char *kf_analysis_json(const kf_analysis *a)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "bottleneck", json_object_new_string(a->bottleneck ? a->bottleneck : "unknown"));
    json_object_object_add(o, "text", json_object_new_string(a->text ? a->text : ""));
    json_object_object_add(o, "stop", json_object_new_boolean(a->stop));
    if (a->missed) json_object_object_add(o, "missed", json_object_new_string(a->missed));
    json_object *recs = json_object_new_array();
    for (int i = 0; i < a->n_recs; i++) {
        json_object *r = json_object_new_object();
        json_object_object_add(r, "what", json_object_new_string(a->recs[i].what ? a->recs[i].what : ""));
        json_object_object_add(r, "why", json_object_new_string(a->recs[i].why ? a->recs[i].why : ""));
        json_object_object_add(r, "expected_gain", json_object_new_double(a->recs[i].expected_gain));
        if (a->recs[i].params) {
            json_object *p = json_tokener_parse(a->recs[i].params);
            json_object_object_add(r, "params", p ? p : json_object_new_string(a->recs[i].params));
        }
        json_object_array_add(recs, r);
    }
    json_object_object_add(o, "recommendations", recs);
    char *s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
    json_object_put(o);
    return s;
}

static char *dup_key(json_object *o, const char *k)
{
    json_object *v;
    if (!json_object_object_get_ex(o, k, &v) || !v) return NULL;
    return strdup(json_object_get_string(v));
}

/* params: kf_analysis_json() embeds the point as an object (or as a string
 * when it was not JSON); either way the text comes back */
static char *dup_params(json_object *r)
{
    json_object *v;
    if (!json_object_object_get_ex(r, "params", &v) || !v) return NULL;
    if (json_object_is_type(v, json_type_string)) return strdup(json_object_get_string(v));
    return strdup(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
}

static int parse_rec(json_object *r, kf_recommendation *rec)
{
    json_object *g;
    rec->what = dup_key(r, "what");
    rec->why = dup_key(r, "why");
    rec->params = dup_params(r);
    rec->expected_gain = json_object_object_get_ex(r, "expected_gain", &g) && g ? json_object_get_double(g) : 1.0;
    return rec->what ? 0 : -1;
}

int kf_analysis_parse(const char *json, kf_analysis *out, kf_error *err)
{
    memset(out, 0, sizeof *out);
    json_object *o = json ? json_tokener_parse(json) : NULL, *v, *recs;
    if (!o || !json_object_is_type(o, json_type_object)) {
        json_object_put(o);
        return kf_fail(err, KF_E_BAD_INPUT, "analysis: not a JSON object");
    }
    out->bottleneck = dup_key(o, "bottleneck");
    out->text = dup_key(o, "text");
    out->missed = dup_key(o, "missed");
    out->stop = json_object_object_get_ex(o, "stop", &v) && json_object_get_boolean(v);
    int rc = 0;
    if (json_object_object_get_ex(o, "recommendations", &recs) && json_object_is_type(recs, json_type_array)) {
        size_t n = json_object_array_length(recs);
        out->recs = calloc(n ? n : 1, sizeof *out->recs);
        if (!out->recs) rc = kf_fail(err, KF_E_INTERNAL, "analysis: out of memory");
        for (size_t i = 0; i < n && rc == 0; i++) {
            if (parse_rec(json_object_array_get_idx(recs, i), &out->recs[out->n_recs++]) != 0)
                rc = kf_fail(err, KF_E_BAD_INPUT, "analysis: recommendations[%zu] has no \"what\"", i);
        }
    }
    json_object_put(o);
    if (rc != 0) kf_analysis_free(out);
    return rc;
}

void kf_gen_result_free(kf_gen_result *g)
{
    if (!g) return;
    kf_candidate_free(g->cand);
    free(g->error);
    free(g->label);
    free(g->io.prompt);
    free(g->io.answer);
    memset(g, 0, sizeof *g);
}

kf_agent *kf_agent_open(const char *spec, const kf_agent_opts *opts, kf_error *err)
{
    if (!spec || !*spec || !strcmp(spec, "builtin"))
        return kf_builtin_agent_open(NULL, err);
    if (!strncmp(spec, "builtin:", 8))
        return kf_builtin_agent_open(spec + 8, err);
    return kf_llm_agent_open(spec, opts, err);
}

void kf_agent_close(kf_agent *a)
{
    if (!a) return;
    if (a->ops && a->ops->close) a->ops->close(a);
    else {
        free(a->spec);
        free(a);
    }
}

int kf_agent_check(kf_agent *a, const kf_agent_ctx *ctx, kf_error *err)
{
    return a && a->ops->check ? a->ops->check(a, ctx, err) : 0;
}
