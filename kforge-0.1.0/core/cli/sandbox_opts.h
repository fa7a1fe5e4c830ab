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

#endif
