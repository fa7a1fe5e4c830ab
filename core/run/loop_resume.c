/* loop_resume.c — `kforge run --resume DIR` (see loop_internal.h).
 *
 * The journal is read back step by step and every step's recorded results
 * go through kf_loop_finish_step(), the code the live loop uses, so the
 * best and last candidates, the phase and the repair count come out as the
 * interrupted run had them.  The results come back whole from each step's
 * eval.json (timing, counters, every roofline figure), the last analysis
 * from its journal event, and the agent's own memory (the built-in agent's
 * search history) from the last "agent_state" journaled: a resumed run
 * decides as the uninterrupted one would have.
 *
 * What resume does not take on trust:
 *  - a candidate whose "eval-start" has no "eval" took kforge down with it
 *    (or kforge was killed while it ran): it is recorded as a crash and
 *    never run again, so a candidate that kills its parent cannot stop the
 *    run from finishing;
 *  - the best candidate is evaluated again (verify and profile) before it
 *    is adopted; the "best" events of the journal are not read at all (the
 *    best follows from the recorded evaluations), only compared. */
#include "loop_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "candidate/candidate.h"
#include "util/fmt.h"
#include "run_record.h"

typedef struct fold {
    run_state *st;
    step_t *cur;                 /* the step being read back, or NULL */
    json_object *agent_state;    /* the last one journaled (owned by the events) */
    char *best_event;            /* dir of the last "best" event */
    char *verify_started;        /* a "verify-best-start" with no "verify-best" yet */
} fold;

static const char *ev_str(json_object *ev, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(ev, key, &v) && v ? json_object_get_string(v) : NULL;
}

static int ev_int(json_object *ev, const char *key, int dflt)
{
    json_object *v;
    return json_object_object_get_ex(ev, key, &v) && v ? json_object_get_int(v) : dflt;
}

static double ev_num(json_object *ev, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(ev, key, &v) && v ? json_object_get_double(v) : 0;
}

static void say(const run_state *st, const char *fmt, ...) KF_PRINTF(2, 3);
static void say(const run_state *st, const char *fmt, ...)
{
    if (!st->o.progress.fn || st->o.json_progress) return;
    va_list ap;
    va_start(ap, fmt);
    kf_vprogressf(&st->o.progress, fmt, ap);
    va_end(ap);
    kf_progressf(&st->o.progress, "\n");
}

static void replace_str(char **dst, const char *s)
{
    free(*dst);
    *dst = s ? strdup(s) : NULL;
}

/* DIR/steps/NNNN-S of the best candidate (best_dir is its candidate/). */
static void best_sample_dir(const run_state *st, char *buf, size_t n)
{
    snprintf(buf, n, "%s", st->best_dir ? st->best_dir : "");
    char *slash = strrchr(buf, '/');
    if (slash && !strcmp(slash, "/candidate")) *slash = '\0';
}

/* ------------------------------------------------------------------ */
/* the best candidate: dropped, or re-measured                          */

static void reject(run_state *st, const char *sdir)
{
    for (int i = 0; i < st->n_passes; i++)
        if (!strcmp(st->passes[i].dir, sdir)) st->passes[i].rejected = 1;
}

/* The fastest correct candidate not rejected becomes the best (the first
 * of equals, as the live loop keeps it).  Returns 1 when there was one. */
static int fall_back(run_state *st)
{
    while (1) {
        int k = -1;
        for (int i = 0; i < st->n_passes; i++)
            if (!st->passes[i].rejected && (k < 0 || st->passes[i].median_s < st->passes[k].median_s)) k = i;
        if (k < 0) return 0;
        if (kf_loop_adopt_best(st, st->passes[k].dir, st->passes[k].fresh, NULL) == 0) return 1;
        st->passes[k].rejected = 1;     /* its records cannot be read */
    }
}

/* The best fails (re-verification, or kforge died re-verifying it): it
 * becomes the failed candidate, and the fastest other correct one the best
 * if there is one; else the next functional step repairs the failed one.
 * Returns 1 when it fell back to another candidate. */
