/*
 * test_llm_stub.h — starting tests/stub/llm_stub.py from a test case and reading back
 * what it received.  Every helper fails the case (kf_test_fail) when something is off.
 */
#ifndef KF_TEST_LLM_STUB_H
#define KF_TEST_LLM_STUB_H

#include <sys/types.h>
#include <json-c/json.h>

typedef struct kf_stub {
    pid_t pid;
    int port;
    int stdin_fd;          /* closing it makes the stub exit */
    char log[4096];        /* JSON lines, one per request */
    char base[256];        /* "http://127.0.0.1:PORT" */
} kf_stub;

/* Writes script_json to a file in a fresh directory and starts the stub on it.
 * Skips the case when $PYTHON3 is "no". */
void kf_stub_start(kf_stub *s, const char *script_json);
/* The requests received so far (a JSON array; caller puts it). */
json_object *kf_stub_requests(const kf_stub *s);
int kf_stub_count(const kf_stub *s);
void kf_stub_stop(kf_stub *s);

/* A port on 127.0.0.1 where nothing listens (bound, then closed). */
int kf_stub_dead_port(void);

/* Clears proxies and the providers' variables so that only what the test sets counts. */
void kf_stub_clean_env(void);

#endif
