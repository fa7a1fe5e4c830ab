/* report_pair.c — kforge report A B: two suite reports compared problem by
 * problem, with the Wilcoxon signed-rank test over the problems
 * (report.h, wilcoxon.h); DIR/compare.md and DIR/compare.json. */
#include "util/fileio.h"
#include "util/fmt.h"
#include "config.h"
#include "report_internal.h"
#include "wilcoxon.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The median figure of problem `name` in r over its runs; *runs and
 * *correct count them. */
static double figure(const kf_report *r, const char *name, int speedup, int *runs, int *correct)
{
    double *v = calloc(r->n > 0 ? (size_t)r->n : 1, sizeof *v);
    int n = 0;
    *runs = *correct = 0;
    for (int i = 0; i < r->n; i++) {
        const kf_report_entry *e = &r->e[i];
        if (!e->name || strcmp(e->name, name)) continue;
        (*runs)++;
        if (e->status != KF_REPORT_CORRECT) continue;
        (*correct)++;
        double x = speedup ? e->speedup : e->best_s;
        if (x > 0 && v) v[n++] = x;
    }
    kf_report_spread s;
    kf_report_spread_of(v, n, &s);
    free(v);
    return s.n ? s.median : 0;
}

static int has_row(const kf_pair *p, const char *name)
{
    for (int i = 0; i < p->n_rows; i++)
        if (!strcmp(p->rows[i].name, name)) return 1;
    return 0;
}

void kf_pair_free(kf_pair *p)
{
    if (!p) return;
    free(p->rows);
    memset(p, 0, sizeof *p);
}

int kf_report_pair(const kf_report *a, const kf_report *b, int measure_speedup, kf_pair *out, kf_error *err)
{
    memset(out, 0, sizeof *out);
    out->measure_speedup = measure_speedup;
    out->rows = calloc((size_t)(a->n + b->n + 1), sizeof *out->rows);
    double *d = calloc((size_t)(a->n + b->n + 1), sizeof *d);
    if (!out->rows || !d) {
        free(d);
        kf_pair_free(out);
        return kf_fail(err, KF_E_INTERNAL, "out of memory");
    }
    const kf_report *both[2] = {a, b};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < both[k]->n; i++) {
            const char *name = both[k]->e[i].name;
            if (!name || has_row(out, name)) continue;
            kf_pair_row *row = &out->rows[out->n_rows++];
            row->name = name;
            row->a = figure(a, name, measure_speedup, &row->runs_a, &row->correct_a);
            row->b = figure(b, name, measure_speedup, &row->runs_b, &row->correct_b);
            if (row->a > 0 && row->b > 0) row->ratio = measure_speedup ? row->b / row->a : row->a / row->b;
        }
    double logs = 0;
    for (int i = 0; i < out->n_rows; i++) {
        const kf_pair_row *row = &out->rows[i];
        if (row->ratio <= 0) continue;
        d[out->n_paired++] = log(row->ratio);
        logs += log(row->ratio);
        if (row->ratio > 1) out->b_better++;
        else if (row->ratio < 1) out->a_better++;
        else out->equal++;
    }
    out->geomean_ratio = out->n_paired ? exp(logs / out->n_paired) : 0;
    kf_wilcoxon w;
    kf_error werr = {0};
    if (out->n_paired == 0) {
        snprintf(out->why_untested, sizeof out->why_untested, "no problem has a figure in both reports");
    } else if (kf_wilcoxon_test(d, out->n_paired, &w, &werr) != 0) {
        snprintf(out->why_untested, sizeof out->why_untested, "%s", werr.msg);
    } else {
        out->tested = 1;
        out->w_statistic = w.statistic;
        out->w_plus = w.w_plus;
        out->w_minus = w.w_minus;
        out->z = w.z;
        out->p = w.p;
        out->w_n = w.n;
        out->w_exact = w.exact;
    }
    free(d);
    return 0;
}

static const char *fig_text(const kf_pair *p, const kf_pair_row *row, double x, int runs, int correct, char *buf,
                            size_t n)
{
    char t[32];
    if (runs == 0) snprintf(buf, n, "not run");
    else if (x <= 0) snprintf(buf, n, "%s (%d/%d correct)", correct ? "no speedup" : "none correct", correct, runs);
    else if (p->measure_speedup) snprintf(buf, n, "%.3gx (%d/%d correct)", x, correct, runs);
    else snprintf(buf, n, "%s (%d/%d correct)", kf_fmt_duration(x, t, sizeof t), correct, runs);
    (void)row;
    return buf;
}

/* Markdown text: '|' escaped, line breaks as spaces */
static void cell(FILE *f, const char *text)
{
    for (const char *c = text ? text : ""; *c; c++) {
        if (*c == '|') fputs("\\|", f);
        else if (*c == '\n' || *c == '\r') fputc(' ', f);
        else fputc(*c, f);
    }
}

static json_object *side(double x, int runs, int correct)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "runs", json_object_new_int(runs));
    json_object_object_add(o, "correct", json_object_new_int(correct));
    json_object_object_add(o, "median", x > 0 ? json_object_new_double(x) : NULL);
    return o;
}

