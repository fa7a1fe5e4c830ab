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