static int drop_best(run_state *st, kf_eval_result *res)
{
    char sdir[4096];
    best_sample_dir(st, sdir, sizeof sdir);
    reject(st, sdir);
    kf_candidate *c = st->best;
    kf_eval_result *old = st->best_eval;
    if (st->last == c) st->last = NULL;
    if (st->last_eval == old) st->last_eval = NULL;
    st->best = NULL;
    st->best_eval = NULL;
    free(st->best_dir);
    st->best_dir = NULL;
    kf_loop_set_last(st, c, res);
    kf_loop_eval_free(old);
    st->ls.fixes = 0;
    st->analysis_step = -1;      /* an analysis of the dropped best is void */
    st->best_recorded = 0;
    int found = fall_back(st);
    st->ls.phase = found ? PHASE_OPTIMIZE : PHASE_FUNCTIONAL;
    return found;
}

/* Correct, but its recorded profile cannot be right: the measured one. */
static void remeasure_best(run_state *st, kf_eval_result *res)
{
    kf_eval_result *old = st->best_eval;
    st->best_eval = res;
    if (old != st->last_eval) kf_loop_eval_free(old);
    st->analysis_step = -1;
}

/* Applies a re-verification outcome ("kept", "remeasured", "dropped");
 * takes res.  fresh: measured by this process (else read back). */
static void apply_outcome(run_state *st, const char *outcome, kf_eval_result *res, int fresh)
{
    if (!strcmp(outcome, "dropped")) {
        int found = drop_best(st, res);
        char sdir[4096];
        best_sample_dir(st, sdir, sizeof sdir);
        if (fresh && found)
            say(st, "resume: the best is now %s, the fastest other correct candidate recorded",
                kf_loop_rel(st, sdir));
        else if (fresh)
            say(st, "resume: no other correct candidate is recorded: the run goes on from the dropped one "
                "as a failed candidate");
        return;
    }
    if (!strcmp(outcome, "remeasured")) remeasure_best(st, res);
    else kf_loop_eval_free(res);
    if (fresh) st->best_recorded = 0;
}

/* ------------------------------------------------------------------ */
/* reading the journal                                                  */

static int step_complete(const step_t *sp)
{
    for (int s = 0; s < sp->n; s++)
        if (sp->s[s].dir && !sp->s[s].res) return 0;
    return 1;
}

/* The step read so far goes into the state, as the live loop took it. */
static int fold_flush(fold *f, kf_error *err)
{
    if (!f->cur) return 0;
    int rc = kf_loop_finish_step(f->st, f->cur, NULL, err);
    free(f->cur);
    f->cur = NULL;
    return rc;
}

static step_sample *fold_sample(fold *f, json_object *ev)
{
    int s = ev_int(ev, "sample", 0);
    const char *rel = ev_str(ev, "dir");
    if (!f->cur || f->cur->step != ev_int(ev, "step", -1) || s < 0 || s >= f->cur->n || !rel) return NULL;
    step_sample *x = &f->cur->s[s];
    return x->dir && !strcmp(kf_loop_rel(f->st, x->dir), rel) ? x : NULL;
}

static int fold_gen(fold *f, json_object *ev, kf_error *err)
{
    run_state *st = f->st;
    json_object *v;
    st->tok_in += (long)ev_num(ev, "tokens_in");
    st->tok_out += (long)ev_num(ev, "tokens_out");
    st->cost += ev_num(ev, "cost_usd");
    if (json_object_object_get_ex(ev, "agent_state", &v) && v) f->agent_state = v;
    int step = ev_int(ev, "step", 0), s = ev_int(ev, "sample", 0);
    const char *rel = ev_str(ev, "dir");
    if (s < 0 || s >= KF_LOOP_MAX_SAMPLES || !rel) return 0;
    if (f->cur && f->cur->step != step && fold_flush(f, err) != 0) return -1;
    if (!f->cur) {
        if (!(f->cur = calloc(1, sizeof *f->cur))) return kf_fail(err, KF_E_INTERNAL, "out of memory");
        int kind = kf_gen_kind_from_name(ev_str(ev, "kind"));
        f->cur->step = step;
        f->cur->kind = kind < 0 ? KF_GEN_FIRST : (kf_gen_kind)kind;
    }
    st->step = step;
    step_sample *x = &f->cur->s[s];
    if (s >= f->cur->n) f->cur->n = s + 1;
    kf_candidate_free(x->cand);
    kf_loop_eval_free(x->res);
    free(x->dir);
    free(x->label);
    memset(x, 0, sizeof *x);
    if (asprintf(&x->dir, "%s/%s", st->dir, rel) < 0) {
        x->dir = NULL;
        return kf_fail(err, KF_E_INTERNAL, "out of memory");
    }
    x->label = ev_str(ev, "label") ? strdup(ev_str(ev, "label")) : NULL;
    if (!json_object_object_get_ex(ev, "ok", &v) || !json_object_get_boolean(v)) return 0;
    char cdir[4200];
    snprintf(cdir, sizeof cdir, "%s/candidate", x->dir);
    x->cand = kf_candidate_load(cdir, err);
    return x->cand ? 0 : -1;
}

