/* suite_slurm.c — the task list, its batch scripts and their submission
 * (suite_slurm.h). */
#include "suite_slurm_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "problem/precision.h"
#include "util/fileio.h"

void kf_slurm_plan_free(kf_slurm_plan *p)
{
    if (!p) return;
    for (int i = 0; i < p->n; i++) kf_slurm_task_free(&p->t[i]);
    free(p->t);
    free(p->array_line);
    free(p->merge_line);
    free(p->array_job);
    free(p->merge_job);
    memset(p, 0, sizeof *p);
}

/* The task list: backends, then problems in collection order, then seeds. */
static int build_tasks(const kf_slurm_opts *o, const char *top, const kf_suite_problem *probs, int n_probs,
                       kf_slurm_plan *plan, kf_error *err)
{
    int n_seeds = o->n_seeds < 1 ? 1 : o->n_seeds;
    long total = (long)o->n_backends * n_probs * n_seeds;
    if (total < 1) return kf_fail(err, KF_E_BAD_INPUT, "--slurm: no problems to submit");
    plan->t = calloc((size_t)total, sizeof *plan->t);
    if (!plan->t) return kf_fail(err, KF_E_INTERNAL, "out of memory");
    for (int b = 0; b < o->n_backends; b++) {
        char bdir[4200];
        kf_suite_backend_dir(top, o->backends[b], o->n_backends, bdir, sizeof bdir);
        for (int p = 0; p < n_probs; p++) {
            char abs_problem[PATH_MAX];
            if (!realpath(probs[p].path, abs_problem))
                return kf_fail_errno(err, errno, "%s: %s", probs[p].path, strerror(errno));
            for (int k = 1; k <= n_seeds; k++) {
                kf_slurm_task *t = &plan->t[plan->n++];
                int seed = o->n_seeds > 0 ? k : 0;   /* --seeds N: agent seeds 1..N, as kforge suite */
                char rd[4600], log[4600], script[4600];
                kf_suite_run_dir(bdir, probs[p].name, seed, n_seeds, rd, sizeof rd);
                kf_suite_log_path(bdir, probs[p].name, seed, n_seeds, log, sizeof log);
                if (n_seeds > 1)
                    snprintf(script, sizeof script, "%s/slurm/tasks/%s.%s~s%d.sh", top, o->backends[b], probs[p].name, k);
                else
                    snprintf(script, sizeof script, "%s/slurm/tasks/%s.%s.sh", top, o->backends[b], probs[p].name);
                t->name = strdup(probs[p].name);
                t->problem = strdup(abs_problem);
                t->backend = strdup(o->backends[b]);
                t->seed = seed;
                t->run_dir = strdup(rd);
                t->log = strdup(log);
                t->script = strdup(script);
                if (!t->name || !t->problem || !t->backend || !t->run_dir || !t->log || !t->script)
                    return kf_fail(err, KF_E_INTERNAL, "out of memory");
            }
        }
    }
    return 0;
}

/* "0-2,5,7-9" from ascending indices. */
static void array_spec(kf_sb *b, const int *idx, int n)
{
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && idx[j + 1] == idx[j] + 1) j++;
        if (i) kf_sb_puts(b, ",");
        if (j > i) kf_sb_printf(b, "%d-%d", idx[i], idx[j]);
        else kf_sb_printf(b, "%d", idx[i]);
        i = j + 1;
    }
}

static void fmt_num(kf_sb *b, double v)
{
    kf_sb_printf(b, "%.17g", v);
}

/* The arguments every `kforge run` of the suite gets, fresh or resumed. */
static void budget_args(kf_sb *b, const kf_slurm_opts *o)
{
    kf_sb_printf(b, " --max-iterations %d --max-time ", o->run.max_iterations);
    fmt_num(b, o->run.max_time_s);
    if (!o->run.baseline) kf_sb_puts(b, " --no-baseline");
    if (o->run.confirm_rounds != KF_CONFIRM_ROUNDS) kf_sb_printf(b, " --confirm-rounds %d", o->run.confirm_rounds);
    kf_sb_puts(b, " --max-cost ");
    fmt_num(b, o->run.max_cost_usd);
    for (int i = 0; i < o->n_run_args; i++) {
        kf_sb_puts(b, " ");
        kf_slurm_sh_word(b, o->run_args[i]);
    }
}

