/*
 * test_loop.c — the refinement loop's state machine (core/run/loop_decide.c)
 * across every verdict and phase, its stop conditions, the judgement of a
 * recorded best on resume, the journal the loop replays (append, read
 * back, torn last line, missing journal, owner-only mode), and --resume
 * itself (core/run/loop_resume.c) on journals written by hand as the loop
 * writes them: the state it rebuilds, a cut-off evaluation recorded as a
 * crash and never paid for twice, the recorded best re-verified before it
 * is adopted, a journal of another run refused.  No worker runs: the
 * resumed runs have no plugin, so any evaluation they attempt is refused
 * (verdict "internal"), which is itself what some cases check.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kf_test.h"
#include "candidate/candidate.h"
#include "problem/problem.h"
#include "run/journal.h"
#include "run/loop_decide.h"
#include "run/loop_internal.h"
#include "run/run_record.h"
#include "util/fileio.h"

/* FUNCTIONAL phase: first, then the repair that fits the last verdict. */
KF_TEST(functional_phase_repairs_by_verdict)
{
    kf_loop_state s = {PHASE_FUNCTIONAL, 0};
    KF_CHECK_INT(kf_loop_next_kind(&s, 0, KF_PASS), KF_GEN_FIRST);
    KF_CHECK_INT(kf_loop_next_kind(&s, 1, KF_FAIL_COMPILE), KF_GEN_FIX_COMPILE);
    KF_CHECK_INT(kf_loop_next_kind(&s, 1, KF_FAIL_BIND), KF_GEN_FIX_COMPILE);
    /* every other failure is a wrong or unsafe program: fix-mismatch */
    for (int v = KF_FAIL_MISMATCH; v <= KF_FAIL_TIMING; v++)
        KF_CHECK_MSG(kf_loop_next_kind(&s, 1, (kf_verdict)v) == KF_GEN_FIX_MISMATCH, "verdict %s",
                     kf_verdict_name((kf_verdict)v));
    KF_CHECK_INT(kf_loop_next_kind(&s, 1, KF_PASS), KF_GEN_OPTIMIZE);
}

/* A functional step that leaves a correct best switches to OPTIMIZE; one
 * that does not stays FUNCTIONAL. */
KF_TEST(first_correct_candidate_switches_to_optimize)
{
    kf_loop_state s = {PHASE_FUNCTIONAL, 0};
    kf_loop_after_step(&s, KF_GEN_FIRST, 0, 0, 0, 2);
    KF_CHECK_INT(s.phase, PHASE_FUNCTIONAL);
    kf_loop_after_step(&s, KF_GEN_FIX_MISMATCH, 1, 1, 1, 2);
    KF_CHECK_INT(s.phase, PHASE_OPTIMIZE);
    KF_CHECK_INT(s.fixes, 0);
    KF_CHECK_INT(kf_loop_next_kind(&s, 1, KF_PASS), KF_GEN_OPTIMIZE);
    /* in OPTIMIZE with no repair pending, even a failed last candidate
       means: optimize from the best */
    KF_CHECK_INT(kf_loop_next_kind(&s, 1, KF_FAIL_MISMATCH), KF_GEN_OPTIMIZE);
}

/* A failed optimization variant gets max_fix repairs, then the loop goes
 * back to optimizing from the best. */
KF_TEST(failed_variant_gets_max_fix_repairs)
{
    kf_loop_state s = {PHASE_OPTIMIZE, 0};
    kf_loop_after_step(&s, KF_GEN_OPTIMIZE, 0, 1, 0, 2);
    KF_CHECK_INT(s.fixes, 1);
    KF_CHECK_INT(kf_loop_next_kind(&s, 1, KF_FAIL_COMPILE), KF_GEN_FIX_COMPILE);
    kf_loop_after_step(&s, KF_GEN_FIX_COMPILE, 0, 1, 0, 2);
    KF_CHECK_INT(s.fixes, 2);
    KF_CHECK_INT(kf_loop_next_kind(&s, 1, KF_FAIL_MISMATCH), KF_GEN_FIX_MISMATCH);
    kf_loop_after_step(&s, KF_GEN_FIX_MISMATCH, 0, 1, 0, 2);   /* third failure: give up on it */
    KF_CHECK_INT(s.fixes, 0);
    KF_CHECK_INT(s.phase, PHASE_OPTIMIZE);
    KF_CHECK_INT(kf_loop_next_kind(&s, 1, KF_FAIL_MISMATCH), KF_GEN_OPTIMIZE);
}

/* A repair that passes ends the repairs; with max_fix 0 a failed variant
 * is never repaired; a passing variant needs none. */
KF_TEST(repairs_end_on_pass_and_max_fix_zero_means_none)
{
    kf_loop_state s = {PHASE_OPTIMIZE, 0};
    kf_loop_after_step(&s, KF_GEN_OPTIMIZE, 0, 1, 0, 2);
    kf_loop_after_step(&s, KF_GEN_FIX_MISMATCH, 1, 1, 1, 2);
    KF_CHECK_INT(s.fixes, 0);
    kf_loop_after_step(&s, KF_GEN_OPTIMIZE, 0, 1, 0, 0);
    KF_CHECK_INT(s.fixes, 0);
    KF_CHECK_INT(kf_loop_next_kind(&s, 1, KF_FAIL_CRASH), KF_GEN_OPTIMIZE);
    kf_loop_after_step(&s, KF_GEN_OPTIMIZE, 1, 1, 1, 2);
    KF_CHECK_INT(s.fixes, 0);
}

/* Resume: a recorded best is kept only if it passes again and its recorded
 * time is possible on this device. */
