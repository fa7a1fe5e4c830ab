/* test_llm.c — the providers against tests/stub/llm_stub.py (a loopback server speaking the
 * OpenAI and Anthropic wire formats with scripted faults), the cache, cassettes, the cmd
 * provider, and that the API key is never written anywhere. */
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "../kf_test.h"
#include "llm/answer.h"
#include "llm/llm.h"
#include "test_llm_stub.h"

#define SECRET "sk-test-SECRET"

static const kf_llm_message MSGS[] = {
    {KF_LLM_SYSTEM, "You write kernels.", NULL},
    {KF_LLM_USER, "Write a relu.", NULL},
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Short timeouts and a 50 ms backoff base so the file runs fast; extra overrides. */
static kf_llm_config *test_cfg(const kf_stub *s, const char *extra)
{
    char text[4096];
    snprintf(text, sizeof text,
             "[openai]\nbase_url = %s/v1\n[anthropic]\nbase_url = %s\n"
             "[http]\nconnect_timeout = 2\ntimeout = 5\nbackoff_base = 0.05\nbackoff_max = 0.2\n"
             "max_total_wait = 5\nmax_attempts = 5\n[cmd]\ntimeout = 5\n%s",
             s ? s->base : "http://127.0.0.1:1", s ? s->base : "http://127.0.0.1:1", extra ? extra : "");
    kf_llm_config *cfg = kf_llm_config_new();
    kf_error err = {0};
    if (kf_llm_config_parse(cfg, text, "test", &err) < 0) kf_test_fail(__FILE__, __LINE__, "%s", err.msg);
    return cfg;
}

static kf_llm *open_ok(const char *spec, const kf_llm_config *cfg)
{
    kf_error err = {0};
    kf_llm *llm = kf_llm_open(spec, cfg, &err);
    if (!llm) kf_test_fail(__FILE__, __LINE__, "open %s: %s", spec, err.msg);
    return llm;
}

static kf_llm_request basic_request(void)
{
    kf_llm_request r = KF_LLM_REQUEST_INIT;
    r.messages = MSGS;
    r.n_messages = 2;
    r.max_tokens = 100;
    return r;
}

/* A value inside a logged request: "body.messages.0.role", "headers.authorization". */
static json_object *jpath(json_object *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    char *save = NULL;
    for (char *k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save)) {
        if (json_object_is_type(o, json_type_array)) {
            o = json_object_array_get_idx(o, (size_t)atoi(k));
        } else {
            json_object *v = NULL;
            o = json_object_object_get_ex(o, k, &v) ? v : NULL;
        }
    }
    return o;
}

static const char *jstr(json_object *o, const char *path)
{
    json_object *v = jpath(o, path);
    return v ? json_object_get_string(v) : NULL;
}

#define COMPLETE_OK(llm, req, resp) do { kf_error _e = {0}; \
    if (kf_llm_complete((llm), (req), (resp), &_e) != 0) \
        kf_test_fail(__FILE__, __LINE__, "complete failed: %s", _e.msg); } while (0)

static void expect_failure(kf_llm *llm, int code, const char *needle, kf_error *err)
{
    kf_llm_request req = basic_request();
    kf_llm_response resp;
    int rc = kf_llm_complete(llm, &req, &resp, err);
    KF_CHECK_INT(rc, -1);
    KF_CHECK(resp.content == NULL);
    KF_CHECK_MSG(err->code == code, "code %d, expected %d: %s", err->code, code, err->msg);
    KF_CHECK_CONTAINS(err->msg, needle);
    KF_CHECK(strchr(err->msg, '\n') == NULL);
    kf_llm_response_free(&resp);
}

/* ---- the exact requests -------------------------------------------------- */

KF_TEST(openai_request_and_response)
{
    kf_stub_clean_env();
    setenv("OPENAI_API_KEY", SECRET, 1);
    kf_stub s;
    kf_stub_start(&s, "{\"openai\": [{\"content\": \"```c\\nint x;\\n```\", \"usage\": [12, 7],"
                      " \"model\": \"gpt-4o-2024-08-06\"}]}");
    kf_llm_config *cfg = test_cfg(&s, NULL);
    kf_llm *llm = open_ok("openai:gpt-4o", cfg);
    KF_CHECK_STR(kf_llm_name(llm), "openai:gpt-4o");
    kf_llm_request req = basic_request();
    const char *stop[] = {"END"};
    req.temperature = 0.25;
    req.has_seed = 1;
    req.seed = 7;
    req.stop = stop;
    req.n_stop = 1;
    kf_llm_response resp;
    COMPLETE_OK(llm, &req, &resp);
    KF_CHECK_STR(resp.content, "```c\nint x;\n```");
    KF_CHECK_STR(resp.finish_reason, "stop");
    KF_CHECK_INT(resp.prompt_tokens, 12);
    KF_CHECK_INT(resp.completion_tokens, 7);
    KF_CHECK_STR(resp.provider, "openai");
    KF_CHECK_STR(resp.model, "gpt-4o-2024-08-06");
    KF_CHECK_INT(resp.attempts, 1);
    KF_CHECK_INT(resp.from_cache, 0);
    KF_CHECK(resp.latency_s > 0 && resp.latency_s < 5);
    /* gpt-4o-2024-08-06 prices as gpt-4o: 2.50 / 10.00 USD per million */
    KF_CHECK_NEAR(resp.cost_usd, (12 * 2.5 + 7 * 10.0) / 1e6, 1e-15);

    json_object *reqs = kf_stub_requests(&s), *r0 = json_object_array_get_idx(reqs, 0);
    KF_CHECK_INT(json_object_array_length(reqs), 1);
    KF_CHECK_STR(jstr(r0, "method"), "POST");
    KF_CHECK_STR(jstr(r0, "path"), "/v1/chat/completions");
    KF_CHECK_STR(jstr(r0, "headers.authorization"), "Bearer " SECRET);
    KF_CHECK_STR(jstr(r0, "headers.content-type"), "application/json");
    KF_CHECK_STR(jstr(r0, "body.model"), "gpt-4o");
    KF_CHECK_INT(json_object_array_length(jpath(r0, "body.messages")), 2);
    KF_CHECK_STR(jstr(r0, "body.messages.0.role"), "system");
    KF_CHECK_STR(jstr(r0, "body.messages.0.content"), "You write kernels.");
    KF_CHECK_STR(jstr(r0, "body.messages.1.role"), "user");
    KF_CHECK_STR(jstr(r0, "body.messages.1.content"), "Write a relu.");
    KF_CHECK_NEAR(json_object_get_double(jpath(r0, "body.temperature")), 0.25, 0);
    KF_CHECK_INT(json_object_get_int(jpath(r0, "body.max_tokens")), 100);   /* local server */
    KF_CHECK(jpath(r0, "body.max_completion_tokens") == NULL);
    KF_CHECK_INT(json_object_get_int(jpath(r0, "body.seed")), 7);
    KF_CHECK_STR(jstr(r0, "body.stop.0"), "END");
    json_object_put(reqs);

    kf_llm_usage u;
    kf_llm_get_usage(llm, &u);
    KF_CHECK_INT(u.requests, 1);
    KF_CHECK_INT(u.prompt_tokens, 12);
    KF_CHECK_INT(u.completion_tokens, 7);
    KF_CHECK_NEAR(u.cost_usd, resp.cost_usd, 1e-15);
    kf_llm_response_free(&resp);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
    kf_stub_stop(&s);
}

