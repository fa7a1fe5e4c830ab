# core/problem.mk — problem model: parser, ops table, shapes, FLOPs/bytes.
# Pattern for every part: a convenience library folded into libkforge.
noinst_LTLIBRARIES += core/libkf_problem.la
core_libkf_problem_la_SOURCES = core/problem.h core/problem_internal.h \
	core/problem.c core/problem_parse.c core/problem_parse_graph.c \
	core/problem_parse_util.c core/ops.c core/shapes.c core/problem_describe.c
core_libkf_problem_la_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
core_libkforge_la_LIBADD += core/libkf_problem.la
