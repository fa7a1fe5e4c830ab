/* eval_text.c — a growing string for summaries and diagnostics. */
#include "eval_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reserve(kf_sb *b, size_t extra)
{
    if (b->oom) return -1;
    if (b->len + extra + 1 <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) {
        b->oom = 1;
        return -1;
    }
    b->s = s;
    b->cap = cap;
    return 0;
}

void kf_sb_append(kf_sb *b, const char *text, size_t n)
{
    if (reserve(b, n) != 0) return;
    memcpy(b->s + b->len, text, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void kf_sb_printf(kf_sb *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || reserve(b, (size_t)n) != 0) return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

char *kf_sb_take(kf_sb *b)
{
    char *s = b->oom ? NULL : b->s ? b->s : strdup("");
    if (b->oom) free(b->s);
    memset(b, 0, sizeof *b);
    return s;
}

void kf_sb_free(kf_sb *b)
{
    free(b->s);
    memset(b, 0, sizeof *b);
}
