/* loop.c — the refinement loop behind `kforge run` (see loop.h); --resume
 * is in loop_resume.c.
 *
 * The run directory is kforge's record of the run, never the worker's.  The
 * worker that compiles and runs a candidate gets its own copy of it in a
 * temporary work directory (kf_evaluate(), work_dir NULL), and the worker
 * sandbox (core/worker/, core/eval/, core/sandbox/) keeps the run directory out of its
 * reach.  Everything here is created owner-only (directories 0700, files
 * 0600), so no other user can alter the records either; that alone does
 * not stop a process of the same user: the sandbox does.  Generated code
 * may still kill or crash kforge itself: every evaluation is announced by
 * an "eval-start" event on disk first, and a resumed run records a
 * candidate whose evaluation kforge did not survive as a crash instead of
 * running it again. */
#include "loop_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "anchor.h"
#include "candidate/candidate.h"
#include "util/clock.h"
#include "util/fmt.h"
#include "problem/precision.h"
#include "problem/problem.h"
#include "run_record.h"
#include "timing_warning.h"
#include "llm/llm.h"

void kf_run_opts_default(kf_run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->max_iterations = 12;
    o->max_time_s = 600;
    o->max_cost_usd = 5.0;
    o->samples = 1;
    o->max_fix = 2;
    o->target_fraction = 0.8;
    o->seed = 20261122;
    o->baseline = 1;
    o->confirm_rounds = KF_CONFIRM_ROUNDS;
    kf_eval_opts_default(&o->eval);
}

void kf_run_summary_free(kf_run_summary *s)
{
    if (!s) return;
    free(s->run_dir);
    free(s->best_dir);
    free(s->stop_reason);
    free(s->timing_warning);
    memset(s, 0, sizeof *s);
}

static double elapsed(const run_state *st) { return st->elapsed_before + (kf_now_s() - st->t0); }
double kf_loop_elapsed(const run_state *st) { return elapsed(st); }

void kf_loop_eval_free(kf_eval_result *e)
{
    if (!e) return;
    kf_eval_result_free(e);
    free(e);
}

void kf_loop_set_last(run_state *st, kf_candidate *c, kf_eval_result *e)
{
    if (st->last != st->best) kf_candidate_free(st->last);
    if (st->last_eval != st->best_eval) kf_loop_eval_free(st->last_eval);
    st->last = c;
    st->last_eval = e;
}

void kf_loop_set_best(run_state *st, kf_candidate *c, kf_eval_result *e, const char *dir)
{
    kf_candidate *old_c = st->best;
    kf_eval_result *old_e = st->best_eval;
    char *d = dir ? strdup(dir) : NULL;   /* dir may be st->best_dir itself */
    st->best = c;
    st->best_eval = e;
    if (old_c && old_c != c && old_c != st->last) kf_candidate_free(old_c);
    if (old_e && old_e != e && old_e != st->last_eval) kf_loop_eval_free(old_e);
    free(st->best_dir);
    st->best_dir = d;
}

const char *kf_loop_rel(const run_state *st, const char *path)
{
    size_t n = strlen(st->dir);
    return !strncmp(path, st->dir, n) && path[n] == '/' ? path + n + 1 : path;
}

/* ------------------------------------------------------------------ */
/* the journal                                                         */

/* KFORGE_TEST_DIE_AFTER=EV[:N] (tests only; see loop_internal.h) */
static void read_test_hook(run_state *st)
{
    const char *v = getenv("KFORGE_TEST_DIE_AFTER");
    if (!v || !*v) return;
    const char *colon = strchr(v, ':');
    size_t n = colon ? (size_t)(colon - v) : strlen(v);
    if (n >= sizeof st->die_ev) return;
    memcpy(st->die_ev, v, n);
    st->die_ev[n] = '\0';
    st->die_n = colon ? atoi(colon + 1) : 1;
}

int kf_loop_journal(run_state *st, const char *ev_name, json_object *ev, kf_error *err)
{
    int rc = kf_journal_append(st->j, ev_name, ev, err);
    if (rc == 0 && st->die_ev[0] && !strcmp(st->die_ev, ev_name) && ++st->die_seen == st->die_n)
        kill(getpid(), SIGKILL);
    return rc;
}

/* The agent's memory (see kf_agent_ops.save_state) into a journal event. */
static void add_agent_state(run_state *st, json_object *ev)
{
    if (!st->agent->ops->save_state) return;
    char *s = st->agent->ops->save_state(st->agent);
    json_object *o = s ? json_tokener_parse(s) : NULL;
    free(s);
    if (o) json_object_object_add(ev, "agent_state", o);
}

/* ------------------------------------------------------------------ */
/* progress                                                            */

void kf_loop_progress(run_state *st, const char *pass, const char *status, const char *label,
                      const kf_eval_result *e)
{
    const kf_progress *f = &st->o.progress;
    if (!f->fn) return;
    double best = st->best_eval ? st->best_eval->timing.median_s : 0;
    double speed = (best > 0 && st->baseline_s > 0) ? st->baseline_s / best : 0;
    /* the roofline column belongs to this step's candidate when it was
       timed (beside its time), else to the best so far */
    double frac = e && e->profiled ? e->roofline.fraction : st->best_eval ? st->best_eval->roofline.fraction : 0;
    if (st->o.json_progress) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "step", json_object_new_int(st->step));
        json_object_object_add(o, "pass", json_object_new_string(pass));
        json_object_object_add(o, "status", json_object_new_string(status));
        if (label) json_object_object_add(o, "candidate", json_object_new_string(label));
        if (e && e->profiled) json_object_object_add(o, "time_s", json_object_new_double(e->timing.median_s));
        json_object_object_add(o, "best_s", json_object_new_double(best));
        json_object_object_add(o, "speedup", json_object_new_double(speed));
        json_object_object_add(o, "roofline_fraction", json_object_new_double(frac));
        json_object_object_add(o, "tokens", json_object_new_int64(st->tok_in + st->tok_out));
        json_object_object_add(o, "cost_usd", json_object_new_double(st->cost));
        kf_progressf(f, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
        json_object_put(o);
    } else {
        char t[32] = "-", b[32] = "-", sp[32] = "-";
        if (e && e->profiled) kf_fmt_duration(e->timing.median_s, t, sizeof t);
        if (best > 0) kf_fmt_duration(best, b, sizeof b);
        if (speed > 0) snprintf(sp, sizeof sp, "%.2fx", speed);
        /* on a terminal the status is coloured (green pass, red failure);
           plain lines otherwise, so logs and pipes stay clean */
        int tty = f->color;
        const char *on = "", *off = "";
        if (tty) {
            on = !strcmp(status, "pass") ? "\033[32m" : "\033[31m";
            off = "\033[0m";
        }
        kf_progressf(f, "[%3d] %-12s %s%-14s%s time %-9s best %-9s speedup %-7s roofline %4.0f%%  tokens %ld  $%.4f  %s\n",
                st->step, pass, on, status, off, t, b, sp, frac * 100, st->tok_in + st->tok_out, st->cost,
                label ? label : "");
    }
}

/* ------------------------------------------------------------------ */
/* evaluation of one step's samples                                    */

/* One sample's evaluation.  With several samples a step evaluates them in
 * two passes: compile + verify of all of them in parallel (profile = 0),
 * then, one at a time with nothing else of the run going on, compile +
 * verify + time of each that passed (profile = 1), so that no sample is
 * timed while another one compiles, verifies or is timed.  kf_evaluate()
 * cannot keep a verified worker for a later profile, so the second pass
 * compiles and verifies again (about 1 s per sample at preset cpu). */
typedef struct sample_job {
    run_state *st;
    kf_candidate *cand;
    kf_eval_opts opts;
    kf_eval_result *res;
    int profile;
    int rc;
    kf_error err;
    double t_start, t_end;        /* wall clock of the kf_evaluate() that made res */
    int serial;                   /* res comes from the one-at-a-time profile pass */
    double verify_t0, verify_t1;  /* then: the window of its parallel compile + verify */
} sample_job;

static void *sample_thread(void *arg)
{
    sample_job *job = arg;
    job->res = calloc(1, sizeof *job->res);
    if (!job->res) { job->rc = -1; return NULL; }
    job->t_start = kf_wall_s();
    job->rc = kf_evaluate(job->st->plugin, &job->st->r, job->cand, &job->opts, job->profile, job->res, &job->err);
    job->t_end = kf_wall_s();
    return NULL;
}

uint64_t kf_loop_seed(const run_state *st, int step, int sample)
{
    uint64_t x = st->o.seed ^ ((uint64_t)step * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)(sample + 1) * 0xBF58476D1CE4E5B9ull);
    x ^= x >> 31;
    return x & 0x7fffffffffffull;
}

/* The sampling seed of an agent request: kf_loop_seed() alone without
 * --agent-seed (records of earlier runs replay unchanged), else mixed with
 * the agent seed, so that seeds 1..N sample differently. */
