#include "common.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"
#include "problem/precision.h"

static void to_stdout(void *ud, const char *text)
{
    (void)ud;
    fputs(text, stdout);
    if (strchr(text, '\n')) fflush(stdout);
}

kf_progress kf_cli_progress(int quiet)
{
    kf_progress p = {0};
    if (!quiet) {
        p.fn = to_stdout;
        p.color = isatty(STDOUT_FILENO);
    }
    return p;
}

void kf_cli_error(const char *fmt, ...)
{
    va_list ap;
    fputs("kforge: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int kf_cli_load_problem(const char *path, const char *preset, kf_problem **pp, kf_resolved *r)
{
    kf_error err = {0};
    kf_problem *p = kf_problem_load(path, &err);
    if (!p) {
        kf_cli_error("%s", err.msg);
        return KF_EXIT_BAD_INPUT;
    }
    int idx;
    if (preset) {
        idx = kf_problem_find_preset(p, preset);
        if (idx < 0) {
            char known[512] = "";
            for (int i = 0; i < p->n_presets; i++) {
                if (i) strncat(known, ", ", sizeof known - strlen(known) - 1);
                strncat(known, p->preset_names[i], sizeof known - strlen(known) - 1);
            }
            kf_cli_error("%s: no preset '%s' (this problem has: %s)", path, preset, known);
            kf_problem_free(p);
            return KF_EXIT_BAD_INPUT;
        }
    } else {
        idx = kf_problem_find_preset(p, "small");
        if (idx < 0) idx = 0;
    }
    if (kf_resolve(p, idx, r, &err) != 0) {
        kf_cli_error("%s", err.msg);
        kf_problem_free(p);
        return KF_EXIT_BAD_INPUT;
    }
    *pp = p;
    return 0;
}


int kf_cli_int(const char *opt, const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = s && *s ? strtoll(s, &end, 10) : 0;
    if (!s || !*s || errno || *end || v < lo || v > hi) {
        kf_cli_error("%s: expected a whole number from %lld to %lld, got '%s'", opt, lo, hi, s ? s : "");
        return -1;
    }
    *out = v;
    return 0;
}

int kf_cli_precision(const char *s, int *out)
{
    if (kf_precision_policy_parse(s, out) == 0) return 0;
    kf_cli_error("--precision: expected any or fp32, got '%s'", s ? s : "");
    return -1;
}

int kf_cli_double(const char *opt, const char *s, double lo, double hi, int lo_open, double *out)
{
    char *end;
    errno = 0;
    double v = s && *s ? strtod(s, &end) : 0;
    if (!s || !*s || errno || *end || !isfinite(v) || v < lo || (lo_open && v == lo) || v > hi) {
        kf_cli_error("%s: expected a number %s %g and at most %g, got '%s'", opt, lo_open ? ">" : ">=", lo, hi,
                     s ? s : "");
        return -1;
    }
    *out = v;
    return 0;
}
