/* llm_openai.c — OpenAI chat completions (and every server that speaks them:
 * vLLM, llama.cpp's server, Ollama, LM Studio, SGLang). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "http.h"
#include "llm_internal.h"

#define OPENAI_DEFAULT_BASE "https://api.openai.com/v1"

static int openai_open(kf_llm *llm, kf_error *err)
{
    if (kf_llm_http_setup(llm, OPENAI_DEFAULT_BASE, err) < 0) return -1;
    const char *f = kf_llm_config_get(llm->cfg, "openai", "max_tokens_field");
    /* api.openai.com wants max_completion_tokens (reasoning models refuse max_tokens);
     * local servers know max_tokens for sure */
    if (!f) f = kf_llm_url_host_is(llm->base_url, "api.openai.com") ? "max_completion_tokens" : "max_tokens";
    llm->max_tokens_field = strdup(f);
    return llm->max_tokens_field ? 0 : kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG, "out of memory");
}

static char *openai_url(const kf_llm *llm)
{
    size_t n = strlen(llm->base_url) + sizeof "/chat/completions";
    char *u = malloc(n);
    if (u) snprintf(u, n, "%s/chat/completions", llm->base_url);
    return u;
}

static char **openai_headers(const kf_llm *llm)
{
    char **h = calloc(3, sizeof *h);
    if (!h) return NULL;
    h[0] = strdup("Content-Type: application/json");
    if (!h[0]) { free(h); return NULL; }
    if (llm->api_key) {
        size_t n = strlen(llm->api_key) + sizeof "Authorization: Bearer ";
        h[1] = malloc(n);
        if (!h[1]) { kf_llm_free_headers(h); return NULL; }
        snprintf(h[1], n, "Authorization: Bearer %s", llm->api_key);
    }
    return h;
}

static char *openai_body(const kf_llm *llm, const kf_llm_request *req, const char *model)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "model", json_object_new_string(model));
    json_object *msgs = json_object_new_array();
    for (int i = 0; i < req->n_messages; i++) {
        json_object *m = json_object_new_object();
        json_object_object_add(m, "role", json_object_new_string(kf_llm_role_name(req->messages[i].role)));
        json_object_object_add(m, "content", json_object_new_string(req->messages[i].content));
        json_object_array_add(msgs, m);
    }
    json_object_object_add(o, "messages", msgs);
    if (req->temperature >= 0)
        json_object_object_add(o, "temperature", json_object_new_double(req->temperature));
    if (req->max_tokens > 0)
        json_object_object_add(o, llm->max_tokens_field, json_object_new_int(req->max_tokens));
    if (req->has_seed) json_object_object_add(o, "seed", json_object_new_int64(req->seed));
    if (req->n_stop > 0) {
        json_object *st = json_object_new_array();
        for (int i = 0; i < req->n_stop; i++) json_object_array_add(st, json_object_new_string(req->stop[i]));
        json_object_object_add(o, "stop", st);
    }
    char *s = strdup(kf_llm_json_text(o));
    json_object_put(o);
    return s;
}

/* "content" is a string, null (refusals, tool calls) or an array of {type:text,text}. */
static char *content_text(json_object *c)
{
    if (!c || json_object_is_type(c, json_type_null)) return strdup("");
    if (json_object_is_type(c, json_type_string)) return strdup(json_object_get_string(c));
    if (!json_object_is_type(c, json_type_array)) return NULL;
    size_t cap = 1, len = 0;
    for (size_t i = 0; i < json_object_array_length(c); i++) {
        json_object *t;
        if (json_object_object_get_ex(json_object_array_get_idx(c, i), "text", &t))
            cap += strlen(json_object_get_string(t));
    }
    char *s = malloc(cap);
    if (!s) return NULL;
    s[0] = '\0';
    for (size_t i = 0; i < json_object_array_length(c); i++) {
        json_object *t;
        if (json_object_object_get_ex(json_object_array_get_idx(c, i), "text", &t)) {
            size_t n = strlen(json_object_get_string(t));
            memcpy(s + len, json_object_get_string(t), n + 1);
            len += n;
        }
    }
    return s;
}

static int openai_parse(const char *body, kf_llm_response *resp, kf_error *err)
{
    enum json_tokener_error jerr;
    json_object *o = json_tokener_parse_verbose(body, &jerr), *choices, *c0, *msg, *v;
    int rc = -1;
    if (!o) {
        kf_failc(err, KF_E_UNAVAILABLE, KF_LLM_E_BAD_RESPONSE, "the body is not valid JSON (%s)", json_tokener_error_desc(jerr));
        return -1;
    }
    if (!json_object_object_get_ex(o, "choices", &choices) || !json_object_is_type(choices, json_type_array) ||
        json_object_array_length(choices) == 0) {
        json_object *e, *m;
        if (json_object_object_get_ex(o, "error", &e) && json_object_object_get_ex(e, "message", &m))
            kf_failc(err, KF_E_UNAVAILABLE, KF_LLM_E_BAD_RESPONSE, "the server answered an error: %.300s", json_object_get_string(m));
        else
            kf_failc(err, KF_E_UNAVAILABLE, KF_LLM_E_BAD_RESPONSE, "the body has no choices[0] (not a chat completion)");
        goto out;
    }
    c0 = json_object_array_get_idx(choices, 0);
    if (!json_object_object_get_ex(c0, "message", &msg) || !json_object_is_type(msg, json_type_object)) {
        kf_failc(err, KF_E_UNAVAILABLE, KF_LLM_E_BAD_RESPONSE, "choices[0] has no message");
        goto out;
    }
    json_object *content = NULL;
    json_object_object_get_ex(msg, "content", &content);
    char *text = content_text(content);
    if (!text) {
        kf_failc(err, KF_E_UNAVAILABLE, KF_LLM_E_BAD_RESPONSE, "choices[0].message.content is neither text nor null");
        goto out;
    }
    resp->content = text;
    if (json_object_object_get_ex(c0, "finish_reason", &v) && !json_object_is_type(v, json_type_null))
        snprintf(resp->finish_reason, sizeof resp->finish_reason, "%s", json_object_get_string(v));
    kf_llm_take_usage(o, "prompt_tokens", "completion_tokens", resp);
    rc = 0;
out:
    json_object_put(o);
    return rc;
}

