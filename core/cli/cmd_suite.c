/* kforge suite — the loop over every problem of a suite, then the reports
 * (core/suite/suite.h, core/suite/report.h). */
#include <getopt.h>
#include <limits.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_suite_slurm.h"
#include "commands.h"
#include "common.h"
#include "sandbox_opts.h"
#include "problem/precision.h"
#include "util/error.h"
#include "suite/report.h"
#include "suite/suite.h"

static void suite_usage(FILE *f)
{
    fprintf(f,
        "usage: kforge suite DIR|FILE... --backend B --report DIR [options]\n"
        "       kforge suite --report-only DIR [--backend B,B2...]\n"
        "       kforge suite DIR|FILE... --backend B --report DIR --slurm [slurm options]\n"
        "       kforge suite --status DIR\n"
        "\n"
        "  --backend B[,B2...]  backend plugin(s) (see 'kforge backends'); several: the suite\n"
        "                       runs on each into DIR/B and DIR/compare.md puts them side by side\n"
        "  --device N           device index of the backend (default 0)\n"
        "  --preset P           problem size preset (default small)\n"
        "  --agent SPEC         builtin (default) or an LLM agent (see 'kforge run --help')\n"
        "  --jobs N             problems run at once, each in its own process (default 1)\n"
        "  --max-iterations N   loop steps per problem (default 12)\n"
        "  --max-time S         wall-clock budget per problem in seconds (default 600)\n"
        "  --no-baseline        do not measure the op-by-op baseline (saves its evaluation;\n"
        "                       the reports then give speedups over --anchors only)\n"
        "  --confirm-rounds N   each problem's final re-timing of its best candidates\n"
        "                       (default 3; 0: none; see 'kforge run --help')\n"
        "  --precision P        any (default) or fp32: fp32's accuracy for every problem\n"
        "                       (see 'kforge run --help')\n"
        "  --sandbox MODE       auto (default), strict or off: the worker sandbox (doc/sandbox.md)\n"
        "  --mem-limit SIZE     memory of a worker and its compiler (e.g. 8G; default half the RAM)\n"
        "  --counters MODE      auto (default), off or ncu: hardware counters (see 'kforge run --help')\n"
        "  --report DIR         where the runs (DIR/runs/PROBLEM), logs and reports go;\n"
        "                       running again continues: finished problems are kept\n"
        "  --report-only DIR    rewrite DIR/report.{json,md,html} from its runs, run nothing;\n"
        "                       with --backend B,B2: DIR/B/report.* and DIR/compare.*\n"
        "  --anchors FILE       reference times beside every result: PyTorch eager and torch.compile\n"
        "                       (bench/anchors/torch_anchors.py, CUDA or CPU) or ONNX Runtime CPU\n"
        "                       (ort_anchors.py): speedups over each and over the faster, fast_p;\n"
        "                       matched by problem name, measured at the runs' preset\n"
        "  --seeds N            run every problem N times, with agent seeds 1..N (--agent-seed),\n"
        "                       into DIR/runs/PROBLEM~sK when N > 1; the reports give per problem\n"
        "                       the success rate, steps and speedup median and spread over seeds\n"
        "  --quiet              no progress lines\n"
        "\n"
        "On a Slurm cluster (doc/slurm.md): one job array, a task per problem x backend (x seed),\n"
        "each a 'kforge run' into the run directory above, and a merge job after them\n"
        "that writes the reports.  Running the same command again submits only the\n"
        "tasks without a result that are not queued (a killed run resumes).\n"
        "  --slurm              submit with sbatch (needs Slurm's commands on PATH)\n"
        "  --slurm-dry-run      write the scripts under DIR/slurm, print the sbatch lines\n"
        "  --partition P  --account A  --time T  --gres G   passed to sbatch for the tasks\n"
        "                       (e.g. --gres gpu:1 --time 2:00:00)\n"
        "  --max-parallel N     tasks running at once (--array=...%%N)\n"
        "  --slurm-retries K    submissions of a failed or killed task after its first (default 2)\n"
        "  --status DIR         every task's Slurm state (squeue, sacct) and run record\n"
        "\n"
        "Directories are scanned recursively for *.json problems, in name order.\n"
        "exit status: 0 every problem has a correct kernel, 1 some have none, 2 bad input,\n"
        "3 internal error.  --slurm: 0 submitted (or nothing left to submit), 1 tasks given\n"
        "up, 2 bad input or Slurm unavailable (sbatch missing or refusing the job)\n");
}

