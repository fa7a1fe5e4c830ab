/* loop_confirm.c — the run's last act: the search's best and its closest
 * runners-up timed again, back to back (loop.h, KF_CONFIRM_*).
 *
 * Each step's candidate is timed once, in its own step.  On a loaded or
 * shared machine the same kernel can time 2-3x apart a minute later
 * (bench/results/xeon16-cpu-2026-11-28c: single pairs 0.73x-8.78x, a
 * machine's first minutes slow), and the search keeps whichever measured
 * fastest then: a better kernel whose step fell in a slow stretch loses to
 * a worse one.  Here the finalists (the best, then the fastest other
 * correct candidates within KF_CONFIRM_RATIO of its time, at most
 * KF_CONFIRM_FINALISTS in all) are evaluated again, verification
 * included, in rounds whose order alternates (A B C, C B A, A B C), so
 * that a slow stretch falls on all of them alike.  Each finalist's time is
 * the median of its rounds; the fastest is the run's best, reported with
 * the evaluation of its median round (not its step's).  With no other
 * correct candidate within the ratio there is nothing to choose, but the
 * best is still timed again beside the baseline when the run has one (so
 * that the speedup divides two times from one stretch: on the 16-core host
 * a lone best timed 1.07-1.20 ms in its step and 0.67-0.73 ms in turns
 * afterwards, bench/results/xeon16-cpu-gelu-table-2026-11-30); with
 * neither, nothing is re-timed or journaled.  A finalist that
 * fails a re-evaluation is out: verification with new inputs is part of
 * the check.  A step's time here is its fastest timed run
 * (kf_loop_finalist_key): a slow stretch that fell on one step inflates its
 * median, not that.  Only completed rounds count; none starts once the run's
 * clock passes max_time_s * (1 + KF_CONFIRM_OVERRUN).
 *
 * The op-by-op baseline, when the run measured one, is evaluated in the
 * same rounds (last in the first round's order), and its median over them
 * replaces its time from the run's start: the speedups then divide two
 * times taken in one stretch of the machine's state (a host that slowed by
 * a quarter during a run reported a kernel at 0.82x the baseline timed
 * before the slowdown, bench/results/xeon16-cpu-membound-2026-11-29d).  A
 * baseline that fails or cannot be loaded keeps its first time.  When it
 * was faster than the chosen finalist in every round, of at least
 * KF_CONFIRM_BASELINE_ROUNDS (and is not the same code), the baseline's
 * kernel, verified in those rounds like the finalists, is the run's best:
 * a user does not get a kernel that measured slower than the op-by-op one
 * beside it in each round (on the Zen 3 VM problem 88's search best timed
 * 0.92x its baseline in the confirm round,
 * bench/results/zen3-cpu-membound-2026-12-01); one round is one pair of
 * timings, so after fewer the run says so and keeps its kernel.  It
 * replaces a verified finalist only: a run whose finalists all fail has no
 * verified search kernel, and the baseline alone is not one found.
 *
 * Nothing here is replayed by --resume: a resumed run takes its best from
 * the step evaluations (loop_resume.c) and, at its end, confirms again. */
#include "loop_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "candidate/candidate.h"
#include "util/fileio.h"
#include "util/fmt.h"
#include "run_record.h"

typedef struct finalist {
    char sdir[4096];              /* DIR/steps/NNNN-S */
    kf_candidate *cand;           /* owned, except the best's (st->best) */
    double step_s;                /* its time in its own step */
    kf_eval_result *res[KF_CONFIRM_MAX_ROUNDS];
} finalist;

static int by_key(const void *a, const void *b)
{
    const loop_pass *x = *(const loop_pass *const *)a, *y = *(const loop_pass *const *)b;
    double kx = kf_loop_finalist_key(x->median_s, x->min_s), ky = kf_loop_finalist_key(y->median_s, y->min_s);
    return (kx > ky) - (kx < ky);
}

/* The best first, then the runners-up: correct, profiled, not rejected on
 * resume, their fastest timed run within KF_CONFIRM_RATIO of the best's
 * time in its step, fastest first (kf_loop_finalist_key). */
