# core/candidate.mk