KF_TEST(openai_optional_fields_and_no_key)
{
    kf_stub_clean_env();   /* no key: a local server needs none, no Authorization header */
    kf_stub s;
    kf_stub_start(&s, "{\"openai\": [{\"content\": \"hi\", \"finish_reason\": \"length\"}]}");
    kf_llm_config *cfg = test_cfg(&s, "[openai]\nmax_tokens_field = max_completion_tokens\n");
    kf_llm *llm = open_ok("openai:qwen", cfg);
    kf_llm_request req = basic_request();
    kf_llm_response resp;
    COMPLETE_OK(llm, &req, &resp);
    KF_CHECK_STR(resp.content, "hi");
    KF_CHECK_STR(resp.finish_reason, "length");
    KF_CHECK_NEAR(resp.cost_usd, 0, 0);             /* no price for qwen */
    json_object *reqs = kf_stub_requests(&s), *r0 = json_object_array_get_idx(reqs, 0);
    KF_CHECK(jpath(r0, "headers.authorization") == NULL);
    KF_CHECK(jpath(r0, "body.temperature") == NULL);
    KF_CHECK(jpath(r0, "body.seed") == NULL);
    KF_CHECK(jpath(r0, "body.stop") == NULL);
    KF_CHECK_INT(json_object_get_int(jpath(r0, "body.max_completion_tokens")), 100);
    json_object_put(reqs);
    kf_llm_response_free(&resp);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
    kf_stub_stop(&s);
}

KF_TEST(openai_base_url_from_environment)
{
    kf_stub_clean_env();
    kf_stub s;
    kf_stub_start(&s, "{\"openai\": [{\"content\": \"from env\"}]}");
    char url[300];
    snprintf(url, sizeof url, "%s/v1/", s.base);
    setenv("OPENAI_BASE_URL", url, 1);   /* beats the config's base_url */
    kf_llm_config *cfg = kf_llm_config_new();
    kf_llm_config_set(cfg, "openai", "base_url", "http://127.0.0.1:1/v1", NULL);
    kf_llm *llm = open_ok("openai:m", cfg);
    kf_llm_request req = basic_request();
    kf_llm_response resp;
    COMPLETE_OK(llm, &req, &resp);
    KF_CHECK_STR(resp.content, "from env");
    kf_llm_response_free(&resp);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
    kf_stub_stop(&s);
}

KF_TEST(anthropic_request_and_response)
{
    kf_stub_clean_env();
    setenv("ANTHROPIC_API_KEY", SECRET, 1);
    kf_stub s;
    kf_stub_start(&s, "{\"anthropic\": [{\"content\": \"two halves joined\", \"finish_reason\": \"length\","
                      " \"usage\": [1000, 2000]}]}");
    kf_llm_config *cfg = test_cfg(&s, NULL);
    kf_llm *llm = open_ok("anthropic:claude-sonnet-4-20250514", cfg);
    kf_llm_message msgs[] = {{KF_LLM_SYSTEM, "Rules A.", NULL}, {KF_LLM_SYSTEM, "Rules B.", NULL},
                             {KF_LLM_USER, "Q1", NULL}, {KF_LLM_ASSISTANT, "A1", NULL}, {KF_LLM_USER, "Q2", NULL}};
    kf_llm_request req = KF_LLM_REQUEST_INIT;
    const char *stop[] = {"###"};
    req.messages = msgs;
    req.n_messages = 5;
    req.temperature = 0;
    req.stop = stop;
    req.n_stop = 1;
    kf_llm_response resp;
    COMPLETE_OK(llm, &req, &resp);
    KF_CHECK_STR(resp.content, "two halves joined");   /* the stub sends two text blocks */
    KF_CHECK_STR(resp.finish_reason, "length");        /* max_tokens -> length */
    KF_CHECK_INT(resp.prompt_tokens, 1000);
    KF_CHECK_INT(resp.completion_tokens, 2000);
    KF_CHECK_STR(resp.provider, "anthropic");
    KF_CHECK_NEAR(resp.cost_usd, (1000 * 3.0 + 2000 * 15.0) / 1e6, 1e-15);

    json_object *reqs = kf_stub_requests(&s), *r0 = json_object_array_get_idx(reqs, 0);
    KF_CHECK_STR(jstr(r0, "path"), "/v1/messages");
    KF_CHECK_STR(jstr(r0, "headers.x-api-key"), SECRET);
    KF_CHECK_STR(jstr(r0, "headers.anthropic-version"), "2023-06-01");
    KF_CHECK_STR(jstr(r0, "headers.content-type"), "application/json");
    KF_CHECK(jpath(r0, "headers.authorization") == NULL);
    KF_CHECK_STR(jstr(r0, "body.model"), "claude-sonnet-4-20250514");
    KF_CHECK_STR(jstr(r0, "body.system"), "Rules A.\n\nRules B.");
    KF_CHECK_INT(json_object_get_int(jpath(r0, "body.max_tokens")), 4096);   /* required: default */
    KF_CHECK_INT(json_object_array_length(jpath(r0, "body.messages")), 3);
    KF_CHECK_STR(jstr(r0, "body.messages.0.role"), "user");
    KF_CHECK_STR(jstr(r0, "body.messages.1.role"), "assistant");
    KF_CHECK_STR(jstr(r0, "body.messages.1.content"), "A1");
    KF_CHECK_STR(jstr(r0, "body.messages.2.content"), "Q2");
    KF_CHECK_NEAR(json_object_get_double(jpath(r0, "body.temperature")), 0, 0);
    KF_CHECK_STR(jstr(r0, "body.stop_sequences.0"), "###");
    json_object_put(reqs);
    kf_llm_response_free(&resp);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
    kf_stub_stop(&s);
}