static const char *anchors;   /* --anchors FILE */

static int write_reports(const char *dir, const char *const *run_dirs, int n, int quiet)
{
    kf_report r;
    kf_error err = {0};
    if (kf_report_build(run_dirs, n, &r, &err) != 0 || kf_report_machine_load(&r, dir, &err) != 0 ||
        (anchors && kf_report_load_anchors(&r, anchors, &err) != 0) || kf_report_write_all(&r, dir, &err) != 0) {
        kf_cli_error("%s", err.msg);
        kf_report_free(&r);
        return kf_exit_code(err.kind);
    }
    if (!quiet) {
        printf("\n%d/%d problems correct", r.sum.n_correct, r.sum.n);
        if (r.sum.n_speedup)
            printf("; geometric-mean speedup %.3gx over %d; fast_1 %.3f", r.sum.geomean_correct,
                   r.sum.n_speedup, r.sum.fast_p[3]);
        printf("\n");
        if (anchors) {
            char desc[512];
            printf("against %s (%s: %s): %.3gx over %s (geomean over %d); fast_1 %.3f\n",
                   kf_report_anchors_label(&r), anchors, kf_report_anchors_desc(&r, desc, sizeof desc),
                   r.sum.geomean_vs_torch, r.anchors_has_compile ? "the faster of eager and torch.compile"
                                                                  : kf_report_anchors_label(&r),
                   r.sum.n_torch, r.sum.fast_p_torch[3]);
        }
        if (r.sum.n_anchor_warnings)
            printf("warning: %d of %d baselines take over 1.5x their GEMM anchor (the library GEMM alone): "
                   "see the Warnings of the report\n", r.sum.n_anchor_warnings, r.sum.n_anchor);
        printf("reports: %s/report.html, %s/report.md, %s/report.json\n", dir, dir, dir);
    }
    int code = r.sum.n_correct == r.sum.n && r.sum.n > 0 ? KF_EXIT_OK : KF_EXIT_CANDIDATE_FAILED;
    kf_report_free(&r);
    return code;
}

/* The run directories of DIR: a Slurm suite's in task order (the
 * problems' order, as the suite writes them), else DIR/runs/ by name. */
static int list_runs(const char *top, const char *backend, const char *dir, char ***dirs, kf_error *err)
{
    int n = kf_slurm_run_dirs(top, backend, dirs, err);
    if (n != 0) return n;
    kf_report_free_list(*dirs, 0);
    return kf_report_list_runs(dir, dirs, err);
}

static int report_only(const char *top, const char *backend, const char *dir, int quiet, kf_report *keep)
{
    char **dirs = NULL;
    kf_error err = {0};
    int n = list_runs(top, backend, dir, &dirs, &err);
    if (n < 0) {
        kf_cli_error("%s", err.msg);
        return KF_EXIT_BAD_INPUT;
    }
    if (n == 0) {
        kf_cli_error("%s/runs holds no run directories: run 'kforge suite ... --report %s' first", dir, dir);
        kf_report_free_list(dirs, n);
        return KF_EXIT_BAD_INPUT;
    }
    int code = write_reports(dir, (const char *const *)dirs, n, quiet);
    if (keep && code <= KF_EXIT_CANDIDATE_FAILED &&
        (kf_report_build((const char *const *)dirs, n, keep, &err) != 0 || kf_report_machine_load(keep, dir, &err) != 0)) {
        kf_cli_error("%s", err.msg);
        code = KF_EXIT_INTERNAL;
    }
    kf_report_free_list(dirs, n);
    return code;
}

