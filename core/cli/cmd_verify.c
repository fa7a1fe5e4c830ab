/*
 * cmd_verify.c — `kforge verify` and `kforge profile` (argv[0] decides):
 * compile and verify one candidate against a problem on a backend, and for
 * profile time it too.  Exit 0 pass, 1 the candidate failed, 2 bad input.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "candidate/candidate.h"
#include "commands.h"
#include "common.h"
#include "problem/precision.h"
#include "util/error.h"
#include "util/fmt.h"
#include "eval/eval.h"
#include "problem/problem.h"
#include "backend/registry.h"
#include "sandbox_opts.h"

static void usage(FILE *f, const char *cmd)
{
    fprintf(f,
        "usage: kforge %s --backend B --problem P.json [options] CANDIDATE\n"
        "\n"
        "%s\n"
        "CANDIDATE is a candidate directory (candidate.json + sources) or, for a\n"
        "backend that runs a host entry (cpu-simd), a single .c file whose entry\n"
        "is kf_kernel.\n"
        "\n"
        "  -b, --backend B      backend plugin (see 'kforge backends')\n"
        "  -p, --problem FILE   problem JSON\n"
        "      --preset P       size preset (default: small, else the first)\n"
        "  -d, --device N|NAME  device index or name (default 0)\n"
        "      --trials N       verification trials, fresh inputs each (min 5)\n"
        "      --reps N         timed runs when profiling (min 20)\n"
        "      --seed S         base seed; trial t draws with S+t (default 1)\n"
        "      --timeout S      wall-clock limit of one run in seconds (default 10); profiling\n"
        "                       gets that times its number of runs (at least 120 s)\n"
        "      --precision P    any (default: the problem's tolerance) or fp32: the relative-L2\n"
        "                       bound lowered to 1e-5, fp32's accuracy (see 'kforge run --help')\n"
        "      --json           print the result as JSON\n"
        "      --keep-work DIR  keep the worker's files (candidate, build) in DIR\n"
        "      --compile-only   (verify) compile for a target of the backend with no device and\n"
        "                       nothing run: the CUDA plugin's sm_XX, Level Zero's SPIR-V\n"
        "                       (validated); pass = it compiled ('kforge backends' lists targets)\n"
        "      --target T       the target of --compile-only (default: the backend's first)\n"
        "      --arch T         the same as --target (e.g. --arch sm_90)\n"
        "  -o, --out FILE       with --compile-only: write the binary (cubin, SPIR-V) to FILE\n"
        KF_CLI_SANDBOX_USAGE
        KF_CLI_COUNTERS_USAGE
        "  -h, --help           this text\n"
        "\n"
        "Exit status: 0 pass, 1 the candidate failed, 2 bad input.\n",
        cmd,
        strcmp(cmd, "profile") == 0
            ? "Compiles and verifies the candidate in a sandboxed worker, then times it\n"
              "(warm-up, median of reps runs on rotating input sets) and places the\n"
              "time on the device's roofline."
            : "Compiles the candidate in a sandboxed worker and checks it on fresh\n"
              "random inputs against the double-precision reference.");
}

static int pick_device(const kf_plugin *pl, const char *spec, int *out)
{
    if (!spec) {
        *out = 0;
        return 0;
    }
    char *end;
    long v = strtol(spec, &end, 10);
    if (*spec && !*end) {
        if (v < 0 || v >= pl->n_devices) {
            kf_cli_error("backend %s has no device %ld (it has %d; see 'kforge backends')", pl->name, v,
                         pl->n_devices);
            return -1;
        }
        *out = (int)v;
        return 0;
    }
    for (int i = 0; i < pl->n_devices; i++)
        if (strcmp(pl->devices[i].name, spec) == 0 || strstr(pl->devices[i].name, spec)) {
            *out = i;
            return 0;
        }
    kf_cli_error("backend %s has no device named '%s' (see 'kforge backends')", pl->name, spec);
    return -1;
}

static void print_human(const kf_eval_result *res, const kf_resolved *r, const kf_plugin *pl, int dev,
                        const kf_eval_opts *o)
{
    const kf_problem *p = r->problem;
    char a[64], b[64], c[64], d[64];
    printf("verdict: %s\n", kf_verdict_name(res->verdict));
    printf("summary: %s\n", res->summary ? res->summary : "");
    if (res->offline)
        printf("problem: %s (preset %s) on %s, compile only (target %s; no device, nothing run)\n", p->name,
               p->preset_names[r->preset], pl->name, o->offline_target && *o->offline_target ? o->offline_target
                                                                                              : "the default");
    else
        printf("problem: %s (preset %s) on %s, device %d (%s)\n", p->name, p->preset_names[r->preset], pl->name,
               dev, dev < pl->n_devices ? pl->devices[dev].name : "?");
    if (res->trials_run)
        printf("trials: %d run (seed %llu..%llu)%s\n", res->trials_run, (unsigned long long)o->seed,
               (unsigned long long)(o->seed + (uint64_t)res->trials_run - 1),
               res->failed_trial >= 0 ? ", failed" : "");
    for (int i = 0; i < res->n_outputs && res->trials_run; i++)
        printf("output %s: max abs err %.3g, max rel err %.3g, rel L2 %.3g (atol %g, rtol %g, rel_l2 %g)\n",
               kf_problem_value_name(p, p->outputs[i]), res->stats[i].max_abs_err, res->stats[i].max_rel_err,
               res->stats[i].rel_l2, p->atol, p->rtol, p->rel_l2);
    fflush(stdout);
    for (int i = 0; i < res->n_outputs && res->trials_run && res->verdict == KF_PASS; i++)
        if (!res->stats[i].spread_applies && res->stats[i].n_elems > 1)
            fprintf(stderr, "kforge: warning: output %s: in every trial the reference had one value at all its "
                            "elements, so this check tests that one value only (see 'kforge check' for the "
                            "problem's trivial predictors)\n", kf_problem_value_name(p, p->outputs[i]));
    if (res->profiled && res->timing.n > 0) {
        const kf_timing *t = &res->timing;
        printf("time: median %s, min %s, p10 %s, p90 %s (%d runs, %d input sets, %s clock)\n",
               kf_fmt_time(t->median_s, a, sizeof a), kf_fmt_time(t->min_s, b, sizeof b),
               kf_fmt_time(t->p10_s, c, sizeof c), kf_fmt_time(t->p90_s, d, sizeof d), t->n, t->n_sets,
               t->clock_is_device ? "device" : "host");
        const kf_roofline *rf = &res->roofline;
        if (rf->achieved_flops > 0 || rf->achieved_bytes_per_s > 0)
            printf("achieved: %s, %s\n", kf_fmt_rate(rf->achieved_flops, "FLOP", a, sizeof a),
                   kf_fmt_rate(rf->achieved_bytes_per_s, "B", b, sizeof b));
        if (rf->floor_s > 0)
            printf("roofline: floor %s, hard floor %s, fraction %.3g\n", kf_fmt_time(rf->floor_s, a, sizeof a),
                   kf_fmt_time(rf->hard_floor_s, b, sizeof b), rf->fraction);
        else
            printf("roofline: unknown (the device reports no peak rates)\n");
        if (t->report && *t->report) printf("report:\n%s%s", t->report,
                                            t->report[strlen(t->report) - 1] == '\n' ? "" : "\n");
        char *hw = kf_counters_text(&res->hw);
        if (hw && *hw) printf("%s", hw);
        free(hw);
    }
    if (res->offline && res->verdict == KF_PASS && res->offline_report && strchr(res->offline_report, '\n'))
        printf("report:\n%s%s", res->offline_report,
               res->offline_report[strlen(res->offline_report) - 1] == '\n' ? "" : "\n");
    if (res->verdict != KF_PASS && res->diagnostics && *res->diagnostics)
        printf("diagnostics:\n%s%s", res->diagnostics,
               res->diagnostics[strlen(res->diagnostics) - 1] == '\n' ? "" : "\n");
}

/* The compile-only binary into path (atomically, 0644 & umask). */
static int write_binary(const char *path, const unsigned char *bin, size_t n, kf_error *err)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) return kf_fail_errno(err, errno, "cannot write %s: %s", tmp, strerror(errno));
    int ok = fwrite(bin, 1, n, f) == n;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return kf_fail_errno(err, e, "cannot write %s: %s", path, strerror(e));
    }
    return 0;
}