/* {"error": {"message": "...", "type": "...", "code": "insufficient_quota"}}; some
 * servers (vLLM, FastAPI) answer {"detail": "..."} or {"message": "..."}. */
static void openai_error(const char *body, char *msg, size_t n, int *quota)
{
    msg[0] = '\0';
    *quota = 0;
    json_object *o = body ? json_tokener_parse(body) : NULL, *e, *v;
    if (!o) return;
    if (json_object_object_get_ex(o, "error", &e)) {
        if (json_object_is_type(e, json_type_string)) {
            snprintf(msg, n, "%s", json_object_get_string(e));
        } else {
            if (json_object_object_get_ex(e, "message", &v)) snprintf(msg, n, "%s", json_object_get_string(v));
            if ((json_object_object_get_ex(e, "code", &v) && json_object_is_type(v, json_type_string) &&
                 strcmp(json_object_get_string(v), "insufficient_quota") == 0) ||
                (json_object_object_get_ex(e, "type", &v) && json_object_is_type(v, json_type_string) &&
                 strcmp(json_object_get_string(v), "insufficient_quota") == 0))
                *quota = 1;
        }
    } else if (json_object_object_get_ex(o, "detail", &v) || json_object_object_get_ex(o, "message", &v)) {
        snprintf(msg, n, "%s", json_object_get_string(v));
    }
    json_object_put(o);
}

/* A positive integer at o.key (number or numeric string), else 0. */
static int ctx_field(json_object *o, const char *key)
{
    json_object *v;
    if (!o || !json_object_object_get_ex(o, key, &v)) return 0;
    long long n = json_object_is_type(v, json_type_string) ? strtoll(json_object_get_string(v), NULL, 10)
                                                             : json_object_get_int64(v);
    return n > 0 && n < 100000000 ? (int)n : 0;
}

static int ctx_of_model(json_object *m)
{
    static const char *const keys[] = {"max_model_len", "context_length", "context_window", "n_ctx",
                                       "max_context_length", NULL};
    json_object *meta = NULL;
    for (int i = 0; keys[i]; i++) {
        int n = ctx_field(m, keys[i]);
        if (n) return n;
    }
    if (json_object_object_get_ex(m, "meta", &meta))
        for (int i = 0; keys[i]; i++) {
            int n = ctx_field(meta, keys[i]);
            if (n) return n;
        }
    return 0;
}

static json_object *get_json(kf_llm *llm, const char *url)
{
    char **hdr = openai_headers(llm);
    kf_http_result r;
    double tmo = llm->http.connect_timeout_s > 0 ? llm->http.connect_timeout_s : 10;
    json_object *o = NULL;
    if (hdr && kf_http_get(url, (const char *const *)hdr, tmo, tmo, &r) == 0 && r.status == 200)
        o = json_tokener_parse(r.body);
    if (hdr) kf_http_result_free(&r);
    kf_llm_free_headers(hdr);
    return o;
}

/* What the server says of the model's context: {base}/models (vLLM max_model_len,
 * OpenRouter context_length, llama.cpp meta), then llama.cpp's {server}/props. */
static int openai_context(kf_llm *llm, const char *model)
{
    char url[2048];
    int n = 0;
    snprintf(url, sizeof url, "%s/models", llm->base_url);
    json_object *o = get_json(llm, url), *data;
    if (o && json_object_object_get_ex(o, "data", &data) && json_object_is_type(data, json_type_array)) {
        size_t k = json_object_array_length(data);
        for (size_t i = 0; i < k && !n; i++) {
            json_object *m = json_object_array_get_idx(data, i), *id;
            int mine = json_object_object_get_ex(m, "id", &id) && model && !strcmp(json_object_get_string(id), model);
            if (mine || k == 1) n = ctx_of_model(m);
        }
    }
    json_object_put(o);
    if (n) return n;
    /* llama.cpp's server: /props at the root (base_url ends in /v1) */
    snprintf(url, sizeof url, "%s", llm->base_url);
    size_t len = strlen(url);
    if (len >= 3 && !strcmp(url + len - 3, "/v1")) url[len - 3] = '\0';
    snprintf(url + strlen(url), sizeof url - strlen(url), "/props");
    o = get_json(llm, url);
    json_object *dg;
    if (o) {
        n = ctx_field(o, "n_ctx");
        if (!n && json_object_object_get_ex(o, "default_generation_settings", &dg)) n = ctx_field(dg, "n_ctx");
    }
    json_object_put(o);
    return n;
}

const kf_llm_provider kf_llm_provider_openai = {
    .name = "openai",
    .cacheable = 1,
    .open = openai_open,
    .complete = kf_llm_http_complete,
    .key_env = "OPENAI_API_KEY",
    .base_env = "OPENAI_BASE_URL",
    .http_url = openai_url,
    .http_headers = openai_headers,
    .http_body = openai_body,
    .http_parse = openai_parse,
    .http_error = openai_error,
    .context_probe = openai_context,
};
