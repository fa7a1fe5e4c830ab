/* sandbox_opts.c — parsing --sandbox and --mem-limit (sandbox_opts.h). */
#include "sandbox_opts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "sandbox/sandbox.h"
#include "eval/counters.h"

int kf_cli_sandbox_mode(const char *value, kf_eval_opts *o)
{
    int m = kf_sandbox_mode_parse(value);
    if (m < 0) {
        kf_cli_error("--sandbox: expected auto, strict or off, got '%s'", value);
        return -1;
    }
    o->sandbox = m;
    return 0;
}

int kf_cli_mem_limit(const char *value, kf_eval_opts *o)
{
    if (!strcmp(value, "none")) {
        o->mem_limit_bytes = 0;
        return 0;
    }
    char *end;
    errno = 0;
    double v = strtod(value, &end);
    double unit = 1;
    if (end != value && *end && !end[1]) {
        switch (*end) {
        case 'K': case 'k': unit = 1024.0; end++; break;
        case 'M': case 'm': unit = 1024.0 * 1024; end++; break;
        case 'G': case 'g': unit = 1024.0 * 1024 * 1024; end++; break;
        case 'T': case 't': unit = 1024.0 * 1024 * 1024 * 1024; end++; break;
        default: break;
        }
    }
    v *= unit;
    if (errno || end == value || *end || !(v >= 0) || v > 1.8e19 || (v > 0 && v < 64.0 * 1024 * 1024)) {
        kf_cli_error("--mem-limit: expected a size of at least 64M (e.g. 8G, 512M) or 0/none, got '%s'", value);
        return -1;
    }
    o->mem_limit_bytes = (uint64_t)v;
    return 0;
}

int kf_cli_counters(const char *value, kf_eval_opts *o)
{
    int m = kf_counters_mode_parse(value);
    if (m < 0) {
        kf_cli_error("--counters: expected auto, off or ncu, got '%s'", value);
        return -1;
    }
    if (m == KF_COUNTERS_NCU) {
        char *ncu = kf_ncu_find();
        if (!ncu) {
            kf_cli_error("--counters ncu: ncu (Nsight Compute) not found on PATH, in /usr/local/cuda/bin or "
                         "/opt/nvidia/nsight-compute/*/; install it or set KFORGE_NCU=/path/to/ncu");
            return -1;
        }
        free(ncu);
    }
    o->counters = m;
    return 0;
}