/* Bodies shaped like the real APIs' answers, extra fields and all. */
KF_TEST(real_world_bodies)
{
    kf_stub_clean_env();
    kf_stub s;
    kf_stub_start(&s,
        "{\"openai\": ["
        "{\"status\": 200, \"body\": {\"id\": \"chatcmpl-B9\", \"object\": \"chat.completion\", \"created\": 1741569952,"
        " \"model\": \"gpt-4.1-2025-04-14\", \"choices\": [{\"index\": 0, \"message\": {\"role\": \"assistant\","
        " \"content\": null, \"refusal\": \"I can't help with that.\", \"annotations\": []}, \"logprobs\": null,"
        " \"finish_reason\": \"content_filter\"}], \"usage\": {\"prompt_tokens\": 19, \"completion_tokens\": 0,"
        " \"total_tokens\": 19, \"prompt_tokens_details\": {\"cached_tokens\": 0}},"
        " \"service_tier\": \"default\", \"system_fingerprint\": \"fp_1\"}},"
        "{\"status\": 200, \"body\": {\"id\": \"x\", \"object\": \"chat.completion\", \"model\": \"llama\","
        " \"choices\": [{\"index\": 0, \"message\": {\"role\": \"assistant\", \"content\": [{\"type\": \"text\", \"text\": \"part one, \"},"
        " {\"type\": \"text\", \"text\": \"part two\"}]}, \"finish_reason\": \"stop\"}]}},"
        "{\"status\": 200, \"body\": {\"error\": {\"message\": \"model 'x' not found, try pulling it first\"}}}],"
        " \"anthropic\": ["
        "{\"status\": 200, \"body\": {\"id\": \"msg_01\", \"type\": \"message\", \"role\": \"assistant\","
        " \"model\": \"claude-sonnet-4-20250514\", \"content\": [{\"type\": \"thinking\", \"thinking\": \"hmm\","
        " \"signature\": \"abc\"}, {\"type\": \"text\", \"text\": \"final text\"}], \"stop_reason\": \"end_turn\","
        " \"stop_sequence\": null, \"usage\": {\"input_tokens\": 21, \"cache_creation_input_tokens\": 0,"
        " \"cache_read_input_tokens\": 0, \"output_tokens\": 9}}}]}");
    kf_llm_config *cfg = test_cfg(&s, "[http]\nmax_attempts = 1\n");
    kf_llm *llm = open_ok("openai:gpt-4.1", cfg);
    kf_llm_request req = basic_request();
    kf_llm_response resp;
    COMPLETE_OK(llm, &req, &resp);
    KF_CHECK_STR(resp.content, "");                 /* empty content is returned as is */
    KF_CHECK_STR(resp.finish_reason, "content_filter");
    KF_CHECK_STR(resp.model, "gpt-4.1-2025-04-14");
    KF_CHECK_INT(resp.prompt_tokens, 19);
    kf_llm_response_free(&resp);
    COMPLETE_OK(llm, &req, &resp);
    KF_CHECK_STR(resp.content, "part one, part two");
    KF_CHECK_INT(resp.prompt_tokens, 0);              /* no usage: 0, not garbage */
    kf_llm_response_free(&resp);
    kf_error err = {0};
    expect_failure(llm, KF_LLM_E_BAD_RESPONSE, "the server answered an error: model 'x' not found, try pulling it first", &err);
    kf_llm_close(llm);
    llm = open_ok("anthropic:claude-sonnet-4", cfg);
    COMPLETE_OK(llm, &req, &resp);
    KF_CHECK_STR(resp.content, "final text");
    KF_CHECK_STR(resp.finish_reason, "stop");
    KF_CHECK_INT(resp.completion_tokens, 9);
    kf_llm_response_free(&resp);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
    kf_stub_stop(&s);
}

/* ---- retries ------------------------------------------------------------- */


KF_TEST(retry_after_429_then_success)
{
    kf_stub_clean_env();
    kf_stub s;
    kf_stub_start(&s, "{\"openai\": [{\"status\": 429, \"headers\": {\"Retry-After\": \"1\"},"
                      " \"error\": {\"message\": \"Rate limit reached\", \"code\": \"rate_limit_exceeded\"}},"
                      " {\"content\": \"after the wait\"}]}");
    kf_llm_config *cfg = test_cfg(&s, NULL);
    kf_llm *llm = open_ok("openai:m", cfg);
    kf_llm_request req = basic_request();
    kf_llm_response resp;
    double t0 = now_s();
    COMPLETE_OK(llm, &req, &resp);
    double dt = now_s() - t0;
    KF_CHECK_STR(resp.content, "after the wait");
    KF_CHECK_INT(resp.attempts, 2);
    KF_CHECK_INT(kf_stub_count(&s), 2);
    KF_CHECK_MSG(dt >= 0.95 && dt < 3.0, "took %.3f s, expected about 1 s (Retry-After: 1)", dt);
    kf_llm_response_free(&resp);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
    kf_stub_stop(&s);
}

KF_TEST(retry_500_500_then_success)
{
    kf_stub_clean_env();
    kf_stub s;
    kf_stub_start(&s, "{\"openai\": [{\"status\": 500, \"error\": {\"message\": \"boom\"}},"
                      " {\"status\": 502, \"body\": \"<html>bad gateway</html>\"}, {\"content\": \"third time\"}]}");
    kf_llm_config *cfg = test_cfg(&s, NULL);
    kf_llm *llm = open_ok("openai:m", cfg);
    kf_llm_request req = basic_request();
    kf_llm_response resp;
    double t0 = now_s();
    COMPLETE_OK(llm, &req, &resp);
    KF_CHECK_STR(resp.content, "third time");
    KF_CHECK_INT(resp.attempts, 3);
    KF_CHECK_INT(kf_stub_count(&s), 3);
    KF_CHECK(now_s() - t0 < 2.0);   /* full jitter under 50 ms * 2^k */
    kf_llm_response_free(&resp);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
    kf_stub_stop(&s);
}

KF_TEST(server_errors_until_max_attempts)
{
    kf_stub_clean_env();
    kf_stub s;
    kf_stub_start(&s, "{\"anthropic\": [{\"status\": 529, \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}},"
                      "{\"status\": 529, \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}},"
                      "{\"status\": 503, \"error\": {\"type\": \"api_error\", \"message\": \"try later\"}},"
                      "{\"content\": \"never reached\"}]}");
    kf_llm_config *cfg = test_cfg(&s, "[http]\nmax_attempts = 3\n");
    kf_llm *llm = open_ok("anthropic:claude-3-5-haiku", cfg);
    kf_error err = {0};
    expect_failure(llm, KF_LLM_E_SERVER,
                   "503 Service Unavailable from anthropic: try later — gave up after 3 attempts; the server keeps failing; retry later",
                   &err);
    KF_CHECK_INT(kf_stub_count(&s), 3);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
    kf_stub_stop(&s);
}

KF_TEST(unauthorized_is_not_retried)
{
    kf_stub_clean_env();
    setenv("OPENAI_API_KEY", SECRET, 1);
    kf_stub s;
    /* OpenAI echoes (part of) the key in its message: it must not reach ours */
    kf_stub_start(&s, "{\"openai\": [{\"status\": 401, \"error\": {\"message\": \"Incorrect API key provided: " SECRET
                      ". You can find your API key at https://platform.openai.com/account/api-keys.\","
                      " \"type\": \"invalid_request_error\", \"code\": \"invalid_api_key\"}}, {\"content\": \"no\"}]}");
    kf_llm_config *cfg = test_cfg(&s, NULL);
    kf_llm *llm = open_ok("openai:gpt-4o", cfg);
    kf_error err = {0};
    expect_failure(llm, KF_LLM_E_AUTH, "401 Unauthorized from openai: Incorrect API key provided: ", &err);
    KF_CHECK_CONTAINS(err.msg, " — check OPENAI_API_KEY");
    KF_CHECK_MSG(!strstr(err.msg, "SECRET"), "the key leaked into: %s", err.msg);
    KF_CHECK(kf_llm_error_is_fatal(err.code));
    KF_CHECK_INT(kf_stub_count(&s), 1);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
    kf_stub_stop(&s);
}

