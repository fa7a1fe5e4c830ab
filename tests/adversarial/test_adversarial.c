/*
 * test_adversarial.c — every adversarial cpu-simd candidate through
 * kf_evaluate() with the real cpu-simd plugin (found on KFORGE_PLUGIN_PATH)
 * and the real worker ($KFORGE_WORKER): the exact verdict and the message
 * an agent would get.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "candidate/candidate.h"
#include "eval/eval.h"
#include "kf_test.h"
#include "problem/problem.h"
#include "backend/registry.h"
#include "sandbox/sandbox.h"

typedef struct fixture {
    kf_registry *reg;
    kf_plugin *plugin;
    kf_problem *p;
    kf_resolved r;
    kf_candidate *c;
    kf_eval_result res;
    double wall_s;
} fixture;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void setup(fixture *f, const char *candidate)
{
    memset(f, 0, sizeof *f);
    kf_error err = {0};
    f->reg = kf_registry_open(1, &err);
    KF_CHECK_MSG(f->reg != NULL, "registry: %s", err.msg);
    f->plugin = kf_registry_find(f->reg, "cpu-simd");
    KF_CHECK_MSG(f->plugin != NULL, "the cpu-simd plugin is not on KFORGE_PLUGIN_PATH (%s)",
                 getenv("KFORGE_PLUGIN_PATH") ? getenv("KFORGE_PLUGIN_PATH") : "unset");
    KF_CHECK_MSG(f->plugin->probe_status == KF_OK, "cpu-simd unavailable: %s",
                 f->plugin->probe_why ? f->plugin->probe_why : "?");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/adversarial/problems/scale_bias.json", kf_test_srcdir());
    f->p = kf_problem_load(path, &err);
    KF_CHECK_MSG(f->p != NULL, "%s", err.msg);
    KF_CHECK_MSG(kf_resolve(f->p, 0, &f->r, &err) == 0, "%s", err.msg);
    snprintf(path, sizeof path, "%s/tests/adversarial/cpu-simd/%s", kf_test_srcdir(), candidate);
    f->c = kf_candidate_load(path, &err);
    KF_CHECK_MSG(f->c != NULL, "%s", err.msg);
}

static void evaluate(fixture *f, const kf_eval_opts *o, int profile)
{
    kf_error err = {0};
    double t0 = now_s();
    int rc = kf_evaluate(f->plugin, &f->r, f->c, o, profile, &f->res, &err);
    f->wall_s = now_s() - t0;
    KF_CHECK_MSG(rc == 0, "kf_evaluate: %s", err.msg);
    fprintf(stderr, "# %s\n", f->res.summary ? f->res.summary : "(no summary)");
}

/* Evaluates `candidate` with default options. */
static void run(fixture *f, const char *candidate, int profile)
{
    setup(f, candidate);
    kf_eval_opts o;
    kf_eval_opts_default(&o);
    evaluate(f, &o, profile);
}

static void teardown(fixture *f)
{
    kf_eval_result_free(&f->res);
    if (f->c) kf_candidate_free(f->c);
    if (f->p) {
        kf_resolved_free(&f->r);
        kf_problem_free(f->p);
    }
    kf_registry_close(f->reg);
}

#define CHECK_VERDICT(f, v) \
    KF_CHECK_MSG((f)->res.verdict == (v), "verdict %s, expected %s: %s\n%s", kf_verdict_name((f)->res.verdict), \
                 kf_verdict_name(v), (f)->res.summary, (f)->res.diagnostics)

KF_TEST_TIMEOUT(correct_candidate_passes, 120)
{
    fixture f;
    run(&f, "correct.c", 0);
    CHECK_VERDICT(&f, KF_PASS);
    KF_CHECK_INT(f.res.trials_run, 5);
    KF_CHECK_INT(f.res.failed_trial, -1);
    KF_CHECK_INT(f.res.n_outputs, 1);
    KF_CHECK_INT(f.res.stats[0].n_elems, 256 * 4096);
    KF_CHECK_INT(f.res.stats[0].n_bad, 0);
    KF_CHECK(f.res.stats[0].max_abs_err < 1e-5);
    KF_CHECK(f.res.stats[0].rel_l2 < 1e-6);
    KF_CHECK_INT(f.res.n_mismatches, 0);
    KF_CHECK(!f.res.profiled);
    KF_CHECK_CONTAINS(f.res.summary, "pass: 5 trials");
    char *json = kf_eval_result_json(&f.res);
    KF_CHECK_CONTAINS(json, "\"verdict\": \"pass\"");
    free(json);
    teardown(&f);
}

