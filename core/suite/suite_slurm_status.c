/* suite_slurm_status.c — `kforge suite --status`: the state of every task of
 * a Slurm suite from squeue, sacct and its run directory; and the run
 * directories in task order for --report-only (suite_slurm.h). */
#include "suite_slurm_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report.h"

void kf_slurm_status_free(kf_slurm_status *s)
{
    if (!s) return;
    for (int i = 0; i < s->n; i++) {
        kf_slurm_task_free(&s->t[i].task);
        free(s->t[i].stop_reason);
    }
    free(s->t);
    free(s->array_jobs);
    free(s->merge_job);
    free(s->sacct_why);
    memset(s, 0, sizeof *s);
}

typedef struct status_ctx {
    kf_slurm_status *s;
    const char *source;
} status_ctx;

static void set_state(void *ud, const char *job, int index, const char *state, const char *exit_code,
                      const char *node)
{
    status_ctx *c = ud;
    kf_slurm_status *s = c->s;
    if (index < 0) {
        if (s->merge_job && !strcmp(s->merge_job, job)) snprintf(s->merge_state, sizeof s->merge_state, "%s", state);
        return;
    }
    for (int i = 0; i < s->n; i++) {
        kf_slurm_task_status *t = &s->t[i];
        if (!t->task.job || strcmp(t->task.job, job) || t->task.index != index) continue;
        /* squeue knows best while it holds the job; sacct fills in the rest */
        if (t->source && !strcmp(t->source, "squeue") && strcmp(c->source, "squeue")) {
            if (!t->exit_code[0]) snprintf(t->exit_code, sizeof t->exit_code, "%s", exit_code);
            continue;
        }
        snprintf(t->state, sizeof t->state, "%s", state);
        if (exit_code[0]) snprintf(t->exit_code, sizeof t->exit_code, "%s", exit_code);
        snprintf(t->node, sizeof t->node, "%s", node);
        t->source = c->source;
    }
}

static void read_record(kf_slurm_task_status *t)
{
    t->record = kf_suite_run_state_of(t->task.run_dir);
    if (t->record == KF_SUITE_RUN_NEW) return;
    kf_report_entry e;
    kf_error err = {0};
    if (kf_report_entry_load(t->task.run_dir, &e, &err) != 0) return;
    t->correct = e.status == KF_REPORT_CORRECT;
    /* a run without its result: the steps its journal holds */
    t->steps = e.steps;
    for (int i = 0; i < e.n_points; i++)
        if (e.points[i].step > t->steps) t->steps = e.points[i].step;
    if (t->record == KF_SUITE_RUN_DONE && e.stop_reason) t->stop_reason = strdup(e.stop_reason);
    kf_report_entry_free(&e);
}

int kf_slurm_status_read(const char *report_dir, kf_slurm_status *out, kf_error *err)
{
    memset(out, 0, sizeof *out);
    int missing = 0;
    json_object *state = kf_slurm_state_load(report_dir, &missing, err);
    if (!state) {
        if (missing)
            return kf_fail(err, KF_E_BAD_INPUT, "%s/slurm/state.json not found: %s is not a suite submitted with "
                           "'kforge suite ... --slurm --report %s'", report_dir, report_dir, report_dir);
        return -1;
    }
    json_object *tasks, *v;
    json_object_object_get_ex(state, "tasks", &tasks);
    if (json_object_object_get_ex(state, "retries", &v)) out->retries = json_object_get_int(v);
    size_t n = json_object_array_length(tasks);
    out->t = calloc(n ? n : 1, sizeof *out->t);
    if (!out->t) {
        json_object_put(state);
        return kf_fail(err, KF_E_INTERNAL, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        kf_slurm_task_status *t = &out->t[out->n];
        if (kf_slurm_task_from_json(json_object_array_get_idx(tasks, i), &t->task) != 0) {
            kf_slurm_task_free(&t->task);
            continue;
        }
        t->given_up = t->task.submits >= 1 + out->retries;
        out->n++;
    }
    kf_sb jobs = {0};
    if (json_object_object_get_ex(state, "submissions", &v) && json_object_is_type(v, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(v); i++) {
            json_object *sub = json_object_array_get_idx(v, i), *j;
            if (json_object_object_get_ex(sub, "array_job", &j) && json_object_is_type(j, json_type_string))
                kf_sb_printf(&jobs, "%s%s", jobs.len ? "," : "", json_object_get_string(j));
            if (json_object_object_get_ex(sub, "merge_job", &j) && json_object_is_type(j, json_type_string)) {
                free(out->merge_job);
                out->merge_job = strdup(json_object_get_string(j));
            }
        }
    }
    json_object_put(state);
    out->array_jobs = kf_sb_take(&jobs);
    if (!out->array_jobs) return kf_fail(err, KF_E_INTERNAL, "out of memory");

    if (out->array_jobs[0]) {
        char *all = NULL;
        if (asprintf(&all, "%s%s%s", out->array_jobs, out->merge_job ? "," : "", out->merge_job ? out->merge_job : "") < 0)
            return kf_fail(err, KF_E_INTERNAL, "out of memory");
        kf_error e = {0};
        status_ctx c = {out, "squeue"};
        out->have_squeue = kf_slurm_squeue(all, set_state, &c, &e) == 0;
        kf_error e2 = {0};
        status_ctx c2 = {out, "sacct"};
        out->have_sacct = kf_slurm_sacct(all, set_state, &c2, &e2) == 0;
        if (!out->have_sacct) out->sacct_why = strdup(e2.msg);
        free(all);
    }
    for (int i = 0; i < out->n; i++) read_record(&out->t[i]);
    return 0;
}

int kf_slurm_run_dirs(const char *report_dir, const char *backend, char ***dirs, kf_error *err)
{
    *dirs = NULL;
    int missing = 0;
    json_object *state = kf_slurm_state_load(report_dir, &missing, err);
    if (!state) return missing ? 0 : -1;
    json_object *tasks;
    json_object_object_get_ex(state, "tasks", &tasks);
    size_t n = json_object_array_length(tasks);
    char **v = calloc(n ? n : 1, sizeof *v);
    if (!v) {
        json_object_put(state);
        return kf_fail(err, KF_E_INTERNAL, "out of memory");
    }
    int k = 0;
    for (size_t i = 0; i < n; i++) {
        kf_slurm_task t;
        if (kf_slurm_task_from_json(json_object_array_get_idx(tasks, i), &t) == 0 &&
            (!backend || !strcmp(t.backend, backend))) {
            struct stat sb;
            if (stat(t.run_dir, &sb) == 0 && S_ISDIR(sb.st_mode)) {
                v[k++] = t.run_dir;
                t.run_dir = NULL;
            }
        }
        kf_slurm_task_free(&t);
    }
    json_object_put(state);
    *dirs = v;
    return k;
}
