#include "strbuf.h"

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

void kf_sb_puts(kf_sb *b, const char *text)
{
    kf_sb_append(b, text, strlen(text));
}

void kf_sb_vprintf(kf_sb *b, const char *fmt, va_list ap)
{
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    if (n < 0) {
        b->oom = 1;
        return;
    }
    if (reserve(b, (size_t)n) != 0) return;
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void kf_sb_printf(kf_sb *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kf_sb_vprintf(b, fmt, ap);
    va_end(ap);
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
