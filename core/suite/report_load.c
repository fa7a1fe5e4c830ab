/* report_load.c — one run directory (result.json + journal.jsonl) into a
 * report entry, and the list of run directories of a suite (report.h). */
#include "report.h"

#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "run/anchor.h"
#include "run/journal.h"
#include "run/timing_warning.h"

const char *kf_report_status_name(kf_report_status s)
{
    switch (s) {
    case KF_REPORT_CORRECT: return "correct";
    case KF_REPORT_INCORRECT: return "incorrect";
    default: return "no result";
    }
}

void kf_report_entry_free(kf_report_entry *e)
{
    if (!e) return;
    free(e->name);
    free(e->run_dir);
    free(e->stop_reason);
    free(e->backend);
    free(e->language);
    free(e->device);
    free(e->preset);
    free(e->agent);
    free(e->baseline_how);
    free(e->anchor_how);
    free(e->anchor_warning);
    free(e->timing_warning);
    free(e->points);
    free(e->precision);
    free(e->precision_from);
    memset(e, 0, sizeof *e);
}

static char *get_str(json_object *o, const char *key)
{
    json_object *v;
    if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    return strdup(json_object_get_string(v));
}

static double get_num(json_object *o, const char *key)
{
    json_object *v;
    if (!o || !json_object_object_get_ex(o, key, &v)) return 0;
    if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int)) return 0;
    return json_object_get_double(v);
}

static char *basename_dup(const char *dir)
{
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/') len--;
    size_t start = len;
    while (start > 0 && dir[start - 1] != '/') start--;
    return strndup(dir + start, len - start);
}

/* The "eval" events with their time, and the best time known after each. */
static void load_points(kf_report_entry *e)
{
    kf_error ignore = {0};
    json_object *events = kf_journal_read(e->run_dir, &ignore);
    if (!events) return;
    size_t n = json_object_array_length(events);
    e->points = calloc(n ? n : 1, sizeof *e->points);
    if (!e->points) { json_object_put(events); return; }
    double best = 0;
    for (size_t i = 0; i < n; i++) {
        json_object *ev = json_object_array_get_idx(events, i), *v;
        if (!json_object_object_get_ex(ev, "ev", &v)) continue;
        const char *name = json_object_get_string(v);
        double t = get_num(ev, "median_s");
        if (!strcmp(name, "best")) {
            if (t > 0 && (best == 0 || t < best)) best = t;
            /* the best event follows its eval: update that point */
            if (e->n_points > 0) e->points[e->n_points - 1].best_s = best;
        } else if (!strcmp(name, "eval")) {
            kf_report_point *p = &e->points[e->n_points++];
            p->step = (int)get_num(ev, "step");
            p->passed = json_object_object_get_ex(ev, "verdict", &v) &&
                        !strcmp(json_object_get_string(v), "pass");
            p->time_s = t;
            p->best_s = best;
            if (p->passed && !e->first_correct_step) e->first_correct_step = p->step;
        }
    }
    json_object_put(events);
}

/* A suite's run directory NAME~sK (kforge suite --seeds): K, and the name
 * cut to NAME; 0 when the name has no such suffix. */
static int seed_suffix(char *name)
{
    char *t = strrchr(name, '~');
    if (!t || t[1] != 's' || !t[2]) return 0;
    char *end = NULL;
    long k = strtol(t + 2, &end, 10);
    if (*end || k <= 0 || k > 1000000) return 0;
    *t = '\0';
    return (int)k;
}

/* run.json agent_seed, 0 when absent */
static int run_agent_seed(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/run.json", dir);
    kf_error ignore = {0};
    char *text = kf_read_file(path, &ignore);
    json_object *o = text ? json_tokener_parse(text) : NULL, *v;
    free(text);
    int k = o && json_object_object_get_ex(o, "agent_seed", &v) ? (int)json_object_get_int64(v) : 0;
    json_object_put(o);
    return k;
}

