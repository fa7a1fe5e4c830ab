/* Suite reports from hand-written run directories: fast_p and geometric
 * means computed by hand, the journal trace, the three writers; and the
 * collection of a suite's problem files. */
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kf_test.h"
#include "run/timing_warning.h"
#include "suite/report.h"
#include "suite/suite.h"

/* A run directory DIR/runs/NAME with result.json (unless NULL) and
 * journal.jsonl (unless NULL). */
static char *make_run(const char *root, const char *name, const char *result, const char *journal)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/runs", root);
    mkdir(path, 0777);
    char *dir = NULL;
    if (asprintf(&dir, "%s/runs/%s", root, name) < 0) return NULL;
    mkdir(dir, 0777);
    if (result) {
        snprintf(path, sizeof path, "%s/result.json", dir);
        kf_test_write_file(path, result);
    }
    if (journal) {
        snprintf(path, sizeof path, "%s/journal.jsonl", dir);
        kf_test_write_file(path, journal);
    }
    return dir;
}

static char *result_json(const char *name, double best_s, double baseline_s, double speedup, double fraction,
                         int verified)
{
    char best[512] = "null", bl[128] = "";
    if (baseline_s > 0) snprintf(bl, sizeof bl, ", \"median_s\": %.9g", baseline_s);
    if (best_s > 0) {
        char sp[64] = "";
        if (speedup > 0) snprintf(sp, sizeof sp, "\"speedup_vs_baseline\": %.9g, ", speedup);
        snprintf(best, sizeof best,
                 "{\"dir\": \"steps/0002-0/candidate\", \"verified\": %s, \"verdict\": \"pass\", \"trials\": 5, "
                 "\"median_s\": %.9g, \"min_s\": %.9g, %s\"roofline_fraction\": %.9g, \"roofline_floor_s\": 1e-4}",
                 verified ? "true" : "false", best_s, best_s, sp, fraction);
    }
    char *s = NULL;
    if (asprintf(&s,
                 "{\"problem\": \"%s\", \"preset\": \"small\", \"backend\": \"cpu-simd\", "
                 "\"device\": \"pthread-avx2\", \"agent\": \"builtin\", \"steps\": 3, "
                 "\"stop_reason\": \"%s\", \"tokens_in\": 100, \"tokens_out\": 50, \"cost_usd\": 0.01, "
                 "\"wall_s\": 2.5, \"baseline\": {\"how\": \"op-by-op, OpenBLAS sgemm\", \"dir\": \"baseline\"%s}, "
                 "\"best\": %s}",
                 name, best_s > 0 && verified ? "iteration budget spent" : "no correct <kernel> & done", bl, best) < 0)
        return NULL;
    return s;
}

static const char *JOURNAL =
    "{\"ev\":\"start\",\"t\":1}\n"
    "{\"ev\":\"baseline\",\"t\":2,\"how\":\"op-by-op\",\"median_s\":0.002}\n"
    "{\"ev\":\"gen\",\"t\":3,\"step\":1,\"sample\":0}\n"
    "{\"ev\":\"eval\",\"t\":4,\"step\":1,\"sample\":0,\"verdict\":\"mismatch\"}\n"
    "{\"ev\":\"eval\",\"t\":5,\"step\":2,\"sample\":0,\"verdict\":\"pass\",\"median_s\":0.0015,\"roofline_fraction\":0.3}\n"
    "{\"ev\":\"best\",\"t\":5,\"step\":2,\"sample\":0,\"median_s\":0.0015}\n"
    "{\"ev\":\"eval\",\"t\":6,\"step\":3,\"sample\":0,\"verdict\":\"pass\",\"median_s\":0.003,\"roofline_fraction\":0.1}\n"
    "{\"ev\":\"eval\",\"t\":7,\"step\":4,\"sample\":0,\"verdict\":\"pass\",\"median_s\":0.001,\"roofline_fraction\":0.5}\n"
    "{\"ev\":\"best\",\"t\":7,\"step\":4,\"sample\":0,\"median_s\":0.001}\n"
    "{\"ev\":\"done\",\"t\":8,\"reason\":\"iteration budget spent\"}\n"
    "{\"ev\":\"eval\",\"step\":9,\"verd";   /* a torn last line is ignored */

/* Five problems: A 2x, B 0.5x, C 1.25x (speedup from the times), D not
 * verified (a bogus 10x that must not count), E killed (no result.json). */
static int build_five(const char *root, kf_report *r)
{
    char *dirs[5];
    char *res;
    res = result_json("A_two", 0.001, 0.002, 2.0, 0.5, 1);
    dirs[0] = make_run(root, "A_two", res, JOURNAL);
    free(res);
    res = result_json("B_half", 0.004, 0.002, 0.5, 0.25, 1);
    dirs[1] = make_run(root, "B_half", res, NULL);
    free(res);
    res = result_json("C_five_quarters", 0.002, 0.0025, 0, 0.8, 1);
    dirs[2] = make_run(root, "C_five_quarters", res, NULL);
    free(res);
    /* the precision of the best: A's from the built-in point in its
       candidate's notes (its eval.json has no compute_unit), B's from the
       compute_unit counter of a kernel without a point, C's from the
       counter although its point says bf16 (the unit the kernel names
       comes first) */
    char p[4400];
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/steps", dirs[i]);
        mkdir(p, 0777);
        snprintf(p, sizeof p, "%s/steps/0002-0", dirs[i]);
        mkdir(p, 0777);
        snprintf(p, sizeof p, "%s/steps/0002-0/candidate", dirs[i]);
        mkdir(p, 0777);
        snprintf(p, sizeof p, "%s/steps/0002-0/eval.json", dirs[i]);
        kf_test_write_file(p, i == 0   ? "{\"timing\": {\"counters\": {\"threads\": 2}}}"
                              : i == 1 ? "{\"timing\": {\"counters\": {\"threads\": 2, \"compute_unit\": 1}}}"
                                       : "{\"timing\": {\"counters\": {\"compute_unit\": 0}}}");
        snprintf(p, sizeof p, "%s/steps/0002-0/candidate/candidate.json", dirs[i]);
        kf_test_write_file(p, i == 0   ? "{\"notes\": \"why\\nbuiltin point: {\\\"backend\\\":\\\"cpu-simd\\\","
                                         "\\\"precision\\\":5,\\\"mr\\\":16}\"}"
                              : i == 1 ? "{\"notes\": \"written by a model\"}"
                                       : "{\"notes\": \"builtin point: {\\\"backend\\\":\\\"cpu-simd\\\","
                                         "\\\"precision\\\":3}\"}");
    }
    res = result_json("D_unverified", 0.0001, 0.001, 10.0, 0.9, 0);
    dirs[3] = make_run(root, "D_unverified", res, NULL);
    free(res);
    dirs[4] = make_run(root, "E_killed", NULL, "{\"ev\":\"start\",\"t\":1}\n");
    kf_error err = {0};
    int rc = kf_report_build((const char *const *)dirs, 5, r, &err);
    KF_CHECK_MSG(rc == 0, "kf_report_build: %s", err.msg);
    for (int i = 0; i < 5; i++) free(dirs[i]);
    return rc;
}