KF_TEST_TIMEOUT(minimums_are_raised_not_lowered, 120)
{
    fixture f;
    setup(&f, "correct.c");
    kf_eval_opts o;
    kf_eval_opts_default(&o);
    o.trials = 1;
    o.reps = 2;
    o.warmup = 0;
    evaluate(&f, &o, 1);
    CHECK_VERDICT(&f, KF_PASS);
    KF_CHECK_INT(f.res.trials_run, 5);
    KF_CHECK_INT(f.res.timing.n, 20);
    teardown(&f);
}

KF_TEST_TIMEOUT(correct_candidate_profiles, 180)
{
    fixture f;
    setup(&f, "correct.c");
    kf_eval_opts o;
    kf_eval_opts_default(&o);
    o.reps = 25;
    evaluate(&f, &o, 1);
    CHECK_VERDICT(&f, KF_PASS);
    KF_CHECK(f.res.profiled);
    const kf_timing *t = &f.res.timing;
    KF_CHECK_INT(t->n, 25);
    KF_CHECK(t->samples_s != NULL);
    KF_CHECK(t->min_s > 0);
    KF_CHECK(t->min_s <= t->p10_s && t->p10_s <= t->median_s && t->median_s <= t->p90_s && t->p90_s <= t->max_s);
    /* 8.4 MB per set: 4 sets rotate (the cap), 64 MiB would need 8 */
    KF_CHECK_INT(t->n_sets, 4);
    KF_CHECK_INT(t->clock_is_device, 0);
    const kf_roofline *rf = &f.res.roofline;
    KF_CHECK_NEAR(rf->flops, 2.0 * 256 * 4096, 256 * 4096);
    KF_CHECK_NEAR(rf->min_bytes, 4.0 * (2 * 256 * 4096 + 4096), 1);
    KF_CHECK(rf->floor_s > 0 && rf->hard_floor_s > 0);
    KF_CHECK(t->median_s >= rf->hard_floor_s);
    KF_CHECK_NEAR(rf->fraction, rf->floor_s / t->median_s, 1e-12);
    KF_CHECK(rf->achieved_bytes_per_s > 0);
    KF_CHECK_CONTAINS(f.res.summary, "median");
    char *json = kf_eval_result_json(&f.res);
    KF_CHECK_CONTAINS(json, "\"samples_s\"");
    KF_CHECK_CONTAINS(json, "\"hard_floor_s\"");
    free(json);
    teardown(&f);
}

KF_TEST_TIMEOUT(wrong_values_mismatch, 120)
{
    fixture f;
    run(&f, "wrong_values.c", 0);
    CHECK_VERDICT(&f, KF_FAIL_MISMATCH);
    KF_CHECK_INT(f.res.failed_trial, 0);
    KF_CHECK_INT(f.res.trials_run, 1);
    KF_CHECK_INT(f.res.n_mismatches, KF_MAX_MISMATCHES);
    KF_CHECK_INT(f.res.mismatches[0].output, 0);
    /* got = 2x - b, expected = 2x + b: they differ by 2b */
    const kf_mismatch *m = &f.res.mismatches[0];
    KF_CHECK(m->index >= 0 && m->index < 4096);
    KF_CHECK(f.res.stats[0].n_bad > 256 * 4096 / 2);
    KF_CHECK_CONTAINS(f.res.summary, "mismatch: trial 0 of 5");
    KF_CHECK_CONTAINS(f.res.summary, "output y:");
    KF_CHECK_CONTAINS(f.res.diagnostics, "first mismatches:");
    char idx[32];
    snprintf(idx, sizeof idx, "y[0,%lld] (flat %lld)", (long long)m->index, (long long)m->index);
    KF_CHECK_CONTAINS(f.res.diagnostics, idx);
    teardown(&f);
}

KF_TEST_TIMEOUT(no_write_is_not_written, 120)
{
    fixture f;
    run(&f, "no_write.c", 0);
    CHECK_VERDICT(&f, KF_FAIL_NOT_WRITTEN);
    KF_CHECK_INT(f.res.failed_trial, 0);
    KF_CHECK_CONTAINS(f.res.summary, "output y: 1048576 of 1048576 elements were not written");
    KF_CHECK_CONTAINS(f.res.summary, "first at y[0,0]");
    teardown(&f);
}

KF_TEST_TIMEOUT(out_of_bounds_write_hits_the_guard, 120)
{
    fixture f;
    run(&f, "out_of_bounds.c", 0);
    CHECK_VERDICT(&f, KF_FAIL_OUT_OF_BOUNDS);
    KF_CHECK_INT(f.res.failed_trial, 0);
    KF_CHECK_CONTAINS(f.res.summary, "output y: wrote past the end of the buffer");
    KF_CHECK_CONTAINS(f.res.summary, "first changed byte 0 bytes past the end");
    teardown(&f);
}

