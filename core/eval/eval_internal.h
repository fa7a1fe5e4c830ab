/*
 * eval_internal.h — the pieces behind kf_evaluate(), exposed to the unit
 * tests: element-wise comparison, timing statistics, guarded shared
 * buffers, the too-fast decision, and the worker client.  Not installed.
 */
#ifndef KF_EVAL_INTERNAL_H
#define KF_EVAL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "candidate/candidate.h"
#include "eval.h"
#include "util/strbuf.h"
#include "worker/worker_proto.h"

/* ------------------------------------------------------------------ */
/* compare.c                                                           */

/* Result bits of kf_compare_output(). */
#define KF_CMP_ALLCLOSE_FAILED 1   /* some element outside atol + rtol*|exp| */
#define KF_CMP_REL_L2_FAILED   2   /* ||got-exp||2 / ||exp||2 above the bound */
#define KF_CMP_SPREAD_FAILED   4   /* ||got-exp||2 / ||exp-mean||2 above the bound */

/*
 * Compares one output.  An element passes when
 *     |got - exp| <= atol + rtol * |exp|
 * with these edge rules: a NaN in `got` never passes (and is counted in
 * st->n_nan); a NaN in `exp` never passes either; an infinite `exp` passes
 * only when `got` is the same infinity; an infinite `got` against a finite
 * `exp` fails.  The output as a whole also needs
 *     rel_l2 = ||got - exp||2 / ||exp||2 <= rel_l2_tol
 * over the elements that are finite in both (equal infinities contribute
 * nothing); when the reference is all zeros the denominator is sqrt(n),
 * i.e. rel_l2 is the RMS of the error.  When any element is non-finite in
 * `got` but not equal to `exp`, rel_l2 is +inf.
 *
 * Fills *st (overwriting it): max_abs_err (inf when a bad element is
 * non-finite), max_rel_err = max |got-exp| / max(|exp|, atol), max_tol_frac =
 * max |got-exp| / (atol + rtol |exp|) (inf for a non-finite bad element), rel_l2,
 * n_bad, n_nan, n_elems.  Appends the first failing elements to mm[] while
 * *n_mm < max_mm (output = `output`, flat index).  Returns 0 when the
 * output passes, else a mix of KF_CMP_* bits.
 */
int kf_compare_output(const float *got, const double *exp, int64_t n, double atol, double rtol,
                      double rel_l2_tol, int output, kf_output_stats *st, kf_mismatch *mm,
                      int max_mm, int *n_mm);

/* The evaluator's whole test of one output against the problem's
 * tolerance: kf_compare_output, then the scale-aware test (the error
 * relative to the reference's spread around its mean, bound
 * p->rel_spread; not applied when the reference is constant within
 * atol + rtol*|mean|).  Used by kf_evaluate and by `kforge check`'s
 * trivial-predictor warning alike. */
int kf_compare_problem_output(const kf_problem *p, const float *got, const double *exp, int64_t n, int output,
                              kf_output_stats *st, kf_mismatch *mm, int max_mm, int *n_mm);

/* Worst-of merge used across trials: max of every field (n_elems kept). */
void kf_output_stats_merge(kf_output_stats *worst, const kf_output_stats *s);

/* "y[3,17]" for a flat row-major index into `shape` (rank 0: "y[]").
 * Writes into buf (always NUL-terminated), returns buf. */
const char *kf_format_index(const char *name, const kf_shape *shape, int64_t flat, char *buf,
                            size_t n);

/* ------------------------------------------------------------------ */
/* stats.c                                                             */

/* Percentile of an ascending array by linear interpolation between closest
 * ranks (position p * (n-1), NumPy's default).  p in [0,1]; n >= 1. */
double kf_percentile_sorted(const double *sorted, int n, double p);

/* Fills median/min/max/mean/p10/p90 of t from samples[0..n) (n >= 1; the
 * median of an even count is the mean of the middle two).  Does not touch
 * the other fields.  Returns 0, -1 if n < 1 or out of memory. */
int kf_timing_stats(const double *samples, int n, kf_timing *t);

/* ------------------------------------------------------------------ */
/* roofline.c                                                          */

/* Sets achieved rates and fraction = floor_s / median_s (0 when either is
 * unknown). */
