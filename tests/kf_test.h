/*
 * kf_test.h — a small TAP test framework.  Every case runs in its own child
 * process with a wall-clock timeout (libuv's way), so a crash or a hang is
 * one failed case, not a dead test program.
 *
 *   KF_TEST(parses_linear) { ... KF_CHECK(x == 1); KF_CHECK_STR(a, "b"); }
 *   int main(void) { return kf_test_main(); }
 *
 * Cases register themselves (constructor attribute).  KF_TEST_ONLY=name
 * runs one case; KF_TEST_NOFORK=1 runs in-process (for gdb).
 */
#ifndef KF_TEST_H
#define KF_TEST_H

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef void (*kf_test_fn)(void);
void kf_test_register(const char *name, kf_test_fn fn, double timeout_s);
int kf_test_main(void);
void kf_test_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void kf_test_skip(const char *why);            /* marks the case skipped and returns */
const char *kf_test_srcdir(void);              /* $KF_SRCDIR or "." */
const char *kf_test_builddir(void);            /* $KF_BUILDDIR or "." */
char *kf_test_tmpdir(void);                    /* fresh dir, removed after the case; the harness's: not freed */
char *kf_test_read_file(const char *path);     /* malloc'ed, NULL on error */
int kf_test_write_file(const char *path, const char *text);
/* Runs a shell command, captures stdout+stderr (malloc'ed into *out),
 * returns the exit status (or 128+signal). */
int kf_test_run(const char *cmd, char **out);

#define KF_TEST_TIMEOUT(name, secs) \
    static void kf_test_##name(void); \
    __attribute__((constructor)) static void kf_test_reg_##name(void) \
    { kf_test_register(#name, kf_test_##name, secs); } \
    static void kf_test_##name(void)
#define KF_TEST(name) KF_TEST_TIMEOUT(name, 60.0)

#define KF_CHECK(c) do { if (!(c)) kf_test_fail(__FILE__, __LINE__, "check failed: %s", #c); } while (0)
#define KF_CHECK_MSG(c, ...) do { if (!(c)) kf_test_fail(__FILE__, __LINE__, __VA_ARGS__); } while (0)
#define KF_CHECK_INT(a, b) do { long long _a = (long long)(a), _b = (long long)(b); \
    if (_a != _b) kf_test_fail(__FILE__, __LINE__, "%s == %lld, expected %s == %lld", #a, _a, #b, _b); } while (0)
#define KF_CHECK_NEAR(a, b, tol) do { double _a = (double)(a), _b = (double)(b); \
    if (!(fabs(_a - _b) <= (tol))) kf_test_fail(__FILE__, __LINE__, "%s = %.17g, expected %.17g (tol %g)", #a, _a, _b, (double)(tol)); } while (0)
#define KF_CHECK_STR(a, b) do { const char *_a = (a), *_b = (b); \
    if (!_a || !_b || strcmp(_a, _b) != 0) kf_test_fail(__FILE__, __LINE__, "%s = \"%s\", expected \"%s\"", #a, _a ? _a : "(null)", _b ? _b : "(null)"); } while (0)
#define KF_CHECK_CONTAINS(hay, needle) do { const char *_h = (hay), *_n = (needle); \
    if (!_h || !strstr(_h, _n)) kf_test_fail(__FILE__, __LINE__, "%s does not contain \"%s\":\n%s", #hay, _n, _h ? _h : "(null)"); } while (0)

#endif
