# core/registry.mk