KF_TEST(fast_p_and_geomean_by_hand)
{
    char *root = kf_test_tmpdir();
    kf_report r;
    if (build_five(root, &r) != 0) return;
    KF_CHECK_INT(r.n, 5);
    KF_CHECK_INT(r.sum.n_correct, 3);
    KF_CHECK_INT(r.sum.n_speedup, 3);
    /* correct: 2, 0.5, 1.25 out of 5 problems */
    KF_CHECK_NEAR(r.sum.fast_p[0], 3.0 / 5, 1e-12);   /* p = 0: the correct ones */
    KF_CHECK_NEAR(r.sum.fast_p[1], 2.0 / 5, 1e-12);   /* > 0.5: 0.5 itself is not */
    KF_CHECK_NEAR(r.sum.fast_p[2], 2.0 / 5, 1e-12);   /* > 0.8 */
    KF_CHECK_NEAR(r.sum.fast_p[3], 2.0 / 5, 1e-12);   /* > 1 */
    KF_CHECK_NEAR(r.sum.fast_p[4], 1.0 / 5, 1e-12);   /* > 1.5 */
    KF_CHECK_NEAR(r.sum.fast_p[5], 0.0, 1e-12);       /* > 2: 2.0 itself is not */
    /* (2 * 0.5 * 1.25)^(1/3); the unverified 10x is excluded */
    KF_CHECK_NEAR(r.sum.geomean_correct, pow(1.25, 1.0 / 3), 1e-12);
    KF_CHECK_NEAR(r.sum.geomean_all_zero, 0.0, 0);
    KF_CHECK_NEAR(r.sum.geomean_fallback, pow(1.25, 1.0 / 5), 1e-12);
    KF_CHECK_NEAR(r.sum.min_speedup, 0.5, 1e-12);
    KF_CHECK_NEAR(r.sum.max_speedup, 2.0, 1e-12);
    KF_CHECK_NEAR(r.sum.mean_fraction, (0.5 + 0.25 + 0.8) / 3, 1e-12);
    KF_CHECK_INT(r.sum.tokens, 4 * 150);
    KF_CHECK_NEAR(r.sum.cost_usd, 0.04, 1e-12);
    kf_report_free(&r);
}

/* bf16c (precision 8) runs on the tiles' unit as bf16 does: the counter
 * says amx-bf16, the point tells them apart; a bf16 point keeps amx-bf16.
 * The same on vdpbf16ps: unit 1 with point 9 is bf16c-avx512, with 3
 * bf16-avx512 */
KF_TEST(amx_bf16c_named_from_counter_and_point)
{
    char *root = kf_test_tmpdir();
    const char *want[4] = {"amx-bf16c", "amx-bf16", "bf16c-avx512", "bf16-avx512"};
    const int unit[4] = {2, 2, 1, 1}, prec[4] = {8, 5, 9, 3};
    for (int k = 0; k < 4; k++) {
        char p[4400], run[4300];
        snprintf(run, sizeof run, "%s/run%d", root, k);
        mkdir(run, 0777);
        snprintf(p, sizeof p, "%s/steps", run);
        mkdir(p, 0777);
        snprintf(p, sizeof p, "%s/steps/0003-0", run);
        mkdir(p, 0777);
        snprintf(p, sizeof p, "%s/steps/0003-0/candidate", run);
        mkdir(p, 0777);
        snprintf(p, sizeof p, "%s/steps/0003-0/eval.json", run);
        char js[256];
        snprintf(js, sizeof js, "{\"timing\": {\"counters\": {\"compute_unit\": %d}}}", unit[k]);
        kf_test_write_file(p, js);
        snprintf(p, sizeof p, "%s/steps/0003-0/candidate/candidate.json", run);
        snprintf(js, sizeof js, "{\"notes\": \"builtin point: {\\\"backend\\\":\\\"cpu-simd\\\",\\\"precision\\\":%d}\"}",
                 prec[k]);
        kf_test_write_file(p, js);
        kf_report_entry e;
        memset(&e, 0, sizeof e);
        e.run_dir = run;
        kf_report_entry_precision(&e, "steps/0003-0/candidate");
        KF_CHECK_MSG(e.precision && !strcmp(e.precision, want[k]), "%s", e.precision ? e.precision : "(null)");
        KF_CHECK_MSG(e.precision_from && !strcmp(e.precision_from, k % 2 == 0 ? "compute_unit counter and builtin point"
                                                                            : "compute_unit counter"),
                     "%s", e.precision_from ? e.precision_from : "(null)");
        free(e.precision);
        free(e.precision_from);
    }
    KF_CHECK_STR(kf_report_precision_name(8, NULL), "amx-bf16c");
    KF_CHECK_STR(kf_report_precision_name(9, NULL), "bf16c-avx512");
    free(root);
}

KF_TEST(entries_read_from_result_json)
{
    char *root = kf_test_tmpdir();
    kf_report r;
    if (build_five(root, &r) != 0) return;
    KF_CHECK_STR(r.e[0].name, "A_two");
    KF_CHECK_INT(r.e[0].status, KF_REPORT_CORRECT);
    KF_CHECK_NEAR(r.e[0].best_s, 0.001, 1e-15);
    KF_CHECK_NEAR(r.e[0].baseline_s, 0.002, 1e-15);
    KF_CHECK_STR(r.e[0].baseline_how, "op-by-op, OpenBLAS sgemm");
    KF_CHECK_STR(r.e[0].device, "pthread-avx2");
    KF_CHECK_STR(r.e[0].stop_reason, "iteration budget spent");
    KF_CHECK_INT(r.e[0].steps, 3);
    KF_CHECK_INT(r.e[0].tokens_in, 100);
    /* no speedup_vs_baseline in C: baseline / best */
    KF_CHECK_NEAR(r.e[2].speedup, 1.25, 1e-12);
    KF_CHECK_INT(r.e[3].status, KF_REPORT_INCORRECT);
    KF_CHECK_NEAR(r.e[3].speedup, 0, 0);
    KF_CHECK_INT(r.e[4].status, KF_REPORT_NO_RESULT);
    KF_CHECK_STR(r.e[4].name, "E_killed");
    KF_CHECK_CONTAINS(r.e[4].stop_reason, "resume");
    kf_report_free(&r);
}

KF_TEST(missing_run_dir_is_no_result)
{
    char *root = kf_test_tmpdir();
    char dir[4096], file[4096];
    snprintf(dir, sizeof dir, "%s/never_started", root);
    snprintf(file, sizeof file, "%s/plain.txt", root);
    kf_test_write_file(file, "x");
    kf_report_entry e;
    kf_error err = {0};
    KF_CHECK(kf_report_entry_load(dir, &e, &err) == 0);
    KF_CHECK_INT(e.status, KF_REPORT_NO_RESULT);
    KF_CHECK_STR(e.name, "never_started");
    KF_CHECK_CONTAINS(e.stop_reason, "did not start");
    kf_report_entry_free(&e);
    KF_CHECK_INT(kf_report_entry_load(file, &e, &err), -1);
    KF_CHECK_CONTAINS(err.msg, "plain.txt: not a run directory");
    kf_report_entry_free(&e);
}

