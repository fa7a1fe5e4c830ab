/* test_compare.c — allclose + relative L2 (core/eval/compare.c) and multi-index
 * formatting. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval_internal.h"
#include "kf_test.h"

static int cmp(const float *got, const double *exp, int64_t n, double atol, double rtol, double l2,
               kf_output_stats *st, kf_mismatch *mm, int *n_mm)
{
    return kf_compare_output(got, exp, n, atol, rtol, l2, 0, st, mm, KF_MAX_MISMATCHES, n_mm);
}

KF_TEST(exact_match_passes)
{
    float g[4] = {1, -2, 3.5f, 0};
    double e[4] = {1, -2, 3.5, 0};
    kf_output_stats st;
    kf_mismatch mm[KF_MAX_MISMATCHES];
    int n = 0;
    KF_CHECK_INT(cmp(g, e, 4, 1e-2, 1e-2, 1e-2, &st, mm, &n), 0);
    KF_CHECK_INT(n, 0);
    KF_CHECK_INT(st.n_bad, 0);
    KF_CHECK_INT(st.n_elems, 4);
    KF_CHECK_NEAR(st.max_abs_err, 0, 0);
    KF_CHECK_NEAR(st.rel_l2, 0, 0);
}

KF_TEST(allclose_boundary_uses_atol_plus_rtol_times_expected)
{
    /* bound for exp=100: 0.01 + 0.01*100 = 1.01 */
    float g[2] = {101.0f, 98.9f};
    double e[2] = {100.0, 100.0};
    kf_output_stats st;
    kf_mismatch mm[KF_MAX_MISMATCHES];
    int n = 0;
    int r = cmp(g, e, 2, 1e-2, 1e-2, 1.0, &st, mm, &n);
    KF_CHECK_INT(r, KF_CMP_ALLCLOSE_FAILED);
    KF_CHECK_INT(st.n_bad, 1);
    KF_CHECK_INT(n, 1);
    KF_CHECK_INT(mm[0].index, 1);
    KF_CHECK_NEAR(mm[0].expected, 100.0, 0);
    KF_CHECK_NEAR(mm[0].got, 98.9, 1e-5);
    KF_CHECK_NEAR(st.max_abs_err, 1.1, 1e-5);
    KF_CHECK_NEAR(st.max_rel_err, 0.011, 1e-6);
}

/* Softmax over 1000 classes: every expected value ~1e-3, far below atol.
 * Zeros pass allclose (|0 - 1e-3| <= 1e-2) but are 100% wrong in L2. */
KF_TEST(softmax_like_tiny_outputs_fail_rel_l2_although_allclose_passes)
{
    enum { N = 1000 };
    float *g = malloc(N * sizeof *g);
    double *e = malloc(N * sizeof *e);
    for (int i = 0; i < N; i++) {
        e[i] = (i % 2 ? 1.5 : 0.5) / N;
        g[i] = 0.0f;
    }
    kf_output_stats st;
    int n = 0;
    kf_mismatch mm[KF_MAX_MISMATCHES];
    int r = cmp(g, e, N, 1e-2, 1e-2, 1e-2, &st, mm, &n);
    KF_CHECK_INT(r, KF_CMP_REL_L2_FAILED);
    KF_CHECK_INT(st.n_bad, 0);
    KF_CHECK_INT(n, 0);
    KF_CHECK_NEAR(st.rel_l2, 1.0, 1e-12);
    /* uniform 1/N instead of the true distribution: allclose still passes */
    for (int i = 0; i < N; i++) g[i] = 1.0f / N;
    r = cmp(g, e, N, 1e-2, 1e-2, 1e-2, &st, mm, &n);
    KF_CHECK_INT(r, KF_CMP_REL_L2_FAILED);
    KF_CHECK_MSG(st.rel_l2 > 0.4, "rel_l2 %g", st.rel_l2);
    /* and the right answer in float passes both */
    for (int i = 0; i < N; i++) g[i] = (float)e[i];
    KF_CHECK_INT(cmp(g, e, N, 1e-2, 1e-2, 1e-2, &st, mm, &n), 0);
    KF_CHECK_MSG(st.rel_l2 < 1e-6, "rel_l2 %g", st.rel_l2);
    free(g);
    free(e);
}

KF_TEST(nan_never_passes)
{
    float g[3] = {1, NAN, 2};
    double e[3] = {1, 1, 2};
    kf_output_stats st;
    kf_mismatch mm[KF_MAX_MISMATCHES];
    int n = 0;
    /* even with an enormous tolerance */
    int r = cmp(g, e, 3, 1e30, 1e30, 1e30, &st, mm, &n);
    KF_CHECK(r & KF_CMP_ALLCLOSE_FAILED);
    KF_CHECK(r & KF_CMP_REL_L2_FAILED);
    KF_CHECK_INT(st.n_nan, 1);
    KF_CHECK_INT(st.n_bad, 1);
    KF_CHECK_INT(mm[0].index, 1);
    KF_CHECK(isinf(st.rel_l2));
    /* NaN expected with NaN got still fails */
    double e2[3] = {1, NAN, 2};
    r = cmp(g, e2, 3, 1e-2, 1e-2, 1e-2, &st, mm, &n);
    KF_CHECK(r & KF_CMP_ALLCLOSE_FAILED);
}

