# core/reference.mk
