/*
 * suite.h — `kforge suite`: the refinement loop (core/run/loop.h) over every
 * problem of a set of directories and files, then the reports (report.h).
 *
 * Layout of the report directory REPORT:
 *
 *   REPORT/suite.json          the settings and the machine that ran them
 *   REPORT/runs/PROBLEM/       one run directory per problem (loop.h)
 *   REPORT/runs/PROBLEM~sK/    with seeds > 1: one per problem and agent seed K = 1..seeds
 *   REPORT/logs/PROBLEM.log    the run's progress lines and errors (PROBLEM~sK.log)
 *   REPORT/report.{json,md,html}
 *
 * Every problem runs in its own forked child process, so a crash of one
 * run never loses the suite; up to `jobs` children run at once.  A problem
 * whose run directory already holds result.json is not run again; one
 * whose run was killed (journal.jsonl but no result.json) is resumed
 * (kf_run with resume_dir), so a killed suite continues where it stopped.
 */
#ifndef KF_SUITE_H
#define KF_SUITE_H

#include <stdio.h>
#include "util/error.h"
#include "run/loop.h"

typedef struct kf_suite_problem {
    char *path;               /* the problem file */
    char *name;               /* its "name": the run directory's name */
} kf_suite_problem;

/* Collects the problem files of `inputs` (files, or directories scanned
 * recursively: *.json in name order, subdirectories in name order among
 * them).  Every file is loaded, so a malformed problem, a missing `preset`
 * (when preset is not NULL) or two problems with one name is an error
 * before anything runs.  Returns 0 with a malloc'ed array, or -1 (err:
 * code 2, one line naming the file). */
int kf_suite_collect(const char *const *inputs, int n_inputs, const char *preset,
                     kf_suite_problem **out, int *n_out, kf_error *err);
void kf_suite_problems_free(kf_suite_problem *v, int n);

/* Checks that `backend` is installed, available here and has device
 * `device`, in a child process: plugins are never loaded into the suite's
 * own process, so that every forked run starts clean.  Returns 0, or -1
 * (err: code 2 and the loader's reason, e.g. "no backend 'x' (found: ...)"). */
int kf_suite_check_backend(const char *backend, int device, kf_error *err);

typedef struct kf_suite_opts {
    const char *report_dir;   /* required */
    int jobs;                 /* problems at once, >= 1 */
    kf_run_opts run;          /* template for every problem: backend, preset, agent,
                                 device, budgets (problem_path, out_dir, resume_dir and
                                 progress are set per problem) */
    const char *settings_json;/* recorded into REPORT/suite.json, may be NULL */
    kf_progress progress;     /* one line per problem (fn NULL: quiet) */
    int seeds;                /* --seeds N: every problem runs N times, with agent seeds
                                 1..N (kf_run_opts.agent_seed), into runs/PROBLEM~sK
                                 when N > 1 (runs/PROBLEM, seed 1, when N == 1); 0: once,
                                 no agent seed, runs/PROBLEM */
} kf_suite_opts;

/* The run directory name of problem `name` under agent seed k of `seeds`
 * (kf_suite_opts.seeds): "NAME" when seeds <= 1, else "NAME~sK". */
void kf_suite_run_name(const char *name, int seeds, int k, char *buf, size_t n);

typedef struct kf_suite_outcome {
    int n;                    /* runs: problems x seeds */
    int n_correct;            /* with a correct kernel (run now or before) */
    int n_skipped;            /* already done: result.json present */
    int n_crashed;            /* child died or kf_run failed */
    char **run_dirs;          /* n run directories, in problem order, seeds 1..N of a
                                 problem together (malloc'ed) */
} kf_suite_outcome;

/* Runs every problem (see the header comment) and returns 0 when each one
 * was run or skipped, whatever the verdicts; -1 when the suite cannot run at
 * all (report dir not writable, a run directory that belongs to another
 * backend, agent or preset; err code 2 for those the user must fix).  The reports
 * are not written here: build them from out->run_dirs. */
int kf_suite_run(const kf_suite_opts *o, const kf_suite_problem *probs, int n,
                 kf_suite_outcome *out, kf_error *err);
void kf_suite_outcome_free(kf_suite_outcome *out);

/* The pieces of kf_suite_run that `kforge suite --slurm` (suite_slurm.h)
 * shares with it, so that both lay out and resume runs the same way. */

/* The report directory of one backend of a suite on n_backends: TOP
 * itself for one backend, TOP/BACKEND for several (TOP/compare.md beside). */
int kf_suite_backend_dir(const char *top, const char *backend, int n_backends, char *buf, size_t n);
/* The run directory of a problem: REPORT/runs/NAME, or REPORT/runs/NAME~sK
 * for seed K of a suite of n_seeds > 1 seeds.  Returns snprintf's count. */
int kf_suite_run_dir(const char *report_dir, const char *name, int seed, int n_seeds, char *buf, size_t n);
/* Its log: REPORT/logs/NAME.log (NAME~sK.log with seeds). */
int kf_suite_log_path(const char *report_dir, const char *name, int seed, int n_seeds, char *buf, size_t n);

typedef enum kf_suite_run_state {
    KF_SUITE_RUN_NEW = 0,     /* no journal: run it */
    KF_SUITE_RUN_STARTED,     /* journal.jsonl but no result.json: resume it */
    KF_SUITE_RUN_DONE         /* result.json: keep it */
} kf_suite_run_state;
kf_suite_run_state kf_suite_run_state_of(const char *run_dir);

/* Refuses (-1, err code 2) an existing run directory whose run.json holds
 * another backend, agent or preset than `run` asks for; 0 otherwise. */
int kf_suite_check_run_dir(const kf_run_opts *run, const char *run_dir, uint64_t want_seed, kf_error *err);

/* Creates REPORT/runs and REPORT/logs and writes REPORT/suite.json with
 * settings_json (may be NULL).  0 or -1. */
int kf_suite_prepare(const char *report_dir, const char *settings_json, kf_error *err);

#endif