KF_TEST(all_correct_geomean_over_all)
{
    char *root = kf_test_tmpdir();
    char *res1 = result_json("P1", 0.001, 0.004, 4.0, 0.5, 1);
    char *res2 = result_json("P2", 0.001, 0.001, 1.0, 0.5, 1);
    char *dirs[2] = {make_run(root, "P1", res1, NULL), make_run(root, "P2", res2, NULL)};
    kf_report r;
    kf_error err = {0};
    KF_CHECK(kf_report_build((const char *const *)dirs, 2, &r, &err) == 0);
    KF_CHECK_NEAR(r.sum.geomean_correct, 2.0, 1e-12);
    KF_CHECK_NEAR(r.sum.geomean_all_zero, 2.0, 1e-12);
    KF_CHECK_NEAR(r.sum.geomean_fallback, 2.0, 1e-12);
    KF_CHECK_NEAR(r.sum.fast_p[3], 0.5, 1e-12);       /* 1.0 is not > 1 */
    kf_report_free(&r);
    free(res1);
    free(res2);
    free(dirs[0]);
    free(dirs[1]);
}

KF_TEST(trace_from_the_journal)
{
    char *root = kf_test_tmpdir();
    kf_report r;
    if (build_five(root, &r) != 0) return;
    const kf_report_entry *e = &r.e[0];
    KF_CHECK_INT(e->n_points, 4);                    /* the torn line is not one */
    KF_CHECK_INT(e->points[0].step, 1);
    KF_CHECK_INT(e->points[0].passed, 0);
    KF_CHECK_NEAR(e->points[0].best_s, 0, 0);
    KF_CHECK_INT(e->points[1].passed, 1);
    KF_CHECK_NEAR(e->points[1].time_s, 0.0015, 1e-15);
    KF_CHECK_NEAR(e->points[1].best_s, 0.0015, 1e-15);
    KF_CHECK_NEAR(e->points[2].time_s, 0.003, 1e-15);
    KF_CHECK_NEAR(e->points[2].best_s, 0.0015, 1e-15); /* slower: best unchanged */
    KF_CHECK_INT(e->points[3].step, 4);
    KF_CHECK_NEAR(e->points[3].best_s, 0.001, 1e-15);
    KF_CHECK_INT(r.e[1].n_points, 0);                  /* no journal */
    kf_report_free(&r);
}

static char *read_in(const char *dir, const char *name)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return kf_test_read_file(p);
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

/* result.json best.confirmed (core/run/loop_confirm.c): read per problem,
 * in report.json, and counted in report.md's summary; a best that is the
 * baseline's kernel (best.dir baseline/candidate) counted apart */
KF_TEST(final_retiming_read_and_reported)
{
    char *root = kf_test_tmpdir();
    char *dirs[4];
#define RETIME_RESULT "{\"problem\": \"%s\", \"preset\": \"small\", \"backend\": \"cpu-simd\", \"steps\": 4, " \
                      "\"stop_reason\": \"iteration budget spent\", \"baseline\": {\"median_s\": 0.004}, " \
                      "\"best\": {\"dir\": \"%s\", \"verified\": true, \"median_s\": 0.002, " \
                      "\"roofline_fraction\": 0.2%s}}"
    const char *cf[4] = {
        ", \"confirmed\": {\"rounds\": 3, \"finalists\": 2, \"step_median_s\": 0.0025, "
        "\"replaced\": \"steps/0004-0/candidate\"}",
        ", \"confirmed\": {\"rounds\": 5, \"finalists\": 3, \"step_median_s\": 0.0018}",
        "",
        ", \"confirmed\": {\"rounds\": 3, \"finalists\": 1, \"step_median_s\": 0.0041, "
        "\"replaced\": \"steps/0002-0/candidate\"}"};
    const char *names[4] = {"A_replaced", "B_stood", "C_alone", "D_baseline"};
    for (int i = 0; i < 4; i++) {
        char res[1024];
        snprintf(res, sizeof res, RETIME_RESULT, names[i], i == 3 ? "baseline/candidate" : "steps/0002-0/candidate", cf[i]);
        dirs[i] = make_run(root, names[i], res, NULL);
    }
    kf_report r;
    kf_error err = {0};
    int rc = kf_report_build((const char *const *)dirs, 4, &r, &err);
    for (int i = 0; i < 4; i++) free(dirs[i]);
    KF_CHECK_MSG(rc == 0, "kf_report_build: %s", err.msg);
    if (rc != 0) return;
    KF_CHECK_INT(r.e[0].confirm_rounds, 3);
    KF_CHECK_NEAR(r.e[0].confirm_step_s, 0.0025, 1e-15);
    KF_CHECK_INT(r.e[0].confirm_replaced, 1);
    KF_CHECK_INT(r.e[1].confirm_rounds, 5);
    KF_CHECK_INT(r.e[1].confirm_replaced, 0);
    KF_CHECK_INT(r.e[2].confirm_rounds, 0);
    KF_CHECK_INT(r.e[3].confirm_replaced, 1);
    for (int i = 0; i < 4; i++) KF_CHECK_INT(r.e[i].best_is_baseline, i == 3);
    KF_CHECK_INT(r.e[3].best_step, 0);
    KF_CHECK_MSG(kf_report_write_all(&r, root, &err) == 0, "write_all: %s", err.msg);
    kf_report_free(&r);
    char *js = read_in(root, "report.json");
    KF_CHECK(js != NULL);
    if (js) {
        json_object *o = json_tokener_parse(js), *ps, *c;
        KF_CHECK(o && json_object_object_get_ex(o, "problems", &ps));
        if (o && json_object_object_get_ex(o, "problems", &ps)) {
            for (int i = 0; i < 4; i++) {
                json_object *p = json_object_array_get_idx(ps, i), *v;
                KF_CHECK(json_object_object_get_ex(p, "confirmed", &c));
                if (i == 2) {
                    KF_CHECK(c == NULL);
                    continue;
                }
                KF_CHECK(c && json_object_object_get_ex(c, "rounds", &v) && json_object_get_int(v) == (i == 1 ? 5 : 3));
                KF_CHECK(c && json_object_object_get_ex(c, "replaced_search_best", &v) && json_object_get_boolean(v) == (i != 1));
                KF_CHECK(c && json_object_object_get_ex(c, "baseline_kept", &v) && json_object_get_boolean(v) == (i == 3));
                KF_CHECK(c && json_object_object_get_ex(c, "step_s", &v) &&
                         fabs(json_object_get_double(v) - (i == 3 ? 0.0041 : i ? 0.0018 : 0.0025)) < 1e-12);
            }
        }
        json_object_put(o);
        free(js);
    }
    char *md = read_in(root, "report.md");
    KF_CHECK(md != NULL);
    if (md)
        KF_CHECK_CONTAINS(md, "timed again, the fastest median kept): 3 problems, the search's best replaced on 2 "
                              "(by the op-by-op baseline's kernel on 1)\n");
    free(md);
#undef RETIME_RESULT
}

/* A best whose median is 2x or more the fastest time seen for it (its fastest
 * run, or its median in its own step when re-timed) is flagged: in the suite's
 * progress line, report.md and report.html's Warnings, report.json's warnings
 * and summary (bench/results/xeon16-cpu-torch-2026-12-02: a 0.44 ms kernel
 * re-timed at 8.4 ms in a slow stretch) */