uint64_t kf_loop_agent_seed(const run_state *st, int step, int sample)
{
    uint64_t x = kf_loop_seed(st, step, sample);
    if (!st->o.agent_seed) return x;
    x ^= st->o.agent_seed * 0xD1B54A32D192ED03ull;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    return x & 0x7fffffffffffull;
}

static int record_eval_start(run_state *st, int step, int sample, const char *sdir, kf_error *err)
{
    json_object *ev = json_object_new_object();
    json_object_object_add(ev, "step", json_object_new_int(step));
    json_object_object_add(ev, "sample", json_object_new_int(sample));
    json_object_object_add(ev, "dir", json_object_new_string(kf_loop_rel(st, sdir)));
    int rc = kf_loop_journal(st, "eval-start", ev, err);
    json_object_put(ev);
    return rc;
}

static int to_evaluate(const step_sample *x) { return x->cand && !x->res; }

/* A request kf_evaluate() refused: an internal failure of that sample. */
static kf_eval_result *refused(sample_job *job)
{
    kf_eval_result *r = job->res ? job->res : calloc(1, sizeof *r);
    if (!r) return NULL;
    r->verdict = KF_FAIL_INTERNAL;
    r->failed_trial = -1;
    free(r->summary);
    r->summary = strdup(job->err.msg);
    job->res = NULL;
    return r;
}

/* The one-at-a-time profile pass of a sample verified in the parallel
 * pass: its result replaces the parallel pass's. */
static void profile_alone(sample_job *job)
{
    kf_eval_result *res = calloc(1, sizeof *res);
    kf_error e = {0};
    if (!res) return;
    double t0 = kf_wall_s();
    int rc = kf_evaluate(job->st->plugin, &job->st->r, job->cand, &job->opts, 1, res, &e);
    double t1 = kf_wall_s();
    kf_loop_eval_free(job->res);
    job->verify_t0 = job->t_start;
    job->verify_t1 = job->t_end;
    job->res = res;
    job->rc = rc;
    job->err = e;
    job->t_start = t0;
    job->t_end = t1;
    job->serial = 1;
    job->profile = 1;
}

int kf_loop_evaluate(run_state *st, step_t *sp, kf_error *err)
{
    /* every "eval-start" is on disk before any candidate runs: if one of
       them takes kforge down, a resumed run knows who was running */
    for (int s = 0; s < sp->n; s++) {
        if (!to_evaluate(&sp->s[s])) continue;
        if (record_eval_start(st, sp->step, s, sp->s[s].dir, err) != 0) return -1;
        sp->s[s].started = 1;
    }
    /* one usable sample: compiled, verified and timed in one evaluation.
       Several: compiled and verified in parallel, then each correct one
       profiled alone, in order, so that no two timings share the device */
    sample_job jobs[KF_LOOP_MAX_SAMPLES];
    pthread_t th[KF_LOOP_MAX_SAMPLES];
    int started[KF_LOOP_MAX_SAMPLES] = {0};
    memset(jobs, 0, sizeof jobs);
    int usable = 0;
    for (int s = 0; s < sp->n; s++) usable += to_evaluate(&sp->s[s]) != 0;
    for (int s = 0; s < sp->n; s++) {
        if (!to_evaluate(&sp->s[s])) continue;
        jobs[s].st = st;
        jobs[s].cand = sp->s[s].cand;
        jobs[s].opts = st->o.eval;
        jobs[s].opts.seed = kf_loop_seed(st, sp->step, s);
        jobs[s].profile = usable == 1;
        if (usable > 1 && pthread_create(&th[s], NULL, sample_thread, &jobs[s]) == 0) started[s] = 1;
        else sample_thread(&jobs[s]);
    }
    /* every thread is joined before anything can return: they write into
       jobs[], which lives on this stack */
    for (int s = 0; s < sp->n; s++)
        if (started[s]) pthread_join(th[s], NULL);
    if (usable > 1)
        for (int s = 0; s < sp->n; s++)
            if (to_evaluate(&sp->s[s]) && jobs[s].rc == 0 && jobs[s].res && jobs[s].res->verdict == KF_PASS)
                profile_alone(&jobs[s]);
    int oom = 0;
    for (int s = 0; s < sp->n; s++) {
        if (!to_evaluate(&sp->s[s])) continue;
        step_sample *x = &sp->s[s];
        x->res = jobs[s].rc == 0 ? jobs[s].res : refused(&jobs[s]);
        x->t_start = jobs[s].t_start;
        x->t_end = jobs[s].t_end;
        x->profile = jobs[s].profile;
        x->serial = jobs[s].serial;
        x->verify_t0 = jobs[s].verify_t0;
        x->verify_t1 = jobs[s].verify_t1;
        if (!x->res) oom = 1;
    }
    return oom ? kf_fail(err, KF_E_INTERNAL, "out of memory") : 0;
}

/* ------------------------------------------------------------------ */
/* baseline                                                            */

static int measure_baseline(run_state *st, kf_error *err)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/baseline", st->dir);
    kf_gen_request req = {.kind = KF_GEN_BASELINE, .step = 0, .seed = st->o.seed};
    kf_gen_result g = {0};
    kf_error e = {0};
    if (st->builtin->ops->generate(st->builtin, &st->ctx, &req, &g, &e) != 0 || !g.cand) {
        const char *why = g.error ? g.error : e.msg;
        json_object *ev = json_object_new_object();
        json_object_object_add(ev, "available", json_object_new_boolean(0));
        json_object_object_add(ev, "why", json_object_new_string(why));
        kf_loop_journal(st, "baseline", ev, err);
        json_object_put(ev);
        if (st->o.progress.fn)
            kf_progressf(&st->o.progress, "baseline: not available (%s); speedups will not be reported\n", why);
        kf_gen_result_free(&g);
        return 0;
    }
    char cdir[4200];
    snprintf(cdir, sizeof cdir, "%s/candidate", dir);
    if (kf_candidate_save_private(g.cand, cdir, err) != 0) {
        kf_gen_result_free(&g);
        return -1;
    }
    kf_eval_result res = {0};
    kf_eval_opts eo = st->o.eval;
    eo.seed = kf_loop_seed(st, 0, 0);
    int rc = kf_evaluate(st->plugin, &st->r, g.cand, &eo, 1, &res, &e);
    json_object *ev = json_object_new_object();
    json_object_object_add(ev, "dir", json_object_new_string("baseline/candidate"));
    json_object_object_add(ev, "how", json_object_new_string(g.label ? g.label : "op-by-op"));
    if (rc == 0) {
        kf_run_save_eval(dir, &res, NULL);
        json_object_object_add(ev, "verdict", json_object_new_string(kf_verdict_name(res.verdict)));
        if (res.verdict == KF_PASS && res.profiled) {
            st->baseline_s = res.timing.median_s;
            json_object_object_add(ev, "median_s", json_object_new_double(res.timing.median_s));
        } else {
            json_object_object_add(ev, "why", json_object_new_string(res.summary ? res.summary : ""));
        }
    } else {
        json_object_object_add(ev, "verdict", json_object_new_string("error"));
        json_object_object_add(ev, "why", json_object_new_string(e.msg));
    }
    free(st->baseline_how);
    st->baseline_how = strdup(g.label ? g.label : "op-by-op");
    int jrc = kf_loop_journal(st, "baseline", ev, err);
    json_object_put(ev);
    if (st->o.progress.fn) {
        char t[32];
        if (st->baseline_s > 0)
            kf_progressf(&st->o.progress, "baseline: %s  %s\n", st->baseline_how,
                    kf_fmt_duration(st->baseline_s, t, sizeof t));
        else
            kf_progressf(&st->o.progress, "baseline: %s failed: %s\n", st->baseline_how,
                    rc == 0 && res.summary ? res.summary : e.msg);
    }
    if (rc == 0) kf_eval_result_free(&res);
    kf_gen_result_free(&g);
    return jrc;
}

/* ------------------------------------------------------------------ */
/* the GEMM anchor (anchor.h)                                          */

static int64_t ev_int(json_object *ev, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(ev, key, &v) ? json_object_get_int64(v) : 0;
}

static double ev_num(json_object *ev, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(ev, key, &v) ? json_object_get_double(v) : 0;
}

static char *ev_str(json_object *ev, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(ev, key, &v) && json_object_is_type(v, json_type_string)
               ? strdup(json_object_get_string(v))
               : NULL;
}

/* The run's anchor state from an "anchor" journal event (measured now or
 * replayed on resume). */