KF_TEST(client_errors_are_not_retried)
{
    kf_stub_clean_env();
    setenv("ANTHROPIC_API_KEY", "k", 1);
    kf_stub s;
    kf_stub_start(&s, "{\"anthropic\": [{\"status\": 401, \"error\": {\"type\": \"authentication_error\", \"message\": \"invalid x-api-key\"}},"
                      "{\"status\": 404, \"error\": {\"type\": \"not_found_error\", \"message\": \"model: claude-9\"}},"
                      "{\"status\": 400, \"error\": {\"type\": \"invalid_request_error\", \"message\": \"max_tokens: too large\"}},"
                      "{\"status\": 403, \"error\": {\"type\": \"permission_error\", \"message\": \"no access\"}}]}");
    kf_llm_config *cfg = test_cfg(&s, NULL);
    kf_llm *llm = open_ok("anthropic:claude-9", cfg);
    kf_error err = {0};
    expect_failure(llm, KF_LLM_E_AUTH, "401 Unauthorized from anthropic: invalid x-api-key — check ANTHROPIC_API_KEY", &err);
    expect_failure(llm, KF_LLM_E_REQUEST, "404 Not Found from anthropic: model: claude-9 — check the model name 'claude-9' and the base URL http://127.0.0.1:", &err);
    expect_failure(llm, KF_LLM_E_REQUEST, "400 Bad Request from anthropic: max_tokens: too large — the request was refused", &err);
    expect_failure(llm, KF_LLM_E_AUTH, "403 Forbidden from anthropic: no access — check that the key in ANTHROPIC_API_KEY may use model 'claude-9'", &err);
    KF_CHECK_INT(kf_stub_count(&s), 4);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
    kf_stub_stop(&s);
}

KF_TEST(insufficient_quota_is_not_retried)
{
    kf_stub_clean_env();
    kf_stub s;
    kf_stub_start(&s, "{\"openai\": [{\"status\": 429, \"headers\": {\"Retry-After\": \"0\"}, \"error\": {\"message\":"
                      " \"You exceeded your current quota, please check your plan and billing details.\","
                      " \"type\": \"insufficient_quota\", \"code\": \"insufficient_quota\"}}, {\"content\": \"no\"}]}");
    kf_llm_config *cfg = test_cfg(&s, NULL);
    kf_llm *llm = open_ok("openai:gpt-4o", cfg);
    kf_error err = {0};
    expect_failure(llm, KF_LLM_E_QUOTA, "429 Too Many Requests from openai: You exceeded your current quota", &err);
    KF_CHECK_CONTAINS(err.msg, "quota is exhausted");
    KF_CHECK_INT(kf_stub_count(&s), 1);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
    kf_stub_stop(&s);
}

KF_TEST(retry_after_beyond_the_wait_cap)
{
    kf_stub_clean_env();
    kf_stub s;
    kf_stub_start(&s, "{\"openai\": [{\"status\": 429, \"headers\": {\"Retry-After\": \"30\"},"
                      " \"error\": {\"message\": \"slow down\"}}, {\"content\": \"no\"}]}");
    kf_llm_config *cfg = test_cfg(&s, "[http]\nmax_total_wait = 2\n");
    kf_llm *llm = open_ok("openai:m", cfg);
    kf_error err = {0};
    double t0 = now_s();
    expect_failure(llm, KF_LLM_E_RATE, "waiting 30.0 s more would pass [http] max_total_wait (2 s)", &err);
    KF_CHECK(now_s() - t0 < 1.5);
    KF_CHECK_INT(kf_stub_count(&s), 1);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
    kf_stub_stop(&s);
}

KF_TEST_TIMEOUT(stall_times_out, 20)
{
    kf_stub_clean_env();
    kf_stub s;
    kf_stub_start(&s, "{\"openai\": [{\"fault\": \"stall\", \"seconds\": 10}, {\"content\": \"no\"}]}");
    kf_llm_config *cfg = test_cfg(&s, "[http]\ntimeout = 1\nmax_attempts = 1\n");
    kf_llm *llm = open_ok("openai:m", cfg);
    kf_error err = {0};
    double t0 = now_s();
    expect_failure(llm, KF_LLM_E_TIMEOUT, "no answer from http://127.0.0.1:", &err);
    double dt = now_s() - t0;
    KF_CHECK_CONTAINS(err.msg, "within 1 s");
    KF_CHECK_CONTAINS(err.msg, "raise --request-timeout ([http] timeout in the config)");
    KF_CHECK_MSG(dt >= 0.9 && dt < 2.0, "timed out after %.3f s, expected about 1 s", dt);
    KF_CHECK_INT(kf_stub_count(&s), 1);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
    kf_stub_stop(&s);
}

KF_TEST_TIMEOUT(stall_then_retry_succeeds, 20)
{
    kf_stub_clean_env();
    kf_stub s;
    kf_stub_start(&s, "{\"openai\": [{\"fault\": \"stall\", \"seconds\": 10}, {\"content\": \"second try\"}]}");
    kf_llm_config *cfg = test_cfg(&s, "[http]\ntimeout = 1\nmax_attempts = 2\n");
    kf_llm *llm = open_ok("openai:m", cfg);
    kf_llm_request req = basic_request();
    kf_llm_response resp;
    COMPLETE_OK(llm, &req, &resp);
    KF_CHECK_STR(resp.content, "second try");
    KF_CHECK_INT(resp.attempts, 2);
    kf_llm_response_free(&resp);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
    kf_stub_stop(&s);
}

KF_TEST(truncated_body)
{
    kf_stub_clean_env();
    kf_stub s;
    /* retried once, then an error */
    kf_stub_start(&s, "{\"openai\": [{\"fault\": \"truncated\"}, {\"fault\": \"truncated\"}, {\"content\": \"no\"}]}");
    kf_llm_config *cfg = test_cfg(&s, NULL);
    kf_llm *llm = open_ok("openai:m", cfg);
    kf_error err = {0};
    expect_failure(llm, KF_LLM_E_BAD_RESPONSE, "openai: the response from http://127.0.0.1:", &err);
    KF_CHECK_CONTAINS(err.msg, "/v1/chat/completions was cut short after ");
    KF_CHECK_CONTAINS(err.msg, "gave up after 2 attempts");
    KF_CHECK_INT(kf_stub_count(&s), 2);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
    kf_stub_stop(&s);
}

KF_TEST(truncated_then_complete)
{
    kf_stub_clean_env();
    kf_stub s;
    kf_stub_start(&s, "{\"anthropic\": [{\"fault\": \"truncated\"}, {\"content\": \"whole\"}]}");
    kf_llm_config *cfg = test_cfg(&s, NULL);
    kf_llm *llm = open_ok("anthropic:m", cfg);
    kf_llm_request req = basic_request();
    kf_llm_response resp;
    COMPLETE_OK(llm, &req, &resp);
    KF_CHECK_STR(resp.content, "whole");
    KF_CHECK_INT(resp.attempts, 2);
    kf_llm_response_free(&resp);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
    kf_stub_stop(&s);
}

KF_TEST(invalid_json_and_wrong_shape)
{
    kf_stub_clean_env();
    kf_stub s;
    kf_stub_start(&s, "{\"openai\": [{\"fault\": \"invalid_json\"}, {\"fault\": \"invalid_json\"},"
                      " {\"status\": 200, \"body\": {\"hello\": 1}}, {\"status\": 200, \"body\": {\"object\": \"list\"}},"
                      " {\"fault\": \"close\"}, {\"fault\": \"close\"}, {\"fault\": \"close\"}]}");
    kf_llm_config *cfg = test_cfg(&s, "[http]\nmax_attempts = 3\n");
    kf_llm *llm = open_ok("openai:m", cfg);
    kf_error err = {0};
    expect_failure(llm, KF_LLM_E_BAD_RESPONSE, "unusable answer from http://127.0.0.1:", &err);
    KF_CHECK_CONTAINS(err.msg, "the body is not valid JSON");
    KF_CHECK_INT(kf_stub_count(&s), 2);
    expect_failure(llm, KF_LLM_E_BAD_RESPONSE, "the body has no choices[0] (not a chat completion)", &err);
    KF_CHECK_INT(kf_stub_count(&s), 4);
    /* connection closed without an answer: a network error, retried up to max_attempts */
    expect_failure(llm, KF_LLM_E_NETWORK, "openai: cannot talk to http://127.0.0.1:", &err);
    KF_CHECK_INT(kf_stub_count(&s), 7);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
    kf_stub_stop(&s);
}