int kf_report_write_pair(const kf_pair *p, const char *label_a, const char *label_b, const char *dir, kf_error *err)
{
    const char *what = p->measure_speedup ? "median speedup over its baseline" : "median best time";
    char *buf = NULL;
    size_t len = 0;
    char path[4200];
    snprintf(path, sizeof path, "%s/compare.md", dir);
    FILE *f = open_memstream(&buf, &len);
    if (!f) return kf_fail(err, KF_E_INTERNAL, "%s: out of memory", path);
    fprintf(f, "# Two suite reports, problem by problem\n\n- A: ");
    cell(f, label_a);
    fputs("\n- B: ", f);
    cell(f, label_b);
    fprintf(f, "\n- Per problem: the %s of the correct runs (over its agent seeds); ratio = %s, > 1: B is better\n",
            what, p->measure_speedup ? "speedup B / speedup A" : "time A / time B");
    fprintf(f, "- Paired problems: %d; B better on %d, A better on %d, equal on %d; geometric-mean ratio **%.3g**\n",
            p->n_paired, p->b_better, p->a_better, p->equal, p->geomean_ratio);
    if (p->tested)
        fprintf(f, "- Wilcoxon signed-rank test on log(ratio), two-sided: n = %d, W+ = %g, W- = %g, statistic %g, "
                   "%s, **p = %.4g**\n", p->w_n, p->w_plus, p->w_minus, p->w_statistic,
                p->w_exact ? "exact distribution" : "normal approximation (tie-corrected)", p->p);
    else
        fprintf(f, "- Wilcoxon signed-rank test: not computed (%s)\n", p->why_untested);
    fputs("\n| problem | A | B | ratio |\n| --- | ---: | ---: | ---: |\n", f);
    json_object *root = json_object_new_object(), *rows = json_object_new_array();
    json_object_object_add(root, "a", json_object_new_string(label_a));
    json_object_object_add(root, "b", json_object_new_string(label_b));
    json_object_object_add(root, "measure", json_object_new_string(p->measure_speedup ? "speedup" : "time"));
    json_object_object_add(root, "ratio", json_object_new_string(p->measure_speedup ? "speedup_b / speedup_a"
                                                                                    : "time_a / time_b"));
    for (int i = 0; i < p->n_rows; i++) {
        const kf_pair_row *row = &p->rows[i];
        char ta[96], tb[96];
        fputs("| ", f);
        cell(f, row->name);
        fprintf(f, " | %s | %s | ", fig_text(p, row, row->a, row->runs_a, row->correct_a, ta, sizeof ta),
                fig_text(p, row, row->b, row->runs_b, row->correct_b, tb, sizeof tb));
        if (row->ratio > 0) fprintf(f, "%.3g |\n", row->ratio);
        else fputs("- |\n", f);
        json_object *o = json_object_new_object();
        json_object_object_add(o, "problem", json_object_new_string(row->name));
        json_object_object_add(o, "a", side(row->a, row->runs_a, row->correct_a));
        json_object_object_add(o, "b", side(row->b, row->runs_b, row->correct_b));
        json_object_object_add(o, "ratio", row->ratio > 0 ? json_object_new_double(row->ratio) : NULL);
        json_object_array_add(rows, o);
    }
    json_object_object_add(root, "problems", rows);
    json_object *s = json_object_new_object();
    json_object_object_add(s, "paired", json_object_new_int(p->n_paired));
    json_object_object_add(s, "b_better", json_object_new_int(p->b_better));
    json_object_object_add(s, "a_better", json_object_new_int(p->a_better));
    json_object_object_add(s, "equal", json_object_new_int(p->equal));
    json_object_object_add(s, "geomean_ratio", p->n_paired ? json_object_new_double(p->geomean_ratio) : NULL);
    json_object *w = json_object_new_object();
    if (p->tested) {
        json_object_object_add(w, "n", json_object_new_int(p->w_n));
        json_object_object_add(w, "w_plus", json_object_new_double(p->w_plus));
        json_object_object_add(w, "w_minus", json_object_new_double(p->w_minus));
        json_object_object_add(w, "statistic", json_object_new_double(p->w_statistic));
        json_object_object_add(w, "method", json_object_new_string(p->w_exact ? "exact" : "normal approximation"));
        if (!p->w_exact) json_object_object_add(w, "z", json_object_new_double(p->z));
        json_object_object_add(w, "p", json_object_new_double(p->p));
    } else {
        json_object_object_add(w, "p", NULL);
        json_object_object_add(w, "why_not", json_object_new_string(p->why_untested));
    }
    json_object_object_add(s, "wilcoxon", w);
    json_object_object_add(root, "summary", s);
    fputs("\nPairs are matched by problem name; a problem without a correct run in one report has no ratio and is "
          "left out of the test. The test is two-sided, zero differences dropped, ties ranked by their average "
          "rank; exact for up to 50 untied differences, else the normal approximation.\n", f);
    int rc = kf_rep_finish(f, &buf, path, err);
    if (rc == 0) {
        snprintf(path, sizeof path, "%s/compare.json", dir);
        rc = kf_write_file_atomic(path, json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
                                                                           JSON_C_TO_STRING_NOSLASHESCAPE), err);
    }
    json_object_put(root);
    return rc;
}