KF_TEST(timing_warning_for_a_best_timed_slow)
{
    /* the fastest seen: the smaller of those known */
    int from_step = -1;
    KF_CHECK_NEAR(kf_timing_fastest_seen(0.000527, 0.000444, &from_step), 0.000444, 1e-15);
    KF_CHECK_INT(from_step, 1);
    KF_CHECK_NEAR(kf_timing_fastest_seen(0.001, 0.002, &from_step), 0.001, 1e-15);
    KF_CHECK_INT(from_step, 0);
    KF_CHECK_NEAR(kf_timing_fastest_seen(0, 0.002, &from_step), 0.002, 1e-15);
    KF_CHECK_INT(from_step, 1);
    KF_CHECK(kf_timing_fastest_seen(0, 0, NULL) == 0);
    char *w = kf_timing_warning(0.003, 0.0015, 0);   /* exactly 2x: flagged */
    KF_CHECK(w != NULL);
    KF_CHECK_CONTAINS(w, "timed at 3 ms (a median), 2.0x its fastest timed run, 1.5 ms:");
    free(w);
    w = kf_timing_warning(0.003, 0.0015, 1);
    KF_CHECK_CONTAINS(w, "2.0x its median in its own step, 1.5 ms:");
    free(w);
    KF_CHECK(kf_timing_warning(0.0029, 0.0015, 0) == NULL);
    KF_CHECK(kf_timing_warning(0.003, 0, 0) == NULL);   /* nothing to compare with */
    KF_CHECK(kf_timing_warning(0, 0.0015, 0) == NULL);

    char *root = kf_test_tmpdir();
#define SLOW_RESULT "{\"problem\": \"%s\", \"preset\": \"cpu\", \"backend\": \"cpu-simd\", \"steps\": 4, " \
                    "\"stop_reason\": \"iteration budget spent\", \"best\": {\"dir\": \"steps/0003-0/candidate\", " \
                    "\"verified\": true, \"median_s\": %s, \"roofline_fraction\": 0.2%s}}"
    const char *names[4] = {"A_disturbed", "B_spread", "C_calm", "D_no_min"};
    const char *med[4] = {"0.00845", "0.003", "0.0015", "0.002"};
    const char *rest[4] = {", \"min_s\": 0.000527, \"confirmed\": {\"rounds\": 3, \"finalists\": 3, "
                           "\"step_median_s\": 0.000444}",
                           ", \"min_s\": 0.001", ", \"min_s\": 0.001", ""};
    char *dirs[4];
    for (int i = 0; i < 4; i++) {
        char res[1024];
        snprintf(res, sizeof res, SLOW_RESULT, names[i], med[i], rest[i]);
        dirs[i] = make_run(root, names[i], res, NULL);
    }
#undef SLOW_RESULT
    kf_report r;
    kf_error err = {0};
    int rc = kf_report_build((const char *const *)dirs, 4, &r, &err);
    for (int i = 0; i < 4; i++) free(dirs[i]);
    KF_CHECK_MSG(rc == 0, "kf_report_build: %s", err.msg);
    if (rc != 0) return;
    KF_CHECK(r.e[0].timing_warning != NULL && r.e[1].timing_warning != NULL);
    KF_CHECK(r.e[2].timing_warning == NULL && r.e[3].timing_warning == NULL);
    KF_CHECK_NEAR(r.e[0].timing_ratio, 0.00845 / 0.000444, 1e-9);
    KF_CHECK_NEAR(r.e[1].timing_ratio, 3.0, 1e-9);
    KF_CHECK_NEAR(r.e[3].timing_ratio, 0, 1e-15);
    KF_CHECK_INT(r.sum.n_timing_warnings, 2);
    KF_CHECK_CONTAINS(r.e[0].timing_warning, "19.0x its median in its own step");
    KF_CHECK_CONTAINS(r.e[1].timing_warning, "3.0x its fastest timed run");
    KF_CHECK_MSG(kf_report_write_all(&r, root, &err) == 0, "write_all: %s", err.msg);
    kf_report_free(&r);

    char *md = read_in(root, "report.md");
    KF_CHECK(md != NULL);
    if (md) {
        KF_CHECK_CONTAINS(md, "- Bests timed at 2x or more the fastest time seen for them (the machine slower then): 2 "
                              "(see Warnings)\n");
        KF_CHECK_CONTAINS(md, "## Warnings\n\n- A_disturbed: timed at ");
        KF_CHECK_CONTAINS(md, "\n- B_spread: timed at ");
        KF_CHECK(strstr(md, "- C_calm:") == NULL && strstr(md, "- D_no_min:") == NULL);
    }
    free(md);
    char *html = read_in(root, "report.html");
    KF_CHECK(html != NULL);
    if (html) {
        KF_CHECK_CONTAINS(html, "<h2>Warnings</h2>");
        KF_CHECK_CONTAINS(html, "<li class=\"warn\"><b>A_disturbed</b>: timed at ");
    }
    free(html);
    char *js = read_in(root, "report.json");
    json_object *o = js ? json_tokener_parse(js) : NULL, *sum, *probs, *v;
    free(js);
    KF_CHECK(o != NULL);
    if (!o) return;
    KF_CHECK(json_object_object_get_ex(o, "summary", &sum) && json_object_object_get_ex(sum, "timing_warnings", &v) &&
             json_object_get_int(v) == 2);
    KF_CHECK(json_object_object_get_ex(o, "problems", &probs));
    for (int i = 0; i < 4; i++) {
        json_object *p = json_object_array_get_idx(probs, i);
        KF_CHECK(p && json_object_object_get_ex(p, "warnings", &v) && (int)json_object_array_length(v) == (i < 2));
    }
    json_object_put(o);
}

