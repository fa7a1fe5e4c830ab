/* clock.h — the one clock of libkforge. */
#ifndef KF_CLOCK_H
#define KF_CLOCK_H

/* Seconds on CLOCK_MONOTONIC (durations and deadlines; not a date). */
double kf_now_s(void);
/* Seconds since the Unix epoch on CLOCK_REALTIME (dates in records). */
double kf_wall_s(void);

#endif