/* --report-only TOP --backend a,b: each backend's reports, then the compare. */
static int report_only_all(const char *top, char **backends, int nb, int quiet)
{
    if (nb <= 1) return report_only(top, NULL, top, quiet, NULL);
    kf_report *reps = calloc((size_t)nb, sizeof *reps);
    if (!reps) return KF_EXIT_INTERNAL;
    int code = KF_EXIT_OK;
    for (int b = 0; b < nb && code <= KF_EXIT_CANDIDATE_FAILED; b++) {
        char sub[4200];
        kf_suite_backend_dir(top, backends[b], nb, sub, sizeof sub);
        if (!quiet) printf("%s%s:", b ? "\n" : "", backends[b]);
        int one = report_only(top, backends[b], sub, quiet, &reps[b]);
        if (one > code) code = one;
    }
    kf_error err = {0};
    if (code <= KF_EXIT_CANDIDATE_FAILED) {
        if (kf_report_write_compare(reps, (const char *const *)backends, nb, top, &err) != 0) {
            kf_cli_error("%s", err.msg);
            code = KF_EXIT_INTERNAL;
        } else if (!quiet) {
            printf("\nside by side: %s/compare.md, %s/compare.json\n", top, top);
        }
    }
    for (int b = 0; b < nb; b++) kf_report_free(&reps[b]);
    free(reps);
    return code;
}