void kf_roofline_apply(kf_roofline *rf, double median_s);
/* A CPU candidate that names its compute unit (the cpu-simd profile's
 * counter "compute_unit": 1 AVX512_BF16 vdpbf16ps, 2 AMX bf16 tiles, 3 AMX
 * 3xbf16 (a third of the tiles' peak), 4 AMX 2xbf16 (half)) is
 * measured against that unit's peak: rf->peak_flops and floor_s (the
 * efficiency figures) take it when the device reports one; the enforced
 * floor is not touched (kf_roofline_enforce takes the fastest unit). */
void kf_roofline_use_unit(kf_roofline *rf, const kf_device_info *dev, int unit);

/* Sets hard_floor_s to the enforced floor (roofline.c says how), given
 * the bytes of all the buffer sets the timed runs rotate through. */
void kf_roofline_enforce(kf_roofline *rf, const kf_resolved *r, const kf_device_info *dev, double timed_bytes);

/* 1 when median_s is under the hard floor: no correct kernel can be that
 * fast on the device, so the time is a measurement error or an exploit. */
int kf_roofline_too_fast(const kf_roofline *rf, double median_s);

/* ------------------------------------------------------------------ */
/* eval_mem.c: the memfd holding every guarded buffer of every set      */

#define KF_GUARD_BYTES 4096
/* Bit pattern of the NaN written into outputs and scratch before a run: a
 * quiet NaN with a payload no arithmetic produces, so "never written" and
 * "wrote NaN" are told apart. */
#define KF_POISON_BITS 0x7fc5a5a5u

typedef struct kf_eval_mem {
    int fd;                   /* the memfd, sealed against resizing */
    unsigned char *map;       /* parent's shared mapping */
    kf_wp_layout layout;
    kf_wp_sets sets;          /* views into map */
} kf_eval_mem;

/* Lays out n_sets sets of (inputs, outputs, scratch) buffers, each data
 * part 4096-aligned between two KF_GUARD_BYTES canary bands, creates,
 * sizes and seals the memfd, maps it, and fills every guard.  Returns 0 or
 * -1 with err set. */
int kf_eval_mem_create(kf_eval_mem *m, int n_sets, const kf_problem_view *pv, kf_error *err);
void kf_eval_mem_free(kf_eval_mem *m);

/* The canary byte at byte `i` of a guard band (position-dependent, so a
 * constant store of any value is caught). */
unsigned char kf_guard_byte(size_t i);
void kf_guard_fill(const kf_buffer *b);

typedef struct kf_guard_fault {
    int after;                /* 0: band before the data, 1: band after */
    size_t offset;            /* after: bytes past the end of the data of the
                                 first changed byte; before: bytes before the
                                 start of the data of the changed byte
                                 closest to it (1 = the byte just before) */
    size_t n_changed;         /* changed bytes in that band */
} kf_guard_fault;

/* Returns 0 when both bands hold the canary, else 1 and *f describes the
 * band after the data if it changed, else the one before. */
int kf_guard_check(const kf_buffer *b, kf_guard_fault *f);

/* Fills the data with the poison NaN. */
void kf_poison_fill(const kf_buffer *b);

/* One write of the parent into a set: src's bytes into dst (src not NULL).
 * The publish writes only inputs: outputs and scratch keep what the
 * lead-in left there (kf_ev_publish_set, eval.c). */
typedef struct kf_write {
    float *dst;
    const float *src;
    size_t bytes;
} kf_write;
/* Does the n writes in chunks of 1 MiB over up to max_threads threads, or
 * with max_threads 0 up to the online CPUs, one on a machine of under 4;
 * at most 16, and 8 MiB a thread at least (small sets stay on one).  For
 * a set's fresh inputs, written while the worker is stopped
 * before a timed run: its threads then idle for a millisecond or two, not
 * the 10-15 ms one thread takes over 128 MiB (an idle of 20 ms made the
 * next run of a memory-bound kernel 1.2-1.3x slower on the 16-core host,
 * bench/results/xeon16-cpu-timing-gap-2026-11-30; spread there, 33 and 40
 * took 8-26% less time, while the 2-core Zen 3 VM measured no gain:
 * bench/results/xeon16-cpu-parallel-writes-2026-12-01).  Returns the
 * threads used. */
int kf_buffers_write(const kf_write *w, int n, int max_threads);
/* Elements of an n-float array still holding the poison; *first gets the
 * first such index (-1 when none). */
int64_t kf_poison_count(const float *data, int64_t n, int64_t *first);

/* ------------------------------------------------------------------ */
/* worker_client.c: the parent's side of the worker protocol            */