int kf_cmd_verify(int argc, char **argv)
{
    const char *cmd = argv[0] && strcmp(argv[0], "profile") == 0 ? "profile" : "verify";
    int profile = strcmp(cmd, "profile") == 0;
    const char *backend = NULL, *problem = NULL, *preset = NULL, *device = NULL, *keep = NULL;
    const char *target = NULL, *out_path = NULL;
    int json = 0, compile_only = 0, precision = KF_PRECISION_ANY;
    kf_eval_opts o;
    kf_eval_opts_default(&o);
    static const struct option longopts[] = {
        {"backend", required_argument, NULL, 'b'}, {"problem", required_argument, NULL, 'p'},
        {"preset", required_argument, NULL, 'P'},  {"device", required_argument, NULL, 'd'},
        {"trials", required_argument, NULL, 't'},  {"reps", required_argument, NULL, 'r'},
        {"seed", required_argument, NULL, 's'},    {"timeout", required_argument, NULL, 'T'},
        {"json", no_argument, NULL, 'j'},          {"keep-work", required_argument, NULL, 'k'},
        {"sandbox", required_argument, NULL, 'S'}, {"mem-limit", required_argument, NULL, 'M'},
        {"counters", required_argument, NULL, 'K'}, {"precision", required_argument, NULL, 'R'},
        {"compile-only", no_argument, NULL, 'C'},  {"target", required_argument, NULL, 'A'},
        {"arch", required_argument, NULL, 'A'},    {"out", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
    };
    optind = 1;
    opterr = 0;
    int ch;
    long long v;
    while ((ch = getopt_long(argc, argv, ":b:p:d:o:h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'C': compile_only = 1; break;
        case 'A': target = optarg; break;
        case 'o': out_path = optarg; break;
        case 'b': backend = optarg; break;
        case 'p': problem = optarg; break;
        case 'P': preset = optarg; break;
        case 'd': device = optarg; break;
        case 'j': json = 1; break;
        case 'k': keep = optarg; break;
        case 'S': if (kf_cli_sandbox_mode(optarg, &o)) return KF_EXIT_BAD_INPUT; break;
        case 'M': if (kf_cli_mem_limit(optarg, &o)) return KF_EXIT_BAD_INPUT; break;
        case 'K': if (kf_cli_counters(optarg, &o)) return KF_EXIT_BAD_INPUT; break;
        case 'R': if (kf_cli_precision(optarg, &precision)) return KF_EXIT_BAD_INPUT; break;
        case 't':
            if (kf_cli_int("--trials", optarg, 1, 1000000, &v)) return KF_EXIT_BAD_INPUT;
            o.trials = v > 1000000 ? 1000000 : (int)v;
            break;
        case 'r':
            if (kf_cli_int("--reps", optarg, 1, 1000000, &v)) return KF_EXIT_BAD_INPUT;
            o.reps = v > 1000000 ? 1000000 : (int)v;
            break;
        case 's':
            if (kf_cli_int("--seed", optarg, 0, LLONG_MAX, &v)) return KF_EXIT_BAD_INPUT;
            o.seed = (uint64_t)v;
            break;
        case 'T':
            if (kf_cli_double("--timeout", optarg, 0, 86400, 1, &o.run_timeout_s)) return KF_EXIT_BAD_INPUT;
            break;
        case 'h': usage(stdout, cmd); return KF_EXIT_OK;
        case ':': kf_cli_error("%s needs a value (see 'kforge %s --help')", argv[optind - 1], cmd); return KF_EXIT_BAD_INPUT;
        default: kf_cli_error("unknown option '%s' (see 'kforge %s --help')", argv[optind - 1], cmd); return KF_EXIT_BAD_INPUT;
        }
    }
    if (o.trials < 5 || o.reps < 20)
        fprintf(stderr, "kforge: note: at least 5 trials and 20 timed runs are always used\n");
    {
        /* profiling makes warm-up + timed runs + a read-back per set: give it
           as many run limits, never less than its own default */
        int runs = (o.warmup > 1 ? o.warmup : 1) + (o.reps > 20 ? o.reps : 20) + (o.max_sets > 0 ? o.max_sets : 4);
        if (o.profile_timeout_s < o.run_timeout_s * runs) o.profile_timeout_s = o.run_timeout_s * runs;
    }
    if (!backend || !problem || optind != argc - 1) {
        kf_cli_error("%s needs --backend, --problem and one CANDIDATE (see 'kforge %s --help')", cmd, cmd);
        return KF_EXIT_BAD_INPUT;
    }
    if ((target || out_path) && !compile_only) {
        kf_cli_error("%s only goes with --compile-only", target ? "--target/--arch" : "--out");
        return KF_EXIT_BAD_INPUT;
    }
    if (compile_only && profile) {
        kf_cli_error("profile runs the candidate: --compile-only goes with 'kforge verify'");
        return KF_EXIT_BAD_INPUT;
    }
    if (compile_only) o.offline_target = target ? target : "";
    const char *cand_path = argv[optind];
    if (keep) {
        o.work_dir = keep;
        o.keep_work_dir = 1;
    }

    kf_error err = {0};
    kf_registry *reg = kf_registry_open(!compile_only, &err);
    if (!reg) {
        kf_cli_error("%s", err.msg);
        return KF_EXIT_BAD_INPUT;
    }
    int rc = KF_EXIT_BAD_INPUT;
    kf_problem *p = NULL;
    kf_resolved r;
    memset(&r, 0, sizeof r);
    kf_candidate *c = NULL;
    kf_plugin *pl = kf_registry_find(reg, backend);
    if (!pl) {
        char known[1024] = "";
        for (int i = 0; i < reg->n_plugins; i++) {
            if (i) strncat(known, ", ", sizeof known - strlen(known) - 1);
            strncat(known, reg->plugins[i].name, sizeof known - strlen(known) - 1);
        }
        kf_cli_error("no backend '%s' (available: %s; searched %s)", backend, reg->n_plugins ? known : "none",
                     reg->search_path ? reg->search_path : "?");
        goto out;
    }
    if (profile && pl->probed && pl->probe_status == KF_OK)
        kf_plugin_remeasure_peaks(pl);   /* the roofline's peaks: never a busy machine's low ones for good */
    if (compile_only && !kf_plugin_offline_targets(pl)) {
        kf_cli_error("backend %s cannot compile without a device (--compile-only needs a plugin of ABI 1.2 "
                     "with compile_offline; this one is %u.%u%s)", backend, (unsigned)pl->be->abi_major,
                     (unsigned)pl->be->abi_minor, pl->be->abi_minor >= 2 ? " without it" : "");
        goto out;
    }
    if (compile_only && target) {
        const char *list = kf_plugin_offline_targets(pl);
        size_t tl = strlen(target);
        const char *hit = list;
        while ((hit = strstr(hit, target)) && ((hit > list && hit[-1] != ' ') || (hit[tl] && hit[tl] != ' ')))
            hit += tl;
        if (!hit)
            fprintf(stderr, "kforge: note: '%s' is not among the targets backend %s lists (%s); trying it\n",
                    target, backend, *list ? list : "none listed");
    }
    if (!compile_only && pl->probe_status != KF_OK) {
        kf_cli_error("backend %s is not available here: %s", backend, pl->probe_why ? pl->probe_why : "no reason given");
        goto out;
    }
    if (!compile_only && pick_device(pl, device, &o.device) != 0) goto out;
    if (kf_cli_load_problem(problem, preset, &p, &r) != 0) goto out;
    if (precision == KF_PRECISION_FP32) kf_problem_require_fp32(p);   /* r reads the bound through p */
    c = kf_candidate_load(cand_path, &err);
    if (!c) {
        kf_cli_error("%s", err.msg);
        goto out;
    }
    kf_eval_result res;
    if (kf_evaluate(pl, &r, c, &o, profile, &res, &err) != 0) {
        kf_cli_error("%s", err.msg);
        goto out;
    }
    if (json) {
        char *txt = kf_eval_result_json(&res);
        if (txt) puts(txt);
        free(txt);
    } else {
        print_human(&res, &r, pl, o.device, &o);
    }
    rc = res.verdict == KF_PASS ? KF_EXIT_OK : KF_EXIT_CANDIDATE_FAILED;
    if (rc == KF_EXIT_OK && out_path && res.offline_binary &&
        write_binary(out_path, res.offline_binary, res.offline_size, &err) != 0) {
        kf_cli_error("%s", err.msg);
        rc = kf_exit_code(err.kind);
    }
    kf_eval_result_free(&res);
out:
    if (c) kf_candidate_free(c);
    if (p) {
        kf_resolved_free(&r);
        kf_problem_free(p);
    }
    kf_registry_close(reg);
    return rc;
}
