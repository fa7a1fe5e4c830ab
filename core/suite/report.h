/*
 * report.h — suite reports built from run directories (core/run/loop.h layout).
 *
 * Each run directory contributes one entry read from its result.json (the
 * verdict, best time, baseline, speedup, roofline fraction, steps, tokens,
 * cost) and its journal.jsonl (the "eval" and "best" events: time per step
 * of the loop).  A run directory without result.json (a run that was killed)
 * is an entry with status "no result", counted as not correct.
 *
 * The suite statistics follow KernelBench: fast_p is the fraction of ALL
 * problems that are correct AND have speedup > p (p = 0 counts the correct
 * ones, whether or not a baseline was measured); the geometric-mean speedup
 * is taken over the correct problems that have a measured speedup.
 *
 * Writers: DIR/report.json, DIR/report.md and DIR/report.html (one file:
 * inline CSS and inline SVG plots, no scripts, no external resources).
 */
#ifndef KF_REPORT_H
#define KF_REPORT_H

#include "run/timing_warning.h"
#include "util/error.h"

#define KF_REPORT_N_P 6
/* The thresholds of fast_p: 0, 0.5, 0.8, 1, 1.5, 2. */
extern const double kf_report_p[KF_REPORT_N_P];

/* One evaluated candidate of the loop, from the journal. */
typedef struct kf_report_point {
    int step;
    double time_s;            /* this candidate's median (0: failed, not timed) */
    double best_s;            /* best correct time known after this event, 0 if none */
    int passed;
} kf_report_point;

typedef enum kf_report_status {
    KF_REPORT_CORRECT = 0,    /* result.json has a verified best */
    KF_REPORT_INCORRECT,      /* the loop ended without a correct kernel */
    KF_REPORT_NO_RESULT       /* no (readable) result.json: killed or crashed */
} kf_report_status;

typedef struct kf_report_entry {
    char *name;               /* problem name (result.json, else the dir's basename) */
    char *run_dir;
    kf_report_status status;
    char *stop_reason;        /* or why there is no result */
    char *backend, *device, *preset, *agent;   /* NULL when unknown */
    char *language;           /* the backend's declared language (result.json
                                 backend_language), NULL when unknown */
    double best_s;            /* 0 when not correct */
    double baseline_s;        /* 0 when not measured */
    char *baseline_how;       /* result.json baseline.how, NULL if absent */
    double anchor_s;          /* the GEMM anchor (core/run/anchor.h): the problem's main
                                 GEMM alone through the library, timed next to the
                                 baseline; 0 when not measured */
    char *anchor_how;         /* what the anchor timed, or why there is none; NULL if absent */
    int anchor_threads;
    double baseline_over_anchor;  /* baseline_s / anchor_s, 0 when either is missing */
    char *anchor_warning;     /* set when baseline_over_anchor > KF_ANCHOR_WARN_RATIO */
    double speedup;           /* baseline_s / best_s, 0 when unknown */
    double fraction;          /* roofline fraction of the best, 0 when unknown */
    char *precision;          /* precision and unit of the best ("fp32", "bf16-avx512",
                                 "amx-bf16", "amx-2xbf16", "amx-3xbf16", "tf32", "bf16",
                                 "3xbf16", "fp16-storage"),
                                 NULL when its run does not record it */
    char *precision_from;     /* where it was read: "compute_unit counter" (the unit a
                                 cpu-simd kernel names) or "builtin point" (the built-in
                                 agent's search point in the candidate's notes) */
    int steps;
    long tokens_in, tokens_out;
    double cost_usd, wall_s;
    int n_points;
    kf_report_point *points;  /* in journal order */
    int agent_seed;           /* run.json agent_seed (kforge suite --seeds), 0 when none */
    int first_correct_step;   /* step of the first candidate that passed, 0 if none */
    int best_step;            /* step that found the best (result.json best.dir), 0 if none */
    int confirm_rounds;       /* the final re-timing's rounds (best.confirmed), 0 if none ran */
    double confirm_step_s;    /* the best's time in its own step, 0 if not re-timed */
    int confirm_replaced;     /* 1: the re-timing put this best in the search's best's place */
    int best_is_baseline;     /* 1: the best is the op-by-op baseline's kernel (best.dir baseline/...),
                                 faster than the search's in every re-timing round */
    double best_min_s;        /* result.json best.min_s: the best's fastest timed run, 0 if absent */
    double timing_ratio;      /* best_s over the fastest time seen for that kernel
                                 (kf_timing_fastest_seen), 0 when unknown */
    char *timing_warning;     /* set when timing_ratio >= KF_TIMING_WARN_RATIO
                                 (run/timing_warning.h) */
    /* PyTorch anchors (kf_report_load_anchors), 0 when none */
    double torch_eager_s, torch_compile_s;
    double vs_torch;          /* min(eager, compile) / best_s: the paper's measure, 0 if unknown */
} kf_report_entry;

