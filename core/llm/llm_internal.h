/*
 * llm_internal.h — what the provider files of core/llm/llm_*.c share.  Not installed.
 */
#ifndef KF_LLM_INTERNAL_H
#define KF_LLM_INTERNAL_H

#include <stdint.h>
#include <json-c/json.h>
#include "llm.h"

/* ---- config (llm_config.c) ---- */

typedef struct kf_llm_kv {
    char *section, *key, *value;
} kf_llm_kv;

struct kf_llm_config {
    kf_llm_kv *items;            /* later items win */
    int n, cap;
    char *path;                  /* the file it came from, for messages; may be NULL */
};

/* The last value of section.key, or NULL. */
const char *kf_llm_config_get(const kf_llm_config *cfg, const char *section, const char *key);
/* A number (seconds, counts) with a default; the value was validated when set. */
double kf_llm_config_num(const kf_llm_config *cfg, const char *section, const char *key, double dflt);
kf_llm_config *kf_llm_config_dup(const kf_llm_config *cfg);

/* ---- the client ---- */

typedef struct kf_llm_http_settings {
    double connect_timeout_s;    /* [http] connect_timeout, default 10 */
    double timeout_s;            /* [http] timeout, default 300 (per attempt) */
    int max_attempts;            /* [http] max_attempts, default 5 */
    double backoff_base_s;       /* [http] backoff_base, default 1 */
    double backoff_max_s;        /* [http] backoff_max, default 60 (one wait, no Retry-After) */
    double max_total_wait_s;     /* [http] max_total_wait, default 300 (all waits together) */
} kf_llm_http_settings;

typedef struct kf_llm_provider kf_llm_provider;

struct kf_llm {
    const kf_llm_provider *prov;
    char *name;                  /* resolved spec "openai:gpt-4o" */
    char *arg;                   /* after the colon: model, command or file */
    char *base_url;              /* HTTP providers */
    char *api_key;               /* HTTP providers; NULL when none.  Never written anywhere. */
    char *key_env;               /* the variable the key came from ("OPENAI_API_KEY") */
    char *max_tokens_field;      /* openai: "max_tokens" or "max_completion_tokens" */
    kf_llm_config *cfg;
    kf_llm_http_settings http;
    double cmd_timeout_s;        /* [cmd] timeout, default 600 */
    void *priv;                  /* provider state (replay: the cassette) */
    char *cache_dir;
    char *record_path;
    kf_llm_usage usage;
    uint64_t rng;                /* backoff jitter */
    int ctx_tokens;              /* the model's context length, 0 unknown */
    int ctx_probed;              /* the server was asked (once) */
    kf_progress progress;        /* retries and waits; fn NULL: quiet */
};

/* A provider.  A NULL hook means the provider does not do that. */
struct kf_llm_provider {
    const char *name;
    int cacheable;               /* responses may go into the response cache */
    int (*open)(kf_llm *llm, kf_error *err);
    void (*close)(kf_llm *llm);
    /* One completion; model is req->model or the spec's.  Fills content, finish_reason,
     * tokens, model, attempts; the caller fills the rest. */
    int (*complete)(kf_llm *llm, const kf_llm_request *req, const char *model,
                    kf_llm_response *resp, kf_error *err);

    /* HTTP wire format (used by kf_llm_http_complete). */
    const char *key_env;         /* "OPENAI_API_KEY" */
    const char *base_env;        /* "OPENAI_BASE_URL" */
    char *(*http_url)(const kf_llm *llm);                       /* malloc'ed */
    /* NULL-terminated, malloc'ed array of malloc'ed "Name: value" lines */
    char **(*http_headers)(const kf_llm *llm);
    char *(*http_body)(const kf_llm *llm, const kf_llm_request *req, const char *model);
    /* Parses a 2xx body; -1 with err when it is not what the API answers. */
    int (*http_parse)(const char *body, kf_llm_response *resp, kf_error *err);
    /* The provider's error message from an error body into msg ("" if none); sets
     * *quota when it says the quota is exhausted. */
    void (*http_error)(const char *body, char *msg, size_t n, int *quota);
    /* The model's context length as the server says it, 0 when it does not. */
    int (*context_probe)(kf_llm *llm, const char *model);
};

extern const kf_llm_provider kf_llm_provider_openai;
extern const kf_llm_provider kf_llm_provider_anthropic;
extern const kf_llm_provider kf_llm_provider_cmd;
extern const kf_llm_provider kf_llm_provider_replay;

/* llm_http.c: the retrying HTTP completion shared by openai and anthropic. */
int kf_llm_http_complete(kf_llm *llm, const kf_llm_request *req, const char *model,
                         kf_llm_response *resp, kf_error *err);
void kf_llm_free_headers(char **h);
/* Sets base_url ($BASE_ENV, else [provider] base_url, else default_base, without trailing
 * '/'), key_env and api_key; a missing key is an error only for the default host. */
int kf_llm_http_setup(kf_llm *llm, const char *default_base, kf_error *err);
int kf_llm_url_host_is(const char *url, const char *host);

/* llm_store.c: keys, cache and cassettes. */
const char *kf_llm_role_name(kf_llm_role r);
/* The request as JSON: {provider, base_url, model, messages, temperature, max_tokens,
 * seed, stop}; with full == 0 only messages and parameters (the cassette key).  keyed:
 * each message's key_content where it has one (what keys hash), else its content. */
json_object *kf_llm_request_json(const kf_llm *llm, const kf_llm_request *req,
                                 const char *model, int full, int keyed);
/* 1 when a message of req has a key_content that differs from its content. */
int kf_llm_request_masked(const kf_llm_request *req);
/* The context length a refusal names ("exceed context window of 2048"), 0 if none. */
int kf_llm_context_from_error(const char *msg);
/* sha256 hex of the plain JSON text of obj (65 bytes). */
void kf_llm_json_key(json_object *obj, char key[65]);
json_object *kf_llm_response_json(const kf_llm_response *resp);
/* Fills content, finish_reason, tokens, provider, model from a response object. */
int kf_llm_response_from_json(json_object *o, kf_llm_response *resp, const char *what,
                              kf_error *err);
/* 1 = hit (resp filled), 0 = miss, -1 = unreadable entry (err). */
int kf_llm_cache_get(const char *dir, const char *key, kf_llm_response *resp, kf_error *err);
int kf_llm_cache_put(const char *dir, const char *key, json_object *request,
                     const kf_llm_response *resp, kf_error *err);
/* keyed: the key's own form of the request (masked messages), or NULL when it is the
 * request's; resp NULL with failure set: a failed request ({code, message}). */
int kf_llm_cassette_append(const char *path, const char *key, json_object *request,
                           json_object *keyed, const kf_llm_response *resp,
                           const kf_error *failure, kf_error *err);
/* Plain JSON text (no slash escaping); owned by obj. */
const char *kf_llm_json_text(json_object *obj);

/* Reads o.usage.{in_key,out_key} and o.model of a provider's answer into resp
 * (fields that are absent are left as they are). */
void kf_llm_take_usage(json_object *o, const char *in_key, const char *out_key, kf_llm_response *resp);

#endif