KF_TEST(recorded_best_is_judged_on_resume)
{
    kf_eval_result rec, now;
    memset(&rec, 0, sizeof rec);
    memset(&now, 0, sizeof now);
    rec.profiled = 1;
    rec.timing.median_s = 2e-3;
    now.verdict = KF_PASS;
    now.profiled = 1;
    now.timing.median_s = 2.1e-3;
    now.roofline.hard_floor_s = 1e-3;
    KF_CHECK_STR(kf_loop_judge_best(&rec, &now), "kept");
    rec.timing.median_s = 0.5e-3;    /* below what the device can do */
    KF_CHECK_STR(kf_loop_judge_best(&rec, &now), "remeasured");
    rec.profiled = 0;
    KF_CHECK_STR(kf_loop_judge_best(&rec, &now), "remeasured");
    now.verdict = KF_FAIL_STALE;
    KF_CHECK_STR(kf_loop_judge_best(&rec, &now), "dropped");
    now.verdict = KF_PASS;
    now.profiled = 0;
    KF_CHECK_STR(kf_loop_judge_best(&rec, &now), "dropped");
}

/* The final re-timing's choice: each finalist by the median of its rounds
 * (the upper one of an even count), one that failed any round out. */
KF_TEST(confirm_picks_the_fastest_median_round)
{
    /* A: its step's best, one lucky round; B: steadily faster; C: out in round 2 */
    double t[] = {0.5e-3, 2.0e-3, 2.2e-3,
                  1.5e-3, 1.4e-3, 1.6e-3,
                  0.1e-3, 0.0, 0.1e-3};
    double med[3];
    int at[3];
    KF_CHECK_INT(kf_loop_confirm_pick(t, 3, 3, med, at), 1);
    KF_CHECK(med[0] == 2.0e-3 && at[0] == 1);
    KF_CHECK(med[1] == 1.5e-3 && at[1] == 0);
    KF_CHECK(med[2] == 0 && at[2] == -1);
    /* equal times: in round order; two rounds: the slower one */
    double u[] = {1e-3, 1e-3, 3e-3, 2e-3};
    KF_CHECK_INT(kf_loop_confirm_pick(u, 2, 2, med, at), 0);
    KF_CHECK(at[0] == 1 && med[1] == 3e-3 && at[1] == 0);
    /* one round: its times decide */
    double w[] = {2e-3, 1e-3};
    KF_CHECK_INT(kf_loop_confirm_pick(w, 2, 1, NULL, NULL), 1);
    /* none left, or no round */
    double z[] = {0.0, -1.0};
    KF_CHECK_INT(kf_loop_confirm_pick(z, 2, 1, med, at), -1);
    KF_CHECK(med[0] == 0 && med[1] == 0);
    KF_CHECK_INT(kf_loop_confirm_pick(w, 2, 0, NULL, NULL), -1);
}

/* A step's time for picking finalists: its fastest timed run where known
 * and under its median (a slow stretch inflates the median), else the median. */
KF_TEST(finalist_key_is_the_fastest_run)
{
    KF_CHECK(kf_loop_finalist_key(6.8e-3, 1.1e-3) == 1.1e-3);   /* slow stretch: within 2x of 1.7 ms */
    KF_CHECK(kf_loop_finalist_key(1.7e-3, 0.0) == 1.7e-3);      /* min unknown (an old record) */
    KF_CHECK(kf_loop_finalist_key(1.7e-3, 2.0e-3) == 1.7e-3);   /* never above the median */
    KF_CHECK(kf_loop_finalist_key(1.7e-3, 1.7e-3) == 1.7e-3);
}

/* The journal: every event carries "ev" and "t", reads back in order, is
 * owner-only, a torn last line (a kill mid-write) is ignored, and the
 * first event appended after reopening it is not lost to the torn line. */
KF_TEST(journal_round_trip_and_torn_line)
{
    const char *dir = kf_test_tmpdir();
    kf_error err = {0};
    kf_journal *j = kf_journal_open(dir, &err);
    KF_CHECK_MSG(j != NULL, "open: %s", err.msg);
    for (int i = 0; i < 3; i++) {
        json_object *ev = json_object_new_object();
        json_object_object_add(ev, "step", json_object_new_int(i));
        KF_CHECK(kf_journal_append(j, i == 2 ? "eval-start" : "gen", ev, &err) == 0);
        json_object_put(ev);
    }
    kf_journal_close(j);
    char path[4200];
    snprintf(path, sizeof path, "%s/journal.jsonl", dir);
    struct stat st;
    KF_CHECK(stat(path, &st) == 0);
    KF_CHECK_INT(st.st_mode & 0777, 0600);
    /* a torn line at the end */
    int fd = open(path, O_WRONLY | O_APPEND);
    KF_CHECK(fd >= 0);
    const char torn[] = "{\"ev\":\"eval\",\"step\":2,\"verd";
    KF_CHECK(write(fd, torn, sizeof torn - 1) == (ssize_t)(sizeof torn - 1));
    close(fd);
    json_object *all = kf_journal_read(dir, &err);
    KF_CHECK_MSG(all != NULL, "read: %s", err.msg);
    KF_CHECK_INT((int)json_object_array_length(all), 3);
    for (int i = 0; i < 3; i++) {
        json_object *e = json_object_array_get_idx(all, (size_t)i), *v;
        KF_CHECK(json_object_object_get_ex(e, "ev", &v));
        KF_CHECK_STR(json_object_get_string(v), i == 2 ? "eval-start" : "gen");
        KF_CHECK(json_object_object_get_ex(e, "t", &v) && json_object_get_int64(v) > 1600000000);
        KF_CHECK(json_object_object_get_ex(e, "step", &v) && json_object_get_int(v) == i);
    }
    json_object_put(all);
    /* reopened (a resume): the torn line is ended first, so the next event
       is a line of its own and reads back */
    j = kf_journal_open(dir, &err);
    KF_CHECK_MSG(j != NULL, "reopen: %s", err.msg);
    KF_CHECK(kf_journal_append(j, "resume", NULL, &err) == 0);
    kf_journal_close(j);
    all = kf_journal_read(dir, &err);
    KF_CHECK_MSG(all != NULL, "read: %s", err.msg);
    KF_CHECK_INT((int)json_object_array_length(all), 4);
    json_object *last = json_object_array_get_idx(all, 3), *v;
    KF_CHECK(json_object_object_get_ex(last, "ev", &v));
    KF_CHECK_STR(json_object_get_string(v), "resume");
    json_object_put(all);
}