static int pick_finalists(run_state *st, finalist *f, kf_error *err)
{
    size_t n = strlen(st->best_dir);
    const char *tail = "/candidate";
    if (n <= strlen(tail) || strcmp(st->best_dir + n - strlen(tail), tail))
        return kf_fail(err, KF_E_INTERNAL, "the best's directory %s is not a step's candidate", st->best_dir);
    snprintf(f[0].sdir, sizeof f[0].sdir, "%.*s", (int)(n - strlen(tail)), st->best_dir);
    f[0].cand = st->best;
    f[0].step_s = st->best_eval->timing.median_s;
    const loop_pass **order = calloc((size_t)st->n_passes + 1, sizeof *order);
    if (!order) return kf_fail(err, KF_E_INTERNAL, "out of memory");
    int m = 0;
    for (int i = 0; i < st->n_passes; i++) {
        const loop_pass *p = &st->passes[i];
        if (p->rejected || !(p->median_s > 0) || kf_loop_finalist_key(p->median_s, p->min_s) > KF_CONFIRM_RATIO * f[0].step_s)
            continue;
        int seen = !strcmp(p->dir, f[0].sdir);
        for (int q = 0; q < m && !seen; q++) seen = !strcmp(order[q]->dir, p->dir);
        if (!seen) order[m++] = p;
    }
    qsort(order, (size_t)m, sizeof *order, by_key);
    int k = 1;
    for (int q = 0; q < m && k < KF_CONFIRM_FINALISTS; q++) {
        char cdir[4200];
        snprintf(cdir, sizeof cdir, "%s/candidate", order[q]->dir);
        kf_error e = {0};
        kf_candidate *c = kf_candidate_load(cdir, &e);
        if (!c) {   /* its records are gone: not a finalist, said */
            if (st->o.progress.fn)
                kf_progressf(&st->o.progress, "confirm: %s left out: %s\n", kf_loop_rel(st, order[q]->dir), e.msg);
            continue;
        }
        snprintf(f[k].sdir, sizeof f[k].sdir, "%s", order[q]->dir);
        f[k].cand = c;
        f[k].step_s = order[q]->median_s;
        k++;
    }
    free(order);
    return k;
}

static void say_eval(run_state *st, int round, const finalist *f, const kf_eval_result *res)
{
    if (!st->o.progress.fn) return;
    const char *rel = kf_loop_rel(st, f->sdir);
    int ok = res->verdict == KF_PASS && res->profiled;
    if (st->o.json_progress) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "pass", json_object_new_string("confirm"));
        json_object_object_add(o, "round", json_object_new_int(round + 1));
        json_object_object_add(o, "candidate", json_object_new_string(rel));
        json_object_object_add(o, "status", json_object_new_string(ok ? "pass" : kf_verdict_name(res->verdict)));
        if (ok) json_object_object_add(o, "time_s", json_object_new_double(res->timing.median_s));
        kf_progressf(&st->o.progress, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
        json_object_put(o);
        return;
    }
    char t[32] = "-", s[32];
    if (ok) kf_fmt_duration(res->timing.median_s, t, sizeof t);
    kf_progressf(&st->o.progress, "confirm: round %d  %-16s %-9s (%s in its step)%s%s\n", round + 1, rel, t,
                 kf_fmt_duration(f->step_s, s, sizeof s), ok ? "" : "  out: ",
                 ok ? "" : res->summary ? res->summary : kf_verdict_name(res->verdict));
}

/* Whether finalist f is still in at round r: every finalist at the first,
 * else only one that passed and was profiled in the round before. */
static int still_in(const finalist *f, int r)
{
    const kf_eval_result *e = r > 0 ? f->res[r - 1] : NULL;
    return r == 0 || (e && e->verdict == KF_PASS && e->profiled);
}

/* One finalist's evaluation of round r: 0 (res set, whatever its verdict)
 * or -1 (the request itself failed: err). */
