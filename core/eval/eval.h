/*
 * eval.h — evaluating an untrusted candidate: compile, verify, profile.
 *
 * The candidate never runs in the caller's process.  kf_evaluate() starts a
 * worker (the `kforge-worker` executable) with resource limits, shares the
 * guarded buffers with it through a memfd, and talks to it over pipes, one
 * JSON line per command (compile / run / profile / quit), each command under
 * its own wall-clock timeout.  A crash, hang, OOM or garbage reply is one
 * failed evaluation with a diagnosis, never a failure of the caller.
 *
 * Verification (defaults; configurable up, never down):
 *  - trials >= 5, fresh inputs per trial (seed + trial), outputs poisoned
 *    with NaN before every run, guard bands checked, inputs checked
 *    unchanged, allclose(atol, rtol) AND relative L2 per output;
 *  - a pass whose worst element used more than KF_EDGE_TOL_FRAC of its
 *    allowance (atol + rtol |expected|) is near the tolerance's edge and
 *    needs KF_EDGE_TRIALS trials in all (more when trials asks for more);
 *  - the first mismatches and error statistics go into the result.
 * Timing, judged by the parent: warm-up discarded, then reps >= 20 timed
 * runs, each its own command whose round trip the parent times, on input
 * sets rotated for the cache and refilled with fresh random content after
 * every run (a memo keyed on inputs misses), outputs re-poisoned before
 * every run; the worker is stopped (SIGSTOP) as soon as a run replies, and
 * the outputs of a random majority of the runs (reps/2 + 1, unknown to the
 * candidate) are checked against the reference (KF_FAIL_STALE), so no
 * median can come from skipped work.  A reported sample longer than the
 * parent's round trip, a host-clock median far below the parent's, or an
 * unsolicited reply fails as KF_FAIL_TIMING; a median below the enforced
 * roofline floor fails as KF_FAIL_TOO_FAST.
 */
#ifndef KF_EVAL_H
#define KF_EVAL_H

#include <stdint.h>
#include "candidate/candidate.h"
#include "util/error.h"
#include "problem/problem.h"
#include "backend/registry.h"
#include "counters.h"

typedef enum kf_verdict {
    KF_PASS = 0,
    KF_FAIL_COMPILE,         /* did not compile; diagnostics = compiler log */
    KF_FAIL_BIND,            /* launch plan / manifest does not fit the problem */
    KF_FAIL_MISMATCH,        /* wrong values */
    KF_FAIL_NOT_WRITTEN,     /* NaN poison survived in some outputs */
    KF_FAIL_OUT_OF_BOUNDS,   /* a guard band was overwritten */
    KF_FAIL_INPUT_MODIFIED,  /* an input buffer changed */
    KF_FAIL_CRASH,           /* worker died on a signal */
    KF_FAIL_TIMEOUT,         /* worker exceeded its wall-clock limit */
    KF_FAIL_RUNTIME,         /* backend reported a launch/runtime error */
    KF_FAIL_TOO_FAST,        /* profiled median under the roofline floor */
    KF_FAIL_STALE,           /* outputs of timed runs wrong (cached results) */
    KF_FAIL_UNAVAILABLE,     /* backend/device not usable here */
    KF_FAIL_INTERNAL,        /* worker protocol broke, out of memory ... */
    KF_FAIL_TIMING           /* timing reply inconsistent with the parent's clock */
} kf_verdict;

const char *kf_verdict_name(kf_verdict v);   /* "mismatch", "out-of-bounds" ... */

typedef struct kf_eval_opts {
    int trials;               /* >= 5 */
    int warmup;               /* >= 1 */
    int reps;                 /* >= 20 */
    double run_timeout_s;     /* per run/trial command, default 10 */
    double compile_timeout_s; /* default 120 */
    double profile_timeout_s; /* default 120 */
    uint64_t mem_limit_bytes; /* RLIMIT_DATA of the worker (and of the compiler
                                 it runs), default kf_sandbox_default_mem(),
                                 0 = none; the shared buffers come on top and
                                 must fit under it themselves.  Not applied in
                                 ASan builds (ASan reserves terabytes). */
    int sandbox;              /* kf_sandbox_mode, default KF_SANDBOX_AUTO */
    uint64_t seed;            /* base seed; trial t uses seed + t */
    int device;               /* index into the plugin's devices */
    int threads;              /* reference threads, 0 = all CPUs */
    int max_sets;             /* input sets rotated while timing, default 4:
                                 as many as make all sets together exceed
                                 64 MiB, at most max_sets and reps, >= 1 */
    const char *work_dir;     /* where the worker may write (candidate/ and
                                 build/ inside); NULL = a temp dir.  A dir the
                                 caller names is never removed. */
    int keep_work_dir;        /* keep the temp dir (its path ends the diagnostics) */
    const char *offline_target; /* non-NULL: compile only, for this target of the
                                 plugin's compile_offline ("" = its default), with
                                 no device and nothing run; verdict pass means
                                 it compiled (and validated, where the plugin
                                 validates), and the result holds the binary */
    int counters;             /* kf_counters_mode (counters.h), default auto:
                                 after a passed profile, hardware counters from
                                 one more run under ncu (cuda only in auto) */
} kf_eval_opts;