static int write_script(const char *path, kf_sb *b, kf_error *err)
{
    char *text = kf_sb_take(b);
    if (!text) return kf_fail(err, KF_E_INTERNAL, "out of memory");
    int rc = kf_write_file_atomic_mode(path, text, 0755, err);
    free(text);
    return rc;
}

static int write_task_script(const kf_slurm_opts *o, const kf_slurm_task *t, kf_error *err)
{
    kf_sb b = {0};
    kf_sb_puts(&b, "#!/bin/sh\n# kforge suite --slurm: one task (written by kforge; safe to run again, by hand too).\n");
    kf_sb_printf(&b, "# problem %s on %s", t->name, t->backend);
    if (t->seed) kf_sb_printf(&b, ", agent seed %d", t->seed);
    kf_sb_puts(&b, ": a new run, the resume of a killed one (journal.jsonl but no\n"
                   "# result.json), or nothing when the run has its result.\nrun=");
    kf_slurm_sh_word(&b, t->run_dir);
    kf_sb_puts(&b, "\nlog=");
    kf_slurm_sh_word(&b, t->log);
    kf_sb_puts(&b, "\nexec >>\"$log\" 2>&1\n"
                   "echo \"slurm: job ${SLURM_JOB_ID:-none} (array task ${SLURM_ARRAY_JOB_ID:-}_${SLURM_ARRAY_TASK_ID:-}, "
                   "restart ${SLURM_RESTART_COUNT:-0}) on $(hostname)\"\n"
                   "if [ -f \"$run/result.json\" ]; then echo \"slurm: $run has its result.json: nothing to do\"; exit 0; fi\n");
    if (o->device_set) {
        kf_sb_printf(&b, "device=%d    # --device of the suite\n", o->run.device);
    } else {
        kf_sb_puts(&b,
            "# the device: Slurm's GPU binding (--gres) leaves only the allocated devices\n"
            "# visible to the runtime, numbered from 0; without it, the node-local task id\n"
            "device=0\n"
            "if [ -n \"${CUDA_VISIBLE_DEVICES:-}${ROCR_VISIBLE_DEVICES:-}${ZE_AFFINITY_MASK:-}${GPU_DEVICE_ORDINAL:-}\" ]; then\n"
            "    device=0\n"
            "elif [ -n \"${SLURM_LOCALID:-}\" ]; then\n"
            "    device=$SLURM_LOCALID\n"
            "fi\n");
    }
    kf_sb_puts(&b, "if [ -f \"$run/journal.jsonl\" ]; then\n"
                   "    echo \"slurm: resuming the run in $run (its recorded device is kept)\"\n    exec ");
    kf_slurm_sh_word(&b, o->kforge);
    kf_sb_puts(&b, " run --resume \"$run\"");
    budget_args(&b, o);
    kf_sb_puts(&b, "\nfi\necho \"slurm: device $device (CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-unset}, "
                   "SLURM_LOCALID=${SLURM_LOCALID:-unset})\"\nexec ");
    kf_slurm_sh_word(&b, o->kforge);
    kf_sb_puts(&b, " run ");
    kf_slurm_sh_word(&b, t->problem);
    kf_sb_puts(&b, " --backend ");
    kf_slurm_sh_word(&b, t->backend);
    kf_sb_puts(&b, " --device \"$device\" --preset ");
    kf_slurm_sh_word(&b, o->run.preset ? o->run.preset : "small");
    kf_sb_puts(&b, " --agent ");
    kf_slurm_sh_word(&b, o->run.agent ? o->run.agent : "builtin");
    if (t->seed) kf_sb_printf(&b, " --agent-seed %d", t->seed);   /* kforge run --agent-seed (seeds) */
    if (o->run.precision != KF_PRECISION_ANY)   /* a resumed run keeps its own (run.json) */
        kf_sb_printf(&b, " --precision %s", kf_precision_policy_name(o->run.precision));
    budget_args(&b, o);
    kf_sb_puts(&b, " --out \"$run\"\n");
    return write_script(t->script, &b, err);
}

static int write_array_script(const char *top, const kf_slurm_plan *plan, kf_error *err)
{
    kf_sb b = {0};
    kf_sb_puts(&b, "#!/bin/sh\n# kforge suite --slurm: the job array (written by kforge).  Task i runs the\n"
                   "# script of task i of the suite; sbatch keeps its own copy of this file.\n"
                   "case \"${SLURM_ARRAY_TASK_ID:-}\" in\n");
    for (int i = 0; i < plan->n; i++) {
        kf_sb_printf(&b, "%d) exec /bin/sh ", i);
        kf_slurm_sh_word(&b, plan->t[i].script);
        kf_sb_puts(&b, " ;;\n");
    }
    kf_sb_puts(&b, "*) echo \"kforge: no task '${SLURM_ARRAY_TASK_ID:-}' in this array\" >&2; exit 2 ;;\nesac\n");
    char p[4200];
    snprintf(p, sizeof p, "%s/slurm/array.sh", top);
    return write_script(p, &b, err);
}