KF_TEST(writers_html_md_json)
{
    char *root = kf_test_tmpdir();
    kf_report r;
    if (build_five(root, &r) != 0) return;
    r.machine.hostname = strdup("benchbox");
    r.machine.cpu_model = strdup("Test CPU @ 3.0GHz");
    r.machine.cpus = 2;
    kf_error err = {0};
    KF_CHECK_MSG(kf_report_write_all(&r, root, &err) == 0, "write_all: %s", err.msg);
    kf_report_free(&r);

    char *html = read_in(root, "report.html");
    KF_CHECK(html != NULL);
    if (!html) return;
    /* speedup + roofline + one trace per problem */
    KF_CHECK_INT(count(html, "<svg"), 2 + 5);
    KF_CHECK_CONTAINS(html, "aria-label=\"speedup per problem, log scale\"");
    KF_CHECK_CONTAINS(html, "aria-label=\"roofline fraction per problem\"");
    KF_CHECK_CONTAINS(html, "class=\"one\"");                 /* the line at 1.0 */
    KF_CHECK_CONTAINS(html, "<polyline class=\"best\"");      /* A's best-so-far line */
    KF_CHECK_MSG(strstr(html, "http") == NULL, "report.html references an external resource");
    KF_CHECK(strstr(html, "<script") == NULL);
    KF_CHECK(strstr(html, "<link") == NULL);
    KF_CHECK(strstr(html, "src=") == NULL);
    KF_CHECK_CONTAINS(html, "<style>");
    KF_CHECK_CONTAINS(html, "benchbox");
    KF_CHECK_CONTAINS(html, "Test CPU @ 3.0GHz");
    KF_CHECK_CONTAINS(html, "cpu-simd: pthread-avx2");
    KF_CHECK_CONTAINS(html, "no correct &lt;kernel&gt; &amp; done");   /* escaped */
    KF_CHECK(strstr(html, "<kernel>") == NULL);
    KF_CHECK_CONTAINS(html, "C_five_quarters");
    free(html);

    char *md = read_in(root, "report.md");
    KF_CHECK(md != NULL);
    if (!md) return;
    KF_CHECK_CONTAINS(md, "| problem | status | best | baseline | baseline made by | GEMM anchor (library GEMM alone) | "
                          "baseline / anchor | speedup | roofline | precision | steps | tokens | cost |");
    KF_CHECK_CONTAINS(md, "| A_two | correct (iteration budget spent) | 1 ms | 2 ms | op-by-op, OpenBLAS sgemm | - | - | 2.00x | 50.0% | amx-bf16 | 3 | 150 | $0.0100 |");
    KF_CHECK_CONTAINS(md, "| 0.50x | 25.0% | bf16-avx512 | 3 |");    /* B_half */
    KF_CHECK_CONTAINS(md, "| 80.0% | fp32 | 3 |");                  /* C_five_quarters: the counter */
    KF_CHECK_CONTAINS(md, "| C_five_quarters | correct (iteration budget spent) | 2 ms | 2.5 ms |");
    KF_CHECK_CONTAINS(md, "| D_unverified | **incorrect**");
    KF_CHECK_CONTAINS(md, "| E_killed | **no result**");
    KF_CHECK_CONTAINS(md, "| fast_p | 0.600 (3/5) | 0.400 (2/5) | 0.400 (2/5) | 0.400 (2/5) | 0.200 (1/5) | 0.000 (0/5) |");
    KF_CHECK_CONTAINS(md, "Geometric-mean speedup over the correct problems: **1.08x** (3 problems)");
    free(md);

    char *js = read_in(root, "report.json");
    json_object *o = js ? json_tokener_parse(js) : NULL;
    free(js);
    KF_CHECK(o != NULL);
    if (!o) return;
    json_object *sum, *fp, *v, *probs;
    KF_CHECK(json_object_object_get_ex(o, "summary", &sum));
    KF_CHECK(json_object_object_get_ex(sum, "fast_p", &fp));
    KF_CHECK(json_object_object_get_ex(fp, "0.5", &v));
    KF_CHECK_NEAR(json_object_get_double(v), 0.4, 1e-12);
    KF_CHECK(json_object_object_get_ex(fp, "1.5", &v));
    KF_CHECK_NEAR(json_object_get_double(v), 0.2, 1e-12);
    KF_CHECK(json_object_object_get_ex(sum, "geomean_speedup_correct", &v));
    KF_CHECK_NEAR(json_object_get_double(v), pow(1.25, 1.0 / 3), 1e-9);
    KF_CHECK(json_object_object_get_ex(o, "problems", &probs));
    KF_CHECK_INT(json_object_array_length(probs), 5);
    json_object *d = json_object_array_get_idx(probs, 3);
    KF_CHECK(json_object_object_get_ex(d, "correct", &v) && !json_object_get_boolean(v));
    KF_CHECK(json_object_object_get_ex(d, "speedup", &v) && v == NULL);
    json_object *a = json_object_array_get_idx(probs, 0);
    KF_CHECK(json_object_object_get_ex(a, "precision", &v) && v && !strcmp(json_object_get_string(v), "amx-bf16"));
    KF_CHECK(json_object_object_get_ex(a, "precision_from", &v) && v &&
             !strcmp(json_object_get_string(v), "builtin point"));
    json_object *b = json_object_array_get_idx(probs, 1);
    KF_CHECK(json_object_object_get_ex(b, "precision", &v) && v && !strcmp(json_object_get_string(v), "bf16-avx512"));
    KF_CHECK(json_object_object_get_ex(b, "precision_from", &v) && v &&
             !strcmp(json_object_get_string(v), "compute_unit counter"));
    KF_CHECK(json_object_object_get_ex(d, "precision", &v) && v == NULL);   /* D: not correct */
    KF_CHECK(json_object_object_get_ex(a, "trace", &v));
    KF_CHECK_INT(json_object_array_length(v), 4);
    KF_CHECK(json_object_object_get_ex(o, "machine", &v));
    KF_CHECK(json_object_object_get_ex(v, "hostname", &d));
    KF_CHECK_STR(json_object_get_string(d), "benchbox");
    json_object_put(o);
}

/* result.json with a baseline.gemm_anchor object as kf_run writes it. */
static char *result_with_anchor(const char *name, double baseline_s, const char *anchor)
{
    char *s = NULL;
    if (asprintf(&s,
                 "{\"problem\": \"%s\", \"preset\": \"cpu\", \"backend\": \"cpu-simd\", \"device\": \"EPYC\", "
                 "\"agent\": \"builtin\", \"steps\": 1, \"stop_reason\": \"iteration budget spent\", "
                 "\"baseline\": {\"how\": \"op-by-op\", \"dir\": \"baseline\", \"median_s\": %.9g, \"gemm_anchor\": %s}, "
                 "\"best\": {\"dir\": \"steps/0001-0/candidate\", \"verified\": true, \"verdict\": \"pass\", "
                 "\"median_s\": 0.0005, \"roofline_fraction\": 0.5}}",
                 name, baseline_s, anchor) < 0)
        return NULL;
    return s;
}

/* The GEMM anchor: read from result.json, a baseline over 1.5x its anchor
 * flagged in the entry and all three reports, labelled everywhere. */
