/* report_internal.h — helpers shared by the report writers (not public). */
#ifndef KF_REPORT_INTERNAL_H
#define KF_REPORT_INTERNAL_H

#include <stddef.h>
#include <stdio.h>
#include "report.h"

/* What the GEMM anchor columns mean (every report says it). */
#define KF_REP_ANCHOR_NOTE \
    "GEMM anchor: a standalone library timing of the problem's main GEMM alone (cblas_sgemm, same M, N, K " \
    "and thread count), measured in the same run right after the baseline and through the same verify-and-time " \
    "path; not a kernel for the problem. A baseline over 1.5x its anchor is flagged: its tail ops cost that " \
    "much, or it was slowed and the speedups over it are inflated"

/* "1.62x" or "-" for x <= 0. */
const char *kf_rep_speedup(double x, char *buf, size_t n);
/* The distinct "backend: device" pairs of the entries, joined by "; ",
 * "unknown" when none is recorded. */
void kf_rep_devices(const kf_report *r, char *buf, size_t n);
/* The label of fast_p threshold k: "0", "0.5", "0.8", "1", "1.5", "2". */
const char *kf_rep_p_label(int k, char *buf, size_t n);
/* Writes text to f with &, <, >, " escaped for HTML. */
void kf_rep_html_escape(FILE *f, const char *text);
/* Closes the memstream f, writes buf to path atomically, frees buf. */
int kf_rep_finish(FILE *f, char **buf, const char *path, kf_error *err);
/* The one-line status of an entry: "correct", "incorrect: REASON" ... */
const char *kf_rep_reason(const kf_report_entry *e);

/* "median [q1..q3] (min..max)" of a spread, "-" when it is empty; each
 * number as style says: 'x' "%.3gx", 'i' "%.0f", '2' "%.2f", else "%.3f". */
const char *kf_rep_spread(const kf_report_spread *s, char style, char *buf, size_t n);
/* The text that says how the summary's error bars over seeds are made. */
#define KF_REP_SEEDS_NOTE \
    "Per problem over its agent seeds: the success rate (correct runs / runs); steps to the first correct " \
    "kernel and to the best, over the correct runs; the speedup over the correct runs with a measured " \
    "baseline; each as median [quartiles] (min..max). Error bars of the summary, two ways: per seed = the " \
    "statistic computed on the runs of one agent seed alone, median and min..max over the seeds; bootstrap = " \
    "95% percentile interval of 2000 resamples of the problems (fixed RNG seed) of the mean success rate and " \
    "of the geometric mean of the per-problem median speedups"

/* The SVG plots (inline, no xmlns needed in HTML5). */
void kf_rep_svg_speedup(FILE *f, const kf_report *r);
void kf_rep_svg_roofline(FILE *f, const kf_report *r);
void kf_rep_svg_trace(FILE *f, const kf_report_entry *e);

#endif