static int write_merge_script(const kf_slurm_opts *o, const char *top, kf_error *err)
{
    kf_sb b = {0};
    kf_sb_puts(&b, "#!/bin/sh\n# kforge suite --slurm: the merge job (written by kforge), after every task:\n"
                   "# the reports from the run records, then the tasks' states.  Exit status 0\n"
                   "# whatever the verdicts; non-zero only when the report could not be written.\n");
    kf_slurm_sh_word(&b, o->kforge);
    kf_sb_puts(&b, " suite --report-only ");
    kf_slurm_sh_word(&b, top);
    if (o->n_backends > 1) {
        kf_sb_puts(&b, " --backend ");
        kf_sb s = {0};
        for (int i = 0; i < o->n_backends; i++) kf_sb_printf(&s, "%s%s", i ? "," : "", o->backends[i]);
        char *list = kf_sb_take(&s);
        if (list) kf_slurm_sh_word(&b, list);
        free(list);
    }
    if (o->anchors) {
        kf_sb_puts(&b, " --anchors ");
        kf_slurm_sh_word(&b, o->anchors);
    }
    kf_sb_puts(&b, "\nrc=$?\n");
    kf_slurm_sh_word(&b, o->kforge);
    kf_sb_puts(&b, " suite --status ");
    kf_slurm_sh_word(&b, top);
    kf_sb_puts(&b, "\n[ $rc -le 1 ] || exit $rc\nexit 0\n");
    char p[4200];
    snprintf(p, sizeof p, "%s/slurm/merge.sh", top);
    return write_script(p, &b, err);
}

/* The previous submission of every task, from state.json, by run dir. */
static void carry_state(json_object *state, kf_slurm_plan *plan)
{
    json_object *tasks;
    if (!state || !json_object_object_get_ex(state, "tasks", &tasks)) return;
    size_t n = json_object_array_length(tasks);
    for (size_t i = 0; i < n; i++) {
        kf_slurm_task old;
        if (kf_slurm_task_from_json(json_object_array_get_idx(tasks, i), &old) == 0) {
            for (int k = 0; k < plan->n; k++) {
                if (strcmp(plan->t[k].run_dir, old.run_dir)) continue;
                plan->t[k].submits = old.submits;
                plan->t[k].index = old.index;
                free(plan->t[k].job);
                plan->t[k].job = old.job;
                old.job = NULL;
                break;
            }
        }
        kf_slurm_task_free(&old);
    }
}

typedef struct active_ctx {
    kf_slurm_plan *plan;
} active_ctx;

static void mark_active(void *ud, const char *job, int index, const char *state, const char *exit_code,
                        const char *node)
{
    (void)exit_code;
    (void)node;
    active_ctx *c = ud;
    if (!kf_slurm_state_active(state)) return;
    for (int k = 0; k < c->plan->n; k++) {
        kf_slurm_task *t = &c->plan->t[k];
        if (t->job && !strcmp(t->job, job) && t->index == index && t->action != KF_SLURM_DONE)
            t->action = KF_SLURM_ACTIVE;
    }
}

static json_object *task_json(const kf_slurm_task *t)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_object_new_string(t->name));
    json_object_object_add(o, "backend", json_object_new_string(t->backend));
    json_object_object_add(o, "seed", json_object_new_int(t->seed));
    json_object_object_add(o, "problem", json_object_new_string(t->problem));
    json_object_object_add(o, "run_dir", json_object_new_string(t->run_dir));
    json_object_object_add(o, "log", json_object_new_string(t->log));
    json_object_object_add(o, "script", json_object_new_string(t->script));
    json_object_object_add(o, "submits", json_object_new_int(t->submits));
    json_object_object_add(o, "job", t->job ? json_object_new_string(t->job) : NULL);
    json_object_object_add(o, "index", json_object_new_int(t->index));
    return o;
}

