/*
 * export.h — what `kforge export` (cmd_export.c) knows about a run, shared
 * with export_plugin.c, which asks the plugin of the run's backend for the
 * host code of a kernel plan (plugin ABI 1.4, export_files).
 */
#ifndef KF_CLI_EXPORT_H
#define KF_CLI_EXPORT_H

#include <stdint.h>
#include "candidate/candidate.h"
#include "problem/problem.h"
#include "util/error.h"
#include "util/strbuf.h"

/* What the run's best candidate is, from its backend's declared language
 * and capabilities (never from the backend's name). */
typedef enum kf_exp_kind {
    KF_EXP_HOST_C,    /* host-entry C (KF_CAP_HOST_ENTRY, kforge-cpu.h's kf_cpu_args) */
    KF_EXP_PLAN       /* a kernel plan (KF_CAP_KERNEL_PLAN) */
} kf_exp_kind;
/* Either way the plugin of the run's backend writes the code that calls it
 * (export_plugin.c). */

typedef struct kf_exp_ctx {
    const char *run_dir, *out, *to, *model;
    kf_problem *p;
    kf_resolved r;
    int have_r;
    kf_candidate *c;
    kf_bound b;                   /* the candidate and problem views at the preset
                                     (a plan bound there) */
    int have_b;
    kf_exp_kind kind;
    char *backend;                /* the run's backend name (informative only) */
    char *language;               /* "c", "opencl-c", "cuda-c", ... */
    char *kind_name;              /* "host-c", or a plan's language without "-c":
                                     "opencl", "cuda" (spec.json's "kind") */
    int inferred;                 /* language/caps inferred from the candidate
                                     (a run recorded before result.json had them) */
    char *preset;
    char *ident;                  /* C / Python identifier from the problem name */
    int64_t *scratch;             /* bytes per scratch buffer */
} kf_exp_ctx;

/* Writes dir/name; 0 or -1 with err. */
int kf_exp_write_in(const char *dir, const char *name, const char *text, kf_error *err);

/* What the plugin gave for an export (malloc'ed; kf_exp_from_plugin_free). */
typedef struct kf_exp_from_plugin {
    char *plugin;       /* the plugin that wrote them ("opencl") */
    char *files;        /* the files it wrote, "a.h, a.c, ..." */
    char *caller;       /* --to torch: the module the package imports ("_opencl") */
    char *spec_extra;   /* --to torch: a JSON object to merge into spec.json, or NULL */
} kf_exp_from_plugin;

/* Asks the plugin of the run's backend (x->backend, found as `kforge
 * backends` finds it) for the code that calls the kernel (a plan's host
 * code, host-entry C's wrapper) for `target` ("c", "torch"), when it
 * declares the run's language and has export_files; else the first other
 * plugin that does and takes the kernel's kind (KF_CAP_HOST_ENTRY or
 * KF_CAP_KERNEL_PLAN); and writes its files into dir.
 * 0, or -1 with err: KF_E_UNAVAILABLE when no such plugin is here (saying
 * what the run's own plugin lacks), KF_E_BAD_INPUT when it does not export
 * this (its message says why). */
int kf_exp_plugin(const kf_exp_ctx *x, const char *target, const char *dir, kf_exp_from_plugin *out,
                  kf_error *err);
void kf_exp_from_plugin_free(kf_exp_from_plugin *f);

#endif