void kf_loop_anchor_from_event(run_state *st, json_object *ev)
{
    free(st->anchor_how);
    free(st->anchor_why);
    st->anchor_how = ev_str(ev, "how");
    st->anchor_why = ev_str(ev, "why");
    st->anchor_m = ev_int(ev, "M");
    st->anchor_n = ev_int(ev, "N");
    st->anchor_k = ev_int(ev, "K");
    st->anchor_batch = ev_int(ev, "batch");
    st->anchor_trans_b = (int)ev_int(ev, "trans_b");
    st->anchor_threads = (int)ev_int(ev, "threads");
    st->anchor_runs = (int)ev_int(ev, "runs");
    st->anchor_s = ev_num(ev, "median_s");
    st->anchor_min_s = ev_num(ev, "min_s");
    st->anchor_state = st->anchor_s > 0 ? 1 : -1;
}

static int timing_threads(const kf_eval_result *res)
{
    for (int i = 0; i < res->timing.n_counters; i++)
        if (!strcmp(res->timing.counters[i].name, "threads")) return (int)res->timing.counters[i].value;
    return 0;
}

/* Measures the GEMM anchor right after the baseline, through the same
 * evaluation path: its own problem (the GEMM alone), verified, then timed. */
static int measure_anchor(run_state *st, kf_error *err)
{
    char dir[4096], why[512] = "";
    snprintf(dir, sizeof dir, "%s/baseline/anchor", st->dir);
    kf_gemm_anchor a;
    kf_error e = {0};
    json_object *ev = json_object_new_object();
    json_object_object_add(ev, "label", json_object_new_string(
        "GEMM anchor: standalone library timing of the problem's main GEMM (not a kernel for the problem)"));
    int mk = kf_gemm_anchor_make(&st->r, kf_bt_emitter_of_plugin(st->plugin), st->o.backend, &a, why, sizeof why, &e);
    kf_problem *ap = NULL;
    kf_resolved ar;
    int have_ar = 0;
    if (mk != 0) {
        json_object_object_add(ev, "available", json_object_new_boolean(0));
        json_object_object_add(ev, "why", json_object_new_string(mk < 0 ? e.msg : why));
        goto record;
    }
    json_object_object_add(ev, "available", json_object_new_boolean(1));
    json_object_object_add(ev, "dir", json_object_new_string("baseline/anchor"));
    json_object_object_add(ev, "how", json_object_new_string(a.how));
    json_object_object_add(ev, "M", json_object_new_int64(a.M));
    json_object_object_add(ev, "N", json_object_new_int64(a.N));
    json_object_object_add(ev, "K", json_object_new_int64(a.K));
    json_object_object_add(ev, "batch", json_object_new_int64(a.batch));
    json_object_object_add(ev, "trans_b", json_object_new_int(a.trans_b));
    json_object_object_add(ev, "flops", json_object_new_double(a.flops));
    char cdir[4200], ppath[4200];
    snprintf(cdir, sizeof cdir, "%s/candidate", dir);
    snprintf(ppath, sizeof ppath, "%s/problem.json", dir);
    if (kf_candidate_save(a.cand, cdir, err) != 0 || kf_write_file_atomic(ppath, a.problem_json, err) != 0) {
        json_object_put(ev);
        kf_gemm_anchor_free(&a);
        return -1;
    }
    ap = kf_problem_parse(a.problem_json, "gemm anchor", &e);
    if (!ap || kf_resolve(ap, 0, &ar, &e) != 0) {
        json_object_object_add(ev, "verdict", json_object_new_string("error"));
        json_object_object_add(ev, "why", json_object_new_string(e.msg));
        goto record;
    }
    have_ar = 1;
    kf_eval_result res = {0};
    kf_eval_opts eo = st->o.eval;
    eo.seed = kf_loop_seed(st, 0, 1);
    if (kf_evaluate(st->plugin, &ar, a.cand, &eo, 1, &res, &e) != 0) {
        json_object_object_add(ev, "verdict", json_object_new_string("error"));
        json_object_object_add(ev, "why", json_object_new_string(e.msg));
        goto record;
    }
    kf_run_save_eval(dir, &res, NULL);
    json_object_object_add(ev, "verdict", json_object_new_string(kf_verdict_name(res.verdict)));
    if (res.verdict == KF_PASS && res.profiled) {
        json_object_object_add(ev, "threads", json_object_new_int(timing_threads(&res)));
        json_object_object_add(ev, "runs", json_object_new_int(res.timing.n));
        json_object_object_add(ev, "median_s", json_object_new_double(res.timing.median_s));
        json_object_object_add(ev, "min_s", json_object_new_double(res.timing.min_s));
    } else {
        json_object_object_add(ev, "why", json_object_new_string(res.summary ? res.summary : "not timed"));
    }
    kf_eval_result_free(&res);
record:
    kf_loop_anchor_from_event(st, ev);
    int jrc = kf_journal_append(st->j, "anchor", ev, err);
    json_object_put(ev);
    if (have_ar) kf_resolved_free(&ar);
    kf_problem_free(ap);
    kf_gemm_anchor_free(&a);
    if (st->o.progress.fn && !st->o.json_progress) {
        char t[32];
        if (st->anchor_state > 0) {
            char th[32] = "";   /* a device library (cuBLAS) has no host threads */
            if (st->anchor_threads > 0) snprintf(th, sizeof th, ", %d threads", st->anchor_threads);
            kf_progressf(&st->o.progress, "gemm anchor: %s%s  %s", st->anchor_how, th,
                    kf_fmt_duration(st->anchor_s, t, sizeof t));
            if (st->baseline_s > 0) kf_progressf(&st->o.progress, "  (baseline = %.2fx the anchor)", st->baseline_s / st->anchor_s);
            kf_progressf(&st->o.progress, "\n");
            char *w = kf_anchor_warning(st->baseline_s, st->anchor_s);
            if (w) kf_progressf(&st->o.progress, "warning: %s\n", w);
            free(w);
        } else {
            kf_progressf(&st->o.progress, "gemm anchor: not measured (%s)\n", st->anchor_why ? st->anchor_why : "?");
        }
    }
    return jrc;
}

/* ------------------------------------------------------------------ */
/* one step                                                            */

static const char *phase_name(kf_gen_kind k)
{
    switch (k) {
    case KF_GEN_FIRST: return "functional";
    case KF_GEN_FIX_COMPILE: return "fix-compile";
    case KF_GEN_FIX_MISMATCH: return "fix-mismatch";
    case KF_GEN_OPTIMIZE: return "optimize";
    default: return "baseline";
    }
}

static int record_gen(run_state *st, int sample, kf_gen_kind kind, const char *sdir,
                      const kf_gen_result *g, kf_error *err)
{
    json_object *ev = json_object_new_object();
    json_object_object_add(ev, "step", json_object_new_int(st->step));
    json_object_object_add(ev, "sample", json_object_new_int(sample));
    json_object_object_add(ev, "kind", json_object_new_string(kf_gen_kind_name(kind)));
    json_object_object_add(ev, "dir", json_object_new_string(kf_loop_rel(st, sdir)));
    json_object_object_add(ev, "ok", json_object_new_boolean(g->cand != NULL));
    if (g->error) json_object_object_add(ev, "error", json_object_new_string(g->error));
    if (g->label) json_object_object_add(ev, "label", json_object_new_string(g->label));
    json_object_object_add(ev, "tokens_in", json_object_new_int64(g->io.tokens_in));
    json_object_object_add(ev, "tokens_out", json_object_new_int64(g->io.tokens_out));
    json_object_object_add(ev, "cost_usd", json_object_new_double(g->io.cost_usd));
    json_object_object_add(ev, "from_cache", json_object_new_boolean(g->io.from_cache));
    if (kind == KF_GEN_FIRST && st->ctx.reference) {
        /* which kernel seeded this one (--from) */
        char ref[8400];
        snprintf(ref, sizeof ref, "%s/%s", st->from_run_dir, st->from_best_dir);
        json_object_object_add(ev, "reference", json_object_new_string(ref));
        json_object_object_add(ev, "reference_backend", json_object_new_string(st->from_ref.backend));
    }
    add_agent_state(st, ev);
    int rc = kf_loop_journal(st, "gen", ev, err);
    json_object_put(ev);
    return rc;
}

