/*
 * counters.h — hardware counters of a verified candidate, read by NVIDIA
 * Nsight Compute (`ncu`) in a replay after the timed runs (eval_counters.c).
 *
 * Advisory only: the verdict and the timing never depend on them.  This file
 * owns finding ncu, the metric list, and the parser of `ncu --csv` output
 * (the "details" page: one row per kernel and metric).  The parser takes
 * untrusted bytes (a file ncu wrote while the candidate's kernels ran) and
 * never fails on them: what it cannot read it skips.
 */
#ifndef KF_COUNTERS_H
#define KF_COUNTERS_H

#include <stddef.h>
#include "util/error.h"

typedef enum kf_counters_mode {
    KF_COUNTERS_AUTO = 0,     /* collect when ncu is found and the backend is cuda */
    KF_COUNTERS_OFF,          /* never */
    KF_COUNTERS_NCU           /* collect with ncu; its absence is an error (the CLI checks) */
} kf_counters_mode;

/* "auto" / "off" / "ncu" -> mode, -1 for anything else. */
int kf_counters_mode_parse(const char *s);
const char *kf_counters_mode_name(kf_counters_mode m);

#define KF_COUNTERS_MAX_METRICS 40
#define KF_COUNTERS_MAX_KERNELS 16

typedef struct kf_metric {
    char *name;               /* ncu's name, e.g. sm__throughput.avg.pct_of_peak_sustained_elapsed */
    char *unit;               /* "%", "nsecond", "" ... */
    double value;
} kf_metric;

typedef struct kf_kernel_counters {
    char *kernel;             /* the kernel's name as ncu prints it */
    int id;                   /* ncu's launch ID */
    int n;
    kf_metric m[KF_COUNTERS_MAX_METRICS];
} kf_kernel_counters;

typedef enum kf_counters_state {
    KF_COUNTERS_NONE = 0,     /* not asked for (off, not profiled, not a cuda candidate) */
    KF_COUNTERS_COLLECTED,    /* kernels[] holds them */
    KF_COUNTERS_UNAVAILABLE,  /* why says: ncu not found, ncu failed, no kernel profiled */
} kf_counters_state;

typedef struct kf_counters {
    kf_counters_state state;
    char *why;                /* for UNAVAILABLE, one line */
    char *tool;               /* the ncu that ran, or NULL */
    unsigned sandbox;         /* KF_SB_* layers the replay's worker ran under */
    int quiet;                /* auto found no ncu: recorded (eval.json), not
                                 printed (kf_counters_text gives "") */
    int n_kernels;
    kf_kernel_counters k[KF_COUNTERS_MAX_KERNELS];
} kf_counters;

/* The ncu executable: $KFORGE_NCU when set (the path, or "" for none), else
 * `ncu` on PATH, else /usr/local/cuda/bin/ncu, else the newest
 * /opt/nvidia/nsight-compute/<version>/ncu.  malloc'ed, or NULL. */
char *kf_ncu_find(void);

/* The comma-separated --metrics list (names ncu 2025.x accepts on sm_90,
 * checked with `ncu --query-metrics --chip gh100`). */
const char *kf_ncu_metrics(void);

/* Parses `ncu --csv` details-page text (len bytes, need not end in NUL):
 * the header row names the columns ("ID", "Kernel Name", "Metric Name",
 * "Metric Unit", "Metric Value"); lines before it (==PROF== ...) are
 * skipped; values with thousands separators are read; rows that are not
 * numbers are skipped.  Fills out (state COLLECTED when at least one kernel
 * had a metric, else UNAVAILABLE with why).  Frees nothing in out first. */
void kf_ncu_csv_parse(const char *text, size_t len, kf_counters *out);

/* The value of metric `name` of kernel k, or NaN. */
double kf_counters_get(const kf_kernel_counters *k, const char *name);

/* Lines for people and the analysis agent: per kernel its occupancy, DRAM,
 * L2, SM and tensor-pipe percentages and its top three stall reasons;
 * "counters: unavailable (why)" when there are none; malloc'ed, "" when
 * state is NONE or quiet is set. */
char *kf_counters_text(const kf_counters *c);

void kf_counters_free(kf_counters *c);

#endif
