/* llm.c — kf_llm: spec resolution, the completion path (cache, provider, cost, cassette). */
#include "util/fileio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "util/clock.h"
#include "llm_internal.h"

static const kf_llm_provider *const providers[] = {
    &kf_llm_provider_openai, &kf_llm_provider_anthropic, &kf_llm_provider_cmd,
    &kf_llm_provider_replay,
};

int kf_llm_error_is_fatal(int code)
{
    return code == KF_LLM_E_CONFIG || code == KF_LLM_E_AUTH || code == KF_LLM_E_QUOTA ||
           code == KF_LLM_E_REPLAY_MISS;
}

kf_error_kind kf_llm_error_kind(int code)
{
    switch (code) {
    case KF_LLM_E_CONFIG: case KF_LLM_E_AUTH: case KF_LLM_E_REPLAY_MISS: return KF_E_BAD_INPUT;
    case KF_LLM_E_IO: return KF_E_IO;
    default: return KF_E_UNAVAILABLE;
    }
}

static void load_settings(kf_llm *llm)
{
    const kf_llm_config *c = llm->cfg;
    llm->http.connect_timeout_s = kf_llm_config_num(c, "http", "connect_timeout", 10);
    llm->http.timeout_s = kf_llm_config_num(c, "http", "timeout", 300);
    llm->http.max_attempts = (int)kf_llm_config_num(c, "http", "max_attempts", 5);
    llm->http.backoff_base_s = kf_llm_config_num(c, "http", "backoff_base", 1);
    llm->http.backoff_max_s = kf_llm_config_num(c, "http", "backoff_max", 60);
    llm->http.max_total_wait_s = kf_llm_config_num(c, "http", "max_total_wait", 300);
    llm->cmd_timeout_s = kf_llm_config_num(c, "cmd", "timeout", 600);
}

kf_llm *kf_llm_open(const char *spec, const kf_llm_config *cfg, kf_error *err)
{
    if (!spec || !*spec) {
        kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG, "no agent given: use openai:MODEL, anthropic:MODEL, cmd:COMMAND or replay:FILE");
        return NULL;
    }
    const char *resolved = spec;
    if (!strchr(spec, ':')) {
        resolved = kf_llm_config_get(cfg, "alias", spec);
        if (!resolved) {
            kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG,
                    "unknown agent '%s': use openai:MODEL, anthropic:MODEL, cmd:COMMAND, replay:FILE or an alias from [alias] in %s",
                    spec, cfg && cfg->path ? cfg->path : "the config file ($XDG_CONFIG_HOME/kforge/config)");
            return NULL;
        }
    }
    const char *colon = strchr(resolved, ':');
    size_t plen = (size_t)(colon - resolved);
    const kf_llm_provider *prov = NULL;
    for (size_t i = 0; i < sizeof providers / sizeof providers[0]; i++)
        if (strlen(providers[i]->name) == plen && strncmp(providers[i]->name, resolved, plen) == 0)
            prov = providers[i];
    if (!prov) {
        kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG, "unknown provider '%.*s' in agent '%s': use openai, anthropic, cmd or replay",
                (int)plen, resolved, spec);
        return NULL;
    }
    if (!colon[1]) {
        kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG, "agent '%s' names no %s after '%s:'", spec,
                prov == &kf_llm_provider_cmd ? "command" : prov == &kf_llm_provider_replay ? "cassette file" : "model",
                prov->name);
        return NULL;
    }
    kf_llm *llm = calloc(1, sizeof *llm);
    if (!llm) { kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG, "out of memory"); return NULL; }
    llm->prov = prov;
    llm->name = strdup(resolved);
    llm->arg = strdup(colon + 1);
    llm->cfg = cfg ? kf_llm_config_dup(cfg) : kf_llm_config_new();
    if (!llm->name || !llm->arg || !llm->cfg) {
        kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG, "out of memory");
        kf_llm_close(llm);
        return NULL;
    }
    load_settings(llm);
    llm->rng = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid() ^ (uint64_t)(uintptr_t)llm;
    if (prov->open && prov->open(llm, err) < 0) {
        kf_llm_close(llm);
        return NULL;
    }
    return llm;
}

const char *kf_llm_name(const kf_llm *llm)
{
    return llm ? llm->name : "";
}

