#include "fmt.h"

#include <stdio.h>

static const char *scaled(double v, const char *const *units, double step, int n_units,
                          char *buf, size_t n)
{
    int u = 0;
    while (u + 1 < n_units && v >= step) { v /= step; u++; }
    snprintf(buf, n, "%.3g %s", v, units[u]);
    return buf;
}

const char *kf_fmt_time(double s, char *buf, size_t n)
{
    if (s < 1e-6) snprintf(buf, n, "%.3g ns", s * 1e9);
    else if (s < 1e-3) snprintf(buf, n, "%.3g us", s * 1e6);
    else if (s < 1) snprintf(buf, n, "%.3g ms", s * 1e3);
    else snprintf(buf, n, "%.3g s", s);
    return buf;
}

const char *kf_fmt_rate(double per_s, const char *unit, char *buf, size_t n)
{
    char tmp[64];
    kf_fmt_count(per_s, unit, tmp, sizeof tmp);
    snprintf(buf, n, "%s/s", tmp);
    return buf;
}

const char *kf_fmt_count(double v, const char *unit, char *buf, size_t n)
{
    static const char *pre[] = {"", "K", "M", "G", "T", "P"};
    char u[6][32];
    const char *units[6];
    for (int i = 0; i < 6; i++) { snprintf(u[i], sizeof u[i], "%s%s", pre[i], unit); units[i] = u[i]; }
    return scaled(v, units, 1000.0, 6, buf, n);
}

const char *kf_fmt_duration(double s, char *buf, size_t n)
{
    if (s <= 0) snprintf(buf, n, "-");
    else if (s < 1e-3) snprintf(buf, n, "%.1f us", s * 1e6);
    else if (s < 1) snprintf(buf, n, "%.3g ms", s * 1e3);
    else snprintf(buf, n, "%.3g s", s);
    return buf;
}
