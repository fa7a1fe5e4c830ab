/* test_stats.c — timing statistics (core/eval/stats.c) and the roofline
 * (core/eval/roofline.c). */
#include <math.h>
#include <string.h>

#include "eval/eval_internal.h"
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

/* The enforced floor: the documented roofline with its stated allowances. */
KF_TEST(enforced_floor_counts_flops_and_memory_bytes)
{
    kf_problem p;
    memset(&p, 0, sizeof p);
    kf_node nodes[2];
    memset(nodes, 0, sizeof nodes);
    nodes[0].op = KF_OP_LINEAR;
    nodes[1].op = KF_OP_LEAKY_RELU;
    p.n_nodes = 2;
    p.nodes = nodes;
    kf_resolved r;
    memset(&r, 0, sizeof r);
    r.problem = &p;
    r.flops = 2e9;
    r.min_bytes = 4e8;
    kf_device_info dev;
    memset(&dev, 0, sizeof dev);
    strcpy(dev.kind, "cpu");
    dev.peak_flops = 1e12;          /* 2 ms, 1.6 ms at 1.25x */
    dev.peak_bytes_per_s = 1e11;    /* 4 ms, 2.67 ms at 1.5x */
    dev.cache_bytes_per_s = 1e12;
    kf_roofline rf;
    kf_roofline_compute(&r, &dev, &rf);
    kf_roofline_enforce(&rf, &r, &dev, 4 * 4e8);   /* 1.6 GB rotate: not cache-resident */
    KF_CHECK(!rf.cache_resident);
    KF_CHECK(rf.flop_term);
    KF_CHECK_NEAR(rf.hard_floor_s, 4e8 / 1.5e11, 1e-12);
    KF_CHECK(kf_roofline_too_fast(&rf, 2.5e-3));    /* 8x ... 1.6x under the printed floor: caught */
    KF_CHECK(!kf_roofline_too_fast(&rf, 3e-3));
    /* cache-resident: bytes at on-chip rate, the FLOP term still holds */
    kf_roofline_enforce(&rf, &r, &dev, 1e6);
    KF_CHECK(rf.cache_resident);
    KF_CHECK_NEAR(rf.hard_floor_s, 2e9 / 1.25e12, 1e-12);
    /* on an accelerator the FLOP term allows tensor-core rates (16x) */
    strcpy(dev.kind, "gpu");
    kf_roofline_enforce(&rf, &r, &dev, 1e6);
    KF_CHECK_NEAR(rf.hard_floor_s, 4e8 / 1e12, 1e-12);
    /* a linear reduction (sum) drops the FLOP term: algebra may shrink it */
    nodes[1].op = KF_OP_SUM;
    strcpy(dev.kind, "cpu");
    kf_roofline_enforce(&rf, &r, &dev, 1e6);
    KF_CHECK(!rf.flop_term);
    KF_CHECK_NEAR(rf.hard_floor_s, 4e8 / 1e12, 1e-12);
}

/* A CPU with bf16 units: the enforced floor takes the fastest of the fp32,
 * vdpbf16ps and AMX peaks whatever the candidate says; the printed floor
 * and fraction take the peak of the unit the candidate names (the
 * cpu-simd counter "compute_unit"), and stay fp32 for an unknown unit or
 * one the device has no peak for. */