void kf_eval_opts_default(kf_eval_opts *o);

#define KF_MAX_MISMATCHES 8

/* Verification near the tolerance's edge (kf_eval_result.edge_tol_frac). */
#define KF_EDGE_TOL_FRAC 0.5
#define KF_EDGE_TRIALS 20

typedef struct kf_mismatch {
    int output;
    int64_t index;
    double expected, got;
} kf_mismatch;

typedef struct kf_output_stats {
    double max_abs_err, max_rel_err, rel_l2;
    int64_t n_bad, n_nan, n_elems;
    double rel_spread;        /* ||got-exp||2 / ||exp-mean(exp)||2; 0 when the
                                 reference is constant up to float32 rounding */
    int spread_applies;       /* the reference varies (compare.c) */
    double max_tol_frac;      /* the worst element's |got - exp| over its allowance
                                 atol + rtol |exp| (over 1: it fails; inf for a
                                 non-finite one): how near the tolerance's edge */
} kf_output_stats;

typedef struct kf_timing {
    int n;
    double *samples_s;        /* n samples, malloc'ed */
    double median_s, min_s, max_s, mean_s, p10_s, p90_s;
    int clock_is_device;
    int n_sets;
    kf_counter counters[KF_MAX_COUNTERS];
    int n_counters;
    char *report;             /* the plugin's text, malloc'ed or NULL */
    /* The parent's own measurements: every timed run is one command whose
     * round trip the parent times; the samples above must fit inside. */
    double parent_median_s;   /* median round trip less the channel's cost */
    double channel_s;         /* median round trip of an empty command */
    int n_checked;            /* timed runs whose outputs were checked (the reported
                                 round's; a failed round's were checked too) */
    double *round_trips_s;    /* n round trips on the parent's clock, malloc'ed */
    /* Host clocks: each timed run follows an untimed lead-in run of the
     * same command on the set's previous inputs (threads awake, caches and
     * TLBs as in back-to-back calls), its fresh inputs written only after
     * the lead-in replied.  0 for device clocks (no lead-in). */
    int lead_in;
    double lead_in_median_s;  /* the lead-in runs' median sample, for comparison */
    int rounds;               /* rounds of timed runs measured: a round whose samples
                                 sit too far inside their round trips is measured
                                 again (eval_profile.c); the last one is reported */
} kf_timing;

#define KF_ROOFLINE_UNITS 6
typedef struct kf_roofline {
    double flops, min_bytes;
    double peak_flops, peak_bytes_per_s, cache_bytes_per_s;
    double floor_s;           /* max(flops/peak_flops, bytes/peak_bw) */
    double hard_floor_s;      /* the enforced floor: a median below it fails as
                                 too fast (roofline.c says how it is derived) */
    int cache_resident;       /* the timed working set may stay in cache */
    int flop_term;            /* the FLOP term is part of hard_floor_s */
    double fraction;          /* floor_s / median_s, 0 if unknown */
    double achieved_flops, achieved_bytes_per_s;
    double device_floor_s;    /* floor_s with the device's fastest compute unit
                                 (a CPU's bf16 units or AMX tiles above its
                                 fp32 FMAs), whatever unit the candidate used:
                                 what a kernel of any precision could reach */
    double device_fraction;   /* device_floor_s / median_s, 0 if unknown */
    double unit_peak_flops[KF_ROOFLINE_UNITS];   /* FLOP/s of each compute unit, 0 where
                                 unknown: [0] the device's peak (fp32), on a CPU
                                 [1] vdpbf16ps, [2] AMX bf16 tiles, [3] AMX 3xbf16
                                 (a third of [2]), [4] AMX 2xbf16 (half), [5] AVX2
                                 int16 pairs (twice [0], a bound: roofline.c): the
                                 cpu-simd profile counter "compute_unit"'s numbers */
} kf_roofline;

