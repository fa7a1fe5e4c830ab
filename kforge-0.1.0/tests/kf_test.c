#include "kf_test.h"

#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KF_MAX_TESTS 512
#define SKIP_EXIT 77

static struct { const char *name; kf_test_fn fn; double timeout; } tests[KF_MAX_TESTS];
static int n_tests;
static char *case_tmpdir;

void kf_test_register(const char *name, kf_test_fn fn, double timeout_s)
{
    if (n_tests < KF_MAX_TESTS) {
        tests[n_tests].name = name;
        tests[n_tests].fn = fn;
        tests[n_tests].timeout = timeout_s;
        n_tests++;
    }
}

void kf_test_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "# %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    exit(1);
}

void kf_test_skip(const char *why)
{
    fprintf(stderr, "# skip: %s\n", why);
    fflush(stderr);
    exit(SKIP_EXIT);
}

const char *kf_test_srcdir(void) { const char *s = getenv("KF_SRCDIR"); return s ? s : "."; }
const char *kf_test_builddir(void) { const char *s = getenv("KF_BUILDDIR"); return s ? s : "."; }

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb; (void)flag; (void)ftw;
    return remove(p);
}

char *kf_test_tmpdir(void)
{
    if (!case_tmpdir) {
        const char *base = getenv("TMPDIR");
        char tmpl[4096];
        snprintf(tmpl, sizeof tmpl, "%s/kftest.XXXXXX", base ? base : "/tmp");
        char *d = mkdtemp(tmpl);
        if (!d) kf_test_fail(__FILE__, __LINE__, "mkdtemp: %s", strerror(errno));
        case_tmpdir = strdup(d);
    }
    return case_tmpdir;
}

char *kf_test_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len < 2) { cap *= 2; char *nb = realloc(buf, cap); if (!nb) { free(buf); buf = NULL; } else buf = nb; }
    }
    fclose(f);
    if (buf) buf[len] = '\0';
    return buf;
}

int kf_test_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t n = strlen(text);
    int ok = fwrite(text, 1, n, f) == n;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

int kf_test_run(const char *cmd, char **out)
{
    char *full = NULL;
    if (asprintf(&full, "( %s ) 2>&1", cmd) < 0) return -1;
    FILE *p = popen(full, "r");
    free(full);
    if (!p) return -1;
    size_t cap = 8192, len = 0, n;
    char *buf = malloc(cap);
    while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += n;
        if (cap - len < 2) { cap *= 2; buf = realloc(buf, cap); }
    }
    buf[len] = '\0';
    int st = pclose(p);
    if (out) *out = buf; else free(buf);
    if (st == -1) return -1;
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
    return -1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int run_case(int i)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) {
        setpgid(0, 0);
        tests[i].fn();
        fflush(NULL);
        if (case_tmpdir) nftw(case_tmpdir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
        _exit(0);
    }
    setpgid(pid, pid);
    double deadline = now_s() + tests[i].timeout;
    int st = 0;
    for (;;) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) break;
        if (r < 0 && errno != EINTR) return 1;
        if (now_s() > deadline) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            fprintf(stderr, "# timed out after %.0f s\n", tests[i].timeout);
            return 1;
        }
        usleep(2000);
    }
    if (WIFEXITED(st)) return WEXITSTATUS(st) == SKIP_EXIT ? SKIP_EXIT : WEXITSTATUS(st) != 0;
    fprintf(stderr, "# died on signal %d\n", WTERMSIG(st));
    return 1;
}

int kf_test_main(void)
{
    const char *only = getenv("KF_TEST_ONLY");
    int nofork = getenv("KF_TEST_NOFORK") != NULL;
    int planned = 0;
    for (int i = 0; i < n_tests; i++)
        if (!only || strcmp(only, tests[i].name) == 0) planned++;
    printf("1..%d\n", planned);
    int k = 0, failed = 0;
    for (int i = 0; i < n_tests; i++) {
        if (only && strcmp(only, tests[i].name) != 0) continue;
        k++;
        int rc;
        if (nofork) { tests[i].fn(); rc = 0; }
        else rc = run_case(i);
        if (rc == SKIP_EXIT) printf("ok %d - %s # SKIP\n", k, tests[i].name);
        else if (rc == 0) printf("ok %d - %s\n", k, tests[i].name);
        else { printf("not ok %d - %s\n", k, tests[i].name); failed++; }
        fflush(stdout);
    }
    return failed ? 1 : 0;
}
