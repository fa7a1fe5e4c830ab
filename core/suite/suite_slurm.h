/*
 * suite_slurm.h — `kforge suite --slurm`: the suite as one Slurm job array
 * (one task per problem x backend x seed) and a dependent merge job, for
 * suites that outgrow one machine (doc/slurm.md).
 *
 * Every task is a `kforge run` into the run directory the ordinary suite
 * would use (kf_suite_run_dir under kf_suite_backend_dir), with its log
 * where the ordinary suite writes it, so the report, --report-only and a
 * later ordinary `kforge suite` see the same records.  Files under REPORT:
 *
 *   REPORT/slurm/tasks/BACKEND.NAME.sh  one task: runs, or resumes (journal but
 *                                 no result.json), or does nothing (result.json)
 *   REPORT/slurm/array.sh         the array's batch script: index -> task script
 *                                 (sbatch keeps its own copy of each submission)
 *   REPORT/slurm/merge.sh         the merge job: kforge suite --report-only
 *   REPORT/slurm/out/             what Slurm writes of each job (%A_%a.out)
 *   REPORT/slurm/state.json       the tasks, their submissions and job ids
 *
 * Array index i is task i of the suite's task list (backends in --backend
 * order, problems in collection order within each, then seeds), so a
 * resubmission (--array=1,4) keeps the indices of the first one.  The library never prints: the sbatch lines
 * and the per-task states come back in the structures below.
 */
#ifndef KF_SUITE_SLURM_H
#define KF_SUITE_SLURM_H

#include <stddef.h>
#include "util/error.h"
#include "run/loop.h"
#include "suite.h"

/* Finds Slurm's client command `name` ("sbatch", "squeue", "sacct"):
 * $KFORGE_SBATCH (KFORGE_SQUEUE, KFORGE_SACCT) when set, else the first
 * executable on PATH.  0 with the path in buf, or -1 (err: unavailable,
 * one line saying what to install or set). */
int kf_slurm_find_tool(const char *name, char *buf, size_t n, kf_error *err);

/* 1 for Slurm's states of a job still queued or running (PENDING, RUNNING,
 * REQUEUED, SUSPENDED ...). */
int kf_slurm_state_active(const char *state);

typedef enum kf_slurm_action {
    KF_SLURM_DONE = 0,        /* result.json: not submitted */
    KF_SLURM_ACTIVE,          /* still pending or running in Slurm: not submitted */
    KF_SLURM_SUBMIT,          /* submitted now (new, or failed/killed before) */
    KF_SLURM_GIVEN_UP         /* failed 1 + retries times: not submitted */
} kf_slurm_action;

typedef struct kf_slurm_task {
    char *name;               /* the problem's name */
    char *problem;            /* its file (absolute) */
    char *backend;
    int seed;                 /* 1..n_seeds with --seeds, else 0 (no agent seed) */
    char *run_dir;            /* absolute */
    char *log;                /* absolute */
    char *script;             /* absolute */
    int submits;              /* times submitted (state.json) */
    char *job;                /* the array job of the last submission, or NULL */
    int index;                /* the task's index in that array */
    kf_slurm_action action;
} kf_slurm_task;

typedef struct kf_slurm_opts {
    const char *report_dir;   /* the suite's top report directory */
    const char *kforge;       /* the kforge the tasks run (absolute path) */
    const char *const *backends;
    int n_backends;
    int n_seeds;              /* --seeds N, 0 without */
    kf_run_opts run;          /* preset, agent, budgets; backend is set per task */
    int device_set;           /* 1: --device run.device in every task; 0: from Slurm's binding */
    const char *const *run_args;  /* more `kforge run` options, verbatim (--sandbox, --mem-limit) */
    int n_run_args;
    const char *const *settings_json;  /* per backend, for REPORT[/B]/suite.json */
    const char *anchors;      /* --anchors FILE for the merge, or NULL */
    const char *partition, *gres, *time, *account;   /* NULL: Slurm's default */
    int max_parallel;         /* array tasks at once (%N), 0: no limit */
    int retries;              /* submissions of a task after its first */
    int dry_run;              /* write the scripts, submit nothing */
} kf_slurm_opts;

typedef struct kf_slurm_plan {
    int n;
    kf_slurm_task *t;         /* the task list, with each task's action */
    int n_done, n_active, n_submit, n_given_up;
    char *array_line;         /* the sbatch command lines (shell words), NULL when */
    char *merge_line;         /* nothing is submitted */
    char *array_job;          /* the new job ids; NULL in a dry run or when nothing */
    char *merge_job;          /* was submitted */
} kf_slurm_plan;

/* Writes the scripts and submits the tasks that need it (see the actions)
 * and a merge job after them and after the tasks still active.  When no
 * task needs submitting nothing is submitted (plan->array_line NULL): the
 * caller writes the report itself when no task is active.  Returns 0, or -1
 * (err: bad input 2 for a run directory of other settings; unavailable 2
 * when Slurm's commands are missing or sbatch refuses, with its message;
 * I/O 3). */
int kf_slurm_submit(const kf_slurm_opts *o, const kf_suite_problem *probs, int n_probs,
                    kf_slurm_plan *plan, kf_error *err);
void kf_slurm_plan_free(kf_slurm_plan *p);

typedef struct kf_slurm_task_status {
    kf_slurm_task task;       /* from state.json (action unused) */
    char state[32];           /* Slurm's state of its last job: PENDING, RUNNING, COMPLETED,
                                 CANCELLED, TIMEOUT ...; "" when Slurm no longer knows it */
    char exit_code[16];       /* sacct's "0:0" when known */
    char node[64];
    const char *source;       /* "squeue", "sacct" or NULL */
    int record;               /* KF_SUITE_RUN_* of the run directory */
    int correct;              /* with result.json: a correct kernel */
    int steps;                /* steps recorded (result.json, or the journal) */
    char *stop_reason;        /* result.json's, or NULL */
    int given_up;             /* failed 1 + retries times */
} kf_slurm_task_status;

typedef struct kf_slurm_status {
    int n;
    kf_slurm_task_status *t;
    int retries;
    char *array_jobs;         /* every array job id submitted, "12,15" */
    char *merge_job;          /* the last merge job, or NULL */
    char merge_state[32];     /* its state, "" when unknown */
    int have_squeue, have_sacct;
    char *sacct_why;          /* why sacct gave nothing, or NULL */
} kf_slurm_status;

/* Reads REPORT/slurm/state.json, asks squeue (jobs Slurm still holds) and
 * sacct (accounting, when the cluster keeps it) for the state of every task
 * and reads each run directory.  A missing squeue or sacct is not an error
 * (have_*); 0, or -1 (err: bad input when REPORT is not a Slurm suite). */
int kf_slurm_status_read(const char *report_dir, kf_slurm_status *out, kf_error *err);
void kf_slurm_status_free(kf_slurm_status *s);

/* The run directories of `backend` (NULL: of every backend) recorded in REPORT/slurm/state.json, in
 * task order (the order of the problems), those that exist only: what
 * `kforge suite --report-only` lists for a Slurm suite.  Returns their
 * number (0 when REPORT is not a Slurm suite), or -1. */
int kf_slurm_run_dirs(const char *report_dir, const char *backend, char ***dirs, kf_error *err);

#endif