KF_TEST(connection_refused)
{
    kf_stub_clean_env();
    char extra[256];
    snprintf(extra, sizeof extra, "[openai]\nbase_url = http://127.0.0.1:%d/v1\n[http]\nmax_attempts = 2\n",
             kf_stub_dead_port());
    kf_llm_config *cfg = test_cfg(NULL, extra);
    kf_llm *llm = open_ok("openai:m", cfg);
    kf_error err = {0};
    expect_failure(llm, KF_LLM_E_NETWORK, "openai: cannot talk to http://127.0.0.1:", &err);
    KF_CHECK_CONTAINS(err.msg, "gave up after 2 attempts; check OPENAI_BASE_URL (or [openai] base_url) and that the server is running");
    KF_CHECK(!kf_llm_error_is_fatal(err.code));
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
}

/* ---- usage, cache, cassettes ---------------------------------------------- */

KF_TEST(usage_totals_and_configured_prices)
{
    kf_stub_clean_env();
    kf_stub s;
    kf_stub_start(&s, "{\"openai\": [{\"content\": \"a\", \"usage\": [1000000, 500000]},"
                      " {\"content\": \"b\", \"usage\": [10, 20]}]}");
    kf_llm_config *cfg = test_cfg(&s, "[prices]\nmy-coder = 1.5 3\n");
    kf_llm *llm = open_ok("openai:my-coder", cfg);
    kf_llm_request req = basic_request();
    kf_llm_response resp;
    COMPLETE_OK(llm, &req, &resp);
    KF_CHECK_NEAR(resp.cost_usd, 1.5 + 1.5, 1e-12);
    kf_llm_response_free(&resp);
    COMPLETE_OK(llm, &req, &resp);
    KF_CHECK_NEAR(resp.cost_usd, (10 * 1.5 + 20 * 3.0) / 1e6, 1e-15);
    kf_llm_response_free(&resp);
    kf_llm_usage u;
    kf_llm_get_usage(llm, &u);
    KF_CHECK_INT(u.requests, 2);
    KF_CHECK_INT(u.cache_hits, 0);
    KF_CHECK_INT(u.prompt_tokens, 1000010);
    KF_CHECK_INT(u.completion_tokens, 500020);
    KF_CHECK_NEAR(u.cost_usd, 3.0 + 75e-6, 1e-12);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
    kf_stub_stop(&s);
}

KF_TEST(cache_hit_costs_nothing)
{
    kf_stub_clean_env();
    kf_stub s;
    kf_stub_start(&s, "{\"openai\": [{\"content\": \"first\", \"usage\": [100, 50]},"
                      " {\"content\": \"other seed\", \"usage\": [100, 50]}, {\"content\": \"third\"}]}");
    kf_llm_config *cfg = test_cfg(&s, NULL);
    char cache[4200];
    snprintf(cache, sizeof cache, "%s/out/cache", kf_test_tmpdir());
    kf_error err = {0};
    kf_llm *llm = open_ok("openai:gpt-4o", cfg);
    KF_CHECK(kf_llm_set_cache(llm, cache, &err) == 0);
    kf_llm_request req = basic_request();
    req.has_seed = 1;
    req.seed = 1;
    kf_llm_response resp;
    COMPLETE_OK(llm, &req, &resp);
    KF_CHECK_STR(resp.content, "first");
    KF_CHECK_INT(resp.from_cache, 0);
    KF_CHECK(resp.cost_usd > 0);
    kf_llm_response_free(&resp);
    kf_llm_close(llm);

    /* a rerun (new handle, same request): served from the cache, no HTTP, no cost */
    llm = open_ok("openai:gpt-4o", cfg);
    kf_llm_set_cache(llm, cache, &err);
    COMPLETE_OK(llm, &req, &resp);
    KF_CHECK_STR(resp.content, "first");
    KF_CHECK_INT(resp.from_cache, 1);
    KF_CHECK_NEAR(resp.cost_usd, 0, 0);
    KF_CHECK_INT(resp.prompt_tokens, 100);
    KF_CHECK_INT(resp.attempts, 0);
    KF_CHECK_STR(resp.provider, "openai");
    KF_CHECK_INT(kf_stub_count(&s), 1);
    kf_llm_response_free(&resp);
    /* any parameter change is a different request */
    req.seed = 2;
    COMPLETE_OK(llm, &req, &resp);
    KF_CHECK_STR(resp.content, "other seed");
    KF_CHECK_INT(resp.from_cache, 0);
    kf_llm_response_free(&resp);
    KF_CHECK_INT(kf_stub_count(&s), 2);
    kf_llm_usage u;
    kf_llm_get_usage(llm, &u);
    KF_CHECK_INT(u.cache_hits, 1);
    KF_CHECK_INT(u.requests, 1);
    KF_CHECK_INT(u.prompt_tokens, 100);
    kf_llm_close(llm);
    /* another model is another request too */
    llm = open_ok("openai:gpt-4o-mini", cfg);
    kf_llm_set_cache(llm, cache, &err);
    req.seed = 1;
    COMPLETE_OK(llm, &req, &resp);
    KF_CHECK_STR(resp.content, "third");
    kf_llm_response_free(&resp);
    KF_CHECK_INT(kf_stub_count(&s), 3);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
    kf_stub_stop(&s);
}

