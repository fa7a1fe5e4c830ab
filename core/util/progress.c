#include "progress.h"

#include <stdio.h>

void kf_vprogressf(const kf_progress *p, const char *fmt, va_list ap)
{
    if (!p || !p->fn) return;
    char buf[8192];
    vsnprintf(buf, sizeof buf, fmt, ap);
    p->fn(p->ud, buf);
}

void kf_progressf(const kf_progress *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kf_vprogressf(p, fmt, ap);
    va_end(ap);
}