/* state.json: the tasks now, and the submissions (the old ones kept). */
static int save_state(const kf_slurm_opts *o, const char *top, json_object *old, const kf_slurm_plan *plan,
                      const char *array_spec_text, kf_error *err)
{
    json_object *s = json_object_new_object();
    json_object_object_add(s, "version", json_object_new_int(1));
    json_object_object_add(s, "kforge", json_object_new_string(o->kforge));
    json_object_object_add(s, "retries", json_object_new_int(o->retries));
    json_object_object_add(s, "n_seeds", json_object_new_int(o->n_seeds < 1 ? 1 : o->n_seeds));
    json_object *bl = json_object_new_array();
    for (int i = 0; i < o->n_backends; i++) json_object_array_add(bl, json_object_new_string(o->backends[i]));
    json_object_object_add(s, "backends", bl);
    json_object *tl = json_object_new_array();
    for (int i = 0; i < plan->n; i++) json_object_array_add(tl, task_json(&plan->t[i]));
    json_object_object_add(s, "tasks", tl);
    json_object *subs = json_object_new_array(), *v;
    if (old && json_object_object_get_ex(old, "submissions", &v) && json_object_is_type(v, json_type_array))
        for (size_t i = 0; i < json_object_array_length(v); i++)
            json_object_array_add(subs, json_object_get(json_object_array_get_idx(v, i)));
    if (plan->array_job) {
        json_object *e = json_object_new_object();
        json_object_object_add(e, "array_job", json_object_new_string(plan->array_job));
        json_object_object_add(e, "merge_job", plan->merge_job ? json_object_new_string(plan->merge_job) : NULL);
        json_object_object_add(e, "array", json_object_new_string(array_spec_text));
        json_object_object_add(e, "time", json_object_new_int64((int64_t)time(NULL)));
        json_object_array_add(subs, e);
    }
    json_object_object_add(s, "submissions", subs);
    int rc = kf_slurm_state_save(top, s, err);
    json_object_put(s);
    return rc;
}

/* Runs one sbatch line (argv), the job id into *job. */
static int sbatch(const char *const *argv, char **job, kf_error *err)
{
    char *out = NULL, *errtext = NULL;
    int status = 0;
    if (kf_slurm_exec(argv, &out, &errtext, &status, err) != 0) return -1;
    int rc = 0;
    size_t len = strlen(errtext);
    while (len && (errtext[len - 1] == '\n' || errtext[len - 1] == ' ')) errtext[--len] = '\0';
    size_t idl = strspn(out, "0123456789");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || idl == 0)
        rc = kf_fail(err, KF_E_UNAVAILABLE, "sbatch refused the job: %s",
                     errtext[0] ? errtext : out[0] ? out : "no message");
    else if (!(*job = strndup(out, idl)))
        rc = kf_fail(err, KF_E_INTERNAL, "out of memory");
    free(out);
    free(errtext);
    return rc;
}

/* The words of an sbatch line into argv (pointers into words[]) and the
 * shell text into line. */
typedef struct words {
    char *w[24];
    int n;
} words;

/* Adds the word prefix + arg. */
static void add_word(words *v, const char *prefix, const char *arg)
{
    if (v->n >= 23) return;
    if (asprintf(&v->w[v->n], "%s%s", prefix, arg) < 0) return;
    v->n++;
}

static void words_free(words *v)
{
    for (int i = 0; i < v->n; i++) free(v->w[i]);
    v->n = 0;
}

static char *words_line(const words *v)
{
    kf_sb b = {0};
    for (int i = 0; i < v->n; i++) {
        if (i) kf_sb_puts(&b, " ");
        kf_slurm_sh_word(&b, v->w[i]);
    }
    return kf_sb_take(&b);
}

static void common_words(words *v, const kf_slurm_opts *o, const char *top)
{
    add_word(v, "--chdir=", top);
    if (o->partition) add_word(v, "--partition=", o->partition);
    if (o->account) add_word(v, "--account=", o->account);
}