/* The precision and unit of the best kernel of entry e, whose candidate
 * directory is best_dir (result.json best.dir, STEP/candidate, relative to
 * e->run_dir): the profile counter "compute_unit" of STEP/eval.json (the
 * unit a cpu-simd kernel names; "amx-bf16c" where that is amx-bf16 and the
 * point says precision 8, "bf16c-avx512" where it is bf16-avx512 and the
 * point says 9), else the "precision" of the built-in
 * agent's point in the candidate's notes; sets e->precision and
 * e->precision_from, leaves them NULL when neither is recorded. */
void kf_report_entry_precision(kf_report_entry *e, const char *best_dir);
/* The name of a built-in point's precision (kf_bt_precision: 0 fp32 ..
 * 9 bf16c-avx512; 3 is "bf16-avx512" for the C emitter's language, "bf16"
 * elsewhere) and of a
 * cpu-simd compute_unit (0 fp32, 1 bf16-avx512, 2 amx-bf16); NULL when
 * out of range. */
const char *kf_report_precision_name(int precision, const char *language);
const char *kf_report_cpu_unit_name(int unit);

/* Median and spread of a few numbers: quantiles by linear interpolation
 * between order statistics (numpy's default), all 0 when n == 0. */
typedef struct kf_report_spread {
    int n;
    double median, min, max, q1, q3;
} kf_report_spread;

void kf_report_spread_of(const double *v, int n, kf_report_spread *out);

/* One problem over its agent seeds (kforge suite --seeds N, N > 1): its
 * runs are the entries of that name. */
typedef struct kf_report_group {
    const char *name;         /* the entries' (not owned) */
    int n_runs;
    int *idx;                 /* entry indices, by agent seed */
    int n_correct;
    double success_rate;      /* n_correct / n_runs */
    kf_report_spread first_correct;   /* steps to the first correct kernel (seeds that found one) */
    kf_report_spread best_step;       /* steps to the best kernel (same seeds) */
    kf_report_spread speedup;         /* correct seeds with a measured baseline */
    kf_report_spread best_s;          /* best time of the correct seeds */
} kf_report_group;

/* The summary over seeds: error bars two ways.
 * Per-seed spread: each statistic computed on the runs of one agent seed
 * alone (the suite as that seed ran it), then median and min..max over the
 * seeds.  Bootstrap: 2000 resamples of the problems with replacement
 * (fixed RNG seed, reproducible), the 2.5% and 97.5% percentiles of the
 * statistic over them. */
typedef struct kf_report_seed_summary {
    int seeds;                        /* distinct agent seeds */
    kf_report_spread per_seed_success;        /* success rate of each seed over the problems */
    kf_report_spread per_seed_geomean;        /* geomean speedup of each seed (correct, measured) */
    kf_report_spread per_seed_first_correct;  /* mean steps to the first correct kernel of each seed */
    double mean_success, success_lo, success_hi;          /* mean over problems, bootstrap 95% */
    int n_median_speedup;                                 /* problems with a median speedup */
    double geomean_median_speedup, geomean_lo, geomean_hi;/* geomean of per-problem medians, bootstrap 95% */
} kf_report_seed_summary;

typedef struct kf_report_machine {
    char *hostname, *cpu_model, *os;
    int cpus;
} kf_report_machine;

