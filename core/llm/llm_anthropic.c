/* llm_anthropic.c — the Anthropic messages API (POST {base}/v1/messages). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "llm_internal.h"

#define ANTHROPIC_DEFAULT_BASE "https://api.anthropic.com"
#define ANTHROPIC_DEFAULT_MAX_TOKENS 4096   /* the API requires max_tokens */

static int anthropic_open(kf_llm *llm, kf_error *err)
{
    return kf_llm_http_setup(llm, ANTHROPIC_DEFAULT_BASE, err);
}

static char *anthropic_url(const kf_llm *llm)
{
    size_t n = strlen(llm->base_url) + sizeof "/v1/messages";
    char *u = malloc(n);
    if (u) snprintf(u, n, "%s/v1/messages", llm->base_url);
    return u;
}

static char *hdr(const char *name, const char *value)
{
    size_t n = strlen(name) + strlen(value) + 3;
    char *h = malloc(n);
    if (h) snprintf(h, n, "%s: %s", name, value);
    return h;
}

static char **anthropic_headers(const kf_llm *llm)
{
    const char *version = kf_llm_config_get(llm->cfg, "anthropic", "version");
    char **h = calloc(4, sizeof *h);
    if (!h) return NULL;
    int i = 0;
    if (!(h[i++] = hdr("content-type", "application/json")) ||
        !(h[i++] = hdr("anthropic-version", version ? version : "2023-06-01")) ||
        (llm->api_key && !(h[i++] = hdr("x-api-key", llm->api_key)))) {
        kf_llm_free_headers(h);
        return NULL;
    }
    return h;
}

static char *anthropic_body(const kf_llm *llm, const kf_llm_request *req, const char *model)
{
    (void)llm;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "model", json_object_new_string(model));
    json_object_object_add(o, "max_tokens",
                           json_object_new_int(req->max_tokens > 0 ? req->max_tokens : ANTHROPIC_DEFAULT_MAX_TOKENS));
    /* system messages go to the top-level "system" field, joined by blank lines */
    size_t slen = 0;
    for (int i = 0; i < req->n_messages; i++)
        if (req->messages[i].role == KF_LLM_SYSTEM) slen += strlen(req->messages[i].content) + 2;
    if (slen) {
        char *sys = malloc(slen + 1);
        if (!sys) { json_object_put(o); return NULL; }
        sys[0] = '\0';
        for (int i = 0; i < req->n_messages; i++)
            if (req->messages[i].role == KF_LLM_SYSTEM) {
                if (sys[0]) strcat(sys, "\n\n");
                strcat(sys, req->messages[i].content);
            }
        json_object_object_add(o, "system", json_object_new_string(sys));
        free(sys);
    }
    json_object *msgs = json_object_new_array();
    for (int i = 0; i < req->n_messages; i++) {
        if (req->messages[i].role == KF_LLM_SYSTEM) continue;
        json_object *m = json_object_new_object();
        json_object_object_add(m, "role", json_object_new_string(kf_llm_role_name(req->messages[i].role)));
        json_object_object_add(m, "content", json_object_new_string(req->messages[i].content));
        json_object_array_add(msgs, m);
    }
    json_object_object_add(o, "messages", msgs);
    if (req->temperature >= 0)
        json_object_object_add(o, "temperature", json_object_new_double(req->temperature));
    /* the messages API has no seed: it is not sent (it still keys cache and cassettes) */
    if (req->n_stop > 0) {
        json_object *st = json_object_new_array();
        for (int i = 0; i < req->n_stop; i++) json_object_array_add(st, json_object_new_string(req->stop[i]));
        json_object_object_add(o, "stop_sequences", st);
    }
    char *s = strdup(kf_llm_json_text(o));
    json_object_put(o);
    return s;
}

static const char *map_stop_reason(const char *r)
{
    if (strcmp(r, "end_turn") == 0 || strcmp(r, "stop_sequence") == 0) return "stop";
    if (strcmp(r, "max_tokens") == 0) return "length";
    if (strcmp(r, "tool_use") == 0) return "tool_calls";
    if (strcmp(r, "refusal") == 0) return "content_filter";
    return r;
}

static int anthropic_parse(const char *body, kf_llm_response *resp, kf_error *err)
{
    enum json_tokener_error jerr;
    json_object *o = json_tokener_parse_verbose(body, &jerr), *content, *v;
    int rc = -1;
    if (!o) {
        kf_failc(err, KF_E_UNAVAILABLE, KF_LLM_E_BAD_RESPONSE, "the body is not valid JSON (%s)", json_tokener_error_desc(jerr));
        return -1;
    }
    if (!json_object_object_get_ex(o, "content", &content) || !json_object_is_type(content, json_type_array)) {
        kf_failc(err, KF_E_UNAVAILABLE, KF_LLM_E_BAD_RESPONSE, "the body has no content[] array (not a messages response)");
        goto out;
    }
    size_t cap = 1, n = json_object_array_length(content);
    for (size_t i = 0; i < n; i++) {
        json_object *b = json_object_array_get_idx(content, i), *t, *tx;
        if (json_object_object_get_ex(b, "type", &t) && strcmp(json_object_get_string(t), "text") == 0 &&
            json_object_object_get_ex(b, "text", &tx))
            cap += strlen(json_object_get_string(tx));
    }
    char *text = malloc(cap);
    if (!text) { kf_failc(err, KF_E_UNAVAILABLE, KF_LLM_E_BAD_RESPONSE, "out of memory"); goto out; }
    size_t len = 0;
    text[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        json_object *b = json_object_array_get_idx(content, i), *t, *tx;
        if (json_object_object_get_ex(b, "type", &t) && strcmp(json_object_get_string(t), "text") == 0 &&
            json_object_object_get_ex(b, "text", &tx)) {
            size_t k = strlen(json_object_get_string(tx));
            memcpy(text + len, json_object_get_string(tx), k + 1);
            len += k;
        }
    }
    resp->content = text;
    if (json_object_object_get_ex(o, "stop_reason", &v) && json_object_is_type(v, json_type_string))
        snprintf(resp->finish_reason, sizeof resp->finish_reason, "%s", map_stop_reason(json_object_get_string(v)));
    kf_llm_take_usage(o, "input_tokens", "output_tokens", resp);
    rc = 0;
out:
    json_object_put(o);
    return rc;
}

/* {"type": "error", "error": {"type": "authentication_error", "message": "..."}} */
static void anthropic_error(const char *body, char *msg, size_t n, int *quota)
{
    msg[0] = '\0';
    *quota = 0;
    json_object *o = body ? json_tokener_parse(body) : NULL, *e, *v;
    if (!o) return;
    if (json_object_object_get_ex(o, "error", &e) && json_object_object_get_ex(e, "message", &v)) {
        snprintf(msg, n, "%s", json_object_get_string(v));
        if (strstr(msg, "credit balance")) *quota = 1;
    }
    json_object_put(o);
}

const kf_llm_provider kf_llm_provider_anthropic = {
    .name = "anthropic",
    .cacheable = 1,
    .open = anthropic_open,
    .complete = kf_llm_http_complete,
    .key_env = "ANTHROPIC_API_KEY",
    .base_env = "ANTHROPIC_BASE_URL",
    .http_url = anthropic_url,
    .http_headers = anthropic_headers,
    .http_body = anthropic_body,
    .http_parse = anthropic_parse,
    .http_error = anthropic_error,
};
