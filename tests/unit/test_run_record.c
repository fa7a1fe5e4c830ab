/* What --resume reads back must be what was written: evaluation results
 * (core/run/run_record.c), the built-in agent's search history
 * (core/agent/builtin/builtin_search.c) and analyses (core/agent/agent.c), exactly, so that a
 * resumed run decides as the uninterrupted one; and records are owner-only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "agent/agent.h"
#include "agent/builtin/builtin.h"
#include "candidate/candidate.h"
#include "kf_test.h"
#include "problem/problem.h"
#include "run/run_record.h"

static int same(double a, double b) { return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0; }

#define CHECK_SAME(a, b) KF_CHECK_MSG(same((a), (b)), "%s: %.17g != %.17g", #a, (double)(a), (double)(b))

static void full_result(kf_eval_result *e)
{
    memset(e, 0, sizeof *e);
    e->verdict = KF_PASS;
    e->failed_trial = -1;
    e->summary = strdup("pass: 5 trials");
    e->diagnostics = strdup("all good\n  output y: ...");
    e->n_outputs = 2;
    e->stats = calloc(2, sizeof *e->stats);
    e->stats[0] = (kf_output_stats){.max_abs_err = 1.0 / 3, .max_rel_err = NAN, .rel_l2 = 1e-7, .n_bad = 0,
                                    .n_nan = 0, .n_elems = 6283};
    e->stats[1] = (kf_output_stats){.max_abs_err = 2e-6, .max_rel_err = 0.1, .rel_l2 = 3e-8, .n_elems = 7};
    e->n_mismatches = 1;
    e->mismatches[0] = (kf_mismatch){.output = 1, .index = 42, .expected = 0.437082, .got = NAN};
    e->trials_run = 5;
    e->profiled = 1;
    e->timing.n = 3;
    e->timing.samples_s = calloc(3, sizeof(double));
    e->timing.samples_s[0] = 1.2345678901234567e-4;
    e->timing.samples_s[1] = 1.1e-4;
    e->timing.samples_s[2] = 0.1 + 0.2;
    e->timing.median_s = 1.2345678901234567e-4;
    e->timing.min_s = 1.1e-4;
    e->timing.max_s = 0.3;
    e->timing.mean_s = 0.1;
    e->timing.p10_s = 1.15e-4;
    e->timing.p90_s = 0.2;
    e->timing.clock_is_device = 1;
    e->timing.n_sets = 4;
    e->timing.n_counters = 2;
    snprintf(e->timing.counters[0].name, sizeof e->timing.counters[0].name, "launch[0].gemm.ms");
    e->timing.counters[0].value = 0.0123;
    snprintf(e->timing.counters[1].name, sizeof e->timing.counters[1].name, "local_mem_bytes");
    e->timing.counters[1].value = 16384;
    e->timing.report = strdup("threads: 2");
    e->roofline = (kf_roofline){.flops = 21166500, .min_bytes = 631168, .peak_flops = 5.219e11,
                                .peak_bytes_per_s = 2.93e10, .cache_bytes_per_s = 1.2e11, .floor_s = 4.068e-5,
                                .hard_floor_s = 1.1e-5, .fraction = 0.3295, .achieved_flops = 1.706e11,
                                .achieved_bytes_per_s = 5.1e9, .cache_resident = 1, .flop_term = 1,
                                .unit_peak_flops = {5.219e11, 1.04e12, 0, 0, 2.6e12}};
    e->compile_s = 0.5;
    e->verify_s = 0.25;
    e->profile_s = 0.125;
}

KF_TEST(eval_result_comes_back_whole)
{
    char *dir = kf_test_tmpdir();
    kf_eval_result e, r;
    full_result(&e);
    kf_error err = {0};
    KF_CHECK_MSG(kf_run_save_eval(dir, &e, &err) == 0, "%s", err.msg);
    KF_CHECK_MSG(kf_run_load_eval(dir, &r, &err) == 0, "%s", err.msg);
    KF_CHECK_INT(r.verdict, e.verdict);
    KF_CHECK_INT(r.failed_trial, -1);
    KF_CHECK_STR(r.summary, e.summary);
    KF_CHECK_STR(r.diagnostics, e.diagnostics);
    KF_CHECK_INT(r.n_outputs, 2);
    CHECK_SAME(r.stats[0].max_abs_err, e.stats[0].max_abs_err);
    CHECK_SAME(r.stats[0].max_rel_err, e.stats[0].max_rel_err);
    KF_CHECK_INT(r.stats[0].n_elems, 6283);
    CHECK_SAME(r.stats[1].rel_l2, e.stats[1].rel_l2);
    KF_CHECK_INT(r.n_mismatches, 1);
    KF_CHECK_INT(r.mismatches[0].index, 42);
    CHECK_SAME(r.mismatches[0].got, e.mismatches[0].got);
    KF_CHECK_INT(r.trials_run, 5);
    KF_CHECK_INT(r.profiled, 1);
    KF_CHECK_INT(r.timing.n, 3);
    for (int i = 0; i < 3; i++) CHECK_SAME(r.timing.samples_s[i], e.timing.samples_s[i]);
    CHECK_SAME(r.timing.median_s, e.timing.median_s);
    CHECK_SAME(r.timing.min_s, e.timing.min_s);
    CHECK_SAME(r.timing.max_s, e.timing.max_s);
    CHECK_SAME(r.timing.mean_s, e.timing.mean_s);
    CHECK_SAME(r.timing.p10_s, e.timing.p10_s);
    CHECK_SAME(r.timing.p90_s, e.timing.p90_s);
    KF_CHECK_INT(r.timing.clock_is_device, 1);
    KF_CHECK_INT(r.timing.n_sets, 4);
    KF_CHECK_INT(r.timing.n_counters, 2);
    KF_CHECK_STR(r.timing.counters[1].name, "local_mem_bytes");
    CHECK_SAME(r.timing.counters[0].value, e.timing.counters[0].value);
    KF_CHECK_STR(r.timing.report, "threads: 2");
    CHECK_SAME(r.roofline.flops, e.roofline.flops);
    CHECK_SAME(r.roofline.min_bytes, e.roofline.min_bytes);
    CHECK_SAME(r.roofline.peak_flops, e.roofline.peak_flops);
    CHECK_SAME(r.roofline.peak_bytes_per_s, e.roofline.peak_bytes_per_s);
    CHECK_SAME(r.roofline.cache_bytes_per_s, e.roofline.cache_bytes_per_s);
    CHECK_SAME(r.roofline.floor_s, e.roofline.floor_s);
    CHECK_SAME(r.roofline.hard_floor_s, e.roofline.hard_floor_s);
    CHECK_SAME(r.roofline.fraction, e.roofline.fraction);
    CHECK_SAME(r.roofline.achieved_flops, e.roofline.achieved_flops);
    CHECK_SAME(r.roofline.achieved_bytes_per_s, e.roofline.achieved_bytes_per_s);
    KF_CHECK_INT(r.roofline.cache_resident, 1);
    KF_CHECK_INT(r.roofline.flop_term, 1);
    for (int u = 0; u < KF_ROOFLINE_UNITS; u++)   /* the analyzer rates a precision change by these */
        CHECK_SAME(r.roofline.unit_peak_flops[u], e.roofline.unit_peak_flops[u]);
    CHECK_SAME(r.compile_s, 0.5);
    CHECK_SAME(r.profile_s, 0.125);
    kf_eval_result_free(&r);
    kf_eval_result_free(&e);
}