KF_TEST(missing_journal_is_an_error_that_says_so)
{
    const char *dir = kf_test_tmpdir();
    kf_error err = {0};
    json_object *all = kf_journal_read(dir, &err);
    KF_CHECK(all == NULL);
    KF_CHECK(err.kind != KF_E_NONE);
    KF_CHECK_INT(err.errnum, ENOENT);
    KF_CHECK_CONTAINS(err.msg, "no journal to resume from");
    KF_CHECK_CONTAINS(err.msg, "journal.jsonl");
    KF_CHECK_CONTAINS(err.msg, dir);
}


/* The stop conditions checked before every step: the budgets in order,
 * then the target fraction, only in OPTIMIZE with no repair pending. */
KF_TEST(stop_reasons_budgets_then_target)
{
    kf_run_opts o;
    kf_run_opts_default(&o);
    o.max_iterations = 5;
    o.max_time_s = 60;
    o.max_cost_usd = 1.0;
    o.target_fraction = 0.8;
    kf_loop_state opt = {PHASE_OPTIMIZE, 0}, fun = {PHASE_FUNCTIONAL, 0}, fixing = {PHASE_OPTIMIZE, 1};
    kf_eval_result best;
    memset(&best, 0, sizeof best);
    best.verdict = KF_PASS;
    best.profiled = 1;
    best.roofline.fraction = 0.5;
    KF_CHECK(kf_loop_stop_reason(&opt, &o, 4, 59.9, 0.99, &best) == NULL);
    KF_CHECK(kf_loop_stop_reason(&fun, &o, 0, 0, 0, NULL) == NULL);
    KF_CHECK_STR(kf_loop_stop_reason(&opt, &o, 5, 0, 0, &best), "iteration budget spent");
    KF_CHECK_STR(kf_loop_stop_reason(&opt, &o, 4, 60, 0, &best), "time budget spent");
    KF_CHECK_STR(kf_loop_stop_reason(&opt, &o, 4, 0, 1.0, &best), "cost budget spent");
    /* several spent at once: the first in order is given */
    KF_CHECK_STR(kf_loop_stop_reason(&opt, &o, 9, 99, 9, &best), "iteration budget spent");
    KF_CHECK_STR(kf_loop_stop_reason(&opt, &o, 0, 99, 9, &best), "time budget spent");
    best.roofline.fraction = 0.8;
    KF_CHECK_STR(kf_loop_stop_reason(&opt, &o, 0, 0, 0, &best), "within the target fraction of the roofline floor");
    /* not while a failed variant is being repaired, nor in FUNCTIONAL */
    KF_CHECK(kf_loop_stop_reason(&fixing, &o, 0, 0, 0, &best) == NULL);
    KF_CHECK(kf_loop_stop_reason(&fun, &o, 0, 0, 0, &best) == NULL);
    /* the target is of the device's fastest unit where known: an fp32 best
       at 90% of its own unit's floor and 20% of the tiles' goes on */
    best.roofline.fraction = 0.9;
    best.roofline.device_floor_s = 1e-3;
    best.roofline.device_fraction = 0.2;
    KF_CHECK(kf_loop_stop_reason(&opt, &o, 0, 0, 0, &best) == NULL);
    best.roofline.device_fraction = 0.85;
    KF_CHECK_STR(kf_loop_stop_reason(&opt, &o, 0, 0, 0, &best), "within the target fraction of the roofline floor");
    best.roofline.device_floor_s = best.roofline.device_fraction = 0;
    o.target_fraction = 0;               /* 0: never */
    best.roofline.fraction = 5;
    KF_CHECK(kf_loop_stop_reason(&opt, &o, 0, 0, 0, &best) == NULL);
    o.target_fraction = 0.8;
    KF_CHECK(kf_loop_stop_reason(&opt, &o, 0, 0, 0, NULL) == NULL);
}

/* ------------------------------------------------------------------ */
/* --resume on journals written by hand                                 */

#define PROBLEM "problems/level1/01_Square_matrix_multiplication.json"
#define PROBLEM_NAME "1_Square_matrix_multiplication"

/* An agent that only remembers: what the resume handed to load_state. */
typedef struct fake_agent {
    char *state;
    int loads;
    int refuse;
} fake_agent;

static int fake_load_state(kf_agent *a, const kf_agent_ctx *ctx, const char *state, kf_error *err)
{
    fake_agent *f = a->impl;
    (void)ctx;
    f->loads++;
    free(f->state);
    f->state = strdup(state);
    return f->refuse ? kf_fail(err, KF_E_BAD_INPUT, "history of another search space") : 0;
}

static const kf_agent_ops fake_ops = {.kind = "fake", .load_state = fake_load_state};
static fake_agent fake;
static kf_agent fake_agent_obj = {&fake_ops, "fake", &fake};

/* A run_state as kf_run() has it when it calls kf_loop_resume(): options
 * from run.json (backend cpu-simd), the problem, the agent, the journal
 * open for appending; no plugin. */