KF_TEST(gemm_anchor_columns_and_warning)
{
    char *root = kf_test_tmpdir();
    const char *slow = "{\"label\": \"GEMM anchor: standalone library timing\", \"available\": true, "
                       "\"how\": \"cblas_sgemm alone (OpenBLAS), M=512 N=2048 K=2048, B transposed\", "
                       "\"threads\": 2, \"runs\": 20, \"median_s\": 0.001, \"min_s\": 0.0009}";
    const char *none = "{\"available\": false, \"why\": \"the problem has no matmul or linear\"}";
    char *dirs[3], *res;
    res = result_with_anchor("F_slow_baseline", 0.003, slow);
    dirs[0] = make_run(root, "F_slow_baseline", res, NULL);
    free(res);
    res = result_with_anchor("G_fair_baseline", 0.0012, slow);
    dirs[1] = make_run(root, "G_fair_baseline", res, NULL);
    free(res);
    res = result_with_anchor("H_no_gemm", 0.0012, none);
    dirs[2] = make_run(root, "H_no_gemm", res, NULL);
    free(res);
    kf_report r;
    kf_error err = {0};
    int rc = kf_report_build((const char *const *)dirs, 3, &r, &err);
    for (int i = 0; i < 3; i++) free(dirs[i]);
    KF_CHECK_MSG(rc == 0, "build: %s", err.msg);
    if (rc != 0) return;
    KF_CHECK_NEAR(r.e[0].anchor_s, 0.001, 1e-15);
    KF_CHECK_NEAR(r.e[0].baseline_over_anchor, 3.0, 1e-9);
    KF_CHECK_INT(r.e[0].anchor_threads, 2);
    KF_CHECK(r.e[0].anchor_warning != NULL);
    KF_CHECK_CONTAINS(r.e[0].anchor_how, "cblas_sgemm alone");
    KF_CHECK_NEAR(r.e[1].baseline_over_anchor, 1.2, 1e-9);
    KF_CHECK(r.e[1].anchor_warning == NULL);
    KF_CHECK(r.e[2].anchor_s == 0 && r.e[2].anchor_warning == NULL);
    KF_CHECK_STR(r.e[2].anchor_how, "the problem has no matmul or linear");
    KF_CHECK_INT(r.sum.n_anchor, 2);
    KF_CHECK_INT(r.sum.n_anchor_warnings, 1);
    KF_CHECK_MSG(kf_report_write_all(&r, root, &err) == 0, "write_all: %s", err.msg);
    kf_report_free(&r);

    char *md = read_in(root, "report.md");
    KF_CHECK(md != NULL);
    if (!md) return;
    KF_CHECK_CONTAINS(md, "baselines over 1.5x their anchor: 1 (see Warnings)");
    KF_CHECK_CONTAINS(md, "## Warnings\n\n- F_slow_baseline: baseline 3 ms, GEMM anchor 1 ms (cblas_sgemm alone");
    KF_CHECK_CONTAINS(md, "takes 3.00x its standalone GEMM anchor");
    KF_CHECK(strstr(md, "- G_fair_baseline:") == NULL);
    KF_CHECK_CONTAINS(md, "| op-by-op | 1 ms | **3.00x** (warning) |");
    KF_CHECK_CONTAINS(md, "| op-by-op | 1 ms | 1.20x |");
    KF_CHECK_CONTAINS(md, "| op-by-op | - | - |");
    KF_CHECK_CONTAINS(md, "GEMM anchor: a standalone library timing of the problem's main GEMM alone");
    free(md);

    char *html = read_in(root, "report.html");
    KF_CHECK(html != NULL);
    if (!html) return;
    KF_CHECK_CONTAINS(html, "<th>GEMM anchor (library GEMM alone)</th><th>baseline / anchor</th>");
    KF_CHECK_CONTAINS(html, "<h2>Warnings</h2>");
    KF_CHECK_CONTAINS(html, "<li class=\"warn\"><b>F_slow_baseline</b>");
    KF_CHECK_CONTAINS(html, "<td class=\"n warn\">3.00x</td>");
    KF_CHECK_CONTAINS(html, "title=\"cblas_sgemm alone (OpenBLAS), M=512 N=2048 K=2048, B transposed\">1 ms</td>");
    KF_CHECK_CONTAINS(html, "not a kernel for the problem");
    free(html);

    char *js = read_in(root, "report.json");
    json_object *o = js ? json_tokener_parse(js) : NULL;
    free(js);
    KF_CHECK(o != NULL);
    if (!o) return;
    json_object *probs, *p, *v, *sum;
    KF_CHECK(json_object_object_get_ex(o, "summary", &sum));
    KF_CHECK(json_object_object_get_ex(sum, "with_gemm_anchor", &v) && json_object_get_int(v) == 2);
    KF_CHECK(json_object_object_get_ex(sum, "baseline_over_gemm_anchor_warnings", &v) && json_object_get_int(v) == 1);
    KF_CHECK(json_object_object_get_ex(sum, "notes", &v));
    KF_CHECK_CONTAINS(json_object_get_string(v), "GEMM anchor: a standalone library timing");
    KF_CHECK(json_object_object_get_ex(o, "problems", &probs));
    p = json_object_array_get_idx(probs, 0);
    KF_CHECK(json_object_object_get_ex(p, "gemm_anchor_s", &v) && json_object_get_double(v) == 0.001);
    KF_CHECK(json_object_object_get_ex(p, "gemm_anchor_threads", &v) && json_object_get_int(v) == 2);
    KF_CHECK(json_object_object_get_ex(p, "baseline_over_gemm_anchor", &v));
    KF_CHECK_NEAR(json_object_get_double(v), 3.0, 1e-9);
    KF_CHECK(json_object_object_get_ex(p, "warnings", &v) && json_object_array_length(v) == 1);
    p = json_object_array_get_idx(probs, 1);
    KF_CHECK(json_object_object_get_ex(p, "warnings", &v) && json_object_array_length(v) == 0);
    p = json_object_array_get_idx(probs, 2);
    KF_CHECK(json_object_object_get_ex(p, "gemm_anchor_s", &v) && v == NULL);
    KF_CHECK(json_object_object_get_ex(p, "gemm_anchor_how", &v));
    KF_CHECK_STR(json_object_get_string(v), "the problem has no matmul or linear");
    json_object_put(o);
}

KF_TEST(machine_from_suite_json_and_list_runs)
{
    char *root = kf_test_tmpdir();
    free(make_run(root, "b_second", NULL, NULL));
    free(make_run(root, "a_first", NULL, NULL));
    char p[4096];
    snprintf(p, sizeof p, "%s/runs/not_a_dir.txt", root);
    kf_test_write_file(p, "x");
    char **dirs = NULL;
    kf_error err = {0};
    int n = kf_report_list_runs(root, &dirs, &err);
    KF_CHECK_INT(n, 2);
    if (n == 2) {
        KF_CHECK(strstr(dirs[0], "/runs/a_first") != NULL);
        KF_CHECK(strstr(dirs[1], "/runs/b_second") != NULL);
    }
    kf_report_free_list(dirs, n);
    KF_CHECK_INT(kf_report_list_runs("/nonexistent-kf", &dirs, &err), -1);
    KF_CHECK_CONTAINS(err.msg, "/nonexistent-kf/runs");

    /* suite.json written here records this machine and the settings */
    KF_CHECK(kf_report_save_suite(root, "{\"backend\":\"cpu-simd\",\"jobs\":2}", &err) == 0);
    snprintf(p, sizeof p, "%s/suite.json", root);
    char *text = kf_test_read_file(p);
    KF_CHECK_CONTAINS(text, "\"backend\"");
    free(text);
    /* ... and a saved machine wins over this one when reports are rewritten */
    kf_test_write_file(p, "{\"settings\":{\"backend\":\"opencl\"},\"machine\":{\"hostname\":\"other-host\","
                          "\"cpu_model\":\"Other CPU\",\"cpus\":64,\"os\":\"Linux\"}}");
    kf_report r = {0};
    KF_CHECK(kf_report_machine_load(&r, root, &err) == 0);
    KF_CHECK_STR(r.machine.hostname, "other-host");
    KF_CHECK_INT(r.machine.cpus, 64);
    KF_CHECK_CONTAINS(r.settings_json, "opencl");
    kf_report_free(&r);
    kf_test_write_file(p, "{not json");
    KF_CHECK_INT(kf_report_machine_load(&r, root, &err), -1);
    KF_CHECK_CONTAINS(err.msg, "suite.json: not valid JSON");
    kf_report_free(&r);
}

#define PROBLEM \
    "{\"name\": \"%s\", \"dims\": [\"N\"], \"presets\": {\"small\": {\"N\": 7}%s}," \
    " \"inputs\": [{\"name\": \"x\", \"shape\": [\"N\"]}]," \
    " \"graph\": [{\"out\": \"y\", \"op\": \"relu\", \"in\": [\"x\"]}], \"outputs\": [\"y\"]}"

/* CPU anchors (ONNX Runtime, one time per problem, threads stated): matched
 * by name, speedups by hand, the md section names the tool and the threads;
 * a file of another preset is refused. */
