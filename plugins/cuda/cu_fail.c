/* cu_fail.c — the cuda plugin's error helper (cu_fail.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cu_fail.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

char *kfcu_strf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) s = NULL;
    va_end(ap);
    return s;
}

kf_status kfcu_fail(char **out, kf_status st, const char *fmt, ...)
{
    if (out) {
        va_list ap;
        va_start(ap, fmt);
        char *s = NULL;
        if (vasprintf(&s, fmt, ap) < 0) s = NULL;
        va_end(ap);
        free(*out);
        *out = s;
    }
    return st;
}
