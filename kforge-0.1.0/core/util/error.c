#include "error.h"

#include <stdio.h>
#include <string.h>

int kf_vfail(kf_error *err, int code, const char *fmt, va_list ap)
{
    if (err) {
        err->code = code ? code : -1;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    }
    return -1;
}

int kf_fail(kf_error *err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kf_vfail(err, code, fmt, ap);
    va_end(ap);
    return -1;
}

void kf_error_clear(kf_error *err)
{
    if (err) {
        err->code = 0;
        err->msg[0] = '\0';
    }
}
