/*
 * test_opencl_eval.c — the hand-written OpenCL candidates and the
 * adversarial ones through the whole evaluation engine (kf_evaluate: worker
 * process, guarded buffers, reference, comparison) on the suite's problems
 * at the small preset, asserting each verdict.
 */
#include "../kf_test.h"
#include "candidate/candidate.h"
#include "eval/eval.h"
#include "problem/problem.h"
#include "backend/registry.h"

#include <stdlib.h>
#include <string.h>

typedef struct evalctx {
    kf_problem *prob;
    kf_resolved r;
    kf_candidate *cand;
    kf_plugin plugin;
    kf_eval_result res;
} evalctx;

/* Evaluates candidate `cand_dir` (relative to the source dir) on
 * problems/level2/<problem>.json, small preset. */
static void evaluate(evalctx *x, const char *problem, const char *cand_dir, int profile,
                     double run_timeout_s)
{
    char path[4096];
    kf_error err = {0};
    memset(x, 0, sizeof *x);
    snprintf(path, sizeof path, "%s/problems/level2/%s.json", kf_test_srcdir(), problem);
    x->prob = kf_problem_load(path, &err);
    KF_CHECK_MSG(x->prob != NULL, "%s", err.msg);
    int preset = kf_problem_find_preset(x->prob, "small");
    KF_CHECK(preset >= 0);
    KF_CHECK_MSG(kf_resolve(x->prob, preset, &x->r, &err) == 0, "%s", err.msg);
    snprintf(path, sizeof path, "%s/%s", kf_test_srcdir(), cand_dir);
    x->cand = kf_candidate_load(path, &err);
    KF_CHECK_MSG(x->cand != NULL, "%s", err.msg);
    snprintf(path, sizeof path, "%s/plugins/opencl/.libs/kf-opencl.so", kf_test_builddir());
    KF_CHECK_MSG(kf_plugin_open(path, &x->plugin, &err) == 0, "%s", err.msg);
    kf_plugin_probe(&x->plugin);
    KF_CHECK_MSG(x->plugin.probe_status == KF_OK, "probe: %s",
                 x->plugin.probe_why ? x->plugin.probe_why : "?");
    kf_eval_opts o;
    kf_eval_opts_default(&o);
    o.threads = 2;
    if (run_timeout_s > 0) o.run_timeout_s = run_timeout_s;
    KF_CHECK_MSG(kf_evaluate(&x->plugin, &x->r, x->cand, &o, profile, &x->res, &err) == 0,
                 "kf_evaluate: %s", err.msg);
}

static void done(evalctx *x)
{
    kf_eval_result_free(&x->res);
    kf_plugin_close(&x->plugin);
    kf_candidate_free(x->cand);
    kf_resolved_free(&x->r);
    kf_problem_free(x->prob);
}

#define CHECK_VERDICT(x, v) \
    KF_CHECK_MSG((x)->res.verdict == (v), "verdict %s, expected %s: %s\n%s", \
                 kf_verdict_name((x)->res.verdict), kf_verdict_name(v), \
                 (x)->res.summary ? (x)->res.summary : "", \
                 (x)->res.diagnostics ? (x)->res.diagnostics : "")

static int has_counter(const kf_timing *t, const char *name)
{
    for (int i = 0; i < t->n_counters; i++)
        if (strcmp(t->counters[i].name, name) == 0) return 1;
    return 0;
}

/* ------------------------------------------------ hand-written: pass */

KF_TEST_TIMEOUT(gemm_sub_mul_relu_passes_and_profiles, 300)
{
    evalctx x;
    evaluate(&x, "09_Matmul_Subtract_Multiply_ReLU", "tests/candidates/opencl/gemm_sub_mul_relu", 1, 0);
    CHECK_VERDICT(&x, KF_PASS);
    KF_CHECK_INT(x.res.trials_run, 5);
    KF_CHECK(x.res.profiled);
    KF_CHECK(x.res.timing.n >= 20);
    KF_CHECK_INT(x.res.timing.clock_is_device, 1);
    KF_CHECK(x.res.timing.median_s > 0);
    KF_CHECK(has_counter(&x.res.timing, "launch[0].gemm_sub_mul_relu.ms"));
    KF_CHECK_CONTAINS(x.res.timing.report, "gemm_sub_mul_relu");
    done(&x);
}

KF_TEST_TIMEOUT(row_reduction_passes, 300)
{
    evalctx x;
    evaluate(&x, "56_Matmul_Sigmoid_Sum", "tests/candidates/opencl/row_reduction", 0, 0);
    CHECK_VERDICT(&x, KF_PASS);
    done(&x);
}

KF_TEST_TIMEOUT(group_norm_passes, 300)
{
    evalctx x;
    evaluate(&x, "30_Gemm_GroupNorm_Hardtanh", "tests/candidates/opencl/group_norm", 0, 0);
    CHECK_VERDICT(&x, KF_PASS);
    done(&x);
}

