/* cmd_suite_slurm.h — `kforge suite --slurm` and `--status` (cmd_suite_slurm.c). */
#ifndef KF_CLI_CMD_SUITE_SLURM_H
#define KF_CLI_CMD_SUITE_SLURM_H

#include "suite/suite_slurm.h"

/* Submits (kf_slurm_submit) and prints the plan and the sbatch lines.
 * *all_done is set when nothing was submitted and no task is queued: the
 * caller writes the report from the records.  Returns the exit status. */
int kf_cli_suite_slurm(const kf_slurm_opts *o, const kf_suite_problem *probs, int n, int quiet, int *all_done);
/* Prints every task's state (kf_slurm_status_read); the exit status. */
int kf_cli_suite_status(const char *dir);

#endif