static int fold_eval(fold *f, json_object *ev, kf_error *err)
{
    step_sample *x = fold_sample(f, ev);
    if (!x) return 0;                   /* not a sample this journal generated */
    kf_eval_result *res = calloc(1, sizeof *res);
    if (!res) return kf_fail(err, KF_E_INTERNAL, "out of memory");
    if (kf_run_load_eval(x->dir, res, err) != 0) {
        free(res);
        return -1;
    }
    kf_loop_eval_free(x->res);
    x->res = res;
    x->recorded = 1;
    return 0;
}

static int fold_analysis(fold *f, json_object *ev, kf_error *err)
{
    run_state *st = f->st;
    json_object *v;
    if (fold_flush(f, err) != 0) return -1;
    if (json_object_object_get_ex(ev, "agent_state", &v) && v) f->agent_state = v;
    kf_analysis *a = calloc(1, sizeof *a);
    kf_error e = {0};
    if (!a || kf_analysis_parse(json_object_to_json_string(ev), a, &e) != 0) {
        free(a);
        say(st, "resume: the analysis of step %d cannot be read back (%s); it is made again",
            ev_int(ev, "step", 0), e.msg);
        return 0;
    }
    if (st->analysis) { kf_analysis_free(st->analysis); free(st->analysis); }
    st->analysis = a;
    st->analysis_step = ev_int(ev, "step", 0);
    st->analysis_base_s = st->best_eval ? st->best_eval->timing.median_s : 0;
    return 0;
}

/* A re-verification an earlier --resume made: its outcome again, from the
 * result it saved in DIR/steps/NNNN-S/reverify/. */
static int fold_verify(fold *f, json_object *ev, kf_error *err)
{
    run_state *st = f->st;
    replace_str(&f->verify_started, NULL);
    if (fold_flush(f, err) != 0) return -1;
    const char *rel = ev_str(ev, "dir"), *outcome = ev_str(ev, "outcome");
    char sdir[4096], vdir[4200];
    best_sample_dir(st, sdir, sizeof sdir);
    if (!st->best || !rel || !outcome || strcmp(kf_loop_rel(st, sdir), rel) || !strcmp(outcome, "kept"))
        return 0;
    snprintf(vdir, sizeof vdir, "%s/reverify", sdir);
    kf_eval_result *res = calloc(1, sizeof *res);
    if (!res) return kf_fail(err, KF_E_INTERNAL, "out of memory");
    if (kf_run_load_eval(vdir, res, err) != 0) {
        free(res);
        return -1;
    }
    if (!strcmp(outcome, "dropped")) replace_str(&f->best_event, NULL);
    apply_outcome(st, outcome, res, 0);
    return 0;
}

/* The journal's "start" event against the run directory's run.json and
 * problem.json: a journal of another run (copied in, or a directory
 * reused) is refused, not replayed into this one. */
static int check_start(const run_state *st, json_object *ev, kf_error *err)
{
    const char *problem = ev_str(ev, "problem"), *backend = ev_str(ev, "backend");
    if (problem && st->p && st->p->name && strcmp(problem, st->p->name))
        return kf_fail(err, KF_E_BAD_INPUT,
                       "%s/journal.jsonl is the journal of a run of problem '%s', but the run directory's "
                       "problem.json is '%s': not this run's journal; cannot resume", st->dir, problem,
                       st->p->name);
    if (backend && st->o.backend && strcmp(backend, st->o.backend))
        return kf_fail(err, KF_E_BAD_INPUT,
                       "%s/journal.jsonl is the journal of a run on backend '%s', but the run directory's "
                       "run.json says '%s': not this run's journal; cannot resume", st->dir, backend,
                       st->o.backend);
    return 0;
}

