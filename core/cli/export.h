/*
 * export.h — what `kforge export` (cmd_export.c) knows about a run, shared
 * with the writers of each target (export_ocl_c.c: --to c for OpenCL C
 * kernel plans).
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
    KF_EXP_HOST_C,    /* host-entry C (kforge-cpu.h's kf_cpu_args) */
    KF_EXP_OPENCL,    /* kernel plan in OpenCL C */
    KF_EXP_CUDA       /* kernel plan in CUDA C (NVRTC) */
} kf_exp_kind;

typedef struct kf_exp_ctx {
    const char *run_dir, *out, *to, *model;
    kf_problem *p;
    kf_resolved r;
    int have_r;
    kf_candidate *c;
    kf_bound b;                   /* kernel plans: the plan at the preset */
    int have_b;
    kf_exp_kind kind;
    char *backend;                /* the run's backend name (informative only) */
    char *language;               /* "c", "opencl-c", "cuda-c" */
    int inferred;                 /* language/caps inferred from the candidate
                                     (a run recorded before result.json had them) */
    char *preset;
    char *ident;                  /* C / Python identifier from the problem name */
    int64_t *scratch;             /* bytes per scratch buffer */
} kf_exp_ctx;

/* Writes dir/name; 0 or -1 with err. */
int kf_exp_write_in(const char *dir, const char *name, const char *text, kf_error *err);
/* Appends `text` as the body of a C string literal (escaped, split into lines). */
void kf_exp_c_string(kf_sb *b, const char *text);
/* Writes a --to c set into x->out: the candidate's sources (with
 * kforge-cpu.h for host-entry C), NAME.h (h), NAME.c (c), example.c (e) and
 * the Makefile (m); frees the four buffers.  0, or -1 with err (a buffer
 * that ran out of memory included). */
int kf_exp_write_c_set(const kf_exp_ctx *x, kf_sb *h, kf_sb *c, kf_sb *e, kf_sb *m, kf_error *err);
/* --to c for an OpenCL C kernel plan: NAME.h, NAME.c (the program text
 * embedded, built on first use), example.c and a Makefile in x->out. */
int kf_exp_opencl_c(const kf_exp_ctx *x, kf_error *err);

#endif
