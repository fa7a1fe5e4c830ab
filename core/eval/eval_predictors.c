/* eval_predictors.c — would a trivial predictor pass this problem's
 * tolerance?  (eval.h, kf_trivial_predictors; `kforge check` warns.)  Each
 * predictor is compared through kf_compare_problem_output, the evaluator's
 * own test, against the reference of one input draw. */
#include "eval_internal.h"

#include <stdlib.h>
#include <string.h>

#include "reference/reference.h"

enum { P_ZERO, P_MEAN, P_FIRST_ROW, P_COLUMN_MEAN, P_COUNT };
static const char *const names[P_COUNT] = {"zero", "mean", "first-row", "column-mean"};

/* The prediction of kind k for a reference `e` of n elements whose leading
 * dimension is `lead` (rows of n / lead elements). */
static void predict(int k, const double *e, int64_t n, int64_t lead, float *out)
{
    int64_t inner = lead > 0 ? n / lead : n;
    double mean = 0;
    for (int64_t i = 0; i < n; i++) mean += e[i];
    mean = n ? mean / (double)n : 0;
    switch (k) {
    case P_ZERO: memset(out, 0, (size_t)n * sizeof *out); break;
    case P_MEAN: for (int64_t i = 0; i < n; i++) out[i] = (float)mean; break;
    case P_FIRST_ROW: for (int64_t i = 0; i < n; i++) out[i] = (float)e[i % inner]; break;
    default:
        for (int64_t j = 0; j < inner; j++) {
            double s = 0;
            for (int64_t r = 0; r < lead; r++) s += e[r * inner + j];
            for (int64_t r = 0; r < lead; r++) out[r * inner + j] = (float)(s / (double)lead);
        }
    }
}

int kf_trivial_predictors(const kf_resolved *r, uint64_t seed, kf_trivial *out, int max, int *n_out, kf_error *err)
{
    const kf_problem *p = r->problem;
    *n_out = 0;
    float **in = calloc((size_t)p->n_inputs + 1, sizeof *in);
    double **ref = calloc((size_t)p->n_outputs + 1, sizeof *ref);
    int rc = -1;
    if (!in || !ref) {
        kf_fail(err, KF_E_INTERNAL, "out of memory");
        goto out;
    }
    for (int i = 0; i < p->n_inputs; i++) {
        int64_t n = kf_shape_elems(&r->shapes[i]);
        if (!(in[i] = malloc((size_t)(n > 0 ? n : 1) * sizeof **in))) {
            kf_fail(err, KF_E_INTERNAL, "out of memory");
            goto out;
        }
        kf_draw_input(r, i, seed, in[i]);
    }
    if (kf_reference_outputs(r, (const float *const *)in, ref, 0, err) != 0) goto out;
    for (int o = 0; o < p->n_outputs; o++) {
        const kf_shape *sh = &r->shapes[p->outputs[o]];
        int64_t n = kf_shape_elems(sh);
        float *pred = malloc((size_t)(n > 0 ? n : 1) * sizeof *pred);
        if (!pred) {
            kf_fail(err, KF_E_INTERNAL, "out of memory");
            goto out;
        }
        for (int k = 0; k < P_COUNT; k++) {
            int64_t lead = sh->rank >= 2 ? sh->d[0] : 0;
            if ((k == P_FIRST_ROW || k == P_COLUMN_MEAN) && lead < 2) continue;
            predict(k, ref[o], n, lead, pred);
            kf_output_stats st;
            if (kf_compare_problem_output(p, pred, ref[o], n, o, &st, NULL, 0, NULL) == 0 && *n_out < max) {
                out[*n_out].output = o;
                out[*n_out].predictor = names[k];
                out[*n_out].rel_l2 = st.rel_l2;
                (*n_out)++;
            }
        }
        free(pred);
    }
    rc = 0;
out:
    for (int i = 0; in && i < p->n_inputs; i++) free(in[i]);
    for (int o = 0; ref && o < p->n_outputs; o++) free(ref[o]);
    free(in);
    free(ref);
    return rc;
}