KF_TEST_TIMEOUT(segfault_is_a_crash_with_stderr, 120)
{
    fixture f;
    run(&f, "segfault.c", 0);
    CHECK_VERDICT(&f, KF_FAIL_CRASH);
    KF_CHECK_INT(f.res.failed_trial, 0);
    KF_CHECK_CONTAINS(f.res.summary, "SIGSEGV: the candidate crashed (invalid memory access)");
    KF_CHECK_CONTAINS(f.res.diagnostics, "segfault candidate: writing to NULL");
    teardown(&f);
}

KF_TEST_TIMEOUT(endless_loop_times_out, 120)
{
    fixture f;
    setup(&f, "hang.c");
    kf_eval_opts o;
    kf_eval_opts_default(&o);
    o.run_timeout_s = 2;
    evaluate(&f, &o, 0);
    CHECK_VERDICT(&f, KF_FAIL_TIMEOUT);
    KF_CHECK_INT(f.res.failed_trial, 0);
    KF_CHECK_CONTAINS(f.res.summary, "the run of trial 0 exceeded its 2 s wall-clock limit");
    KF_CHECK_CONTAINS(f.res.summary, "--timeout");
    /* compile + one 2 s run, not the 10 s default */
    KF_CHECK_MSG(f.wall_s < 2 + f.res.compile_s + 3, "took %g s", f.wall_s);
    teardown(&f);
}

KF_TEST_TIMEOUT(input_modification_is_caught, 120)
{
    fixture f;
    run(&f, "input_modified.c", 0);
    CHECK_VERDICT(&f, KF_FAIL_INPUT_MODIFIED);
    KF_CHECK_INT(f.res.failed_trial, 0);
    KF_CHECK_CONTAINS(f.res.summary, "input x was modified by the candidate");
    KF_CHECK_CONTAINS(f.res.summary, "first x[0,0]");
    teardown(&f);
}

KF_TEST_TIMEOUT(replaying_the_first_result_fails_trial_1, 120)
{
    fixture f;
    run(&f, "first_trial_only.c", 0);
    CHECK_VERDICT(&f, KF_FAIL_MISMATCH);
    KF_CHECK_INT(f.res.failed_trial, 1);
    KF_CHECK_INT(f.res.trials_run, 2);
    KF_CHECK_CONTAINS(f.res.summary, "trial 1 of 5");
    teardown(&f);
}

KF_TEST_TIMEOUT(impossible_speed_passes_verify_but_fails_profile, 180)
{
    fixture f;
    run(&f, "impossible_speed.c", 0);
    CHECK_VERDICT(&f, KF_PASS);
    teardown(&f);
    run(&f, "impossible_speed.c", 1);
    CHECK_VERDICT(&f, KF_FAIL_STALE);
    KF_CHECK_INT(f.res.trials_run, 5);
    KF_CHECK(f.res.profiled);
    KF_CHECK_CONTAINS(f.res.summary, "outputs of timed runs are wrong: the candidate may cache results across calls");
    teardown(&f);
}

/* one element wrong in the timed runs only: stale, and the summary says a
 * precision at the edge of the tolerance fits as well as a cache; a whole
 * output replayed (impossible_speed.c) gets no such clause */
KF_TEST_TIMEOUT(one_element_off_in_timed_runs_names_precision_too, 180)
{
    fixture f;
    run(&f, "edge_precision.c", 1);
    CHECK_VERDICT(&f, KF_FAIL_STALE);
    KF_CHECK_INT(f.res.trials_run, 5);
    KF_CHECK_CONTAINS(f.res.summary, "1 of ");
    KF_CHECK_CONTAINS(f.res.summary, "so few wrong also fits a reduced precision at the edge of the tolerance");
    teardown(&f);
    run(&f, "impossible_speed.c", 1);
    KF_CHECK(strstr(f.res.summary, "so few wrong") == NULL);
    teardown(&f);
}

