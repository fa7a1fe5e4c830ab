/* sandbox_opts.h — the sandbox flags every evaluating command takes
 * (verify, profile, run, suite): --sandbox MODE, --mem-limit SIZE. */
#ifndef KF_CLI_SANDBOX_OPTS_H
#define KF_CLI_SANDBOX_OPTS_H

#include "eval/eval.h"

/* Usage lines for the two flags. */
#define KF_CLI_SANDBOX_USAGE \
    "      --sandbox MODE   auto (default: every layer the kernel grants), strict (refuse to\n" \
    "                       evaluate without all of them) or off (limits only); see doc/sandbox.md\n" \
    "      --mem-limit SIZE memory of a worker and its compiler, e.g. 8G, 512M, 0 = none\n" \
    "                       (default: half the RAM, 2 to 32 GiB)\n"

/* Applies "--sandbox" / "--mem-limit" with `value` to o; 0, or -1 after
 * printing an error naming the option and what it accepts. */
int kf_cli_sandbox_mode(const char *value, kf_eval_opts *o);
int kf_cli_mem_limit(const char *value, kf_eval_opts *o);

/* Usage lines of --counters (profile, run, suite). */
#define KF_CLI_COUNTERS_USAGE \
    "      --counters MODE  hardware counters of a passed, profiled candidate from one more run\n" \
    "                       under Nsight Compute: auto (default: cuda, where ncu is found), off,\n" \
    "                       or ncu (any backend; an error when ncu is not found); doc/sandbox.md\n"

/* Applies "--counters" with `value` to o: 0, or -1 after printing an error
 * (a bad value, or ncu asked for and not found). */
int kf_cli_counters(const char *value, kf_eval_opts *o);

#endif