KF_TEST(record_then_replay_without_http)
{
    kf_stub_clean_env();
    kf_stub s;
    kf_stub_start(&s, "{\"openai\": [{\"content\": \"answer one\", \"usage\": [5, 6]},"
                      " {\"content\": \"answer two\"}, {\"content\": \"answer two again\"}]}");
    kf_llm_config *cfg = test_cfg(&s, NULL);
    char cassette[4200];
    snprintf(cassette, sizeof cassette, "%s/out", kf_test_tmpdir());
    mkdir(cassette, 0755);
    strcat(cassette, "/run.cassette.jsonl");
    kf_error err = {0};
    kf_llm *llm = open_ok("openai:gpt-4o", cfg);
    KF_CHECK_MSG(kf_llm_set_record(llm, cassette, &err) == 0, "%s", err.msg);
    kf_llm_request req = basic_request();
    kf_llm_message second[] = {{KF_LLM_USER, "Make it faster.", NULL}};
    kf_llm_request req2 = basic_request();
    req2.messages = second;
    req2.n_messages = 1;
    kf_llm_response resp;
    COMPLETE_OK(llm, &req, &resp);
    kf_llm_response_free(&resp);
    COMPLETE_OK(llm, &req2, &resp);
    kf_llm_response_free(&resp);
    COMPLETE_OK(llm, &req2, &resp);   /* same request twice: two entries, replayed in order */
    kf_llm_response_free(&resp);
    kf_llm_close(llm);
    KF_CHECK_INT(kf_stub_count(&s), 3);
    kf_stub_stop(&s);                  /* replay must not need the server */

    char spec[4300];
    snprintf(spec, sizeof spec, "replay:%s", cassette);
    llm = open_ok(spec, cfg);
    COMPLETE_OK(llm, &req2, &resp);
    KF_CHECK_STR(resp.content, "answer two");
    KF_CHECK_STR(resp.provider, "replay");
    KF_CHECK_INT(resp.attempts, 0);
    kf_llm_response_free(&resp);
    COMPLETE_OK(llm, &req, &resp);
    KF_CHECK_STR(resp.content, "answer one");
    KF_CHECK_STR(resp.model, "gpt-4o");
    KF_CHECK_INT(resp.prompt_tokens, 5);
    KF_CHECK_NEAR(resp.cost_usd, 0, 0);
    kf_llm_response_free(&resp);
    COMPLETE_OK(llm, &req2, &resp);
    KF_CHECK_STR(resp.content, "answer two again");
    kf_llm_response_free(&resp);
    COMPLETE_OK(llm, &req2, &resp);   /* used up: the last one repeats */
    KF_CHECK_STR(resp.content, "answer two again");
    kf_llm_response_free(&resp);
    /* an unknown request says so and shows its key */
    kf_llm_message other[] = {{KF_LLM_USER, "Something never recorded.", NULL}};
    req.messages = other;
    req.n_messages = 1;
    KF_CHECK_INT(kf_llm_complete(llm, &req, &resp, &err), -1);
    KF_CHECK_INT(err.code, KF_LLM_E_REPLAY_MISS);
    KF_CHECK_CONTAINS(err.msg, "has no answer for this request (key ");
    const char *k = strstr(err.msg, "(key ");
    KF_CHECK(k && strspn(k + 5, "0123456789abcdef") == 12);
    /* ... and what differs from the closest recorded request */
    KF_CHECK_CONTAINS(err.msg, "message 1 (user), line 1: now 'Something never recorded.', recorded 'Make it faster.'");
    kf_llm_message changed[] = {{KF_LLM_SYSTEM, "You write kernels.", NULL}, {KF_LLM_USER, "Write a gelu.", NULL}};
    req.messages = changed;
    req.n_messages = 2;
    KF_CHECK_INT(kf_llm_complete(llm, &req, &resp, &err), -1);
    KF_CHECK_INT(err.code, KF_LLM_E_REPLAY_MISS);
    KF_CHECK_CONTAINS(err.msg, "message 2 (user), line 1: now 'Write a gelu.', recorded 'Write a relu.'");
    req.messages = MSGS;
    req.max_tokens = 77;
    KF_CHECK_INT(kf_llm_complete(llm, &req, &resp, &err), -1);
    KF_CHECK_CONTAINS(err.msg, "max_tokens is 77 now, 100 in the closest recorded request");
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
}

/* tests/stub/cassettes/relu.jsonl was written by Python (json + hashlib), not by us: the
 * key format (sha256 of the compact JSON of messages and parameters) is a stable contract. */
KF_TEST(replay_a_recorded_cassette)
{
    char spec[4300];
    snprintf(spec, sizeof spec, "replay:%s/tests/stub/cassettes/relu.jsonl", kf_test_srcdir());
    kf_llm *llm = open_ok(spec, NULL);
    kf_llm_request req = basic_request();
    req.temperature = 0;
    req.has_seed = 1;
    req.seed = 3;
    kf_llm_response resp;
    COMPLETE_OK(llm, &req, &resp);
    KF_CHECK_STR(resp.model, "qwen2.5-coder-32b-instruct");
    KF_CHECK_INT(resp.completion_tokens, 64);
    static const char *const langs[] = {"c", NULL};
    char *code = NULL;
    kf_error err = {0};
    KF_CHECK_MSG(kf_answer_extract(resp.content, langs, &code, &err) == 0, "%s", err.msg);
    KF_CHECK_CONTAINS(code, "void kf_kernel(const float *x, float *y, long n)");
    KF_CHECK(strncmp(code, "#include <stddef.h>\n", 20) == 0);
    free(code);
    kf_llm_response_free(&resp);
    req.seed = 4;   /* any parameter differs: not in the cassette */
    KF_CHECK_INT(kf_llm_complete(llm, &req, &resp, &err), -1);
    KF_CHECK_INT(err.code, KF_LLM_E_REPLAY_MISS);
    kf_llm_close(llm);
}

KF_TEST(replay_rejects_a_broken_cassette)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/bad.jsonl", kf_test_tmpdir());
    kf_test_write_file(path, "\n{\"key\": \"abc\", \"response\": {}}\n");
    char spec[4300];
    snprintf(spec, sizeof spec, "replay:%s", path);
    kf_error err = {0};
    KF_CHECK(kf_llm_open(spec, NULL, &err) == NULL);
    KF_CHECK_CONTAINS(err.msg, "bad.jsonl:2: not a cassette entry");
}

static const char *scan_needle;
static char scan_hit[4096];

static int scan_file(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb; (void)ftw;
    if (flag != FTW_F) return 0;
    char *text = kf_test_read_file(path);
    if (text && strstr(text, scan_needle)) snprintf(scan_hit, sizeof scan_hit, "%s", path);
    free(text);
    return 0;
}

KF_TEST(secret_is_never_written)
{
    kf_stub_clean_env();
    setenv("OPENAI_API_KEY", SECRET, 1);
    setenv("ANTHROPIC_API_KEY", SECRET, 1);
    kf_stub s;
    kf_stub_start(&s, "{\"openai\": [{\"content\": \"ok\"}, {\"status\": 401, \"error\": {\"message\": \"bad key " SECRET "\"}}],"
                      " \"anthropic\": [{\"content\": \"ok too\"}]}");
    kf_llm_config *cfg = test_cfg(&s, NULL);
    char out[4200], cache[4300], cassette[4300];
    snprintf(out, sizeof out, "%s/out", kf_test_tmpdir());
    mkdir(out, 0755);
    snprintf(cache, sizeof cache, "%s/cache", out);
    snprintf(cassette, sizeof cassette, "%s/cassette.jsonl", out);
    kf_error err = {0};
    const char *specs[] = {"openai:gpt-4o", "anthropic:claude-3-5-haiku"};
    for (int i = 0; i < 2; i++) {
        kf_llm *llm = open_ok(specs[i], cfg);
        kf_llm_set_cache(llm, cache, &err);
        kf_llm_set_record(llm, cassette, &err);
        kf_llm_request req = basic_request();
        kf_llm_response resp;
        COMPLETE_OK(llm, &req, &resp);
        kf_llm_response_free(&resp);
        COMPLETE_OK(llm, &req, &resp);     /* a cache hit, recorded too */
        KF_CHECK_INT(resp.from_cache, 1);
        kf_llm_response_free(&resp);
        if (i == 0) {
            req.seed = 9;
            req.has_seed = 1;
            KF_CHECK_INT(kf_llm_complete(llm, &req, &resp, &err), -1);
            KF_CHECK_MSG(!strstr(err.msg, "SECRET"), "key in message: %s", err.msg);
        }
        kf_llm_close(llm);
    }
    /* the stub saw the key (so it was really sent) ... */
    char *log = kf_test_read_file(s.log);
    KF_CHECK(log && strstr(log, SECRET));
    free(log);
    kf_stub_stop(&s);
    /* ... and no file we wrote holds it */
    char *cas = kf_test_read_file(cassette);
    KF_CHECK_MSG(cas && strstr(cas, "\"content\":\"ok too\""), "cassette: %s", cas ? cas : "(none)");
    int lines = 0;
    for (char *p = cas; p && *p; p++) lines += *p == '\n';
    KF_CHECK_INT(lines, 5);   /* 4 answers and the failed request, recorded as such */
    KF_CHECK_MSG(cas && strstr(cas, "\"error\":{\"code\":"), "no failed request in the cassette: %s", cas ? cas : "");
    free(cas);
    scan_needle = "SECRET";
    scan_hit[0] = '\0';
    KF_CHECK(nftw(out, scan_file, 16, FTW_PHYS) == 0);
    KF_CHECK_MSG(!scan_hit[0], "the key was written to %s", scan_hit);
    scan_needle = "ok too";   /* sanity: the scan does read the files */
    KF_CHECK(nftw(out, scan_file, 16, FTW_PHYS) == 0);
    KF_CHECK_MSG(scan_hit[0], "the scan found nothing at all");
    kf_llm_config_free(cfg);
}

