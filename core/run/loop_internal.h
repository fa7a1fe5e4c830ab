/*
 * loop_internal.h — what core/run/loop.c (the live loop) and core/run/loop_resume.c
 * (--resume) share: the state of a run, and the one path every step's
 * results take into it (kf_loop_finish_step), whether they were measured
 * now or read back from the run directory.  Replaying a journal through
 * the same code is what puts a resumed run in the state the interrupted
 * one was in.
 */
#ifndef KF_LOOP_INTERNAL_H
#define KF_LOOP_INTERNAL_H

#include <json-c/json.h>
#include <stdint.h>

#include "agent/agent.h"
#include "journal.h"
#include "loop.h"
#include "loop_decide.h"
#include "backend/registry.h"


#define KF_LOOP_MAX_SAMPLES 64

/* A correct, profiled candidate the run has seen: where the resumed run
 * turns when the recorded best fails its re-verification. */
typedef struct loop_pass {
    char *dir;                    /* DIR/steps/NNNN-S */
    double median_s;
    double min_s;                 /* its fastest timed run (median_s where unknown) */
    int fresh;                    /* measured by this process */
    int rejected;                 /* failed re-verification */
} loop_pass;

typedef struct run_state {
    kf_run_opts o;                /* effective options (resume: from run.json) */
    char *dir;
    char *problem_copy;
    char *recorded[4];            /* backend, agent, preset, prompts read from run.json (resume) */
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
    kf_loop_state ls;             /* phase and repairs so far (loop_decide.h) */
    kf_candidate *last;
    kf_eval_result *last_eval;
    kf_candidate *best;
    kf_eval_result *best_eval;
    char *best_dir;               /* DIR/steps/NNNN-S/candidate */
    int best_recorded;            /* best_eval was read from the records, not measured
                                     by this process: re-verified before it is adopted */
    loop_pass *passes;            /* every correct profiled sample, in journal order */
    int n_passes;
    kf_analysis *analysis;
    int analysis_step;            /* st->step when `analysis` was made, -1 if none */
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
    int have_baseline;            /* the journal has a "baseline" event (resume) */
    int have_anchor;              /* the journal has an "anchor" event (resume) */
    long tok_in, tok_out;
    double cost;
    double elapsed_before;        /* seconds spent before a resume */
    double t0;

    /* --from RUN_DIR (loop_from.c): the other run's best kernel */
    kf_agent_reference from_ref;  /* what ctx.reference points to */
    kf_candidate *from_cand;
    char *from_run_dir, *from_backend, *from_agent, *from_best_dir, *from_point;
    int from_best_step;
    double from_best_s;
    char *from_recorded;          /* run.json "from" run_dir (resume) */

    /* the final re-timing (loop_confirm.c), for result.json: rounds
       completed (0: none ran), finalists, and the chosen one's time in its
       own step; the search's best it replaced (relative to the run
       directory, owned; NULL when the search's best stood) */
    int confirm_rounds_done, confirm_finalists;
    double confirm_step_s;
    char *confirm_replaced;
    double baseline_start_s;      /* > 0: baseline_s was re-timed in the final rounds; this is its first time */
    int baseline_rounds;          /* ... in this many rounds */

    /* test hook KFORGE_TEST_DIE_AFTER=EV[:N] (see kf_loop_journal) */
    char die_ev[32];
    int die_n, die_seen;
} run_state;

/* One sample of a step: where it lives, what was generated, how it fared. */
typedef struct step_sample {
    char *dir;                    /* DIR/steps/NNNN-S, malloc'ed */
    kf_candidate *cand;           /* NULL: the answer held no usable candidate */
    char *label;
    kf_eval_result *res;          /* NULL until evaluated */
    int recorded;                 /* the journal has its "eval" event */
    int started;                  /* the journal has its "eval-start" event */
    /* when the evaluation that made res ran (wall clock), and which pass:
       with several samples, compile + verify in parallel, then each
       correct one profiled alone (loop.c, kf_loop_evaluate) */
    double t_start, t_end;
    int profile, serial;
    double verify_t0, verify_t1;
} step_sample;

typedef struct step_t {
    int step;
    kf_gen_kind kind;
    int n;                        /* samples 0..n-1 */
    step_sample s[KF_LOOP_MAX_SAMPLES];
} step_t;

/* The run's GEMM anchor from an "anchor" journal event (loop.c). */
void kf_loop_anchor_from_event(run_state *st, json_object *ev);

