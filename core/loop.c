/* loop.c — the refinement loop behind `kforge run` (see loop.h). */
#include "loop.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "anchor.h"
#include "candidate.h"
#include "journal.h"
#include "problem.h"
#include "registry.h"
#include "run_record.h"

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
    kf_eval_opts_default(&o->eval);
}

void kf_run_summary_free(kf_run_summary *s)
{
    if (!s) return;
    free(s->run_dir);
    free(s->best_dir);
    free(s->stop_reason);
    memset(s, 0, sizeof *s);
}

typedef enum { PHASE_FUNCTIONAL = 0, PHASE_OPTIMIZE = 1 } phase_t;

typedef struct run_state {
    kf_run_opts o;                /* effective options (resume: from run.json) */
    char *dir;
    char *problem_copy;
    char *recorded[3];            /* backend, agent, preset read from run.json (resume) */
    kf_problem *p;
    kf_resolved r;
    int have_r;
    kf_registry *reg;
    kf_plugin *plugin;
    const kf_device_info *dev;
    kf_agent *agent;
    kf_agent *builtin;
    kf_agent_ctx ctx;
    kf_journal *j;

    int step;
    phase_t phase;
    int fixes;                    /* repairs of the current optimization variant */
    kf_candidate *last;
    kf_eval_result *last_eval;
    kf_candidate *best;
    kf_eval_result *best_eval;
    char *best_dir;
    kf_analysis *analysis;
    double analysis_base_s;
    double baseline_s;
    char *baseline_how;
    /* the GEMM anchor (anchor.h), measured right after the baseline */
    int anchor_state;             /* 0 not measured, 1 measured, -1 not available / failed */
    double anchor_s, anchor_min_s;
    int anchor_runs, anchor_threads, anchor_trans_b;
    int64_t anchor_m, anchor_n, anchor_k, anchor_batch;
    char *anchor_how;             /* what was timed */
    char *anchor_why;             /* why there is no anchor time */
    long tok_in, tok_out;
    double cost;
    double elapsed_before;        /* seconds spent before a resume */
    double t0;
} run_state;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double elapsed(const run_state *st) { return st->elapsed_before + (now_s() - st->t0); }

static void eval_free(kf_eval_result *e)
{
    if (!e) return;
    kf_eval_result_free(e);
    free(e);
}

static void set_last(run_state *st, kf_candidate *c, kf_eval_result *e)
{
    if (st->last != st->best) kf_candidate_free(st->last);
    if (st->last_eval != st->best_eval) eval_free(st->last_eval);
    st->last = c;
    st->last_eval = e;
}

static void set_best(run_state *st, kf_candidate *c, kf_eval_result *e, const char *dir)
{
    kf_candidate *old_c = st->best;
    kf_eval_result *old_e = st->best_eval;
    st->best = c;
    st->best_eval = e;
    if (old_c && old_c != st->last) kf_candidate_free(old_c);
    if (old_e && old_e != st->last_eval) eval_free(old_e);
    free(st->best_dir);
    st->best_dir = strdup(dir);
}

/* ------------------------------------------------------------------ */
/* progress                                                            */

static void progress(run_state *st, const char *pass, const char *status, const char *label,
                     const kf_eval_result *e)
{
    FILE *f = st->o.progress;
    if (!f) return;
    double best = st->best_eval ? st->best_eval->timing.median_s : 0;
    double speed = (best > 0 && st->baseline_s > 0) ? st->baseline_s / best : 0;
    double frac = st->best_eval ? st->best_eval->roofline.fraction : 0;
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
        fprintf(f, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
        json_object_put(o);
    } else {
        char t[32] = "-", b[32] = "-", sp[32] = "-";
        if (e && e->profiled) kf_run_fmt_time(e->timing.median_s, t, sizeof t);
        if (best > 0) kf_run_fmt_time(best, b, sizeof b);
        if (speed > 0) snprintf(sp, sizeof sp, "%.2fx", speed);
        /* on a terminal the status is coloured (green pass, red failure);
           plain lines otherwise, so logs and pipes stay clean */
        int tty = isatty(fileno(f));
        const char *on = "", *off = "";
        if (tty) {
            on = !strcmp(status, "pass") ? "\033[32m" : "\033[31m";
            off = "\033[0m";
        }
        fprintf(f, "[%3d] %-12s %s%-14s%s time %-9s best %-9s speedup %-7s roofline %4.0f%%  tokens %ld  $%.4f  %s\n",
                st->step, pass, on, status, off, t, b, sp, frac * 100, st->tok_in + st->tok_out, st->cost,
                label ? label : "");
    }
    fflush(f);
}

/* ------------------------------------------------------------------ */
/* evaluation of one step's samples                                    */

/* Wall-clock time (CLOCK_REALTIME), recorded with every evaluation so the
 * journal shows when each one ran. */
static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

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
    job->t_start = wall_s();
    job->rc = kf_evaluate(job->st->plugin, &job->st->r, job->cand, &job->opts, job->profile, job->res, &job->err);
    job->t_end = wall_s();
    return NULL;
}

/* The one-at-a-time profile pass of a sample verified in the parallel
 * pass: its result replaces the parallel pass's. */