KF_TEST_TIMEOUT(batch_norm_passes, 300)
{
    evalctx x;
    evaluate(&x, "33_Gemm_Scale_BatchNorm", "tests/candidates/opencl/batch_norm", 0, 0);
    CHECK_VERDICT(&x, KF_PASS);
    done(&x);
}

KF_TEST_TIMEOUT(two_gemms_pass_and_profile, 300)
{
    evalctx x;
    evaluate(&x, "45_Gemm_Sigmoid_LogSumExp", "tests/candidates/opencl/two_gemms", 1, 0);
    CHECK_VERDICT(&x, KF_PASS);
    KF_CHECK(has_counter(&x.res.timing, "launch[2].row_logsumexp.ms"));
    done(&x);
}

/* -------------------------------------------------------- adversarial */

#define ADV "tests/adversarial/opencl/"
#define P12 "12_Gemm_Multiply_LeakyReLU"

KF_TEST_TIMEOUT(wrong_values_mismatch, 300)
{
    evalctx x;
    evaluate(&x, P12, ADV "wrong_values", 0, 0);
    CHECK_VERDICT(&x, KF_FAIL_MISMATCH);
    KF_CHECK(x.res.n_mismatches > 0);
    done(&x);
}

KF_TEST_TIMEOUT(no_write_is_not_written, 300)
{
    evalctx x;
    evaluate(&x, P12, ADV "no_write", 0, 0);
    CHECK_VERDICT(&x, KF_FAIL_NOT_WRITTEN);
    done(&x);
}

KF_TEST_TIMEOUT(out_of_bounds_write_is_caught, 300)
{
    evalctx x;
    evaluate(&x, P12, ADV "out_of_bounds", 0, 0);
    CHECK_VERDICT(&x, KF_FAIL_OUT_OF_BOUNDS);
    done(&x);
}

KF_TEST_TIMEOUT(input_mutation_is_caught, 300)
{
    evalctx x;
    evaluate(&x, P12, ADV "input_mutation", 0, 0);
    CHECK_VERDICT(&x, KF_FAIL_INPUT_MODIFIED);
    done(&x);
}

KF_TEST_TIMEOUT(infinite_loop_times_out, 300)
{
    evalctx x;
    evaluate(&x, P12, ADV "infinite_loop", 0, 5);
    CHECK_VERDICT(&x, KF_FAIL_TIMEOUT);
    done(&x);
}

KF_TEST_TIMEOUT(build_error_returns_the_log, 300)
{
    evalctx x;
    evaluate(&x, P12, ADV "build_error", 0, 0);
    CHECK_VERDICT(&x, KF_FAIL_COMPILE);
    KF_CHECK_CONTAINS(x.res.diagnostics, "error");
    KF_CHECK_CONTAINS(x.res.diagnostics, "bias");
    KF_CHECK_CONTAINS(x.res.diagnostics, "CL_BUILD_PROGRAM_FAILURE");
    done(&x);
}

KF_TEST_TIMEOUT(huge_declared_scratch_is_refused_before_allocation, 120)
{
    evalctx x;
    evaluate(&x, P12, ADV "huge_scratch", 0, 0);
    CHECK_VERDICT(&x, KF_FAIL_BIND);
    KF_CHECK_CONTAINS(x.res.summary, "1100 GB of buffers, over the worker's");
    done(&x);
}

KF_TEST_TIMEOUT(build_options_that_read_files_are_refused, 120)
{
    evalctx x;
    evaluate(&x, P12, ADV "include_secret", 0, 0);
    CHECK_VERDICT(&x, KF_FAIL_BIND);
    KF_CHECK_CONTAINS(x.res.summary, "build option '-I/root' is not allowed");
    done(&x);
}

/* The OpenCL runtime (PoCL: in-process LLVM) builds and runs under every
 * layer, exec and fork closed included. */
KF_TEST_TIMEOUT(opencl_runs_under_the_whole_sandbox, 300)
{
    evalctx x;
    evaluate(&x, "09_Matmul_Subtract_Multiply_ReLU", "tests/candidates/opencl/gemm_sub_mul_relu", 1, 0);
    CHECK_VERDICT(&x, KF_PASS);
    KF_CHECK_MSG(x.res.sandbox_layers == 0xffu, "layers 0x%x: %s", x.res.sandbox_layers,
                 x.res.sandbox_why ? x.res.sandbox_why : "");
    KF_CHECK_INT(x.res.timing.clock_is_device, 1);
    KF_CHECK_INT(x.res.timing.n_checked, x.res.timing.n / 2 + 1);
    KF_CHECK(x.res.timing.median_s <= x.res.timing.parent_median_s + x.res.timing.channel_s);
    done(&x);
}

int main(void) { return kf_test_main(); }