/* job: the evaluation's wall-clock window and pass, NULL when not known. */
static int record_eval(run_state *st, int sample, const char *sdir, const kf_eval_result *res,
                       const step_sample *job, kf_error *err)
{
    json_object *ev = json_object_new_object();
    json_object_object_add(ev, "step", json_object_new_int(st->step));
    json_object_object_add(ev, "sample", json_object_new_int(sample));
    json_object_object_add(ev, "dir", json_object_new_string(kf_loop_rel(st, sdir)));
    json_object_object_add(ev, "verdict", json_object_new_string(kf_verdict_name(res->verdict)));
    if (res->summary) json_object_object_add(ev, "summary", json_object_new_string(res->summary));
    if (res->profiled) {
        json_object_object_add(ev, "median_s", json_object_new_double(res->timing.median_s));
        json_object_object_add(ev, "roofline_fraction", json_object_new_double(res->roofline.fraction));
        json_object_object_add(ev, "profile_s", json_object_new_double(res->profile_s));
    }
    if (job && job->t_end > 0) {
        /* the whole kf_evaluate() call (compile, verify and, when profiled,
           the timing last): with several samples the profiled windows of a
           step never overlap one another */
        json_object_object_add(ev, "eval_t0", json_object_new_double(job->t_start));
        json_object_object_add(ev, "eval_t1", json_object_new_double(job->t_end));
        json_object_object_add(ev, "pass", json_object_new_string(
            job->serial ? "profiled alone" : job->profile ? "single" : "parallel verify"));
        if (job->serial) {
            json_object_object_add(ev, "verify_t0", json_object_new_double(job->verify_t0));
            json_object_object_add(ev, "verify_t1", json_object_new_double(job->verify_t1));
        }
    }
    int rc = kf_loop_journal(st, "eval", ev, err);
    json_object_put(ev);
    return rc;
}

static int record_best(run_state *st, int sample, const char *sdir, kf_error *err)
{
    json_object *ev = json_object_new_object();
    json_object_object_add(ev, "step", json_object_new_int(st->step));
    json_object_object_add(ev, "sample", json_object_new_int(sample));
    json_object_object_add(ev, "dir", json_object_new_string(kf_loop_rel(st, sdir)));
    json_object_object_add(ev, "median_s", json_object_new_double(st->best_eval->timing.median_s));
    int rc = kf_loop_journal(st, "best", ev, err);
    json_object_put(ev);
    return rc;
}

static void note_pass(run_state *st, const step_sample *x, int fresh)
{
    if (x->res->verdict != KF_PASS || !x->res->profiled) return;
    loop_pass *v = realloc(st->passes, (size_t)(st->n_passes + 1) * sizeof *v);
    if (!v) return;                     /* only a fallback of --resume is lost */
    st->passes = v;
    loop_pass *p = &v[st->n_passes];
    if (!(p->dir = strdup(x->dir))) return;
    p->median_s = x->res->timing.median_s;
    p->min_s = x->res->timing.min_s;
    p->fresh = fresh;
    p->rejected = 0;
    st->n_passes++;
}

int kf_loop_adopt_best(run_state *st, const char *sdir, int fresh, kf_error *err)
{
    char cdir[4200];
    snprintf(cdir, sizeof cdir, "%s/candidate", sdir);
    kf_eval_result *res = calloc(1, sizeof *res);
    if (!res) return kf_fail(err, KF_E_INTERNAL, "out of memory");
    kf_candidate *c = NULL;
    if (kf_run_load_eval(sdir, res, err) != 0 || !(c = kf_candidate_load(cdir, err))) {
        kf_loop_eval_free(res);
        return -1;
    }
    kf_loop_set_best(st, c, res, cdir);
    st->best_recorded = !fresh;
    return 0;
}

/* Considers an evaluated sample for the best; *improved = 1 when it is the
 * new best (then it owns cand and res).  A result read back from the
 * records (fresh = 0) is not journaled again. */
static int absorb(run_state *st, int sample, step_sample *x, int fresh, int *improved, kf_error *err)
{
    const kf_eval_result *res = x->res;
    if (res->verdict != KF_PASS || !res->profiled) return 0;
    if (st->best_eval && res->timing.median_s >= st->best_eval->timing.median_s) return 0;
    char cdir[4200];
    snprintf(cdir, sizeof cdir, "%s/candidate", x->dir);
    kf_loop_set_best(st, x->cand, x->res, cdir);
    st->best_recorded = !fresh;
    x->cand = NULL;
    x->res = NULL;
    *improved = 1;
    return fresh ? record_best(st, sample, x->dir, err) : 0;
}

void kf_loop_step_free(step_t *sp)
{
    for (int s = 0; s < sp->n; s++) {
        kf_candidate_free(sp->s[s].cand);
        kf_loop_eval_free(sp->s[s].res);
        free(sp->s[s].dir);
        free(sp->s[s].label);
    }
    memset(sp->s, 0, sizeof sp->s);
    sp->n = 0;
}

int kf_loop_bad_answer(run_state *st, step_t *sp, int s, const char *why, const char *pass, kf_error *err)
{
    step_sample *x = &sp->s[s];
    kf_eval_result *fake = calloc(1, sizeof *fake);
    if (!fake) return kf_fail(err, KF_E_INTERNAL, "out of memory");
    fake->verdict = KF_FAIL_COMPILE;
    fake->failed_trial = -1;
    fake->summary = strdup("the answer held no usable candidate");
    fake->diagnostics = strdup(why ? why : "no candidate in the answer");
    x->res = fake;
    kf_run_save_eval(x->dir, fake, NULL);
    if (record_eval(st, s, x->dir, fake, NULL, err) != 0) return -1;
    x->recorded = 1;
    if (pass) kf_loop_progress(st, pass, "bad-answer", why, NULL);
    return 0;
}

typedef struct step_outcome {
    int improved, any_pass, first_fail;
} step_outcome;

/* One sample's result into the run (see kf_loop_finish_step). */
static int settle(run_state *st, step_t *sp, int s, const char *pass, step_outcome *out, kf_error *err)
{
    step_sample *x = &sp->s[s];
    if (!x->res) return 0;              /* never evaluated: an abandoned step */
    if (!x->cand) {
        /* an unusable answer: as the step's first sample, what gets repaired */
        if (s == 0) {
            kf_loop_set_last(st, NULL, x->res);
            x->res = NULL;
        }
        return 0;
    }
    int fresh = !x->recorded;
    if (fresh) {
        kf_run_save_eval(x->dir, x->res, NULL);
        if (record_eval(st, s, x->dir, x->res, x, err) != 0) return -1;
        x->recorded = 1;
    }
    kf_verdict v = x->res->verdict;
    if (pass) kf_loop_progress(st, pass, kf_verdict_name(v), x->label, x->res);
    note_pass(st, x, fresh);
    int imp = 0;
    if (absorb(st, s, x, fresh, &imp, err) < 0) return -1;
    if (v == KF_PASS) out->any_pass = 1;
    if (imp) out->improved = 1;
    else if (out->first_fail < 0 && v != KF_PASS) out->first_fail = s;
    return 0;
}

/* Functional repair or optimization next: the phase after a step
 * (loop_decide.c), and what the analysis agent learns from a miss. */
static void update_phase(run_state *st, kf_gen_kind kind, const step_outcome *out)
{
    kf_loop_after_step(&st->ls, kind, out->any_pass, st->best != NULL,
                       st->last_eval && st->last_eval->verdict == KF_PASS, st->o.max_fix);
    if (kind == KF_GEN_OPTIMIZE && !out->improved && st->analysis) {
        /* the analysis agent learns that its recommendation missed */
        st->analysis_base_s = st->best_eval ? st->best_eval->timing.median_s : 0;
    }
}

int kf_loop_finish_step(run_state *st, step_t *sp, const char *pass, kf_error *err)
{
    step_outcome out = {.first_fail = -1};
    st->step = sp->step;
    int rc = 0;
    for (int s = 0; s < sp->n && rc == 0; s++) rc = settle(st, sp, s, pass, &out, err);
    if (rc == 0) {
        /* the sample the next functional pass repairs: the first failure */
        if (!out.any_pass && out.first_fail >= 0) {
            step_sample *x = &sp->s[out.first_fail];
            kf_loop_set_last(st, x->cand, x->res);
            x->cand = NULL;
            x->res = NULL;
        }
        update_phase(st, sp->kind, &out);
    }
    kf_loop_step_free(sp);
    return rc;
}

/* ------------------------------------------------------------------ */
/* one step                                                            */

static int sample_count(const run_state *st, kf_gen_kind kind)
{
    int K = st->o.samples < 1 ? 1 : st->o.samples;
    if (kind == KF_GEN_OPTIMIZE && st->analysis && st->analysis->n_recs > 0 && K > st->analysis->n_recs)
        K = st->analysis->n_recs;
    return K > KF_LOOP_MAX_SAMPLES ? KF_LOOP_MAX_SAMPLES : K;
}

