# core/candidate.mk — candidates: manifest load/save (json-c), integer
# expressions over dims, binding a launch plan to a resolved problem.
noinst_LTLIBRARIES += core/libkf_candidate.la
core_libkf_candidate_la_SOURCES = core/candidate.h core/candidate.c \
	core/candidate_bind.c core/build_options.c core/expr.c
core_libkf_candidate_la_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
core_libkforge_la_LIBADD += core/libkf_candidate.la
