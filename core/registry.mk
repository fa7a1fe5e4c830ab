# core/registry.mk — plugin discovery and loading (libltdl), `kforge backends`.
# The plugin SDK itself (header, .pc, example backend) is plugin-sdk/Makefile.inc.
noinst_LTLIBRARIES += core/libkf_registry.la
core_libkf_registry_la_SOURCES = core/registry.c core/registry.h
core_libkf_registry_la_CFLAGS = $(AM_CFLAGS)
core_libkforge_la_LIBADD += core/libkf_registry.la
