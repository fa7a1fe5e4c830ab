/* llm_http.c — the retrying HTTP completion shared by the openai and anthropic providers.
 *
 * Policy (llm.h): retry 408, 409, 429, 5xx, connection errors and timeouts with
 * exponential backoff and full jitter, or exactly the server's Retry-After; at most
 * [http] max_attempts attempts and [http] max_total_wait seconds of waiting.  A 2xx body
 * that is not the API's JSON and a transfer cut short are retried once.  Everything else
 * fails at once.  Messages never contain the API key (it is scrubbed from provider text). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "http.h"
#include "util/clock.h"
#include "llm_internal.h"

void kf_llm_free_headers(char **h)
{
    if (!h) return;
    for (int i = 0; h[i]; i++) {
        volatile char *p = h[i];   /* headers carry the key: wipe before free */
        while (*p) *p++ = 0;
        free(h[i]);
    }
    free(h);
}

static void sleep_s(double s)
{
    if (s <= 0) return;
    struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {}
}

static double uniform01(uint64_t *state)
{
    uint64_t x = *state ? *state : 0x2545F4914F6CDD1Dull;   /* xorshift64* */
    x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
    *state = x;
    return (double)((x * 0x2545F4914F6CDD1Dull) >> 11) / 9007199254740992.0;
}

/* Removes the key and anything shaped like one ("sk-...") from provider text; one line. */
static void scrub(char *msg, const char *key)
{
    if (key && strlen(key) >= 4) {
        size_t kl = strlen(key);
        char *p;
        while ((p = strstr(msg, key))) {
            memcpy(p, "***", 3);
            memmove(p + 3, p + kl, strlen(p + kl) + 1);
        }
    }
    for (char *p = msg; (p = strstr(p, "sk-")); ) {
        char *e = p + 3;
        while (*e && (isalnum((unsigned char)*e) || *e == '-' || *e == '_' || *e == '*')) e++;
        if (e - p > 6) {
            memcpy(p + 3, "***", 3);
            memmove(p + 6, e, strlen(e) + 1);
            p += 6;
        } else {
            p = e;
        }
    }
    for (char *p = msg; *p; p++)
        if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
}

static const char *status_hint(const kf_llm *llm, long status, const char *model, const char *url,
                               char *buf, size_t n)
{
    switch (status) {
    case 401: snprintf(buf, n, "check %s", llm->key_env); break;
    case 402: snprintf(buf, n, "check billing with the provider"); break;
    case 403: snprintf(buf, n, "check that the key in %s may use model '%s'", llm->key_env, model); break;
    case 404: snprintf(buf, n, "check the model name '%.200s' and the base URL %.200s", model, url); break;
    default:
        snprintf(buf, n, "the request was refused as sent; check the model's limits (max_tokens, context length)");
    }
    return buf;
}

