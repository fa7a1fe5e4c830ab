/* report_md.c — DIR/report.md (report.h). */
#include "util/fmt.h"
#include "config.h"
#include "report_internal.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

/* A table cell: '|' escaped, line breaks as spaces. */
static void cell(FILE *f, const char *text)
{
    if (!text) return;
    for (const char *p = text; *p; p++) {
        if (*p == '|') fputs("\\|", f);
        else if (*p == '\n' || *p == '\r') fputc(' ', f);
        else fputc(*p, f);
    }
}

static void settings_line(FILE *f, const char *settings_json)
{
    json_object *s = settings_json ? json_tokener_parse(settings_json) : NULL;
    if (!s || !json_object_is_type(s, json_type_object)) { json_object_put(s); return; }
    fputs("- Settings:", f);
    json_object_object_foreach(s, key, val) {
        fprintf(f, " %s=", key);
        cell(f, json_object_is_type(val, json_type_string)
                  ? json_object_get_string(val)
                  : json_object_to_json_string_ext(val, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    }
    fputc('\n', f);
    json_object_put(s);
}

static void summary(FILE *f, const kf_report *r)
{
    const kf_report_summary *s = &r->sum;
    char b1[32];
    fprintf(f, "## Summary\n\n");
    fprintf(f, "- Problems: %d, correct: %d, with a measured baseline: %d\n", s->n, s->n_correct, s->n_speedup);
    fprintf(f, "- Geometric-mean speedup over the correct problems: **%s** (%d problems)\n",
            kf_rep_speedup(s->geomean_correct, b1, sizeof b1), s->n_speedup);
    fprintf(f, "- Over all problems with 0 for the incorrect ones: %.3g (0 as soon as one problem has no correct kernel)\n",
            s->geomean_all_zero);
    fprintf(f, "- Over all problems with the baseline kept (1.0) for the incorrect ones: %.3gx\n", s->geomean_fallback);
    if (s->n_speedup)
        fprintf(f, "- Speedup range: %.2fx .. %.2fx\n", s->min_speedup, s->max_speedup);
    fprintf(f, "- Mean roofline fraction of the correct problems: %.1f%%\n", s->mean_fraction * 100);
    int n_cf = 0, n_repl = 0, n_base = 0;
    for (int i = 0; i < r->n; i++)
        if (r->e[i].status == KF_REPORT_CORRECT && r->e[i].confirm_rounds > 0) {
            n_cf++;
            n_repl += r->e[i].confirm_replaced;
            n_base += r->e[i].best_is_baseline;
        }
    if (n_cf) {
        fprintf(f, "- Final re-timing (the best and its runners-up timed again, the fastest median kept): %d problem%s, "
                   "the search's best replaced on %d", n_cf, n_cf == 1 ? "" : "s", n_repl);
        if (n_base) fprintf(f, " (by the op-by-op baseline's kernel on %d)", n_base);
        fputs("\n", f);
    }
    fprintf(f, "- GEMM anchor measured for %d problems; baselines over 1.5x their anchor: %d%s\n", s->n_anchor,
            s->n_anchor_warnings, s->n_anchor_warnings ? " (see Warnings)" : "");
    if (s->n_timing_warnings)
        fprintf(f, "- Bests timed at %gx or more the fastest time seen for them (the machine slower then): %d "
                   "(see Warnings)\n", KF_TIMING_WARN_RATIO, s->n_timing_warnings);
    fprintf(f, "- Tokens: %ld, cost: $%.4f\n\n", s->tokens, s->cost_usd);
    fprintf(f, "fast_p: fraction of all problems that are correct and have speedup > p (p = 0 counts the correct ones).\n\n");
    fputs("| p |", f);
    for (int k = 0; k < KF_REPORT_N_P; k++) fprintf(f, " %s |", kf_rep_p_label(k, b1, sizeof b1));
    fputs("\n| --- |", f);
    for (int k = 0; k < KF_REPORT_N_P; k++) fputs(" --- |", f);
    fputs("\n| fast_p |", f);
    for (int k = 0; k < KF_REPORT_N_P; k++)
        fprintf(f, " %.3f (%.0f/%d) |", s->fast_p[k], s->fast_p[k] * s->n, s->n);
    fputs("\n\n", f);
}

/* kforge suite --seeds N: per problem over its seeds, and the error bars */
static void seeds(FILE *f, const kf_report *r)
{
    if (r->n_groups == 0) return;
    const kf_report_seed_summary *s = &r->seeds;
    char b1[160], b2[160], b3[160];
    fprintf(f, "## Over agent seeds\n\n");
    fprintf(f, "- Agent seeds: %d per problem, %d problems, %d runs\n", s->seeds, r->n_groups, r->n);
    fprintf(f, "- Success rate, mean over problems: **%.3f** (bootstrap 95%%: %.3f..%.3f); per seed: %s\n",
            s->mean_success, s->success_lo, s->success_hi, kf_rep_spread(&s->per_seed_success, '3', b1, sizeof b1));
    if (s->n_median_speedup)
        fprintf(f, "- Geometric mean of the per-problem median speedups: **%.3gx** (bootstrap 95%%: %.3gx..%.3gx; "
                   "%d problems)\n", s->geomean_median_speedup, s->geomean_lo, s->geomean_hi, s->n_median_speedup);
    fprintf(f, "- Geometric-mean speedup per seed: %s\n", kf_rep_spread(&s->per_seed_geomean, 'x', b2, sizeof b2));
    fprintf(f, "- Mean steps to the first correct kernel per seed: %s\n\n",
            kf_rep_spread(&s->per_seed_first_correct, '2', b3, sizeof b3));
    fputs(KF_REP_SEEDS_NOTE ".\n\n", f);
    fputs("| problem | success | steps to first correct | steps to best | speedup | best time (median) |\n"
          "| --- | ---: | --- | --- | --- | ---: |\n", f);
    for (int g = 0; g < r->n_groups; g++) {
        const kf_report_group *gr = &r->groups[g];
        char t[32];
        fputs("| ", f);
        cell(f, gr->name);
        fprintf(f, " | %d/%d (%.2f) | %s", gr->n_correct, gr->n_runs, gr->success_rate,
                kf_rep_spread(&gr->first_correct, 'i', b1, sizeof b1));
        fprintf(f, " | %s", kf_rep_spread(&gr->best_step, 'i', b2, sizeof b2));
        fprintf(f, " | %s | %s |\n", kf_rep_spread(&gr->speedup, 'x', b3, sizeof b3),
                gr->best_s.n ? kf_fmt_duration(gr->best_s.median, t, sizeof t) : "-");
    }
    fputc('\n', f);
}

static void table(FILE *f, const kf_report *r)
{
    fputs("## Problems\n\n", f);
    fputs("| problem | status | best | baseline | baseline made by | GEMM anchor (library GEMM alone) | baseline / anchor "
          "| speedup | roofline | precision | steps | tokens | cost |\n", f);
    fputs("| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |\n", f);
    for (int i = 0; i < r->n; i++) {
        const kf_report_entry *e = &r->e[i];
        char t[32], b[32], sp[32];
        fputs("| ", f);
        cell(f, e->name);
        if (r->n_groups && e->agent_seed) fprintf(f, " (seed %d)", e->agent_seed);
        fputs(" | ", f);
        if (e->status == KF_REPORT_CORRECT) fputs("correct", f);
        else fprintf(f, "**%s**", kf_report_status_name(e->status));
        if (e->stop_reason && *e->stop_reason) {
            fputs(" (", f);
            cell(f, e->stop_reason);
            fputs(")", f);
        }
        fprintf(f, " | %s | %s | ", kf_fmt_duration(e->best_s, t, sizeof t), kf_fmt_duration(e->baseline_s, b, sizeof b));
        cell(f, e->baseline_how ? e->baseline_how : "-");
        char an[32], ra[32];
        fprintf(f, " | %s | %s%s%s", kf_fmt_duration(e->anchor_s, an, sizeof an), e->anchor_warning ? "**" : "",
                kf_rep_speedup(e->baseline_over_anchor, ra, sizeof ra), e->anchor_warning ? "** (warning)" : "");
        fprintf(f, " | %s | ", kf_rep_speedup(e->speedup, sp, sizeof sp));
        if (e->status == KF_REPORT_CORRECT) fprintf(f, "%.1f%%", e->fraction * 100);
        else fputs("-", f);
        fprintf(f, " | %s", e->status == KF_REPORT_CORRECT && e->precision ? e->precision : "-");
        fprintf(f, " | %d | %ld | $%.4f |\n", e->steps, e->tokens_in + e->tokens_out, e->cost_usd);
    }
    fputc('\n', f);
    fputs(KF_REP_ANCHOR_NOTE ".\n\n", f);
}

static void warnings(FILE *f, const kf_report *r)
{
    if (!r->sum.n_anchor_warnings && !r->sum.n_timing_warnings) return;
    fputs("## Warnings\n\n", f);
    for (int i = 0; i < r->n; i++) {
        const kf_report_entry *e = &r->e[i];
        if (e->timing_warning) {
            fputs("- ", f);
            cell(f, e->name);
            fputs(": ", f);
            cell(f, e->timing_warning);
            fputc('\n', f);
        }
        if (!e->anchor_warning) continue;
        char b[32], a[32];
        fputs("- ", f);
        cell(f, e->name);
        fprintf(f, ": baseline %s, GEMM anchor %s (", kf_fmt_duration(e->baseline_s, b, sizeof b),
                kf_fmt_duration(e->anchor_s, a, sizeof a));
        cell(f, e->anchor_how);
        fputs("): ", f);
        cell(f, e->anchor_warning);
        fputc('\n', f);
    }
    fputc('\n', f);
}

/* The problems against the anchors (--anchors FILE): PyTorch eager and
 * torch.compile, or one tool's time (ONNX Runtime). */
static void vs_anchors(FILE *f, const kf_report *r)
{
    if (!r->anchors_path) return;
    const kf_report_summary *s = &r->sum;
    const char *tool = kf_report_anchors_label(r);
    int two = r->anchors_has_compile;
    char b1[32], b2[32], b3[32], desc[512];
    fprintf(f, "## Against %s\n\n", tool);
    fputs("- Anchors: ", f);
    cell(f, r->anchors_path);
    fputs(": ", f);
    cell(f, kf_report_anchors_desc(r, desc, sizeof desc));
    if (r->anchors_machine) {
        fputs(" (", f);
        cell(f, r->anchors_machine);
        fputc(')', f);
    }
    fputc('\n', f);
    if (r->anchors_device && strcmp(r->anchors_device, "cpu") == 0) {
        if (r->anchors_threads > 0) fprintf(f, "- Threads: the anchors used %d; ", r->anchors_threads);
        else fputs("- Threads: the anchors do not say (no \"threads\" in the file); ", f);
        if (r->kforge_threads > 0)
            fprintf(f, "KForge's runs %d (their GEMM anchor's: KFORGE_THREADS, else all CPUs)", r->kforge_threads);
        else
            fputs(r->kforge_threads < 0 ? "KForge's runs differ among themselves"
                                        : "KForge's runs do not say (no GEMM anchor)", f);
        fprintf(f, "; this machine has %d CPUs%s\n", r->machine.cpus,
                r->kforge_threads != 0 && r->anchors_threads > 0 && r->kforge_threads != r->anchors_threads
                    ? ". **Not the same threads: compare with care**" : "");
    }
    fprintf(f, "- Anchors for %d of the %d problems", r->anchors_matched, r->n);
    const char *sep = "; none for: ";
    for (int i = 0; i < r->n; i++) {
        const kf_report_entry *e = &r->e[i];
        if (e->torch_eager_s > 0 || e->torch_compile_s > 0) continue;
        fputs(sep, f);
        cell(f, e->name ? e->name : "?");
        sep = ", ";
    }
    fputc('\n', f);
    if (two)
        fprintf(f, "- Geometric-mean speedup over the faster of eager and torch.compile, over the %d correct "
                   "problems with an anchor: **%s**\n", s->n_torch, kf_rep_speedup(s->geomean_vs_torch, b1, sizeof b1));
    else
        fprintf(f, "- Geometric-mean speedup over %s, over the %d correct problems with an anchor: **%s**\n", tool,
                s->n_torch, kf_rep_speedup(s->geomean_vs_torch, b1, sizeof b1));
    fprintf(f, "- fast_p against %s:", two ? "the faster of the two" : tool);
    for (int k = 0; k < KF_REPORT_N_P; k++)
        fprintf(f, " %s %.3f%s", kf_rep_p_label(k, b1, sizeof b1), s->fast_p_torch[k], k + 1 < KF_REPORT_N_P ? "," : "\n\n");
    if (two)
        fputs("| problem | best | eager | compile | vs eager | vs compile | vs the faster |\n"
              "| --- | --- | --- | --- | --- | --- | --- |\n", f);
    else
        fprintf(f, "| problem | best | %s | speedup |\n| --- | --- | --- | --- |\n", tool);
    for (int i = 0; i < r->n; i++) {
        const kf_report_entry *e = &r->e[i];
        int ok = e->status == KF_REPORT_CORRECT && e->best_s > 0;
        fputs("| ", f);
        cell(f, e->name);
        fprintf(f, " | %s | %s |", ok ? kf_fmt_time(e->best_s, b1, sizeof b1) : kf_report_status_name(e->status),
                e->torch_eager_s > 0 ? kf_fmt_time(e->torch_eager_s, b2, sizeof b2) : "-");
        if (two) {
            fprintf(f, " %s |", e->torch_compile_s > 0 ? kf_fmt_time(e->torch_compile_s, b3, sizeof b3) : "-");
            if (ok && e->torch_eager_s > 0) fprintf(f, " %.3gx |", e->torch_eager_s / e->best_s);
            else fputs(" - |", f);
            if (ok && e->torch_compile_s > 0) fprintf(f, " %.3gx |", e->torch_compile_s / e->best_s);
            else fputs(" - |", f);
        }
        if (e->vs_torch > 0) fprintf(f, " **%.3gx** |\n", e->vs_torch);
        else fputs(" - |\n", f);
    }
    fputc('\n', f);
}

int kf_report_write_md(const kf_report *r, const char *path, kf_error *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return kf_fail(err, KF_E_INTERNAL, "%s: out of memory", path);
    char devs[2048];
    kf_rep_devices(r, devs, sizeof devs);
    fprintf(f, "# KForge suite report\n\n");
    fprintf(f, "- Generated: %s by kforge %s\n", r->generated ? r->generated : "?", PACKAGE_VERSION);
    fprintf(f, "- Machine: %s, %s (%d CPUs), %s\n", r->machine.hostname ? r->machine.hostname : "?",
            r->machine.cpu_model ? r->machine.cpu_model : "unknown CPU", r->machine.cpus,
            r->machine.os ? r->machine.os : "?");
    fputs("- Devices: ", f);
    cell(f, devs);
    fputc('\n', f);
    settings_line(f, r->settings_json);
    fputc('\n', f);
    summary(f, r);
    seeds(f, r);
    vs_anchors(f, r);
    warnings(f, r);
    table(f, r);
    return kf_rep_finish(f, &buf, path, err);
}
