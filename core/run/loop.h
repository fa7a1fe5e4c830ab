/*
 * loop.h — `kforge run`: the refinement loop of the two agents.
 *
 * Functional passes (generate -> compile -> verify, failures fed back until a
 * candidate is correct) alternate with optimization passes (profile ->
 * analysis agent -> new candidate -> functional pass -> keep the best).
 * Every step is recorded in the run directory:
 *
 *   DIR/run.json              the run's settings (used by --resume)
 *   DIR/problem.json          a copy of the problem
 *   DIR/journal.jsonl         one JSON line per event, fsync'ed
 *   DIR/baseline/             the op-by-op baseline candidate and its eval
 *   DIR/baseline/anchor/      the GEMM anchor (anchor.h): the problem's main
 *                             GEMM alone as a library call, its problem,
 *                             candidate and eval, timed right after the
 *                             baseline (result.json baseline.gemm_anchor)
 *   DIR/steps/NNNN-S/         prompt.md, answer.md, candidate/, eval.json,
 *                             verdict.json, reverify/ (a resume's check)
 *   DIR/steps/NNNN-analysis/  prompt.md, answer.md, analysis.json
 *   DIR/confirm/R-I/          the final re-timing's evaluations (round R,
 *                             finalist I; loop_confirm.c): eval.json
 *   DIR/result.json           the best candidate, its verified status, time,
 *                             speedup over the baseline, roofline fraction
 *
 * Everything in it is created owner-only (directories 0700, files 0600);
 * the worker that runs candidates never gets the run directory (loop.c).
 *
 * Every evaluation is preceded by an "eval-start" event on disk.  Resume
 * (core/run/loop_resume.c): the journal is replayed through the loop's own step
 * code, with the evaluations read back whole from eval.json, the last
 * analysis and the agent's search state from the journal, so the resumed
 * run decides as the uninterrupted one would.  A candidate whose
 * evaluation had started but has no result (kforge died with it) is
 * recorded as a crash and never run again; one generated but not started
 * is evaluated from its saved copy (never generated again); the recorded
 * best is evaluated again before it is adopted, and dropped if it fails.
 * LLM answers also go through the response cache.
 */
#ifndef KF_LOOP_H
#define KF_LOOP_H

#include <stdint.h>
#include <stdio.h>
#include "util/error.h"
#include "util/progress.h"
#include "eval/eval.h"

typedef struct kf_run_opts {
    const char *problem_path;
    const char *preset;          /* NULL: "small" */
    const char *backend;         /* required */
    int device;
    const char *agent;           /* NULL: "builtin" */
    const char *out_dir;         /* NULL: runs/<problem>-<preset>-<backend>-<time> */
    const char *resume_dir;      /* continue this run */
    const char *prompts_dir;     /* NULL: $KFORGE_PROMPTS or the installed set */
    const char *record_path;     /* --record FILE */
    const char *cache_dir;       /* LLM response cache, NULL: $XDG_CACHE_HOME/kforge/llm */
    int max_iterations;          /* steps, default 12 */
    double max_time_s;           /* wall clock budget, default 600 */
    double max_cost_usd;         /* default 5 */
    int samples;                 /* candidates per step, default 1: compiled and verified in
                                    parallel, then timed one at a time (never two timings, nor
                                    a timing and a compile, at once) */
    int max_fix;                 /* functional repairs of one optimization variant, default 2 */
    double target_fraction;      /* stop at this roofline fraction, default 0.8; 0 = never */
    uint64_t seed;               /* input draws (--seed) */
    uint64_t agent_seed;         /* --agent-seed: the agent's own seed, 0 = none (see
                                    kf_agent_ctx.agent_seed); recorded, kept on resume */
    const char *from_dir;        /* --from RUN_DIR: another run whose verified best kernel
                                    the generation agent gets as a reference (loop_from.c) */
    int baseline;                /* 1: measure the op-by-op baseline (default) */
    int precision;               /* kf_precision_policy (problem/precision.h, --precision):
                                    FP32 lowers the problem's relative-L2 bound for every
                                    evaluation and keeps the agents to fp32; recorded in
                                    run.json, kept on resume */
    int confirm_rounds;          /* the final re-timing's rounds (loop_confirm.c), default
                                    KF_CONFIRM_ROUNDS; 0: none, the search's best as timed in its
                                    step; -1 (resume): as run.json says */
    kf_eval_opts eval;
    /* LLM agents (kf_agent_opts): 0 / has_temperature 0 = the config's, else the default */
    int max_tokens;              /* --max-tokens */
    int has_temperature;         /* --temperature given */
    double temperature;
    int context_tokens;          /* --context-tokens */
    double request_timeout_s;    /* --request-timeout */
    kf_progress progress;        /* progress lines (fn NULL: quiet; util/progress.h) */
    int json_progress;           /* progress as JSON lines */
} kf_run_opts;

void kf_run_opts_default(kf_run_opts *o);

/* The final re-timing (core/run/loop_confirm.c): after the last step, the
 * search's best and up to KF_CONFIRM_FINALISTS - 1 other correct
 * candidates whose fastest timed run in their step was within
 * KF_CONFIRM_RATIO of the best's step time (kf_loop_finalist_key) are
 * evaluated again in confirm_rounds rounds back to back; the fastest by the
 * median of its rounds is the run's best.  Rounds start only while the
 * run's wall clock is under max_time_s * (1 + KF_CONFIRM_OVERRUN). */
#define KF_CONFIRM_ROUNDS 3
#define KF_CONFIRM_MAX_ROUNDS 9
#define KF_CONFIRM_FINALISTS 3
#define KF_CONFIRM_RATIO 2.0
#define KF_CONFIRM_OVERRUN 0.25
/* The op-by-op baseline takes the search's kernel's place only when it was
 * faster in each of at least this many rounds: one round is one pair of
 * timings (on the 16-core host a baseline 1% faster in the one round a
 * run's budget left replaced a streamed kernel that was 1.23-1.62x faster
 * in 5 rounds in turns, bench/results/xeon16-cpu-stream-ab-2026-12-01). */
#define KF_CONFIRM_BASELINE_ROUNDS 2

typedef struct kf_run_summary {
    char *run_dir;               /* malloc'ed */
    int have_best;
    char *best_dir;              /* candidate directory of the best, malloc'ed */
    double best_s, baseline_s, speedup, fraction;
    int same_code_as_baseline;   /* the best is the baseline's code: speedup 1 (kf_candidate_same_code) */
    double anchor_s;             /* the GEMM anchor (anchor.h), 0 when not measured */
    int steps;
    long tokens_in, tokens_out;
    double cost_usd;
    char *stop_reason;           /* malloc'ed */
    char *timing_warning;        /* malloc'ed; set when the best's median is KF_TIMING_WARN_RATIO times
                                    the fastest time seen for it (timing_warning.h), else NULL */
} kf_run_summary;

void kf_run_summary_free(kf_run_summary *s);

/* Runs (or resumes) a run.  Returns 0 when the loop ran (whether or not a
 * correct candidate was found: see summary->have_best), -1 on a bad request,
 * an I/O error that makes recording impossible, or an agent that cannot go on
 * (err says why; a model server that is down leaves err->code an outage code
 * of llm.h, kf_llm_error_is_outage: the run is recorded and resumable). */
int kf_run(const kf_run_opts *o, kf_run_summary *out, kf_error *err);

#endif
