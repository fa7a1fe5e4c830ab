/* test_stats.c — timing statistics (core/stats.c) and the roofline
 * (core/roofline.c). */
#include <math.h>
#include <string.h>

#include "eval_internal.h"
#include "kf_test.h"

KF_TEST(median_of_odd_count)
{
    double s[5] = {5, 1, 4, 2, 3};
    kf_timing t;
    memset(&t, 0, sizeof t);
    KF_CHECK_INT(kf_timing_stats(s, 5, &t), 0);
    KF_CHECK_NEAR(t.median_s, 3, 0);
    KF_CHECK_NEAR(t.min_s, 1, 0);
    KF_CHECK_NEAR(t.max_s, 5, 0);
    KF_CHECK_NEAR(t.mean_s, 3, 1e-15);
    /* the input is not reordered */
    KF_CHECK_NEAR(s[0], 5, 0);
}

KF_TEST(median_of_even_count_is_mean_of_middle_two)
{
    double s[4] = {10, 1, 4, 2};
    kf_timing t;
    memset(&t, 0, sizeof t);
    KF_CHECK_INT(kf_timing_stats(s, 4, &t), 0);
    KF_CHECK_NEAR(t.median_s, 3, 0);
    KF_CHECK_NEAR(t.mean_s, 4.25, 1e-15);
}

KF_TEST(p10_p90_interpolate_between_ranks)
{
    /* 1..11: position p*(n-1) = 1 and 9 exactly */
    double s[11];
    for (int i = 0; i < 11; i++) s[i] = 11 - i;
    kf_timing t;
    memset(&t, 0, sizeof t);
    KF_CHECK_INT(kf_timing_stats(s, 11, &t), 0);
    KF_CHECK_NEAR(t.p10_s, 2, 1e-12);
    KF_CHECK_NEAR(t.p90_s, 10, 1e-12);
    KF_CHECK_NEAR(t.median_s, 6, 0);
    /* 20 samples 1..20: p10 at 1.9 -> 2.9, p90 at 17.1 -> 18.1 */
    double u[20];
    for (int i = 0; i < 20; i++) u[i] = i + 1;
    KF_CHECK_INT(kf_timing_stats(u, 20, &t), 0);
    KF_CHECK_NEAR(t.p10_s, 2.9, 1e-12);
    KF_CHECK_NEAR(t.p90_s, 18.1, 1e-12);
    KF_CHECK_NEAR(t.median_s, 10.5, 0);
}

KF_TEST(single_sample_and_empty)
{
    double s[1] = {7};
    kf_timing t;
    memset(&t, 0, sizeof t);
    KF_CHECK_INT(kf_timing_stats(s, 1, &t), 0);
    KF_CHECK_NEAR(t.median_s, 7, 0);
    KF_CHECK_NEAR(t.p10_s, 7, 0);
    KF_CHECK_NEAR(t.p90_s, 7, 0);
    KF_CHECK_INT(kf_timing_stats(s, 0, &t), -1);
    KF_CHECK_NEAR(kf_percentile_sorted(s, 1, 0.5), 7, 0);
}

KF_TEST(roofline_floors_and_too_fast)
{
    kf_resolved r;
    memset(&r, 0, sizeof r);
    r.flops = 2e9;        /* 2 GFLOP */
    r.min_bytes = 4e8;    /* 400 MB */
    kf_device_info dev;
    memset(&dev, 0, sizeof dev);
    dev.peak_flops = 1e12;          /* compute floor 2 ms */
    dev.peak_bytes_per_s = 1e11;    /* memory floor 4 ms */
    dev.cache_bytes_per_s = 1e12;   /* on-chip floor 0.4 ms */
    kf_roofline rf;
    kf_roofline_compute(&r, &dev, &rf);
    KF_CHECK_NEAR(rf.floor_s, 4e-3, 1e-15);
    /* the hard floor is the byte floor at on-chip bandwidth: nominal FLOPs
       bound nothing (an algebraic rewrite may do fewer) */
    KF_CHECK_NEAR(rf.hard_floor_s, 4e-4, 1e-15);
    kf_roofline_apply(&rf, 8e-3);
    KF_CHECK_NEAR(rf.fraction, 0.5, 1e-12);
    KF_CHECK_NEAR(rf.achieved_flops, 2.5e11, 1);
    KF_CHECK_NEAR(rf.achieved_bytes_per_s, 5e10, 1);
    KF_CHECK(!kf_roofline_too_fast(&rf, 3e-3));    /* under floor_s is allowed (cache) */
    KF_CHECK(!kf_roofline_too_fast(&rf, 1e-3));    /* under the FLOP floor is allowed (rewrites) */
    KF_CHECK(kf_roofline_too_fast(&rf, 3e-4));     /* under the byte floor is not */
}

KF_TEST(unknown_peaks_bound_nothing)
{
    kf_resolved r;
    memset(&r, 0, sizeof r);
    r.flops = 1e6;
    r.min_bytes = 1e6;
    kf_roofline rf;
    kf_roofline_compute(&r, NULL, &rf);
    KF_CHECK_NEAR(rf.floor_s, 0, 0);
    KF_CHECK_NEAR(rf.hard_floor_s, 0, 0);
    KF_CHECK(!kf_roofline_too_fast(&rf, 1e-12));
    kf_roofline_apply(&rf, 1e-3);
    KF_CHECK_NEAR(rf.fraction, 0, 0);
    /* only bandwidth known: hard floor from the cache rate alone */
    kf_device_info dev;
    memset(&dev, 0, sizeof dev);
    dev.cache_bytes_per_s = 1e12;
    kf_roofline_compute(&r, &dev, &rf);
    KF_CHECK_NEAR(rf.hard_floor_s, 1e-6, 1e-18);
    KF_CHECK_NEAR(rf.floor_s, 0, 0);
}

int main(void)
{
    return kf_test_main();
}