/* Appends an event to the journal (flushed and fsync'ed).  Test hook:
 * with KFORGE_TEST_DIE_AFTER=EV[:N] in the environment, kforge kills
 * itself with SIGKILL right after the N-th (default first) event named EV
 * of this process is on disk, as a candidate that kills its parent would. */
int kf_loop_journal(run_state *st, const char *ev_name, json_object *ev, kf_error *err);

/* Evaluates every sample of sp that has a candidate and no result, in
 * parallel, each after its "eval-start" event is on disk. */
int kf_loop_evaluate(run_state *st, step_t *sp, kf_error *err);

/* Takes a step's results into the run: records those the journal lacks
 * (eval.json, verdict.json, the "eval" and "best" events), updates the
 * best and the last candidate, the phase and the repair count.  pass names
 * the step in progress lines; NULL (replaying records) prints nothing.
 * Frees the samples' contents. */
int kf_loop_finish_step(run_state *st, step_t *sp, const char *pass, kf_error *err);

/* Records sample s of sp as an unusable answer (no candidate): a failed
 * step fed back to the agent.  why: the agent's reason. */
int kf_loop_bad_answer(run_state *st, step_t *sp, int s, const char *why, const char *pass, kf_error *err);

void kf_loop_step_free(step_t *sp);
/* Makes the sample in DIR/steps/NNNN-S (its candidate and recorded
 * evaluation) the best; fresh: measured by this process.  Returns 0, or -1
 * when its records cannot be read. */
int kf_loop_adopt_best(run_state *st, const char *sdir, int fresh, kf_error *err);
void kf_loop_eval_free(kf_eval_result *e);
/* Makes c (evaluated as e, from DIR/steps/NNNN-S/candidate dir) the best;
 * takes both, frees the former best's unless they are also the last.
 * NULL, NULL, NULL: no best. */
void kf_loop_set_best(run_state *st, kf_candidate *c, kf_eval_result *e, const char *dir);
/* seconds the run has spent, those before a resume included */
double kf_loop_elapsed(const run_state *st);
/* The final re-timing (loop.h, KF_CONFIRM_*; core/run/loop_confirm.c):
 * replaces st->best / best_eval with the fastest finalist and its
 * evaluation of its median round, journals a "confirm" event and saves
 * every re-evaluation under DIR/confirm/.  A finalist that fails its
 * re-evaluation is out; when all are, the run is left without a best.
 * Returns 0, or -1 on an internal failure (err; the best is unchanged). */
int kf_loop_confirm(run_state *st, kf_error *err);
void kf_loop_set_last(run_state *st, kf_candidate *c, kf_eval_result *e);
void kf_loop_progress(run_state *st, const char *pass, const char *status, const char *label,
                      const kf_eval_result *e);
uint64_t kf_loop_seed(const run_state *st, int step, int sample);
/* the agent's sampling seed of a request (kf_loop_seed mixed with --agent-seed) */
uint64_t kf_loop_agent_seed(const run_state *st, int step, int sample);
/* path inside the run directory, relative to it */
const char *kf_loop_rel(const run_state *st, const char *path);

/* --from RUN_DIR (core/run/loop_from.c): loads that run's verified best
 * (result.json, its candidate directory) and points st->ctx.reference at
 * it; 0, or -1 (code 2: no such run, no verified kernel).  _json: the
 * record of it for run.json, the journal and result.json (NULL when
 * none). */
int kf_loop_from_load(run_state *st, const char *dir, kf_error *err);
json_object *kf_loop_from_json(const run_state *st);
void kf_loop_from_free(run_state *st);

/* --resume (core/run/loop_resume.c): rebuilds the state from the journal,
 * appends the "resume" event, records a candidate whose evaluation kforge
 * did not survive as a crash, evaluates what was generated but never
 * started, and re-verifies the recorded best. */
int kf_loop_resume(run_state *st, json_object *events, kf_error *err);

/* kf_loop_resume's first half, for tests (tests/unit/test_loop.c): folds
 * the events into st (steps, tokens, best, last, phase, analysis, the
 * agent's state) and refuses a journal of another run, without journaling,
 * evaluating or re-verifying anything.  *partial (when partial is not
 * NULL): the step left unfinished, its samples' "started" and results as
 * recorded, or NULL; the caller frees it (kf_loop_step_free, free). */
int kf_loop_replay(run_state *st, json_object *events, step_t **partial, kf_error *err);

#endif