static int evaluate(run_state *st, finalist *f, int idx, int r, kf_error *err)
{
    kf_eval_result *res = calloc(1, sizeof *res);
    if (!res) return kf_fail(err, KF_E_INTERNAL, "out of memory");
    kf_eval_opts eo = st->o.eval;
    eo.seed = kf_loop_seed(st, st->step + 1 + r, idx);   /* inputs no step drew */
    if (kf_evaluate(st->plugin, &st->r, f->cand, &eo, 1, res, err) != 0) {
        kf_loop_eval_free(res);
        return -1;
    }
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/confirm/%d-%d", st->dir, r + 1, idx);
    kf_error e = {0};
    if (kf_mkdir_p_mode(dir, 0700, &e) != 0 || kf_run_save_eval(dir, res, &e) != 0)
        if (st->o.progress.fn) kf_progressf(&st->o.progress, "confirm: %s not saved: %s\n", dir, e.msg);
    f->res[r] = res;
    say_eval(st, r, f, res);
    return 0;
}

/* The baseline as the round's last entry f[n] (0: none to re-time). */
static int load_baseline(run_state *st, finalist *b)
{
    if (!(st->baseline_s > 0)) return 0;
    char cdir[4200];
    snprintf(b->sdir, sizeof b->sdir, "%s/baseline", st->dir);
    snprintf(cdir, sizeof cdir, "%s/candidate", b->sdir);
    kf_error e = {0};
    b->cand = kf_candidate_load(cdir, &e);
    if (!b->cand) {
        if (st->o.progress.fn && !st->o.json_progress)
            kf_progressf(&st->o.progress, "confirm: the baseline is not timed again (%s); its first time stands\n", e.msg);
        return 0;
    }
    b->step_s = st->baseline_s;
    return 1;
}

static void journal_confirm(run_state *st, const finalist *f, int n, int rounds, const double *t, const double *med,
                            int pick, const char *stopped, const double *bt, double bmed)
{
    json_object *ev = json_object_new_object();
    json_object_object_add(ev, "rounds", json_object_new_int(rounds));
    json_object_object_add(ev, "wanted", json_object_new_int(st->o.confirm_rounds));
    if (stopped) json_object_object_add(ev, "stopped", json_object_new_string(stopped));
    json_object *a = json_object_new_array();
    for (int i = 0; i < n; i++) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "dir", json_object_new_string(kf_loop_rel(st, f[i].sdir)));
        json_object_object_add(o, "step_s", json_object_new_double(f[i].step_s));
        json_object *ts = json_object_new_array();
        for (int r = 0; r < rounds; r++) json_object_array_add(ts, json_object_new_double(t[i * rounds + r]));
        json_object_object_add(o, "times_s", ts);
        json_object_object_add(o, "median_s", json_object_new_double(med[i]));
        json_object_array_add(a, o);
    }
    json_object_object_add(ev, "finalists", a);
    if (bt) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "step_s", json_object_new_double(f[n].step_s));
        json_object *ts = json_object_new_array();
        for (int r = 0; r < rounds; r++) json_object_array_add(ts, json_object_new_double(bt[r]));
        json_object_object_add(o, "times_s", ts);
        json_object_object_add(o, "median_s", json_object_new_double(bmed));
        json_object_object_add(ev, "baseline", o);
    }
    json_object_object_add(ev, "chosen", pick >= 0 ? json_object_new_string(kf_loop_rel(st, f[pick].sdir)) : NULL);
    kf_loop_journal(st, "confirm", ev, NULL);
    json_object_put(ev);
}

/* Whether the baseline f[n] was faster than finalist f[fin], both still in
 * after every round, in each round (one faster in some rounds only is not),
 * and is not the same code (kf_candidate_same_code: then there is nothing
 * to change).  It takes f[fin]'s place only after KF_CONFIRM_BASELINE_ROUNDS
 * rounds or more (kf_loop_confirm). */
static int baseline_faster(const finalist *f, int n, int fin, const double *t, const double *bt, int rounds)
{
    if (rounds < 1) return 0;
    for (int r = 0; r < rounds; r++)
        if (!(bt[r] < t[fin * rounds + r])) return 0;
    char a[4200], b[4200];
    snprintf(a, sizeof a, "%s/candidate", f[fin].sdir);
    snprintf(b, sizeof b, "%s/candidate", f[n].sdir);
    return !kf_candidate_same_code(a, b);
}

