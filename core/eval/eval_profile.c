/*
 * eval_profile.c — the timed runs, judged by the parent (eval.h).
 *
 * The worker runs candidate code, so nothing it says is believed unless the
 * parent can bound it:
 *  - every timed run is its own command; the parent times the round trip
 *    on its own monotonic clock, and a sample the worker reports must fit
 *    inside it;
 *  - for a host clock (the worker timed a call into code the candidate
 *    controls) the faster half of the samples must sit inside their round
 *    trips by no more than the channel's cost (measured with empty
 *    commands) and a margin: a candidate that reports 1 us for a 1 ms run
 *    fails (kf_timing_check); a round that fails this is measured again
 *    (a loaded machine can delay an honest worker's every reply), up to
 *    KF_TIMING_ROUNDS rounds, and only a round that passes is reported;
 *  - as soon as a run replies the worker is stopped (SIGSTOP, waited for),
 *    so work left running on a thread after the reply cannot finish before
 *    the parent reads the buffers; bytes on the channel that no command
 *    asked for (a forged or early reply) fail the candidate;
 *  - every timed run gets fresh random inputs (seeds from getrandom,
 *    unknown to the candidate), written into its set while the worker is
 *    stopped, so a memo keyed on inputs misses; on a device clock its
 *    outputs are poisoned too (a run that writes nothing leaves NaN); on a
 *    host clock an untimed lead-in run of the same command precedes each
 *    timed run (warm threads and caches, as for back-to-back calls) on the
 *    set's previous inputs, and the fresh inputs are written only after it
 *    replied, so the lead-in cannot work ahead on them.  The outputs and
 *    scratch then keep what the lead-in wrote: results for the previous
 *    inputs, which any output the timed run leaves unwritten still holds
 *    and a check finds wrong (the set is poisoned at the round's start, so
 *    what no run of the round wrote still reads as unwritten); and they
 *    sit in the caches where the candidate's own stores left them, as in
 *    back-to-back calls.  (Poisoned there by the parent, a set larger than
 *    the cache that a kernel then streams with non-temporal stores had its
 *    lines written back from the parent's CPUs first: 1.19x a copy's time
 *    on the 16-core host, bench/results/xeon16-cpu-poison-nt-2026-12-01;
 *    poisoned with non-temporal stores, a kernel with plain stores had to
 *    read its output's lines from memory: 1.75x.)  With
 *    the reference cache on (large problems), the checked runs' inputs come
 *    from the problem's secret pool instead, each once per evaluation
 *    (ref_cache.h), so their references are computed once per search;
 *  - the outputs of a random majority of the runs (reps/2 + 1, chosen in
 *    the parent) are checked against the reference: a candidate must skip
 *    work on at least half of the runs to move the median, and then at
 *    least one skipped run is always checked.
 * The reference and the parent's memory never reach the worker.
 */
#include "util/clock.h"
#include "eval_internal.h"
#include "ref_cache.h"
#include "sandbox/sandbox.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define KF_CHANNEL_PINGS 9
#define KF_TIMING_ROUNDS 3        /* rounds of timed runs before a timing verdict */
#define KF_TIMING_PAUSE_MS 200   /* between them: a short load may pass */

/* 64 random bits the worker cannot predict. */
static uint64_t fresh_seed(void)
{
    uint64_t v = 0;
    if (getrandom(&v, sizeof v, 0) == (ssize_t)sizeof v) return v;
    static uint64_t ctr;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    v = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 40) ^ ++ctr;
    v ^= v >> 33;
    v *= 0xff51afd7ed558ccdull;
    return v ^ (v >> 33);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(const double *v, int n)
{
    double *s = malloc((size_t)n * sizeof *s);
    if (!s) return v[0];
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    double m = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    free(s);
    return m;
}

/* `k` distinct indices of [0, n) marked in `mark`, uniformly at random. */
static void pick_subset(char *mark, int n, int k)
{
    memset(mark, 0, (size_t)n);
    for (int chosen = 0; chosen < k && chosen < n;) {
        int i = (int)(fresh_seed() % (uint64_t)n);
        if (!mark[i]) {
            mark[i] = 1;
            chosen++;
        }
    }
}

