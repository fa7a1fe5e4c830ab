# core/llm.mk — LLM providers (openai, anthropic, cmd, replay), response cache,
# cassettes, the providers' config file, and answer parsing (fenced blocks, tolerant JSON).
noinst_LTLIBRARIES += core/libkf_llm.la
core_libkf_llm_la_SOURCES = core/llm.h core/llm_internal.h core/llm.c core/llm_config.c \
	core/llm_store.c core/llm_sha256.c core/llm_http.c core/llm_openai.c \
	core/llm_anthropic.c core/llm_cmd.c core/llm_replay.c \
	core/http.h core/http.c core/answer.h core/answer.c
core_libkf_llm_la_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS) $(CURL_CFLAGS)
core_libkforge_la_LIBADD += core/libkf_llm.la
EXTRA_DIST += doc/config.md
