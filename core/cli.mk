# The kforge CLI.  Each cmd_*.c belongs to the part that implements it.
bin_PROGRAMS += core/kforge
core_kforge_SOURCES = core/cli/main.c core/cli/commands.h core/cli/common.c core/cli/common.h \
	core/cli/cmd_backends.c core/cli/cmd_check.c core/cli/cmd_verify.c \
	core/cli/cmd_run.c core/cli/cmd_suite.c core/cli/sandbox_opts.c core/cli/sandbox_opts.h
core_kforge_CFLAGS = $(KF_PROG_CCFLAGS)
core_kforge_LDADD = $(KF_PROG_LIBS)
core_kforge_LDFLAGS = $(KF_PROG_LINK)
