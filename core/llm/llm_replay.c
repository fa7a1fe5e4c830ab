/* llm_replay.c — answers from a cassette (JSON lines written by kf_llm_set_record).
 *
 * Entries are keyed by the hash of the request's messages and parameters (not provider,
 * URL or model, so a cassette recorded against one server replays for any spec).  Entries
 * with one key are served in recorded order; once used up, the last one repeats. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/fileio.h"
#include "llm_internal.h"

typedef struct entry {
    char key[65];
    json_object *response;
    int used;
} entry;

typedef struct cassette {
    entry *e;
    int n;
} cassette;

static void replay_close(kf_llm *llm)
{
    cassette *c = llm->priv;
    if (!c) return;
    for (int i = 0; i < c->n; i++) json_object_put(c->e[i].response);
    free(c->e);
    free(c);
    llm->priv = NULL;
}

static int replay_open(kf_llm *llm, kf_error *err)
{
    const char *path = llm->arg;
    char *text = kf_read_file(path, NULL);
    if (!text)
        return kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG, "replay: cannot read the cassette %s: %m (record one with --record FILE)", path);
    cassette *c = calloc(1, sizeof *c);
    if (!c) { free(text); return kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG, "out of memory"); }
    llm->priv = c;
    int lines = 0, rc = 0;
    for (char *p = text; *p; p++) if (*p == '\n') lines++;
    c->e = calloc((size_t)lines + 1, sizeof *c->e);
    if (!c->e) { free(text); return kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG, "out of memory"); }
    int lineno = 0;
    char *save = NULL;
    for (char *line = text; line && rc == 0; line = save) {
        char *nl = strchr(line, '\n');
        save = nl ? nl + 1 : NULL;
        if (nl) *nl = '\0';
        lineno++;
        if (strspn(line, " \t\r") == strlen(line)) continue;
        json_object *o = json_tokener_parse(line), *k, *r;
        if (!o || !json_object_object_get_ex(o, "key", &k) || !json_object_is_type(k, json_type_string) ||
            strlen(json_object_get_string(k)) != 64 || !json_object_object_get_ex(o, "response", &r) ||
            !json_object_is_type(r, json_type_object)) {
            rc = kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG,
                         "replay: %s:%d: not a cassette entry (want {\"key\":..,\"request\":..,\"response\":..})",
                         path, lineno);
        } else {
            entry *en = &c->e[c->n++];
            memcpy(en->key, json_object_get_string(k), 65);
            en->response = json_object_get(r);
        }
        json_object_put(o);
    }
    free(text);
    return rc;
}

static int replay_complete(kf_llm *llm, const kf_llm_request *req, const char *model,
                           kf_llm_response *resp, kf_error *err)
{
    (void)model;
    cassette *c = llm->priv;
    json_object *partial = kf_llm_request_json(llm, req, NULL, 0);
    char key[65];
    kf_llm_json_key(partial, key);
    json_object_put(partial);
    entry *hit = NULL, *last = NULL;
    for (int i = 0; i < c->n && !hit; i++) {
        if (strcmp(c->e[i].key, key) != 0) continue;
        if (!c->e[i].used) hit = &c->e[i];
        else last = &c->e[i];
    }
    if (!hit) hit = last;
    if (!hit)
        return kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_REPLAY_MISS,
                       "replay: %s has no answer for this request (key %s) — the prompt changed since it was recorded; record again with --record FILE",
                       llm->arg, key);
    hit->used = 1;
    char what[300];
    snprintf(what, sizeof what, "replay: %.250s", llm->arg);
    if (kf_llm_response_from_json(hit->response, resp, what, err) < 0) return -1;
    resp->cost_usd = 0;
    return 0;
}

const kf_llm_provider kf_llm_provider_replay = {
    .name = "replay",
    .cacheable = 0,
    .open = replay_open,
    .close = replay_close,
    .complete = replay_complete,
};