KF_TEST_TIMEOUT(a_pass_at_the_tolerance_edge_needs_more_trials, 180)
{
    fixture f;
    /* worst element at 0.8 of its allowance: fifteen more trials, the
       seventh fails before any timed run */
    run(&f, "thin_margin.c", 1);
    CHECK_VERDICT(&f, KF_FAIL_MISMATCH);
    KF_CHECK_INT(f.res.failed_trial, 6);
    KF_CHECK_INT(f.res.trials_run, 7);
    KF_CHECK(f.res.edge_tol_frac > 0.75 && f.res.edge_tol_frac < 0.85);
    KF_CHECK_CONTAINS(f.res.summary, "trial 6 of 20");
    KF_CHECK_CONTAINS(f.res.diagnostics, "the first 5 trials passed with the worst element at 0.8");
    teardown(&f);
    /* the same kernel one element off only after twenty calls: it passes its
       twenty trials, and the checked timed run that catches it is diagnosed
       with the margin the trials saw */
    setup(&f, "thin_margin.c");
    char *src = f.c->sources[0].text, *at = strstr(src, "++calls > 6)");
    KF_CHECK(at != NULL);
    char *late = malloc(strlen(src) + 2);
    KF_CHECK(late != NULL);
    sprintf(late, "%.*s++calls > 20)%s", (int)(at - src), src, at + strlen("++calls > 6)"));
    free(src);
    f.c->sources[0].text = late;
    f.c->sources[0].size = strlen(late);
    kf_eval_opts o;
    kf_eval_opts_default(&o);
    evaluate(&f, &o, 1);
    CHECK_VERDICT(&f, KF_FAIL_STALE);
    KF_CHECK_INT(f.res.trials_run, 20);
    KF_CHECK_CONTAINS(f.res.summary, "so few wrong also fits a reduced precision at the edge of the tolerance");
    KF_CHECK_CONTAINS(f.res.summary, "its trials passed with the worst element at 0.8 of its tolerance");
    teardown(&f);
    /* an exact candidate: five trials, no edge */
    run(&f, "correct.c", 0);
    CHECK_VERDICT(&f, KF_PASS);
    KF_CHECK_INT(f.res.trials_run, 5);
    KF_CHECK(f.res.edge_tol_frac == 0);
    KF_CHECK(f.res.stats[0].max_tol_frac < 0.01);
    teardown(&f);
}

KF_TEST_TIMEOUT(compile_error_returns_the_compiler_log, 120)
{
    fixture f;
    run(&f, "compile_error.c", 0);
    CHECK_VERDICT(&f, KF_FAIL_COMPILE);
    KF_CHECK_INT(f.res.trials_run, 0);
    KF_CHECK_CONTAINS(f.res.summary, "compile-error: the candidate did not compile");
    KF_CHECK_CONTAINS(f.res.diagnostics, "error");
    KF_CHECK_CONTAINS(f.res.diagnostics, "undeclared_thing");
    teardown(&f);
}

KF_TEST_TIMEOUT(candidate_for_another_backend_is_a_bind_error, 60)
{
    fixture f;
    setup(&f, "correct.c");
    free(f.c->backend);
    f.c->backend = strdup("opencl");
    kf_eval_opts o;
    kf_eval_opts_default(&o);
    evaluate(&f, &o, 0);
    CHECK_VERDICT(&f, KF_FAIL_BIND);
    KF_CHECK_CONTAINS(f.res.summary, "written for backend 'opencl'");
    teardown(&f);
}

/* ------------------------------------------------------------------ */
/* tolerance                                                            */

KF_TEST_TIMEOUT(skipping_the_gemm_fails_the_spread_test, 120)
{
    /* problem 45 at small: allclose and rel L2 let a GEMM-free answer pass */
    fixture f;
    memset(&f, 0, sizeof f);
    kf_error err = {0};
    f.reg = kf_registry_open(1, &err);
    KF_CHECK_MSG(f.reg != NULL, "registry: %s", err.msg);
    f.plugin = kf_registry_find(f.reg, "cpu-simd");
    KF_CHECK(f.plugin != NULL);
    char path[4096];
    snprintf(path, sizeof path, "%s/problems/level2/45_Gemm_Sigmoid_LogSumExp.json", kf_test_srcdir());
    f.p = kf_problem_load(path, &err);
    KF_CHECK_MSG(f.p != NULL, "%s", err.msg);
    KF_CHECK_MSG(kf_resolve(f.p, kf_problem_find_preset(f.p, "small"), &f.r, &err) == 0, "%s", err.msg);
    snprintf(path, sizeof path, "%s/tests/adversarial/cpu-simd/skip_gemm_45.c", kf_test_srcdir());
    f.c = kf_candidate_load(path, &err);
    KF_CHECK_MSG(f.c != NULL, "%s", err.msg);
    kf_eval_opts o;
    kf_eval_opts_default(&o);
    evaluate(&f, &o, 0);
    CHECK_VERDICT(&f, KF_FAIL_MISMATCH);
    KF_CHECK_CONTAINS(f.res.summary, "of the reference's spread around its mean (bound 0.1)");
    KF_CHECK_CONTAINS(f.res.summary, "although every element is within atol/rtol");
    teardown(&f);
}

/* ------------------------------------------------------------------ */
/* isolation: each escape candidate reports every attempt on stderr and
 * aborts, so the diagnostics carry its findings                        */

