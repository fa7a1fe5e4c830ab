/* test_report_seeds.c — statistics over agent seeds (core/suite/report_seeds.c:
 * kforge suite --seeds N) and the pairing of two reports with the Wilcoxon
 * test (core/suite/report_pair.c: kforge report A B). */
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kf_test.h"
#include "suite/report.h"
#include "util/fileio.h"

/* An in-memory report of n entries (names strdup'ed; freed by kf_report_free). */
static void mem_report(kf_report *r, int n)
{
    memset(r, 0, sizeof *r);
    r->e = calloc((size_t)n, sizeof *r->e);
    r->n = n;
}

static void entry(kf_report *r, int i, const char *name, int seed, int correct, double speedup, double best_s,
                  int first, int best_step)
{
    kf_report_entry *e = &r->e[i];
    e->name = strdup(name);
    e->run_dir = strdup(name);
    e->agent_seed = seed;
    e->status = correct ? KF_REPORT_CORRECT : KF_REPORT_INCORRECT;
    e->speedup = correct ? speedup : 0;
    e->best_s = correct ? best_s : 0;
    e->first_correct_step = correct ? first : 0;
    e->best_step = correct ? best_step : 0;
}

KF_TEST(spread_quantiles_like_numpy)
{
    /* numpy.percentile([1, 2, 3, 4, 10], [25, 50, 75]) = 2, 3, 4;
       numpy.percentile([1, 2, 3, 4], [25, 50, 75]) = 1.75, 2.5, 3.25 */
    const double a[] = {10, 1, 4, 2, 3}, b[] = {4, 3, 2, 1};
    kf_report_spread s;
    kf_report_spread_of(a, 5, &s);
    KF_CHECK_INT(s.n, 5);
    KF_CHECK_NEAR(s.median, 3, 0);
    KF_CHECK_NEAR(s.q1, 2, 0);
    KF_CHECK_NEAR(s.q3, 4, 0);
    KF_CHECK_NEAR(s.min, 1, 0);
    KF_CHECK_NEAR(s.max, 10, 0);
    kf_report_spread_of(b, 4, &s);
    KF_CHECK_NEAR(s.median, 2.5, 1e-15);
    KF_CHECK_NEAR(s.q1, 1.75, 1e-15);
    KF_CHECK_NEAR(s.q3, 3.25, 1e-15);
    kf_report_spread_of(b, 0, &s);
    KF_CHECK_INT(s.n, 0);
    KF_CHECK_NEAR(s.median, 0, 0);
}

/* P: seeds 1..3, speedups 2 and 4, seed 3 incorrect; Q: seeds 1..3, all 1x */
static void two_problems(kf_report *r)
{
    mem_report(r, 6);
    entry(r, 0, "P", 2, 1, 4.0, 0.5e-3, 3, 5);
    entry(r, 1, "P", 1, 1, 2.0, 1e-3, 1, 2);
    entry(r, 2, "P", 3, 0, 0, 0, 0, 0);
    entry(r, 3, "Q", 1, 1, 1.0, 2e-3, 1, 1);
    entry(r, 4, "Q", 2, 1, 1.0, 2e-3, 2, 2);
    entry(r, 5, "Q", 3, 1, 1.0, 2e-3, 1, 4);
    kf_report_summarize(r);
}

KF_TEST(groups_per_problem_over_seeds)
{
    kf_report r;
    two_problems(&r);
    KF_CHECK_INT(r.n_groups, 2);
    const kf_report_group *p = &r.groups[0], *q = &r.groups[1];
    KF_CHECK_STR(p->name, "P");
    KF_CHECK_INT(p->n_runs, 3);
    /* ordered by agent seed */
    KF_CHECK_INT(r.e[p->idx[0]].agent_seed, 1);
    KF_CHECK_INT(r.e[p->idx[2]].agent_seed, 3);
    KF_CHECK_INT(p->n_correct, 2);
    KF_CHECK_NEAR(p->success_rate, 2.0 / 3, 1e-15);
    KF_CHECK_NEAR(p->speedup.median, 3, 1e-15);
    KF_CHECK_NEAR(p->speedup.min, 2, 0);
    KF_CHECK_NEAR(p->speedup.max, 4, 0);
    KF_CHECK_NEAR(p->speedup.q1, 2.5, 1e-15);
    KF_CHECK_NEAR(p->first_correct.median, 2, 1e-15);
    KF_CHECK_NEAR(p->best_step.median, 3.5, 1e-15);
    KF_CHECK_NEAR(p->best_s.median, 0.75e-3, 1e-15);
    KF_CHECK_NEAR(q->success_rate, 1, 0);
    KF_CHECK_NEAR(q->best_step.median, 2, 0);
    KF_CHECK_NEAR(q->best_step.max, 4, 0);
    kf_report_free(&r);
}