int kf_loop_confirm(run_state *st, kf_error *err)
{
    int want = st->o.confirm_rounds < KF_CONFIRM_MAX_ROUNDS ? st->o.confirm_rounds : KF_CONFIRM_MAX_ROUNDS;
    if (want <= 0 || !st->best || !st->best_eval || !st->best_dir) return 0;
    finalist f[KF_CONFIRM_FINALISTS + 1];   /* the finalists, then the baseline */
    memset(f, 0, sizeof f);
    int n = pick_finalists(st, f, err);
    if (n < 0) return -1;
    /* the best alone: re-timed beside the baseline, when there is one, so that the speedup divides
       two times from one stretch of the machine; with neither, nothing to choose or to pair */
    int m = n + load_baseline(st, &f[n]);   /* entries evaluated each round */
    if (m == 1) return 0;
    if (st->o.progress.fn && !st->o.json_progress && n == 1)
        kf_progressf(&st->o.progress, "confirm: the best (no other correct candidate within %gx of it) timed again "
                     "beside the baseline, %d round%s back to back\n", KF_CONFIRM_RATIO, want, want == 1 ? "" : "s");
    else if (st->o.progress.fn && !st->o.json_progress)
        kf_progressf(&st->o.progress, "confirm: the best and %d other correct candidate%s within %gx of it timed again, "
                     "%d round%s back to back\n", n - 1, n == 2 ? "" : "s", KF_CONFIRM_RATIO, want, want == 1 ? "" : "s");
    double limit = st->o.max_time_s > 0 ? st->o.max_time_s * (1 + KF_CONFIRM_OVERRUN) : 0;
    int rounds = 0, rc = 0;
    const char *stopped = NULL;
    for (int r = 0; r < want && rc == 0 && !stopped; r++) {
        int left = 0;
        for (int i = 0; i < n; i++) left += still_in(&f[i], r);
        if (!left) break;
        if (limit > 0 && kf_loop_elapsed(st) >= limit) {
            stopped = "time budget";
            break;
        }
        for (int k = 0; k < m && rc == 0; k++) {
            int i = r % 2 ? m - 1 - k : k;
            if (!still_in(&f[i], r)) continue;   /* out */
            rc = evaluate(st, &f[i], i, r, err);
        }
        if (rc == 0) rounds = r + 1;
    }
    double t[KF_CONFIRM_FINALISTS * KF_CONFIRM_MAX_ROUNDS], med[KF_CONFIRM_FINALISTS + 1];   /* + 1: the baseline chosen */
    int at[KF_CONFIRM_FINALISTS + 1];
    for (int i = 0; i < n; i++)
        for (int r = 0; r < rounds; r++)
            t[i * rounds + r] = still_in(&f[i], r + 1) ? f[i].res[r]->timing.median_s : 0;
    int pick = rounds > 0 ? kf_loop_confirm_pick(t, n, rounds, med, at) : -1;
    if (rounds == 0)
        for (int i = 0; i < n; i++) med[i] = 0;
    double bt[KF_CONFIRM_MAX_ROUNDS], bmed = 0;
    int bat = -1;
    if (m > n) {
        for (int r = 0; r < rounds; r++) bt[r] = still_in(&f[n], r + 1) ? f[n].res[r]->timing.median_s : 0;
        if (rounds > 0 && kf_loop_confirm_pick(bt, 1, rounds, &bmed, &bat) < 0) bmed = 0;
    }
    int faster = rc == 0 && pick >= 0 && bmed > 0 && baseline_faster(f, n, pick, t, bt, rounds);
    int to_baseline = faster && rounds >= KF_CONFIRM_BASELINE_ROUNDS;
    if (rc == 0) journal_confirm(st, f, n, rounds, t, med, to_baseline ? n : pick, stopped, m > n ? bt : NULL, bmed);
    if (rc == 0 && bmed > 0) {
        char a[32], b[32];
        if (st->o.progress.fn && !st->o.json_progress)
            kf_progressf(&st->o.progress, "confirm: baseline %s (median of %d round%s; %s at the run's start): the "
                         "speedups use this time\n", kf_fmt_duration(bmed, a, sizeof a), rounds, rounds == 1 ? "" : "s",
                         kf_fmt_duration(st->baseline_s, b, sizeof b));
        st->baseline_start_s = st->baseline_s;
        st->baseline_s = bmed;
        st->baseline_rounds = rounds;
    } else if (rc == 0 && m > n && rounds > 0 && st->o.progress.fn && !st->o.json_progress) {
        kf_progressf(&st->o.progress, "confirm: the baseline failed its re-evaluation; its first time stands\n");
    }

    char a[32], b[32];
    if (rc != 0 || rounds == 0) {
        if (st->o.progress.fn && rc == 0)
            kf_progressf(&st->o.progress, "confirm: no round within the time budget; the search's best stands\n");
    } else if (pick < 0) {
        /* every finalist failed a re-evaluation: none is verified */
        if (st->o.progress.fn)
            kf_progressf(&st->o.progress, "confirm: every finalist failed its re-evaluation; the run has no verified kernel\n");
        kf_loop_set_best(st, NULL, NULL, NULL);
        st->confirm_rounds_done = rounds;
        st->confirm_finalists = n;
    } else {
        int fin = pick;   /* the fastest finalist */
        if (to_baseline) {   /* the entry chosen, f[n], with its median and median round */
            pick = n;
            med[n] = bmed;
            at[n] = bat;
        }
        kf_eval_result *res = f[pick].res[at[pick]];
        f[pick].res[at[pick]] = NULL;
        if (st->o.progress.fn && st->o.json_progress) {
            json_object *o = json_object_new_object();
            json_object_object_add(o, "pass", json_object_new_string("confirm"));
            json_object_object_add(o, "status", json_object_new_string("chosen"));
            json_object_object_add(o, "candidate", json_object_new_string(kf_loop_rel(st, f[pick].sdir)));
            json_object_object_add(o, "time_s", json_object_new_double(med[pick]));
            json_object_object_add(o, "step_time_s", json_object_new_double(f[pick].step_s));
            json_object_object_add(o, "rounds", json_object_new_int(rounds));
            kf_progressf(&st->o.progress, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
            json_object_put(o);
        } else if (st->o.progress.fn && to_baseline) {
            char c[32];
            kf_progressf(&st->o.progress, "confirm: the op-by-op baseline %s (median of %d round%s) was faster than "
                         "the search's fastest, %s (%s), in every round: the run's best is now the baseline's kernel\n",
                         kf_fmt_duration(bmed, a, sizeof a), rounds, rounds == 1 ? "" : "s",
                         kf_loop_rel(st, f[fin].sdir), kf_fmt_duration(med[fin], c, sizeof c));
        } else if (st->o.progress.fn) {
            if (faster) {
                char c[32];
                kf_progressf(&st->o.progress, "confirm: the op-by-op baseline %s was faster than %s (%s) in the %d "
                             "round%s that ran; fewer than %d rounds do not replace the search's kernel\n",
                             kf_fmt_duration(bmed, a, sizeof a), kf_loop_rel(st, f[fin].sdir),
                             kf_fmt_duration(med[fin], c, sizeof c), rounds, rounds == 1 ? "" : "s",
                             KF_CONFIRM_BASELINE_ROUNDS);
            }
            kf_progressf(&st->o.progress, "confirm: %s %s (median of %d round%s; %s in its step)%s\n",
                         kf_loop_rel(st, f[pick].sdir), kf_fmt_duration(med[pick], a, sizeof a), rounds,
                         rounds == 1 ? "" : "s", kf_fmt_duration(f[pick].step_s, b, sizeof b),
                         pick == 0 ? ": the search's best stands" : ": the run's best is now this one");
        }
        st->confirm_rounds_done = rounds;
        st->confirm_finalists = n;
        st->confirm_step_s = f[pick].step_s;
        if (pick == 0) {
            kf_loop_set_best(st, st->best, res, st->best_dir);   /* the same candidate, its new time */
        } else {
            char cdir[4200];
            snprintf(cdir, sizeof cdir, "%s/candidate", f[pick].sdir);
            free(st->confirm_replaced);
            st->confirm_replaced = strdup(kf_loop_rel(st, st->best_dir));
            kf_loop_set_best(st, f[pick].cand, res, cdir);
            f[pick].cand = NULL;
        }
    }
    for (int i = 0; i < m; i++) {
        if (i > 0) kf_candidate_free(f[i].cand);
        for (int r = 0; r < KF_CONFIRM_MAX_ROUNDS; r++) kf_loop_eval_free(f[i].res[r]);
    }
    return rc;
}