typedef enum kf_wcall {
    KF_WCALL_OK = 0,          /* a reply arrived (its status may be an error) */
    KF_WCALL_TIMEOUT,         /* the limit passed; the worker was killed and reaped */
    KF_WCALL_DIED,            /* the worker ended without a reply (see fault) */
    KF_WCALL_PROTOCOL         /* the reply was not valid; the worker was killed */
} kf_wcall;

typedef struct kf_worker {
    pid_t pid;                /* -1 when not running */
    int ctl;                  /* socket: commands out, replies in */
    int err_fd;               /* worker's stderr */
    char *errtail;            /* last KF_WORKER_STDERR_MAX bytes of its stderr */
    size_t errlen;
    char *inbuf;              /* pending reply bytes */
    size_t inlen, incap;
    int term_signal;          /* signal that ended it, 0 if none */
    int exit_status;          /* exit status when it exited, -1 otherwise */
    int pidns;                /* it is the init of its own PID namespace */
    unsigned layers;          /* sandbox layers set up before exec (KF_SB_*) */
    char layers_why[256];     /* why some of them are missing */
    double exit_wait_s;       /* how long kf_worker_stop waits for it to exit
                                 after "quit" (0 = 2 s); a profiler in front
                                 of the worker writes its report then */
    int keep_errtail;         /* kf_worker_stop leaves errtail (all of the
                                 worker's and its wrapper's stderr tail) to the
                                 caller, who frees it */
} kf_worker;

/* What a worker is started with. */
typedef struct kf_worker_limits {
    double cpu_s;             /* RLIMIT_CPU, 0 = none */
    uint64_t mem_bytes;       /* RLIMIT_DATA, 0 = none (not applied under ASan) */
    int sandbox;              /* kf_sandbox_mode */
    const char *work_dir;     /* its HOME and TMPDIR when sandboxed */
    const char *const *wrap;  /* NULL, or a trusted program and its arguments
                                 (NULL-terminated) exec'ed instead of the
                                 worker, with the worker's argv appended (the
                                 counters replay's ncu, eval_counters.c); it
                                 runs in the worker's namespaces, with its
                                 limits, environment and no capabilities, and
                                 the worker confines itself as always */
} kf_worker_limits;

#define KF_WORKER_STDERR_MAX (64 * 1024)

/* Path of the worker executable: $KFORGE_WORKER, else kforge-worker next to
 * /proc/self/exe, else KF_PKGLIBEXECDIR/kforge-worker.  malloc'ed. */
char *kf_worker_path(void);

/* Starts `exe` with the memfd inherited as fd KF_WORKER_MEMFD, in its own
 * process group, with RLIMIT_CORE 0, RLIMIT_CPU, RLIMIT_FSIZE,
 * RLIMIT_NOFILE and (unless built with ASan) RLIMIT_DATA from `lim`; unless
 * the sandbox is off, in new PID/network/IPC namespaces where the kernel
 * allows, with the allow-listed environment and without capabilities
 * (sandbox.h).  w->layers says which layers hold.  Returns 0 or -1 with
 * err set. */
int kf_worker_start(kf_worker *w, const char *exe, int memfd, const kf_worker_limits *lim, kf_error *err);

/* Stops the worker (SIGSTOP to its process group) and waits until it has
 * stopped, so that nothing of it runs while the parent reads the buffers;
 * kf_worker_resume continues it.  0, or -1 when it died (reaped; see
 * term_signal / exit_status). */
int kf_worker_freeze(kf_worker *w);
void kf_worker_resume(kf_worker *w);
/* Bytes waiting on the channel that no command asked for (a forged or
 * early reply); 0 when none. */
size_t kf_worker_unsolicited(kf_worker *w);

/* Sends one command line and waits up to timeout_s for its reply line,
 * draining the worker's stderr meanwhile.  On KF_WCALL_OK *reply is filled
 * (free with kf_wp_reply_free).  On any other result the worker is gone
 * (killed and reaped) and term_signal / exit_status say how it ended;
 * `why` gets a short reason for KF_WCALL_PROTOCOL. */
kf_wcall kf_worker_call(kf_worker *w, const char *cmd_json, double timeout_s,
                        kf_wp_reply *reply, char *why, size_t why_len);

/* Asks the worker to quit (briefly), then kills its process group and
 * reaps it; frees the buffers.  Safe on a stopped worker. */
void kf_worker_stop(kf_worker *w);
void kf_worker_kill(kf_worker *w);