KF_TEST(records_without_eval_json_fall_back_to_verdict_json)
{
    char *dir = kf_test_tmpdir(), path[4200];
    snprintf(path, sizeof path, "%s/verdict.json", dir);
    kf_test_write_file(path, "{\"verdict\":\"mismatch\",\"summary\":\"wrong\",\"trials\":5,\"profiled\":false}");
    kf_eval_result r;
    kf_error err = {0};
    KF_CHECK_MSG(kf_run_load_eval(dir, &r, &err) == 0, "%s", err.msg);
    KF_CHECK_INT(r.verdict, KF_FAIL_MISMATCH);
    KF_CHECK_STR(r.summary, "wrong");
    KF_CHECK_INT(r.trials_run, 5);
    kf_eval_result_free(&r);
    snprintf(path, sizeof path, "%s/eval.json", dir);
    kf_test_write_file(path, "{\"verdict\":\"no-such-verdict\"}");
    KF_CHECK(kf_run_load_eval(dir, &r, &err) != 0);
    KF_CHECK_CONTAINS(err.msg, "unknown verdict");
}

static int mode_of(const char *dir, const char *name)
{
    char path[4200];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &sb) == 0 ? (int)(sb.st_mode & 0777) : -1;
}

KF_TEST(records_are_owner_only)
{
    char *dir = kf_test_tmpdir();
    kf_eval_result e;
    full_result(&e);
    kf_error err = {0};
    KF_CHECK(kf_run_save_eval(dir, &e, &err) == 0);
    KF_CHECK_INT(mode_of(dir, "eval.json"), 0600);
    KF_CHECK_INT(mode_of(dir, "verdict.json"), 0600);
    kf_eval_result_free(&e);
    kf_candidate *c = kf_candidate_parse_manifest(
        "{\"backend\":\"cpu-simd\",\"entry\":\"kf_kernel\",\"sources\":[{\"name\":\"k.c\",\"text\":\"int x;\"}]}",
        NULL, "t", &err);
    KF_CHECK_MSG(c != NULL, "%s", err.msg);
    char cdir[4200];
    snprintf(cdir, sizeof cdir, "%s/steps/0001-0/candidate", dir);
    KF_CHECK_MSG(kf_candidate_save_private(c, cdir, &err) == 0, "%s", err.msg);
    KF_CHECK_INT(mode_of(dir, "steps/0001-0/candidate"), 0700);
    KF_CHECK_INT(mode_of(dir, "steps/0001-0/candidate/k.c"), 0600);
    KF_CHECK_INT(mode_of(dir, "steps/0001-0/candidate/candidate.json"), 0600);
    kf_candidate_free(c);
}

