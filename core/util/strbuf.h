/*
 * strbuf.h — the one growable string of libkforge.
 *
 *     kf_sb b = {0};                 (an empty buffer; no allocation yet)
 *     kf_sb_printf(&b, "%d", 42);
 *     kf_sb_puts(&b, "text");
 *     char *s = kf_sb_take(&b);      (malloc'ed, the caller frees it)
 *
 * b.s is always NUL-terminated once anything was added; b.len excludes the
 * NUL.  Out of memory is sticky: the first failed append sets b.oom, later
 * appends do nothing, and kf_sb_take returns NULL (freeing what was built),
 * so callers check once at the end.
 */
#ifndef KF_STRBUF_H
#define KF_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

#include "error.h"

typedef struct kf_sb {
    char *s;
    size_t len, cap;
    int oom;
} kf_sb;

void kf_sb_printf(kf_sb *b, const char *fmt, ...) KF_PRINTF(2, 3);
void kf_sb_vprintf(kf_sb *b, const char *fmt, va_list ap);
void kf_sb_append(kf_sb *b, const char *text, size_t n);
void kf_sb_puts(kf_sb *b, const char *text);
/* The text (malloc'ed; "" when nothing was added) and b reset; NULL when
 * an append ran out of memory. */
char *kf_sb_take(kf_sb *b);
void kf_sb_free(kf_sb *b);

#endif
