/*
 * error.h — the one error model of libkforge.
 *
 * Functions that can fail take a `kf_error *` (may be NULL) and, on failure,
 * fill it and return -1 (or NULL): a KIND that says whose problem it is and
 * decides the CLI's exit code, the errno of a failed system call where there
 * is one, an optional module code for callers that need finer decisions
 * (KF_LLM_E_* in llm.h, KF_ANSWER_E_* in answer.h), and one line for the
 * user that says what went wrong and, where possible, what to do
 * ("problem.json: graph[2].op: unknown op 'rleu' (did you mean 'relu'?)").
 * The message never ends with a newline.  The library never prints and
 * never exits; the CLI maps kinds to exit codes with kf_exit_code().
 */
#ifndef KF_ERROR_H
#define KF_ERROR_H

#include <stdarg.h>
#include <stddef.h>

#define KF_ERROR_MAX 2048

typedef enum kf_error_kind {
    KF_E_NONE = 0,
    KF_E_BAD_INPUT,     /* the user's input or setup is wrong: a file, a flag, the config,
                           a missing key, cassette or prompts, an unknown provider or
                           backend, an output path under a file */
    KF_E_UNAVAILABLE,   /* something this run needs is not here: a backend, a device, a
                           model server, a tool */
    KF_E_CANDIDATE,     /* the candidate (or the agent's answer) failed: not a fault of kforge */
    KF_E_IO,            /* reading or writing a file, or the network, failed */
    KF_E_INTERNAL       /* a bug, a crash of a part of kforge, or out of memory */
} kf_error_kind;

typedef struct kf_error {
    kf_error_kind kind;       /* KF_E_NONE = no error */
    int code;                 /* module detail (KF_LLM_E_*, KF_ANSWER_E_*), 0 if none */
    int errnum;               /* errno of the failed system call, 0 if none */
    char msg[KF_ERROR_MAX];
} kf_error;

#if defined(__GNUC__)
#define KF_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define KF_PRINTF(a, b)
#endif

/* Sets err (if non-NULL: kind, code 0, errnum 0, the message) and returns
 * -1, so callers can `return kf_fail(...)`. */
int kf_fail(kf_error *err, kf_error_kind kind, const char *fmt, ...) KF_PRINTF(3, 4);
int kf_vfail(kf_error *err, kf_error_kind kind, const char *fmt, va_list ap);
/* kf_fail with a module code. */
int kf_failc(kf_error *err, kf_error_kind kind, int code, const char *fmt, ...) KF_PRINTF(4, 5);
/* kf_fail after a failed system call: errnum is kept; the kind is
 * KF_E_BAD_INPUT when the path the user named does not exist or is not
 * what it must be (ENOENT, ENOTDIR, EISDIR, ENAMETOOLONG, ELOOP), else
 * KF_E_IO.  The message should already say strerror(errnum). */
int kf_fail_errno(kf_error *err, int errnum, const char *fmt, ...) KF_PRINTF(3, 4);
void kf_error_clear(kf_error *err);

/* "bad input", "unavailable", "candidate failed", "I/O error", "internal error". */
const char *kf_error_kind_name(kf_error_kind kind);

/* Exit codes of the kforge CLI (README: "Exit status everywhere"). */
enum { KF_EXIT_OK = 0, KF_EXIT_CANDIDATE_FAILED = 1, KF_EXIT_BAD_INPUT = 2, KF_EXIT_INTERNAL = 3,
       KF_EXIT_LLM_UNAVAILABLE = 4   /* kforge run: the model server is down; the run is resumable */ };

/* The one table from kinds to exit codes: NONE 0, CANDIDATE 1, BAD_INPUT
 * and UNAVAILABLE 2 (the user can fix the setup), IO and INTERNAL 3. */
int kf_exit_code(kf_error_kind kind);

#endif