KF_TEST(roofline_uses_the_unit_the_candidate_used)
{
    kf_problem p;
    memset(&p, 0, sizeof p);
    kf_node nodes[1];
    memset(nodes, 0, sizeof nodes);
    nodes[0].op = KF_OP_LINEAR;
    p.n_nodes = 1;
    p.nodes = nodes;
    kf_resolved r;
    memset(&r, 0, sizeof r);
    r.problem = &p;
    r.flops = 4e9;
    r.min_bytes = 4e6;
    kf_device_info dev;
    memset(&dev, 0, sizeof dev);
    dev.struct_size = sizeof dev;
    strcpy(dev.kind, "cpu");
    dev.peak_flops = 4e11;            /* fp32: 10 ms */
    dev.peak_flops_bf16 = 2e11;       /* vdpbf16ps: 20 ms */
    dev.peak_flops_amx_bf16 = 2e12;   /* AMX: 2 ms */
    dev.peak_bytes_per_s = 1e11;
    dev.cache_bytes_per_s = 1e12;
    kf_roofline rf;
    kf_roofline_compute(&r, &dev, &rf);
    kf_roofline_enforce(&rf, &r, &dev, 1e9);
    KF_CHECK_NEAR(rf.hard_floor_s, 4e9 / (1.25 * 2e12), 1e-12);   /* the fastest unit */
    KF_CHECK_NEAR(rf.floor_s, 1e-2, 1e-12);
    kf_roofline_use_unit(&rf, &dev, 2);
    KF_CHECK_NEAR(rf.peak_flops, 2e12, 0);
    KF_CHECK_NEAR(rf.floor_s, 2e-3, 1e-12);
    KF_CHECK_NEAR(rf.hard_floor_s, 4e9 / (1.25 * 2e12), 1e-12);   /* untouched */
    kf_roofline_apply(&rf, 4e-3);
    KF_CHECK_NEAR(rf.fraction, 0.5, 1e-12);
    /* the target's fraction is of the fastest unit's floor, whatever unit
       ran: an fp32 kernel at 90% of the FMA peak is at 18% of the tiles' */
    kf_roofline_compute(&r, &dev, &rf);
    KF_CHECK_NEAR(rf.device_floor_s, 2e-3, 1e-12);
    kf_roofline_use_unit(&rf, &dev, 0);
    kf_roofline_apply(&rf, 1e-2 / 0.9);
    KF_CHECK_NEAR(rf.fraction, 0.9, 1e-12);
    KF_CHECK_NEAR(rf.device_fraction, 0.18, 1e-12);
    KF_CHECK_NEAR(kf_roofline_target_fraction(&rf), 0.18, 1e-12);
    rf.device_floor_s = 0;               /* a record without it: the fraction */
    KF_CHECK_NEAR(kf_roofline_target_fraction(&rf), 0.9, 1e-12);
    kf_roofline_compute(&r, &dev, &rf);
    kf_roofline_use_unit(&rf, &dev, 1);
    KF_CHECK_NEAR(rf.floor_s, 2e-2, 1e-12);
    kf_roofline_compute(&r, &dev, &rf);
    kf_roofline_use_unit(&rf, &dev, 7);   /* unknown: fp32 */
    KF_CHECK_NEAR(rf.peak_flops, 4e11, 0);
    dev.peak_flops_amx_bf16 = 0;         /* no AMX peak: fp32 */
    kf_roofline_use_unit(&rf, &dev, 2);
    KF_CHECK_NEAR(rf.floor_s, 1e-2, 1e-12);
    /* 5, AVX2's int16 pairs: bounded at twice the FMA peak where the
       vectors are 8 floats, and then the enforced floor's fastest unit */
    dev.peak_flops_bf16 = 0;
    dev.warp_size = 16;                  /* AVX-512: not offered */
    kf_roofline_compute(&r, &dev, &rf);
    kf_roofline_use_unit(&rf, &dev, 5);
    KF_CHECK_NEAR(rf.peak_flops, 4e11, 0);
    kf_roofline_enforce(&rf, &r, &dev, 1e9);
    KF_CHECK_NEAR(rf.hard_floor_s, 4e9 / (1.25 * 4e11), 1e-12);
    dev.warp_size = 8;
    kf_roofline_compute(&r, &dev, &rf);
    KF_CHECK_NEAR(rf.unit_peak_flops[5], 8e11, 0);
    KF_CHECK_NEAR(rf.device_floor_s, 5e-3, 1e-12);
    kf_roofline_use_unit(&rf, &dev, 5);
    KF_CHECK_NEAR(rf.floor_s, 5e-3, 1e-12);
    kf_roofline_enforce(&rf, &r, &dev, 1e9);
    KF_CHECK_NEAR(rf.hard_floor_s, 4e9 / (1.25 * 8e11), 1e-12);
    /* measured by the probe (ABI 1.6): its rate for the unit and the
       target's floor; the enforced floor keeps the bound where that is
       faster (a busy machine measures low), the measurement where it is */
    dev.peak_flops_i16 = 6e11;
    kf_roofline_compute(&r, &dev, &rf);
    KF_CHECK_NEAR(rf.unit_peak_flops[5], 6e11, 0);
    KF_CHECK_NEAR(rf.device_floor_s, 4e9 / 6e11, 1e-12);
    kf_roofline_use_unit(&rf, &dev, 5);
    KF_CHECK_NEAR(rf.floor_s, 4e9 / 6e11, 1e-12);
    kf_roofline_enforce(&rf, &r, &dev, 1e9);
    KF_CHECK_NEAR(rf.hard_floor_s, 4e9 / (1.25 * 8e11), 1e-12);
    dev.peak_flops_i16 = 9e11;
    kf_roofline_compute(&r, &dev, &rf);
    kf_roofline_enforce(&rf, &r, &dev, 1e9);
    KF_CHECK_NEAR(rf.hard_floor_s, 4e9 / (1.25 * 9e11), 1e-12);
    dev.warp_size = 16;                  /* AVX-512: not offered, measured or not */
    kf_roofline_compute(&r, &dev, &rf);
    KF_CHECK_NEAR(rf.unit_peak_flops[5], 0, 0);
    dev.peak_flops_i16 = 0;
    dev.warp_size = 8;
    strcpy(dev.kind, "gpu");             /* only CPU devices */
    dev.peak_flops_bf16 = 9e12;
    kf_roofline_compute(&r, &dev, &rf);
    kf_roofline_use_unit(&rf, &dev, 1);
    KF_CHECK_NEAR(rf.peak_flops, 4e11, 0);
}

