/*
 * error.h — error reporting used across libkforge.
 *
 * Functions that can fail take a `kf_error *` (may be NULL) and, on failure,
 * write one line that tells the user what went wrong and, where possible,
 * what to do ("problem.json: graph[2].op: unknown op 'rleu' (did you mean
 * 'relu'?)").  The message never ends with a newline.
 */
#ifndef KF_ERROR_H
#define KF_ERROR_H

#include <stdarg.h>
#include <stddef.h>

#define KF_ERROR_MAX 2048

typedef struct kf_error {
    int code;                 /* 0 = no error; otherwise a kf_status or errno-like code */
    char msg[KF_ERROR_MAX];
} kf_error;

#if defined(__GNUC__)
#define KF_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define KF_PRINTF(a, b)
#endif

/* Sets err (if non-NULL) and returns -1, so callers can `return kf_fail(...)`. */
int kf_fail(kf_error *err, int code, const char *fmt, ...) KF_PRINTF(3, 4);
int kf_vfail(kf_error *err, int code, const char *fmt, va_list ap);
void kf_error_clear(kf_error *err);

/* Exit codes of the kforge CLI. */
enum { KF_EXIT_OK = 0, KF_EXIT_CANDIDATE_FAILED = 1, KF_EXIT_BAD_INPUT = 2, KF_EXIT_INTERNAL = 3 };

#endif
