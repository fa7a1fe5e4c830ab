/* kforge run — the refinement loop from the command line (core/run/loop.h). */
#include <getopt.h>
#include <limits.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "common.h"
#include "sandbox_opts.h"
#include "util/error.h"
#include "util/fmt.h"
#include "run/loop.h"
#include "run/run_record.h"
#include "llm/llm.h"

static void run_usage(FILE *f)
{
    fprintf(f,
        "usage: kforge run PROBLEM.json --backend B [options]\n"
        "       kforge run --resume DIR [budget options]\n"
        "\n"
        "  --backend B          backend plugin (see 'kforge backends')\n"
        "  --device N           device index of the backend (default 0)\n"
        "  --preset P           problem size preset (default small)\n"
        "  --agent SPEC         builtin (default), builtin:POINT (start the search at\n"
        "                       POINT, e.g. 'builtin:{\"ts\":64,\"wpt\":8}'), openai:MODEL,\n"
        "                       anthropic:MODEL, cmd:'COMMAND', replay:FILE, or an alias\n"
        "                       from the config\n"
        "  --out DIR            run directory (default runs/PROBLEM-PRESET-BACKEND-TIME)\n"
        "  --resume DIR         continue a run after a crash or a kill\n"
        "  --max-iterations N   loop steps (default 12)\n"
        "  --max-time S         wall-clock budget in seconds (default 600)\n"
        "  --max-cost USD       LLM spending budget (default 5)\n"
        "  --samples K          candidates per step (default 1), compiled and verified in\n"
        "                       parallel, timed one at a time\n"
        "  --target F           stop at this fraction of the roofline floor with the device's\n"
        "                       fastest unit (default 0.8; 0: only the budgets and the\n"
        "                       analysis agent stop the run)\n"
        "  --prompts DIR        prompt templates overriding the installed ones\n"
        "  --record FILE        record every LLM exchange into a cassette (keys never written)\n"
        "  --max-tokens N       LLM answer length limit (default [llm] max_tokens, else 4096;\n"
        "                       always cut to what the model's context leaves)\n"
        "  --temperature T      LLM sampling temperature, 0 to 2 (default [llm] temperature,\n"
        "                       else the server's)\n"
        "  --context-tokens N   the model's context length, when the server does not say it\n"
        "                       (default [llm] context_tokens, else asked from the server)\n"
        "  --request-timeout S  one LLM request's timeout in seconds (default [http] timeout,\n"
        "                       300); no request outlives --max-time\n"
        "  --trials N --reps N  verification trials (>= 5) and timed runs (>= 20)\n"
        "  --seed S             base seed of the input draws\n"
        "  --agent-seed K       the agent's seed (default 0: none): LLM agents' sampling seed;\n"
        "                       the builtin agent orders near-equal neighbours by it\n"
        "  --from RUN_DIR       give the agent that run's verified best kernel (another\n"
        "                       backend's) as a reference for its first candidate\n"
        "  --no-baseline        do not measure the op-by-op baseline\n"
        "  --precision P        any (default): any arithmetic whose results pass the problem's\n"
        "                       tolerance (bf16, TF32, AMX tiles where the device has them);\n"
        "                       fp32: fp32's accuracy, the relative-L2 bound lowered to 1e-5\n"
        "                       for every candidate and the agents kept to fp32\n"
        "  --confirm-rounds N   after the last step, time the best and the correct candidates\n"
        "                       within 2x of it again, N rounds back to back, and keep the\n"
        "                       fastest by its median round (default 3, at most 9; 0: keep\n"
        "                       the best as timed in its step); rounds start only within\n"
        "                       --max-time plus a quarter.  The baseline is timed in them\n"
        "                       too: faster than the fastest in every round (2 or more),\n"
        "                       it is the best\n"
        "  --sandbox MODE       auto (default), strict or off: the worker sandbox (doc/sandbox.md)\n"
        "  --mem-limit SIZE     memory of a worker and its compiler (e.g. 8G; default half the RAM)\n"
        "  --counters MODE      auto (default: on cuda where ncu is found), off or ncu: hardware\n"
        "                       counters of each passed step for the analysis (doc/sandbox.md)\n"
        "  --quiet              no progress lines      --json   progress and result as JSON\n"
        "\n"
        "exit status: 0 a correct kernel was found, 1 none was, 2 bad input or setup (a\n"
        "missing key, template or cassette entry), 3 internal error, 4 the model server is\n"
        "unavailable (refused, timed out, 5xx after the retries): the run stopped, resumable\n");
}