KF_TEST(timing_samples_must_fit_the_parents_clock)
{
    double wall[5] = {1e-3, 1.1e-3, 1e-3, 1.2e-3, 1e-3};
    double honest[5] = {0.95e-3, 1.04e-3, 0.96e-3, 1.1e-3, 0.95e-3};
    char why[400];
    KF_CHECK_INT(kf_timing_check(honest, wall, 5, 20e-6, 1, why, sizeof why), 0);
    /* a sample longer than the round trip that contained it */
    double too_long[5] = {0.95e-3, 2e-3, 0.96e-3, 1.1e-3, 0.95e-3};
    KF_CHECK_INT(kf_timing_check(too_long, wall, 5, 20e-6, 0, why, sizeof why), 2);
    KF_CHECK_CONTAINS(why, "reported 2000 us for a run the parent timed at 1100 us");
    /* forged small on a host clock: the median gap is far beyond the channel */
    double forged[5] = {1e-9, 1e-9, 1e-9, 1.1e-3, 1e-9};
    KF_CHECK_INT(kf_timing_check(forged, wall, 5, 20e-6, 1, why, sizeof why), 2);
    KF_CHECK_CONTAINS(why, "samples forged small?");
    /* honest on a loaded machine: most round trips carry scheduling delays,
     * the faster half still has one quiet run */
    double busy[5] = {5e-3, 6e-3, 1.2e-3, 7e-3, 8e-3};
    double fast[5] = {0.95e-3, 1.0e-3, 0.9e-3, 1.0e-3, 1.0e-3};   /* the quiet run ran fastest too */
    KF_CHECK_INT(kf_timing_check(fast, busy, 5, 20e-6, 1, why, sizeof why), 0);
    /* forging only a minority does not move the median and is let be */
    double minority[5] = {1e-9, 1.04e-3, 0.96e-3, 1.1e-3, 0.95e-3};
    KF_CHECK_INT(kf_timing_check(minority, wall, 5, 20e-6, 1, why, sizeof why), 0);
    /* ... but a device clock may sit far inside the round trip (uploads) */
    KF_CHECK_INT(kf_timing_check(forged, wall, 5, 20e-6, 0, why, sizeof why), 0);
    double nan_sample[5] = {0.95e-3, NAN, 0.96e-3, 1.1e-3, 0.95e-3};
    KF_CHECK_INT(kf_timing_check(nan_sample, wall, 5, 20e-6, 1, why, sizeof why), 1);
    double negative[5] = {0.95e-3, -1, 0.96e-3, 1.1e-3, 0.95e-3};
    KF_CHECK_INT(kf_timing_check(negative, wall, 5, 20e-6, 1, why, sizeof why), 1);
}

int main(void)
{
    return kf_test_main();
}