/* Splits "a,b" in place into backends[] (at most 16). */
static int split_backends(char *list, char **backends)
{
    int nb = 0;
    for (char *save = NULL, *t = list ? strtok_r(list, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
        if (nb == 16) {
            kf_cli_error("--backend: at most 16 backends");
            return -1;
        }
        if (*t) backends[nb++] = t;
    }
    return nb;
}

static char *settings_json(const kf_run_opts *ro, int jobs, int seeds, const char *const *inputs, int n_inputs)
{
    json_object *o = json_object_new_object();
    json_object *in = json_object_new_array();
    for (int i = 0; i < n_inputs; i++) json_object_array_add(in, json_object_new_string(inputs[i]));
    json_object_object_add(o, "problems", in);
    json_object_object_add(o, "backend", json_object_new_string(ro->backend));
    json_object_object_add(o, "device", json_object_new_int(ro->device));
    json_object_object_add(o, "preset", json_object_new_string(ro->preset ? ro->preset : "small"));
    json_object_object_add(o, "agent", json_object_new_string(ro->agent ? ro->agent : "builtin"));
    json_object_object_add(o, "jobs", json_object_new_int(jobs));
    json_object_object_add(o, "max_iterations", json_object_new_int(ro->max_iterations));
    json_object_object_add(o, "max_time_s", json_object_new_double(ro->max_time_s));
    if (seeds > 0) json_object_object_add(o, "seeds", json_object_new_int(seeds));
    if (!ro->baseline) json_object_object_add(o, "baseline", json_object_new_boolean(0));
    if (ro->confirm_rounds != KF_CONFIRM_ROUNDS)
        json_object_object_add(o, "confirm_rounds", json_object_new_int(ro->confirm_rounds));
    if (ro->precision != KF_PRECISION_ANY)
        json_object_object_add(o, "precision", json_object_new_string(kf_precision_policy_name(ro->precision)));
    char *s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
    return s;
}

int kf_cmd_suite(int argc, char **argv)
{
    kf_suite_opts so = {0};
    kf_run_opts_default(&so.run);
    so.jobs = 1;
    const char *only = NULL;
    int quiet = 0;
    enum { O_BACKEND = 1, O_DEVICE, O_PRESET, O_AGENT, O_JOBS, O_ITER, O_TIME, O_REPORT, O_ONLY, O_QUIET,
           O_HELP, O_SANDBOX, O_MEM, O_ANCHORS, O_SLURM, O_SLURM_DRY, O_PARTITION, O_GRES, O_STIME, O_ACCOUNT,
           O_MAXPAR, O_RETRIES, O_STATUS, O_SEEDS, O_NOBASE, O_COUNTERS, O_CONFIRM, O_PRECISION };
    kf_slurm_opts sl = {0};
    sl.retries = 2;
    int slurm = 0;
    const char *status_dir = NULL;
    const char *sandbox_arg = NULL, *mem_arg = NULL, *counters_arg = NULL;   /* as given, for the Slurm tasks */
    static const struct option opts[] = {
        {"backend", required_argument, 0, O_BACKEND}, {"device", required_argument, 0, O_DEVICE},
        {"preset", required_argument, 0, O_PRESET}, {"agent", required_argument, 0, O_AGENT},
        {"jobs", required_argument, 0, O_JOBS}, {"max-iterations", required_argument, 0, O_ITER},
        {"max-time", required_argument, 0, O_TIME}, {"report", required_argument, 0, O_REPORT},
        {"report-only", required_argument, 0, O_ONLY}, {"quiet", no_argument, 0, O_QUIET},
        {"help", no_argument, 0, O_HELP}, {"sandbox", required_argument, 0, O_SANDBOX},
        {"mem-limit", required_argument, 0, O_MEM}, {"anchors", required_argument, 0, O_ANCHORS},
        {"slurm", no_argument, 0, O_SLURM}, {"slurm-dry-run", no_argument, 0, O_SLURM_DRY},
        {"partition", required_argument, 0, O_PARTITION}, {"gres", required_argument, 0, O_GRES},
        {"time", required_argument, 0, O_STIME}, {"account", required_argument, 0, O_ACCOUNT},
        {"max-parallel", required_argument, 0, O_MAXPAR}, {"slurm-retries", required_argument, 0, O_RETRIES},
        {"status", required_argument, 0, O_STATUS}, {"seeds", required_argument, 0, O_SEEDS},
        {"no-baseline", no_argument, 0, O_NOBASE}, {"counters", required_argument, 0, O_COUNTERS},
        {"confirm-rounds", required_argument, 0, O_CONFIRM}, {"precision", required_argument, 0, O_PRECISION},
        {0, 0, 0, 0}};
    int c;
    long long iv;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case O_BACKEND: so.run.backend = optarg; break;
        case O_DEVICE: if (kf_cli_int("--device", optarg, 0, 1023, &iv)) return KF_EXIT_BAD_INPUT;
            so.run.device = (int)iv;
            sl.device_set = 1;
            break;
        case O_PRESET: so.run.preset = optarg; break;
        case O_AGENT: so.run.agent = optarg; break;
        case O_JOBS: if (kf_cli_int("--jobs", optarg, 1, 256, &iv)) return KF_EXIT_BAD_INPUT;
            so.jobs = (int)iv;
            break;
        case O_ITER: if (kf_cli_int("--max-iterations", optarg, 1, 1000000, &iv)) return KF_EXIT_BAD_INPUT;
            so.run.max_iterations = (int)iv;
            break;
        case O_TIME: if (kf_cli_double("--max-time", optarg, 0, 1e9, 1, &so.run.max_time_s)) return KF_EXIT_BAD_INPUT;
            break;
        case O_SANDBOX: if (kf_cli_sandbox_mode(optarg, &so.run.eval)) return KF_EXIT_BAD_INPUT;
            sandbox_arg = optarg;
            break;
        case O_MEM: if (kf_cli_mem_limit(optarg, &so.run.eval)) return KF_EXIT_BAD_INPUT;
            mem_arg = optarg;
            break;
        case O_COUNTERS: if (kf_cli_counters(optarg, &so.run.eval)) return KF_EXIT_BAD_INPUT;
            counters_arg = optarg;
            break;
        case O_SLURM: slurm = 1; break;
        case O_SLURM_DRY: slurm = 1; sl.dry_run = 1; break;
        case O_PARTITION: sl.partition = optarg; break;
        case O_GRES: sl.gres = optarg; break;
        case O_STIME: sl.time = optarg; break;
        case O_ACCOUNT: sl.account = optarg; break;
        case O_MAXPAR: if (kf_cli_int("--max-parallel", optarg, 1, 1000000, &iv)) return KF_EXIT_BAD_INPUT;
            sl.max_parallel = (int)iv;
            break;
        case O_RETRIES: if (kf_cli_int("--slurm-retries", optarg, 0, 100, &iv)) return KF_EXIT_BAD_INPUT;
            sl.retries = (int)iv;
            break;
        case O_STATUS: status_dir = optarg; break;
        case O_REPORT: so.report_dir = optarg; break;
        case O_ANCHORS: anchors = optarg; break;
        case O_SEEDS: if (kf_cli_int("--seeds", optarg, 1, 1000, &iv)) return KF_EXIT_BAD_INPUT;
            so.seeds = (int)iv;
            break;
        case O_NOBASE: so.run.baseline = 0; break;
        case O_CONFIRM: if (kf_cli_int("--confirm-rounds", optarg, 0, KF_CONFIRM_MAX_ROUNDS, &iv)) return KF_EXIT_BAD_INPUT;
            so.run.confirm_rounds = (int)iv;
            break;
        case O_PRECISION: if (kf_cli_precision(optarg, &so.run.precision)) return KF_EXIT_BAD_INPUT;
            break;
        case O_ONLY: only = optarg; break;
        case O_QUIET: quiet = 1; break;
        case O_HELP: suite_usage(stdout); return 0;
        default: suite_usage(stderr); return KF_EXIT_BAD_INPUT;
        }
    }
    const char *const *inputs = (const char *const *)argv + optind;
    int n_inputs = argc - optind;
    if (status_dir) {
        if (n_inputs > 0 || so.report_dir || only) {
            kf_cli_error("--status DIR takes no problems, no --report and no --report-only");
            return KF_EXIT_BAD_INPUT;
        }
        return kf_cli_suite_status(status_dir);
    }
    if (!slurm && (sl.partition || sl.gres || sl.time || sl.account || sl.max_parallel)) {
        kf_cli_error("--partition, --gres, --time, --account and --max-parallel go with --slurm");
        return KF_EXIT_BAD_INPUT;
    }
    if (only) {
        if (n_inputs > 0 || so.report_dir || slurm) {
            kf_cli_error("--report-only DIR takes no problems, no --report and no --slurm");
            return KF_EXIT_BAD_INPUT;
        }
        char *list = so.run.backend ? strdup(so.run.backend) : NULL;
        char *bs[16];
        int nb = list ? split_backends(list, bs) : 0;
        int code = nb < 0 ? KF_EXIT_BAD_INPUT : report_only_all(only, bs, nb, quiet);
        free(list);
        return code;
    }
    if (n_inputs == 0 || !so.run.backend || !so.report_dir) {
        kf_cli_error("suite needs problem directories or files, --backend and --report DIR");
        suite_usage(stderr);
        return KF_EXIT_BAD_INPUT;
    }
    if (!so.run.prompts_dir) so.run.prompts_dir = getenv("KFORGE_PROMPTS");

    kf_suite_problem *probs = NULL;
    int n = 0;
    kf_error err = {0};
    if (kf_suite_collect(inputs, n_inputs, so.run.preset, &probs, &n, &err) != 0) {
        kf_cli_error("%s", err.msg);
        return kf_exit_code(err.kind);
    }
    /* --backend a,b: the same suite on each, into REPORT/a and REPORT/b, and
       REPORT/compare.{md,json} side by side */
    char *blist = strdup(so.run.backend);
    char *backends[16];
    int nb = split_backends(blist, backends);
    if (nb <= 0) {
        if (nb == 0) kf_cli_error("--backend: no backend named");
        free(blist);
        kf_suite_problems_free(probs, n);
        return KF_EXIT_BAD_INPUT;
    }
    if (slurm) {
        /* the backends are checked by the tasks, on the nodes that have the devices */
        sl.report_dir = so.report_dir;
        sl.backends = (const char *const *)backends;
        sl.n_backends = nb;
        sl.n_seeds = so.seeds;
        sl.run = so.run;
        const char *run_args[6];
        int n_run_args = 0;
        if (sandbox_arg) { run_args[n_run_args++] = "--sandbox"; run_args[n_run_args++] = sandbox_arg; }
        if (mem_arg) { run_args[n_run_args++] = "--mem-limit"; run_args[n_run_args++] = mem_arg; }
        if (counters_arg) { run_args[n_run_args++] = "--counters"; run_args[n_run_args++] = counters_arg; }
        sl.run_args = run_args;
        sl.n_run_args = n_run_args;
        char self[PATH_MAX], abs_anchors[PATH_MAX];
        ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
        self[len > 0 ? len : 0] = '\0';
        const char *over = getenv("KFORGE_SLURM_KFORGE");   /* the kforge the nodes run, when another */
        sl.kforge = over && *over ? over : self;
        if (anchors) sl.anchors = realpath(anchors, abs_anchors) ? abs_anchors : anchors;
        char *settings[16];
        for (int b = 0; b < nb; b++) {
            so.run.backend = backends[b];
            settings[b] = settings_json(&so.run, so.jobs, so.seeds, inputs, n_inputs);
        }
        sl.settings_json = (const char *const *)settings;
        int all_done = 0;
        int code = kf_cli_suite_slurm(&sl, probs, n, quiet, &all_done);
        if (all_done && !sl.dry_run) code = report_only_all(so.report_dir, backends, nb, quiet);
        for (int b = 0; b < nb; b++) free(settings[b]);
        free(blist);
        kf_suite_problems_free(probs, n);
        return code;
    }
    for (int b = 0; b < nb; b++) {
        if (kf_suite_check_backend(backends[b], so.run.device, &err) != 0) {
            kf_cli_error("%s", err.msg);
            free(blist);
            kf_suite_problems_free(probs, n);
            return kf_exit_code(err.kind);
        }
    }
    const char *top = so.report_dir;
    int code = KF_EXIT_OK;
    kf_report *reps = nb > 1 ? calloc((size_t)nb, sizeof *reps) : NULL;
    for (int b = 0; b < nb && code != KF_EXIT_INTERNAL && code != KF_EXIT_BAD_INPUT; b++) {
        char sub[4200];
        kf_suite_backend_dir(top, backends[b], nb, sub, sizeof sub);
        so.report_dir = sub;
        so.run.backend = backends[b];
        char *settings = settings_json(&so.run, so.jobs, so.seeds, inputs, n_inputs);
        so.settings_json = settings;
        so.progress = kf_cli_progress(quiet);
        if (!quiet)
            printf("%ssuite: %d problems on %s, preset %s, agent %s, %d at once; runs in %s/runs\n", b ? "\n" : "", n,
                   so.run.backend, so.run.preset ? so.run.preset : "small", so.run.agent ? so.run.agent : "builtin",
                   so.jobs, so.report_dir);
        kf_suite_outcome out = {0};
        int rc = kf_suite_run(&so, probs, n, &out, &err), one;
        if (rc != 0) {
            kf_cli_error("%s", err.msg);
            one = kf_exit_code(err.kind);
        } else {
            one = write_reports(so.report_dir, (const char *const *)out.run_dirs, out.n, quiet);
            if (reps && (kf_report_build((const char *const *)out.run_dirs, out.n, &reps[b], &err) != 0 ||
                         kf_report_machine_load(&reps[b], so.report_dir, &err) != 0)) {
                kf_cli_error("%s", err.msg);
                one = KF_EXIT_INTERNAL;
            }
        }
        if (one > code) code = one;
        kf_suite_outcome_free(&out);
        free(settings);
    }
    if (reps && code != KF_EXIT_INTERNAL && code != KF_EXIT_BAD_INPUT) {
        if (kf_report_write_compare(reps, (const char *const *)backends, nb, top, &err) != 0) {
            kf_cli_error("%s", err.msg);
            code = KF_EXIT_INTERNAL;
        } else if (!quiet) {
            printf("\nside by side: %s/compare.md, %s/compare.json\n", top, top);
        }
    }
    for (int b = 0; reps && b < nb; b++) kf_report_free(&reps[b]);
    free(reps);
    free(blist);
    kf_suite_problems_free(probs, n);
    return code;
}