static int fold_event(fold *f, json_object *ev, kf_error *err)
{
    run_state *st = f->st;
    const char *name = ev_str(ev, "ev");
    if (!name) return 0;
    if (!strcmp(name, "start")) {
        return check_start(st, ev, err);
    } else if (!strcmp(name, "anchor")) {
        st->have_anchor = 1;
        kf_loop_anchor_from_event(st, ev);
    } else if (!strcmp(name, "baseline")) {
        st->have_baseline = 1;
        if (ev_num(ev, "median_s") > 0) st->baseline_s = ev_num(ev, "median_s");
        if (ev_str(ev, "how")) replace_str(&st->baseline_how, ev_str(ev, "how"));
    } else if (!strcmp(name, "gen")) {
        return fold_gen(f, ev, err);
    } else if (!strcmp(name, "eval-start")) {
        step_sample *x = fold_sample(f, ev);
        if (x) x->started = 1;
    } else if (!strcmp(name, "eval")) {
        return fold_eval(f, ev, err);
    } else if (!strcmp(name, "best")) {
        replace_str(&f->best_event, ev_str(ev, "dir"));
    } else if (!strcmp(name, "analysis")) {
        return fold_analysis(f, ev, err);
    } else if (!strcmp(name, "verify-best-start")) {
        if (fold_flush(f, err) != 0) return -1;
        replace_str(&f->verify_started, ev_str(ev, "dir"));
    } else if (!strcmp(name, "verify-best")) {
        return fold_verify(f, ev, err);
    } else if (!strcmp(name, "elapsed")) {
        st->elapsed_before = ev_num(ev, "seconds");
    }
    return 0;
}

/* The agent's memory as last journaled.  A record it cannot read costs
 * the search its history, not the run. */
static void restore_agent(fold *f)
{
    run_state *st = f->st;
    if (!f->agent_state || !st->agent->ops->load_state) return;
    kf_error e = {0};
    if (st->agent->ops->load_state(st->agent, &st->ctx, json_object_to_json_string(f->agent_state), &e) != 0)
        say(st, "resume: the %s agent's recorded state cannot be restored (%s); it starts from an empty one",
            st->agent->spec, e.msg);
}

static int fold_all(fold *f, json_object *events, kf_error *err)
{
    size_t n = json_object_array_length(events);
    for (size_t i = 0; i < n; i++)
        if (fold_event(f, json_object_array_get_idx(events, i), err) != 0) return -1;
    /* a step with every result recorded is complete, whatever followed */
    if (f->cur && step_complete(f->cur) && fold_flush(f, err) != 0) return -1;
    restore_agent(f);
    return 0;
}

/* ------------------------------------------------------------------ */
/* what the interrupted run left unfinished                             */

static kf_eval_result *crash_result(const char *summary, const char *diagnostics)
{
    kf_eval_result *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->verdict = KF_FAIL_CRASH;
    r->failed_trial = -1;
    r->summary = strdup(summary);
    r->diagnostics = strdup(diagnostics);
    return r;
}

/* A sample whose evaluation kforge did not survive. */
static kf_eval_result *died_evaluating(int in_flight)
{
    char diag[1024];
    int n = snprintf(diag, sizeof diag,
                     "kforge itself (the process running the loop) died while this candidate was being "
                     "evaluated: the candidate killed or crashed it (e.g. kill(getppid(), SIGKILL)), or kforge "
                     "was killed from outside (kill -9, the OOM killer).  It is recorded as a crash and not "
                     "evaluated again, so that the run can go on.");
    if (in_flight > 1 && n > 0 && (size_t)n < sizeof diag)
        snprintf(diag + n, sizeof diag - (size_t)n,
                 "  %d samples of this step were being evaluated at the same time; any of them may have "
                 "caused it.", in_flight);
    return crash_result("crash: kforge itself died while evaluating this candidate", diag);
}

static char *read_error_txt(const char *sdir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/error.txt", sdir);
    return kf_read_file(path, NULL);
}

/* The step the interrupted run was in: a sample whose evaluation had
 * started is a crash; one generated but never started is evaluated now;
 * then the step is finished as the live loop finishes it. */