KF_TEST(cpu_anchors_onnxruntime)
{
    char *root = kf_test_tmpdir();
    kf_report r;
    if (build_five(root, &r) != 0) return;
    r.machine.cpus = 16;
    char path[4200];
    snprintf(path, sizeof path, "%s/ort.json", root);
    /* A: best 1 ms vs 3 ms; B: best 4 ms vs 2 ms; C: an error; D unverified; E no result; X not in the report */
    kf_test_write_file(path, "{\"tool\": \"onnxruntime\", \"version\": \"1.20.1\", \"device\": \"cpu\", "
                             "\"threads\": 2, \"preset\": \"small\", \"machine\": {\"cpu\": \"Test CPU\"}, "
                             "\"problems\": {\"A_two\": {\"eager_ms\": 3}, \"B_half\": {\"eager_ms\": 2.0}, "
                             "\"C_five_quarters\": {\"error\": \"Unsupported: op 'foo'\"}, "
                             "\"D_unverified\": {\"eager_ms\": 1}, \"X_other\": {\"eager_ms\": 1}}}");
    kf_error err = {0};
    KF_CHECK_MSG(kf_report_load_anchors(&r, path, &err) == 0, "load_anchors: %s", err.msg);
    KF_CHECK_STR(r.anchors_tool, "onnxruntime");
    KF_CHECK_STR(r.anchors_version, "1.20.1");
    KF_CHECK_STR(r.anchors_device, "cpu");
    KF_CHECK_STR(r.anchors_preset, "small");
    KF_CHECK_INT(r.anchors_threads, 2);
    KF_CHECK_INT(r.anchors_matched, 3);   /* A, B, D (D has a time but no verified kernel) */
    KF_CHECK_INT(r.anchors_has_compile, 0);
    KF_CHECK_STR(kf_report_anchors_label(&r), "ONNX Runtime");
    char desc[256];
    KF_CHECK_STR(kf_report_anchors_desc(&r, desc, sizeof desc), "onnxruntime 1.20.1 on cpu, 2 threads, preset small");
    KF_CHECK_NEAR(r.e[0].vs_torch, 3.0, 1e-9);
    KF_CHECK_NEAR(r.e[1].vs_torch, 0.5, 1e-9);
    KF_CHECK_NEAR(r.e[2].vs_torch, 0, 0);
    KF_CHECK_NEAR(r.e[3].vs_torch, 0, 0);   /* an unverified kernel gets no speedup */
    KF_CHECK_INT(r.sum.n_torch, 2);
    KF_CHECK_NEAR(r.sum.geomean_vs_torch, sqrt(1.5), 1e-9);
    KF_CHECK_NEAR(r.sum.fast_p_torch[3], 1.0 / 5, 1e-12);   /* > 1: A only, of all five */
    KF_CHECK_MSG(kf_report_write_all(&r, root, &err) == 0, "write_all: %s", err.msg);
    char *md = read_in(root, "report.md");
    KF_CHECK(md != NULL);
    if (md) {
        KF_CHECK_CONTAINS(md, "## Against ONNX Runtime\n");
        KF_CHECK_CONTAINS(md, "onnxruntime 1.20.1 on cpu, 2 threads, preset small");
        KF_CHECK_CONTAINS(md, "- Threads: the anchors used 2; KForge's runs do not say (no GEMM anchor); this "
                              "machine has 16 CPUs\n");
        KF_CHECK_CONTAINS(md, "- Anchors for 3 of the 5 problems; none for: C_five_quarters, E_killed\n");
        KF_CHECK_CONTAINS(md, "over ONNX Runtime, over the 2 correct problems with an anchor: **1.22x**");
        KF_CHECK_CONTAINS(md, "| problem | best | ONNX Runtime | speedup |\n");
        KF_CHECK_CONTAINS(md, "| A_two | 1 ms | 3 ms | **3x** |\n");
        KF_CHECK(strstr(md, "torch.compile") == NULL);
        free(md);
    }
    char *html = read_in(root, "report.html");
    KF_CHECK(html != NULL);
    if (html) {
        KF_CHECK_CONTAINS(html, "<h2>Against ONNX Runtime</h2>");
        KF_CHECK_CONTAINS(html, "onnxruntime 1.20.1 on cpu, 2 threads, preset small");
        KF_CHECK_CONTAINS(html, "<th>ONNX Runtime</th><th>speedup</th>");
        KF_CHECK_CONTAINS(html, "<td>A_two</td><td class=\"n\">1 ms</td><td class=\"n\">3 ms</td><td class=\"n\">3");
        free(html);
    }
    char *js = read_in(root, "report.json");
    json_object *o = js ? json_tokener_parse(js) : NULL, *sum, *t, *v;
    free(js);
    KF_CHECK(o && json_object_object_get_ex(o, "summary", &sum) && json_object_object_get_ex(sum, "vs_pytorch", &t));
    if (o && t) {
        KF_CHECK(json_object_object_get_ex(t, "tool", &v) && strcmp(json_object_get_string(v), "onnxruntime") == 0);
        KF_CHECK(json_object_object_get_ex(t, "threads", &v) && json_object_get_int(v) == 2);
        KF_CHECK(json_object_object_get_ex(t, "device", &v) && strcmp(json_object_get_string(v), "cpu") == 0);
        KF_CHECK(json_object_object_get_ex(t, "problems_with_anchor", &v) && json_object_get_int(v) == 3);
    }
    json_object_put(o);

    /* measured at another preset: refused, naming both presets */
    snprintf(path, sizeof path, "%s/ort-cpu.json", root);
    kf_test_write_file(path, "{\"tool\": \"onnxruntime\", \"device\": \"cpu\", \"threads\": 2, \"preset\": \"cpu\", "
                             "\"problems\": {\"A_two\": {\"eager_ms\": 3}}}");
    memset(&err, 0, sizeof err);
    KF_CHECK(kf_report_load_anchors(&r, path, &err) == -1);
    KF_CHECK_INT(err.kind, KF_E_BAD_INPUT);
    KF_CHECK_CONTAINS(err.msg, "measured at preset 'cpu' but A_two ran at 'small'");
    kf_report_free(&r);
}

/* KForge's threads from the runs' GEMM anchors, beside the anchors' threads:
 * the same, or flagged when not. */