static void timing_failed(kf_ev *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void timing_failed(kf_ev *e, const char *fmt, ...)
{
    char text[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    kf_ev_fail(e, KF_FAIL_TIMING, "timing reply inconsistent: %s", text);
    kf_sb_printf(&e->diag, "%s\n", e->summary);
}

/* Median round trip of an empty command: what the channel costs. */
static int channel_cost(kf_ev *e, kf_worker *w, double *out)
{
    double t[KF_CHANNEL_PINGS];
    for (int i = 0; i < KF_CHANNEL_PINGS; i++) {
        kf_wp_reply r;
        char why[256];
        double t0 = kf_now_s();
        kf_wcall wc = kf_worker_call(w, "{\"cmd\":\"ping\"}", e->o.run_timeout_s, &r, why, sizeof why);
        t[i] = kf_now_s() - t0;
        if (wc != KF_WCALL_OK) {
            kf_ev_call_failed(e, w, wc, "measuring the channel", e->o.run_timeout_s, "--timeout", why);
            return 1;
        }
        kf_wp_reply_free(&r);
    }
    *out = median_of(t, KF_CHANNEL_PINGS);
    return 0;
}

/* One profile command (warm-up or one timed run on `set`).  0 with *sample
 * (-1 when the backend gave none) and *wall, or 1 when the verdict is
 * decided.  The caller owns the reply's report and counters in *keep when
 * keep != NULL. */
static int timed_call(kf_ev *e, kf_worker *w, int warmup, int set, double *sample, double *wall,
                      kf_wp_reply *keep)
{
    char cmd[200], why[256];
    int64_t seq = (int64_t)(fresh_seed() >> 12) + 1;
    snprintf(cmd, sizeof cmd, "{\"cmd\":\"profile\",\"warmup\":%d,\"reps\":1,\"n_sets\":1,\"set\":%d,\"seq\":%lld}",
             warmup, set, (long long)seq);
    kf_wp_reply r;
    /* one run, or the warm-up runs and one: a run limit each */
    double limit = e->o.run_timeout_s * (warmup + 1);
    if (limit > e->o.profile_timeout_s) limit = e->o.profile_timeout_s;
    double t0 = kf_now_s();
    kf_wcall wc = kf_worker_call(w, cmd, limit, &r, why, sizeof why);
    *wall = kf_now_s() - t0;
    if (wc != KF_WCALL_OK) {
        kf_ev_call_failed(e, w, wc, warmup ? "the warm-up runs" : "a timed run", limit,
                          "--timeout / kf_eval_opts.run_timeout_s", why);
        return 1;
    }
    if (r.seq != seq) {
        kf_ev_fail(e, KF_FAIL_TIMING,
                   "timing reply inconsistent: the reply to a timed run does not answer it (sequence number %lld, "
                   "expected %lld): a line forged on the control channel?", (long long)r.seq, (long long)seq);
        kf_sb_printf(&e->diag, "%s\n", e->summary);
        kf_wp_reply_free(&r);
        return 1;
    }
    if (kf_ev_reply_failed(e, &r, "profiling") != 0) {
        kf_wp_reply_free(&r);
        return 1;
    }
    if (r.sandbox > 0) e->res->sandbox_layers |= (unsigned)r.sandbox & KF_SB_NOEXEC;
    *sample = r.n_samples >= 1 ? r.samples[0] : -1.0;
    e->res->timing.clock_is_device = r.clock_is_device;
    if (keep) {
        kf_wp_reply_free(keep);
        *keep = r;
    } else {
        kf_wp_reply_free(&r);
    }
    return 0;
}

/* Stops the worker right after a reply; anything it sent unasked fails. */
static int freeze(kf_ev *e, kf_worker *w, const char *when)
{
    if (kf_worker_freeze(w) != 0) {
        kf_ev_call_failed(e, w, KF_WCALL_DIED, when, 0, "", "");
        return 1;
    }
    size_t extra = kf_worker_unsolicited(w);
    if (extra) {
        kf_ev_fail(e, KF_FAIL_TIMING,
                   "timing reply inconsistent: the worker sent %zu bytes after its reply that no command asked "
                   "for (a forged or early reply on the control channel, %s)", extra, when);
        kf_sb_printf(&e->diag, "%s\n", e->summary);
        return 1;
    }
    return 0;
}

/* The seeds of the checked runs' inputs when the reference cache is on
 * (ref_cache.h): the problem's pool in an order drawn for this evaluation,
 * each used once, so no input set repeats. */
typedef struct pool {
    int on, next;
    int order[KF_REF_POOL];
    const kf_resolved *r;
} pool;

static void pool_init(pool *p, const kf_resolved *r)
{
    memset(p, 0, sizeof *p);
    p->r = r;
    p->on = kf_refcache_enabled(r) && kf_refcache_pool_seed(r, 0) != 0;
    for (int k = 0; k < KF_REF_POOL; k++) p->order[k] = k;
    for (int k = KF_REF_POOL - 1; k > 0; k--) {      /* Fisher-Yates with unpredictable bits */
        int j = (int)(fresh_seed() % (uint64_t)(k + 1)), t = p->order[k];
        p->order[k] = p->order[j];
        p->order[j] = t;
    }
}

/* The seed of the inputs run `run` will get: a pool seed when that run is
 * checked and the pool has one left, else fresh random bits. */
static uint64_t seed_for(pool *p, const char *checked, int reps, int run)
{
    if (p->on && run < reps && checked[run] && p->next < KF_REF_POOL)
        return kf_refcache_pool_seed(p->r, p->order[p->next++]);
    return fresh_seed();
}

/* Checks the outputs of run `i` on set `s` (inputs from seed). */
static int check_run(kf_ev *e, int i, int s, uint64_t seed, kf_error *err)
{
    char when[96];
    snprintf(when, sizeof when, "timed run %d of %d (input set %d)", i, e->o.reps, s);
    const kf_problem_view *pv = &e->bound.pview;
    for (int k = 0; k < pv->n_inputs; k++) kf_draw_input(e->r, k, seed, e->priv[k]);
    if (kf_ev_check_memory(e, s, when) != 0) return 1;
    double **ref = kf_ev_reference(e, seed, err);
    if (!ref) return -1;
    int bad = kf_ev_check_outputs(e, s, ref, when, KF_FAIL_STALE, KF_FAIL_STALE, 0);
    kf_ev_free_refs(ref, e->r->problem->n_outputs);
    return bad ? 1 : 0;
}

int kf_timing_check(const double *sample, const double *wall, int n, double channel, int host_clock, char *why,
                    size_t why_len)
{
    for (int i = 0; i < n; i++) {
        if (!(isfinite(sample[i]) && sample[i] >= 0)) {
            snprintf(why, why_len, "the backend returned no usable timing sample for run %d", i);
            return 1;
        }
        /* the worker's interval lies inside the parent's round trip */
        if (sample[i] > wall[i] * 1.001 + 1e-6) {
            snprintf(why, why_len, "the worker reported %.4g us for a run the parent timed at %.4g us round trip",
                     sample[i] * 1e6, wall[i] * 1e6);
            return 2;
        }
    }
    if (!host_clock || n < 1) return 0;
    /* To lower the median by forging, at least half of the samples must be
     * forged, and those are the smallest: so every sample of the lower half
     * then sits far inside its round trip.  The smallest gap of the lower
     * half is the channel and the backend's bookkeeping for an honest
     * candidate, with the scheduling noise of a loaded machine filtered
     * out (it only ever adds). */
    int *idx = malloc((size_t)n * sizeof *idx);
    if (!idx) return 0;
    for (int i = 0; i < n; i++) idx[i] = i;
    for (int i = 1; i < n; i++)   /* insertion sort by sample: n is small */
        for (int k = i; k > 0 && sample[idx[k]] < sample[idx[k - 1]]; k--) {
            int t = idx[k];
            idx[k] = idx[k - 1];
            idx[k - 1] = t;
        }
    int half = n / 2 > 0 ? n / 2 : 1;
    double g = INFINITY;
    for (int i = 0; i < half; i++)
        if (wall[idx[i]] - sample[idx[i]] < g) g = wall[idx[i]] - sample[idx[i]];
    free(idx);
    double m = median_of(wall, n);
    double allowance = 4 * channel + 300e-6 + 0.1 * m;
    if (g > allowance) {
        snprintf(why, why_len,
                 "every sample of the faster half is at least %.4g us shorter than the parent's round trip of its "
                 "run, beyond the %.4g us the channel and the backend account for (samples forged small?)",
                 g * 1e6, allowance * 1e6);
        return 2;
    }
    return 0;
}

/* One round of timed runs into sample[], wall[] and lead[]: the warm-up
 * (whose reply says the clock's kind), then each run with fresh inputs, its
 * lead-in where the clock is the host's (t->lead_in; lead[] unused
 * otherwise) and, where checked[], its outputs checked (inputs from the
 * pool p, shared by the rounds: no pool set is seen twice in one
 * evaluation); *last keeps the last run's reply.  0, or the verdict's rc
 * when one is reached. */
static int timed_runs(kf_ev *e, kf_worker *w, pool *p, double *sample, double *wall, double *lead,
                      kf_wp_reply *last, kf_error *err)
{
    kf_eval_result *res = e->res;
    kf_timing *t = &res->timing;
    int n_sets = e->mem.layout.n_sets, reps = e->o.reps, rc = 1;
    uint64_t *seeds = calloc((size_t)n_sets, sizeof *seeds);
    char *checked = calloc((size_t)reps, 1);
    if (!seeds || !checked) {
        rc = kf_fail(err, KF_E_INTERNAL, "out of memory");
        goto out;
    }
    int n_check = reps / 2 + 1;
    pick_subset(checked, reps, n_check);
    t->n_checked = 0;   /* the reported round's */
    /* every set starts with inputs (those of a lead-in before its first
       timed run); the warm-up runs on set 0 */
    double t0 = kf_now_s();
    for (int s = 0; s < n_sets; s++) kf_ev_draw_set(e, s, seeds[s] = fresh_seed());
    res->profile_draw_s += kf_now_s() - t0;
    double s0, w0;
    if (timed_call(e, w, e->o.warmup, 0, &s0, &w0, NULL) != 0) goto out;
    res->profile_calls_s += w0;
    if (freeze(e, w, "the warm-up runs") != 0) goto out;
    t->lead_in = !t->clock_is_device;
    if (!t->lead_in) lead = NULL;
    for (int i = 0; i < reps; i++) {
        int s = i % n_sets;
        t0 = kf_now_s();
        seeds[s] = seed_for(p, checked, reps, i);
        if (lead) kf_ev_draw_priv(e, seeds[s]);
        else kf_ev_draw_set(e, s, seeds[s]);
        res->profile_draw_s += kf_now_s() - t0;
        kf_worker_resume(w);
        char when[64];
        if (lead) {
            double lw;
            if (timed_call(e, w, 0, s, &lead[i], &lw, NULL) != 0) goto out;
            res->profile_calls_s += lw;
            snprintf(when, sizeof when, "the lead-in of timed run %d", i);
            if (freeze(e, w, when) != 0) goto out;
            t0 = kf_now_s();
            kf_ev_publish_set(e, s);
            res->profile_draw_s += kf_now_s() - t0;
            kf_worker_resume(w);
        }
        if (timed_call(e, w, 0, s, &sample[i], &wall[i], i == reps - 1 ? last : NULL) != 0) goto out;
        res->profile_calls_s += wall[i];
        snprintf(when, sizeof when, "timed run %d", i);
        if (freeze(e, w, when) != 0) goto out;
        if (checked[i]) {
            t0 = kf_now_s();
            int c = check_run(e, i, s, seeds[s], err);
            res->profile_check_s += kf_now_s() - t0;
            if (c != 0) {
                rc = c;
                goto out;
            }
            t->n_checked++;
        }
    }
    /* every guard band once more, after the last run */
    if (kf_ev_check_memory(e, (reps - 1) % n_sets, "the timed runs") != 0) goto out;
    rc = 0;
out:
    free(seeds);
    free(checked);
    return rc;
}

int kf_ev_profile(kf_ev *e, kf_worker *w, const kf_device_info *dev, kf_error *err)
{
    kf_eval_result *res = e->res;
    kf_timing *t = &res->timing;
    int reps = e->o.reps, rc = 1;
    /* lead[]: the lead-in runs' samples where the clock is the host's */
    double *sample = calloc((size_t)reps, sizeof *sample), *wall = calloc((size_t)reps, sizeof *wall),
           *lead = calloc((size_t)reps, sizeof *lead);
    kf_wp_reply last;
    memset(&last, 0, sizeof last);
    if (!sample || !wall || !lead) {
        rc = kf_fail(err, KF_E_INTERNAL, "out of memory");
        goto out;
    }
    res->profiled = 1;
    t->n_sets = e->mem.layout.n_sets;
    /* A host clock times a call into the candidate's code on the CPU, whose
       threads and caches went cold while the parent drew and checked (tens
       of ms): each timed run then follows a lead-in run, as calls follow
       one another in a program and in the anchors' loops.  The lead-in runs
       on the set's previous inputs (already run, or never timed); the run's
       fresh inputs are drawn into the parent's copy before it and written
       into the set only after it replied, with the worker stopped, so the
       lead-in cannot see them (a copy of a few ms, not a new draw). */
    /* Rounds: the samples' gaps to their round trips (kf_timing_check) are
       judged on one round.  An honest candidate's round can fail that check
       where the machine is loaded while it runs (the replies of every fast
       run delayed: seen once in CI, 16 threads on 2 cores beside other
       tests, and beside two busy loops on the 2-core VM, where the gaps'
       median was 2-3 ms); a candidate that forges its samples fails it in
       every round.
       So a round that fails it is measured again, after a pause, up to
       KF_TIMING_ROUNDS rounds; each round's channel, warm-up, inputs and
       checks are its own (the secret pool's sets shared: none is seen
       twice), and only a round that passes is reported.  The diagnostics
       say which rounds failed and why. */
    char why[400];
    int bad = 0;
    const struct timespec pause = {0, KF_TIMING_PAUSE_MS * 1000000L};
    pool p;
    pool_init(&p, e->r);
    for (int round = 1;; round++) {
        t->rounds = round;
        kf_worker_resume(w);   /* stopped after the last round's last run */
        if (channel_cost(e, w, &t->channel_s) != 0) goto out;
        if ((rc = timed_runs(e, w, &p, sample, wall, lead, &last, err)) != 0) goto out;
        rc = 1;
        /* a device clock comes from the backend's host code and its events,
         * and the backend's bookkeeping per call (buffer uploads) may be
         * long: only the upper bound applies to it */
        bad = kf_timing_check(sample, wall, reps, t->channel_s, !t->clock_is_device, why, sizeof why);
        if (bad != 2 || round == KF_TIMING_ROUNDS) break;
        kf_sb_printf(&e->diag, "profiling, round %d of at most %d: %s; measured again\n", round, KF_TIMING_ROUNDS,
                     why);
        nanosleep(&pause, NULL);
    }
    if (bad == 1) {
        kf_ev_fail(e, KF_FAIL_RUNTIME, "profiling: %s", why);
        kf_sb_printf(&e->diag, "%s\n", e->summary);
        goto out;
    }
    if (bad) {
        timing_failed(e, "%s (in each of %d rounds)", why, KF_TIMING_ROUNDS);
        goto out;
    }

    t->n = reps;
    t->samples_s = sample;
    sample = NULL;
    t->round_trips_s = malloc((size_t)reps * sizeof *wall);
    if (t->round_trips_s) memcpy(t->round_trips_s, wall, (size_t)reps * sizeof *wall);
    double pm = median_of(wall, reps) - t->channel_s;
    t->parent_median_s = pm > 0 ? pm : 0;
    if (t->lead_in) t->lead_in_median_s = median_of(lead, reps);
    t->n_counters = last.n_counters;
    memcpy(t->counters, last.counters, sizeof t->counters);
    t->report = last.report;
    last.report = NULL;
    if (kf_timing_stats(t->samples_s, t->n, t) != 0) {
        rc = kf_fail(err, KF_E_INTERNAL, "out of memory");
        goto out;
    }

    kf_roofline_compute(e->r, dev, &res->roofline);
    kf_roofline_enforce(&res->roofline, e->r, dev, (double)e->mem.layout.size);
    for (int i = 0; i < t->n_counters && i < KF_MAX_COUNTERS; i++)
        if (!strcmp(t->counters[i].name, "compute_unit")) kf_roofline_use_unit(&res->roofline, dev, (int)t->counters[i].value);
    kf_roofline_apply(&res->roofline, t->median_s);
    if (kf_roofline_too_fast(&res->roofline, t->median_s)) {
        const kf_roofline *rf = &res->roofline;
        kf_ev_fail(e, KF_FAIL_TOO_FAST,
                   "measured %.3g us but no correct kernel can run under %.3g us on this device: a measurement "
                   "error or an exploit",
                   t->median_s * 1e6, rf->hard_floor_s * 1e6);
        kf_sb_printf(&e->diag,
                     "%s\n  %.4g FLOP and at least %.4g bytes per run; device peaks: %.4g FLOP/s, %.4g B/s memory, "
                     "%.4g B/s on-chip; the enforced floor counts %s%s\n",
                     e->summary, rf->flops, rf->min_bytes, rf->peak_flops, rf->peak_bytes_per_s,
                     rf->cache_bytes_per_s, rf->flop_term ? "the FLOPs and " : "",
                     rf->cache_resident ? "the bytes at on-chip bandwidth (the timed sets fit in cache)"
                                        : "the bytes at memory bandwidth");
        goto out;
    }
    rc = 0;
out:
    /* a verdict reached while the worker was stopped: let it go on, so that
       it can answer the quit that follows (SIGCONT to a running one is
       harmless) */
    kf_worker_resume(w);
    kf_wp_reply_free(&last);
    free(sample);
    free(wall);
    free(lead);
    return rc;
}
