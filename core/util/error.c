#include "error.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int kf_vfail(kf_error *err, kf_error_kind kind, const char *fmt, va_list ap)
{
    if (err) {
        err->kind = kind ? kind : KF_E_INTERNAL;
        err->code = 0;
        err->errnum = 0;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    }
    return -1;
}

int kf_fail(kf_error *err, kf_error_kind kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kf_vfail(err, kind, fmt, ap);
    va_end(ap);
    return -1;
}

int kf_failc(kf_error *err, kf_error_kind kind, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kf_vfail(err, kind, fmt, ap);
    va_end(ap);
    if (err) err->code = code;
    return -1;
}

int kf_fail_errno(kf_error *err, int errnum, const char *fmt, ...)
{
    kf_error_kind kind = errnum == ENOENT || errnum == ENOTDIR || errnum == EISDIR || errnum == ENAMETOOLONG ||
                                 errnum == ELOOP
                             ? KF_E_BAD_INPUT
                         : errnum == ENOMEM ? KF_E_INTERNAL
                                            : KF_E_IO;
    va_list ap;
    va_start(ap, fmt);
    kf_vfail(err, kind, fmt, ap);
    va_end(ap);
    if (err) err->errnum = errnum;
    return -1;
}

void kf_error_clear(kf_error *err)
{
    if (err) {
        err->kind = KF_E_NONE;
        err->code = 0;
        err->errnum = 0;
        err->msg[0] = '\0';
    }
}

const char *kf_error_kind_name(kf_error_kind kind)
{
    switch (kind) {
    case KF_E_NONE: return "no error";
    case KF_E_BAD_INPUT: return "bad input";
    case KF_E_UNAVAILABLE: return "unavailable";
    case KF_E_CANDIDATE: return "candidate failed";
    case KF_E_IO: return "I/O error";
    case KF_E_INTERNAL: return "internal error";
    }
    return "internal error";
}

int kf_exit_code(kf_error_kind kind)
{
    static const int table[] = {
        [KF_E_NONE] = KF_EXIT_OK,
        [KF_E_BAD_INPUT] = KF_EXIT_BAD_INPUT,
        [KF_E_UNAVAILABLE] = KF_EXIT_BAD_INPUT,
        [KF_E_CANDIDATE] = KF_EXIT_CANDIDATE_FAILED,
        [KF_E_IO] = KF_EXIT_INTERNAL,
        [KF_E_INTERNAL] = KF_EXIT_INTERNAL,
    };
    return (unsigned)kind < sizeof table / sizeof table[0] ? table[kind] : KF_EXIT_INTERNAL;
}
