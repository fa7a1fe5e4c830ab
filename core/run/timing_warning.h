/*
 * timing_warning.h — saying when a best kernel was timed while the machine
 * was slower than when the same kernel was timed before.
 *
 * A run reports its best at a median: its step's, or the final re-timing's
 * (loop_confirm.c).  On a shared machine that median can fall in a slow
 * stretch: on the 16-core host a 0.44 ms kernel (four steps at 0.44-0.48
 * ms) was re-timed at a median of 8.4 ms, its fastest run 0.53 ms, and its
 * suite reported it at 0.54x PyTorch eager with nothing said
 * (bench/results/xeon16-cpu-torch-2026-12-02).  `kforge run`'s summary and
 * result.json (best.timing_warning) and the suite's reports (suite/report.h)
 * carry the same warning, built here.
 */
#ifndef KF_TIMING_WARNING_H
#define KF_TIMING_WARNING_H

/* A best whose reported median is this many times the fastest time seen for
 * the same kernel gets a warning. */
#define KF_TIMING_WARN_RATIO 2.0

/* The fastest time seen for a best whose fastest timed run took min_s and
 * whose median in its own step was step_s (0: unknown, or not re-timed), in
 * seconds: the smaller of those known, 0 when neither is; *from_step (may be
 * NULL) says whether it is step_s. */
double kf_timing_fastest_seen(double min_s, double step_s, int *from_step);

/* The warning for a best reported at best_s (a median, seconds) whose
 * fastest time seen is fastest_s (kf_timing_fastest_seen; from_step as it
 * set), or NULL when best_s is under KF_TIMING_WARN_RATIO times fastest_s,
 * either is unknown (<= 0), or memory runs out.  The caller frees it. */
char *kf_timing_warning(double best_s, double fastest_s, int from_step);

#endif
