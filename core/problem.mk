# core/problem.mk — problem model: parser, ops table, shapes, FLOPs/bytes.
# Pattern for every part: a convenience library folded into libkforge.
noinst_LTLIBRARIES += core/libkf_problem.la
core_libkf_problem_la_SOURCES = core/problem.h
core_libkf_problem_la_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
core_libkforge_la_LIBADD += core/libkf_problem.la