int kf_llm_http_complete(kf_llm *llm, const kf_llm_request *req, const char *model,
                         kf_llm_response *resp, kf_error *err)
{
    const kf_llm_provider *p = llm->prov;
    const kf_llm_http_settings *hs = &llm->http;
    char *url = p->http_url(llm);
    char **hdr = p->http_headers(llm);
    char *body = p->http_body(llm, req, model);
    char shown[1024];
    int rc = -1;
    if (!url || !hdr || !body) {
        kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG, "%s: out of memory", p->name);
        goto out;
    }
    kf_http_redact_url(url, shown, sizeof shown);

    double waited = 0;
    int malformed = 0;
    /* req->timeout_s: what is left of the run's time; no attempt and no wait outlives it */
    double deadline = req->timeout_s > 0 ? kf_now_s() + req->timeout_s : 0;
    for (int attempt = 1;; attempt++) {
        kf_http_result r;
        double tmo = hs->timeout_s, left = deadline > 0 ? deadline - kf_now_s() : 0;
        int budget_cut = deadline > 0 && left < tmo;
        if (budget_cut) tmo = left > 0.001 ? left : 0.001;
        kf_http_post(url, (const char *const *)hdr, body, hs->connect_timeout_s, tmo, &r);
        resp->attempts = attempt;
        int retry = 0, code = KF_LLM_E_NETWORK;
        char msg[2400], pmsg[600] = "", hint[1400];
        const char *tail = "";                     /* what to do, when retries ran out */
        switch (r.outcome) {
        case KF_HTTP_OK:
            if (r.status >= 200 && r.status < 300) {
                kf_error perr = {0};
                if (p->http_parse(r.body, resp, &perr) == 0) {
                    kf_http_result_free(&r);
                    rc = 0;
                    goto out;
                }
                code = KF_LLM_E_BAD_RESPONSE;
                retry = ++malformed <= 1;
                snprintf(msg, sizeof msg, "%s: unusable answer from %s: %.500s", p->name, shown, perr.msg);
                tail = "the server does not speak the API as expected; check the base URL";
                break;
            }
            int quota = 0;
            p->http_error(r.body, pmsg, sizeof pmsg, &quota);
            scrub(pmsg, llm->api_key);
            if (!pmsg[0]) {
                /* not the API's error shape: show the start of the body */
                snprintf(pmsg, sizeof pmsg, "%.200s", r.body && r.body[0] ? r.body : "(empty body)");
                scrub(pmsg, llm->api_key);
            }
            snprintf(msg, sizeof msg, "%ld %s%sfrom %s: %s", r.status, kf_http_reason(r.status),
                     kf_http_reason(r.status)[0] ? " " : "", p->name, pmsg);
            if (quota) {
                code = KF_LLM_E_QUOTA;
                tail = "the account's quota is exhausted; add credit or change the plan with the provider";
            } else if (r.status == 429) {
                code = KF_LLM_E_RATE;
                retry = 1;
                tail = "still rate limited; retry later, lower --samples or raise [http] max_attempts";
            } else if (r.status == 408 || r.status == 409 || r.status >= 500) {
                code = KF_LLM_E_SERVER;
                retry = 1;
                tail = "the server keeps failing; retry later";
            } else {
                code = (r.status == 401 || r.status == 403) ? KF_LLM_E_AUTH : KF_LLM_E_REQUEST;
                tail = status_hint(llm, r.status, model, shown, hint, sizeof hint);
            }
            break;
        case KF_HTTP_TRUNCATED:
            code = KF_LLM_E_BAD_RESPONSE;
            retry = ++malformed <= 1;
            snprintf(msg, sizeof msg, "%s: the response from %s was cut short after %zu bytes (%s)",
                     p->name, shown, r.body_len, r.detail);
            tail = "check the server and any proxy in between";
            break;
        case KF_HTTP_TIMEOUT:
            code = KF_LLM_E_TIMEOUT;
            retry = !budget_cut;
            snprintf(msg, sizeof msg, "%s: no answer from %s within %.3g s (%s)", p->name, shown,
                     tmo, r.detail);
            tail = budget_cut ? "the run's time budget (--max-time) ran out during the request"
                              : "raise --request-timeout ([http] timeout in the config), lower --max-tokens, or check that the server is alive";
            break;
        case KF_HTTP_CONNECT:
        case KF_HTTP_NETWORK:
            retry = 1;
            snprintf(msg, sizeof msg, "%s: cannot talk to %s: %s", p->name, shown, r.detail);
            hint[0] = '\0';
            snprintf(hint, sizeof hint, "check %s (or [%s] base_url) and that the server is running",
                     p->base_env, p->name);
            if (r.outcome == KF_HTTP_NETWORK) code = KF_LLM_E_NETWORK;
            tail = hint;
            break;
        case KF_HTTP_FATAL:
        default:
            code = KF_LLM_E_CONFIG;
            snprintf(msg, sizeof msg, "%s: cannot send the request to %s: %s", p->name, shown, r.detail);
            snprintf(hint, sizeof hint, "check %s (or [%s] base_url)", p->base_env, p->name);
            tail = hint;
            break;
        }
        double ra = r.retry_after_s;
        kf_http_result_free(&r);
        free(resp->content);
        resp->content = NULL;

        if (!retry || attempt >= hs->max_attempts) {
            if (attempt > 1)
                kf_failc(err, kf_llm_error_kind(code), code, "%s — gave up after %d attempts; %s", msg, attempt, tail);
            else
                kf_failc(err, kf_llm_error_kind(code), code, "%s — %s", msg, tail);
            goto out;
        }
        double cap = hs->backoff_base_s * ldexp(1.0, attempt - 1);
        if (cap > hs->backoff_max_s) cap = hs->backoff_max_s;
        double wait = ra >= 0 ? ra : cap * uniform01(&llm->rng);
        if (deadline > 0 && kf_now_s() + wait >= deadline) {
            kf_failc(err, kf_llm_error_kind(code), code, "%s — gave up after %d attempts: the run's time budget (--max-time) ends before the next one",
                     msg, attempt);
            goto out;
        }
        if (waited + wait > hs->max_total_wait_s) {
            kf_failc(err, kf_llm_error_kind(code), code, "%s — gave up after %d attempts: waiting %.1f s more would pass [http] max_total_wait (%g s); %s",
                    msg, attempt, wait, hs->max_total_wait_s, tail);
            goto out;
        }
        kf_progressf(&llm->progress, "      %s; retry %d of %d in %.1f s\n", msg, attempt + 1,
                     hs->max_attempts, wait);
        sleep_s(wait);
        waited += wait;
    }