static void setup(run_state *st, const char *dir, int open_journal)
{
    memset(st, 0, sizeof *st);
    st->dir = strdup(dir);
    kf_run_opts_default(&st->o);
    st->o.backend = "cpu-simd";
    st->analysis_step = -1;
    st->agent = &fake_agent_obj;
    const char *src = getenv("KF_SRCDIR");
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", src ? src : ".", PROBLEM);
    kf_error e = {0};
    st->p = kf_problem_load(path, &e);
    KF_CHECK_MSG(st->p != NULL, "%s", e.msg);
    KF_CHECK_STR(st->p->name, PROBLEM_NAME);
    if (open_journal) {
        st->j = kf_journal_open(dir, &e);
        KF_CHECK_MSG(st->j != NULL, "%s", e.msg);
    }
}

static void teardown(run_state *st)
{
    if (st->last != st->best) kf_candidate_free(st->last);
    if (st->last_eval != st->best_eval) kf_loop_eval_free(st->last_eval);
    kf_candidate_free(st->best);
    kf_loop_eval_free(st->best_eval);
    free(st->best_dir);
    for (int i = 0; i < st->n_passes; i++) free(st->passes[i].dir);
    free(st->passes);
    if (st->analysis) { kf_analysis_free(st->analysis); free(st->analysis); }
    free(st->baseline_how);
    free(st->anchor_how);
    free(st->anchor_why);
    kf_journal_close(st->j);
    kf_problem_free(st->p);
    free(st->dir);
    memset(st, 0, sizeof *st);
}

/* DIR/steps/000STEP-S with a candidate and its recorded evaluation
 * (median > 0: profiled at that time). */
static void put_sample(const char *dir, int step, int s, kf_verdict v, double median)
{
    char sdir[4200], cdir[4300], summary[64];
    kf_error e = {0};
    snprintf(sdir, sizeof sdir, "%s/steps/%04d-%d", dir, step, s);
    KF_CHECK_MSG(kf_mkdir_p_mode(sdir, 0700, &e) == 0, "%s", e.msg);
    kf_candidate *c = kf_candidate_new("cpu-simd");
    KF_CHECK(c != NULL && kf_candidate_add_source(c, "kernel.c", "void kf_entry(void) {}\n") == 0);
    c->entry = strdup("kf_entry");
    snprintf(cdir, sizeof cdir, "%s/candidate", sdir);
    KF_CHECK_MSG(kf_candidate_save(c, cdir, &e) == 0, "%s", e.msg);
    kf_candidate_free(c);
    kf_eval_result r;
    memset(&r, 0, sizeof r);
    r.verdict = v;
    r.failed_trial = -1;
    snprintf(summary, sizeof summary, "%s (step %d sample %d)", kf_verdict_name(v), step, s);
    r.summary = summary;
    if (median > 0) {
        r.profiled = 1;
        r.timing.n = 1;
        r.timing.median_s = r.timing.min_s = median;
        r.roofline.fraction = 0.1;
        r.roofline.hard_floor_s = 1e-6;
    }
    KF_CHECK_MSG(kf_run_save_eval(sdir, &r, &e) == 0, "%s", e.msg);
}

/* Journal lines as core/run/loop.c writes them (steps below 10). */
#define START(problem, backend) \
    "{\"ev\":\"start\",\"t\":1,\"problem\":\"" problem "\",\"backend\":\"" backend "\",\"agent\":\"fake\"}\n"
#define GEN_(step, s, kind, extra)                                                                              \
    "{\"ev\":\"gen\",\"t\":1,\"step\":" #step ",\"sample\":" #s ",\"kind\":\"" kind "\",\"dir\":\"steps/000" #step \
    "-" #s "\",\"ok\":true,\"tokens_in\":100,\"tokens_out\":50,\"cost_usd\":0.25" extra "}\n"
#define GEN(step, s, kind) GEN_(step, s, kind, "")
#define EVAL_START(step, s) \
    "{\"ev\":\"eval-start\",\"t\":1,\"step\":" #step ",\"sample\":" #s ",\"dir\":\"steps/000" #step "-" #s "\"}\n"
#define EVAL(step, s, verdict)                                                                               \
    "{\"ev\":\"eval\",\"t\":1,\"step\":" #step ",\"sample\":" #s ",\"dir\":\"steps/000" #step "-" #s "\"," \
    "\"verdict\":\"" verdict "\"}\n"
#define BEST(step, s) \
    "{\"ev\":\"best\",\"t\":1,\"step\":" #step ",\"sample\":" #s ",\"dir\":\"steps/000" #step "-" #s "\"}\n"

static json_object *put_journal(const char *dir, const char *text)
{
    char path[4200];
    kf_error e = {0};
    snprintf(path, sizeof path, "%s/journal.jsonl", dir);
    KF_CHECK_MSG(kf_write_file_atomic_mode(path, text, 0600, &e) == 0, "%s", e.msg);
    json_object *events = kf_journal_read(dir, &e);
    KF_CHECK_MSG(events != NULL, "%s", e.msg);
    return events;
}

static json_object *reread(const char *dir)
{
    kf_error e = {0};
    json_object *events = kf_journal_read(dir, &e);
    KF_CHECK_MSG(events != NULL, "%s", e.msg);
    return events;
}

static const char *field(json_object *ev, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(ev, key, &v) && v ? json_object_get_string(v) : "";
}

/* How many events named NAME (and, when dir is not NULL, with that dir). */
static int count_ev(json_object *events, const char *name, const char *dir)
{
    int n = 0;
    for (size_t i = 0; i < json_object_array_length(events); i++) {
        json_object *ev = json_object_array_get_idx(events, i);
        if (!strcmp(field(ev, "ev"), name) && (!dir || !strcmp(field(ev, "dir"), dir))) n++;
    }
    return n;
}

/* The last event named NAME, or NULL. */
static json_object *last_ev(json_object *events, const char *name)
{
    json_object *found = NULL;
    for (size_t i = 0; i < json_object_array_length(events); i++) {
        json_object *ev = json_object_array_get_idx(events, i);
        if (!strcmp(field(ev, "ev"), name)) found = ev;
    }
    return found;
}