int kf_cmd_run(int argc, char **argv)
{
    kf_run_opts o;
    kf_run_opts_default(&o);
    kf_run_opts cli_budget = {0};     /* which budgets the user set (for --resume) */
    int quiet = 0, json = 0, precision_given = 0;
    enum { O_BACKEND = 1, O_DEVICE, O_PRESET, O_AGENT, O_OUT, O_RESUME, O_ITER, O_TIME, O_COST,
           O_SAMPLES, O_TARGET, O_PROMPTS, O_RECORD, O_TRIALS, O_REPS, O_SEED, O_NOBASE, O_QUIET,
           O_JSON, O_HELP, O_SANDBOX, O_MEM, O_AGENT_SEED, O_FROM, O_MAXTOK, O_TEMP, O_CTX, O_RTMO, O_COUNTERS, O_CONFIRM,
           O_PRECISION };
    static const struct option opts[] = {
        {"backend", required_argument, 0, O_BACKEND}, {"device", required_argument, 0, O_DEVICE},
        {"preset", required_argument, 0, O_PRESET}, {"agent", required_argument, 0, O_AGENT},
        {"out", required_argument, 0, O_OUT}, {"resume", required_argument, 0, O_RESUME},
        {"max-iterations", required_argument, 0, O_ITER}, {"max-time", required_argument, 0, O_TIME},
        {"max-cost", required_argument, 0, O_COST}, {"samples", required_argument, 0, O_SAMPLES},
        {"target", required_argument, 0, O_TARGET}, {"prompts", required_argument, 0, O_PROMPTS},
        {"record", required_argument, 0, O_RECORD}, {"trials", required_argument, 0, O_TRIALS},
        {"reps", required_argument, 0, O_REPS}, {"seed", required_argument, 0, O_SEED},
        {"no-baseline", no_argument, 0, O_NOBASE}, {"quiet", no_argument, 0, O_QUIET},
        {"json", no_argument, 0, O_JSON}, {"help", no_argument, 0, O_HELP},
        {"sandbox", required_argument, 0, O_SANDBOX}, {"mem-limit", required_argument, 0, O_MEM},
        {"counters", required_argument, 0, O_COUNTERS}, {"confirm-rounds", required_argument, 0, O_CONFIRM},
        {"agent-seed", required_argument, 0, O_AGENT_SEED}, {"from", required_argument, 0, O_FROM},
        {"max-tokens", required_argument, 0, O_MAXTOK}, {"temperature", required_argument, 0, O_TEMP},
        {"context-tokens", required_argument, 0, O_CTX}, {"request-timeout", required_argument, 0, O_RTMO},
        {"precision", required_argument, 0, O_PRECISION}, {0, 0, 0, 0}};
    int c;
    long long iv;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case O_BACKEND: o.backend = optarg; break;
        case O_DEVICE: if (kf_cli_int("--device", optarg, 0, 1023, &iv)) return KF_EXIT_BAD_INPUT;
            o.device = (int)iv;
            break;
        case O_PRESET: o.preset = optarg; break;
        case O_AGENT: o.agent = optarg; break;
        case O_OUT: o.out_dir = optarg; break;
        case O_RESUME: o.resume_dir = optarg; break;
        case O_ITER: if (kf_cli_int("--max-iterations", optarg, 1, 1000000, &iv)) return KF_EXIT_BAD_INPUT;
            o.max_iterations = cli_budget.max_iterations = (int)iv;
            break;
        case O_TIME: if (kf_cli_double("--max-time", optarg, 0, 1e9, 1, &o.max_time_s)) return KF_EXIT_BAD_INPUT;
            cli_budget.max_time_s = o.max_time_s;
            break;
        case O_COST: if (kf_cli_double("--max-cost", optarg, 0, 1e9, 0, &o.max_cost_usd)) return KF_EXIT_BAD_INPUT;
            cli_budget.max_cost_usd = o.max_cost_usd;
            break;
        case O_SAMPLES: if (kf_cli_int("--samples", optarg, 1, 64, &iv)) return KF_EXIT_BAD_INPUT;
            o.samples = (int)iv;
            break;
        case O_TARGET: if (kf_cli_double("--target", optarg, 0, 1, 0, &o.target_fraction)) return KF_EXIT_BAD_INPUT;
            break;
        case O_PROMPTS: o.prompts_dir = optarg; break;
        case O_RECORD: o.record_path = optarg; break;
        case O_TRIALS: if (kf_cli_int("--trials", optarg, 1, 1000000, &iv)) return KF_EXIT_BAD_INPUT;
            o.eval.trials = (int)iv;
            break;
        case O_REPS: if (kf_cli_int("--reps", optarg, 1, 1000000, &iv)) return KF_EXIT_BAD_INPUT;
            o.eval.reps = (int)iv;
            break;
        case O_SEED: if (kf_cli_int("--seed", optarg, 0, LLONG_MAX, &iv)) return KF_EXIT_BAD_INPUT;
            o.seed = (uint64_t)iv;
            break;
        case O_AGENT_SEED: if (kf_cli_int("--agent-seed", optarg, 0, (1LL << 47) - 1, &iv)) return KF_EXIT_BAD_INPUT;
            o.agent_seed = (uint64_t)iv;
            break;
        case O_FROM: o.from_dir = optarg; break;
        case O_SANDBOX: if (kf_cli_sandbox_mode(optarg, &o.eval)) return KF_EXIT_BAD_INPUT; break;
        case O_MEM: if (kf_cli_mem_limit(optarg, &o.eval)) return KF_EXIT_BAD_INPUT; break;
        case O_COUNTERS: if (kf_cli_counters(optarg, &o.eval)) return KF_EXIT_BAD_INPUT; break;
        case O_MAXTOK: if (kf_cli_int("--max-tokens", optarg, 1, 100000000, &iv)) return KF_EXIT_BAD_INPUT;
            o.max_tokens = (int)iv;
            break;
        case O_TEMP: if (kf_cli_double("--temperature", optarg, 0, 2, 0, &o.temperature)) return KF_EXIT_BAD_INPUT;
            o.has_temperature = 1;
            break;
        case O_CTX: if (kf_cli_int("--context-tokens", optarg, 64, 100000000, &iv)) return KF_EXIT_BAD_INPUT;
            o.context_tokens = (int)iv;
            break;
        case O_RTMO: if (kf_cli_double("--request-timeout", optarg, 0, 1e6, 1, &o.request_timeout_s)) return KF_EXIT_BAD_INPUT;
            break;
        case O_NOBASE: o.baseline = 0; break;
        case O_CONFIRM: if (kf_cli_int("--confirm-rounds", optarg, 0, KF_CONFIRM_MAX_ROUNDS, &iv)) return KF_EXIT_BAD_INPUT;
            o.confirm_rounds = (int)iv;
            cli_budget.confirm_rounds = 1;
            break;
        case O_PRECISION: if (kf_cli_precision(optarg, &o.precision)) return KF_EXIT_BAD_INPUT;
            precision_given = 1;
            break;
        case O_QUIET: quiet = 1; break;
        case O_JSON: json = 1; break;
        case O_HELP: run_usage(stdout); return 0;
        default: run_usage(stderr); return KF_EXIT_BAD_INPUT;
        }
    }
    if (optind < argc) o.problem_path = argv[optind++];
    if (optind < argc) {
        kf_cli_error("unexpected argument '%s'", argv[optind]);
        return KF_EXIT_BAD_INPUT;
    }
    if (!o.resume_dir && (!o.problem_path || !o.backend)) {
        kf_cli_error("run needs PROBLEM.json and --backend (or --resume DIR)");
        run_usage(stderr);
        return KF_EXIT_BAD_INPUT;
    }
    if (o.resume_dir && (o.agent_seed || o.from_dir || precision_given)) {
        kf_cli_error("--resume keeps the run's --agent-seed, --from and --precision (run.json): give none of them");
        return KF_EXIT_BAD_INPUT;
    }
    if (o.resume_dir) {
        o.max_iterations = cli_budget.max_iterations ? o.max_iterations : 0;
        o.max_time_s = cli_budget.max_time_s > 0 ? o.max_time_s : 0;
        o.confirm_rounds = cli_budget.confirm_rounds ? o.confirm_rounds : -1;   /* -1: run.json's */
        o.max_cost_usd = cli_budget.max_cost_usd > 0 ? o.max_cost_usd : 0;
    }
    if (!o.prompts_dir) o.prompts_dir = getenv("KFORGE_PROMPTS");
    o.progress = kf_cli_progress(quiet);
    o.json_progress = json;

    kf_run_summary s = {0};
    kf_error err = {0};
    int rc = kf_run(&o, &s, &err);
    if (rc != 0 && !s.run_dir) {
        kf_cli_error("%s", err.msg);
        return kf_exit_code(err.kind);
    }
    char t1[32], t2[32];
    if (json) {
        json_object *js = json_object_new_object();
        json_object_object_add(js, "run_dir", json_object_new_string(s.run_dir));
        json_object_object_add(js, "have_best", json_object_new_boolean(s.have_best));
        json_object_object_add(js, "best_dir", s.best_dir ? json_object_new_string(s.best_dir) : NULL);
        json_object_object_add(js, "best_s", json_object_new_double(s.best_s));
        json_object_object_add(js, "baseline_s", json_object_new_double(s.baseline_s));
        json_object_object_add(js, "gemm_anchor_s", json_object_new_double(s.anchor_s));
        json_object_object_add(js, "speedup", json_object_new_double(s.speedup));
        json_object_object_add(js, "same_code_as_baseline", json_object_new_boolean(s.same_code_as_baseline));
        json_object_object_add(js, "roofline_fraction", json_object_new_double(s.fraction));
        json_object_object_add(js, "steps", json_object_new_int(s.steps));
        json_object_object_add(js, "tokens_in", json_object_new_int64(s.tokens_in));
        json_object_object_add(js, "tokens_out", json_object_new_int64(s.tokens_out));
        json_object_object_add(js, "cost_usd", json_object_new_double(s.cost_usd));
        json_object_object_add(js, "stop_reason", json_object_new_string(s.stop_reason ? s.stop_reason : ""));
        json_object_object_add(js, "timing_warning", s.timing_warning ? json_object_new_string(s.timing_warning) : NULL);
        printf("%s\n", json_object_to_json_string_ext(js, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(js);
    } else if (s.have_best) {
        printf("\nbest kernel: %s\n", s.best_dir);
        printf("  time %s", kf_fmt_duration(s.best_s, t1, sizeof t1));
        if (s.baseline_s > 0 && s.same_code_as_baseline)
            printf(", op-by-op baseline %s, speedup 1.00x (the baseline's own code: the times differ by the "
                   "machine's spread)", kf_fmt_duration(s.baseline_s, t2, sizeof t2));
        else if (s.baseline_s > 0)
            printf(", op-by-op baseline %s, speedup %.2fx", kf_fmt_duration(s.baseline_s, t2, sizeof t2), s.speedup);
        if (s.anchor_s > 0) {
            char t3[32];
            printf(" (GEMM anchor %s", kf_fmt_duration(s.anchor_s, t3, sizeof t3));
            if (s.baseline_s > 0) printf(": baseline = %.2fx it", s.baseline_s / s.anchor_s);
            printf(")");
        }
        printf(", roofline fraction %.1f%%\n", s.fraction * 100);
        if (s.timing_warning) printf("  WARNING: %s\n", s.timing_warning);
        printf("  %d steps, stopped: %s\n  record: %s/result.json\n", s.steps, s.stop_reason, s.run_dir);
    } else {
        printf("\nno correct kernel after %d steps (%s)\n  record: %s\n", s.steps,
               s.stop_reason ? s.stop_reason : "?", s.run_dir);
    }
    /* a run that stopped on an error exits as its kind says (a missing
       prompt or key is the setup's: 2), else 0 with a correct kernel, 1
       without one */
    int code = rc != 0 ? kf_exit_code(err.kind) : (s.have_best ? KF_EXIT_OK : KF_EXIT_CANDIDATE_FAILED);
    /* the model server is down: recorded, resumable, and told apart from a
       setup to fix (2) and a bug (3) */
    if (rc != 0 && kf_llm_error_is_outage(err.code)) code = KF_EXIT_LLM_UNAVAILABLE;
    kf_run_summary_free(&s);
    return code;
}
