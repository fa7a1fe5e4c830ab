# core/eval.mk