/* Asks the agent for sample s of the step and records what it gave. */
static int generate_one(run_state *st, step_t *sp, int s, kf_error *err)
{
    step_sample *x = &sp->s[s];
    char sdir[4096];
    snprintf(sdir, sizeof sdir, "%s/steps/%04d-%d", st->dir, st->step, s);
    if (kf_mkdir_p_mode(sdir, 0700, err) != 0) return -1;
    if (!(x->dir = strdup(sdir))) return kf_fail(err, KF_E_INTERNAL, "out of memory");
    kf_gen_kind kind = sp->kind;
    kf_gen_request req = {
        .kind = kind, .step = st->step, .sample = s, .seed = kf_loop_agent_seed(st, st->step, s),
        .last = kind == KF_GEN_OPTIMIZE ? st->best : st->last,
        .last_eval = kind == KF_GEN_OPTIMIZE ? st->best_eval : st->last_eval,
        .best = st->best, .best_eval = st->best_eval,
        .analysis = st->analysis, .rec_index = s,
    };
    kf_gen_result g = {0};
    kf_error e = {0};
    st->ctx.run_dir = sdir;
    /* a model may take minutes: say what is being waited for */
    if (st->o.progress.fn && !st->o.json_progress && !strcmp(st->agent->ops->kind, "llm"))
        kf_progressf(&st->o.progress, "[%3d] %-12s asking %s (sample %d) ...\n", st->step, phase_name(kind),
                     st->agent->spec, s);
    if (st->agent->ops->generate(st->agent, &st->ctx, &req, &g, &e) != 0) {
        /* the provider itself failed (after its retries): the run stops here,
           recorded, resumable; the prompt and the failure stay in the step's
           directory (not journaled: a resume asks again) */
        kf_run_save_io(sdir, &g.io, NULL);
        kf_run_save_text(sdir, "error.txt", e.msg, NULL);
        kf_gen_result_free(&g);
        return kf_failc(err, e.kind ? e.kind : KF_E_INTERNAL, e.code, "step %d: the %s agent failed: %s", st->step,
                       st->agent->spec, e.msg);
    }
    st->tok_in += g.io.tokens_in;
    st->tok_out += g.io.tokens_out;
    st->cost += g.io.cost_usd;
    kf_run_save_io(sdir, &g.io, NULL);
    int rc = 0;
    if (g.cand) {
        char cdir[4200], stale[4200];
        snprintf(cdir, sizeof cdir, "%s/candidate", sdir);
        /* a request that failed here before a --resume left its error */
        snprintf(stale, sizeof stale, "%s/error.txt", sdir);
        unlink(stale);
        rc = kf_candidate_save_private(g.cand, cdir, err);
    } else {
        kf_run_save_text(sdir, "error.txt", g.error ? g.error : "no candidate", NULL);
    }
    if (rc == 0) rc = record_gen(st, s, kind, sdir, &g, err);
    if (rc == 0) {
        x->cand = g.cand;
        g.cand = NULL;
        x->label = g.label ? strdup(g.label) : NULL;
        /* an unusable answer: one failed step, fed back */
        if (!x->cand) rc = kf_loop_bad_answer(st, sp, s, g.error, phase_name(kind), err);
    }
    kf_gen_result_free(&g);
    return rc;
}

static int run_step(run_state *st, kf_error *err)
{
    step_t *sp = calloc(1, sizeof *sp);
    if (!sp) return kf_fail(err, KF_E_INTERNAL, "out of memory");
    sp->step = st->step;
    /* an unusable answer (no candidate, an evaluation that says why) is
       fed back as a repair of that answer, not asked for afresh */
    sp->kind = kf_loop_next_kind(&st->ls, st->last_eval != NULL,
                                 st->last_eval ? st->last_eval->verdict : KF_PASS);
    int K = sample_count(st, sp->kind), rc = 0;
    for (int s = 0; s < K && rc == 0; s++) {
        sp->n = s + 1;
        rc = generate_one(st, sp, s, err);
    }
    if (rc == 0) rc = kf_loop_evaluate(st, sp, err);
    if (rc == 0) rc = kf_loop_finish_step(st, sp, phase_name(sp->kind), err);
    kf_loop_step_free(sp);
    free(sp);
    return rc;
}

static void print_analysis(run_state *st, const kf_analysis *a, int recorded)
{
    if (!st->o.progress.fn || st->o.json_progress) return;
    kf_progressf(&st->o.progress, "      analysis%s: %s-bound; %s\n", recorded ? " (recorded before the resume)" : "",
            a->bottleneck ? a->bottleneck : "?", a->n_recs ? a->recs[0].what : "no further recommendation");
    if (a->missed) kf_progressf(&st->o.progress, "      (last recommendation missed: %s)\n", a->missed);
}

static int run_analysis(run_state *st, kf_error *err)
{
    char sdir[4096];
    snprintf(sdir, sizeof sdir, "%s/steps/%04d-analysis", st->dir, st->step);
    if (kf_mkdir_p_mode(sdir, 0700, err) != 0) return -1;
    kf_analyze_request req = {
        .step = st->step, .cand = st->best, .eval = st->best_eval,
        .previous = st->analysis, .previous_time_s = st->analysis_base_s,
    };
    kf_analysis *a = calloc(1, sizeof *a);
    kf_agent_io io = {0};
    kf_error e = {0};
    st->ctx.run_dir = sdir;
    kf_agent *an = st->agent->ops->analyze ? st->agent : st->builtin;
    if (st->o.progress.fn && !st->o.json_progress && !strcmp(an->ops->kind, "llm"))
        kf_progressf(&st->o.progress, "      analysis: asking %s ...\n", an->spec);
    if (an->ops->analyze(an, &st->ctx, &req, a, &io, &e) != 0) {
        free(io.prompt);
        free(io.answer);
        kf_analysis_free(a);
        free(a);
        return kf_failc(err, e.kind ? e.kind : KF_E_INTERNAL, e.code, "step %d: the analysis agent failed: %s", st->step, e.msg);
    }
    st->tok_in += io.tokens_in;
    st->tok_out += io.tokens_out;
    st->cost += io.cost_usd;
    kf_run_save_io(sdir, &io, NULL);
    free(io.prompt);
    free(io.answer);
    char *js = kf_analysis_json(a);
    kf_run_save_text(sdir, "analysis.json", js, NULL);
    json_object *ev = json_tokener_parse(js);
    free(js);
    if (!ev) ev = json_object_new_object();
    json_object_object_add(ev, "step", json_object_new_int(st->step));
    json_object_object_add(ev, "dir", json_object_new_string(kf_loop_rel(st, sdir)));
    add_agent_state(st, ev);
    int rc = kf_loop_journal(st, "analysis", ev, err);
    json_object_put(ev);
    if (st->analysis) { kf_analysis_free(st->analysis); free(st->analysis); }
    st->analysis = a;
    st->analysis_step = st->step;
    st->analysis_base_s = st->best_eval ? st->best_eval->timing.median_s : 0;
    print_analysis(st, a, 0);
    return rc;
}

/* ------------------------------------------------------------------ */
/* setup, resume, finish                                               */

static int open_everything(run_state *st, kf_error *err)
{
    st->p = kf_problem_load(st->o.problem_path, err);
    if (!st->p) return -1;
    if (st->o.precision == KF_PRECISION_FP32) kf_problem_require_fp32(st->p);   /* every evaluation's bound */
    int preset = kf_problem_find_preset(st->p, st->o.preset ? st->o.preset : "small");
    if (preset < 0) {
        if (st->o.preset)
            return kf_fail(err, KF_E_BAD_INPUT, "%s: no preset '%s'", st->o.problem_path, st->o.preset);
        preset = 0;
    }
    if (kf_resolve(st->p, preset, &st->r, err) != 0) return -1;
    st->have_r = 1;
    st->reg = kf_registry_open(1, err);
    if (!st->reg) return -1;
    st->plugin = kf_registry_find(st->reg, st->o.backend);
    if (!st->plugin) {
        char known[1024] = "";
        for (int i = 0; i < st->reg->n_plugins; i++) {
            if (i) strncat(known, ", ", sizeof known - strlen(known) - 1);
            strncat(known, st->reg->plugins[i].name, sizeof known - strlen(known) - 1);
        }
        return kf_fail(err, KF_E_BAD_INPUT, "no backend '%s' (found: %s; see 'kforge backends')", st->o.backend,
                       known[0] ? known : "none");
    }
    if (!st->plugin->probed) kf_plugin_probe(st->plugin);
    if (st->plugin->probe_status != KF_OK)
        return kf_fail(err, KF_E_BAD_INPUT, "backend '%s' is not available here: %s", st->o.backend,
                       st->plugin->probe_why ? st->plugin->probe_why : "probe failed");
    kf_plugin_remeasure_peaks(st->plugin);   /* the roofline's peaks: never a busy machine's low ones for good */
    if (st->o.device < 0 || st->o.device >= st->plugin->n_devices)
        return kf_fail(err, KF_E_BAD_INPUT, "backend '%s' has no device %d (it has %d)", st->o.backend, st->o.device,
                       st->plugin->n_devices);
    st->dev = &st->plugin->devices[st->o.device];
    st->o.eval.device = st->o.device;

    kf_agent_opts ao = {.record_path = st->o.record_path, .cache_dir = st->o.cache_dir,
                        .max_tokens = st->o.max_tokens, .has_temperature = st->o.has_temperature,
                        .temperature = st->o.temperature, .context_tokens = st->o.context_tokens,
                        .request_timeout_s = st->o.request_timeout_s};
    if (!st->o.json_progress) ao.progress = st->o.progress;
    /* the built-in agent also makes the baseline: the agent itself when the
       spec names it ("builtin", "builtin:POINT"), else one of its own */
    st->agent = kf_agent_open(st->o.agent, &ao, err);
    if (!st->agent) return -1;
    if (!strcmp(st->agent->ops->kind, "builtin")) {
        st->builtin = st->agent;
    } else {
        st->builtin = kf_builtin_agent_open(NULL, err);
        if (!st->builtin) return -1;
    }
    st->ctx.r = &st->r;
    st->ctx.backend = st->o.backend;
    st->ctx.backend_language = st->plugin->be->language;
    st->ctx.plugin = st->plugin;
    st->ctx.device = st->dev;
    st->ctx.prompts_dir = st->o.prompts_dir;
    st->ctx.target_fraction = st->o.target_fraction;
    st->ctx.agent_seed = st->o.agent_seed;
    st->ctx.precision = st->o.precision;
    if (st->o.from_dir) {
        kf_error fe = {0};
        if (kf_loop_from_load(st, st->o.from_dir, &fe) != 0) {
            /* a resumed run goes on without it: its record names it already */
            if (!st->o.resume_dir) { *err = fe; return -1; }
            if (st->o.progress.fn && !st->o.json_progress)
                kf_progressf(&st->o.progress, "warning: %s; going on without the reference\n", fe.msg);
        }
    }
    /* a missing or broken template is the setup's: said now, before the
       baseline is measured, not at the first step */
    return kf_agent_check(st->agent, &st->ctx, err);
}

