/*
 * common.h — helpers shared by the sub-commands: loading a problem for a
 * preset with user-facing errors, picking a default preset.
 */
#ifndef KF_CLI_COMMON_H
#define KF_CLI_COMMON_H

#include <stdio.h>
#include "problem/problem.h"
#include "util/progress.h"

/* Loads `path` and resolves `preset` (NULL = "small" if present, else the
 * first).  On error prints "kforge: MESSAGE" to stderr and returns
 * KF_EXIT_BAD_INPUT; on success 0, and the caller frees both. */
int kf_cli_load_problem(const char *path, const char *preset, kf_problem **p, kf_resolved *r);

/* Strict numeric options: the whole string, in range, no overflow; else
 * "kforge: OPT: expected ..., got 'S'" and -1 (the caller exits 2). */
int kf_cli_int(const char *opt, const char *s, long long lo, long long hi, long long *out);
/* lo_open: the value must be > lo (else >= lo). */
int kf_cli_double(const char *opt, const char *s, double lo, double hi, int lo_open, double *out);

/* --precision: "any" or "fp32" -> *out (kf_precision_policy); else
 * "kforge: --precision: ..." and -1 (the caller exits 2). */
int kf_cli_precision(const char *s, int *out);

/* Prints "kforge: " + message to stderr. */
void kf_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The library's progress receiver for the CLI: text to stdout (flushed at
 * each line), colours when stdout is a terminal; quiet: none. */
kf_progress kf_cli_progress(int quiet);

/* Human units: "1.23 ms", "4.5 GFLOP/s", "12.0 GB/s". Into buf, returns buf. */

#endif
