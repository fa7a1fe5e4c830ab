/* cmd_suite_slurm.c — what `kforge suite --slurm` and `kforge suite --status`
 * print (core/suite/suite_slurm.h does the work). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_suite_slurm.h"
#include "common.h"
#include "util/error.h"

static const char *action_name(kf_slurm_action a)
{
    switch (a) {
    case KF_SLURM_DONE: return "done";
    case KF_SLURM_ACTIVE: return "queued or running";
    case KF_SLURM_SUBMIT: return "submit";
    case KF_SLURM_GIVEN_UP: return "given up";
    }
    return "?";
}

int kf_cli_suite_slurm(const kf_slurm_opts *o, const kf_suite_problem *probs, int n, int quiet, int *all_done)
{
    kf_slurm_plan plan;
    kf_error err = {0};
    *all_done = 0;
    int rc = kf_slurm_submit(o, probs, n, &plan, &err);
    if (rc != 0) {
        /* what was submitted before the failure is recorded in state.json */
        if (plan.array_job) fprintf(stderr, "kforge: job array %s was submitted\n", plan.array_job);
        kf_cli_error("%s", err.msg);
        kf_slurm_plan_free(&plan);
        return kf_exit_code(err.kind);
    }
    if (!quiet) {
        printf("suite on Slurm: %d tasks (%d problems x %d backends x %d seeds): %d done, %d queued or running, "
               "%d to submit, %d given up\n", plan.n, n, o->n_backends, o->n_seeds < 1 ? 1 : o->n_seeds, plan.n_done,
               plan.n_active, plan.n_submit, plan.n_given_up);
        for (int i = 0; i < plan.n; i++) {
            const kf_slurm_task *t = &plan.t[i];
            if (t->action == KF_SLURM_DONE) continue;
            printf("  task %d  %-40s %-10s %s", i, t->name, t->backend, action_name(t->action));
            if (t->action == KF_SLURM_SUBMIT && t->submits > 1)
                printf(" (submission %d of %d)", t->submits, 1 + o->retries);
            else if (t->action == KF_SLURM_SUBMIT && kf_suite_run_state_of(t->run_dir) == KF_SUITE_RUN_STARTED)
                printf(" (resumes its run)");
            if (t->action == KF_SLURM_ACTIVE) printf(" in job %s_%d", t->job, t->index);
            if (t->action == KF_SLURM_GIVEN_UP)
                printf(": submitted %d times (--slurm-retries %d); log %s", t->submits, o->retries, t->log);
            printf("\n");
        }
    }
    if (plan.array_line) {
        if (o->dry_run) {
            printf("dry run: nothing submitted; the sbatch lines:\n%s\n%s\n", plan.array_line, plan.merge_line);
        } else if (!quiet) {
            printf("submitted job array %s (%d tasks) and merge job %s:\n  %s\n  %s\n", plan.array_job, plan.n_submit,
                   plan.merge_job, plan.array_line, plan.merge_line);
            printf("follow it with: kforge suite --status %s\n", o->report_dir);
        } else {
            printf("%s %s\n", plan.array_job, plan.merge_job);
        }
    } else if (plan.n_active > 0) {
        if (!quiet) printf("nothing to submit: %d tasks are still queued or running; the merge job submitted with them "
                           "writes the report\n", plan.n_active);
    } else {
        if (!quiet) printf("nothing to submit: %s; the report from the records:\n",
                           plan.n_given_up ? "the tasks left have used their retries" : "every task is done");
        *all_done = 1;
    }
    int given_up = plan.n_given_up;
    kf_slurm_plan_free(&plan);
    return given_up && !*all_done ? KF_EXIT_CANDIDATE_FAILED : KF_EXIT_OK;
}

static const char *record_text(const kf_slurm_task_status *t, char *buf, size_t n)
{
    if (t->record == KF_SUITE_RUN_NEW) snprintf(buf, n, "not started");
    else if (t->record == KF_SUITE_RUN_STARTED) snprintf(buf, n, "started, %d steps, no result yet", t->steps);
    else if (t->correct) snprintf(buf, n, "correct, %d steps", t->steps);
    else snprintf(buf, n, "incorrect, %d steps (%s)", t->steps, t->stop_reason ? t->stop_reason : "no reason");
    return buf;
}

int kf_cli_suite_status(const char *dir)
{
    kf_slurm_status s;
    kf_error err = {0};
    if (kf_slurm_status_read(dir, &s, &err) != 0) {
        kf_cli_error("%s", err.msg);
        kf_slurm_status_free(&s);
        return kf_exit_code(err.kind);
    }
    printf("suite %s on Slurm: array jobs %s, merge job %s%s%s%s\n", dir, s.array_jobs[0] ? s.array_jobs : "none",
           s.merge_job ? s.merge_job : "none", s.merge_state[0] ? " (" : "", s.merge_state,
           s.merge_state[0] ? ")" : "");
    if (!s.have_squeue) printf("squeue: not available; the Slurm states below come from sacct only\n");
    if (!s.have_sacct && s.sacct_why)
        printf("%s; jobs that Slurm no longer holds show no state\n", s.sacct_why);
    printf("%-5s %-36s %-10s %-5s %-14s %-8s %-7s %s\n", "task", "problem", "backend", "seed", "slurm", "exit", "tries",
           "run record");
    int n_done = 0, n_correct = 0, n_active = 0, n_given_up = 0;
    for (int i = 0; i < s.n; i++) {
        const kf_slurm_task_status *t = &s.t[i];
        char job[64], seed[16], rec[600], tries[32];
        snprintf(job, sizeof job, "%s", t->state[0] ? t->state : t->task.job ? "unknown" : "never submitted");
        snprintf(seed, sizeof seed, t->task.seed ? "%d" : "-", t->task.seed);
        snprintf(tries, sizeof tries, "%d/%d", t->task.submits, 1 + s.retries);
        printf("%-5d %-36s %-10s %-5s %-14s %-8s %-7s %s", i, t->task.name, t->task.backend, seed, job,
               t->exit_code[0] ? t->exit_code : "-", tries, record_text(t, rec, sizeof rec));
        if (t->task.job) printf("  [job %s_%d]", t->task.job, t->task.index);
        printf("\n");
        int active = t->state[0] && kf_slurm_state_active(t->state);
        if (t->record == KF_SUITE_RUN_DONE) {
            n_done++;
            n_correct += t->correct;
        } else if (active) {
            n_active++;
        } else if (t->given_up) {
            n_given_up++;
        }
    }
    int n_again = s.n - n_done - n_active - n_given_up;
    printf("%d of %d tasks have their result (%d correct), %d queued or running, %d to submit again%s\n",
           n_done, s.n, n_correct, n_active, n_again,
           n_again ? " (run the same kforge suite --slurm command again)" : "");
    if (n_given_up) printf("%d tasks used their retries (raise --slurm-retries to submit them again)\n", n_given_up);
    kf_slurm_status_free(&s);
    return KF_EXIT_OK;
}
