/* test_wilcoxon.c — the Wilcoxon signed-rank test (core/suite/wilcoxon.c)
 * against scipy.stats.wilcoxon 1.17.1, computed once and written here:
 *     stats.wilcoxon(d, method="exact")   (no ties)
 *     stats.wilcoxon(d, method="approx")  (ties, or n > 50; z = zstatistic)
 * with the default zero_method="wilcox" and correction=False. */
#include <math.h>
#include <string.h>

#include "suite/wilcoxon.h"
#include "kf_test.h"

static kf_wilcoxon run(const double *d, int n)
{
    kf_wilcoxon w;
    kf_error err = {0};
    KF_CHECK_MSG(kf_wilcoxon_test(d, n, &w, &err) == 0, "%s", err.msg);
    return w;
}

KF_TEST(exact_small_sample)
{
    const double d[] = {1.5, -0.25, 2.0, 0.75, 3.5, -1.25, 4.0, 0.5};
    kf_wilcoxon w = run(d, 8);
    KF_CHECK_INT(w.exact, 1);
    KF_CHECK_INT(w.n, 8);
    KF_CHECK_NEAR(w.statistic, 5.0, 0);
    KF_CHECK_NEAR(w.w_plus + w.w_minus, 36, 0);
    KF_CHECK_NEAR(w.p, 0.078125, 1e-15);
}

KF_TEST(exact_all_one_sign)
{
    const double d[] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
    kf_wilcoxon w = run(d, 6);
    KF_CHECK_INT(w.exact, 1);
    KF_CHECK_NEAR(w.statistic, 0.0, 0);
    KF_CHECK_NEAR(w.w_plus, 21, 0);
    KF_CHECK_NEAR(w.p, 0.03125, 1e-15);   /* 2 / 2^6 */
}

KF_TEST(exact_twenty_pairs)
{
    double d[20];
    for (int i = 0; i < 20; i++) d[i] = ((i * 7) % 13 - 5.5) * (1 + i / 10.0);
    kf_wilcoxon w = run(d, 20);
    KF_CHECK_INT(w.exact, 1);
    KF_CHECK_NEAR(w.statistic, 104.0, 0);
    KF_CHECK_NEAR(w.p, 0.9854354858398438, 1e-13);
}

KF_TEST(zeros_are_dropped_then_exact)
{
    const double d[] = {0, 0, 1.5, -0.5, 2.5, 3.5, -4.5, 5.5, 6.5, 0.25};
    kf_wilcoxon w = run(d, 10);
    KF_CHECK_INT(w.n_zero, 2);
    KF_CHECK_INT(w.n, 8);
    KF_CHECK_INT(w.exact, 1);
    KF_CHECK_NEAR(w.statistic, 8.0, 0);
    KF_CHECK_NEAR(w.p, 0.1953125, 1e-15);
}

KF_TEST(ties_use_the_normal_approximation_with_tie_correction)
{
    const double d[] = {1, 1, -1, 2, 2, 3, -3, 4, 5, 5, 6, -7};
    kf_wilcoxon w = run(d, 12);
    KF_CHECK_INT(w.exact, 0);
    KF_CHECK_INT(w.n_ties, 4);   /* |1| x3, |2| x2, |3| x2, |5| x2 */
    KF_CHECK_NEAR(w.statistic, 20.5, 0);
    KF_CHECK_NEAR(w.z, -1.455182487233941, 1e-12);
    KF_CHECK_NEAR(w.p, 0.14561874784796505, 1e-12);
}

KF_TEST(zeros_and_ties_approximation)
{
    const double d[] = {0, 0, 1, -1, 2, 2, 3, -3, 4, 5, 5, 6, -7};
    kf_wilcoxon w = run(d, 13);
    KF_CHECK_INT(w.exact, 0);
    KF_CHECK_INT(w.n, 11);
    KF_CHECK_NEAR(w.statistic, 18.0, 0);
    KF_CHECK_NEAR(w.z, -1.3363062095621219, 1e-12);
    KF_CHECK_NEAR(w.p, 0.18144920772142048, 1e-12);
}

KF_TEST(sixty_pairs_approximation)
{
    double d[60];
    for (int i = 0; i < 60; i++) d[i] = ((i * 37) % 61 - 20.5) / 10;
    kf_wilcoxon w = run(d, 60);
    KF_CHECK_INT(w.exact, 0);
    KF_CHECK_NEAR(w.statistic, 434.0, 0);
    KF_CHECK_NEAR(w.z, -3.5411709361334127, 1e-12);
    KF_CHECK_NEAR(w.p, 0.00039835541021165824, 1e-14);
}

KF_TEST(sign_flip_keeps_the_p_value)
{
    const double d[] = {1.5, -0.25, 2.0, 0.75, 3.5, -1.25, 4.0, 0.5};
    double m[8];
    for (int i = 0; i < 8; i++) m[i] = -d[i];
    kf_wilcoxon a = run(d, 8), b = run(m, 8);
    KF_CHECK_NEAR(a.w_plus, b.w_minus, 0);
    KF_CHECK_NEAR(a.p, b.p, 0);
}

KF_TEST(all_zero_or_not_finite_is_an_error)
{
    const double z[] = {0, 0, 0};
    kf_wilcoxon w;
    kf_error err = {0};
    KF_CHECK_INT(kf_wilcoxon_test(z, 3, &w, &err), -1);
    KF_CHECK_INT(err.kind, KF_E_BAD_INPUT);
    KF_CHECK_CONTAINS(err.msg, "no nonzero difference");
    const double n[] = {1, NAN};
    kf_error e2 = {0};
    KF_CHECK_INT(kf_wilcoxon_test(n, 2, &w, &e2), -1);
    KF_CHECK_CONTAINS(e2.msg, "not a finite number");
}

int main(void)
{
    return kf_test_main();
}
