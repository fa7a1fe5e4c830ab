/* kforge report A B — two suite reports compared problem by problem, with
 * the Wilcoxon signed-rank test (core/suite/report.h kf_report_pair).  A
 * subcommand of its own, not a `kforge suite` option: it runs nothing and
 * reads two finished report directories. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "common.h"
#include "util/error.h"
#include "util/fileio.h"
#include "suite/report.h"

static void report_usage(FILE *f)
{
    fprintf(f,
        "usage: kforge report A B [--measure time|speedup] [--out DIR]\n"
        "\n"
        "Compares two suite report directories (kforge suite --report A, --report B) problem by\n"
        "problem: per problem the median over its runs (agent seeds) of the correct runs' best\n"
        "time (default) or speedup over the baseline, the ratio (> 1: B is better), and the\n"
        "two-sided Wilcoxon signed-rank test over the problems; writes DIR/compare.md and\n"
        "DIR/compare.json (DIR: --out, default the current directory).\n"
        "\n"
        "exit status: 0 compared, 2 bad input (not a report directory, no runs), 3 internal error\n");
}

static int load(const char *dir, kf_report *r)
{
    char **dirs = NULL;
    kf_error err = {0};
    int n = kf_report_list_runs(dir, &dirs, &err);
    if (n < 0) {
        kf_cli_error("%s", err.msg);
        return KF_EXIT_BAD_INPUT;
    }
    if (n == 0) {
        kf_cli_error("%s/runs holds no run directories: give the --report directory of a suite", dir);
        kf_report_free_list(dirs, n);
        return KF_EXIT_BAD_INPUT;
    }
    int rc = kf_report_build((const char *const *)dirs, n, r, &err);
    kf_report_free_list(dirs, n);
    if (rc != 0) {
        kf_cli_error("%s", err.msg);
        return kf_exit_code(err.kind);
    }
    return 0;
}

int kf_cmd_report(int argc, char **argv)
{
    const char *out = ".", *measure = "time";
    enum { O_OUT = 1, O_MEASURE, O_HELP };
    static const struct option opts[] = {
        {"out", required_argument, 0, O_OUT}, {"measure", required_argument, 0, O_MEASURE},
        {"help", no_argument, 0, O_HELP}, {0, 0, 0, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case O_OUT: out = optarg; break;
        case O_MEASURE: measure = optarg; break;
        case O_HELP: report_usage(stdout); return 0;
        default: report_usage(stderr); return KF_EXIT_BAD_INPUT;
        }
    }
    if (argc - optind != 2) {
        kf_cli_error("report needs two suite report directories, A and B");
        report_usage(stderr);
        return KF_EXIT_BAD_INPUT;
    }
    if (strcmp(measure, "time") && strcmp(measure, "speedup")) {
        kf_cli_error("--measure %s: use time or speedup", measure);
        return KF_EXIT_BAD_INPUT;
    }
    const char *da = argv[optind], *db = argv[optind + 1];
    kf_report a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    int code = load(da, &a);
    if (code == 0) code = load(db, &b);
    kf_pair p;
    memset(&p, 0, sizeof p);
    kf_error err = {0};
    if (code == 0 && (kf_report_pair(&a, &b, !strcmp(measure, "speedup"), &p, &err) != 0 ||
                      kf_mkdir_p(out, &err) != 0 || kf_report_write_pair(&p, da, db, out, &err) != 0)) {
        kf_cli_error("%s", err.msg);
        code = kf_exit_code(err.kind);
    }
    if (code == 0) {
        printf("%-40s %22s %22s %8s\n", "problem", "A", "B", "ratio");
        for (int i = 0; i < p.n_rows; i++) {
            const kf_pair_row *row = &p.rows[i];
            char ta[48], tb[48];
            if (row->a > 0) snprintf(ta, sizeof ta, p.measure_speedup ? "%.3gx" : "%.4g s", row->a);
            else snprintf(ta, sizeof ta, row->runs_a ? "-" : "not run");
            if (row->b > 0) snprintf(tb, sizeof tb, p.measure_speedup ? "%.3gx" : "%.4g s", row->b);
            else snprintf(tb, sizeof tb, row->runs_b ? "-" : "not run");
            printf("%-40s %22s %22s ", row->name, ta, tb);
            if (row->ratio > 0) printf("%8.3g\n", row->ratio);
            else printf("%8s\n", "-");
        }
        printf("\n%d paired; B better on %d, A better on %d; geometric-mean ratio %.3g (%s)\n", p.n_paired, p.b_better,
               p.a_better, p.geomean_ratio, p.measure_speedup ? "speedup B / speedup A" : "time A / time B");
        if (p.tested)
            printf("Wilcoxon signed-rank (two-sided, %s): n = %d, statistic %g, p = %.4g\n",
                   p.w_exact ? "exact" : "normal approximation", p.w_n, p.w_statistic, p.p);
        else
            printf("Wilcoxon signed-rank: not computed (%s)\n", p.why_untested);
        printf("written: %s/compare.md, %s/compare.json\n", out, out);
    }
    kf_pair_free(&p);
    kf_report_free(&a);
    kf_report_free(&b);
    return code;
}
