/* report_compare.c — REPORT/compare.{md,json}: the same problems on several
 * backends side by side (kforge suite --backend a,b; report.h). */
#include "util/fmt.h"
#include "config.h"
#include "report_internal.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The entry of problem `name` in r, or NULL. */
static const kf_report_entry *find(const kf_report *r, const char *name)
{
    for (int i = 0; i < r->n; i++)
        if (r->e[i].name && !strcmp(r->e[i].name, name)) return &r->e[i];
    return NULL;
}

static const char *time_text(const kf_report_entry *e, char *buf, size_t n)
{
    if (!e) return "not run";
    if (e->status != KF_REPORT_CORRECT) return kf_report_status_name(e->status);
    return kf_fmt_time(e->best_s, buf, n);
}

/* With several agent seeds (suite --seeds N) a problem's figures are the
 * medians over its correct runs: its group, or NULL. */
static const kf_report_group *group_of(const kf_report *r, const char *name)
{
    for (int g = 0; g < r->n_groups; g++)
        if (!strcmp(r->groups[g].name, name)) return &r->groups[g];
    return NULL;
}

int kf_report_write_compare(const kf_report *reps, const char *const *backends, int nb, const char *report_dir,
                            kf_error *err)
{
    if (nb < 1) return 0;
    char path[4200];
    snprintf(path, sizeof path, "%s/compare.md", report_dir);
    FILE *f = fopen(path, "w");
    if (!f) return kf_fail_errno(err, errno, "cannot write %s: %s", path, strerror(errno));
    json_object *root = json_object_new_object(), *jb = json_object_new_array(), *jp = json_object_new_array();
    for (int b = 0; b < nb; b++) json_object_array_add(jb, json_object_new_string(backends[b]));
    json_object_object_add(root, "backends", jb);

    fprintf(f, "# The same problems on %d backends\n\n", nb);
    fprintf(f, "Each backend's own report: ");
    for (int b = 0; b < nb; b++) fprintf(f, "%s[%s](%s/report.md)", b ? ", " : "", backends[b], backends[b]);
    fprintf(f, ".  Times are each backend's best verified kernel (median, its device's clock); the "
               "speedup is over that backend's own op-by-op baseline.\n\n");
    fprintf(f, "| backend | correct | geomean speedup | mean roofline fraction |\n| --- | --- | --- | --- |\n");
    for (int b = 0; b < nb; b++)
        fprintf(f, "| %s | %d/%d | %.3gx | %.1f%% |\n", backends[b], reps[b].sum.n_correct, reps[b].sum.n,
                reps[b].sum.geomean_correct, reps[b].sum.mean_fraction * 100);
    fprintf(f, "\n| problem |");
    for (int b = 0; b < nb; b++) fprintf(f, " %s best | %s speedup |", backends[b], backends[b]);
    if (nb >= 2) fprintf(f, " %s / %s time |", backends[1], backends[0]);
    fprintf(f, "\n| --- |");
    for (int b = 0; b < nb; b++) fputs(" --- | --- |", f);
    if (nb >= 2) fputs(" --- |", f);
    fputc('\n', f);
    /* the problems in the first backend's order, then any only the others have */
    for (int b = 0; b < nb; b++) {
        for (int i = 0; i < reps[b].n; i++) {
            const char *name = reps[b].e[i].name;
            int seen = 0;
            for (int k = 0; k < b && !seen; k++) seen = find(&reps[k], name) != NULL;
            /* several runs of one problem (agent seeds): one row */
            for (int j = 0; j < i && !seen && name; j++) seen = reps[b].e[j].name && !strcmp(reps[b].e[j].name, name);
            if (seen || !name) continue;
            json_object *row = json_object_new_object();
            json_object_object_add(row, "problem", json_object_new_string(name));
            fprintf(f, "| %s |", name);
            double t[2] = {0, 0};
            for (int k = 0; k < nb; k++) {
                const kf_report_entry *e = find(&reps[k], name);
                const kf_report_group *g = e ? group_of(&reps[k], name) : NULL;
                int ok = g ? g->n_correct > 0 : e && e->status == KF_REPORT_CORRECT;
                double best = g ? g->best_s.median : ok ? e->best_s : 0;
                double sp = g ? g->speedup.median : ok ? e->speedup : 0;
                char tb[32];
                if (g && ok) fprintf(f, " %s (median, %d/%d correct) |", kf_fmt_time(best, tb, sizeof tb), g->n_correct,
                                     g->n_runs);
                else if (g) fprintf(f, " 0/%d correct |", g->n_runs);
                else fprintf(f, " %s |", time_text(e, tb, sizeof tb));
                if (ok && sp > 0) fprintf(f, " %.3gx |", sp);
                else fputs(" - |", f);
                json_object *c = json_object_new_object();
                json_object_object_add(c, "status", json_object_new_string(g ? (ok ? "correct" : "incorrect")
                                                                           : e ? kf_report_status_name(e->status)
                                                                               : "not run"));
                json_object_object_add(c, "best_s", ok && best > 0 ? json_object_new_double(best) : NULL);
                json_object_object_add(c, "speedup", ok && sp > 0 ? json_object_new_double(sp) : NULL);
                if (g) {
                    json_object_object_add(c, "runs", json_object_new_int(g->n_runs));
                    json_object_object_add(c, "correct_runs", json_object_new_int(g->n_correct));
                }
                json_object_object_add(row, backends[k], c);
                if (k < 2 && ok) t[k] = best;
            }
            if (nb >= 2) {
                if (t[0] > 0 && t[1] > 0) fprintf(f, " %.3g |", t[1] / t[0]);
                else fputs(" - |", f);
            }
            fputc('\n', f);
            json_object_array_add(jp, row);
        }
    }
    json_object_object_add(root, "problems", jp);
    int bad = fclose(f) != 0;
    snprintf(path, sizeof path, "%s/compare.json", report_dir);
    const char *txt = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                                                               JSON_C_TO_STRING_NOSLASHESCAPE);
    FILE *j = fopen(path, "w");
    if (!j || fputs(txt, j) < 0) bad = 1;
    if (j && fclose(j) != 0) bad = 1;
    json_object_put(root);
    if (bad) return kf_fail_errno(err, errno ? errno : EIO, "cannot write %s/compare.{md,json}", report_dir);
    return 0;
}
