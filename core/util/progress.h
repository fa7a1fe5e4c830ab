/*
 * progress.h — how the library reports progress: it never prints; it hands
 * each piece of text to the receiver its caller set (the CLI writes it to
 * stdout).  Text arrives in pieces that end with "\n" at the end of a line.
 */
#ifndef KF_PROGRESS_H
#define KF_PROGRESS_H

#include <stdarg.h>

#include "error.h"

typedef void (*kf_progress_fn)(void *ud, const char *text);

typedef struct kf_progress {
    kf_progress_fn fn;        /* NULL: quiet */
    void *ud;                 /* the receiver's own data */
    int color;                /* the receiver shows ANSI colours (a terminal) */
} kf_progress;

/* Formats and hands the text to p->fn; nothing when p or p->fn is NULL.
 * Text longer than 8 KiB is cut. */
void kf_progressf(const kf_progress *p, const char *fmt, ...) KF_PRINTF(2, 3);
void kf_vprogressf(const kf_progress *p, const char *fmt, va_list ap);

#endif
