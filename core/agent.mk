# core/agent.mk — agents, the refinement loop, the run journal and records.
noinst_LTLIBRARIES += core/libkf_agent.la
core_libkf_agent_la_SOURCES = core/agent.h core/agent.c core/agent_llm.c core/prompt.h core/prompt.c \
	core/loop.h core/loop.c core/loop_internal.h core/loop_resume.c core/journal.h core/journal.c core/run_record.h core/run_record.c
core_libkf_agent_la_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
core_libkforge_la_LIBADD += core/libkf_agent.la
# --- builtin begin
core_libkf_agent_la_SOURCES += core/builtin.h core/builtin_ir.c core/builtin_prelude.c \
	core/builtin_cpu.c core/builtin_search.c core/builtin_agent.c core/anchor.h core/anchor.c
core_libkf_agent_la_SOURCES += core/builtin_ocl.c core/builtin_ocl_internal.h core/builtin_ocl_gemm.c \
	core/builtin_ocl_reduce.c core/builtin_ocl_map.c
# --- builtin end