#define CHECK_NO_ESCAPE(f) \
    KF_CHECK_MSG(!strstr((f)->res.diagnostics, "ESCAPED"), "an escape succeeded:\n%s", (f)->res.diagnostics)

static void check_all_layers(const fixture *f)
{
    KF_CHECK_MSG(f->res.sandbox_layers == KF_SB_ALL, "layers 0x%x: %s", f->res.sandbox_layers,
                 f->res.sandbox_why ? f->res.sandbox_why : "");
}

KF_TEST_TIMEOUT(escape_env_sees_no_secrets, 120)
{
    fixture f;
    run(&f, "escape_env.c", 0);
    CHECK_VERDICT(&f, KF_FAIL_CRASH);
    KF_CHECK_CONTAINS(f.res.summary, "SIGABRT");
    KF_CHECK_CONTAINS(f.res.diagnostics, "adversary env OPENAI_API_KEY: absent");
    KF_CHECK_CONTAINS(f.res.diagnostics, "adversary env KFORGE_TEST_SECRET_TOKEN: absent");
    KF_CHECK_CONTAINS(f.res.diagnostics, "adversary env KF_ADV_CANARY: absent");
    KF_CHECK_MSG(!strstr(f.res.diagnostics, "sk-kforge-canary"), "a key reached the worker:\n%s", f.res.diagnostics);
    /* HOME and TMPDIR are its private work directory */
    KF_CHECK_CONTAINS(f.res.diagnostics, "adversary environ: HOME=");
    KF_CHECK_CONTAINS(f.res.diagnostics, "/build\n");
    check_all_layers(&f);
    teardown(&f);
}

KF_TEST_TIMEOUT(escape_files_writes_only_its_work_dir, 120)
{
    fixture f;
    setup(&f, "escape_files.c");
    /* the run directory of this test: the parent's, never the worker's */
    char dir[4096], *text = NULL;
    snprintf(dir, sizeof dir, "%s/tests/adversarial", kf_test_builddir());
    KF_CHECK(asprintf(&text, "#define KF_ADV_RUN_DIR \"%s\"\n%s", dir, f.c->sources[0].text) > 0);
    free(f.c->sources[0].text);
    f.c->sources[0].text = text;
    kf_eval_opts o;
    kf_eval_opts_default(&o);
    evaluate(&f, &o, 0);
    CHECK_VERDICT(&f, KF_FAIL_CRASH);
    KF_CHECK_CONTAINS(f.res.diagnostics, "adversary write-own-work-dir: allowed");
    KF_CHECK_CONTAINS(f.res.diagnostics, "adversary write-tmp: blocked (Permission denied)");
    KF_CHECK_CONTAINS(f.res.diagnostics, "adversary write-etc: blocked (Permission denied)");
    KF_CHECK_CONTAINS(f.res.diagnostics, "adversary read-shadow: blocked (Permission denied)");
    KF_CHECK_CONTAINS(f.res.diagnostics, "adversary read-root-home: blocked (Permission denied)");
    KF_CHECK_CONTAINS(f.res.diagnostics, "adversary read-run-dir: blocked (Permission denied)");
    KF_CHECK_CONTAINS(f.res.diagnostics, "adversary write-run-dir: blocked (Permission denied)");
    KF_CHECK(access("/tmp/kforge-adversary-escape", F_OK) != 0);
    char forged[4200];
    snprintf(forged, sizeof forged, "%s/forged-result.json", dir);
    KF_CHECK(access(forged, F_OK) != 0);
    teardown(&f);
}