typedef struct kf_eval_result {
    kf_verdict verdict;
    int failed_trial;         /* -1 if none */
    char *summary;            /* one line for humans */
    char *diagnostics;        /* long text for the agent (compiler log, faults) */
    int n_outputs;
    kf_output_stats *stats;   /* per output, worst trial */
    int n_mismatches;
    kf_mismatch mismatches[KF_MAX_MISMATCHES];
    int trials_run;
    double edge_tol_frac;     /* > 0: the first trials passed with the worst element
                                 at this share of its tolerance, over KF_EDGE_TOL_FRAC,
                                 so KF_EDGE_TRIALS were drawn in all */
    int profiled;
    kf_timing timing;
    kf_roofline roofline;
    double compile_s, verify_s, profile_s;   /* wall time of each phase */
    /* where profile_s went: the timed commands' round trips (the backend's
       uploads and read-backs included), drawing fresh inputs, and checking
       the checked runs (inputs redrawn, reference, comparison) */
    double profile_calls_s, profile_draw_s, profile_check_s;
    int sandbox_mode;         /* kf_sandbox_mode the worker ran under */
    unsigned sandbox_layers;  /* KF_SB_* bits that held (sandbox.h) */
    char *sandbox_why;        /* why the others did not, or NULL */
    int ref_cached, ref_computed; /* input sets whose reference came from the
                                 reference cache / was computed (ref_cache.h) */
    int offline;              /* a compile-only evaluation (offline_target) */
    unsigned char *offline_binary;  /* its binary (malloc'ed), offline_size bytes */
    size_t offline_size;
    char *offline_report;     /* the plugin's words on it, or NULL */
    kf_counters hw;           /* hardware counters of the counters replay
                                 (advisory; state NONE when not asked for) */
} kf_eval_result;

/* Compiles and verifies, then profiles when `profile` is set (and the
 * candidate passed): see "Timing" above (KF_FAIL_STALE, KF_FAIL_TIMING),
 * then the median against the enforced roofline floor (KF_FAIL_TOO_FAST).
 * The worker runs under the sandbox of o->sandbox (sandbox.h); the result
 * says which layers held.
 * Options below the minimums are raised to them.  The worker is
 * $KFORGE_WORKER, else kforge-worker next to the running executable, else
 * the installed one.  Returns 0 when an evaluation happened (whatever the
 * verdict) and -1 only when the request itself is unusable (err says why).
 * The roofline peaks come from plugin->devices[o->device] (probed here if
 * the plugin was not). */
int kf_evaluate(kf_plugin *plugin, const kf_resolved *r, const kf_candidate *c,
                const kf_eval_opts *o, int profile, kf_eval_result *res, kf_error *err);
void kf_eval_result_free(kf_eval_result *res);
/* The largest max_tol_frac over res's outputs (the worst element's share of
 * its allowance; the trials' stats); 0 without stats. */
double kf_eval_worst_tol_frac(const kf_eval_result *res);

/* Roofline of a resolved problem on a device (no timing); fraction unset. */
void kf_roofline_compute(const kf_resolved *r, const kf_device_info *dev, kf_roofline *out);
/* The fraction the search's target is measured in (--target, the loop's and
 * the built-in analysis's stop): of the floor with the device's fastest
 * unit, so that an fp32 kernel near the FMA peak does not end a search that
 * has faster units to try; rf->fraction where that floor is unknown (a
 * record from before it was kept). */
double kf_roofline_target_fraction(const kf_roofline *rf);

/* A trivial predictor that passes a problem's tolerance: `kforge check`
 * warns (the problem cannot tell a kernel that skips the work from one
 * that does it).  predictor: "zero", "mean" (the reference's mean as a
 * constant), "first-row" (row 0 broadcast over the leading dimension),
 * "column-mean" (each column's mean over the leading dimension). */
typedef struct kf_trivial {
    int output;               /* index into problem->outputs */
    const char *predictor;    /* static string */
    double rel_l2;
} kf_trivial;

/* Tests every trivial predictor of every output against the reference of
 * the inputs drawn with `seed`, with the evaluator's own comparison.
 * Fills out[0..*n_out).  0, or -1 with err set. */
int kf_trivial_predictors(const kf_resolved *r, uint64_t seed, kf_trivial *out, int max, int *n_out, kf_error *err);

/* JSON text of a result (malloc'ed), as written into run records and --json. */
char *kf_eval_result_json(const kf_eval_result *res);

#endif
