/*
 * http.h — one HTTP POST over libcurl (an easy handle per call), nothing more.
 * Retries, backoff and error wording live with the callers (core/llm/llm_http.c).
 *
 * Nothing here logs or prints; request headers (which carry API keys) are never copied
 * into the result or an error message.
 */
#ifndef KF_HTTP_H
#define KF_HTTP_H

#include <stddef.h>

typedef enum kf_http_outcome {
    KF_HTTP_OK = 0,          /* a complete response arrived (any status) */
    KF_HTTP_CONNECT,         /* could not resolve or connect */
    KF_HTTP_TIMEOUT,         /* connect or total timeout */
    KF_HTTP_TRUNCATED,       /* the connection closed before the announced body ended */
    KF_HTTP_NETWORK,         /* another transfer error (reset, TLS, ...) */
    KF_HTTP_FATAL            /* misuse: bad URL, unsupported scheme, out of memory */
} kf_http_outcome;

typedef struct kf_http_result {
    kf_http_outcome outcome;
    long status;             /* HTTP status of the final response; 0 when none */
    char *body;              /* malloc'ed, NUL-terminated (maybe partial); NULL when none */
    size_t body_len;
    double retry_after_s;    /* from Retry-After (seconds or HTTP date) or retry-after-ms;
                                -1 when absent */
    char detail[256];        /* libcurl's description of a transfer error ("" if none) */
} kf_http_result;

/* POSTs body to url with the given headers (NULL-terminated array of "Name: value").
 * Fills *res in every case; returns 0 when a complete response arrived (res->outcome ==
 * KF_HTTP_OK), -1 otherwise.  Free with kf_http_result_free. */
int kf_http_post(const char *url, const char *const *headers, const char *body,
                 double connect_timeout_s, double timeout_s, kf_http_result *res);
void kf_http_result_free(kf_http_result *res);
/* The same as a GET (no body). */
int kf_http_get(const char *url, const char *const *headers, double connect_timeout_s,
                double timeout_s, kf_http_result *res);

/* Parses a Retry-After value: delta seconds or an HTTP date (relative to now);
 * returns seconds >= 0, or -1 when it cannot be parsed. */
double kf_http_parse_retry_after(const char *value);

/* The reason phrase of a status ("Unauthorized"), "" when unknown. */
const char *kf_http_reason(long status);

/* Copies url into out without any "user:password@" part (for messages and files). */
void kf_http_redact_url(const char *url, char *out, size_t n);

#endif