typedef struct kf_report_summary {
    int n, n_correct, n_speedup;          /* n_speedup: correct with a measured speedup */
    double fast_p[KF_REPORT_N_P];
    double geomean_correct;               /* over correct problems with a speedup, 0 if none */
    double geomean_all_zero;              /* over all, 0 for incorrect (0 if any is incorrect) */
    double geomean_fallback;              /* over all, 1.0 (keep the baseline) for incorrect */
    double min_speedup, max_speedup;      /* over correct problems with a speedup */
    int n_anchor;                         /* problems with a GEMM anchor time */
    int n_anchor_warnings;                /* baseline above 1.5x its anchor */
    int n_timing_warnings;                /* correct bests with a timing_warning */
    double mean_fraction;                 /* roofline fraction, mean over correct problems */
    int n_torch;                          /* correct problems with a PyTorch anchor */
    double geomean_vs_torch;              /* over those, best vs the faster of eager and compile */
    double fast_p_torch[KF_REPORT_N_P];   /* fraction of ALL problems correct and > p x faster */
    long tokens;                          /* in + out, all problems */
    double cost_usd;
} kf_report_summary;

typedef struct kf_report {
    int n;
    kf_report_entry *e;
    kf_report_summary sum;
    kf_report_machine machine;
    char *settings_json;      /* the suite's settings (DIR/suite.json "settings"), or NULL */
    char *generated;          /* ISO 8601 time of the report */
    char *anchors_path;       /* the anchors file (--anchors), or NULL */
    char *anchors_machine;    /* what it says of its machine (one line), or NULL */
    char *anchors_tool;       /* "pytorch" (the default) or "onnxruntime", ... */
    char *anchors_version;    /* the tool's version, or NULL */
    char *anchors_device;     /* "cuda", "cpu", or NULL when the file does not say */
    char *anchors_preset;     /* the preset the anchors were measured at, or NULL */
    int anchors_threads;      /* CPU threads of the anchors (device cpu), 0 when not said */
    int anchors_matched;      /* problems of the report with an anchor time */
    int anchors_has_compile;  /* some problem has a compile_ms (torch.compile) */
    int kforge_threads;       /* threads of the runs' GEMM anchors (KFORGE_THREADS, else all
                                 CPUs, on cpu-simd): 0 when none says, -1 when they differ */
    /* over agent seeds (kf_report_summarize): only when some problem has
       more than one run; otherwise n_groups == 0 and nothing of it is written */
    int n_groups;
    kf_report_group *groups;
    kf_report_seed_summary seeds;
} kf_report;

/* Groups the entries by problem name and computes the statistics over
 * seeds (called by kf_report_summarize); n_groups stays 0 when every
 * problem has one run. */
void kf_report_group_seeds(kf_report *r);
void kf_report_groups_free(kf_report *r);

/* Reads one run directory into `out` (zeroed first).  A missing directory
 * or result.json gives status KF_REPORT_NO_RESULT, not an error; -1 only
 * when dir is something other than a directory or memory runs out. */
int kf_report_entry_load(const char *dir, kf_report_entry *out, kf_error *err);
void kf_report_entry_free(kf_report_entry *e);

/* Builds a report from `n` run directories (in that order) and computes its
 * summary.  The machine is left empty: see kf_report_machine_load().
 * Returns 0, or -1 (err says why); the caller frees with kf_report_free. */
int kf_report_build(const char *const *run_dirs, int n, kf_report *out, kf_error *err);
void kf_report_free(kf_report *r);

/* Computes r->sum from r->e (called by kf_report_build). */
void kf_report_summarize(kf_report *r);

/* The run directories under REPORT_DIR/runs/ (sorted by name), malloc'ed
 * array of malloc'ed strings in *dirs.  Returns the count, or -1 when the
 * directory cannot be read (err says why). */
int kf_report_list_runs(const char *report_dir, char ***dirs, kf_error *err);
void kf_report_free_list(char **dirs, int n);

/* This machine: hostname, CPU model (/proc/cpuinfo), CPU count, uname. */
void kf_report_machine_probe(kf_report_machine *m);
void kf_report_machine_free(kf_report_machine *m);

/* Writes REPORT_DIR/suite.json: `settings_json` (a JSON object text, may be
 * NULL) and this machine, so that reports regenerated later on another
 * machine still name the machine that ran the suite. */
int kf_report_save_suite(const char *report_dir, const char *settings_json, kf_error *err);

/* Fills r->machine and r->settings_json from REPORT_DIR/suite.json, or from
 * this machine when there is none.  Returns 0 or -1 (unreadable JSON). */
int kf_report_machine_load(kf_report *r, const char *report_dir, kf_error *err);

