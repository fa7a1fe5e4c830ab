# core/reference.mk — the double-precision reference evaluator and the
# seeded input generator.
noinst_LTLIBRARIES += core/libkf_reference.la
core_libkf_reference_la_SOURCES = \
	core/reference.h core/ref_internal.h core/rng.h \
	core/reference.c core/ref_gemm.c core/ref_ops_util.c \
	core/ref_ops_matmul.c core/ref_ops_elementwise.c core/ref_ops_reduce.c \
	core/ref_ops_pool.c core/ref_norm.c core/rng.c
core_libkf_reference_la_CFLAGS = $(AM_CFLAGS)
core_libkforge_la_LIBADD += core/libkf_reference.la