static void profile_alone(sample_job *job)
{
    kf_eval_result *res = calloc(1, sizeof *res);
    kf_error e = {0};
    if (!res) return;
    double t0 = wall_s();
    int rc = kf_evaluate(job->st->plugin, &job->st->r, job->cand, &job->opts, 1, res, &e);
    double t1 = wall_s();
    eval_free(job->res);
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

static uint64_t step_seed(const run_state *st, int step, int sample)
{
    uint64_t x = st->o.seed ^ ((uint64_t)step * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)(sample + 1) * 0xBF58476D1CE4E5B9ull);
    x ^= x >> 31;
    return x & 0x7fffffffffffull;
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
        kf_journal_append(st->j, "baseline", ev, err);
        json_object_put(ev);
        if (st->o.progress)
            fprintf(st->o.progress, "baseline: not available (%s); speedups will not be reported\n", why);
        kf_gen_result_free(&g);
        return 0;
    }
    char cdir[4200];
    snprintf(cdir, sizeof cdir, "%s/candidate", dir);
    if (kf_candidate_save(g.cand, cdir, err) != 0) {
        kf_gen_result_free(&g);
        return -1;
    }
    kf_eval_result res = {0};
    kf_eval_opts eo = st->o.eval;
    eo.seed = step_seed(st, 0, 0);
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
    int jrc = kf_journal_append(st->j, "baseline", ev, err);
    json_object_put(ev);
    if (st->o.progress) {
        char t[32];
        if (st->baseline_s > 0)
            fprintf(st->o.progress, "baseline: %s  %s\n", st->baseline_how,
                    kf_run_fmt_time(st->baseline_s, t, sizeof t));
        else
            fprintf(st->o.progress, "baseline: %s failed: %s\n", st->baseline_how,
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
static void anchor_from_event(run_state *st, json_object *ev)
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
    int mk = kf_gemm_anchor_make(&st->r, st->o.backend, &a, why, sizeof why, &e);
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
    eo.seed = step_seed(st, 0, 1);
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
    anchor_from_event(st, ev);
    int jrc = kf_journal_append(st->j, "anchor", ev, err);
    json_object_put(ev);
    if (have_ar) kf_resolved_free(&ar);
    kf_problem_free(ap);
    kf_gemm_anchor_free(&a);
    if (st->o.progress && !st->o.json_progress) {
        char t[32];
        if (st->anchor_state > 0) {
            fprintf(st->o.progress, "gemm anchor: %s, %d threads  %s", st->anchor_how, st->anchor_threads,
                    kf_run_fmt_time(st->anchor_s, t, sizeof t));
            if (st->baseline_s > 0) fprintf(st->o.progress, "  (baseline = %.2fx the anchor)", st->baseline_s / st->anchor_s);
            fputc('\n', st->o.progress);
            char *w = kf_anchor_warning(st->baseline_s, st->anchor_s);
            if (w) fprintf(st->o.progress, "warning: %s\n", w);
            free(w);
        } else {
            fprintf(st->o.progress, "gemm anchor: not measured (%s)\n", st->anchor_why ? st->anchor_why : "?");
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

static kf_gen_kind next_kind(const run_state *st)
{
    if (st->phase == PHASE_OPTIMIZE && st->fixes == 0) return KF_GEN_OPTIMIZE;
    if (!st->last || !st->last_eval) return KF_GEN_FIRST;
    if (st->last_eval->verdict == KF_PASS) return KF_GEN_OPTIMIZE;
    if (st->last_eval->verdict == KF_FAIL_COMPILE || st->last_eval->verdict == KF_FAIL_BIND)
        return KF_GEN_FIX_COMPILE;
    return KF_GEN_FIX_MISMATCH;
}

static int record_gen(run_state *st, int sample, kf_gen_kind kind, const char *sdir,
                      const kf_gen_result *g, kf_error *err)
{
    json_object *ev = json_object_new_object();
    json_object_object_add(ev, "step", json_object_new_int(st->step));
    json_object_object_add(ev, "sample", json_object_new_int(sample));
    json_object_object_add(ev, "kind", json_object_new_string(kf_gen_kind_name(kind)));
    json_object_object_add(ev, "dir", json_object_new_string(sdir + strlen(st->dir) + 1));
    json_object_object_add(ev, "ok", json_object_new_boolean(g->cand != NULL));
    if (g->error) json_object_object_add(ev, "error", json_object_new_string(g->error));
    if (g->label) json_object_object_add(ev, "label", json_object_new_string(g->label));
    json_object_object_add(ev, "tokens_in", json_object_new_int64(g->io.tokens_in));
    json_object_object_add(ev, "tokens_out", json_object_new_int64(g->io.tokens_out));
    json_object_object_add(ev, "cost_usd", json_object_new_double(g->io.cost_usd));
    json_object_object_add(ev, "from_cache", json_object_new_boolean(g->io.from_cache));
    int rc = kf_journal_append(st->j, "gen", ev, err);
    json_object_put(ev);
    return rc;
}

/* job: the evaluation's wall-clock window and pass, NULL when not known. */
static int record_eval(run_state *st, int sample, const char *sdir, const kf_eval_result *res,
                       const sample_job *job, kf_error *err)
{
    json_object *ev = json_object_new_object();
    json_object_object_add(ev, "step", json_object_new_int(st->step));
    json_object_object_add(ev, "sample", json_object_new_int(sample));
    json_object_object_add(ev, "dir", json_object_new_string(sdir + strlen(st->dir) + 1));
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
    int rc = kf_journal_append(st->j, "eval", ev, err);
    json_object_put(ev);
    return rc;
}

static int record_best(run_state *st, int sample, const char *sdir, kf_error *err)
{
    json_object *ev = json_object_new_object();
    json_object_object_add(ev, "step", json_object_new_int(st->step));
    json_object_object_add(ev, "sample", json_object_new_int(sample));
    json_object_object_add(ev, "dir", json_object_new_string(sdir + strlen(st->dir) + 1));
    json_object_object_add(ev, "median_s", json_object_new_double(st->best_eval->timing.median_s));
    int rc = kf_journal_append(st->j, "best", ev, err);
    json_object_put(ev);
    return rc;
}

/* Considers an evaluated sample: updates last/best and the phase. */
static int absorb(run_state *st, int sample, const char *sdir, kf_gen_kind kind,
                  kf_candidate *cand, kf_eval_result *res, int *improved, kf_error *err)
{
    (void)kind;
    if (res->verdict == KF_PASS && res->profiled) {
        if (!st->best_eval || res->timing.median_s < st->best_eval->timing.median_s) {
            char cdir[4200];
            snprintf(cdir, sizeof cdir, "%s/candidate", sdir);
            set_best(st, cand, res, cdir);
            *improved = 1;
            return record_best(st, sample, sdir, err);
        }
    }
    return 1; /* not kept as best */
}

static int run_step(run_state *st, kf_error *err)
{
    kf_gen_kind kind = next_kind(st);
    int K = st->o.samples < 1 ? 1 : st->o.samples;
    if (kind == KF_GEN_OPTIMIZE && st->analysis && st->analysis->n_recs > 0 && K > st->analysis->n_recs)
        K = st->analysis->n_recs;

    kf_candidate *cands[64] = {0};
    char *dirs[64] = {0};
    char *labels[64] = {0};
    if (K > 64) K = 64;

    for (int s = 0; s < K; s++) {
        char sdir[4096];
        snprintf(sdir, sizeof sdir, "%s/steps/%04d-%d", st->dir, st->step, s);
        if (kf_mkdir_p(sdir, err) != 0) return -1;
        dirs[s] = strdup(sdir);
        kf_gen_request req = {
            .kind = kind, .step = st->step, .sample = s, .seed = step_seed(st, st->step, s),
            .last = kind == KF_GEN_OPTIMIZE ? st->best : st->last,
            .last_eval = kind == KF_GEN_OPTIMIZE ? st->best_eval : st->last_eval,
            .best = st->best, .best_eval = st->best_eval,
            .analysis = st->analysis, .rec_index = s,
        };
        kf_gen_result g = {0};
        kf_error e = {0};
        st->ctx.run_dir = sdir;
        if (st->agent->ops->generate(st->agent, &st->ctx, &req, &g, &e) != 0) {
            /* the provider itself failed (after its retries): the run stops here,
               recorded, resumable */
            kf_gen_result_free(&g);
            for (int i = 0; i <= s; i++) free(dirs[i]);
            for (int i = 0; i < s; i++) { kf_candidate_free(cands[i]); free(labels[i]); }
            return kf_fail(err, e.code ? e.code : 1, "step %d: the %s agent failed: %s", st->step,
                           st->agent->spec, e.msg);
        }
        st->tok_in += g.io.tokens_in;
        st->tok_out += g.io.tokens_out;
        st->cost += g.io.cost_usd;
        kf_run_save_io(sdir, &g.io, NULL);
        if (g.cand) {
            char cdir[4200];
            snprintf(cdir, sizeof cdir, "%s/candidate", sdir);
            if (kf_candidate_save(g.cand, cdir, err) != 0) {
                kf_gen_result_free(&g);
                return -1;
            }
        } else {
            kf_run_save_text(sdir, "error.txt", g.error ? g.error : "no candidate", NULL);
        }
        if (record_gen(st, s, kind, sdir, &g, err) != 0) {
            kf_gen_result_free(&g);
            return -1;
        }
        cands[s] = g.cand;
        g.cand = NULL;
        labels[s] = g.label ? strdup(g.label) : NULL;
        if (!cands[s]) {
            /* an unusable answer: one failed step, fed back */
            kf_eval_result *fake = calloc(1, sizeof *fake);
            fake->verdict = KF_FAIL_COMPILE;
            fake->failed_trial = -1;
            fake->summary = strdup("the answer held no usable candidate");
            fake->diagnostics = strdup(g.error ? g.error : "no candidate in the answer");
            kf_run_save_eval(sdir, fake, NULL);
            record_eval(st, s, sdir, fake, NULL, err);
            progress(st, phase_name(kind), "bad-answer", g.error, NULL);
            if (s == 0) set_last(st, NULL, fake);
            else eval_free(fake);
        }
        kf_gen_result_free(&g);
    }

    /* one usable sample: compiled, verified and timed in one evaluation.
       Several: compiled and verified in parallel, then timed one at a time
       (see sample_job) */
    sample_job jobs[64];
    pthread_t th[64];
    int started[64] = {0};
    memset(jobs, 0, sizeof jobs);
    int usable = 0;
    for (int s = 0; s < K; s++) usable += cands[s] != NULL;
    for (int s = 0; s < K; s++) {
        if (!cands[s]) continue;
        jobs[s].st = st;
        jobs[s].cand = cands[s];
        jobs[s].opts = st->o.eval;
        jobs[s].opts.seed = step_seed(st, st->step, s);
        jobs[s].profile = usable == 1;
        if (usable > 1 && pthread_create(&th[s], NULL, sample_thread, &jobs[s]) == 0) started[s] = 1;
        else sample_thread(&jobs[s]);
    }
    for (int s = 0; s < K; s++)
        if (started[s]) pthread_join(th[s], NULL);
    if (usable > 1)
        for (int s = 0; s < K; s++)
            if (cands[s] && jobs[s].rc == 0 && jobs[s].res && jobs[s].res->verdict == KF_PASS) profile_alone(&jobs[s]);
    int improved = 0, any_pass = 0;
    int first_fail = -1;
    for (int s = 0; s < K; s++) {
        if (!cands[s]) continue;
        if (jobs[s].rc != 0) {
            /* the request was unusable: record as an internal failure */
            kf_eval_result *r2 = jobs[s].res ? jobs[s].res : calloc(1, sizeof *r2);
            r2->verdict = KF_FAIL_INTERNAL;
            free(r2->summary);
            r2->summary = strdup(jobs[s].err.msg);
            jobs[s].res = r2;
        }
        kf_run_save_eval(dirs[s], jobs[s].res, NULL);
        if (record_eval(st, s, dirs[s], jobs[s].res, &jobs[s], err) != 0) return -1;
        const kf_eval_result *r = jobs[s].res;
        int imp = 0;
        int rc = absorb(st, s, dirs[s], kind, cands[s], jobs[s].res, &imp, err);
        if (rc < 0) return -1;
        progress(st, phase_name(kind), kf_verdict_name(r->verdict), labels[s], r);
        if (r->verdict == KF_PASS) any_pass = 1;
        if (imp) {
            improved = 1;
            cands[s] = NULL;         /* owned by best now */
            jobs[s].res = NULL;
        } else if (first_fail < 0 && r->verdict != KF_PASS) {
            first_fail = s;
        }
    }
    /* the sample the next functional pass repairs: the first failure */
    if (!any_pass && first_fail >= 0) {
        set_last(st, cands[first_fail], jobs[first_fail].res);
        cands[first_fail] = NULL;
        jobs[first_fail].res = NULL;
    }
    for (int s = 0; s < K; s++) {
        kf_candidate_free(cands[s]);
        eval_free(jobs[s].res);
        free(dirs[s]);
        free(labels[s]);
    }

    if (kind == KF_GEN_FIRST || kind == KF_GEN_FIX_COMPILE || kind == KF_GEN_FIX_MISMATCH) {
        if (st->phase == PHASE_OPTIMIZE) {
            /* repairing an optimization variant */
            if (any_pass || ++st->fixes > st->o.max_fix) st->fixes = 0;
        } else if (st->best) {
            st->phase = PHASE_OPTIMIZE;
            st->fixes = 0;
        }
    } else {
        /* an optimization step: its variants failed -> functional repair */
        if (!any_pass && st->last_eval && st->last_eval->verdict != KF_PASS && st->o.max_fix > 0)
            st->fixes = 1;
        else
            st->fixes = 0;
        if (!improved && st->analysis) {
            /* the analysis agent learns that its recommendation missed */
            st->analysis_base_s = st->best_eval ? st->best_eval->timing.median_s : 0;
        }
    }
    return 0;
}

static int run_analysis(run_state *st, kf_error *err)
{
    char sdir[4096];
    snprintf(sdir, sizeof sdir, "%s/steps/%04d-analysis", st->dir, st->step);
    if (kf_mkdir_p(sdir, err) != 0) return -1;
    kf_analyze_request req = {
        .step = st->step, .cand = st->best, .eval = st->best_eval,
        .previous = st->analysis, .previous_time_s = st->analysis_base_s,
    };
    kf_analysis *a = calloc(1, sizeof *a);
    kf_agent_io io = {0};
    kf_error e = {0};
    st->ctx.run_dir = sdir;
    kf_agent *an = st->agent->ops->analyze ? st->agent : st->builtin;
    if (an->ops->analyze(an, &st->ctx, &req, a, &io, &e) != 0) {
        free(io.prompt);
        free(io.answer);
        kf_analysis_free(a);
        free(a);
        return kf_fail(err, e.code ? e.code : 1, "step %d: the analysis agent failed: %s", st->step, e.msg);
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
    json_object_object_add(ev, "dir", json_object_new_string(sdir + strlen(st->dir) + 1));
    int rc = kf_journal_append(st->j, "analysis", ev, err);
    json_object_put(ev);
    if (st->analysis) { kf_analysis_free(st->analysis); free(st->analysis); }
    st->analysis = a;
    st->analysis_base_s = st->best_eval ? st->best_eval->timing.median_s : 0;
    if (st->o.progress && !st->o.json_progress) {
        fprintf(st->o.progress, "      analysis: %s-bound; %s\n", a->bottleneck ? a->bottleneck : "?",
                a->n_recs ? a->recs[0].what : "no further recommendation");
        if (a->missed) fprintf(st->o.progress, "      (last recommendation missed: %s)\n", a->missed);
    }
    return rc;
}

/* ------------------------------------------------------------------ */
/* setup, resume, finish                                               */

static int open_everything(run_state *st, kf_error *err)
{
    st->p = kf_problem_load(st->o.problem_path, err);
    if (!st->p) return -1;
    int preset = kf_problem_find_preset(st->p, st->o.preset ? st->o.preset : "small");
    if (preset < 0) {
        if (st->o.preset)
            return kf_fail(err, 2, "%s: no preset '%s'", st->o.problem_path, st->o.preset);
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
        return kf_fail(err, 2, "no backend '%s' (found: %s; see 'kforge backends')", st->o.backend,
                       known[0] ? known : "none");
    }
    if (!st->plugin->probed) kf_plugin_probe(st->plugin);
    if (st->plugin->probe_status != KF_OK)
        return kf_fail(err, 2, "backend '%s' is not available here: %s", st->o.backend,
                       st->plugin->probe_why ? st->plugin->probe_why : "probe failed");
    if (st->o.device < 0 || st->o.device >= st->plugin->n_devices)
        return kf_fail(err, 2, "backend '%s' has no device %d (it has %d)", st->o.backend, st->o.device,
                       st->plugin->n_devices);
    st->dev = &st->plugin->devices[st->o.device];
    st->o.eval.device = st->o.device;

    kf_agent_opts ao = {.record_path = st->o.record_path, .cache_dir = st->o.cache_dir};
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
    st->ctx.device = st->dev;
    st->ctx.prompts_dir = st->o.prompts_dir;
    st->ctx.target_fraction = st->o.target_fraction;
    return 0;
}

/* Rebuilds the loop state from the journal; returns 0 or -1. */
static int replay(run_state *st, json_object *events, kf_error *err)
{
    size_t n = json_object_array_length(events);
    int pending_step = -1;
    for (size_t i = 0; i < n; i++) {
        json_object *ev = json_object_array_get_idx(events, i), *v;
        const char *name = json_object_object_get_ex(ev, "ev", &v) ? json_object_get_string(v) : "";
        if (!strcmp(name, "baseline")) {
            if (json_object_object_get_ex(ev, "median_s", &v)) st->baseline_s = json_object_get_double(v);
            if (json_object_object_get_ex(ev, "how", &v)) {
                free(st->baseline_how);
                st->baseline_how = strdup(json_object_get_string(v));
            }
        } else if (!strcmp(name, "anchor")) {
            anchor_from_event(st, ev);
        } else if (!strcmp(name, "gen")) {
            if (json_object_object_get_ex(ev, "tokens_in", &v)) st->tok_in += json_object_get_int64(v);
            if (json_object_object_get_ex(ev, "tokens_out", &v)) st->tok_out += json_object_get_int64(v);
            if (json_object_object_get_ex(ev, "cost_usd", &v)) st->cost += json_object_get_double(v);
            if (json_object_object_get_ex(ev, "step", &v)) pending_step = json_object_get_int(v);
        } else if (!strcmp(name, "eval")) {
            json_object *d;
            if (!json_object_object_get_ex(ev, "dir", &d)) continue;
            char sdir[4096], cdir[4200];
            snprintf(sdir, sizeof sdir, "%s/%s", st->dir, json_object_get_string(d));
            snprintf(cdir, sizeof cdir, "%s/candidate", sdir);
            kf_eval_result *res = calloc(1, sizeof *res);
            if (kf_run_load_eval(sdir, res, err) != 0) { free(res); return -1; }
            kf_candidate *c = NULL;
            struct stat sb;
            if (stat(cdir, &sb) == 0) {
                c = kf_candidate_load(cdir, err);
                if (!c) { eval_free(res); return -1; }
            }
            int sample = json_object_object_get_ex(ev, "sample", &v) ? json_object_get_int(v) : 0;
            if (json_object_object_get_ex(ev, "step", &v)) st->step = json_object_get_int(v);
            if (res->verdict == KF_PASS) {
                /* the "best" event decides; keep as last for the optimize phase */
                kf_candidate_free(c);
                eval_free(res);
            } else if (sample == 0 || !st->last_eval || st->last_eval->verdict == KF_PASS) {
                set_last(st, c, res);
            } else {
                kf_candidate_free(c);
                eval_free(res);
            }
            pending_step = -1;
        } else if (!strcmp(name, "best")) {
            json_object *d;
            if (!json_object_object_get_ex(ev, "dir", &d)) continue;
            char sdir[4096], cdir[4200];
            snprintf(sdir, sizeof sdir, "%s/%s", st->dir, json_object_get_string(d));
            snprintf(cdir, sizeof cdir, "%s/candidate", sdir);
            kf_eval_result *res = calloc(1, sizeof *res);
            if (kf_run_load_eval(sdir, res, err) != 0) { free(res); return -1; }
            kf_candidate *c = kf_candidate_load(cdir, err);
            if (!c) { eval_free(res); return -1; }
            set_best(st, c, res, cdir);
            st->phase = PHASE_OPTIMIZE;
            st->fixes = 0;
        } else if (!strcmp(name, "analysis")) {
            /* analyses are cheap to redo (builtin) or cached (LLM): the next
               optimization step recomputes it */
        } else if (!strcmp(name, "elapsed")) {
            if (json_object_object_get_ex(ev, "seconds", &v)) st->elapsed_before = json_object_get_double(v);
        }
    }
    (void)pending_step;
    return 0;
}

/* Evaluates candidates of a step that was generated but not evaluated
 * before the crash (never paying for their generation twice). */
static int finish_pending(run_state *st, json_object *events, kf_error *err)
{
    size_t n = json_object_array_length(events);
    for (size_t i = 0; i < n; i++) {
        json_object *ev = json_object_array_get_idx(events, i), *v, *d;
        if (!json_object_object_get_ex(ev, "ev", &v) || strcmp(json_object_get_string(v), "gen")) continue;
        if (!json_object_object_get_ex(ev, "ok", &v) || !json_object_get_boolean(v)) continue;
        if (!json_object_object_get_ex(ev, "dir", &d)) continue;
        const char *rel = json_object_get_string(d);
        int evaluated = 0;
        for (size_t k = i + 1; k < n && !evaluated; k++) {
            json_object *e2 = json_object_array_get_idx(events, k), *v2, *d2;
            if (json_object_object_get_ex(e2, "ev", &v2) && !strcmp(json_object_get_string(v2), "eval") &&
                json_object_object_get_ex(e2, "dir", &d2) && !strcmp(json_object_get_string(d2), rel))
                evaluated = 1;
        }
        if (evaluated) continue;
        char sdir[4096], cdir[4200];
        snprintf(sdir, sizeof sdir, "%s/%s", st->dir, rel);
        snprintf(cdir, sizeof cdir, "%s/candidate", sdir);
        kf_candidate *c = kf_candidate_load(cdir, err);
        if (!c) return -1;
        int sample = json_object_object_get_ex(ev, "sample", &v) ? json_object_get_int(v) : 0;
        st->step = json_object_object_get_ex(ev, "step", &v) ? json_object_get_int(v) : st->step;
        kf_eval_result *res = calloc(1, sizeof *res);
        kf_eval_opts eo = st->o.eval;
        eo.seed = step_seed(st, st->step, sample);
        kf_error e = {0};
        if (kf_evaluate(st->plugin, &st->r, c, &eo, 1, res, &e) != 0) {
            res->verdict = KF_FAIL_INTERNAL;
            res->summary = strdup(e.msg);
        }
        kf_run_save_eval(sdir, res, NULL);
        if (record_eval(st, sample, sdir, res, NULL, err) != 0) return -1;
        progress(st, "resume", kf_verdict_name(res->verdict), NULL, res);
        int imp = 0;
        if (absorb(st, sample, sdir, KF_GEN_FIRST, c, res, &imp, err) < 0) return -1;
        if (imp) {
            st->phase = PHASE_OPTIMIZE;
        } else if (res->verdict != KF_PASS) {
            set_last(st, c, res);
        } else {
            kf_candidate_free(c);
            eval_free(res);
        }
    }
    return 0;
}

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
    json_object_object_add(o, "seed", json_object_new_int64((int64_t)st->o.seed));
    json_object_object_add(o, "trials", json_object_new_int(st->o.eval.trials));
    json_object_object_add(o, "reps", json_object_new_int(st->o.eval.reps));
    char path[4096];
    snprintf(path, sizeof path, "%s/run.json", st->dir);
    int rc = kf_write_file_atomic(path, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY), err);
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
    if (!o) return kf_fail(err, 2, "%s: not valid JSON; cannot resume", path);
    json_object *v;
    for (int i = 0; i < 3; i++) free(st->recorded[i]);
    st->recorded[0] = dup_json_str(o, "backend");
    st->recorded[1] = dup_json_str(o, "agent");
    st->recorded[2] = dup_json_str(o, "preset");
    st->o.backend = st->recorded[0];
    st->o.agent = st->recorded[1];
    st->o.preset = st->recorded[2];
    if (json_object_object_get_ex(o, "device", &v)) st->o.device = json_object_get_int(v);
    if (json_object_object_get_ex(o, "samples", &v)) st->o.samples = json_object_get_int(v);
    if (json_object_object_get_ex(o, "seed", &v)) st->o.seed = (uint64_t)json_object_get_int64(v);
    if (json_object_object_get_ex(o, "target_fraction", &v)) st->o.target_fraction = json_object_get_double(v);
    if (json_object_object_get_ex(o, "baseline", &v)) st->o.baseline = json_object_get_boolean(v);
    if (json_object_object_get_ex(o, "max_iterations", &v) && !cli->max_iterations)
        st->o.max_iterations = json_object_get_int(v);
    if (json_object_object_get_ex(o, "max_time_s", &v) && cli->max_time_s <= 0)
        st->o.max_time_s = json_object_get_double(v);
    if (json_object_object_get_ex(o, "max_cost_usd", &v) && cli->max_cost_usd <= 0)
        st->o.max_cost_usd = json_object_get_double(v);
    json_object_put(o);
    free(st->problem_copy);
    if (asprintf(&st->problem_copy, "%s/problem.json", st->dir) < 0) return kf_fail(err, 12, "out of memory");
    st->o.problem_path = st->problem_copy;
    if (!st->o.backend) return kf_fail(err, 2, "%s: no backend recorded; cannot resume", path);
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
        if (st->baseline_s > 0) {
            json_object_object_add(a, "baseline_over_anchor", json_object_new_double(st->baseline_s / st->anchor_s));
            char *w = kf_anchor_warning(st->baseline_s, st->anchor_s);
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
    json_object_object_add(o, "device", json_object_new_string(st->dev->name));
    json_object_object_add(o, "agent", json_object_new_string(st->agent->spec));
    json_object_object_add(o, "steps", json_object_new_int(st->step));
    json_object_object_add(o, "stop_reason", json_object_new_string(reason));
    json_object_object_add(o, "tokens_in", json_object_new_int64(st->tok_in));
    json_object_object_add(o, "tokens_out", json_object_new_int64(st->tok_out));
    json_object_object_add(o, "cost_usd", json_object_new_double(st->cost));
    json_object_object_add(o, "wall_s", json_object_new_double(elapsed(st)));
    json_object *bl = json_object_new_object();
    json_object_object_add(bl, "how", json_object_new_string(st->baseline_how ? st->baseline_how : "not measured"));
    json_object_object_add(bl, "dir", json_object_new_string("baseline"));
    if (st->baseline_s > 0) json_object_object_add(bl, "median_s", json_object_new_double(st->baseline_s));
    if (st->anchor_state != 0) json_object_object_add(bl, "gemm_anchor", anchor_json(st));
    json_object_object_add(o, "baseline", bl);
    double speed = 0;
    if (st->best_eval) {
        json_object *b = json_object_new_object();
        json_object_object_add(b, "dir", json_object_new_string(st->best_dir + strlen(st->dir) + 1));
        json_object_object_add(b, "verified", json_object_new_boolean(1));
        json_object_object_add(b, "verdict", json_object_new_string(kf_verdict_name(st->best_eval->verdict)));
        json_object_object_add(b, "trials", json_object_new_int(st->best_eval->trials_run));
        json_object_object_add(b, "median_s", json_object_new_double(st->best_eval->timing.median_s));
        json_object_object_add(b, "min_s", json_object_new_double(st->best_eval->timing.min_s));
        if (st->baseline_s > 0) {
            speed = st->baseline_s / st->best_eval->timing.median_s;
            json_object_object_add(b, "speedup_vs_baseline", json_object_new_double(speed));
        }
        json_object_object_add(b, "roofline_fraction", json_object_new_double(st->best_eval->roofline.fraction));
        json_object_object_add(b, "roofline_floor_s", json_object_new_double(st->best_eval->roofline.floor_s));
        json_object_object_add(o, "best", b);
    } else {
        json_object_object_add(o, "best", NULL);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/result.json", st->dir);
    int rc = kf_write_file_atomic(path, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY), err);
    json_object_put(o);
    json_object *ev = json_object_new_object();
    json_object_object_add(ev, "reason", json_object_new_string(reason));
    kf_journal_append(st->j, "done", ev, NULL);
    json_object_put(ev);
    if (out) {
        out->run_dir = strdup(st->dir);
        out->have_best = st->best_eval != NULL;
        out->best_dir = st->best_dir ? strdup(st->best_dir) : NULL;
        out->best_s = st->best_eval ? st->best_eval->timing.median_s : 0;
        out->baseline_s = st->baseline_s;
        out->anchor_s = st->anchor_s;
        out->speedup = speed;
        out->fraction = st->best_eval ? st->best_eval->roofline.fraction : 0;
        out->steps = st->step;
        out->tokens_in = st->tok_in;
        out->tokens_out = st->tok_out;
        out->cost_usd = st->cost;
        out->stop_reason = strdup(reason);
    }
    return rc;
}

static void cleanup(run_state *st)
{
    if (st->last != st->best) kf_candidate_free(st->last);
    if (st->last_eval != st->best_eval) eval_free(st->last_eval);
    kf_candidate_free(st->best);
    eval_free(st->best_eval);
    free(st->best_dir);
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
    for (int i = 0; i < 3; i++) free(st->recorded[i]);
    free(st->dir);
}

static char *default_run_dir(const kf_run_opts *o, kf_error *err)
{
    kf_error e = {0};
    kf_problem *p = kf_problem_load(o->problem_path, &e);
    if (!p) {
        kf_fail(err, 2, "%s", e.msg);
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

int kf_run(const kf_run_opts *cli, kf_run_summary *out, kf_error *err)
{
    run_state st;
    memset(&st, 0, sizeof st);
    st.o = *cli;
    st.t0 = now_s();
    json_object *events = NULL;
    int resuming = cli->resume_dir != NULL;

    if (resuming) {
        st.dir = strdup(cli->resume_dir);
        if (load_run_json(&st, cli, err) != 0) { cleanup(&st); return -1; }
        events = kf_journal_read(st.dir, err);
        if (!events) { cleanup(&st); return -1; }
    } else {
        if (!cli->problem_path || !cli->backend) {
            cleanup(&st);
            return kf_fail(err, 2, "kforge run needs a problem file and --backend");
        }
        st.dir = cli->out_dir ? strdup(cli->out_dir) : default_run_dir(cli, err);
        if (!st.dir) { cleanup(&st); return -1; }
        char jpath[4200];
        snprintf(jpath, sizeof jpath, "%s/journal.jsonl", st.dir);
        struct stat sb;
        if (stat(jpath, &sb) == 0) {
            cleanup(&st);
            return kf_fail(err, 2, "%s already holds a run: use --resume %s to continue it, or choose another --out",
                           cli->out_dir, cli->out_dir);
        }
    }
    if (open_everything(&st, err) != 0) { json_object_put(events); cleanup(&st); return -1; }
    if (!resuming) {
        if (kf_mkdir_p(st.dir, err) != 0) { cleanup(&st); return -1; }
        char *ptext = kf_read_file(cli->problem_path, err);
        if (!ptext) { cleanup(&st); return -1; }
        char pp[4200];
        snprintf(pp, sizeof pp, "%s/problem.json", st.dir);
        int rc = kf_write_file_atomic(pp, ptext, err);
        free(ptext);
        if (rc != 0 || write_run_json(&st, err) != 0) { cleanup(&st); return -1; }
    }
    st.j = kf_journal_open(st.dir, err);
    if (!st.j) { json_object_put(events); cleanup(&st); return -1; }

    int have_baseline_event = 0, have_anchor_event = 0;
    if (resuming) {
        size_t n = json_object_array_length(events);
        for (size_t i = 0; i < n; i++) {
            json_object *v;
            if (!json_object_object_get_ex(json_object_array_get_idx(events, i), "ev", &v)) continue;
            if (!strcmp(json_object_get_string(v), "baseline")) have_baseline_event = 1;
            if (!strcmp(json_object_get_string(v), "anchor")) have_anchor_event = 1;
        }
        if (replay(&st, events, err) != 0) {
            json_object_put(events);
            cleanup(&st);
            return -1;
        }
        json_object *ev = json_object_new_object();
        json_object_object_add(ev, "step", json_object_new_int(st.step));
        kf_journal_append(st.j, "resume", ev, NULL);
        json_object_put(ev);
        if (st.o.progress && !st.o.json_progress)
            fprintf(st.o.progress, "resuming %s at step %d%s\n", st.dir, st.step,
                    st.best ? " (a correct candidate is already known)" : "");
        int prc = finish_pending(&st, events, err);
        json_object_put(events);
        if (prc != 0) {
            cleanup(&st);
            return -1;
        }
    } else {
        json_object *ev = json_object_new_object();
        json_object_object_add(ev, "problem", json_object_new_string(st.p->name));
        json_object_object_add(ev, "backend", json_object_new_string(st.o.backend));
        json_object_object_add(ev, "agent", json_object_new_string(st.agent->spec));
        kf_journal_append(st.j, "start", ev, NULL);
        json_object_put(ev);
        if (st.o.progress && !st.o.json_progress)
            fprintf(st.o.progress, "run %s: %s (%s) on %s/%s [%s], agent %s\n", st.dir, st.p->name,
                    st.p->preset_names[st.r.preset], st.o.backend, st.dev->name, st.dev->kind,
                    st.agent->spec);
    }
    if (st.o.baseline && !have_baseline_event) {
        if (measure_baseline(&st, err) != 0) { cleanup(&st); return -1; }
    }
    if (st.o.baseline && !have_anchor_event) {
        if (measure_anchor(&st, err) != 0) { cleanup(&st); return -1; }
    }

    const char *reason = "iteration budget spent";
    int rc = 0;
    while (1) {
        if (st.step >= st.o.max_iterations) { reason = "iteration budget spent"; break; }
        if (elapsed(&st) >= st.o.max_time_s) { reason = "time budget spent"; break; }
        if (st.cost >= st.o.max_cost_usd) { reason = "cost budget spent"; break; }
        if (st.phase == PHASE_OPTIMIZE && st.fixes == 0) {
            if (st.o.target_fraction > 0 && st.best_eval &&
                st.best_eval->roofline.fraction >= st.o.target_fraction) {
                reason = "within the target fraction of the roofline floor";
                break;
            }
            if (run_analysis(&st, err) != 0) { rc = -1; reason = "agent failed"; break; }
            if (st.analysis->stop || st.analysis->n_recs == 0) {
                reason = "the analysis agent has nothing left to try";
                break;
            }
        }
        st.step++;
        if (run_step(&st, err) != 0) { rc = -1; reason = "agent failed"; break; }
        json_object *ev = json_object_new_object();
        json_object_object_add(ev, "seconds", json_object_new_double(elapsed(&st)));
        kf_journal_append(st.j, "elapsed", ev, NULL);
        json_object_put(ev);
    }
    if (rc != 0 && st.o.progress)
        fprintf(st.o.progress, "stopped: %s (resume with: kforge run --resume %s)\n", err->msg, st.dir);
    kf_error werr = {0};
    if (write_result(&st, rc ? err->msg : reason, out, &werr) != 0 && rc == 0) {
        *err = werr;
        rc = -1;
    }
    cleanup(&st);
    return rc;
}