/* Rebuilds the loop state from the journal; returns 0 or -1. */
static int write_run_json(run_state *st, kf_error *err)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "problem", json_object_new_string("problem.json"));
    json_object_object_add(o, "problem_source", json_object_new_string(st->o.problem_path));
    json_object_object_add(o, "preset", json_object_new_string(st->p->preset_names[st->r.preset]));
    json_object_object_add(o, "backend", json_object_new_string(st->o.backend));
    json_object_object_add(o, "device", json_object_new_int(st->o.device));
    json_object_object_add(o, "agent", json_object_new_string(st->o.agent ? st->o.agent : "builtin"));
    json_object_object_add(o, "samples", json_object_new_int(st->o.samples));
    json_object_object_add(o, "max_iterations", json_object_new_int(st->o.max_iterations));
    json_object_object_add(o, "max_time_s", json_object_new_double(st->o.max_time_s));
    json_object_object_add(o, "max_cost_usd", json_object_new_double(st->o.max_cost_usd));
    json_object_object_add(o, "target_fraction", json_object_new_double(st->o.target_fraction));
    json_object_object_add(o, "baseline", json_object_new_boolean(st->o.baseline));
    json_object_object_add(o, "confirm_rounds", json_object_new_int(st->o.confirm_rounds));
    json_object_object_add(o, "seed", json_object_new_int64((int64_t)st->o.seed));
    json_object_object_add(o, "agent_seed", json_object_new_int64((int64_t)st->o.agent_seed));
    json_object_object_add(o, "precision", json_object_new_string(kf_precision_policy_name(st->o.precision)));
    json_object *from = kf_loop_from_json(st);
    if (from) json_object_object_add(o, "from", from);
    if (st->o.prompts_dir) {
        char *abs = realpath(st->o.prompts_dir, NULL);
        json_object_object_add(o, "prompts", json_object_new_string(abs ? abs : st->o.prompts_dir));
        free(abs);
    }
    if (st->o.max_tokens > 0) json_object_object_add(o, "max_tokens", json_object_new_int(st->o.max_tokens));
    if (st->o.has_temperature) json_object_object_add(o, "temperature", json_object_new_double(st->o.temperature));
    if (st->o.context_tokens > 0) json_object_object_add(o, "context_tokens", json_object_new_int(st->o.context_tokens));
    if (st->o.request_timeout_s > 0)
        json_object_object_add(o, "request_timeout_s", json_object_new_double(st->o.request_timeout_s));
    json_object_object_add(o, "trials", json_object_new_int(st->o.eval.trials));
    json_object_object_add(o, "reps", json_object_new_int(st->o.eval.reps));
    char path[4096];
    snprintf(path, sizeof path, "%s/run.json", st->dir);
    int rc = kf_write_file_atomic_mode(path, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY), 0600, err);
    json_object_put(o);
    return rc;
}

static char *dup_json_str(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) ? strdup(json_object_get_string(v)) : NULL;
}

/* Loads run.json of a run being resumed into st->o (budgets from the CLI
 * override the recorded ones when given). */
static int load_run_json(run_state *st, const kf_run_opts *cli, kf_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/run.json", st->dir);
    char *text = kf_read_file(path, err);
    if (!text) return -1;
    json_object *o = json_tokener_parse(text);
    free(text);
    if (!o) return kf_fail(err, KF_E_BAD_INPUT, "%s: not valid JSON; cannot resume", path);
    json_object *v;
    for (int i = 0; i < 4; i++) free(st->recorded[i]);
    st->recorded[0] = dup_json_str(o, "backend");
    st->recorded[1] = dup_json_str(o, "agent");
    st->recorded[2] = dup_json_str(o, "preset");
    st->recorded[3] = dup_json_str(o, "prompts");
    /* the templates, the answer length, the temperature and the context of
       the interrupted run, unless given again */
    if (!cli->prompts_dir || (getenv("KFORGE_PROMPTS") && !strcmp(cli->prompts_dir, getenv("KFORGE_PROMPTS"))))
        if (st->recorded[3]) st->o.prompts_dir = st->recorded[3];
    if (json_object_object_get_ex(o, "max_tokens", &v) && cli->max_tokens <= 0) st->o.max_tokens = json_object_get_int(v);
    if (json_object_object_get_ex(o, "temperature", &v) && !cli->has_temperature) {
        st->o.has_temperature = 1;
        st->o.temperature = json_object_get_double(v);
    }
    if (json_object_object_get_ex(o, "context_tokens", &v) && cli->context_tokens <= 0)
        st->o.context_tokens = json_object_get_int(v);
    if (json_object_object_get_ex(o, "request_timeout_s", &v) && cli->request_timeout_s <= 0)
        st->o.request_timeout_s = json_object_get_double(v);
    st->o.backend = st->recorded[0];
    st->o.agent = st->recorded[1];
    st->o.preset = st->recorded[2];
    if (json_object_object_get_ex(o, "device", &v)) st->o.device = json_object_get_int(v);
    if (json_object_object_get_ex(o, "samples", &v)) st->o.samples = json_object_get_int(v);
    if (json_object_object_get_ex(o, "seed", &v)) st->o.seed = (uint64_t)json_object_get_int64(v);
    if (json_object_object_get_ex(o, "agent_seed", &v)) st->o.agent_seed = (uint64_t)json_object_get_int64(v);
    /* runs recorded before --precision existed: "any" */
    st->o.precision = KF_PRECISION_ANY;
    if (json_object_object_get_ex(o, "precision", &v) &&
        kf_precision_policy_parse(json_object_get_string(v), &st->o.precision) != 0) {
        kf_fail(err, KF_E_BAD_INPUT, "%s: precision '%s' is neither any nor fp32; cannot resume", path,
                json_object_get_string(v));
        json_object_put(o);
        return -1;
    }
    json_object *from;
    free(st->from_recorded);
    st->from_recorded = json_object_object_get_ex(o, "from", &from) ? dup_json_str(from, "run_dir") : NULL;
    st->o.from_dir = st->from_recorded;
    if (json_object_object_get_ex(o, "target_fraction", &v)) st->o.target_fraction = json_object_get_double(v);
    if (json_object_object_get_ex(o, "baseline", &v)) st->o.baseline = json_object_get_boolean(v);
    if (cli->confirm_rounds < 0)   /* not given again: the run's own (runs before it: the default) */
        st->o.confirm_rounds = json_object_object_get_ex(o, "confirm_rounds", &v) ? json_object_get_int(v) : KF_CONFIRM_ROUNDS;
    if (json_object_object_get_ex(o, "max_iterations", &v) && !cli->max_iterations)
        st->o.max_iterations = json_object_get_int(v);
    if (json_object_object_get_ex(o, "max_time_s", &v) && cli->max_time_s <= 0)
        st->o.max_time_s = json_object_get_double(v);
    if (json_object_object_get_ex(o, "max_cost_usd", &v) && cli->max_cost_usd <= 0)
        st->o.max_cost_usd = json_object_get_double(v);
    json_object_put(o);
    free(st->problem_copy);
    if (asprintf(&st->problem_copy, "%s/problem.json", st->dir) < 0) return kf_fail(err, KF_E_INTERNAL, "out of memory");
    st->o.problem_path = st->problem_copy;
    if (!st->o.backend) return kf_fail(err, KF_E_BAD_INPUT, "%s: no backend recorded; cannot resume", path);
    return 0;
}

