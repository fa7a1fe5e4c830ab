/*
 * llm.h — language-model providers behind one small API.
 *
 *   kf_llm_config *cfg = kf_llm_config_load(NULL, &err);   // ~/.config/kforge/config
 *   kf_llm *llm = kf_llm_open("openai:gpt-4o", cfg, &err);
 *   kf_llm_set_cache(llm, "/home/u/.cache/kforge/llm");    // optional
 *   kf_llm_set_record(llm, "run/cassette.jsonl");           // optional
 *   kf_llm_message msgs[] = {{KF_LLM_SYSTEM, "You write kernels."},
 *                            {KF_LLM_USER, "Write ..."}};
 *   kf_llm_request req = KF_LLM_REQUEST_INIT;
 *   req.messages = msgs; req.n_messages = 2; req.max_tokens = 4096;
 *   kf_llm_response resp;
 *   if (kf_llm_complete(llm, &req, &resp, &err) == 0) { use resp.content; }
 *   kf_llm_response_free(&resp);
 *   kf_llm_close(llm); kf_llm_config_free(cfg);
 *
 * Agent specs (kf_llm_open):
 *   openai:MODEL     POST {base}/chat/completions.  base = $OPENAI_BASE_URL, else the config's
 *                    [openai] base_url, else https://api.openai.com/v1 (vLLM, llama.cpp's
 *                    server, Ollama, LM Studio and SGLang speak the same API).  The key is
 *                    $OPENAI_API_KEY; it is required only for api.openai.com.
 *   anthropic:MODEL  POST {base}/v1/messages, base = $ANTHROPIC_BASE_URL, the config's
 *                    [anthropic] base_url, else https://api.anthropic.com; $ANTHROPIC_API_KEY.
 *   cmd:COMMAND      /bin/sh -c COMMAND, the messages rendered as text on stdin
 *                    ("=== system ===\n...\n\n=== user ===\n...\n"), the answer on stdout;
 *                    killed (its whole process group) after [cmd] timeout seconds.
 *   replay:FILE      answers from a cassette written by kf_llm_set_record (JSON lines
 *                    {"key":..,"request":..,"response":..}); an unknown request is an error
 *                    that shows its key.  Entries with the same key replay in recorded order
 *                    (the last one repeats).
 *   ALIAS            an alias from the config's [alias] section (e.g. fast = openai:gpt-4o-mini).
 *
 * HTTP providers retry 408, 409, 429, 5xx, connection errors and timeouts with exponential
 * backoff and full jitter (or exactly Retry-After / retry-after-ms when the server sends it),
 * up to [http] max_attempts attempts and [http] max_total_wait seconds of waiting in all.
 * 400/401/403/404 and a 429 whose body says the quota is exhausted fail at once.  A 2xx whose
 * body is not the expected JSON, or a transfer cut short, is retried once, then fails.
 *
 * Secrets: API keys live only in memory.  They never reach a cassette, the cache, an error
 * message or any other file; base URLs are written with any user:password@ part removed.
 *
 * Threads: a kf_llm is used by one thread at a time (open one per worker); handles may run
 * concurrently and share a cache directory and a cassette file (entries are written
 * atomically).
 *
 * Config file: see doc/config.md (INI: [alias], [openai], [anthropic], [cmd], [http],
 * [prices]).
 *
 * Errors: functions return -1 / NULL and fill kf_error with one line that names the
 * provider, the HTTP status and the provider's own message, and says what to do; err->code
 * is one of KF_LLM_E_* so a caller can tell "stop the run" (auth, quota, config) from "this
 * step failed" (the rest).
 */
#ifndef KF_LLM_H
#define KF_LLM_H

#include <stddef.h>
#include "util/error.h"
#include "util/progress.h"