/* Writers.  Each writes one file atomically; 0 or -1 (err says why). */
int kf_report_write_json(const kf_report *r, const char *path, kf_error *err);
int kf_report_write_md(const kf_report *r, const char *path, kf_error *err);
int kf_report_write_html(const kf_report *r, const char *path, kf_error *err);
/* All three into REPORT_DIR (report.json, report.md, report.html). */
int kf_report_write_all(const kf_report *r, const char *report_dir, kf_error *err);

/* Puts a reference framework's times beside every entry from an anchors file
 * written by bench/anchors/torch_anchors.py (PyTorch, CUDA or CPU) or
 * bench/anchors/ort_anchors.py (ONNX Runtime, CPU):
 *     {"tool": "pytorch"|"onnxruntime", "version": V, "device": "cuda"|"cpu",
 *      "threads": N, "machine": {...}, "preset": P,
 *      "problems": {NAME: {"eager_ms": T, "compile_ms": T}, ...}}
 * (tool, version, device and threads are optional: a file without "tool" is
 * PyTorch's; a problem with "error" or without times gets none; an
 * onnxruntime file has eager_ms only, the session's time) and recomputes
 * the summary: speedups over eager, compile and the faster of the two, and
 * fast_p against the faster.  Entries are matched by problem name.  0, or
 * -1 when the file cannot be read or is not such an object, when its preset
 * differs from a run's (the times would be of other shapes), or when it
 * names none of the report's problems (err says why). */
int kf_report_load_anchors(kf_report *r, const char *path, kf_error *err);

/* The anchors' tool for a heading: "PyTorch", "ONNX Runtime" (else the
 * file's "tool" as it is). */
const char *kf_report_anchors_label(const kf_report *r);
/* One line into BUF (size N) that says what the anchors measured, e.g.
 * "onnxruntime 1.20.1 on cpu, 2 threads, preset cpu"; returns BUF. */
const char *kf_report_anchors_desc(const kf_report *r, char *buf, size_t n);

/* Label of a status: "correct", "incorrect", "no result". */
const char *kf_report_status_name(kf_report_status s);

/* REPORT/compare.md and compare.json: the reports of the same suite on nb
 * backends (reps[i] on backends[i]) side by side: per backend the correct
 * count and geometric-mean speedup, per problem each backend's best time
 * and speedup, and with two or more the ratio of the second's time to the
 * first's.  0, or -1 with err set. */
int kf_report_write_compare(const kf_report *reps, const char *const *backends, int nb, const char *report_dir,
                            kf_error *err);

/* kforge report A B: two suite reports compared problem by problem.
 * Each problem's figure in a report is the median over its runs (its
 * agent seeds) of the correct runs' best time (measure "time") or speedup
 * over the baseline ("speedup"); problems are paired by name.  ratio =
 * B's advantage: time A / time B, or speedup B / speedup A (> 1: B is
 * better).  The Wilcoxon signed-rank test (wilcoxon.h) runs on
 * log(ratio) over the problems both reports have a figure for. */
typedef struct kf_pair_row {
    const char *name;                 /* not owned */
    int runs_a, correct_a, runs_b, correct_b;   /* 0 runs: not in that report */
    double a, b;                      /* the medians, 0 when none */
    double ratio;                     /* 0 when either is missing */
} kf_pair_row;

typedef struct kf_pair {
    int measure_speedup;              /* 0: time, 1: speedup */
    int n_rows;
    kf_pair_row *rows;                /* A's problems in order, then those only B has */
    int n_paired;                     /* rows with a ratio */
    int b_better, a_better, equal;
    double geomean_ratio;             /* over the paired rows, 0 if none */
    int tested;                       /* 1: the test ran (some nonzero difference) */
    double w_statistic, w_plus, w_minus, z, p;
    int w_n, w_exact;
    char why_untested[KF_ERROR_MAX];
} kf_pair;

/* Pairs a and b (see above); 0, or -1 when out of memory. */
int kf_report_pair(const kf_report *a, const kf_report *b, int measure_speedup, kf_pair *out, kf_error *err);
void kf_pair_free(kf_pair *p);
/* DIR/compare.md and DIR/compare.json of a pairing; label_a and label_b
 * name the two reports (their directories).  0, or -1 with err set. */
int kf_report_write_pair(const kf_pair *p, const char *label_a, const char *label_b, const char *dir, kf_error *err);

#endif
