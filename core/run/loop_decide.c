/* loop_decide.c — the loop's pure decisions (loop_decide.h). */
#include "loop_decide.h"

kf_gen_kind kf_loop_next_kind(const kf_loop_state *s, int have_last, kf_verdict last)
{
    if (s->phase == PHASE_OPTIMIZE && s->fixes == 0) return KF_GEN_OPTIMIZE;
    if (!have_last) return KF_GEN_FIRST;
    if (last == KF_PASS) return KF_GEN_OPTIMIZE;
    if (last == KF_FAIL_COMPILE || last == KF_FAIL_BIND) return KF_GEN_FIX_COMPILE;
    return KF_GEN_FIX_MISMATCH;
}

void kf_loop_after_step(kf_loop_state *s, kf_gen_kind kind, int any_pass, int have_best, int last_pass,
                        int max_fix)
{
    if (kind == KF_GEN_FIRST || kind == KF_GEN_FIX_COMPILE || kind == KF_GEN_FIX_MISMATCH) {
        if (s->phase == PHASE_OPTIMIZE) {
            /* repairing an optimization variant */
            if (any_pass || ++s->fixes > max_fix) s->fixes = 0;
        } else if (have_best) {
            s->phase = PHASE_OPTIMIZE;
            s->fixes = 0;
        }
        return;
    }
    /* an optimization step: its variants failed -> functional repair */
    s->fixes = !any_pass && !last_pass && max_fix > 0 ? 1 : 0;
}

const char *kf_loop_judge_best(const kf_eval_result *recorded, const kf_eval_result *now)
{
    if (now->verdict != KF_PASS || !now->profiled) return "dropped";
    double t = recorded->profiled ? recorded->timing.median_s : 0;
    if (!(t > 0) || t < now->roofline.hard_floor_s) return "remeasured";
    return "kept";
}

const char *kf_loop_stop_reason(const kf_loop_state *s, const kf_run_opts *o, int step, double elapsed_s,
                                double cost_usd, const kf_eval_result *best)
{
    if (step >= o->max_iterations) return "iteration budget spent";
    if (elapsed_s >= o->max_time_s) return "time budget spent";
    if (cost_usd >= o->max_cost_usd) return "cost budget spent";
    if (s->phase == PHASE_OPTIMIZE && s->fixes == 0 && o->target_fraction > 0 && best &&
        kf_roofline_target_fraction(&best->roofline) >= o->target_fraction)
        return "within the target fraction of the roofline floor";
    return NULL;
}

int kf_loop_confirm_pick(const double *t, int n, int rounds, double *med, int *at)
{
    int best = -1;
    double best_t = 0;
    for (int i = 0; i < n; i++) {
        double m = 0;
        int out = rounds <= 0, r_at = -1;
        for (int r = 0; r < rounds; r++)
            if (!(t[i * rounds + r] > 0)) out = 1;
        if (!out) {
            /* the median: the round with rounds / 2 others faster than it
               (ties broken by round order) */
            for (int r = 0; r < rounds && r_at < 0; r++) {
                int below = 0;
                for (int q = 0; q < rounds; q++)
                    below += t[i * rounds + q] < t[i * rounds + r] ||
                             (t[i * rounds + q] == t[i * rounds + r] && q < r);
                if (below == rounds / 2) r_at = r;
            }
            m = t[i * rounds + r_at];
        }
        if (med) med[i] = m;
        if (at) at[i] = r_at;
        if (!out && (best < 0 || m < best_t)) {
            best = i;
            best_t = m;
        }
    }
    return best;
}

double kf_loop_finalist_key(double median_s, double min_s)
{
    return min_s > 0 && min_s < median_s ? min_s : median_s;
}
