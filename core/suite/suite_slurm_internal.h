/* suite_slurm_internal.h — helpers shared by the suite_slurm*.c files
 * (not public). */
#ifndef KF_SUITE_SLURM_INTERNAL_H
#define KF_SUITE_SLURM_INTERNAL_H

#include <json-c/json.h>
#include "util/error.h"
#include "util/strbuf.h"
#include "suite_slurm.h"

/* Runs argv[0] (a path) with argv, stdin from /dev/null; its stdout and
 * stderr come back malloc'ed (NUL-terminated) and its wait status in
 * *status.  0 when it ran (whatever it exited with), -1 when it could not
 * be started (err). */
int kf_slurm_exec(const char *const *argv, char **out, char **errtext, int *status, kf_error *err);

/* Appends `s` as one shell word: bare when it holds only safe characters,
 * else in single quotes. */
void kf_slurm_sh_word(kf_sb *b, const char *s);

/* REPORT/slurm/state.json: the object, or NULL with *missing = 1 when there
 * is none (no error), or NULL with err when it is unreadable. */
json_object *kf_slurm_state_load(const char *report_dir, int *missing, kf_error *err);
int kf_slurm_state_save(const char *report_dir, json_object *state, kf_error *err);

/* A task from one element of state.json "tasks" (strings duplicated). */
int kf_slurm_task_from_json(json_object *o, kf_slurm_task *t);
void kf_slurm_task_free(kf_slurm_task *t);

/* Slurm's states of the jobs listed (squeue, the user's jobs that Slurm
 * still holds, array tasks one per line): calls fn for every line of one
 * of `jobs` (a comma-separated list of job ids) with the array job id, the
 * array index (-1 for a job that is not an array task), the state and the
 * node list.  0, or -1 when squeue is missing or fails (err). */
typedef void (*kf_slurm_job_fn)(void *ud, const char *job, int index, const char *state, const char *exit_code,
                                const char *node);
int kf_slurm_squeue(const char *jobs, kf_slurm_job_fn fn, void *ud, kf_error *err);
/* The same from sacct (-X: jobs, not steps): fails (err) where the
 * cluster keeps no accounting. */
int kf_slurm_sacct(const char *jobs, kf_slurm_job_fn fn, void *ud, kf_error *err);

#endif