/* ---- cmd ----------------------------------------------------------------- */

KF_TEST(cmd_cat_echoes_the_prompt)
{
    kf_llm_config *cfg = test_cfg(NULL, NULL);
    kf_llm *llm = open_ok("cmd:cat", cfg);
    kf_llm_request req = basic_request();
    kf_llm_response resp;
    COMPLETE_OK(llm, &req, &resp);
    KF_CHECK_STR(resp.content, "=== system ===\nYou write kernels.\n\n=== user ===\nWrite a relu.\n");
    KF_CHECK_STR(resp.provider, "cmd");
    KF_CHECK_STR(resp.finish_reason, "stop");
    KF_CHECK_NEAR(resp.cost_usd, 0, 0);
    kf_llm_response_free(&resp);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
}

KF_TEST(cmd_large_prompt_through_a_pipe)
{
    kf_llm_config *cfg = test_cfg(NULL, NULL);
    kf_llm *llm = open_ok("cmd:cat", cfg);
    size_t n = 3u << 20;   /* far above any pipe buffer: needs writing and reading together */
    char *big = malloc(n + 1);
    for (size_t i = 0; i < n; i++) big[i] = (char)('a' + i % 26);
    big[n] = '\0';
    kf_llm_message m[] = {{KF_LLM_USER, big, NULL}};
    kf_llm_request req = KF_LLM_REQUEST_INIT;
    req.messages = m;
    req.n_messages = 1;
    kf_llm_response resp;
    COMPLETE_OK(llm, &req, &resp);
    KF_CHECK_INT(strlen(resp.content), strlen("=== user ===\n") + n + 1);
    KF_CHECK(memcmp(resp.content + strlen("=== user ===\n"), big, n) == 0);
    kf_llm_response_free(&resp);
    free(big);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
}

KF_TEST(cmd_timeout_kills_the_process_group)
{
    char pidfile[4200], spec[4400];
    snprintf(pidfile, sizeof pidfile, "%s/child.pid", kf_test_tmpdir());
    snprintf(spec, sizeof spec, "cmd:sleep 30 & echo $! > %s; wait", pidfile);
    kf_llm_config *cfg = test_cfg(NULL, "[cmd]\ntimeout = 0.5\n");
    kf_llm *llm = open_ok(spec, cfg);
    kf_error err = {0};
    double t0 = now_s();
    expect_failure(llm, KF_LLM_E_CMD, "gave no complete answer within 0.5 s and was killed", &err);
    KF_CHECK(now_s() - t0 < 2.0);
    KF_CHECK_CONTAINS(err.msg, "raise --request-timeout ([cmd] timeout in the config)");
    char *pid_text = kf_test_read_file(pidfile);
    KF_CHECK(pid_text != NULL);
    pid_t child = pid_text ? (pid_t)atoi(pid_text) : 0;
    free(pid_text);
    KF_CHECK(child > 0);
    /* the background sleep was in the group: gone (or a zombie about to be reaped) */
    int alive = 1;
    for (int i = 0; i < 100 && alive; i++) {
        char stat[64], *st;
        snprintf(stat, sizeof stat, "/proc/%d/stat", (int)child);
        st = kf_test_read_file(stat);
        alive = st && !strstr(st, ") Z ");
        free(st);
        if (alive) usleep(10000);
    }
    KF_CHECK_MSG(!alive, "the command's child %d survived the timeout", (int)child);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
}

KF_TEST(cmd_failure_reports_stderr)
{
    kf_llm_config *cfg = test_cfg(NULL, NULL);
    kf_llm *llm = open_ok("cmd:cat >/dev/null; echo 'model crashed' >&2; echo 'line two' >&2; exit 3", cfg);
    kf_error err = {0};
    expect_failure(llm, KF_LLM_E_CMD, "exited with status 3: model crashed line two", &err);
    kf_llm_close(llm);
    llm = open_ok("cmd:no-such-llm-command-xyz", cfg);
    expect_failure(llm, KF_LLM_E_CMD, "exited with status 127 (command not found?)", &err);
    kf_llm_close(llm);
    /* a command that ignores its stdin still answers */
    llm = open_ok("cmd:echo fixed answer", cfg);
    kf_llm_request req = basic_request();
    kf_llm_response resp;
    COMPLETE_OK(llm, &req, &resp);
    KF_CHECK_STR(resp.content, "fixed answer\n");
    kf_llm_response_free(&resp);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
}

KF_TEST(cmd_answers_are_cached_by_command)
{
    char cache[4200], counter[4200], spec[4400];
    snprintf(cache, sizeof cache, "%s/cache", kf_test_tmpdir());
    snprintf(counter, sizeof counter, "%s/calls", kf_test_tmpdir());
    snprintf(spec, sizeof spec, "cmd:cat >/dev/null; echo x >> %s; echo answer", counter);
    kf_llm_config *cfg = test_cfg(NULL, NULL);
    kf_error err = {0};
    kf_llm_request req = basic_request();
    kf_llm_response resp;
    for (int i = 0; i < 2; i++) {
        kf_llm *llm = open_ok(spec, cfg);
        kf_llm_set_cache(llm, cache, &err);
        COMPLETE_OK(llm, &req, &resp);
        KF_CHECK_STR(resp.content, "answer\n");
        KF_CHECK_INT(resp.from_cache, i);
        kf_llm_response_free(&resp);
        kf_llm_close(llm);
    }
    char *calls = kf_test_read_file(counter);
    KF_CHECK_STR(calls, "x\n");
    free(calls);
    /* another command: another key */
    kf_llm *llm = open_ok("cmd:echo other", cfg);
    kf_llm_set_cache(llm, cache, &err);
    COMPLETE_OK(llm, &req, &resp);
    KF_CHECK_STR(resp.content, "other\n");
    KF_CHECK_INT(resp.from_cache, 0);
    kf_llm_response_free(&resp);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
}

