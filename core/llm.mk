# core/llm.mk