int kf_slurm_submit(const kf_slurm_opts *o, const kf_suite_problem *probs, int n_probs,
                    kf_slurm_plan *plan, kf_error *err)
{
    memset(plan, 0, sizeof *plan);
    if (!o->report_dir || o->n_backends < 1 || !o->kforge)
        return kf_fail(err, KF_E_BAD_INPUT, "--slurm needs a report directory and a backend");
    char top[PATH_MAX], dir[4200];
    if (kf_mkdir_p(o->report_dir, err) != 0 || !realpath(o->report_dir, top))
        return err->kind ? -1 : kf_fail_errno(err, errno, "%s: %s", o->report_dir, strerror(errno));
    snprintf(dir, sizeof dir, "%s/slurm/tasks", top);
    if (kf_mkdir_p(dir, err) != 0) return -1;
    snprintf(dir, sizeof dir, "%s/slurm/out", top);
    if (kf_mkdir_p(dir, err) != 0) return -1;
    for (int b = 0; b < o->n_backends; b++) {
        char bdir[4200];
        kf_suite_backend_dir(top, o->backends[b], o->n_backends, bdir, sizeof bdir);
        if (kf_suite_prepare(bdir, o->settings_json ? o->settings_json[b] : NULL, err) != 0) return -1;
    }
    if (build_tasks(o, top, probs, n_probs, plan, err) != 0) return -1;
    for (int i = 0; i < plan->n; i++) {
        kf_run_opts ro = o->run;
        ro.backend = plan->t[i].backend;
        if (kf_suite_check_run_dir(&ro, plan->t[i].run_dir, (uint64_t)plan->t[i].seed, err) != 0) return -1;
    }

    int missing = 0;
    json_object *state = kf_slurm_state_load(top, &missing, err);
    if (!state && !missing) return -1;
    carry_state(state, plan);

    /* what each task needs */
    int any_prev = 0;
    for (int i = 0; i < plan->n; i++) {
        kf_slurm_task *t = &plan->t[i];
        t->action = kf_suite_run_state_of(t->run_dir) == KF_SUITE_RUN_DONE ? KF_SLURM_DONE : KF_SLURM_SUBMIT;
        if (t->action == KF_SLURM_SUBMIT && t->job) any_prev = 1;
    }
    kf_sb active_jobs = {0};
    if (any_prev) {
        kf_sb ids = {0};
        for (int i = 0; i < plan->n; i++) {
            kf_slurm_task *t = &plan->t[i];
            if (t->action != KF_SLURM_SUBMIT || !t->job) continue;
            /* each job once */
            int seen = 0;
            for (int k = 0; k < i && !seen; k++)
                seen = plan->t[k].job && plan->t[k].action == KF_SLURM_SUBMIT && !strcmp(plan->t[k].job, t->job);
            if (!seen) kf_sb_printf(&ids, "%s%s", ids.len ? "," : "", t->job);
        }
        char *list = kf_sb_take(&ids);
        active_ctx c = {plan};
        int qrc = list ? kf_slurm_squeue(list, mark_active, &c, err) : kf_fail(err, KF_E_INTERNAL, "out of memory");
        free(list);
        if (qrc != 0) {
            char why[KF_ERROR_MAX];
            snprintf(why, sizeof why, "%s", err->msg);
            json_object_put(state);
            return kf_fail(err, KF_E_UNAVAILABLE,
                           "cannot tell which tasks of the earlier submission still run (%s): nothing submitted", why);
        }
        for (int i = 0; i < plan->n; i++) {
            kf_slurm_task *t = &plan->t[i];
            if (t->action != KF_SLURM_ACTIVE) continue;
            char pat[80];
            snprintf(pat, sizeof pat, ",%s,", t->job);
            kf_sb probe = {0};
            kf_sb_printf(&probe, ",%s,", active_jobs.s ? active_jobs.s : "");
            char *ps = kf_sb_take(&probe);
            if (ps && !strstr(ps, pat)) kf_sb_printf(&active_jobs, "%s%s", active_jobs.len ? "," : "", t->job);
            free(ps);
        }
    }
    int *idx = calloc((size_t)(plan->n > 0 ? plan->n : 1), sizeof *idx);
    if (!idx) {
        kf_sb_free(&active_jobs);
        json_object_put(state);
        return kf_fail(err, KF_E_INTERNAL, "out of memory");
    }
    int n_idx = 0;
    for (int i = 0; i < plan->n; i++) {
        kf_slurm_task *t = &plan->t[i];
        if (t->action == KF_SLURM_SUBMIT && t->submits >= 1 + o->retries) t->action = KF_SLURM_GIVEN_UP;
        switch (t->action) {
        case KF_SLURM_DONE: plan->n_done++; break;
        case KF_SLURM_ACTIVE: plan->n_active++; break;
        case KF_SLURM_GIVEN_UP: plan->n_given_up++; break;
        case KF_SLURM_SUBMIT: plan->n_submit++; idx[n_idx++] = i; break;
        }
    }

    int rc = 0;
    for (int i = 0; rc == 0 && i < plan->n; i++) rc = write_task_script(o, &plan->t[i], err);
    if (rc == 0) rc = write_array_script(top, plan, err);
    if (rc == 0) rc = write_merge_script(o, top, err);

    kf_sb spec = {0};
    array_spec(&spec, idx, n_idx);
    char *spec_text = kf_sb_take(&spec);
    char *active_text = kf_sb_take(&active_jobs);
    char sbatch_path[4096] = "sbatch";
    if (rc == 0 && n_idx > 0 && (!spec_text || !active_text)) rc = kf_fail(err, KF_E_INTERNAL, "out of memory");
    if (rc == 0 && n_idx > 0 && !o->dry_run) rc = kf_slurm_find_tool("sbatch", sbatch_path, sizeof sbatch_path, err);
    if (rc == 0 && n_idx > 0) {
        const char *base = strrchr(top, '/');
        base = base && base[1] ? base + 1 : top;
        words a = {0};
        add_word(&a, "", sbatch_path);
        add_word(&a, "", "--parsable");
        add_word(&a, "--job-name=kforge-", base);
        char arr[64];
        snprintf(arr, sizeof arr, o->max_parallel > 0 ? "%%%d" : "", o->max_parallel);
        char *spec_full = NULL;
        if (asprintf(&spec_full, "%s%s", spec_text, arr) < 0) spec_full = NULL;
        add_word(&a, "--array=", spec_full ? spec_full : spec_text);
        free(spec_full);
        add_word(&a, "", "--requeue");
        add_word(&a, "", "--open-mode=append");
        char out_pat[4300];
        snprintf(out_pat, sizeof out_pat, "%s/slurm/out/%%A_%%a.out", top);
        add_word(&a, "--output=", out_pat);
        common_words(&a, o, top);
        if (o->time) add_word(&a, "--time=", o->time);
        if (o->gres) add_word(&a, "--gres=", o->gres);
        char script[4300];
        snprintf(script, sizeof script, "%s/slurm/array.sh", top);
        add_word(&a, "", script);
        a.w[a.n] = NULL;
        plan->array_line = words_line(&a);
        if (!o->dry_run) {
            rc = sbatch((const char *const *)a.w, &plan->array_job, err);
            if (rc == 0) {
                for (int i = 0; i < n_idx; i++) {
                    kf_slurm_task *t = &plan->t[idx[i]];
                    t->submits++;
                    t->index = idx[i];
                    free(t->job);
                    t->job = strdup(plan->array_job);
                }
                rc = save_state(o, top, state, plan, spec_text, err);
            }
        }
        words_free(&a);

        if (rc == 0) {
            words m = {0};
            add_word(&m, "", sbatch_path);
            add_word(&m, "", "--parsable");
            char mname[300];
            snprintf(mname, sizeof mname, "%.200s-merge", base);
            add_word(&m, "--job-name=kforge-", mname);
            char dep[4400];
            snprintf(dep, sizeof dep, "afterany:%s", plan->array_job ? plan->array_job : "ARRAY_JOB_ID");
            for (char *p = active_text; *p;) {
                size_t l = strcspn(p, ",");
                snprintf(dep + strlen(dep), sizeof dep - strlen(dep), ":%.*s", (int)l, p);
                p += l;
                if (*p) p++;
            }
            add_word(&m, "--dependency=", dep);
            snprintf(out_pat, sizeof out_pat, "%s/slurm/out/merge-%%j.out", top);
            add_word(&m, "--output=", out_pat);
            add_word(&m, "", "--time=10");
            common_words(&m, o, top);
            snprintf(script, sizeof script, "%s/slurm/merge.sh", top);
            add_word(&m, "", script);
            m.w[m.n] = NULL;
            plan->merge_line = words_line(&m);
            if (!o->dry_run) {
                rc = sbatch((const char *const *)m.w, &plan->merge_job, err);
                /* the array is queued either way: record what was submitted */
                kf_error e2 = {0};
                if (save_state(o, top, state, plan, spec_text, &e2) != 0 && rc == 0) {
                    *err = e2;
                    rc = -1;
                }
            }
            words_free(&m);
        }
        if (rc == 0 && (!plan->array_line || !plan->merge_line)) rc = kf_fail(err, KF_E_INTERNAL, "out of memory");
    }
    if (rc == 0 && n_idx == 0 && !o->dry_run) rc = save_state(o, top, state, plan, "", err);
    free(spec_text);
    free(active_text);
    free(idx);
    json_object_put(state);
    return rc;
}