static int finish_partial(run_state *st, step_t *sp, kf_error *err)
{
    int in_flight = 0, rc = 0;
    for (int s = 0; s < sp->n; s++)
        if (sp->s[s].cand && !sp->s[s].res && sp->s[s].started) in_flight++;
    for (int s = 0; s < sp->n && rc == 0; s++) {
        step_sample *x = &sp->s[s];
        if (!x->dir || x->res) continue;
        if (!x->cand) {
            char *why = read_error_txt(x->dir);
            rc = kf_loop_bad_answer(st, sp, s, why, "resume", err);
            free(why);
        } else if (x->started) {
            if (!(x->res = died_evaluating(in_flight))) rc = kf_fail(err, KF_E_INTERNAL, "out of memory");
            say(st, "resume: kforge died while evaluating %s: recorded as a crash, not evaluated again",
                kf_loop_rel(st, x->dir));
        }
    }
    if (rc == 0) rc = kf_loop_evaluate(st, sp, err);
    if (rc == 0) return kf_loop_finish_step(st, sp, "resume", err);
    kf_loop_step_free(sp);
    return rc;
}

/* ------------------------------------------------------------------ */
/* re-verifying the recorded best                                       */

static int journal_verify(run_state *st, const char *rel, const char *outcome, const kf_eval_result *res,
                          double recorded_s, kf_error *err)
{
    json_object *ev = json_object_new_object();
    json_object_object_add(ev, "dir", json_object_new_string(rel));
    json_object_object_add(ev, "outcome", json_object_new_string(outcome));
    json_object_object_add(ev, "verdict", json_object_new_string(kf_verdict_name(res->verdict)));
    if (res->summary) json_object_object_add(ev, "summary", json_object_new_string(res->summary));
    if (res->profiled) json_object_object_add(ev, "median_s", json_object_new_double(res->timing.median_s));
    json_object_object_add(ev, "recorded_median_s", json_object_new_double(recorded_s));
    int rc = kf_loop_journal(st, "verify-best", ev, err);
    json_object_put(ev);
    return rc;
}

/* Saves res as DIR/steps/NNNN-S/reverify/ and journals the outcome. */
static int record_verify(run_state *st, const char *sdir, const char *outcome, const kf_eval_result *res,
                         kf_error *err)
{
    char vdir[4200];
    snprintf(vdir, sizeof vdir, "%s/reverify", sdir);
    if (kf_mkdir_p_mode(vdir, 0700, err) != 0 || kf_run_save_eval(vdir, res, err) != 0) return -1;
    double recorded = st->best_eval ? st->best_eval->timing.median_s : 0;
    return journal_verify(st, kf_loop_rel(st, sdir), outcome, res, recorded, err);
}

/* An earlier --resume died re-verifying the best: dropped, not run again. */
static int verify_crashed(run_state *st, const char *rel, kf_error *err)
{
    char sdir[4096];
    best_sample_dir(st, sdir, sizeof sdir);
    if (!st->best || strcmp(kf_loop_rel(st, sdir), rel)) return 0;
    kf_eval_result *res = crash_result("crash: kforge itself died while re-verifying this candidate",
                                       "kforge died while this candidate, the recorded best, was being "
                                       "re-verified on an earlier --resume; it is dropped without being run "
                                       "again.");
    if (!res) return kf_fail(err, KF_E_INTERNAL, "out of memory");
    if (record_verify(st, sdir, "dropped", res, err) != 0) {
        kf_loop_eval_free(res);
        return -1;
    }
    say(st, "resume: kforge died re-verifying the recorded best %s: dropped", rel);
    apply_outcome(st, "dropped", res, 1);
    return 0;
}

/* "dropped": it fails now; "remeasured": correct, but the recorded median
 * is below the hard floor of the roofline (physically impossible: the
 * record is wrong); "kept": correct, and its recorded profile stands (it
 * is what the uninterrupted run decided from). */

static void tell_outcome(const run_state *st, const char *rel, const char *outcome, const kf_eval_result *now)
{
    char a[32], b[32], c[32];
    double rec = st->best_eval->timing.median_s;
    if (!strcmp(outcome, "kept"))
        say(st, "resume: the recorded best %s passed re-verification (recorded %s, measured now %s)", rel,
            kf_fmt_duration(rec, a, sizeof a), kf_fmt_duration(now->timing.median_s, b, sizeof b));
    else if (!strcmp(outcome, "remeasured"))
        say(st, "resume: the recorded best %s is correct, but its recorded time %s is below what this device "
            "can do (%s at the least): the time measured now, %s, replaces it", rel,
            kf_fmt_duration(rec, a, sizeof a), kf_fmt_duration(now->roofline.hard_floor_s, b, sizeof b),
            kf_fmt_duration(now->timing.median_s, c, sizeof c));
    else
        say(st, "resume: the recorded best %s failed re-verification (%s): dropped", rel,
            now->summary ? now->summary : kf_verdict_name(now->verdict));
}

