/* test_llm_config.c — the providers' config file, prices, aliases, keys and small helpers. */
#include <stdlib.h>
#include <time.h>
#include <sys/stat.h>
#include "../kf_test.h"
#include "llm/http.h"
#include "llm/llm.h"
#include "llm/llm_internal.h"
#include "util/sha256.h"   /* the store's keys (llm_store.c) */

KF_TEST(builtin_prices_and_prefix_match)
{
    kf_llm_config *cfg = kf_llm_config_new();
    double in, out;
    KF_CHECK(kf_llm_config_price(cfg, "gpt-4o", &in, &out));
    KF_CHECK_NEAR(in, 2.50, 1e-12);
    KF_CHECK_NEAR(out, 10.00, 1e-12);
    /* dated snapshot -> family; the longest prefix wins */
    KF_CHECK(kf_llm_config_price(cfg, "gpt-4o-mini-2024-07-18", &in, &out));
    KF_CHECK_NEAR(in, 0.15, 1e-12);
    KF_CHECK(kf_llm_config_price(cfg, "claude-sonnet-4-20250514", &in, &out));
    KF_CHECK_NEAR(out, 15.0, 1e-12);
    KF_CHECK(kf_llm_config_price(cfg, "openai/gpt-4.1-mini", &in, &out));
    KF_CHECK_NEAR(in, 0.40, 1e-12);
    /* a prefix must end at a separator: "gpt-4ox" is not gpt-4o */
    KF_CHECK(!kf_llm_config_price(cfg, "gpt-4ox", &in, &out));
    KF_CHECK(!kf_llm_config_price(cfg, "qwen2.5-coder", &in, &out));
    KF_CHECK_NEAR(in, 0, 0);
    kf_llm_config_free(cfg);
}

KF_TEST(parse_file_sections)
{
    kf_llm_config *cfg = kf_llm_config_new();
    kf_error err = {0};
    const char *text =
        "# kforge config\n"
        "[alias]\n"
        "fast = openai:gpt-4o-mini\n"
        "local = \"openai:qwen2.5-coder-32b\"   # the vLLM box\n"
        "\n"
        "[openai]\n"
        "base_url = http://localhost:8000/v1#frag\t# comment\n"
        "  ; indented comment\n"
        "[prices]\n"
        "qwen2.5-coder-32b = 0.10 0.30\n"
        "gpt-4o = 1 2\n"
        "[http]\n"
        "timeout = 120\n"
        "max_attempts = 3\n";
    KF_CHECK_MSG(kf_llm_config_parse(cfg, text, "cfg", &err) == 0, "%s", err.msg);
    KF_CHECK_STR(kf_llm_config_get(cfg, "alias", "local"), "openai:qwen2.5-coder-32b");
    KF_CHECK_STR(kf_llm_config_get(cfg, "openai", "base_url"), "http://localhost:8000/v1#frag");
    KF_CHECK_NEAR(kf_llm_config_num(cfg, "http", "timeout", 300), 120, 0);
    KF_CHECK_NEAR(kf_llm_config_num(cfg, "http", "connect_timeout", 10), 10, 0);
    double in, out;
    KF_CHECK(kf_llm_config_price(cfg, "qwen2.5-coder-32b", &in, &out));
    KF_CHECK_NEAR(out, 0.30, 1e-12);
    KF_CHECK(kf_llm_config_price(cfg, "gpt-4o", &in, &out));     /* the file overrides */
    KF_CHECK_NEAR(in, 1, 0);

    /* an alias resolves to its provider:model */
    kf_llm *llm = kf_llm_open("local", cfg, &err);
    KF_CHECK_MSG(llm != NULL, "%s", err.msg);
    KF_CHECK_STR(kf_llm_name(llm), "openai:qwen2.5-coder-32b");
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
}

static void parse_fails(const char *text, const char *needle)
{
    kf_llm_config *cfg = kf_llm_config_new();
    kf_error err = {0};
    KF_CHECK_INT(kf_llm_config_parse(cfg, text, "my.cfg", &err), -1);
    KF_CHECK_INT(err.code, KF_LLM_E_CONFIG);
    KF_CHECK_CONTAINS(err.msg, needle);
    kf_llm_config_free(cfg);
}