KF_TEST(cpu_anchors_threads_against_the_runs)
{
    char *root = kf_test_tmpdir();
    const char *two = "{\"available\": true, \"how\": \"cblas_sgemm\", \"threads\": 2, \"median_s\": 0.001}";
    char *dirs[2], *res;
    res = result_with_anchor("F_one", 0.003, two);
    dirs[0] = make_run(root, "F_one", res, NULL);
    free(res);
    res = result_with_anchor("G_two", 0.003, two);
    dirs[1] = make_run(root, "G_two", res, NULL);
    free(res);
    kf_report r;
    kf_error err = {0};
    KF_CHECK_MSG(kf_report_build((const char *const *)dirs, 2, &r, &err) == 0, "build: %s", err.msg);
    for (int i = 0; i < 2; i++) free(dirs[i]);
    r.machine.cpus = 2;
    char path[4200];
    const int threads[2] = {2, 1};
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/ort%d.json", root, k);
        char text[512];
        snprintf(text, sizeof text, "{\"tool\": \"onnxruntime\", \"device\": \"cpu\", \"threads\": %d, "
                 "\"preset\": \"cpu\", \"problems\": {\"F_one\": {\"eager_ms\": 1}, \"G_two\": {\"eager_ms\": 1}}}",
                 threads[k]);
        kf_test_write_file(path, text);
        KF_CHECK_MSG(kf_report_load_anchors(&r, path, &err) == 0, "load_anchors: %s", err.msg);
        KF_CHECK_INT(r.kforge_threads, 2);
        KF_CHECK_NEAR(r.e[0].vs_torch, 2.0, 1e-9);   /* 1 ms against the best 0.5 ms */
        KF_CHECK_MSG(kf_report_write_md(&r, path, &err) == 0, "write_md: %s", err.msg);
        char *md = kf_test_read_file(path);
        KF_CHECK(md != NULL);
        if (!md) continue;
        if (k == 0) {
            KF_CHECK_CONTAINS(md, "- Threads: the anchors used 2; KForge's runs 2 (their GEMM anchor's: KFORGE_THREADS, "
                                  "else all CPUs); this machine has 2 CPUs\n");
        } else {
            KF_CHECK_CONTAINS(md, "- Threads: the anchors used 1; KForge's runs 2 (");
            KF_CHECK_CONTAINS(md, "this machine has 2 CPUs. **Not the same threads: compare with care**\n");
        }
        free(md);
    }
    kf_report_free(&r);
}

/* A PyTorch file of torch_anchors.py before "tool" and "version": PyTorch,
 * its version from machine.torch, no threads. */
KF_TEST(pytorch_anchors_without_tool)
{
    char *root = kf_test_tmpdir();
    kf_report r;
    if (build_five(root, &r) != 0) return;
    char path[4200];
    snprintf(path, sizeof path, "%s/pt.json", root);
    kf_test_write_file(path, "{\"machine\": {\"gpu\": \"H100\", \"torch\": \"2.11.0\"}, \"preset\": \"small\", "
                             "\"problems\": {\"A_two\": {\"eager_ms\": 4, \"compile_ms\": 2}}}");
    kf_error err = {0};
    KF_CHECK_MSG(kf_report_load_anchors(&r, path, &err) == 0, "load_anchors: %s", err.msg);
    KF_CHECK(r.anchors_tool == NULL);
    KF_CHECK_STR(kf_report_anchors_label(&r), "PyTorch");
    KF_CHECK_STR(r.anchors_version, "2.11.0");
    KF_CHECK_INT(r.anchors_threads, 0);
    KF_CHECK_INT(r.anchors_has_compile, 1);
    KF_CHECK_NEAR(r.e[0].vs_torch, 2.0, 1e-9);
    KF_CHECK_MSG(kf_report_write_all(&r, root, &err) == 0, "write_all: %s", err.msg);
    char *md = read_in(root, "report.md");
    if (md) {
        KF_CHECK_CONTAINS(md, "## Against PyTorch\n");
        KF_CHECK_CONTAINS(md, "over the faster of eager and torch.compile");
        KF_CHECK(strstr(md, "- Threads:") == NULL);
        free(md);
    }
    kf_report_free(&r);
}

static void write_problem(const char *dir, const char *file, const char *name, int with_cpu)
{
    char path[4096], text[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    snprintf(text, sizeof text, PROBLEM, name, with_cpu ? ", \"cpu\": {\"N\": 70}" : "");
    KF_CHECK(kf_test_write_file(path, text) == 0);
}

KF_TEST(collect_problem_files)
{
    char *root = kf_test_tmpdir();
    char d1[4096], d2[4096];
    snprintf(d1, sizeof d1, "%s/level1", root);
    snprintf(d2, sizeof d2, "%s/level2", root);
    mkdir(d1, 0777);
    mkdir(d2, 0777);
    write_problem(d2, "02_b.json", "two_b", 1);
    write_problem(d2, "01_a.json", "two_a", 1);
    write_problem(d1, "10_z.json", "one_z", 1);
    write_problem(root, "00_top.json", "top", 1);
    char readme[4200];
    snprintf(readme, sizeof readme, "%s/README.md", root);
    kf_test_write_file(readme, "not a problem");

    kf_suite_problem *v = NULL;
    int n = 0;
    kf_error err = {0};
    const char *in[] = {root};
    KF_CHECK_MSG(kf_suite_collect(in, 1, "cpu", &v, &n, &err) == 0, "collect: %s", err.msg);
    KF_CHECK_INT(n, 4);
    if (n == 4) {
        KF_CHECK_STR(v[0].name, "top");
        KF_CHECK_STR(v[1].name, "one_z");
        KF_CHECK_STR(v[2].name, "two_a");
        KF_CHECK_STR(v[3].name, "two_b");
        KF_CHECK(strstr(v[2].path, "level2/01_a.json") != NULL);
    }
    kf_suite_problems_free(v, n);

    /* a file given directly, then a directory: in the order given */
    char file[4200];
    snprintf(file, sizeof file, "%s/00_top.json", root);
    const char *in2[] = {file, d1};
    KF_CHECK(kf_suite_collect(in2, 2, NULL, &v, &n, &err) == 0);
    KF_CHECK_INT(n, 2);
    if (n == 2) KF_CHECK_STR(v[1].name, "one_z");
    kf_suite_problems_free(v, n);

    /* a preset that one problem lacks */
    write_problem(d1, "11_small_only.json", "small_only", 0);
    KF_CHECK_INT(kf_suite_collect(in, 1, "cpu", &v, &n, &err), -1);
    KF_CHECK_INT(err.kind, KF_E_BAD_INPUT);
    KF_CHECK_CONTAINS(err.msg, "11_small_only.json: no preset 'cpu'");
    KF_CHECK(v == NULL);

    /* two problems of one name */
    write_problem(d2, "03_dup.json", "one_z", 1);
    KF_CHECK_INT(kf_suite_collect(in, 1, NULL, &v, &n, &err), -1);
    KF_CHECK_CONTAINS(err.msg, "two problems named 'one_z'");

    /* a malformed problem, a missing path, an empty directory */
    char bad[4200];
    snprintf(bad, sizeof bad, "%s/bad.json", root);
    kf_test_write_file(bad, "{\"name\": \"bad\"}");
    const char *in3[] = {bad};
    KF_CHECK_INT(kf_suite_collect(in3, 1, NULL, &v, &n, &err), -1);
    KF_CHECK_INT(err.kind, KF_E_BAD_INPUT);
    KF_CHECK_CONTAINS(err.msg, "bad.json");
    const char *in4[] = {"/nonexistent-kf-suite"};
    KF_CHECK_INT(kf_suite_collect(in4, 1, NULL, &v, &n, &err), -1);
    KF_CHECK_CONTAINS(err.msg, "/nonexistent-kf-suite: No such file");
    char empty[4200];
    snprintf(empty, sizeof empty, "%s/empty", root);
    mkdir(empty, 0777);
    const char *in5[] = {empty};
    KF_CHECK_INT(kf_suite_collect(in5, 1, NULL, &v, &n, &err), -1);
    KF_CHECK_CONTAINS(err.msg, "no problem files");
}

int main(void) { return kf_test_main(); }
