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
    json_object *keyed;          /* what the key hashed: "keyed", else "request" (may be NULL) */
    int used;
} entry;

typedef struct cassette {
    entry *e;
    int n;
    int ctx_tokens;              /* the context recorded with the requests, 0 none */
} cassette;

static void replay_close(kf_llm *llm)
{
    cassette *c = llm->priv;
    if (!c) return;
    for (int i = 0; i < c->n; i++) {
        json_object_put(c->e[i].response);
        json_object_put(c->e[i].keyed);
    }
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
        json_object *o = json_tokener_parse(line), *k, *r, *q;
        if (o && json_object_object_get_ex(o, "error", &r) && !json_object_object_get_ex(o, "response", &q)) {
            json_object_put(o);          /* a failed request, recorded for the record */
            continue;
        }
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
            if (json_object_object_get_ex(o, "keyed", &q) || json_object_object_get_ex(o, "request", &q))
                en->keyed = json_object_get(q);
            json_object *cx;
            if (json_object_object_get_ex(o, "request", &q) && json_object_object_get_ex(q, "context_tokens", &cx) &&
                json_object_get_int(cx) > c->ctx_tokens)
                c->ctx_tokens = json_object_get_int(cx);
        }
        json_object_put(o);
    }
    free(text);
    return rc;
}

/* One line of text around byte off of s, for messages. */
static void excerpt(const char *s, size_t off, char *out, size_t n)
{
    size_t a = off, len = strlen(s);
    while (a > 0 && s[a - 1] != '\n' && off - a < 60) a--;
    size_t b = off;
    while (b < len && s[b] != '\n' && b - off < 60) b++;
    snprintf(out, n, "'%.*s'", (int)(b - a), s + a);
}

/* What differs between the request now (keyed form) and the recorded entry closest to it:
 * the first differing parameter, or message and line. */
static void what_differs(const cassette *c, json_object *now, char *out, size_t n)
{
    const char *params[] = {"temperature", "max_tokens", "seed", "stop", NULL};
    json_object *nm = NULL, *rm = NULL;
    json_object_object_get_ex(now, "messages", &nm);
    const entry *best = NULL;
    size_t best_common = 0;
    int best_params = -1;
    for (int i = 0; i < c->n; i++) {
        if (!c->e[i].keyed || !json_object_object_get_ex(c->e[i].keyed, "messages", &rm)) continue;
        /* the closest: most parameters alike, then the longest common start of the text */
        int same = 0;
        for (int p = 0; params[p]; p++) {
            json_object *a = NULL, *b = NULL;
            json_object_object_get_ex(now, params[p], &a);
            json_object_object_get_ex(c->e[i].keyed, params[p], &b);
            same += json_object_equal(a, b);
        }
        size_t common = 0;
        size_t k = json_object_array_length(rm), kn = nm ? json_object_array_length(nm) : 0;
        for (size_t m = 0; m < k && m < kn; m++) {
            const char *x = json_object_get_string(json_object_array_get_idx(nm, m));
            const char *y = json_object_get_string(json_object_array_get_idx(rm, m));
            size_t j = 0;
            while (x[j] && x[j] == y[j]) j++;
            common += j;
            if (x[j] || y[j]) break;
        }
        if (same > best_params || (same == best_params && common > best_common)) {
            best = &c->e[i];
            best_params = same;
            best_common = common;
        }
    }
    if (!best) {
        snprintf(out, n, "the cassette holds no request to compare with");
        return;
    }
    for (int p = 0; params[p]; p++) {
        json_object *a = NULL, *b = NULL;
        json_object_object_get_ex(now, params[p], &a);
        json_object_object_get_ex(best->keyed, params[p], &b);
        if (!json_object_equal(a, b)) {
            snprintf(out, n, "%s is %s now, %s in the closest recorded request (%.12s...)", params[p],
                     a ? json_object_to_json_string(a) : "unset", b ? json_object_to_json_string(b) : "unset", best->key);
            return;
        }
    }
    json_object_object_get_ex(best->keyed, "messages", &rm);
    size_t k = json_object_array_length(rm), kn = nm ? json_object_array_length(nm) : 0;
    if (k != kn) {
        snprintf(out, n, "%zu messages now, %zu in the closest recorded request (%.12s...)", kn, k, best->key);
        return;
    }
    for (size_t m = 0; m < k; m++) {
        json_object *xm = json_object_array_get_idx(nm, m), *ym = json_object_array_get_idx(rm, m), *xc, *yc, *xr;
        if (!json_object_object_get_ex(xm, "content", &xc) || !json_object_object_get_ex(ym, "content", &yc)) continue;
        const char *x = json_object_get_string(xc), *y = json_object_get_string(yc);
        if (!strcmp(x, y)) continue;
        size_t j = 0, line = 1;
        while (x[j] && x[j] == y[j]) { if (x[j] == '\n') line++; j++; }
        char ex[200], ey[200];
        excerpt(x, j, ex, sizeof ex);
        excerpt(y, j, ey, sizeof ey);
        snprintf(out, n, "message %zu (%s), line %zu: now %s, recorded %s (closest entry %.12s...)", m + 1,
                 json_object_object_get_ex(xm, "role", &xr) ? json_object_get_string(xr) : "?", line, ex, ey, best->key);
        return;
    }
    snprintf(out, n, "the closest recorded request (%.12s...) has the same text: the cassette was cut short or recorded with other settings", best->key);
}

static int replay_complete(kf_llm *llm, const kf_llm_request *req, const char *model,
                           kf_llm_response *resp, kf_error *err)
{
    (void)model;
    cassette *c = llm->priv;
    json_object *partial = kf_llm_request_json(llm, req, NULL, 0, 1);
    char key[65];
    kf_llm_json_key(partial, key);
    entry *hit = NULL, *last = NULL;
    for (int i = 0; i < c->n && !hit; i++) {
        if (strcmp(c->e[i].key, key) != 0) continue;
        if (!c->e[i].used) hit = &c->e[i];
        else last = &c->e[i];
    }
    if (!hit) hit = last;
    if (!hit) {
        char diff[900];
        what_differs(c, partial, diff, sizeof diff);
        json_object_put(partial);
        return kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_REPLAY_MISS,
                       "replay: %s has no answer for this request (key %.12s...): %s; record again with --record FILE",
                       llm->arg, key, diff);
    }
    json_object_put(partial);
    hit->used = 1;
    char what[300];
    snprintf(what, sizeof what, "replay: %.250s", llm->arg);
    if (kf_llm_response_from_json(hit->response, resp, what, err) < 0) return -1;
    resp->cost_usd = 0;
    return 0;
}

/* The context the recorded run knew (from its server), so that the length limits of the
 * replayed requests are cut as they were. */
static int replay_context(kf_llm *llm, const char *model)
{
    (void)model;
    const cassette *c = llm->priv;
    return c ? c->ctx_tokens : 0;
}

const kf_llm_provider kf_llm_provider_replay = {
    .name = "replay",
    .context_probe = replay_context,
    .cacheable = 0,
    .open = replay_open,
    .close = replay_close,
    .complete = replay_complete,
};
