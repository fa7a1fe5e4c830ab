/* timing_warning.c — see timing_warning.h. */
#include "timing_warning.h"

#include <stdio.h>

#include "util/fmt.h"

double kf_timing_fastest_seen(double min_s, double step_s, int *from_step)
{
    int step = step_s > 0 && !(min_s > 0 && min_s <= step_s);
    if (from_step) *from_step = step;
    return step ? step_s : min_s > 0 ? min_s : 0;
}

char *kf_timing_warning(double best_s, double fastest_s, int from_step)
{
    if (!(best_s > 0) || !(fastest_s > 0) || best_s < KF_TIMING_WARN_RATIO * fastest_s) return NULL;
    char b[32], t[32], *w = NULL;
    if (asprintf(&w,
                 "timed at %s (a median), %.1fx %s %s: the machine was slower while it was timed, so its "
                 "speedups over times taken at another moment are understated; run it again, or time it "
                 "beside its anchor in one stretch",
                 kf_fmt_duration(best_s, b, sizeof b), best_s / fastest_s,
                 from_step ? "its median in its own step," : "its fastest timed run,",
                 kf_fmt_duration(fastest_s, t, sizeof t)) < 0)
        w = NULL;
    return w;
}
