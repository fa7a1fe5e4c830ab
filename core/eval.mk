# core/eval.mk — evaluation of untrusted candidates: the worker protocol and
# process, guarded shared buffers, comparison, statistics, roofline.
noinst_LTLIBRARIES += core/libkf_eval.la
core_libkf_eval_la_SOURCES = core/eval.h core/eval_internal.h core/worker_proto.h \
	core/eval.c core/eval_checks.c core/eval_json.c core/eval_mem.c core/eval_text.c \
	core/eval_profile.c core/eval_predictors.c core/compare.c core/stats.c core/roofline.c \
	core/worker_client.c core/worker_proto.c \
	core/sandbox.h core/sandbox.c core/sandbox_env.c core/sandbox_confine.c
core_libkf_eval_la_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS) $(SECCOMP_CFLAGS)
core_libkf_eval_la_LIBADD = $(SECCOMP_LIBS)
core_libkforge_la_LIBADD += core/libkf_eval.la

# The process candidates run in (started by kf_evaluate, never by hand).
pkglibexec_PROGRAMS += core/kforge-worker
core_kforge_worker_SOURCES = core/worker_main.c core/worker_proto.h
core_kforge_worker_CFLAGS = $(KF_PROG_CCFLAGS)
core_kforge_worker_LDADD = $(KF_PROG_LIBS)
core_kforge_worker_LDFLAGS = $(KF_PROG_LINK)