/* kf_error.code values set by this module (distinct from kf_status). */
enum {
    KF_LLM_E_CONFIG = 100,   /* bad spec, config file, missing key: fix the setup */
    KF_LLM_E_AUTH,           /* 401/403: the key is wrong or lacks access */
    KF_LLM_E_QUOTA,          /* the account's quota is exhausted */
    KF_LLM_E_REQUEST,        /* 400/404/413/422: the request was refused as is */
    KF_LLM_E_RATE,           /* still rate limited after every retry */
    KF_LLM_E_SERVER,         /* 5xx/408/409 after every retry */
    KF_LLM_E_NETWORK,        /* could not connect / connection lost */
    KF_LLM_E_TIMEOUT,        /* no complete answer within the timeout */
    KF_LLM_E_BAD_RESPONSE,   /* invalid JSON, truncated body, unexpected shape */
    KF_LLM_E_REPLAY_MISS,    /* replay: the request is not in the cassette */
    KF_LLM_E_CMD,            /* cmd: the command failed or timed out */
    KF_LLM_E_IO              /* cache or cassette file could not be written/read */
};

/* True for errors that will not go away by asking again (stop the run). */
int kf_llm_error_is_fatal(int code);
/* The error kind of a KF_LLM_E_* code: the setup's (config, key, a
 * request missing from a cassette) is KF_E_BAD_INPUT, cache and cassette
 * files KF_E_IO, the rest (the server, the network, the command)
 * KF_E_UNAVAILABLE. */
kf_error_kind kf_llm_error_kind(int code);

typedef enum kf_llm_role { KF_LLM_SYSTEM, KF_LLM_USER, KF_LLM_ASSISTANT } kf_llm_role;

typedef struct kf_llm_message {
    kf_llm_role role;
    const char *content;
    /* What the cache and cassette keys see instead of content, or NULL (content): the
     * same text with figures measured at run time (bandwidth, timings) left out, so that
     * the same problem, device and step give the same key run after run. */
    const char *key_content;
} kf_llm_message;

/* A request.  Strings are borrowed for the duration of kf_llm_complete.
 * Requests that should get different answers (K samples of one prompt) must differ in
 * seed: the cache and the cassettes key on every field below. */
typedef struct kf_llm_request {
    const char *model;                 /* NULL = the model of the spec */
    const kf_llm_message *messages;
    int n_messages;
    double temperature;                /* < 0 = the provider's default (field omitted) */
    int max_tokens;                    /* <= 0 = omitted (anthropic requires it: 4096) */
    int has_seed;                      /* seed is sent only when has_seed != 0 */
    long long seed;
    const char *const *stop;           /* stop sequences, n_stop of them */
    int n_stop;
    double timeout_s;                  /* > 0: the whole completion (attempts and waits
                                          between them) ends within this many seconds, e.g.
                                          what is left of the run's time budget; not part
                                          of any key */
} kf_llm_request;

#define KF_LLM_REQUEST_INIT { NULL, NULL, 0, -1.0, 0, 0, 0, NULL, 0, 0.0 }

typedef struct kf_llm_response {
    char *content;                     /* malloc'ed, never NULL on success, may be "" */
    char finish_reason[32];            /* "stop", "length", "content_filter", "tool_calls", ... */
    long prompt_tokens;                /* as the provider reported them (0 when unknown) */
    long completion_tokens;
    double cost_usd;                   /* what this call cost; 0 on a cache hit or replay */
    int from_cache;                    /* 1 when served by kf_llm_set_cache's cache */
    char provider[16];                 /* "openai", "anthropic", "cmd", "replay" */
    char model[256];                   /* the model that answered (as the provider said) */
    double latency_s;                  /* wall time of kf_llm_complete, retries included */
    int attempts;                      /* HTTP attempts made (1 = no retry; 0 = no request) */
} kf_llm_response;

/* Totals over the life of a kf_llm: what was paid for (cache hits add nothing). */
typedef struct kf_llm_usage {
    long requests;                     /* completions served by the provider */
    long cache_hits;
    long prompt_tokens;
    long completion_tokens;
    double cost_usd;
} kf_llm_usage;

/* ---- configuration ---------------------------------------------------- */

typedef struct kf_llm_config kf_llm_config;

/* Built-in defaults only (prices of a few well-known models, timeouts 10 s / 300 s, ...). */
kf_llm_config *kf_llm_config_new(void);
/* Loads `path`, or with path NULL $XDG_CONFIG_HOME/kforge/config (else
 * ~/.config/kforge/config); a missing default file is not an error (defaults). */
