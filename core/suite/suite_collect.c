/* suite_collect.c — the problem files of a suite (suite.h). */
#include "suite.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "problem/problem.h"

typedef struct path_list {
    char **v;
    int n, cap;
} path_list;

static int push(path_list *l, const char *path, kf_error *err)
{
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 32;
        char **nv = realloc(l->v, (size_t)cap * sizeof *nv);
        if (!nv) return kf_fail(err, KF_E_INTERNAL, "out of memory");
        l->v = nv;
        l->cap = cap;
    }
    if (!(l->v[l->n] = strdup(path))) return kf_fail(err, KF_E_INTERNAL, "out of memory");
    l->n++;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

/* *.json files of dir and of its subdirectories, entries in name order. */
static int scan_dir(const char *dir, path_list *out, int depth, kf_error *err)
{
    if (depth > 16) return kf_fail(err, KF_E_BAD_INPUT, "%s: directories nested too deep", dir);
    DIR *d = opendir(dir);
    if (!d) return kf_fail(err, KF_E_BAD_INPUT, "cannot read directory %s: %s", dir, strerror(errno));
    path_list names = {0};
    struct dirent *de;
    int rc = 0;
    while (rc == 0 && (de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        rc = push(&names, de->d_name, err);
    }
    closedir(d);
    if (names.n) qsort(names.v, (size_t)names.n, sizeof *names.v, cmp_str);
    for (int i = 0; rc == 0 && i < names.n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s%s%s", dir, ends_with(dir, "/") ? "" : "/", names.v[i]);
        struct stat sb;
        if (stat(path, &sb) != 0) continue;
        if (S_ISDIR(sb.st_mode)) rc = scan_dir(path, out, depth + 1, err);
        else if (S_ISREG(sb.st_mode) && ends_with(names.v[i], ".json")) rc = push(out, path, err);
    }
    for (int i = 0; i < names.n; i++) free(names.v[i]);
    free(names.v);
    return rc;
}

void kf_suite_problems_free(kf_suite_problem *v, int n)
{
    for (int i = 0; v && i < n; i++) {
        free(v[i].path);
        free(v[i].name);
    }
    free(v);
}

int kf_suite_collect(const char *const *inputs, int n_inputs, const char *preset,
                     kf_suite_problem **out, int *n_out, kf_error *err)
{
    *out = NULL;
    *n_out = 0;
    path_list files = {0};
    int rc = 0;
    for (int i = 0; rc == 0 && i < n_inputs; i++) {
        struct stat sb;
        if (stat(inputs[i], &sb) != 0)
            rc = kf_fail(err, KF_E_BAD_INPUT, "%s: %s (give problem files or directories of them)", inputs[i], strerror(errno));
        else if (S_ISDIR(sb.st_mode)) {
            int before = files.n;
            rc = scan_dir(inputs[i], &files, 0, err);
            if (rc == 0 && files.n == before)
                rc = kf_fail(err, KF_E_BAD_INPUT, "%s: no problem files (*.json) in this directory", inputs[i]);
        } else
            rc = push(&files, inputs[i], err);
    }
    if (rc == 0 && files.n == 0) rc = kf_fail(err, KF_E_BAD_INPUT, "no problems given");
    kf_suite_problem *v = rc == 0 ? calloc((size_t)files.n, sizeof *v) : NULL;
    if (rc == 0 && !v) rc = kf_fail(err, KF_E_INTERNAL, "out of memory");
    int n = 0;
    for (int i = 0; rc == 0 && i < files.n; i++) {
        kf_error e = {0};
        kf_problem *p = kf_problem_load(files.v[i], &e);
        if (!p) { rc = kf_fail(err, KF_E_BAD_INPUT, "%s", e.msg); break; }
        if (preset && kf_problem_find_preset(p, preset) < 0)
            rc = kf_fail(err, KF_E_BAD_INPUT, "%s: no preset '%s' (choose a preset every problem has)", files.v[i], preset);
        if (p->name[0] == '.')
            rc = kf_fail(err, KF_E_BAD_INPUT, "%s: a problem name may not start with '.' (it names a run directory)", files.v[i]);
        for (int k = 0; rc == 0 && k < n; k++)
            if (!strcmp(v[k].name, p->name))
                rc = kf_fail(err, KF_E_BAD_INPUT, "%s and %s: two problems named '%s' (their run directories would clash)",
                             v[k].path, files.v[i], p->name);
        if (rc == 0) {
            v[n].path = strdup(files.v[i]);
            v[n].name = strdup(p->name);
            if (!v[n].path || !v[n].name) rc = kf_fail(err, KF_E_INTERNAL, "out of memory");
            n++;
        }
        kf_problem_free(p);
    }
    for (int i = 0; i < files.n; i++) free(files.v[i]);
    free(files.v);
    if (rc != 0) {
        kf_suite_problems_free(v, n);
        return -1;
    }
    *out = v;
    *n_out = n;
    return 0;
}