KF_TEST(request_validation)
{
    kf_llm *llm = open_ok("cmd:cat", NULL);
    kf_llm_request req = KF_LLM_REQUEST_INIT;
    kf_llm_response resp;
    kf_error err = {0};
    KF_CHECK_INT(kf_llm_complete(llm, &req, &resp, &err), -1);
    KF_CHECK_CONTAINS(err.msg, "the request has no messages");
    kf_llm_response_free(&resp);
    kf_llm_close(llm);
}

/* ---- issue 13: context, request timeout, keys, cmd seed and usage --------------- */

KF_TEST(context_from_models_then_props)
{
    kf_stub_clean_env();
    kf_stub s;
    kf_stub_start(&s, "{\"get\": {\"/v1/models\": {\"data\": [{\"id\": \"other\", \"max_model_len\": 1},"
                      " {\"id\": \"m\", \"meta\": {\"n_ctx\": 4096}}]}}}");
    kf_llm_config *cfg = test_cfg(&s, NULL);
    kf_llm *llm = open_ok("openai:m", cfg);
    KF_CHECK_INT(kf_llm_context_tokens(llm), 4096);      /* the entry of this model */
    KF_CHECK_INT(kf_llm_context_tokens(llm), 4096);
    KF_CHECK_INT(kf_stub_count(&s), 1);                   /* asked once */
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
    kf_stub_stop(&s);

    kf_stub_start(&s, "{\"get\": {\"/props\": {\"default_generation_settings\": {\"n_ctx\": 2048}}}}");
    cfg = test_cfg(&s, NULL);
    llm = open_ok("openai:m", cfg);
    KF_CHECK_INT(kf_llm_context_tokens(llm), 2048);      /* /v1/models 404, then llama.cpp's /props */
    KF_CHECK_INT(kf_stub_count(&s), 3);                   /* the log goes on: 1 from the first stub */
    json_object *reqs = kf_stub_requests(&s);
    KF_CHECK_STR(jstr(reqs, "1.path"), "/v1/models");
    KF_CHECK_STR(jstr(reqs, "2.path"), "/props");
    json_object_put(reqs);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
    kf_stub_stop(&s);
}

KF_TEST(context_learnt_from_a_refusal)
{
    kf_stub_clean_env();
    kf_stub s;
    kf_stub_start(&s, "{\"openai\": [{\"status\": 400, \"error\": {\"message\": "
                      "\"Requested tokens (9000) exceed context window of 2048\"}}]}");
    kf_llm_config *cfg = test_cfg(&s, NULL);
    kf_llm *llm = open_ok("openai:m", cfg);
    kf_error err = {0};
    expect_failure(llm, KF_LLM_E_REQUEST, "exceed context window of 2048", &err);
    KF_CHECK_INT(kf_llm_context_tokens(llm), 2048);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
    kf_stub_stop(&s);
}

KF_TEST_TIMEOUT(request_timeout_bounds_all_attempts, 20)
{
    kf_stub_clean_env();
    kf_stub s;
    kf_stub_start(&s, "{\"openai\": [{\"fault\": \"stall\", \"seconds\": 10}, {\"content\": \"late\"}]}");
    kf_llm_config *cfg = test_cfg(&s, "[http]\ntimeout = 5\nmax_attempts = 3\n");
    kf_llm *llm = open_ok("openai:m", cfg);
    kf_llm_request req = basic_request();
    req.timeout_s = 1;               /* what is left of the run's time */
    kf_llm_response resp;
    kf_error err = {0};
    double t0 = now_s();
    KF_CHECK_INT(kf_llm_complete(llm, &req, &resp, &err), -1);
    double dt = now_s() - t0;
    KF_CHECK_INT(err.code, KF_LLM_E_TIMEOUT);
    KF_CHECK_CONTAINS(err.msg, "time budget (--max-time) ran out during the request");
    KF_CHECK_MSG(dt >= 0.9 && dt < 2.0, "took %.3f s, expected about 1 s and no retry", dt);
    KF_CHECK_INT(kf_stub_count(&s), 1);
    KF_CHECK(kf_llm_error_is_outage(err.code));
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
    kf_stub_stop(&s);
}

KF_TEST(key_content_keys_the_cache)
{
    kf_stub_clean_env();
    kf_stub s;
    kf_stub_start(&s, "{\"openai\": [{\"content\": \"one\"}, {\"content\": \"two\"}]}");
    kf_llm_config *cfg = test_cfg(&s, NULL);
    kf_llm *llm = open_ok("openai:m", cfg);
    char cache[4200];
    snprintf(cache, sizeof cache, "%s/cache", kf_test_tmpdir());
    kf_error err = {0};
    kf_llm_set_cache(llm, cache, &err);
    kf_llm_message a[] = {{KF_LLM_USER, "bandwidth 41.3 GB/s", "bandwidth (measured)"}};
    kf_llm_message b[] = {{KF_LLM_USER, "bandwidth 39.8 GB/s", "bandwidth (measured)"}};
    kf_llm_message c[] = {{KF_LLM_USER, "bandwidth 39.8 GB/s", NULL}};
    kf_llm_request req = basic_request();
    kf_llm_response resp;
    req.messages = a;
    req.n_messages = 1;
    COMPLETE_OK(llm, &req, &resp);
    KF_CHECK_STR(resp.content, "one");
    kf_llm_response_free(&resp);
    req.messages = b;                 /* another measurement: the same key */
    COMPLETE_OK(llm, &req, &resp);
    KF_CHECK_STR(resp.content, "one");
    KF_CHECK_INT(resp.from_cache, 1);
    kf_llm_response_free(&resp);
    req.messages = c;                 /* no key form: the text itself is the key */
    COMPLETE_OK(llm, &req, &resp);
    KF_CHECK_STR(resp.content, "two");
    kf_llm_response_free(&resp);
    /* the server got the real text */
    json_object *reqs = kf_stub_requests(&s);
    KF_CHECK_STR(jstr(reqs, "0.body.messages.0.content"), "bandwidth 41.3 GB/s");
    json_object_put(reqs);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
    kf_stub_stop(&s);
}

KF_TEST(cmd_gets_the_seed_and_reports_usage)
{
    kf_llm_config *cfg = test_cfg(NULL, NULL);
    kf_llm *llm = open_ok("cmd:cat >/dev/null; echo \"seed=$KFORGE_LLM_SEED max=$KFORGE_LLM_MAX_TOKENS t=$KFORGE_LLM_TEMPERATURE\";"
                          " echo 'kforge-usage: prompt_tokens=1 completion_tokens=1' >&2;"
                          " echo 'kforge-usage: prompt_tokens=123 completion_tokens=45' >&2", cfg);
    kf_llm_request req = basic_request();
    req.has_seed = 1;
    req.seed = 77;
    req.temperature = 0.5;
    kf_llm_response resp;
    COMPLETE_OK(llm, &req, &resp);
    KF_CHECK_STR(resp.content, "seed=77 max=100 t=0.5\n");
    KF_CHECK_INT(resp.prompt_tokens, 123);          /* the last line counts */
    KF_CHECK_INT(resp.completion_tokens, 45);
    kf_llm_response_free(&resp);
    kf_llm_usage u;
    kf_llm_get_usage(llm, &u);
    KF_CHECK_INT(u.prompt_tokens, 123);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
}

int main(void)
{
    signal(SIGPIPE, SIG_DFL);
    return kf_test_main();
}
