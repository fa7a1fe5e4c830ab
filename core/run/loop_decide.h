/*
 * loop_decide.h — the refinement loop's decisions, as pure functions of
 * the loop's state (no I/O, no agent, no worker), so that the state machine
 * is tested on its own (tests/unit/test_loop.c).
 *
 * The loop is in one of two phases.  FUNCTIONAL: no correct candidate yet;
 * each step writes one (first, then repairs of the last failure).
 * OPTIMIZE: a correct best exists; each step applies the analysis agent's
 * recommendations, and a variant that fails gets up to max_fix repairs
 * before the loop optimizes from the best again.
 */
#ifndef KF_LOOP_DECIDE_H
#define KF_LOOP_DECIDE_H

#include "agent/agent.h"
#include "eval/eval.h"
#include "loop.h"

typedef enum { PHASE_FUNCTIONAL = 0, PHASE_OPTIMIZE = 1 } phase_t;

typedef struct kf_loop_state {
    phase_t phase;
    int fixes;               /* repairs of the current optimization variant so far */
} kf_loop_state;

/* What the next step asks the generation agent for.  have_last: a last
 * candidate with its evaluation exists; last: its verdict. */
kf_gen_kind kf_loop_next_kind(const kf_loop_state *s, int have_last, kf_verdict last);

/* The state after a step of `kind`: any_pass (a sample passed), have_best
 * (a correct best exists after the step), last_pass (the last candidate
 * passed), max_fix (repairs allowed per optimization variant). */
void kf_loop_after_step(kf_loop_state *s, kf_gen_kind kind, int any_pass, int have_best, int last_pass,
                        int max_fix);

/* On resume, what happens to the recorded best after evaluating it again:
 * "dropped" (it no longer passes, or could not be timed), "remeasured" (it
 * passes, but its recorded time was missing or below the hard floor of
 * this device: the new time replaces it), or "kept". */
const char *kf_loop_judge_best(const kf_eval_result *recorded, const kf_eval_result *now);

/* Why the loop stops before its next step, or NULL to go on: the
 * iteration, time and cost budgets (in that order), then, in OPTIMIZE with
 * no repair pending, a best within o->target_fraction of the roofline
 * floor (0: never).  step: steps taken; elapsed_s: seconds spent, those
 * before a resume included; best: the best's evaluation or NULL.  The
 * analysis agent's own stop is decided after its analysis (loop.c). */
const char *kf_loop_stop_reason(const kf_loop_state *s, const kf_run_opts *o, int step, double elapsed_s,
                                double cost_usd, const kf_eval_result *best);

/* The final re-timing (loop_confirm.c): the finalists' times over the
 * rounds completed, t[i * rounds + r] (finalist i, round r; 0 or less: i
 * was out by round r, failing its re-evaluation).  Each finalist still in
 * is timed by the median of its rounds (the upper one of an even count,
 * the round *at[i] names); returns the index of the fastest, or -1 when
 * none is left or rounds is 0.  med[i] (NULL: not wanted) gets each one's
 * median, 0 for those out. */
int kf_loop_confirm_pick(const double *t, int n, int rounds, double *med, int *at);

/* What a step's time counts as when finalists are picked and ordered: its
 * fastest timed run where known (min_s > 0), else its median.  A slow stretch
 * of the machine during one step inflates that step's median, not its
 * fastest run: on the 16-core host a LayerNorm kernel of 1.2-1.3 ms timed a
 * 6.8 ms median in its step and was never re-timed beside the 1.7-2.6 ms one
 * the search kept
 * (bench/results/xeon16-cpu-gelu-table-2026-11-30). */
double kf_loop_finalist_key(double median_s, double min_s);

#endif