/* The best as the records have it is evaluated again (verify and profile)
 * before the run adopts it: a record is not proof.  Announced by a
 * "verify-best-start" event, so that a candidate that takes kforge down
 * here is dropped by the next --resume instead of run again. */
static int reverify_best(run_state *st, kf_error *err)
{
    char sdir[4096];
    best_sample_dir(st, sdir, sizeof sdir);
    const char *rel = kf_loop_rel(st, sdir);
    json_object *ev = json_object_new_object();
    json_object_object_add(ev, "dir", json_object_new_string(rel));
    int rc = kf_loop_journal(st, "verify-best-start", ev, err);
    json_object_put(ev);
    if (rc != 0) return -1;
    kf_eval_result *now = calloc(1, sizeof *now);
    if (!now) return kf_fail(err, KF_E_INTERNAL, "out of memory");
    kf_eval_opts eo = st->o.eval;
    eo.seed = kf_loop_seed(st, st->step, KF_LOOP_MAX_SAMPLES);   /* inputs no sample saw */
    kf_error e = {0};
    if (kf_evaluate(st->plugin, &st->r, st->best, &eo, 1, now, &e) != 0) {
        now->verdict = KF_FAIL_INTERNAL;
        now->failed_trial = -1;
        now->summary = strdup(e.msg);
    }
    const char *outcome = kf_loop_judge_best(st->best_eval, now);
    if (record_verify(st, sdir, outcome, now, err) != 0) {
        kf_loop_eval_free(now);
        return -1;
    }
    tell_outcome(st, rel, outcome, now);
    apply_outcome(st, outcome, now, 1);
    return 0;
}

/* The journal's last "best" event against the best its evaluations make:
 * the event is never what decides, and a mismatch is said. */
static void compare_best_event(const fold *f)
{
    const run_state *st = f->st;
    if (!f->best_event || (st->best && !st->best_recorded)) return;
    char sdir[4096];
    best_sample_dir(st, sdir, sizeof sdir);
    if (st->best && !strcmp(kf_loop_rel(st, sdir), f->best_event)) return;
    say(st, "resume: the journal's last \"best\" event names %s, but the evaluations recorded make %s the best; "
        "the event is not trusted", f->best_event, st->best ? kf_loop_rel(st, sdir) : "no candidate");
}

static void journal_resume(run_state *st)
{
    json_object *ev = json_object_new_object();
    json_object_object_add(ev, "step", json_object_new_int(st->step));
    kf_loop_journal(st, "resume", ev, NULL);
    json_object_put(ev);
    say(st, "resuming %s at step %d%s", st->dir, st->step,
        st->best ? " (a correct candidate is already known)" : "");
}

int kf_loop_replay(run_state *st, json_object *events, step_t **partial, kf_error *err)
{
    fold f = {.st = st};
    int rc = fold_all(&f, events, err);
    free(f.best_event);
    free(f.verify_started);
    if (rc == 0 && partial) {
        *partial = f.cur;
    } else if (f.cur) {
        kf_loop_step_free(f.cur);
        free(f.cur);
    }
    return rc;
}

int kf_loop_resume(run_state *st, json_object *events, kf_error *err)
{
    fold f = {.st = st};
    int rc = fold_all(&f, events, err);
    if (rc == 0) journal_resume(st);
    if (rc == 0 && f.verify_started) rc = verify_crashed(st, f.verify_started, err);
    if (rc == 0 && f.cur) {
        rc = finish_partial(st, f.cur, err);
        free(f.cur);
        f.cur = NULL;
    }
    if (rc == 0) compare_best_event(&f);
    /* until a recorded best stands (or none is left) */
    while (rc == 0 && st->best && st->best_recorded) rc = reverify_best(st, err);
    if (f.cur) {
        kf_loop_step_free(f.cur);
        free(f.cur);
    }
    free(f.best_event);
    free(f.verify_started);
    return rc;
}