static int ends_with(const char *s, const char *tail)
{
    size_t a = s ? strlen(s) : 0, b = strlen(tail);
    return a >= b && !strcmp(s + a - b, tail);
}

static kf_gen_kind next_kind(const run_state *st)
{
    return kf_loop_next_kind(&st->ls, st->last && st->last_eval, st->last_eval ? st->last_eval->verdict : KF_PASS);
}

/* A whole run read back: step counter, tokens and cost, baseline, elapsed
 * time, every correct candidate, the best (from the evaluations, not from
 * the "best" events), the phase, the last analysis, the agent's state. */
KF_TEST(replay_rebuilds_the_interrupted_state)
{
    const char *dir = kf_test_tmpdir();
    put_sample(dir, 1, 0, KF_FAIL_MISMATCH, 0);
    put_sample(dir, 2, 0, KF_PASS, 2e-3);
    put_sample(dir, 3, 0, KF_PASS, 1e-3);
    put_sample(dir, 3, 1, KF_PASS, 3e-3);
    json_object *events = put_journal(dir,
        START(PROBLEM_NAME, "cpu-simd")
        "{\"ev\":\"baseline\",\"t\":1,\"dir\":\"baseline/candidate\",\"how\":\"op-by-op\",\"verdict\":\"pass\","
        "\"median_s\":0.004}\n"
        GEN_(1, 0, "generate", ",\"agent_state\":{\"tried\":\"first\"}") EVAL_START(1, 0) EVAL(1, 0, "mismatch")
        GEN_(2, 0, "fix-mismatch", ",\"agent_state\":{\"tried\":\"second\"}") EVAL_START(2, 0) EVAL(2, 0, "pass")
        BEST(2, 0)
        "{\"ev\":\"elapsed\",\"t\":1,\"seconds\":12.5}\n"
        "{\"ev\":\"analysis\",\"t\":1,\"step\":2,\"dir\":\"steps/0002-analysis\",\"bottleneck\":\"compute\","
        "\"text\":\"t\",\"stop\":false,\"recommendations\":[{\"what\":\"bigger tiles\",\"why\":\"w\","
        "\"expected_gain\":1.5}],\"agent_state\":{\"tried\":\"third\"}}\n"
        GEN(3, 0, "optimize") GEN(3, 1, "optimize") EVAL_START(3, 0) EVAL_START(3, 1)
        EVAL(3, 0, "pass") EVAL(3, 1, "pass")
        BEST(3, 1)     /* a "best" event is not what decides: 3-0 is faster */
        "{\"ev\":\"elapsed\",\"t\":1,\"seconds\":30}\n");
    run_state st;
    setup(&st, dir, 0);
    st.o.max_fix = 2;
    memset(&fake, 0, sizeof fake);
    step_t *partial = (step_t *)1;
    kf_error err = {0};
    KF_CHECK_MSG(kf_loop_replay(&st, events, &partial, &err) == 0, "replay: %s", err.msg);
    KF_CHECK(partial == NULL);               /* every step complete */
    KF_CHECK_INT(st.step, 3);
    KF_CHECK_INT(st.tok_in, 400);
    KF_CHECK_INT(st.tok_out, 200);
    KF_CHECK_NEAR(st.cost, 1.0, 1e-12);
    KF_CHECK(st.have_baseline);
    KF_CHECK_NEAR(st.baseline_s, 0.004, 1e-15);
    KF_CHECK_STR(st.baseline_how, "op-by-op");
    KF_CHECK_NEAR(st.elapsed_before, 30, 1e-12);
    /* the best: the fastest correct candidate recorded, read back, and
       marked for re-verification */
    KF_CHECK(st.best != NULL && st.best_eval != NULL);
    KF_CHECK_MSG(ends_with(st.best_dir, "/steps/0003-0/candidate"), "best_dir %s", st.best_dir);
    KF_CHECK_NEAR(st.best_eval->timing.median_s, 1e-3, 1e-15);
    KF_CHECK_STR(st.best_eval->summary, "pass (step 3 sample 0)");
    KF_CHECK_STR(st.best->entry, "kf_entry");
    KF_CHECK_INT(st.best_recorded, 1);
    /* every correct profiled sample, in journal order, none measured now */
    KF_CHECK_INT(st.n_passes, 3);
    KF_CHECK(ends_with(st.passes[0].dir, "/steps/0002-0") && ends_with(st.passes[1].dir, "/steps/0003-0") &&
             ends_with(st.passes[2].dir, "/steps/0003-1"));
    KF_CHECK_INT(st.passes[0].fresh + st.passes[1].fresh + st.passes[2].fresh, 0);
    /* the failed first candidate stays the last one (a passing step does
       not replace it); the phase is OPTIMIZE with nothing to repair */
    KF_CHECK(st.last_eval != NULL);
    KF_CHECK_INT(st.last_eval->verdict, KF_FAIL_MISMATCH);
    KF_CHECK_INT(st.ls.phase, PHASE_OPTIMIZE);
    KF_CHECK_INT(st.ls.fixes, 0);
    KF_CHECK_INT(next_kind(&st), KF_GEN_OPTIMIZE);
    /* the analysis of step 2, against the best of its time */
    KF_CHECK(st.analysis != NULL);
    KF_CHECK_INT(st.analysis_step, 2);
    KF_CHECK_INT(st.analysis->n_recs, 1);
    KF_CHECK_STR(st.analysis->recs[0].what, "bigger tiles");
    KF_CHECK_STR(st.analysis->bottleneck, "compute");
    KF_CHECK_NEAR(st.analysis_base_s, 2e-3, 1e-15);
    /* the agent's history: the last state journaled, restored once */
    KF_CHECK_INT(fake.loads, 1);
    KF_CHECK_CONTAINS(fake.state, "third");
    KF_CHECK_MSG(!strstr(fake.state, "second"), "state %s", fake.state);
    json_object_put(events);
    teardown(&st);
}

