/* eval_checks.c — the checks kf_evaluate() makes on the shared buffers after
 * the candidate ran: guards, input integrity, poison, values.  Each failure
 * sets the verdict, a one-line summary and diagnostics for the agent. */
#include "eval_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void kf_ev_fail(kf_ev *e, kf_verdict v, const char *fmt, ...)
{
    if (e->res->verdict != KF_PASS) return;
    e->res->verdict = v;
    char msg[sizeof e->summary - 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(e->summary, sizeof e->summary, "%s: %s", kf_verdict_name(v), msg);
}

void kf_ev_buffer_name(const kf_ev *e, int k, char *buf, size_t n)
{
    const kf_problem_view *pv = &e->bound.pview;
    if (k < pv->n_inputs)
        snprintf(buf, n, "input %s", pv->input_names[k]);
    else if (k < pv->n_inputs + pv->n_outputs)
        snprintf(buf, n, "output %s", pv->output_names[k - pv->n_inputs]);
    else {
        int s = k - pv->n_inputs - pv->n_outputs;
        const char *name = (e->c && s < e->c->n_scratch) ? e->c->scratch[s].name : NULL;
        if (name) snprintf(buf, n, "scratch %s", name);
        else snprintf(buf, n, "scratch buffer %d", s);
    }
}

static const kf_shape *input_shape(const kf_ev *e, int i)
{
    return &e->r->shapes[i];
}

static const kf_shape *output_shape(const kf_ev *e, int o)
{
    return &e->r->shapes[e->r->problem->outputs[o]];
}

int kf_ev_check_memory(kf_ev *e, int set, const char *when)
{
    const kf_wp_layout *l = &e->mem.layout;
    int per = l->n_inputs + l->n_outputs + l->n_scratch;
    /* the set that ran first: an overflow there is the likely one */
    for (int pass = 0; pass < 2; pass++)
        for (int s = 0; s < l->n_sets; s++) {
            if ((pass == 0) != (s == set)) continue;
            for (int k = 0; k < per; k++) {
                const kf_buffer *b = &e->mem.sets.bufs[s * per + k];
                kf_guard_fault f;
                if (!kf_guard_check(b, &f)) continue;
                char name[KF_NAME_MAX + 32];
                kf_ev_buffer_name(e, k, name, sizeof name);
                if (f.after)
                    kf_ev_fail(e, KF_FAIL_OUT_OF_BOUNDS,
                               "%s: %s: wrote past the end of the buffer (first changed byte %zu bytes past "
                               "the end, i.e. element %zu of a %zu-element buffer; %zu bytes of the guard changed)",
                               when, name, f.offset, b->bytes / 4 + f.offset / 4, b->bytes / 4, f.n_changed);
                else
                    kf_ev_fail(e, KF_FAIL_OUT_OF_BOUNDS,
                               "%s: %s: wrote before the start of the buffer (%zu bytes before element 0; "
                               "%zu bytes of the guard changed)",
                               when, name, f.offset, f.n_changed);
                kf_sb_printf(&e->diag, "%s\n", e->summary);
                if (s != set)
                    kf_sb_printf(&e->diag, "  (in buffer set %d, which the run of set %d should not touch)\n", s, set);
                kf_sb_printf(&e->diag, "Check the loop bounds and index arithmetic of every store into %s.\n", name);
                return -1;
            }
        }
    const kf_buffer *in = e->mem.sets.sets[set].inputs;
    for (int i = 0; i < l->n_inputs; i++) {
        if (!memcmp(in[i].data, e->priv[i], in[i].bytes)) continue;
        int64_t n = (int64_t)(in[i].bytes / 4), j = 0;
        const uint32_t *a = (const uint32_t *)(const void *)in[i].data;
        const uint32_t *b = (const uint32_t *)(const void *)e->priv[i];
        while (j < n && a[j] == b[j]) j++;
        int64_t changed = 0;
        for (int64_t k = j; k < n; k++) changed += a[k] != b[k];
        char idx[128];
        kf_format_index(e->bound.pview.input_names[i], input_shape(e, i), j, idx, sizeof idx);
        kf_ev_fail(e, KF_FAIL_INPUT_MODIFIED,
                   "%s: input %s was modified by the candidate (%lld of %lld elements changed; first %s: was %.9g, now %.9g)",
                   when, e->bound.pview.input_names[i], (long long)changed, (long long)n, idx,
                   j < n ? (double)e->priv[i][j] : 0.0, j < n ? (double)in[i].data[j] : 0.0);
        kf_sb_printf(&e->diag, "%s\nInputs are read-only: write intermediate results to an output or a scratch buffer.\n",
                     e->summary);
        return -1;
    }
    return 0;
}

static int check_poison(kf_ev *e, int set, const char *when, kf_verdict v)
{
    const kf_problem_view *pv = &e->bound.pview;
    const kf_buffer *out = e->mem.sets.sets[set].outputs;
    for (int o = 0; o < pv->n_outputs; o++) {
        int64_t first, n = pv->output_elems[o];
        int64_t left = kf_poison_count(out[o].data, n, &first);
        if (!left) continue;
        char idx[128];
        kf_format_index(pv->output_names[o], output_shape(e, o), first, idx, sizeof idx);
        if (v == KF_FAIL_STALE)
            kf_ev_fail(e, v, "outputs of timed runs are wrong: the candidate may cache results across calls "
                             "(%s: output %s: %lld of %lld elements were not written, first %s)",
                       when, pv->output_names[o], (long long)left, (long long)n, idx);
        else
            kf_ev_fail(e, v, "%s: output %s: %lld of %lld elements were not written (the NaN poison is still "
                             "there, first at %s)",
                       when, pv->output_names[o], (long long)left, (long long)n, idx);
        kf_sb_printf(&e->diag, "%s\nEvery element of every output must be written on every call.\n", e->summary);
        return -1;
    }
    return 0;
}

static void describe_mismatch(kf_ev *e, int o, const kf_output_stats *st, int bits, const char *when)
{
    const kf_eval_result *res = e->res;
    const kf_problem *p = e->r->problem;
    const char *name = e->bound.pview.output_names[o];
    kf_sb_printf(&e->diag, "%s: output %s does not match the reference:\n", when, name);
    if (bits & KF_CMP_ALLCLOSE_FAILED)
        kf_sb_printf(&e->diag, "  %lld of %lld elements fail |got - expected| <= atol + rtol*|expected| (atol %g, rtol %g)%s\n",
                     (long long)st->n_bad, (long long)st->n_elems, p->atol, p->rtol,
                     st->n_nan ? " (NaN included)" : "");
    if (st->n_nan) kf_sb_printf(&e->diag, "  %lld elements are NaN\n", (long long)st->n_nan);
    kf_sb_printf(&e->diag, "  max abs err %.4g, max rel err %.4g, relative L2 error %.4g (limit %g)\n",
                 st->max_abs_err, st->max_rel_err, st->rel_l2, p->rel_l2);
    if (st->spread_applies)
        kf_sb_printf(&e->diag, "  error relative to the reference's spread around its mean %.4g (limit %g)\n",
                     st->rel_spread, p->rel_spread);
    if (!(bits & KF_CMP_ALLCLOSE_FAILED) && (bits & KF_CMP_REL_L2_FAILED))
        kf_sb_printf(&e->diag, "  every element is within atol/rtol, but the error is large relative to the output's "
                               "magnitude (the relative L2 check): small outputs must still be accurate\n");
    if (!(bits & (KF_CMP_ALLCLOSE_FAILED | KF_CMP_REL_L2_FAILED)))
        kf_sb_printf(&e->diag, "  every element is within atol/rtol and the relative L2 error is small, but the error "
                               "is large next to how much the reference varies: a result that does not follow the "
                               "inputs (a skipped GEMM, a constant) would look like this\n");
    int shown = 0;
    for (int i = 0; i < res->n_mismatches; i++) {
        const kf_mismatch *m = &res->mismatches[i];
        if (m->output != o) continue;
        if (!shown++) kf_sb_printf(&e->diag, "  first mismatches:\n");
        char idx[128];
        kf_format_index(name, output_shape(e, o), m->index, idx, sizeof idx);
        kf_sb_printf(&e->diag, "    %s (flat %lld): expected %.9g, got %.9g\n", idx, (long long)m->index,
                     m->expected, m->got);
    }
}

int kf_ev_check_outputs(kf_ev *e, int set, double *const *ref, const char *when,
                        kf_verdict poison_verdict, kf_verdict value_verdict, int merge_stats)
{
    if (check_poison(e, set, when, poison_verdict) != 0) return -1;
    const kf_problem *p = e->r->problem;
    const kf_problem_view *pv = &e->bound.pview;
    const kf_buffer *out = e->mem.sets.sets[set].outputs;
    kf_eval_result *res = e->res;
    int first_bad = -1, first_bits = 0;
    kf_output_stats bad_st;
    memset(&bad_st, 0, sizeof bad_st);
    res->n_mismatches = 0;
    for (int o = 0; o < pv->n_outputs; o++) {
        kf_output_stats st;
        int bits = kf_compare_problem_output(p, out[o].data, ref[o], pv->output_elems[o], o, &st, res->mismatches,
                                             KF_MAX_MISMATCHES, &res->n_mismatches);
        if (merge_stats && o < res->n_outputs) kf_output_stats_merge(&res->stats[o], &st);
        if (bits && first_bad < 0) {
            first_bad = o;
            first_bits = bits;
            bad_st = st;
        }
    }
    if (first_bad < 0) return 0;
    const char *name = pv->output_names[first_bad];
    char where[256] = "";
    for (int i = 0; i < res->n_mismatches; i++)
        if (res->mismatches[i].output == first_bad) {
            char idx[128];
            kf_format_index(name, output_shape(e, first_bad), res->mismatches[i].index, idx, sizeof idx);
            snprintf(where, sizeof where, "; first %s: expected %.6g, got %.6g", idx, res->mismatches[i].expected,
                     res->mismatches[i].got);
            break;
        }
    if (value_verdict == KF_FAIL_STALE) {   /* a timed run's inputs are fresh: a few elements wrong fits a precision at its edge too */
        char few[256] = "";
        if (bad_st.n_bad > 0 && bad_st.n_bad * 1000 <= bad_st.n_elems) {
            int len = snprintf(few, sizeof few, "; so few wrong also fits a reduced precision at the edge of the "
                                                "tolerance on inputs the trials did not draw");
            if (res->edge_tol_frac > 0 && len > 0 && (size_t)len < sizeof few)
                snprintf(few + len, sizeof few - (size_t)len,
                         " (its trials passed with the worst element at %.2g of its tolerance)", res->edge_tol_frac);
        }
        kf_ev_fail(e, value_verdict,
                   "outputs of timed runs are wrong: the candidate may cache results across calls (%s: output %s: "
                   "%lld of %lld elements wrong%s)%s",
                   when, name, (long long)bad_st.n_bad, (long long)bad_st.n_elems, where, few);
    }
    else if (first_bits & KF_CMP_ALLCLOSE_FAILED)
        kf_ev_fail(e, value_verdict, "%s: output %s: %lld of %lld elements wrong (max abs err %.3g, rel L2 %.3g)%s",
                   when, name, (long long)bad_st.n_bad, (long long)bad_st.n_elems, bad_st.max_abs_err,
                   bad_st.rel_l2, where);
    else if (first_bits & KF_CMP_REL_L2_FAILED)
        kf_ev_fail(e, value_verdict,
                   "%s: output %s: relative L2 error %.3g exceeds %g although every element is within atol/rtol",
                   when, name, bad_st.rel_l2, p->rel_l2);
    else
        kf_ev_fail(e, value_verdict,
                   "%s: output %s: the error is %.3g of the reference's spread around its mean (bound %g), although "
                   "every element is within atol/rtol and the relative L2 error is %.3g: the output does not follow "
                   "the inputs (the work was skipped?)",
                   when, name, bad_st.rel_spread, p->rel_spread, bad_st.rel_l2);
    kf_sb_printf(&e->diag, "%s\n", e->summary);
    for (int o = 0; o < pv->n_outputs; o++) {
        kf_output_stats st;
        int bits = kf_compare_problem_output(p, out[o].data, ref[o], pv->output_elems[o], o, &st, NULL, 0, NULL);
        if (bits) describe_mismatch(e, o, &st, bits, when);
    }
    return -1;
}
