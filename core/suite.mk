# core/suite.mk — `kforge suite` (the loop over a problem set, one process
# per problem, resumable) and its reports (report.json, report.md and a
# self-contained report.html with inline SVG plots).
noinst_LTLIBRARIES += core/libkf_suite.la
core_libkf_suite_la_SOURCES = core/suite.h core/suite.c core/suite_collect.c \
	core/report.h core/report_internal.h core/report.c core/report_load.c core/report_machine.c \
	core/report_util.c core/report_json.c core/report_md.c core/report_html.c core/report_svg.c
core_libkf_suite_la_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
core_libkforge_la_LIBADD += core/libkf_suite.la
dist_noinst_SCRIPTS += bench/run_suite.sh