/* The phase and the repairs come back as the live loop left them: an
 * optimization variant that failed is repaired next, and a functional
 * run goes on with the repair its last verdict asks for. */
KF_TEST(replay_resumes_repairs_where_they_were)
{
    const char *dir = kf_test_tmpdir();
    put_sample(dir, 1, 0, KF_PASS, 2e-3);
    put_sample(dir, 2, 0, KF_FAIL_COMPILE, 0);
    json_object *events = put_journal(dir,
        START(PROBLEM_NAME, "cpu-simd")
        GEN(1, 0, "generate") EVAL_START(1, 0) EVAL(1, 0, "pass")
        GEN(2, 0, "optimize") EVAL_START(2, 0) EVAL(2, 0, "compile"));
    run_state st;
    setup(&st, dir, 0);
    st.o.max_fix = 2;
    kf_error err = {0};
    KF_CHECK_MSG(kf_loop_replay(&st, events, NULL, &err) == 0, "replay: %s", err.msg);
    KF_CHECK_INT(st.step, 2);
    KF_CHECK_INT(st.ls.phase, PHASE_OPTIMIZE);
    KF_CHECK_INT(st.ls.fixes, 1);
    KF_CHECK_INT(st.last_eval->verdict, KF_FAIL_COMPILE);
    KF_CHECK_INT(next_kind(&st), KF_GEN_FIX_COMPILE);
    KF_CHECK(ends_with(st.best_dir, "/steps/0001-0/candidate"));
    json_object_put(events);
    teardown(&st);

    /* functional: two failures, no correct candidate yet */
    const char *dir2 = kf_test_tmpdir();
    put_sample(dir2, 1, 0, KF_FAIL_COMPILE, 0);
    put_sample(dir2, 2, 0, KF_FAIL_NOT_WRITTEN, 0);
    events = put_journal(dir2,
        START(PROBLEM_NAME, "cpu-simd")
        GEN(1, 0, "generate") EVAL_START(1, 0) EVAL(1, 0, "compile")
        GEN(2, 0, "fix-compile") EVAL_START(2, 0) EVAL(2, 0, "not-written"));
    setup(&st, dir2, 0);
    KF_CHECK_MSG(kf_loop_replay(&st, events, NULL, &err) == 0, "replay: %s", err.msg);
    KF_CHECK_INT(st.step, 2);
    KF_CHECK(st.best == NULL);
    KF_CHECK_INT(st.ls.phase, PHASE_FUNCTIONAL);
    KF_CHECK_INT(st.last_eval->verdict, KF_FAIL_NOT_WRITTEN);
    KF_CHECK_INT(next_kind(&st), KF_GEN_FIX_MISMATCH);
    json_object_put(events);
    teardown(&st);
}

/* A step cut off mid-evaluation is handed back unfinished, its samples as
 * the journal has them (started or not, evaluated or not). */
KF_TEST(replay_hands_back_the_unfinished_step)
{
    const char *dir = kf_test_tmpdir();
    put_sample(dir, 1, 0, KF_PASS, 2e-3);
    put_sample(dir, 1, 1, KF_PASS, 1e-3);
    put_sample(dir, 1, 2, KF_PASS, 1e-3);
    json_object *events = put_journal(dir,
        START(PROBLEM_NAME, "cpu-simd")
        GEN(1, 0, "generate") GEN(1, 1, "generate") GEN(1, 2, "generate")
        EVAL_START(1, 0) EVAL_START(1, 1) EVAL(1, 0, "pass"));
    run_state st;
    setup(&st, dir, 0);
    step_t *partial = NULL;
    kf_error err = {0};
    KF_CHECK_MSG(kf_loop_replay(&st, events, &partial, &err) == 0, "replay: %s", err.msg);
    KF_CHECK(partial != NULL);
    KF_CHECK_INT(partial->step, 1);
    KF_CHECK_INT(partial->kind, KF_GEN_FIRST);
    KF_CHECK_INT(partial->n, 3);
    KF_CHECK(partial->s[0].started && partial->s[0].recorded && partial->s[0].res != NULL);
    KF_CHECK(partial->s[1].started && !partial->s[1].res);
    KF_CHECK(!partial->s[2].started && !partial->s[2].res && partial->s[2].cand != NULL);
    /* nothing of the unfinished step is in the state yet */
    KF_CHECK(st.best == NULL);
    KF_CHECK_INT(st.n_passes, 0);
    kf_loop_step_free(partial);
    free(partial);
    json_object_put(events);
    teardown(&st);
}

/* A journal whose "start" names another problem or backend than the run
 * directory's problem.json and run.json is refused, and says why. */
KF_TEST(replay_refuses_a_journal_of_another_run)
{
    const char *dir = kf_test_tmpdir();
    put_sample(dir, 1, 0, KF_PASS, 2e-3);
    json_object *events = put_journal(dir,
        START("19_ReLU", "cpu-simd") GEN(1, 0, "generate") EVAL_START(1, 0) EVAL(1, 0, "pass"));
    run_state st;
    setup(&st, dir, 0);
    kf_error err = {0};
    KF_CHECK(kf_loop_replay(&st, events, NULL, &err) == -1);
    KF_CHECK_INT(err.kind, KF_E_BAD_INPUT);
    KF_CHECK_CONTAINS(err.msg, "journal.jsonl");
    KF_CHECK_CONTAINS(err.msg, "'19_ReLU'");
    KF_CHECK_CONTAINS(err.msg, "'" PROBLEM_NAME "'");
    KF_CHECK_CONTAINS(err.msg, "cannot resume");
    KF_CHECK(st.best == NULL);
    json_object_put(events);
    teardown(&st);

    events = put_journal(dir, START(PROBLEM_NAME, "opencl") GEN(1, 0, "generate"));
    setup(&st, dir, 0);
    memset(&err, 0, sizeof err);
    KF_CHECK(kf_loop_replay(&st, events, NULL, &err) == -1);
    KF_CHECK_INT(err.kind, KF_E_BAD_INPUT);
    KF_CHECK_CONTAINS(err.msg, "backend 'opencl'");
    KF_CHECK_CONTAINS(err.msg, "'cpu-simd'");
    json_object_put(events);
    teardown(&st);

    /* the same run's journal is accepted */
    events = put_journal(dir, START(PROBLEM_NAME, "cpu-simd") GEN(1, 0, "generate"));
    setup(&st, dir, 0);
    memset(&err, 0, sizeof err);
    KF_CHECK_MSG(kf_loop_replay(&st, events, NULL, &err) == 0, "replay: %s", err.msg);
    json_object_put(events);
    teardown(&st);
}