void kf_llm_close(kf_llm *llm)
{
    if (!llm) return;
    if (llm->prov && llm->prov->close) llm->prov->close(llm);
    if (llm->api_key) {   /* do not leave the key in freed memory */
        volatile char *p = llm->api_key;
        while (*p) *p++ = 0;
        free(llm->api_key);
    }
    free(llm->name);
    free(llm->arg);
    free(llm->base_url);
    free(llm->max_tokens_field);
    free(llm->key_env);
    free(llm->cache_dir);
    free(llm->record_path);
    kf_llm_config_free(llm->cfg);
    free(llm);
}

void kf_llm_response_free(kf_llm_response *resp)
{
    if (!resp) return;
    free(resp->content);
    memset(resp, 0, sizeof *resp);
}

int kf_llm_set_record(kf_llm *llm, const char *path, kf_error *err)
{
    free(llm->record_path);
    llm->record_path = NULL;
    if (!path) return 0;
    FILE *f = fopen(path, "a");
    if (!f) return kf_failc(err, KF_E_IO, KF_LLM_E_IO, "%s: cannot open the cassette for writing: %m", path);
    fclose(f);
    llm->record_path = strdup(path);
    return llm->record_path ? 0 : kf_failc(err, KF_E_IO, KF_LLM_E_IO, "out of memory");
}

int kf_llm_set_cache(kf_llm *llm, const char *dir, kf_error *err)
{
    free(llm->cache_dir);
    llm->cache_dir = NULL;
    if (!dir) return 0;
    llm->cache_dir = strdup(dir);
    return llm->cache_dir ? 0 : kf_failc(err, KF_E_IO, KF_LLM_E_IO, "out of memory");
}

char *kf_llm_default_cache_dir(void)
{
    char *dir = kf_cache_dir("llm");
    if (dir) return dir;
    char buf[64];
    snprintf(buf, sizeof buf, "/tmp/kforge-llm-cache-%ld", (long)getuid());
    return strdup(buf);
}

void kf_llm_get_usage(const kf_llm *llm, kf_llm_usage *out)
{
    memset(out, 0, sizeof *out);
    if (llm) *out = llm->usage;
}

static int check_request(const kf_llm *llm, const kf_llm_request *req, kf_error *err)
{
    if (!req || req->n_messages <= 0 || !req->messages)
        return kf_failc(err, KF_E_UNAVAILABLE, KF_LLM_E_REQUEST, "%s: the request has no messages", llm->name);
    for (int i = 0; i < req->n_messages; i++)
        if (!req->messages[i].content)
            return kf_failc(err, KF_E_UNAVAILABLE, KF_LLM_E_REQUEST, "%s: message %d has no content", llm->name, i);
    if (req->n_stop > 0 && !req->stop)
        return kf_failc(err, KF_E_UNAVAILABLE, KF_LLM_E_REQUEST, "%s: n_stop > 0 but no stop array", llm->name);
    return 0;
}

/* Appends the exchange (or the failure) to the cassette; -1 with err when it cannot. */
static int record(kf_llm *llm, const kf_llm_request *req, const char *model,
                  const kf_llm_response *resp, const kf_error *failure, kf_error *err)
{
    json_object *keyed = kf_llm_request_json(llm, req, model, 0, 1);
    char ckey[65];
    kf_llm_json_key(keyed, ckey);
    /* the real request is what "request" holds; the key's own form only when the key
       saw other text (measured figures left out), for the replay's "what differs" */
    json_object *shown = kf_llm_request_json(llm, req, model, 1, 0);
    /* the context the length limit was cut to: a replay of this cassette cuts it the same */
    if (llm->ctx_tokens > 0) json_object_object_add(shown, "context_tokens", json_object_new_int(llm->ctx_tokens));
    int masked = kf_llm_request_masked(req);
    int rc = kf_llm_cassette_append(llm->record_path, ckey, shown, masked ? keyed : NULL, resp, failure, err);
    json_object_put(shown);
    json_object_put(keyed);
    return rc;
}