/* result.json baseline.gemm_anchor */
static json_object *anchor_json(const run_state *st)
{
    json_object *a = json_object_new_object();
    json_object_object_add(a, "label", json_object_new_string(
        "GEMM anchor: standalone library timing of the problem's main GEMM (not a kernel for the problem)"));
    json_object_object_add(a, "available", json_object_new_boolean(st->anchor_state > 0));
    if (st->anchor_how) json_object_object_add(a, "how", json_object_new_string(st->anchor_how));
    if (st->anchor_m > 0) {
        json_object_object_add(a, "dir", json_object_new_string("baseline/anchor"));
        json_object_object_add(a, "M", json_object_new_int64(st->anchor_m));
        json_object_object_add(a, "N", json_object_new_int64(st->anchor_n));
        json_object_object_add(a, "K", json_object_new_int64(st->anchor_k));
        json_object_object_add(a, "batch", json_object_new_int64(st->anchor_batch));
        json_object_object_add(a, "trans_b", json_object_new_boolean(st->anchor_trans_b));
    }
    if (st->anchor_state > 0) {
        json_object_object_add(a, "threads", json_object_new_int(st->anchor_threads));
        json_object_object_add(a, "runs", json_object_new_int(st->anchor_runs));
        json_object_object_add(a, "median_s", json_object_new_double(st->anchor_s));
        json_object_object_add(a, "min_s", json_object_new_double(st->anchor_min_s));
        /* the anchor was timed right after the baseline, at the run's start:
           compared with the baseline's time from then */
        double bs = st->baseline_start_s > 0 ? st->baseline_start_s : st->baseline_s;
        if (bs > 0) {
            json_object_object_add(a, "baseline_over_anchor", json_object_new_double(bs / st->anchor_s));
            char *w = kf_anchor_warning(bs, st->anchor_s);
            if (w) json_object_object_add(a, "warning", json_object_new_string(w));
            free(w);
        }
    } else if (st->anchor_why) {
        json_object_object_add(a, "why", json_object_new_string(st->anchor_why));
    }
    return a;
}

static int write_result(run_state *st, const char *reason, kf_run_summary *out, kf_error *err)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "problem", json_object_new_string(st->p->name));
    json_object_object_add(o, "preset", json_object_new_string(st->p->preset_names[st->r.preset]));
    json_object_object_add(o, "backend", json_object_new_string(st->o.backend));
    /* what the backend's candidates are (kforge export keys on these, not
       on the backend's name): its language and capability bits */
    const kf_backend *be = st->plugin ? st->plugin->be : NULL;
    json_object_object_add(o, "backend_language", be && be->language ? json_object_new_string(be->language) : NULL);
    json_object *caps = be ? json_object_new_array() : NULL;   /* null: unknown, export looks at the candidate */
    if (be && (be->caps & KF_CAP_HOST_ENTRY)) json_object_array_add(caps, json_object_new_string("host-entry"));
    if (be && (be->caps & KF_CAP_KERNEL_PLAN)) json_object_array_add(caps, json_object_new_string("kernel-plan"));
    if (be && (be->caps & KF_CAP_HOST_MEMORY)) json_object_array_add(caps, json_object_new_string("host-memory"));
    json_object_object_add(o, "backend_caps", caps);
    json_object_object_add(o, "device", json_object_new_string(st->dev->name));
    json_object_object_add(o, "agent", json_object_new_string(st->agent->spec));
    json_object_object_add(o, "steps", json_object_new_int(st->step));
    json_object_object_add(o, "stop_reason", json_object_new_string(reason));
    json_object_object_add(o, "tokens_in", json_object_new_int64(st->tok_in));
    json_object_object_add(o, "tokens_out", json_object_new_int64(st->tok_out));
    json_object_object_add(o, "cost_usd", json_object_new_double(st->cost));
    json_object_object_add(o, "wall_s", json_object_new_double(elapsed(st)));
    if (st->o.agent_seed) json_object_object_add(o, "agent_seed", json_object_new_int64((int64_t)st->o.agent_seed));
    json_object_object_add(o, "precision", json_object_new_string(kf_precision_policy_name(st->o.precision)));
    if (st->o.precision == KF_PRECISION_FP32)
        json_object_object_add(o, "rel_l2_bound", json_object_new_double(st->p->rel_l2));
    json_object *from = kf_loop_from_json(st);
    if (from) json_object_object_add(o, "from", from);
    json_object *bl = json_object_new_object();
    json_object_object_add(bl, "how", json_object_new_string(st->baseline_how ? st->baseline_how : "not measured"));
    json_object_object_add(bl, "dir", json_object_new_string("baseline"));
    if (st->baseline_s > 0) json_object_object_add(bl, "median_s", json_object_new_double(st->baseline_s));
    if (st->baseline_start_s > 0) {   /* median_s is the final re-timing's (loop_confirm.c) */
        json_object_object_add(bl, "start_median_s", json_object_new_double(st->baseline_start_s));
        json_object_object_add(bl, "confirm_rounds", json_object_new_int(st->baseline_rounds));
    }
    if (st->anchor_state != 0) json_object_object_add(bl, "gemm_anchor", anchor_json(st));
    json_object_object_add(o, "baseline", bl);
    double speed = 0;
    int same = 0;
    char *warning = NULL;   /* the best timed in a slow stretch (timing_warning.h) */
    if (st->best_eval) {
        int from_step;
        double fastest = kf_timing_fastest_seen(st->best_eval->timing.min_s,
                                                st->confirm_rounds_done > 0 ? st->confirm_step_s : 0, &from_step);
        warning = kf_timing_warning(st->best_eval->timing.median_s, fastest, from_step);
        json_object *b = json_object_new_object();
        json_object_object_add(b, "dir", json_object_new_string(kf_loop_rel(st, st->best_dir)));
        json_object_object_add(b, "verified", json_object_new_boolean(1));
        json_object_object_add(b, "verdict", json_object_new_string(kf_verdict_name(st->best_eval->verdict)));
        json_object_object_add(b, "trials", json_object_new_int(st->best_eval->trials_run));
        json_object_object_add(b, "median_s", json_object_new_double(st->best_eval->timing.median_s));
        json_object_object_add(b, "min_s", json_object_new_double(st->best_eval->timing.min_s));
        if (st->baseline_s > 0) {
            /* the baseline's own code (kf_candidate_same_code): speedup 1, the two times'
               ratio kept beside it as what the machine's spread gave */
            double measured = st->baseline_s / st->best_eval->timing.median_s;
            char bdir[4200];
            snprintf(bdir, sizeof bdir, "%s/baseline/candidate", st->dir);
            same = st->best_dir && kf_candidate_same_code(st->best_dir, bdir);
            speed = same ? 1.0 : measured;
            json_object_object_add(b, "speedup_vs_baseline", json_object_new_double(speed));
            if (same) {
                json_object_object_add(b, "same_code_as_baseline", json_object_new_boolean(1));
                json_object_object_add(b, "speedup_measured", json_object_new_double(measured));
            }
        }
        json_object_object_add(b, "roofline_fraction", json_object_new_double(st->best_eval->roofline.fraction));
        json_object_object_add(b, "roofline_floor_s", json_object_new_double(st->best_eval->roofline.floor_s));
        if (st->confirm_rounds_done > 0) {   /* median_s is the final re-timing's (loop_confirm.c) */
            json_object *cf = json_object_new_object();
            json_object_object_add(cf, "rounds", json_object_new_int(st->confirm_rounds_done));
            json_object_object_add(cf, "finalists", json_object_new_int(st->confirm_finalists));
            json_object_object_add(cf, "step_median_s", json_object_new_double(st->confirm_step_s));
            if (st->confirm_replaced)
                json_object_object_add(cf, "replaced", json_object_new_string(st->confirm_replaced));
            json_object_object_add(b, "confirmed", cf);
        }
        if (warning) json_object_object_add(b, "timing_warning", json_object_new_string(warning));
        json_object_object_add(o, "best", b);
    } else {
        json_object_object_add(o, "best", NULL);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/result.json", st->dir);
    int rc = kf_write_file_atomic_mode(path, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY), 0600, err);
    json_object_put(o);
    json_object *ev = json_object_new_object();
    json_object_object_add(ev, "reason", json_object_new_string(reason));
    kf_loop_journal(st, "done", ev, NULL);
    json_object_put(ev);
    if (out) {
        out->run_dir = strdup(st->dir);
        out->have_best = st->best_eval != NULL;
        out->best_dir = st->best_dir ? strdup(st->best_dir) : NULL;
        out->best_s = st->best_eval ? st->best_eval->timing.median_s : 0;
        out->baseline_s = st->baseline_s;
        out->anchor_s = st->anchor_s;
        out->speedup = speed;
        out->same_code_as_baseline = same;
        out->timing_warning = warning;
        warning = NULL;
        out->fraction = st->best_eval ? st->best_eval->roofline.fraction : 0;
        out->steps = st->step;
        out->tokens_in = st->tok_in;
        out->tokens_out = st->tok_out;
        out->cost_usd = st->cost;
        out->stop_reason = strdup(reason);
    }
    free(warning);
    return rc;
}