/* kforge died while a candidate ran (its "eval" line torn or missing): the
 * resumed run records it as a crash without running it again, and a second
 * resume finds it recorded and pays for nothing. */
KF_TEST(resume_records_a_cut_off_evaluation_as_a_crash)
{
    const char *dir = kf_test_tmpdir();
    put_sample(dir, 1, 0, KF_PASS, 2e-3);    /* eval.json of an earlier attempt: not read */
    json_object *events = put_journal(dir,
        START(PROBLEM_NAME, "cpu-simd") GEN(1, 0, "generate") EVAL_START(1, 0)
        "{\"ev\":\"eval\",\"t\":1,\"step\":1,\"sample\":0,\"dir\":\"steps/0001-0\",\"verd");
    KF_CHECK_INT((int)json_object_array_length(events), 3);
    run_state st;
    setup(&st, dir, 1);
    kf_error err = {0};
    KF_CHECK_MSG(kf_loop_resume(&st, events, &err) == 0, "resume: %s", err.msg);
    json_object_put(events);
    KF_CHECK_INT(st.step, 1);
    KF_CHECK(st.best == NULL);
    KF_CHECK(st.last_eval != NULL);
    KF_CHECK_INT(st.last_eval->verdict, KF_FAIL_CRASH);
    KF_CHECK_CONTAINS(st.last_eval->summary, "kforge itself died while evaluating this candidate");
    KF_CHECK_CONTAINS(st.last_eval->diagnostics, "not evaluated again");
    KF_CHECK_INT(next_kind(&st), KF_GEN_FIX_MISMATCH);
    teardown(&st);

    /* on disk: "resume" (readable after the torn line), the crash as the
       sample's "eval", its eval.json; no new "eval-start" */
    events = reread(dir);
    json_object *r = last_ev(events, "resume");
    KF_CHECK_MSG(r != NULL, "no readable \"resume\" event after the torn line");
    KF_CHECK_STR(field(r, "step"), "1");
    KF_CHECK_INT(count_ev(events, "eval-start", "steps/0001-0"), 1);
    KF_CHECK_INT(count_ev(events, "eval", "steps/0001-0"), 1);
    KF_CHECK_STR(field(last_ev(events, "eval"), "verdict"), "crash");
    char sdir[4200];
    snprintf(sdir, sizeof sdir, "%s/steps/0001-0", dir);
    kf_eval_result rec;
    memset(&rec, 0, sizeof rec);
    KF_CHECK(kf_run_load_eval(sdir, &rec, &err) == 0);
    KF_CHECK_INT(rec.verdict, KF_FAIL_CRASH);
    kf_eval_result_free(&rec);

    /* resumed again: the crash is read back, nothing is evaluated or
       recorded twice */
    setup(&st, dir, 1);
    KF_CHECK_MSG(kf_loop_resume(&st, events, &err) == 0, "resume: %s", err.msg);
    json_object_put(events);
    KF_CHECK_INT(st.step, 1);
    KF_CHECK_INT(st.last_eval->verdict, KF_FAIL_CRASH);
    teardown(&st);
    events = reread(dir);
    KF_CHECK_INT(count_ev(events, "resume", NULL), 2);
    KF_CHECK_INT(count_ev(events, "eval-start", NULL), 1);
    KF_CHECK_INT(count_ev(events, "eval", NULL), 1);
    json_object_put(events);
}

/* Every sample of the step that was running is a suspect: each one is
 * recorded as a crash, saying how many ran together.  A sample generated
 * but never started is evaluated now (here refused: no plugin). */
KF_TEST(resume_blames_every_sample_in_flight_and_evaluates_the_rest)
{
    const char *dir = kf_test_tmpdir();
    put_sample(dir, 1, 0, KF_PASS, 2e-3);
    put_sample(dir, 1, 1, KF_PASS, 2e-3);
    put_sample(dir, 1, 2, KF_PASS, 2e-3);
    json_object *events = put_journal(dir,
        START(PROBLEM_NAME, "cpu-simd")
        GEN(1, 0, "generate") GEN(1, 1, "generate") GEN(1, 2, "generate")
        EVAL_START(1, 0) EVAL_START(1, 1));
    run_state st;
    setup(&st, dir, 1);
    kf_error err = {0};
    KF_CHECK_MSG(kf_loop_resume(&st, events, &err) == 0, "resume: %s", err.msg);
    json_object_put(events);
    KF_CHECK(st.best == NULL);
    KF_CHECK_INT(st.last_eval->verdict, KF_FAIL_CRASH);     /* the step's first failure */
    KF_CHECK_CONTAINS(st.last_eval->diagnostics, "2 samples of this step were being evaluated at the same time");
    teardown(&st);
    events = reread(dir);
    KF_CHECK_INT(count_ev(events, "eval-start", "steps/0001-0"), 1);
    KF_CHECK_INT(count_ev(events, "eval-start", "steps/0001-1"), 1);
    KF_CHECK_INT(count_ev(events, "eval-start", "steps/0001-2"), 2 - 1);   /* announced now, once */
    const char *want[3] = {"crash", "crash", "internal-error"};
    for (int s = 0; s < 3; s++) {
        char sdir[4200];
        snprintf(sdir, sizeof sdir, "%s/steps/0001-%d", dir, s);
        kf_eval_result rec;
        memset(&rec, 0, sizeof rec);
        KF_CHECK(kf_run_load_eval(sdir, &rec, &err) == 0);
        KF_CHECK_MSG(!strcmp(kf_verdict_name(rec.verdict), want[s]), "sample %d: %s", s, kf_verdict_name(rec.verdict));
        if (s == 2) KF_CHECK_CONTAINS(rec.summary, "missing plugin");
        kf_eval_result_free(&rec);
        snprintf(sdir, sizeof sdir, "steps/0001-%d", s);
        KF_CHECK_INT(count_ev(events, "eval", sdir), 1);
    }
    json_object_put(events);
}