int kf_llm_complete(kf_llm *llm, const kf_llm_request *req, kf_llm_response *resp, kf_error *err)
{
    memset(resp, 0, sizeof *resp);
    if (check_request(llm, req, err) < 0) return -1;
    double t0 = kf_now_s();
    int http = llm->prov->http_body != NULL;
    const char *model = http ? (req->model ? req->model : llm->arg) : NULL;
    json_object *full = kf_llm_request_json(llm, req, model, 1, 1);
    char key[65] = "";
    int rc = -1, hit = 0;

    if (llm->cache_dir && llm->prov->cacheable) {
        kf_llm_json_key(full, key);
        kf_error cerr = {0};
        hit = kf_llm_cache_get(llm->cache_dir, key, resp, &cerr);
        if (hit < 0) hit = 0;          /* an unreadable entry is a miss; it is rewritten below */
    }
    if (hit) {
        resp->from_cache = 1;
        resp->cost_usd = 0;
        resp->attempts = 0;
        llm->usage.cache_hits++;
    } else {
        kf_llm_response_free(resp);
        if (llm->prov->complete(llm, req, model, resp, err) < 0) {
            kf_llm_response_free(resp);
            /* a refusal that names the context length: later requests fit it */
            if (err && err->code == KF_LLM_E_REQUEST && !llm->ctx_tokens) {
                int n = kf_llm_context_from_error(err->msg);
                if (n > 0) llm->ctx_tokens = n;
            }
            if (llm->record_path && llm->prov != &kf_llm_provider_replay) {
                kf_error rerr = {0};
                (void)record(llm, req, model, NULL, err, &rerr);   /* the failure stays the error */
            }
            goto out;
        }
        snprintf(resp->provider, sizeof resp->provider, "%s", llm->prov->name);
        if (!resp->model[0] && model) snprintf(resp->model, sizeof resp->model, "%s", model);
        if (llm->prov != &kf_llm_provider_replay) {
            double pin, pout;
            if (kf_llm_config_price(llm->cfg, resp->model[0] ? resp->model : model, &pin, &pout))
                resp->cost_usd = (resp->prompt_tokens * pin + resp->completion_tokens * pout) / 1e6;
        }
        llm->usage.requests++;
        llm->usage.prompt_tokens += resp->prompt_tokens;
        llm->usage.completion_tokens += resp->completion_tokens;
        llm->usage.cost_usd += resp->cost_usd;
        if (llm->cache_dir && llm->prov->cacheable) {
            kf_error cerr = {0};
            /* the cache only saves money: a failed write must not lose a paid answer */
            (void)kf_llm_cache_put(llm->cache_dir, key, full, resp, &cerr);
        }
    }
    if (llm->record_path && record(llm, req, model, resp, NULL, err) < 0) {
        kf_llm_response_free(resp);
        goto out;
    }
    resp->latency_s = kf_now_s() - t0;
    rc = 0;
out:
    json_object_put(full);
    return rc;
}

int kf_llm_default_max_tokens(const kf_llm *llm)
{
    return llm ? (int)kf_llm_config_num(llm->cfg, "llm", "max_tokens", 0) : 0;
}

double kf_llm_default_temperature(const kf_llm *llm)
{
    return llm ? kf_llm_config_num(llm->cfg, "llm", "temperature", -1) : -1;
}

int kf_llm_context_tokens(kf_llm *llm)
{
    if (!llm) return 0;
    if (llm->ctx_tokens > 0) return llm->ctx_tokens;
    int n = (int)kf_llm_config_num(llm->cfg, "llm", "context_tokens", 0);
    if (n > 0) return llm->ctx_tokens = n;
    if (!llm->ctx_probed && llm->prov->context_probe) {
        llm->ctx_probed = 1;
        llm->ctx_tokens = llm->prov->context_probe(llm, llm->arg);
    }
    return llm->ctx_tokens;
}

void kf_llm_set_context_tokens(kf_llm *llm, int n)
{
    if (llm && n > 0) llm->ctx_tokens = n;
}

void kf_llm_set_timeout(kf_llm *llm, double seconds)
{
    if (!llm || !(seconds > 0)) return;
    llm->http.timeout_s = seconds;
    llm->cmd_timeout_s = seconds;
}

void kf_llm_set_progress(kf_llm *llm, const kf_progress *p)
{
    if (!llm) return;
    if (p) llm->progress = *p;
    else memset(&llm->progress, 0, sizeof llm->progress);
}

int kf_llm_error_is_outage(int code)
{
    return code == KF_LLM_E_NETWORK || code == KF_LLM_E_TIMEOUT || code == KF_LLM_E_SERVER ||
           code == KF_LLM_E_RATE;
}

void kf_llm_take_usage(json_object *o, const char *in_key, const char *out_key, kf_llm_response *resp)
{
    json_object *usage, *v;
    if (json_object_object_get_ex(o, "usage", &usage)) {
        if (json_object_object_get_ex(usage, in_key, &v)) resp->prompt_tokens = (long)json_object_get_int64(v);
        if (json_object_object_get_ex(usage, out_key, &v)) resp->completion_tokens = (long)json_object_get_int64(v);
    }
    if (json_object_object_get_ex(o, "model", &v) && json_object_is_type(v, json_type_string))
        snprintf(resp->model, sizeof resp->model, "%s", json_object_get_string(v));
}