KF_TEST_TIMEOUT(escape_network_has_no_sockets, 120)
{
    /* a real listener on loopback: only the sandbox stands between */
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t sl = sizeof sa;
    KF_CHECK(ls >= 0 && bind(ls, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(ls, 4) == 0 &&
             getsockname(ls, (struct sockaddr *)&sa, &sl) == 0);
    fixture f;
    setup(&f, "escape_network.c");
    char opt[64];
    snprintf(opt, sizeof opt, "-DKF_ADV_PORT=%d", ntohs(sa.sin_port));
    free(f.c->build_options);
    f.c->build_options = strdup(opt);
    kf_eval_opts o;
    kf_eval_opts_default(&o);
    evaluate(&f, &o, 0);
    CHECK_VERDICT(&f, KF_FAIL_CRASH);
    CHECK_NO_ESCAPE(&f);
    KF_CHECK_CONTAINS(f.res.diagnostics, "adversary tcp-socket: blocked (Address family not supported by protocol)");
    KF_CHECK_CONTAINS(f.res.diagnostics, "adversary udp6-socket: Address family not supported by protocol");
    close(ls);
    teardown(&f);
}

KF_TEST_TIMEOUT(escape_exec_runs_no_program_and_forks_nothing, 120)
{
    fixture f;
    run(&f, "escape_exec.c", 0);
    CHECK_VERDICT(&f, KF_FAIL_CRASH);
    CHECK_NO_ESCAPE(&f);
    KF_CHECK_CONTAINS(f.res.diagnostics, "adversary fork: blocked (Operation not permitted)");
    KF_CHECK_CONTAINS(f.res.diagnostics, "adversary exec: blocked (Operation not permitted)");
    KF_CHECK_CONTAINS(f.res.diagnostics, "adversary system: status 32512");   /* exit 127: no shell */
    teardown(&f);
}

KF_TEST_TIMEOUT(escape_parent_cannot_read_trace_or_kill_it, 120)
{
    fixture f;
    setup(&f, "escape_parent.c");
    char *text = NULL;
    KF_CHECK(asprintf(&text, "#define KF_ADV_PARENT_PID %d\n%s", (int)getpid(), f.c->sources[0].text) > 0);
    free(f.c->sources[0].text);
    f.c->sources[0].text = text;
    kf_eval_opts o;
    kf_eval_opts_default(&o);
    evaluate(&f, &o, 0);
    CHECK_VERDICT(&f, KF_FAIL_CRASH);
    CHECK_NO_ESCAPE(&f);
    KF_CHECK_CONTAINS(f.res.diagnostics, "adversary getppid: 0");   /* its own PID namespace */
    KF_CHECK_CONTAINS(f.res.diagnostics, "adversary kill-ppid: blocked (Operation not permitted)");
    /* it tried this test process at least (named in its source) */
    KF_CHECK_MSG(!strstr(f.res.diagnostics, "adversary targets found: 0"), "%s", f.res.diagnostics);
    KF_CHECK_CONTAINS(f.res.diagnostics, "adversary proc-mem: blocked");
    KF_CHECK_CONTAINS(f.res.diagnostics, "adversary proc-environ: blocked");
    KF_CHECK_CONTAINS(f.res.diagnostics, "adversary proc-fd-links: blocked");
    KF_CHECK_CONTAINS(f.res.diagnostics, "adversary proc-cwd: blocked");
    KF_CHECK_CONTAINS(f.res.diagnostics, "adversary ptrace: blocked");
    KF_CHECK_CONTAINS(f.res.diagnostics, "adversary kill: blocked");
    teardown(&f);
}

KF_TEST_TIMEOUT(sandbox_off_and_strict, 180)
{
    fixture f;
    setup(&f, "correct.c");
    kf_eval_opts o;
    kf_eval_opts_default(&o);
    o.sandbox = KF_SANDBOX_STRICT;
    evaluate(&f, &o, 0);
    CHECK_VERDICT(&f, KF_PASS);   /* every layer holds on this machine */
    check_all_layers(&f);
    char *json = kf_eval_result_json(&f.res);
    KF_CHECK_CONTAINS(json, "\"mode\": \"strict\"");
    KF_CHECK_CONTAINS(json, "\"layers\": \"rlimits env caps pidns netns landlock seccomp noexec\"");
    free(json);
    kf_eval_result_free(&f.res);
    o.sandbox = KF_SANDBOX_OFF;
    evaluate(&f, &o, 0);
    CHECK_VERDICT(&f, KF_PASS);
    KF_CHECK_INT((int)f.res.sandbox_layers, (int)KF_SB_RLIMITS);
    teardown(&f);
}

/* ------------------------------------------------------------------ */
/* resources                                                            */

KF_TEST_TIMEOUT(memory_over_the_limit_is_refused, 120)
{
    fixture f;
    setup(&f, "memory_hog.c");
    kf_eval_opts o;
    kf_eval_opts_default(&o);
    o.mem_limit_bytes = (uint64_t)1 << 30;
    evaluate(&f, &o, 0);
    CHECK_VERDICT(&f, KF_FAIL_CRASH);
    CHECK_NO_ESCAPE(&f);
    KF_CHECK_CONTAINS(f.res.diagnostics, "adversary memory: allocation of 2048 MiB refused");
    teardown(&f);
}

KF_TEST_TIMEOUT(compiler_memory_is_limited, 300)
{
    fixture f;
    setup(&f, "compile_bomb.c");
    kf_eval_opts o;
    kf_eval_opts_default(&o);
    o.mem_limit_bytes = (uint64_t)512 << 20;
    evaluate(&f, &o, 0);
    CHECK_VERDICT(&f, KF_FAIL_COMPILE);
    KF_CHECK_CONTAINS(f.res.diagnostics, "out of memory");
    teardown(&f);
}

KF_TEST_TIMEOUT(buffers_over_the_memory_limit_are_a_bind_error, 60)
{
    fixture f;
    setup(&f, "correct.c");
    kf_eval_opts o;
    kf_eval_opts_default(&o);
    o.mem_limit_bytes = 1 << 20;   /* the problem needs 4.2 MB */
    evaluate(&f, &o, 0);
    CHECK_VERDICT(&f, KF_FAIL_BIND);
    KF_CHECK_CONTAINS(f.res.summary, "over the worker's");
    KF_CHECK_CONTAINS(f.res.summary, "--mem-limit");
    teardown(&f);
}

KF_TEST_TIMEOUT(dangerous_build_options_are_refused, 60)
{
    const char *bad[] = {"-wrapper /bin/sh,-c,id", "@/etc/passwd", "-fplugin=/tmp/x.so", "-B/tmp",
                         "-Wl,--script=/etc/passwd", "-include /etc/shadow", "-I/root", "-specs=/tmp/s"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fixture f;
        setup(&f, "correct.c");
        free(f.c->build_options);
        f.c->build_options = strdup(bad[i]);
        kf_eval_opts o;
        kf_eval_opts_default(&o);
        evaluate(&f, &o, 0);
        CHECK_VERDICT(&f, KF_FAIL_BIND);
        KF_CHECK_CONTAINS(f.res.summary, "is not allowed");
        teardown(&f);
    }
}

/* ------------------------------------------------------------------ */
/* timing                                                               */

/* Median of correct.c, profiled in the same process, for the cheats that
 * must end up doing honest work. */
static double honest_median(void)
{
    fixture f;
    run(&f, "correct.c", 1);
    CHECK_VERDICT(&f, KF_PASS);
    double m = f.res.timing.median_s;
    teardown(&f);
    return m;
}

KF_TEST_TIMEOUT(memo_keyed_on_inputs_always_misses, 240)
{
    double honest = honest_median();
    fixture f;
    run(&f, "memo.c", 1);
    CHECK_VERDICT(&f, KF_PASS);
    /* fresh inputs every run: it recomputes every time (a hit would return
     * in microseconds, 100x under the honest time) */
    KF_CHECK_MSG(f.res.timing.median_s > honest / 5, "memo %g s vs honest %g s", f.res.timing.median_s, honest);
    KF_CHECK(f.res.timing.median_s >= f.res.roofline.hard_floor_s);
    KF_CHECK_INT(f.res.timing.n_checked, f.res.timing.n / 2 + 1);
    teardown(&f);
}

/* Verification passes (poisoned outputs every trial); the timed runs start
 * from the lead-in's results for the previous inputs, which it leaves. */
KF_TEST_TIMEOUT(skipping_unpoisoned_outputs_is_stale, 180)
{
    fixture f;
    run(&f, "skip_unpoisoned.c", 1);
    CHECK_VERDICT(&f, KF_FAIL_STALE);
    KF_CHECK_CONTAINS(f.res.summary, "timed run");
    KF_CHECK_CONTAINS(f.res.summary, "elements wrong");
    teardown(&f);
}

KF_TEST_TIMEOUT(memo_keyed_on_addresses_is_stale, 180)
{
    fixture f;
    run(&f, "memo_by_address.c", 1);
    CHECK_VERDICT(&f, KF_FAIL_STALE);
    KF_CHECK_CONTAINS(f.res.summary, "timed run");
    /* set 0 (verification's) never computed in the round: the poison; any
       other holds its lead-in's results for the previous inputs */
    KF_CHECK_MSG(strstr(f.res.summary, "were not written") || strstr(f.res.summary, "elements wrong"),
                 "the stale diagnosis names neither unwritten nor wrong elements: %s", f.res.summary);
    teardown(&f);
}

/* The skipped rows (7 of 8: 917504 elements) hold the round's poison or,
 * where a lead-in before the cheating wrote them, its results for other
 * inputs: unwritten or wrong (less the few elements equal by chance). */
KF_TEST_TIMEOUT(partial_work_when_timed_is_stale, 180)
{
    fixture f;
    run(&f, "partial_rows.c", 1);
    CHECK_VERDICT(&f, KF_FAIL_STALE);
    const char *at = strstr(f.res.summary, "output y: ");
    long n = 0, of = 0;
    char what[16] = "";
    KF_CHECK_MSG(at && sscanf(at, "output y: %ld of %ld elements %15s", &n, &of, what) == 3, "%s", f.res.summary);
    KF_CHECK_MSG(of == 1048576 && n <= 917504 && n > 917504 * 9 / 10 &&
                     (!strcmp(what, "were") || !strcmp(what, "wrong;")),
                 "%s", f.res.summary);
    teardown(&f);
}

/* The deferred work starts only when the next call comes in: a checked run's
 * outputs are unwritten (poisoned) or hold a thread's result from an
 * earlier call's inputs (a lead-in's, landing during the timed run): which
 * depends on the scheduler, and either is stale.  Were the check to come
 * late, the tiny reported time would be under the roofline floor. */
KF_TEST_TIMEOUT(work_after_returning_is_stale, 180)
{
    fixture f;
    run(&f, "work_after_return.c", 1);
    KF_CHECK_MSG(f.res.verdict == KF_FAIL_STALE || f.res.verdict == KF_FAIL_TOO_FAST, "verdict %s: %s\n%s",
                 kf_verdict_name(f.res.verdict), f.res.summary, f.res.diagnostics);
    if (f.res.verdict == KF_FAIL_STALE) {
        KF_CHECK_CONTAINS(f.res.summary, "timed run");
        KF_CHECK_MSG(strstr(f.res.summary, "were not written") || strstr(f.res.summary, "elements wrong"),
                     "the stale diagnosis names neither unwritten nor wrong elements: %s", f.res.summary);
    }
    teardown(&f);
}

/* The plugin's clock rewired from inside the worker (its GOT slot): every
 * sample about zero, the work inside the parent's round trips. */
KF_TEST_TIMEOUT(clock_forged_in_process_is_timing_inconsistent, 180)
{
    fixture f;
    run(&f, "forged_clock.c", 1);
    CHECK_VERDICT(&f, KF_FAIL_TIMING);
    KF_CHECK_CONTAINS(f.res.summary, "samples forged small?");
    KF_CHECK_CONTAINS(f.res.summary, "in each of 3 rounds");
    KF_CHECK_INT(f.res.timing.rounds, 3);
    KF_CHECK_CONTAINS(f.res.diagnostics, "round 2 of at most 3: every sample of the faster half");
    teardown(&f);
}

/* The same forger, forging only the calls of the parent's first round of
 * timed runs (-DFORGE_FIRST_ROUND_ONLY=N: the warm-up command's warmup + 1
 * calls, a lead-in and a timed call for each of reps runs): the first round
 * fails the check, the second is honest and passes, and the reported
 * samples are the second round's (the work inside them: the median sample
 * near the parent's). */
KF_TEST_TIMEOUT(clock_forged_once_reports_the_honest_round, 180)
{
    fixture f;
    setup(&f, "forged_clock.c");
    kf_eval_opts o;
    kf_eval_opts_default(&o);
    char opts[64];
    snprintf(opts, sizeof opts, "-DFORGE_FIRST_ROUND_ONLY=%d", o.warmup + 1 + 2 * o.reps);
    free(f.c->build_options);
    f.c->build_options = strdup(opts);
    evaluate(&f, &o, 1);
    CHECK_VERDICT(&f, KF_PASS);
    /* 2; 3 only where a loaded machine also failed the honest second round */
    KF_CHECK_MSG(f.res.timing.rounds >= 2, "%d rounds: the forged first round passed", f.res.timing.rounds);
    KF_CHECK_CONTAINS(f.res.diagnostics, "round 1 of at most 3: every sample of the faster half");
    KF_CHECK_MSG(f.res.timing.median_s > 0.5 * f.res.timing.parent_median_s,
                 "median sample %.4g us, the parent's round trips less the channel %.4g us",
                 f.res.timing.median_s * 1e6, f.res.timing.parent_median_s * 1e6);
    teardown(&f);
}

KF_TEST_TIMEOUT(forged_reply_is_timing_inconsistent, 180)
{
    fixture f;
    run(&f, "forged_reply.c", 1);
    CHECK_VERDICT(&f, KF_FAIL_TIMING);
    KF_CHECK_CONTAINS(f.res.summary, "timing reply inconsistent");
    KF_CHECK_CONTAINS(f.res.summary, "forged on the control channel");
    teardown(&f);
}

int main(int argc, char **argv)
{
    /* Secrets in the environment the worker must never see: set before
     * the process starts (workers get the start-up environment). */
    if (!getenv("KF_ADV_CANARY")) {
        setenv("KF_ADV_CANARY", "canary", 1);
        setenv("OPENAI_API_KEY", "sk-kforge-canary-1", 1);
        setenv("KFORGE_TEST_SECRET_TOKEN", "sk-kforge-canary-2", 1);
        execv("/proc/self/exe", argv);
        perror("re-exec with the canary environment");
        return 1;
    }
    (void)argc;
    return kf_test_main();
}