KF_TEST(parse_errors_name_the_line)
{
    parse_fails("[http]\ntimeuot = 5\n", "my.cfg:2: unknown key 'timeuot' in [http] (known: connect_timeout, timeout");
    parse_fails("[htp]\n", "unknown section [htp]");
    parse_fails("x = 1\n", "my.cfg:1: 'x = 1' is outside any [section]");
    parse_fails("[prices]\nm = 3\n", "my.cfg:2: [prices] m = 3: write two numbers");
    parse_fails("[alias]\nfast = gpt-4o\n", "the target must be PROVIDER:MODEL");
    parse_fails("[http]\nmax_attempts = 0\n", "expected a whole number >= 1");
    parse_fails("[http]\ntimeout = soon\n", "expected a number >= 0");
    parse_fails("[openai]\nmax_tokens_field = max\n", "use max_tokens or max_completion_tokens");
    parse_fails("[openai\n", "malformed section header");
    parse_fails("[cmd]\njust words\n", "expected 'key = value'");
    parse_fails("[llm]\nmax_tokens = 0\n", "[llm] max_tokens = 0: expected a whole number >= 1");
    parse_fails("[llm]\ncontext_tokens = 2.5\n", "expected a whole number >= 1");
    parse_fails("[llm]\ntemperature = 3\n", "[llm] temperature = 3: expected a number from 0 to 2");
    parse_fails("[llm]\ntop_p = 1\n", "unknown key 'top_p' in [llm] (known: max_tokens, temperature, context_tokens)");
}

KF_TEST(llm_section_sets_the_request_defaults)
{
    kf_llm_config *cfg = kf_llm_config_new();
    kf_error err = {0};
    KF_CHECK_MSG(kf_llm_config_parse(cfg, "[llm]\nmax_tokens = 777\ntemperature = 0\ncontext_tokens = 8192\n", "t", &err) == 0,
                 "%s", err.msg);
    kf_llm *llm = kf_llm_open("cmd:cat", cfg, &err);
    KF_CHECK(llm != NULL);
    KF_CHECK_INT(kf_llm_default_max_tokens(llm), 777);
    KF_CHECK_NEAR(kf_llm_default_temperature(llm), 0, 0);
    KF_CHECK_INT(kf_llm_context_tokens(llm), 8192);
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
    /* unset: 0, -1 (the server's), 0 (unknown) */
    llm = kf_llm_open("cmd:cat", NULL, &err);
    KF_CHECK_INT(kf_llm_default_max_tokens(llm), 0);
    KF_CHECK_NEAR(kf_llm_default_temperature(llm), -1, 0);
    KF_CHECK_INT(kf_llm_context_tokens(llm), 0);
    kf_llm_close(llm);
}

KF_TEST(load_default_and_explicit_paths)
{
    char *dir = kf_test_tmpdir();
    char path[4200];
    kf_error err = {0};
    setenv("XDG_CONFIG_HOME", dir, 1);
    /* no file: defaults, no error */
    kf_llm_config *cfg = kf_llm_config_load(NULL, &err);
    KF_CHECK_MSG(cfg != NULL, "%s", err.msg);
    KF_CHECK(kf_llm_config_get(cfg, "alias", "fast") == NULL);
    kf_llm_config_free(cfg);
    snprintf(path, sizeof path, "%s/kforge", dir);
    KF_CHECK(mkdir(path, 0755) == 0);
    snprintf(path, sizeof path, "%s/kforge/config", dir);
    KF_CHECK(kf_test_write_file(path, "[alias]\nfast = anthropic:claude-3-5-haiku\n[cmd]\ntimeout = 7\n") == 0);
    cfg = kf_llm_config_load(NULL, &err);
    KF_CHECK_MSG(cfg != NULL, "%s", err.msg);
    KF_CHECK_STR(kf_llm_config_get(cfg, "alias", "fast"), "anthropic:claude-3-5-haiku");
    kf_llm_config_free(cfg);
    /* an explicit path that does not exist is an error */
    snprintf(path, sizeof path, "%s/missing.cfg", dir);
    KF_CHECK(kf_llm_config_load(path, &err) == NULL);
    KF_CHECK_CONTAINS(err.msg, "missing.cfg: cannot read the config file");
    /* a bad file is reported with its path and line */
    snprintf(path, sizeof path, "%s/bad.cfg", dir);
    kf_test_write_file(path, "[http]\n\nbogus = 1\n");
    KF_CHECK(kf_llm_config_load(path, &err) == NULL);
    KF_CHECK_CONTAINS(err.msg, "bad.cfg:3: unknown key 'bogus'");
}

KF_TEST(spec_errors)
{
    kf_error err = {0};
    KF_CHECK(kf_llm_open("nope:model", NULL, &err) == NULL);
    KF_CHECK_CONTAINS(err.msg, "unknown provider 'nope'");
    KF_CHECK(kf_llm_open("fast", NULL, &err) == NULL);
    KF_CHECK_CONTAINS(err.msg, "unknown agent 'fast'");
    KF_CHECK_INT(err.code, KF_LLM_E_CONFIG);
    KF_CHECK(kf_llm_open("openai:", NULL, &err) == NULL);
    KF_CHECK_CONTAINS(err.msg, "names no model");
    KF_CHECK(kf_llm_open("cmd:", NULL, &err) == NULL);
    KF_CHECK_CONTAINS(err.msg, "names no command");
    KF_CHECK(kf_llm_open("replay:/nonexistent/cassette.jsonl", NULL, &err) == NULL);
    KF_CHECK_CONTAINS(err.msg, "cannot read the cassette /nonexistent/cassette.jsonl");
    KF_CHECK(kf_llm_open("", NULL, &err) == NULL);
    KF_CHECK(kf_llm_error_is_fatal(KF_LLM_E_AUTH) && !kf_llm_error_is_fatal(KF_LLM_E_TIMEOUT));
}

