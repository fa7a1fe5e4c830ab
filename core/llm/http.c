/* http.c — one HTTP POST over libcurl (see http.h). */
#include "util/strbuf.h"
#include "config.h"
#include "http.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <curl/curl.h>

#define KF_HTTP_MAX_BODY (64u << 20)   /* a completion is never near this */

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void curl_init_once(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

/* the response body: a kf_sb capped at KF_HTTP_MAX_BODY */
typedef struct sink {
    kf_sb body;
    int overflow;
} sink;

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *ud)
{
    sink *s = ud;
    size_t n = size * nmemb;
    if (s->body.len + n + 1 > KF_HTTP_MAX_BODY) { s->overflow = 1; return 0; }
    kf_sb_append(&s->body, ptr, n);
    return s->body.oom ? 0 : n;
}

static int header_is(const char *line, size_t n, const char *name, const char **val, size_t *vlen)
{
    size_t k = strlen(name);
    if (n <= k || strncasecmp(line, name, k) != 0 || line[k] != ':') return 0;
    const char *v = line + k + 1, *e = line + n;
    while (v < e && (*v == ' ' || *v == '\t')) v++;
    while (e > v && isspace((unsigned char)e[-1])) e--;
    *val = v;
    *vlen = (size_t)(e - v);
    return 1;
}

static size_t on_header(char *ptr, size_t size, size_t nmemb, void *ud)
{
    kf_http_result *res = ud;
    size_t n = size * nmemb;
    const char *v;
    size_t vl;
    char tmp[128];
    if (n >= 5 && strncmp(ptr, "HTTP/", 5) == 0) {
        res->retry_after_s = -1;          /* a new response (after 100-continue, redirects) */
    } else if (header_is(ptr, n, "retry-after-ms", &v, &vl) && vl < sizeof tmp) {
        memcpy(tmp, v, vl);
        tmp[vl] = '\0';
        char *end;
        double ms = strtod(tmp, &end);
        if (end != tmp && ms >= 0) res->retry_after_s = ms / 1000.0;
    } else if (header_is(ptr, n, "retry-after", &v, &vl) && vl < sizeof tmp) {
        memcpy(tmp, v, vl);
        tmp[vl] = '\0';
        double s = kf_http_parse_retry_after(tmp);
        if (s >= 0 && res->retry_after_s < 0) res->retry_after_s = s;
    }
    return n;
}

double kf_http_parse_retry_after(const char *value)
{
    if (!value) return -1;
    while (isspace((unsigned char)*value)) value++;
    if (!*value) return -1;
    char *end;
    double s = strtod(value, &end);
    if (end != value && isdigit((unsigned char)*value)) {
        while (isspace((unsigned char)*end)) end++;
        return (*end == '\0' && s >= 0) ? s : -1;
    }
    time_t t = curl_getdate(value, NULL);
    if (t == (time_t)-1) return -1;
    double d = difftime(t, time(NULL));
    return d > 0 ? d : 0;
}

static kf_http_outcome classify(CURLcode rc)
{
    switch (rc) {
    case CURLE_OK: return KF_HTTP_OK;
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY: return KF_HTTP_CONNECT;
    case CURLE_OPERATION_TIMEDOUT: return KF_HTTP_TIMEOUT;
    case CURLE_PARTIAL_FILE: return KF_HTTP_TRUNCATED;
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_OUT_OF_MEMORY:
    case CURLE_BAD_FUNCTION_ARGUMENT:
    case CURLE_WRITE_ERROR: return KF_HTTP_FATAL;
    default: return KF_HTTP_NETWORK;
    }
}

int kf_http_get(const char *url, const char *const *headers, double connect_timeout_s,
                double timeout_s, kf_http_result *res)
{
    return kf_http_post(url, headers, NULL, connect_timeout_s, timeout_s, res);
}

int kf_http_post(const char *url, const char *const *headers, const char *body,
                 double connect_timeout_s, double timeout_s, kf_http_result *res)
{
    memset(res, 0, sizeof *res);
    res->retry_after_s = -1;
    pthread_once(&curl_once, curl_init_once);

    CURL *h = curl_easy_init();
    if (!h) {
        res->outcome = KF_HTTP_FATAL;
        snprintf(res->detail, sizeof res->detail, "libcurl could not create a handle");
        return -1;
    }
    struct curl_slist *hl = NULL;
    for (int i = 0; headers && headers[i]; i++) {
        struct curl_slist *nl = curl_slist_append(hl, headers[i]);
        if (!nl) { res->outcome = KF_HTTP_FATAL; goto out; }
        hl = nl;
    }
    /* no "Expect: 100-continue" round trip for big prompts */
    struct curl_slist *nl = curl_slist_append(hl, "Expect:");
    if (!nl) { res->outcome = KF_HTTP_FATAL; goto out; }
    hl = nl;

    sink s = {0};
    char errbuf[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(h, CURLOPT_URL, url);
    if (body) {
        curl_easy_setopt(h, CURLOPT_POST, 1L);
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
    } else {
        curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    }
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, res);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)(connect_timeout_s * 1000.0 + 0.5));
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(timeout_s * 1000.0 + 0.5));
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(h, CURLOPT_USERAGENT, "kforge/" PACKAGE_VERSION);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);

    CURLcode rc = curl_easy_perform(h);
    res->outcome = classify(rc);
    if (s.overflow) {
        res->outcome = KF_HTTP_FATAL;
        snprintf(res->detail, sizeof res->detail, "response body larger than %u MiB",
                 KF_HTTP_MAX_BODY >> 20);
    } else if (rc != CURLE_OK) {
        snprintf(res->detail, sizeof res->detail, "%s", errbuf[0] ? errbuf : curl_easy_strerror(rc));
    }
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &res->status);
    res->body_len = s.body.len;
    res->body = s.body.oom ? (kf_sb_free(&s.body), NULL) : s.body.s;
    if (!res->body) {
        res->body = calloc(1, 1);
        if (!res->body) res->outcome = KF_HTTP_FATAL;
    }
out:
    curl_slist_free_all(hl);
    curl_easy_cleanup(h);
    return res->outcome == KF_HTTP_OK ? 0 : -1;
}

void kf_http_result_free(kf_http_result *res)
{
    if (!res) return;
    free(res->body);
    res->body = NULL;
    res->body_len = 0;
}

const char *kf_http_reason(long status)
{
    switch (status) {
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 402: return "Payment Required";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 413: return "Payload Too Large";
    case 422: return "Unprocessable Entity";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 529: return "Overloaded";
    default: return "";
    }
}

void kf_http_redact_url(const char *url, char *out, size_t n)
{
    if (!n) return;
    const char *scheme = strstr(url, "://");
    const char *host = scheme ? scheme + 3 : url;
    const char *slash = strchr(host, '/');
    const char *at = strchr(host, '@');
    if (at && (!slash || at < slash)) {
        snprintf(out, n, "%.*s%s", (int)(host - url), url, at + 1);
    } else {
        snprintf(out, n, "%s", url);
    }
}