/* The recorded best is evaluated again before it is adopted; one that
 * fails (here: cannot be evaluated at all) is dropped, the fastest other
 * correct candidate is tried next, and with none left the run is back in
 * FUNCTIONAL with the dropped one to repair. */
KF_TEST(resume_reverifies_the_recorded_best_before_adopting_it)
{
    const char *dir = kf_test_tmpdir();
    put_sample(dir, 1, 0, KF_PASS, 3e-3);
    put_sample(dir, 2, 0, KF_PASS, 1e-3);
    put_sample(dir, 2, 1, KF_PASS, 2e-3);
    json_object *events = put_journal(dir,
        START(PROBLEM_NAME, "cpu-simd")
        GEN(1, 0, "generate") EVAL_START(1, 0) EVAL(1, 0, "pass") BEST(1, 0)
        GEN(2, 0, "optimize") GEN(2, 1, "optimize") EVAL_START(2, 0) EVAL_START(2, 1)
        EVAL(2, 0, "pass") EVAL(2, 1, "pass") BEST(2, 0));
    run_state st;
    setup(&st, dir, 1);
    kf_error err = {0};
    KF_CHECK_MSG(kf_loop_resume(&st, events, &err) == 0, "resume: %s", err.msg);
    json_object_put(events);
    KF_CHECK(st.best == NULL && st.best_eval == NULL);
    KF_CHECK_INT(st.ls.phase, PHASE_FUNCTIONAL);
    KF_CHECK_INT(st.last_eval->verdict, KF_FAIL_INTERNAL);
    KF_CHECK_INT(next_kind(&st), KF_GEN_FIX_MISMATCH);
    teardown(&st);
    /* tried fastest first: 2-0, then 2-1, then 1-0; each announced, then
       judged "dropped" */
    events = reread(dir);
    const char *order[3] = {"steps/0002-0", "steps/0002-1", "steps/0001-0"};
    int k = 0;
    for (size_t i = 0; i < json_object_array_length(events); i++) {
        json_object *ev = json_object_array_get_idx(events, i);
        if (strcmp(field(ev, "ev"), "verify-best")) continue;
        KF_CHECK_MSG(k < 3, "more re-verifications than correct candidates");
        KF_CHECK_STR(field(ev, "dir"), order[k]);
        KF_CHECK_STR(field(ev, "outcome"), "dropped");
        KF_CHECK_STR(field(ev, "verdict"), "internal-error");
        k++;
    }
    KF_CHECK_INT(k, 3);
    KF_CHECK_INT(count_ev(events, "verify-best-start", NULL), 3);
    json_object_put(events);
    char vdir[4200];
    snprintf(vdir, sizeof vdir, "%s/steps/0002-0/reverify", dir);
    kf_eval_result rec;
    memset(&rec, 0, sizeof rec);
    KF_CHECK(kf_run_load_eval(vdir, &rec, &err) == 0);
    KF_CHECK_INT(rec.verdict, KF_FAIL_INTERNAL);
    kf_eval_result_free(&rec);
}

/* An earlier --resume died re-verifying the best ("verify-best-start"
 * without "verify-best"): the candidate is dropped, not run again. */
KF_TEST(resume_drops_a_best_whose_reverification_killed_kforge)
{
    const char *dir = kf_test_tmpdir();
    put_sample(dir, 1, 0, KF_PASS, 3e-3);
    json_object *events = put_journal(dir,
        START(PROBLEM_NAME, "cpu-simd")
        GEN(1, 0, "generate") EVAL_START(1, 0) EVAL(1, 0, "pass") BEST(1, 0)
        "{\"ev\":\"resume\",\"t\":1,\"step\":1}\n"
        "{\"ev\":\"verify-best-start\",\"t\":1,\"dir\":\"steps/0001-0\"}\n");
    run_state st;
    setup(&st, dir, 1);
    kf_error err = {0};
    KF_CHECK_MSG(kf_loop_resume(&st, events, &err) == 0, "resume: %s", err.msg);
    json_object_put(events);
    KF_CHECK(st.best == NULL);
    KF_CHECK_INT(st.last_eval->verdict, KF_FAIL_CRASH);
    KF_CHECK_CONTAINS(st.last_eval->summary, "re-verifying");
    teardown(&st);
    events = reread(dir);
    KF_CHECK_INT(count_ev(events, "verify-best-start", NULL), 1);   /* not run again */
    json_object *v = last_ev(events, "verify-best");
    KF_CHECK(v != NULL);
    KF_CHECK_STR(field(v, "dir"), "steps/0001-0");
    KF_CHECK_STR(field(v, "outcome"), "dropped");
    KF_CHECK_STR(field(v, "verdict"), "crash");
    json_object_put(events);
}

int main(void)
{
    return kf_test_main();
}