KF_TEST(missing_key_only_matters_for_the_real_api)
{
    kf_error err = {0};
    unsetenv("OPENAI_API_KEY");
    unsetenv("OPENAI_BASE_URL");
    unsetenv("ANTHROPIC_API_KEY");
    unsetenv("ANTHROPIC_BASE_URL");
    KF_CHECK(kf_llm_open("openai:gpt-4o", NULL, &err) == NULL);
    KF_CHECK_STR(err.msg, "openai: OPENAI_API_KEY is not set: export your API key, or point OPENAI_BASE_URL at a local server that needs none");
    KF_CHECK(kf_llm_open("anthropic:claude-sonnet-4", NULL, &err) == NULL);
    KF_CHECK_CONTAINS(err.msg, "ANTHROPIC_API_KEY is not set");
    setenv("OPENAI_BASE_URL", "http://localhost:11434/v1/", 1);   /* Ollama: no key */
    kf_llm *llm = kf_llm_open("openai:llama3", NULL, &err);
    KF_CHECK_MSG(llm != NULL, "%s", err.msg);
    KF_CHECK_STR(llm->base_url, "http://localhost:11434/v1");
    KF_CHECK(llm->api_key == NULL);
    KF_CHECK_STR(llm->max_tokens_field, "max_tokens");
    kf_llm_close(llm);
    setenv("OPENAI_BASE_URL", "ftp://x", 1);
    KF_CHECK(kf_llm_open("openai:llama3", NULL, &err) == NULL);
    KF_CHECK_CONTAINS(err.msg, "must start with http:// or https://");
    /* api_key_env points at another variable */
    unsetenv("OPENAI_BASE_URL");
    setenv("MY_KEY", "k-123", 1);
    kf_llm_config *cfg = kf_llm_config_new();
    KF_CHECK(kf_llm_config_set(cfg, "openai", "api_key_env", "MY_KEY", &err) == 0);
    llm = kf_llm_open("openai:gpt-4o", cfg, &err);
    KF_CHECK_MSG(llm != NULL, "%s", err.msg);
    KF_CHECK_STR(llm->api_key, "k-123");
    KF_CHECK_STR(llm->max_tokens_field, "max_completion_tokens");
    kf_llm_close(llm);
    kf_llm_config_free(cfg);
}

KF_TEST(retry_after_values)
{
    KF_CHECK_NEAR(kf_http_parse_retry_after("1"), 1, 0);
    KF_CHECK_NEAR(kf_http_parse_retry_after(" 120 "), 120, 0);
    KF_CHECK_NEAR(kf_http_parse_retry_after("0.5"), 0.5, 0);
    KF_CHECK_NEAR(kf_http_parse_retry_after("soon"), -1, 0);
    KF_CHECK_NEAR(kf_http_parse_retry_after(""), -1, 0);
    KF_CHECK_NEAR(kf_http_parse_retry_after("-3"), -1, 0);
    char date[64];
    time_t t = time(NULL) + 30;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    KF_CHECK_NEAR(kf_http_parse_retry_after(date), 30, 2);
    KF_CHECK_NEAR(kf_http_parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), 0, 0);   /* past */
}

KF_TEST(url_redaction_and_reasons)
{
    char out[256];
    kf_http_redact_url("https://user:pw@example.com/v1", out, sizeof out);
    KF_CHECK_STR(out, "https://example.com/v1");
    kf_http_redact_url("http://127.0.0.1:8000/v1/a@b", out, sizeof out);
    KF_CHECK_STR(out, "http://127.0.0.1:8000/v1/a@b");
    KF_CHECK_STR(kf_http_reason(429), "Too Many Requests");
    KF_CHECK_STR(kf_http_reason(299), "");
    KF_CHECK(kf_llm_url_host_is("https://api.openai.com/v1", "api.openai.com"));
    KF_CHECK(kf_llm_url_host_is("https://API.openai.com:443", "api.openai.com"));
    KF_CHECK(!kf_llm_url_host_is("https://api.openai.com.evil.net/v1", "api.openai.com"));
}

KF_TEST(sha256_vectors)
{
    char hex[65];
    kf_sha256_hex("abc", 3, hex);
    KF_CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    kf_sha256_hex("", 0, hex);
    KF_CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";   /* 56 bytes: two blocks */
    kf_sha256_hex(m, strlen(m), hex);
    KF_CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

int main(void) { return kf_test_main(); }