KF_TEST(infinities_pass_only_when_equal)
{
    float g[3] = {INFINITY, -INFINITY, 1};
    double e[3] = {INFINITY, -INFINITY, 1};
    kf_output_stats st;
    kf_mismatch mm[KF_MAX_MISMATCHES];
    int n = 0;
    KF_CHECK_INT(cmp(g, e, 3, 1e-2, 1e-2, 1e-2, &st, mm, &n), 0);
    KF_CHECK_NEAR(st.rel_l2, 0, 0);
    KF_CHECK_NEAR(st.max_abs_err, 0, 0);
    float g2[3] = {-INFINITY, -INFINITY, 1};
    int r = cmp(g2, e, 3, 1e-2, 1e-2, 1e-2, &st, mm, &n);
    KF_CHECK(r & KF_CMP_ALLCLOSE_FAILED);
    KF_CHECK_INT(st.n_bad, 1);
    KF_CHECK(isinf(st.max_abs_err));
    /* inf where a finite value was expected */
    float g3[2] = {INFINITY, 1};
    double e3[2] = {3e38, 1};
    n = 0;
    r = cmp(g3, e3, 2, 1e-2, 1e-2, 1e-2, &st, mm, &n);
    KF_CHECK(r & KF_CMP_ALLCLOSE_FAILED);
    KF_CHECK(r & KF_CMP_REL_L2_FAILED);
    KF_CHECK_INT(mm[0].index, 0);
}

KF_TEST(all_zero_reference_uses_rms_error)
{
    float g[4] = {0.001f, -0.001f, 0.001f, -0.001f};
    double e[4] = {0, 0, 0, 0};
    kf_output_stats st;
    int n = 0;
    kf_mismatch mm[KF_MAX_MISMATCHES];
    KF_CHECK_INT(cmp(g, e, 4, 1e-2, 1e-2, 1e-2, &st, mm, &n), 0);
    KF_CHECK_NEAR(st.rel_l2, 0.001, 1e-6);
    float g2[4] = {0, 0, 0, -0.011f};   /* one element over atol, RMS 0.0055 */
    int r = cmp(g2, e, 4, 1e-2, 1e-2, 1e-2, &st, mm, &n);
    KF_CHECK_INT(r, KF_CMP_ALLCLOSE_FAILED);
}

KF_TEST(mismatch_list_is_bounded_and_in_order)
{
    enum { N = 100 };
    float g[N];
    double e[N];
    for (int i = 0; i < N; i++) {
        e[i] = i;
        g[i] = (float)(i + 5);
    }
    kf_output_stats st;
    kf_mismatch mm[KF_MAX_MISMATCHES];
    int n = 0;
    kf_compare_output(g, e, N, 1e-2, 1e-2, 1e-2, 3, &st, mm, KF_MAX_MISMATCHES, &n);
    KF_CHECK_INT(n, KF_MAX_MISMATCHES);
    KF_CHECK_INT(st.n_bad, N);
    for (int i = 0; i < n; i++) {
        KF_CHECK_INT(mm[i].index, i);
        KF_CHECK_INT(mm[i].output, 3);
    }
}

/* The worst element's share of its allowance atol + rtol |expected|: what
 * the evaluation reads to tell a pass near the tolerance's edge. */
KF_TEST(worst_element_share_of_its_allowance)
{
    /* allowances: 0.01 + 0.01*100 = 1.01, 0.01 + 0.01*1 = 0.02, 0.01 */
    float g[3] = {100.505f, 1.015f, 0.0f};
    double e[3] = {100.0, 1.0, 0.0};
    kf_output_stats st;
    kf_mismatch mm[KF_MAX_MISMATCHES];
    int n = 0;
    KF_CHECK_INT(cmp(g, e, 3, 1e-2, 1e-2, 1.0, &st, mm, &n), 0);
    KF_CHECK_NEAR(st.max_tol_frac, 0.75, 1e-5);   /* 0.015 / 0.02; 0.505 / 1.01 = 0.5 */
    g[2] = 0.02f;   /* twice its allowance: fails, and says so */
    KF_CHECK(cmp(g, e, 3, 1e-2, 1e-2, 1.0, &st, mm, &n) & KF_CMP_ALLCLOSE_FAILED);
    KF_CHECK_NEAR(st.max_tol_frac, 2.0, 1e-5);
    g[2] = NAN;
    cmp(g, e, 3, 1e-2, 1e-2, 1.0, &st, mm, &n);
    KF_CHECK(isinf(st.max_tol_frac));
    /* no allowance at all: exact elements 0, any error infinite */
    float z[2] = {1.0f, 2.0f};
    double ze[2] = {1.0, 2.0};
    KF_CHECK_INT(cmp(z, ze, 2, 0, 0, 1.0, &st, mm, &n), 0);
    KF_CHECK_NEAR(st.max_tol_frac, 0, 0);
    kf_output_stats w = {0}, a = {0}, b = {0};
    a.max_tol_frac = 0.3;
    b.max_tol_frac = 0.9;
    kf_output_stats_merge(&w, &a);
    kf_output_stats_merge(&w, &b);
    KF_CHECK_NEAR(w.max_tol_frac, 0.9, 0);
}