KF_TEST(summary_error_bars_per_seed_and_bootstrap)
{
    kf_report r;
    two_problems(&r);
    const kf_report_seed_summary *s = &r.seeds;
    KF_CHECK_INT(s->seeds, 3);
    /* per seed: success 1, 1, 0.5; geomean sqrt(2), 2, 1; mean first-correct 1, 2.5, 1 */
    KF_CHECK_NEAR(s->per_seed_success.median, 1, 0);
    KF_CHECK_NEAR(s->per_seed_success.min, 0.5, 0);
    KF_CHECK_NEAR(s->per_seed_geomean.median, sqrt(2), 1e-12);
    KF_CHECK_NEAR(s->per_seed_geomean.min, 1, 1e-12);
    KF_CHECK_NEAR(s->per_seed_geomean.max, 2, 1e-12);
    KF_CHECK_NEAR(s->per_seed_first_correct.max, 2.5, 1e-12);
    /* over problems: mean success (2/3 + 1) / 2, geomean of medians sqrt(3 x 1) */
    KF_CHECK_NEAR(s->mean_success, 5.0 / 6, 1e-12);
    KF_CHECK_NEAR(s->geomean_median_speedup, sqrt(3), 1e-12);
    KF_CHECK_INT(s->n_median_speedup, 2);
    /* a resample of two problems can only give 2/3, 5/6 or 1 and 1, sqrt 3 or 3 */
    KF_CHECK_NEAR(s->success_lo, 2.0 / 3, 1e-12);
    KF_CHECK_NEAR(s->success_hi, 1, 1e-12);
    KF_CHECK_NEAR(s->geomean_lo, 1, 1e-12);
    KF_CHECK_NEAR(s->geomean_hi, 3, 1e-12);
    /* reproducible: the same numbers again */
    kf_report r2;
    two_problems(&r2);
    KF_CHECK_NEAR(r2.seeds.success_lo, s->success_lo, 0);
    KF_CHECK_NEAR(r2.seeds.geomean_hi, s->geomean_hi, 0);
    kf_report_free(&r2);
    kf_report_free(&r);
}

KF_TEST(one_run_per_problem_has_no_seed_statistics)
{
    kf_report r;
    mem_report(&r, 2);
    entry(&r, 0, "P", 0, 1, 2.0, 1e-3, 1, 1);
    entry(&r, 1, "Q", 0, 1, 1.0, 1e-3, 1, 1);
    kf_report_summarize(&r);
    KF_CHECK_INT(r.n_groups, 0);
    char *root = kf_test_tmpdir(), path[4200];
    kf_error err = {0};
    KF_CHECK_MSG(kf_report_write_all(&r, root, &err) == 0, "%s", err.msg);
    snprintf(path, sizeof path, "%s/report.json", root);
    json_object *o = json_object_from_file(path), *v;
    KF_CHECK(o != NULL);
    KF_CHECK(!json_object_object_get_ex(o, "seeds", &v));
    json_object_put(o);
    snprintf(path, sizeof path, "%s/report.md", root);
    char *md = kf_read_file(path, &err);
    KF_CHECK(md && !strstr(md, "Over agent seeds") && !strstr(md, "(seed "));
    free(md);
    kf_report_free(&r);
}

static void put(const char *dir, const char *name, const char *text)
{
    char p[8600];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    kf_test_write_file(p, text);
}

