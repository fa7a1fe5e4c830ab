/*
 * fmt.h — numbers for people: durations, counts and rates with SI prefixes.
 * Every function writes into the caller's buf (always NUL-terminated when
 * n > 0) and returns buf.
 */
#ifndef KF_FMT_H
#define KF_FMT_H

#include <stddef.h>

/* "12.3 ns", "4.56 us", "7.89 ms", "1.5 s" (at most three significant
 * digits, %.3g: trailing zeros dropped). */
const char *kf_fmt_time(double s, char *buf, size_t n);
/* kf_fmt_time, but "-" for s <= 0 (no measurement) and one decimal in
 * microseconds ("12.3 us"): the form records and prompts use. */
const char *kf_fmt_duration(double s, char *buf, size_t n);
/* "1.5 GFLOP" for (1.5e9, "FLOP"): steps of 1000, prefixes up to P. */
const char *kf_fmt_count(double v, const char *unit, char *buf, size_t n);
/* kf_fmt_count followed by "/s". */
const char *kf_fmt_rate(double per_s, const char *unit, char *buf, size_t n);

#endif