out:
    free(url);
    free(body);
    kf_llm_free_headers(hdr);
    return rc;
}

int kf_llm_url_host_is(const char *url, const char *host)
{
    const char *s = strstr(url, "://");
    s = s ? s + 3 : url;
    const char *at = strchr(s, '@'), *slash = strchr(s, '/');
    if (at && (!slash || at < slash)) s = at + 1;
    size_t n = strlen(host);
    return strncasecmp(s, host, n) == 0 && (s[n] == '\0' || s[n] == '/' || s[n] == ':');
}

static const char *default_host(const char *url, char *buf, size_t n)
{
    const char *s = strstr(url, "://");
    s = s ? s + 3 : url;
    size_t len = strcspn(s, "/:");
    snprintf(buf, n, "%.*s", (int)len, s);
    return buf;
}

int kf_llm_http_setup(kf_llm *llm, const char *default_base, kf_error *err)
{
    const kf_llm_provider *p = llm->prov;
    const char *base = getenv(p->base_env);
    if (!base || !*base) base = kf_llm_config_get(llm->cfg, p->name, "base_url");
    if (!base || !*base) base = default_base;
    llm->base_url = strdup(base);
    const char *kenv = kf_llm_config_get(llm->cfg, p->name, "api_key_env");
    llm->key_env = strdup(kenv && *kenv ? kenv : p->key_env);
    if (!llm->base_url || !llm->key_env) return kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG, "out of memory");
    size_t n = strlen(llm->base_url);
    while (n > 0 && llm->base_url[n - 1] == '/') llm->base_url[--n] = '\0';
    if (strncmp(llm->base_url, "http://", 7) != 0 && strncmp(llm->base_url, "https://", 8) != 0) {
        char shown[1024];
        kf_http_redact_url(llm->base_url, shown, sizeof shown);
        return kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG, "%s: base URL '%s' must start with http:// or https:// (check %s or [%s] base_url)",
                       p->name, shown, p->base_env, p->name);
    }
    char host[256];
    const char *key = getenv(llm->key_env);
    if (key && *key) {
        llm->api_key = strdup(key);
        if (!llm->api_key) return kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG, "out of memory");
    } else if (kf_llm_url_host_is(llm->base_url, default_host(default_base, host, sizeof host))) {
        return kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG,
                       "%s: %s is not set: export your API key, or point %s at a local server that needs none",
                       p->name, llm->key_env, p->base_env);
    }
    return 0;
}