KF_TEST(seeds_read_from_run_directories)
{
    char *root = kf_test_tmpdir(), d[4200];
    snprintf(d, sizeof d, "%s/runs", root);
    mkdir(d, 0777);
    /* X~s1: correct, first pass at step 2, best at step 3 */
    snprintf(d, sizeof d, "%s/runs/X~s1", root);
    mkdir(d, 0777);
    put(d, "run.json", "{\"agent_seed\": 1}");
    put(d, "result.json", "{\"problem\": \"X\", \"steps\": 3, \"baseline\": {\"median_s\": 0.004}, "
                          "\"best\": {\"dir\": \"steps/0003-0/candidate\", \"verified\": true, \"median_s\": 0.001}}");
    put(d, "journal.jsonl", "{\"ev\":\"eval\",\"step\":1,\"verdict\":\"mismatch\"}\n"
                            "{\"ev\":\"eval\",\"step\":2,\"verdict\":\"pass\",\"median_s\":0.002}\n"
                            "{\"ev\":\"best\",\"step\":2,\"median_s\":0.002}\n"
                            "{\"ev\":\"eval\",\"step\":3,\"verdict\":\"pass\",\"median_s\":0.001}\n"
                            "{\"ev\":\"best\",\"step\":3,\"median_s\":0.001}\n");
    /* X~s2: killed before its result: name and seed from the directory */
    snprintf(d, sizeof d, "%s/runs/X~s2", root);
    mkdir(d, 0777);
    put(d, "journal.jsonl", "{\"ev\":\"start\"}\n");
    char **dirs = NULL;
    kf_error err = {0};
    int n = kf_report_list_runs(root, &dirs, &err);
    KF_CHECK_INT(n, 2);
    kf_report r;
    KF_CHECK_MSG(kf_report_build((const char *const *)dirs, n, &r, &err) == 0, "%s", err.msg);
    KF_CHECK_STR(r.e[0].name, "X");
    KF_CHECK_INT(r.e[0].agent_seed, 1);
    KF_CHECK_INT(r.e[0].first_correct_step, 2);
    KF_CHECK_INT(r.e[0].best_step, 3);
    KF_CHECK_NEAR(r.e[0].speedup, 4, 1e-12);
    KF_CHECK_STR(r.e[1].name, "X");
    KF_CHECK_INT(r.e[1].agent_seed, 2);
    KF_CHECK_INT(r.e[1].status, KF_REPORT_NO_RESULT);
    KF_CHECK_INT(r.n_groups, 1);
    KF_CHECK_NEAR(r.groups[0].success_rate, 0.5, 0);
    KF_CHECK_MSG(kf_report_write_all(&r, root, &err) == 0, "%s", err.msg);
    char p[4200];
    snprintf(p, sizeof p, "%s/report.md", root);
    char *md = kf_read_file(p, &err);
    KF_CHECK(md != NULL);
    if (md) {
        KF_CHECK_CONTAINS(md, "## Over agent seeds");
        KF_CHECK_CONTAINS(md, "| X | 1/2 (0.50) | 2 [2..2] (2..2) | 3 [3..3] (3..3) | 4x [4x..4x] (4x..4x) |");
        KF_CHECK_CONTAINS(md, "| X (seed 2) | **no result**");
    }
    free(md);
    snprintf(p, sizeof p, "%s/report.json", root);
    json_object *o = json_object_from_file(p), *s, *pr, *v;
    KF_CHECK(o && json_object_object_get_ex(o, "seeds", &s) && json_object_object_get_ex(s, "problems", &pr));
    if (o && s && pr) {
        json_object *x = json_object_array_get_idx(pr, 0);
        KF_CHECK(json_object_object_get_ex(x, "success_rate", &v) && json_object_get_double(v) == 0.5);
        KF_CHECK(json_object_object_get_ex(x, "steps_to_best", &v) && json_object_object_get_ex(v, "median", &v) &&
                 json_object_get_double(v) == 3);
    }
    json_object_put(o);
    kf_report_free(&r);
    kf_report_free_list(dirs, n);
}