typedef struct loaded {
    kf_problem *p;
    kf_resolved r;
} loaded;

static void load(loaded *l, const char *rel, const char *preset)
{
    char path[4096];
    kf_error err = {0};
    snprintf(path, sizeof path, "%s/%s", kf_test_srcdir(), rel);
    l->p = kf_problem_load(path, &err);
    KF_CHECK_MSG(l->p != NULL, "%s", err.msg);
    int pi = kf_problem_find_preset(l->p, preset);
    KF_CHECK_MSG(kf_resolve(l->p, pi, &l->r, &err) == 0, "%s", err.msg);
}

static void fake_eval(const kf_resolved *r, double t, kf_eval_result *e)
{
    memset(e, 0, sizeof *e);
    e->verdict = KF_PASS;
    e->profiled = 1;
    e->timing.median_s = t;
    e->roofline.flops = r->flops;
    e->roofline.min_bytes = r->min_bytes;
    e->roofline.peak_flops = 4e11;
    e->roofline.peak_bytes_per_s = 2e10;
    e->roofline.floor_s = r->flops / 4e11;
    e->roofline.fraction = e->roofline.floor_s / t;
    e->roofline.achieved_flops = r->flops / t;
}

/* A history restored from its JSON gives the analysis the original gives. */
KF_TEST(search_history_round_trips_and_decides_the_same)
{
    loaded l;
    load(&l, "problems/level2/09_Matmul_Subtract_Multiply_ReLU.json", "cpu");
    kf_bt_history h = {0}, h2;
    kf_bt_point cur, tried;
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, NULL, &cur);
    kf_eval_result e;
    fake_eval(&l.r, l.r.flops / 4e11 / 0.3, &e);
    kf_analysis a1, a2, b1, b2;
    kf_error err = {0};
    KF_CHECK(kf_bt_analyze(&h, &l.r, &cur, &e, 0, 0.8, &a1, &err) == 0);
    KF_CHECK(a1.n_recs > 0);
    kf_bt_point_from_json(a1.recs[0].params, &kf_bt_emit_c, "cpu-simd", &l.r, NULL, &tried, &err);
    kf_bt_history_add(&h, &tried, e.timing.median_s / 3);       /* generated and timed */
    char *js = kf_bt_history_json(&h);
    KF_CHECK_MSG(kf_bt_history_from_json(js, &kf_bt_emit_c, "cpu-simd", &l.r, NULL, &h2, &err) == 0, "%s", err.msg);
    KF_CHECK_INT(h2.n, h.n);
    for (int i = 0; i < h.n; i++) {
        KF_CHECK(kf_bt_point_equal(&h2.v[i].pt, &h.v[i].pt));
        CHECK_SAME(h2.v[i].time_s, h.v[i].time_s);
    }
    KF_CHECK_INT(h2.have_last_rec, 1);
    KF_CHECK(kf_bt_point_equal(&h2.last_rec, &h.last_rec));
    CHECK_SAME(h2.last_rec_gain, h.last_rec_gain);
    char *js2 = kf_bt_history_json(&h2);
    KF_CHECK_STR(js2, js);
    /* the next analysis, from the original and from the restored history */
    KF_CHECK(kf_bt_analyze(&h, &l.r, &cur, &e, e.timing.median_s, 0.8, &b1, &err) == 0);
    KF_CHECK(kf_bt_analyze(&h2, &l.r, &cur, &e, e.timing.median_s, 0.8, &b2, &err) == 0);
    char *t1 = kf_analysis_json(&b1), *t2 = kf_analysis_json(&b2);
    KF_CHECK_STR(t2, t1);
    /* and an analysis comes back from its JSON as it was */
    KF_CHECK_MSG(kf_analysis_parse(t1, &a2, &err) == 0, "%s", err.msg);
    char *t3 = kf_analysis_json(&a2);
    KF_CHECK_STR(t3, t1);
    KF_CHECK(kf_bt_history_from_json("{\"tried\":[{\"point\":{\"mq\":1}}]}", &kf_bt_emit_c, "cpu-simd", &l.r, NULL, &h2, &err) != 0);
    KF_CHECK_CONTAINS(err.msg, "tried[0]");
    free(t1); free(t2); free(t3); free(js); free(js2);
    kf_analysis_free(&a1); kf_analysis_free(&a2); kf_analysis_free(&b1); kf_analysis_free(&b2);
    kf_bt_history_free(&h);
    kf_bt_history_free(&h2);
    kf_resolved_free(&l.r);
    kf_problem_free(l.p);
}

int main(void)
{
    return kf_test_main();
}
