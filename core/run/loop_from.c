/* loop_from.c — `kforge run --from RUN_DIR` (migration): the verified best
 * kernel of another run, read from its result.json and its candidate
 * directory, handed to the generation agent as a reference
 * (kf_agent_reference, agent.h), and the record of which kernel seeded
 * this run (run.json "from", the journal's "start" event, the first
 * generation's "gen" events, result.json "from"). */
#include "loop_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "candidate/candidate.h"
#include "util/fileio.h"

#define POINT_TAG "builtin point: "

static char *jstr(json_object *o, const char *key)
{
    json_object *v;
    return o && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
               ? strdup(json_object_get_string(v)) : NULL;
}

/* The builtin search point a candidate's notes carry, without its
 * "backend" field (it names the source's backend), or NULL. */
static char *point_without_backend(const kf_candidate *c)
{
    const char *s = c && c->notes ? strstr(c->notes, POINT_TAG) : NULL;
    if (!s) return NULL;
    s += strlen(POINT_TAG);
    const char *e = strchr(s, '}');
    if (!e) return NULL;
    char *js = strndup(s, (size_t)(e - s + 1));
    json_object *o = js ? json_tokener_parse(js) : NULL;
    free(js);
    if (!o || !json_object_is_type(o, json_type_object)) { json_object_put(o); return NULL; }
    json_object_object_del(o, "backend");
    char *out = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
    json_object_put(o);
    return out;
}

void kf_loop_from_free(run_state *st)
{
    kf_candidate_free(st->from_cand);
    free(st->from_run_dir);
    free(st->from_backend);
    free(st->from_agent);
    free(st->from_best_dir);
    free(st->from_point);
    st->from_cand = NULL;
    st->from_run_dir = st->from_backend = st->from_agent = st->from_best_dir = st->from_point = NULL;
    st->ctx.reference = NULL;
}

int kf_loop_from_load(run_state *st, const char *dir, kf_error *err)
{
    char abs[PATH_MAX];
    if (!realpath(dir, abs))
        return kf_fail(err, KF_E_BAD_INPUT, "--from %s: %s (give the directory of a finished kforge run)", dir,
                       strerror(errno));
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/result.json", abs);
    kf_error e = {0};
    char *text = kf_read_file(path, &e);
    json_object *o = text ? json_tokener_parse(text) : NULL;
    free(text);
    if (!o || !json_object_is_type(o, json_type_object)) {
        json_object_put(o);
        return kf_fail(err, KF_E_BAD_INPUT, "--from %s: no readable result.json (is it a finished kforge run?)", dir);
    }
    json_object *best = NULL, *v;
    int verified = json_object_object_get_ex(o, "best", &best) && json_object_is_type(best, json_type_object) &&
                   json_object_object_get_ex(best, "verified", &v) && json_object_get_boolean(v);
    char *bdir = verified ? jstr(best, "dir") : NULL;
    if (!bdir) {
        json_object_put(o);
        return kf_fail(err, KF_E_BAD_INPUT, "--from %s: the run has no verified kernel (result.json \"best\"); "
                       "choose a run that found one", dir);
    }
    kf_loop_from_free(st);
    st->from_run_dir = strdup(abs);
    st->from_backend = jstr(o, "backend");
    st->from_agent = jstr(o, "agent");
    st->from_best_dir = bdir;
    st->from_best_s = json_object_object_get_ex(best, "median_s", &v) ? json_object_get_double(v) : 0;
    json_object_put(o);
    int step = 0, sample = 0;
    st->from_best_step = sscanf(bdir, "steps/%d-%d", &step, &sample) == 2 ? step : 0;
    snprintf(path, sizeof path, "%s/%s", abs, bdir);
    st->from_cand = kf_candidate_load(path, &e);
    if (!st->from_cand || !st->from_run_dir) {
        int rc = kf_fail(err, KF_E_BAD_INPUT, "--from %s: its best kernel %s cannot be read: %s", dir, path,
                         e.msg[0] ? e.msg : "out of memory");
        kf_loop_from_free(st);
        return rc;
    }
    st->from_point = point_without_backend(st->from_cand);
    st->from_ref = (kf_agent_reference){
        .run_dir = st->from_run_dir, .backend = st->from_backend ? st->from_backend : "?",
        .agent = st->from_agent ? st->from_agent : "?", .best_step = st->from_best_step,
        .best_dir = st->from_best_dir, .best_s = st->from_best_s, .cand = st->from_cand,
        .point = st->from_point,
    };
    st->ctx.reference = &st->from_ref;
    return 0;
}

json_object *kf_loop_from_json(const run_state *st)
{
    if (!st->from_cand) return NULL;
    json_object *f = json_object_new_object();
    json_object_object_add(f, "run_dir", json_object_new_string(st->from_run_dir));
    json_object_object_add(f, "backend", json_object_new_string(st->from_ref.backend));
    json_object_object_add(f, "agent", json_object_new_string(st->from_ref.agent));
    json_object_object_add(f, "best_step", json_object_new_int(st->from_best_step));
    json_object_object_add(f, "best_dir", json_object_new_string(st->from_best_dir));
    json_object_object_add(f, "best_s", json_object_new_double(st->from_best_s));
    if (st->from_point) json_object_object_add(f, "builtin_point", json_object_new_string(st->from_point));
    return f;
}