KF_TEST(stats_merge_keeps_the_worst)
{
    kf_output_stats w = {0}, a = {0.5, 0.1, 0.01, 2, 0, 10}, b = {0.2, 0.3, 0.02, 1, 1, 10};
    kf_output_stats_merge(&w, &a);
    kf_output_stats_merge(&w, &b);
    KF_CHECK_NEAR(w.max_abs_err, 0.5, 0);
    KF_CHECK_NEAR(w.max_rel_err, 0.3, 0);
    KF_CHECK_NEAR(w.rel_l2, 0.02, 0);
    KF_CHECK_INT(w.n_bad, 2);
    KF_CHECK_INT(w.n_nan, 1);
    KF_CHECK_INT(w.n_elems, 10);
}

KF_TEST(multi_index_formatting)
{
    char buf[64];
    kf_shape s2 = {2, {64, 1000, 0, 0}};
    KF_CHECK_STR(kf_format_index("y", &s2, 3 * 1000 + 17, buf, sizeof buf), "y[3,17]");
    kf_shape s3 = {3, {2, 3, 4, 0}};
    KF_CHECK_STR(kf_format_index("t", &s3, 23, buf, sizeof buf), "t[1,2,3]");
    kf_shape s0 = {0, {0}};
    KF_CHECK_STR(kf_format_index("s", &s0, 0, buf, sizeof buf), "s[]");
    char tiny[6];
    kf_format_index("long_name", &s2, 5, tiny, sizeof tiny);
    KF_CHECK_INT(strlen(tiny), 5);
}

/* The scale-aware test: ||got - exp|| / ||exp - mean(exp)||. */
KF_TEST(error_relative_to_the_spread)
{
    /* exp = 5 +- 0.01 (mean 5, spread sqrt(4 * 1e-4) = 0.02); got = 5:
       every element within rtol 1e-2, rel L2 tiny, error/spread exactly 1 */
    double e[4] = {5.01, 4.99, 5.01, 4.99};
    float g[4] = {5, 5, 5, 5};
    kf_output_stats st;
    int r = kf_compare_output(g, e, 4, 1e-2, 1e-2, 1e-2, 0, &st, NULL, 0, NULL);
    KF_CHECK_INT(r, 0);   /* the old tests pass it */
    KF_CHECK(st.spread_applies);
    KF_CHECK_NEAR(st.rel_spread, 1.0, 1e-6);
    kf_problem p;
    memset(&p, 0, sizeof p);
    p.atol = p.rtol = p.rel_l2 = 1e-2;
    p.rel_spread = KF_DEFAULT_REL_SPREAD;
    KF_CHECK_INT(kf_compare_problem_output(&p, g, e, 4, 0, &st, NULL, 0, NULL), KF_CMP_SPREAD_FAILED);
    /* a float32-accurate answer passes: error 2e-7 of values, 1e-4 of the spread */
    float good[4] = {5.01f, 4.99f, 5.01f, 4.99f};
    KF_CHECK_INT(kf_compare_problem_output(&p, good, e, 4, 0, &st, NULL, 0, NULL), 0);
    KF_CHECK(st.rel_spread < 1e-3);
    /* a constant reference (up to float32 rounding): not applied */
    double c[3] = {7, 7, 7};
    float gc[3] = {7.0001f, 7, 7};
    KF_CHECK_INT(kf_compare_problem_output(&p, gc, c, 3, 0, &st, NULL, 0, NULL), 0);
    KF_CHECK(!st.spread_applies);
    KF_CHECK_NEAR(st.rel_spread, 0, 0);
    /* all zeros too */
    double z[2] = {0, 0};
    float gz[2] = {0, 0};
    KF_CHECK_INT(kf_compare_problem_output(&p, gz, z, 2, 0, &st, NULL, 0, NULL), 0);
    /* a NaN in got: every test fails, the statistic is infinite */
    float gn[4] = {5.01f, NAN, 5.01f, 4.99f};
    int bits = kf_compare_problem_output(&p, gn, e, 4, 0, &st, NULL, 0, NULL);
    KF_CHECK(bits & KF_CMP_ALLCLOSE_FAILED);
    KF_CHECK(isinf(st.rel_spread));
    /* the bound comes from the problem */
    p.rel_spread = 2.0;
    KF_CHECK_INT(kf_compare_problem_output(&p, g, e, 4, 0, &st, NULL, 0, NULL), 0);
}

int main(void)
{
    return kf_test_main();
}