kf_llm_config *kf_llm_config_load(const char *path, kf_error *err);
/* Parses config text over cfg (later values win); label names it in messages. */
int kf_llm_config_parse(kf_llm_config *cfg, const char *text, const char *label, kf_error *err);
/* Sets one value as if read from the file: section "http", key "timeout", value "300". */
int kf_llm_config_set(kf_llm_config *cfg, const char *section, const char *key,
                      const char *value, kf_error *err);
/* USD per million input/output tokens for model (exact name, else the longest
 * configured name that is a prefix of model followed by '-' or '@'); 0 when unknown. */
int kf_llm_config_price(const kf_llm_config *cfg, const char *model, double *in_per_m,
                        double *out_per_m);
void kf_llm_config_free(kf_llm_config *cfg);

/* ---- the client ---------------------------------------------------------- */

typedef struct kf_llm kf_llm;

/* Opens a provider from a spec (see above).  cfg may be NULL (defaults); it is copied, the
 * caller may free it afterwards.  Reads the API key from the environment now. */
kf_llm *kf_llm_open(const char *spec, const kf_llm_config *cfg, kf_error *err);
/* "openai:gpt-4o" — the resolved spec, for logs and journals. */
const char *kf_llm_name(const kf_llm *llm);
/* Asks for one completion.  On success fills *resp (free with kf_llm_response_free) and
 * returns 0; on failure returns -1, fills err and leaves *resp empty (safe to free). */
int kf_llm_complete(kf_llm *llm, const kf_llm_request *req, kf_llm_response *resp,
                    kf_error *err);
void kf_llm_response_free(kf_llm_response *resp);
/* Appends every exchange (cache hits included) to a cassette (JSON lines, created if
 * missing); a failed request is appended too, with "error" {code, message} in place of
 * "response" (replay skips it); a failed append fails that completion with KF_LLM_E_IO.
 * path NULL stops recording.  Returns -1 if the file cannot be opened. */
int kf_llm_set_record(kf_llm *llm, const char *cassette_path, kf_error *err);
/* Caches responses under dir (created if missing), one file per request hash over
 * provider, base URL, model, messages and parameters.  dir NULL disables the cache. */
int kf_llm_set_cache(kf_llm *llm, const char *dir, kf_error *err);
void kf_llm_get_usage(const kf_llm *llm, kf_llm_usage *out);
void kf_llm_close(kf_llm *llm);

/* The config's [llm] defaults: max_tokens (0 when unset), temperature (-1 when unset). */
int kf_llm_default_max_tokens(const kf_llm *llm);
double kf_llm_default_temperature(const kf_llm *llm);
/* The model's context length in tokens: set by kf_llm_set_context_tokens, else [llm]
 * context_tokens, else what the server says about itself, asked once (openai: GET
 * {base}/models, the model's max_model_len / context_length / n_ctx / meta.n_ctx; then
 * llama.cpp's GET {server}/props n_ctx), else what a refusal said ("exceed context
 * window of 2048", "maximum context length is 8192"); 0 when unknown. */
int kf_llm_context_tokens(kf_llm *llm);
void kf_llm_set_context_tokens(kf_llm *llm, int n);
/* Each HTTP attempt's timeout ([http] timeout) and the cmd provider's ([cmd] timeout). */
void kf_llm_set_timeout(kf_llm *llm, double seconds);
/* Where retries and waits are reported ("openai: 503 ...; retry 2 of 5 in 1.3 s"); the
 * receiver is copied; NULL: quiet. */
void kf_llm_set_progress(kf_llm *llm, const kf_progress *p);
/* True for failures of the model server or its network that asking again at once will
 * not cure (connection refused, timeouts, 5xx, rate limits, after every retry): the run
 * stops, resumable, instead of spending its steps. */
int kf_llm_error_is_outage(int code);

/* The default cache directory: $XDG_CACHE_HOME/kforge/llm (else ~/.cache/kforge/llm);
 * malloc'ed. */
char *kf_llm_default_cache_dir(void);

#endif