static void cleanup(run_state *st)
{
    if (st->last != st->best) kf_candidate_free(st->last);
    if (st->last_eval != st->best_eval) kf_loop_eval_free(st->last_eval);
    kf_candidate_free(st->best);
    kf_loop_eval_free(st->best_eval);
    free(st->best_dir);
    free(st->confirm_replaced);
    for (int i = 0; i < st->n_passes; i++) free(st->passes[i].dir);
    free(st->passes);
    if (st->analysis) { kf_analysis_free(st->analysis); free(st->analysis); }
    if (st->agent && st->agent != st->builtin) kf_agent_close(st->agent);
    if (st->builtin) kf_agent_close(st->builtin);
    kf_journal_close(st->j);
    if (st->have_r) kf_resolved_free(&st->r);
    kf_problem_free(st->p);
    kf_registry_close(st->reg);
    free(st->baseline_how);
    free(st->anchor_how);
    free(st->anchor_why);
    free(st->problem_copy);
    for (int i = 0; i < 4; i++) free(st->recorded[i]);
    kf_loop_from_free(st);
    free(st->from_recorded);
    free(st->dir);
}

static char *default_run_dir(const kf_run_opts *o, kf_error *err)
{
    kf_error e = {0};
    kf_problem *p = kf_problem_load(o->problem_path, &e);
    if (!p) {
        kf_fail(err, KF_E_BAD_INPUT, "%s", e.msg);
        return NULL;
    }
    char stamp[32];
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    char *d = NULL;
    if (asprintf(&d, "runs/%s-%s-%s-%s", p->name, o->preset ? o->preset : "small", o->backend, stamp) < 0)
        d = NULL;
    kf_problem_free(p);
    return d;
}


/* A new run's directory: owner-only when kforge creates it, the problem
 * and the settings copied in. */
static int create_run_dir(run_state *st, const kf_run_opts *cli, kf_error *err)
{
    if (kf_mkdir_p_mode(st->dir, 0700, err) != 0) return -1;
    char *ptext = kf_read_file(cli->problem_path, err);
    if (!ptext) return -1;
    char pp[4200];
    snprintf(pp, sizeof pp, "%s/problem.json", st->dir);
    int rc = kf_write_file_atomic_mode(pp, ptext, 0600, err);
    free(ptext);
    return rc != 0 ? -1 : write_run_json(st, err);
}

static int refuse_existing_run(const run_state *st, kf_error *err)
{
    char jpath[4200];
    struct stat sb;
    snprintf(jpath, sizeof jpath, "%s/journal.jsonl", st->dir);
    if (stat(jpath, &sb) != 0) return 0;
    return kf_fail(err, KF_E_BAD_INPUT, "%s already holds a run: use --resume %s to continue it, or choose another --out",
                   st->dir, st->dir);
}

static void journal_start(run_state *st)
{
    json_object *ev = json_object_new_object();
    json_object_object_add(ev, "problem", json_object_new_string(st->p->name));
    json_object_object_add(ev, "backend", json_object_new_string(st->o.backend));
    json_object_object_add(ev, "agent", json_object_new_string(st->agent->spec));
    if (st->o.agent_seed) json_object_object_add(ev, "agent_seed", json_object_new_int64((int64_t)st->o.agent_seed));
    json_object *from = kf_loop_from_json(st);
    if (from) json_object_object_add(ev, "from", from);
    kf_loop_journal(st, "start", ev, NULL);
    json_object_put(ev);
    if (st->o.progress.fn && !st->o.json_progress)
        kf_progressf(&st->o.progress, "run %s: %s (%s) on %s/%s [%s], agent %s\n", st->dir, st->p->name,
                st->p->preset_names[st->r.preset], st->o.backend, st->dev->name, st->dev->kind,
                st->agent->spec);
    if (st->from_cand && st->o.progress.fn && !st->o.json_progress)
        kf_progressf(&st->o.progress, "reference (--from): %s/%s, the best of %s on %s (step %d)\n",
                     st->from_run_dir, st->from_best_dir, st->from_ref.agent, st->from_ref.backend, st->from_best_step);
}

/* Everything up to the first new step: the run directory, the journal,
 * the state of a resumed run, the baseline.  Returns 0 or -1. */
static int prepare(run_state *st, const kf_run_opts *cli, kf_error *err)
{
    json_object *events = NULL;
    int resuming = cli->resume_dir != NULL;
    if (resuming) {
        st->dir = strdup(cli->resume_dir);
        if (load_run_json(st, cli, err) != 0) return -1;
        if (!(events = kf_journal_read(st->dir, err))) return -1;
    } else {
        if (!cli->problem_path || !cli->backend)
            return kf_fail(err, KF_E_BAD_INPUT, "kforge run needs a problem file and --backend");
        st->dir = cli->out_dir ? strdup(cli->out_dir) : default_run_dir(cli, err);
        if (!st->dir || refuse_existing_run(st, err) != 0) return -1;
    }
    int rc = open_everything(st, err);
    if (rc == 0 && !resuming) rc = create_run_dir(st, cli, err);
    if (rc == 0 && !(st->j = kf_journal_open(st->dir, err))) rc = -1;
    if (rc == 0) {
        if (resuming) rc = kf_loop_resume(st, events, err);
        else journal_start(st);
    }
    json_object_put(events);
    if (rc == 0 && st->o.baseline && !st->have_baseline) rc = measure_baseline(st, err);
    if (rc == 0 && st->o.baseline && !st->have_anchor) rc = measure_anchor(st, err);
    return rc;
}

/* The next analysis, unless the journal already holds the one for this
 * step (a run stopped right after it). */
static int analyse(run_state *st, kf_error *err)
{
    if (st->analysis && st->analysis_step == st->step) {
        print_analysis(st, st->analysis, 1);
        return 0;
    }
    return run_analysis(st, err);
}

int kf_run(const kf_run_opts *cli, kf_run_summary *out, kf_error *err)
{
    run_state st;
    memset(&st, 0, sizeof st);
    st.o = *cli;
    st.t0 = kf_now_s();
    st.analysis_step = -1;
    read_test_hook(&st);
    if (prepare(&st, cli, err) != 0) {
        cleanup(&st);
        return -1;
    }

    const char *reason = "iteration budget spent";
    int rc = 0;
    /* no request of an LLM agent outlives the time budget */
    if (st.o.max_time_s > 0) st.ctx.deadline = st.t0 + (st.o.max_time_s - st.elapsed_before);
    st.ctx.baseline_s = st.baseline_s;
    while (1) {
        const char *stop = kf_loop_stop_reason(&st.ls, &st.o, st.step, elapsed(&st), st.cost, st.best_eval);
        if (stop) { reason = stop; break; }
        if (st.ls.phase == PHASE_OPTIMIZE && st.ls.fixes == 0) {
            if (analyse(&st, err) != 0) { rc = -1; reason = "agent failed"; break; }
            if (st.analysis->stop || st.analysis->n_recs == 0) {
                reason = "the analysis agent has nothing left to try";
                break;
            }
        }
        st.step++;
        if (run_step(&st, err) != 0) { rc = -1; reason = "agent failed"; break; }
        json_object *ev = json_object_new_object();
        json_object_object_add(ev, "seconds", json_object_new_double(elapsed(&st)));
        kf_loop_journal(&st, "elapsed", ev, NULL);
        json_object_put(ev);
    }
    if (rc == 0 && st.best) {
        kf_error cerr = {0};
        if (kf_loop_confirm(&st, &cerr) != 0 && st.o.progress.fn)
            kf_progressf(&st.o.progress, "confirm: %s; the search's best stands\n", cerr.msg);
        if (!st.best) reason = "every finalist failed its re-evaluation";
    }
    if (rc != 0 && st.o.progress.fn) {
        const char *pd = st.o.prompts_dir && (!getenv("KFORGE_PROMPTS") || strcmp(st.o.prompts_dir, getenv("KFORGE_PROMPTS")))
                             ? st.o.prompts_dir : NULL;
        kf_progressf(&st.o.progress, "stopped: %s%s (resume with: kforge run --resume %s%s%s)\n",
                     kf_llm_error_is_outage(err->code) ? "the model server is unavailable: " : "", err->msg, st.dir,
                     pd ? " --prompts " : "", pd ? pd : "");
    }
    kf_error werr = {0};
    if (write_result(&st, rc ? err->msg : reason, out, &werr) != 0 && rc == 0) {
        *err = werr;
        rc = -1;
    }
    cleanup(&st);
    return rc;
}