int kf_report_entry_load(const char *dir, kf_report_entry *e, kf_error *err)
{
    memset(e, 0, sizeof *e);
    struct stat sb;
    int missing = stat(dir, &sb) != 0 && errno == ENOENT;
    if (!missing && (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)))
        return kf_fail_errno(err, ENOTDIR, "%s: not a run directory", dir);
    e->run_dir = strdup(dir);
    e->name = basename_dup(dir);
    if (!e->run_dir || !e->name) return kf_fail(err, KF_E_INTERNAL, "out of memory");
    e->agent_seed = seed_suffix(e->name);
    if (!missing) {
        int k = run_agent_seed(dir);
        if (k > 0) e->agent_seed = k;
    }
    if (missing) {
        e->status = KF_REPORT_NO_RESULT;
        e->stop_reason = strdup("the run did not start: see the suite's logs/ for why");
        return 0;
    }

    char path[4200];
    snprintf(path, sizeof path, "%s/result.json", dir);
    kf_error rerr = {0};
    char *text = kf_read_file(path, &rerr);
    int had_text = text != NULL;
    json_object *o = text ? json_tokener_parse(text) : NULL;
    free(text);
    if (!o || !json_object_is_type(o, json_type_object)) {
        snprintf(path, sizeof path, "%s/journal.jsonl", dir);
        struct stat jb;
        int journal = stat(path, &jb) == 0;
        e->status = KF_REPORT_NO_RESULT;
        e->stop_reason = strdup(had_text ? "result.json is not valid JSON"
                                : journal ? "no result.json: the run was killed or crashed; "
                                            "run the suite again to resume it"
                                          : "the run did not start: see the suite's logs/ for why");
        json_object_put(o);
        load_points(e);
        return 0;
    }
    char *pname = get_str(o, "problem");
    if (pname) {
        free(e->name);
        e->name = pname;
    }
    e->stop_reason = get_str(o, "stop_reason");
    e->backend = get_str(o, "backend");
    e->language = get_str(o, "backend_language");
    e->device = get_str(o, "device");
    e->preset = get_str(o, "preset");
    e->agent = get_str(o, "agent");
    e->steps = (int)get_num(o, "steps");
    e->tokens_in = (long)get_num(o, "tokens_in");
    e->tokens_out = (long)get_num(o, "tokens_out");
    e->cost_usd = get_num(o, "cost_usd");
    e->wall_s = get_num(o, "wall_s");
    json_object *bl = NULL, *best = NULL;
    if (json_object_object_get_ex(o, "baseline", &bl) && json_object_is_type(bl, json_type_object)) {
        e->baseline_how = get_str(bl, "how");
        e->baseline_s = get_num(bl, "median_s");
        json_object *an = NULL;
        if (json_object_object_get_ex(bl, "gemm_anchor", &an) && json_object_is_type(an, json_type_object)) {
            e->anchor_s = get_num(an, "median_s");
            e->anchor_threads = (int)get_num(an, "threads");
            e->anchor_how = get_str(an, e->anchor_s > 0 ? "how" : "why");
            if (!e->anchor_how) e->anchor_how = get_str(an, "how");
            /* the anchor was timed beside the baseline's first time (start_median_s when
               the final re-timing timed the baseline again) */
            double start = get_num(bl, "start_median_s"), bs = start > 0 ? start : e->baseline_s;
            if (e->anchor_s > 0 && bs > 0) {
                e->baseline_over_anchor = bs / e->anchor_s;
                e->anchor_warning = kf_anchor_warning(bs, e->anchor_s);
            }
        }
    }
    json_object *verified;
    if (json_object_object_get_ex(o, "best", &best) && json_object_is_type(best, json_type_object) &&
        json_object_object_get_ex(best, "verified", &verified) && json_object_get_boolean(verified) &&
        get_num(best, "median_s") > 0) {
        e->status = KF_REPORT_CORRECT;
        e->best_s = get_num(best, "median_s");
        char *bdir = get_str(best, "dir");
        int step = 0, sample = 0;
        if (bdir && sscanf(bdir, "steps/%d-%d", &step, &sample) == 2) e->best_step = step;
        e->best_is_baseline = bdir && !strcmp(bdir, "baseline/candidate");
        kf_report_entry_precision(e, bdir);
        free(bdir);
        e->fraction = get_num(best, "roofline_fraction");
        json_object *cf, *rp;
        if (json_object_object_get_ex(best, "confirmed", &cf) && json_object_is_type(cf, json_type_object)) {
            e->confirm_rounds = (int)get_num(cf, "rounds");
            e->confirm_step_s = get_num(cf, "step_median_s");
            e->confirm_replaced = json_object_object_get_ex(cf, "replaced", &rp) && json_object_is_type(rp, json_type_string);
        }
        e->best_min_s = get_num(best, "min_s");
        int from_step;
        double fastest = kf_timing_fastest_seen(e->best_min_s, e->confirm_step_s, &from_step);
        e->timing_ratio = fastest > 0 ? e->best_s / fastest : 0;
        e->timing_warning = kf_timing_warning(e->best_s, fastest, from_step);
        e->speedup = get_num(best, "speedup_vs_baseline");
        if (e->speedup <= 0 && e->baseline_s > 0) e->speedup = e->baseline_s / e->best_s;
    } else {
        e->status = KF_REPORT_INCORRECT;
    }
    json_object_put(o);
    load_points(e);
    return 0;
}

void kf_report_free_list(char **dirs, int n)
{
    for (int i = 0; i < n; i++) free(dirs[i]);
    free(dirs);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int kf_report_list_runs(const char *report_dir, char ***out, kf_error *err)
{
    char runs[4200];
    snprintf(runs, sizeof runs, "%s/runs", report_dir);
    *out = NULL;
    DIR *d = opendir(runs);
    if (!d)
        return kf_fail_errno(err, errno, "cannot read %s: %s (is %s a suite report directory?)", runs,
                       strerror(errno), report_dir);
    char **v = NULL;
    int n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        char p[4600];
        snprintf(p, sizeof p, "%s/%s", runs, de->d_name);
        struct stat sb;
        if (stat(p, &sb) != 0 || !S_ISDIR(sb.st_mode)) continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            char **nv = realloc(v, (size_t)cap * sizeof *v);
            if (!nv) { kf_report_free_list(v, n); closedir(d); return kf_fail(err, KF_E_INTERNAL, "out of memory"); }
            v = nv;
        }
        v[n] = strdup(p);
        if (!v[n]) { kf_report_free_list(v, n); closedir(d); return kf_fail(err, KF_E_INTERNAL, "out of memory"); }
        n++;
    }
    closedir(d);
    if (n) qsort(v, (size_t)n, sizeof *v, cmp_str);
    *out = v;
    return n;
}