KF_TEST(pair_two_reports_by_problem)
{
    kf_report a, b;
    /* A: P 1 ms and 3 ms (median 2 ms), Q 4 ms, R only here; B: P 1 ms, Q 8 ms, S only here */
    mem_report(&a, 4);
    entry(&a, 0, "P", 1, 1, 2, 1e-3, 1, 1);
    entry(&a, 1, "P", 2, 1, 1, 3e-3, 1, 1);
    entry(&a, 2, "Q", 0, 1, 1, 4e-3, 1, 1);
    entry(&a, 3, "R", 0, 1, 1, 4e-3, 1, 1);
    mem_report(&b, 3);
    entry(&b, 0, "P", 0, 1, 3, 1e-3, 1, 1);
    entry(&b, 1, "Q", 0, 1, 1, 8e-3, 1, 1);
    entry(&b, 2, "S", 0, 0, 0, 0, 0, 0);
    kf_pair p;
    kf_error err = {0};
    KF_CHECK_INT(kf_report_pair(&a, &b, 0, &p, &err), 0);
    KF_CHECK_INT(p.n_rows, 4);
    KF_CHECK_STR(p.rows[0].name, "P");
    KF_CHECK_NEAR(p.rows[0].a, 2e-3, 1e-15);
    KF_CHECK_NEAR(p.rows[0].ratio, 2, 1e-12);
    KF_CHECK_NEAR(p.rows[1].ratio, 0.5, 1e-12);
    KF_CHECK_STR(p.rows[2].name, "R");
    KF_CHECK_INT(p.rows[2].runs_b, 0);
    KF_CHECK_NEAR(p.rows[2].ratio, 0, 0);
    KF_CHECK_STR(p.rows[3].name, "S");
    KF_CHECK_INT(p.rows[3].correct_b, 0);
    KF_CHECK_INT(p.n_paired, 2);
    KF_CHECK_INT(p.b_better, 1);
    KF_CHECK_INT(p.a_better, 1);
    KF_CHECK_NEAR(p.geomean_ratio, 1, 1e-12);
    KF_CHECK_INT(p.tested, 1);
    KF_CHECK_INT(p.w_exact, 0);             /* |log 2| twice: a tie, the normal approximation */
    KF_CHECK_NEAR(p.w_statistic, 1.5, 0);   /* tied ranks 1.5 each */
    KF_CHECK_NEAR(p.p, 1, 1e-12);           /* z = 0 */
    kf_pair_free(&p);
    /* speedup: P median 1.5 vs 3 (ratio 2), Q 1 vs 1: a zero difference */
    KF_CHECK_INT(kf_report_pair(&a, &b, 1, &p, &err), 0);
    KF_CHECK_NEAR(p.rows[0].ratio, 2, 1e-12);
    KF_CHECK_INT(p.equal, 1);
    char *root = kf_test_tmpdir(), path[4200];
    KF_CHECK_MSG(kf_report_write_pair(&p, "runs/a", "runs/b", root, &err) == 0, "%s", err.msg);
    snprintf(path, sizeof path, "%s/compare.json", root);
    json_object *o = json_object_from_file(path), *v;
    KF_CHECK(o && json_object_object_get_ex(o, "measure", &v) && !strcmp(json_object_get_string(v), "speedup"));
    json_object_put(o);
    snprintf(path, sizeof path, "%s/compare.md", root);
    char *md = kf_read_file(path, &err);
    KF_CHECK(md && strstr(md, "| P | 1.5x (2/2 correct) | 3x (1/1 correct) | 2 |"));
    KF_CHECK(md && strstr(md, "| R | 1x (1/1 correct) | not run | - |"));
    free(md);
    kf_pair_free(&p);
    kf_report_free(&a);
    kf_report_free(&b);
}

/* kforge suite --backend a,b --seeds N: one row per problem, the medians over seeds */
KF_TEST(backends_side_by_side_over_seeds)
{
    kf_report reps[2];
    two_problems(&reps[0]);
    mem_report(&reps[1], 2);
    entry(&reps[1], 0, "P", 0, 1, 1.0, 3e-3, 1, 1);
    entry(&reps[1], 1, "Q", 0, 0, 0, 0, 0, 0);
    kf_report_summarize(&reps[1]);
    const char *names[2] = {"cpu-simd", "opencl"};
    char *root = kf_test_tmpdir(), path[4200];
    kf_error err = {0};
    KF_CHECK_MSG(kf_report_write_compare(reps, names, 2, root, &err) == 0, "%s", err.msg);
    snprintf(path, sizeof path, "%s/compare.json", root);
    json_object *o = json_object_from_file(path), *rows = NULL, *v;
    KF_CHECK(o && json_object_object_get_ex(o, "problems", &rows));
    KF_CHECK_INT(rows ? json_object_array_length(rows) : 0, 2);
    if (rows && json_object_array_length(rows) == 2) {
        json_object *p0 = json_object_array_get_idx(rows, 0), *c;
        KF_CHECK(json_object_object_get_ex(p0, "cpu-simd", &c));
        KF_CHECK(json_object_object_get_ex(c, "best_s", &v) && fabs(json_object_get_double(v) - 0.75e-3) < 1e-15);
        KF_CHECK(json_object_object_get_ex(c, "speedup", &v) && fabs(json_object_get_double(v) - 3) < 1e-12);
        KF_CHECK(json_object_object_get_ex(c, "correct_runs", &v) && json_object_get_int(v) == 2);
    }
    json_object_put(o);
    snprintf(path, sizeof path, "%s/compare.md", root);
    char *md = kf_read_file(path, &err);
    KF_CHECK(md && strstr(md, "| P | 750 us (median, 2/3 correct) | 3x | 3 ms | 1x | 4 |"));
    free(md);
    kf_report_free(&reps[0]);
    kf_report_free(&reps[1]);
}

int main(void) { return kf_test_main(); }