/* "SIGSEGV" and a short human cause ("invalid memory access"). */
const char *kf_signal_name(int sig);
const char *kf_signal_cause(int sig);

/* ------------------------------------------------------------------ */
/* eval_checks.c: what kf_evaluate() checks after each run             */

/* State of one evaluation, shared by eval.c and eval_checks.c. */
typedef struct kf_ev {
    const kf_resolved *r;
    const kf_candidate *c;
    kf_eval_opts o;
    kf_eval_result *res;
    kf_bound bound;
    int bound_ok;
    kf_eval_mem mem;
    float **priv;             /* private copies of the inputs of one set */
    kf_sb diag;               /* diagnostics being written */
    char summary[1024];       /* summary being written */
    const char *kept_dir;     /* work dir kept for the user, or NULL */
    int ref_hits, ref_computed;   /* reference outputs from the cache / computed */
} kf_ev;

/* Sets res->verdict (when still PASS) and the summary line. */
void kf_ev_fail(kf_ev *e, kf_verdict v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Guards of every buffer of every set, then the inputs of `set` against
 * e->priv.  `when` names the phase ("trial 2", "the timed runs").  Returns
 * 0 or fails the evaluation (OUT_OF_BOUNDS / INPUT_MODIFIED) and returns -1. */
int kf_ev_check_memory(kf_ev *e, int set, const char *when);

/* Outputs of `set` against ref: poison left -> poison_verdict, wrong
 * values -> value_verdict.  Merges stats when merge_stats.  0 or -1. */
int kf_ev_check_outputs(kf_ev *e, int set, double *const *ref, const char *when,
                        kf_verdict poison_verdict, kf_verdict value_verdict, int merge_stats);

/* Pieces of eval.c used by eval_profile.c. */
void kf_ev_add_stderr(kf_ev *e, const kf_worker *w);
/* A failed worker call -> the verdict and diagnostics. */
void kf_ev_call_failed(kf_ev *e, kf_worker *w, kf_wcall wc, const char *what, double limit,
                       const char *how_to_raise, const char *why);
/* A reply with an error status -> the verdict; 0 when it was KF_OK. */
int kf_ev_reply_failed(kf_ev *e, const kf_wp_reply *r, const char *what);
/* Fresh inputs from `seed` into e->priv and set `set`; outputs and
 * scratch of the set poisoned. */
int kf_ev_draw_set(kf_ev *e, int set, uint64_t seed);
/* The inputs of `seed` into the parent's copy only (e->priv), then, with the
 * worker stopped, into set `set`'s inputs: the slow drawing is done before a
 * lead-in run, the copy after it.  The set's outputs and scratch keep what
 * the lead-in wrote (eval_profile.c says why). */
void kf_ev_draw_priv(kf_ev *e, uint64_t seed);
void kf_ev_publish_set(kf_ev *e, int set);
/* Reference outputs for the inputs now in e->priv; NULL with err set. */
double **kf_ev_reference(kf_ev *e, uint64_t seed, kf_error *err);
/* The worker's "load" command (compile) for the candidate, built in
 * build_dir; malloc'ed, NULL when out of memory. */
char *kf_ev_load_command(kf_ev *e, kf_plugin *plugin, const char *build_dir);
/* The counters replay (eval_counters.c): after a passed, profiled
 * evaluation, per e->o.counters, fills e->res->hw; never changes the
 * verdict or the timing. */
void kf_ev_counters(kf_ev *e, kf_plugin *plugin, const char *work);
void kf_ev_free_refs(double **ref, int n);

/* Judges the worker's timing samples against the parent's round trips
 * wall[i] (seconds) of the same runs: every sample must be finite, >= 0
 * and fit inside its round trip; for a host clock the smallest gap among
 * the faster half of the samples must be within what the channel
 * (`channel`, an empty command's round trip) and the backend account for
 * (forging the median down means forging that whole half).  0 consistent, 1 a sample is unusable, 2
 * inconsistent; `why` says which. */
int kf_timing_check(const double *sample, const double *wall, int n, double channel, int host_clock, char *why,
                    size_t why_len);

/* eval_profile.c: the timed runs (see eval.h).  0 to go on, 1 when the
 * verdict is decided, -1 on a request error. */
int kf_ev_profile(kf_ev *e, kf_worker *w, const kf_device_info *dev, kf_error *err);

/* Name of buffer k of a set (input / output / scratch, in layout order),
 * e.g. "output y". */
void kf_ev_buffer_name(const kf_ev *e, int k, char *buf, size_t n);

#endif
