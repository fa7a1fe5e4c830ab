/* report_html.c — DIR/report.html: one self-contained page (inline CSS and
 * inline SVG; no scripts, fonts or other external resources). */
#include "util/fmt.h"
#include "config.h"
#include "report_internal.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

static const char *CSS =
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em;color:#222;max-width:1200px}\n"
    "h1{font-size:1.6em}h2{font-size:1.25em;margin-top:1.6em;border-bottom:1px solid #ddd}\n"
    "table{border-collapse:collapse;font-size:.9em}td,th{border:1px solid #ccc;padding:3px 8px}\n"
    "th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
    "tr.bad td{background:#fff1f0}.ok{color:#1a7f37}.ko{color:#c62828;font-weight:bold}\n"
    ".meta{color:#555}.big{font-size:1.3em;font-weight:bold}\n"
    "svg{font-size:10px;font-family:inherit;background:#fff}\n"
    ".grid{stroke:#e4e4e4}.one{stroke:#333;stroke-dasharray:5 3}.yl,.xl{fill:#444}\n"
    ".up{fill:#2e9e4f}.down{fill:#d9534f}.roof{fill:#3b6fb6}.miss{fill:#c62828;font-size:13px}\n"
    ".frame{fill:none;stroke:#ccc}.base{stroke:#e08a00;stroke-dasharray:4 3}\n"
    ".best{fill:none;stroke:#3b6fb6;stroke-width:2}.pt{fill:#777}.tt{font-weight:bold;fill:#222}\n"
    ".traces{display:flex;flex-wrap:wrap;gap:8px}.scroll{overflow-x:auto}\n"
    ".warn{color:#b35c00;font-weight:bold}\n";

static void td(FILE *f, const char *cls, const char *text)
{
    fprintf(f, "<td%s%s%s>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
    kf_rep_html_escape(f, text);
    fputs("</td>", f);
}

static void header(FILE *f, const kf_report *r)
{
    char devs[2048], cpus[32];
    kf_rep_devices(r, devs, sizeof devs);
    fputs("<h1>KForge suite report</h1>\n<p class=\"meta\">Generated ", f);
    kf_rep_html_escape(f, r->generated ? r->generated : "?");
    fputs(" by kforge " PACKAGE_VERSION "</p>\n<table>\n<tr><th>host</th>", f);
    td(f, NULL, r->machine.hostname ? r->machine.hostname : "?");
    fputs("</tr>\n<tr><th>CPU</th>", f);
    snprintf(cpus, sizeof cpus, " (%d CPUs)", r->machine.cpus);
    fputs("<td>", f);
    kf_rep_html_escape(f, r->machine.cpu_model ? r->machine.cpu_model : "unknown");
    kf_rep_html_escape(f, cpus);
    fputs("</td></tr>\n<tr><th>OS</th>", f);
    td(f, NULL, r->machine.os ? r->machine.os : "?");
    fputs("</tr>\n<tr><th>devices</th>", f);
    td(f, NULL, devs);
    fputs("</tr>\n", f);
    json_object *s = r->settings_json ? json_tokener_parse(r->settings_json) : NULL;
    if (s && json_object_is_type(s, json_type_object)) {
        json_object_object_foreach(s, key, val) {
            fputs("<tr><th>", f);
            kf_rep_html_escape(f, key);
            fputs("</th>", f);
            td(f, NULL, json_object_is_type(val, json_type_string)
                      ? json_object_get_string(val)
                      : json_object_to_json_string_ext(val, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
            fputs("</tr>\n", f);
        }
    }
    json_object_put(s);
    fputs("</table>\n", f);
}

static void summary(FILE *f, const kf_report *r)
{
    const kf_report_summary *s = &r->sum;
    char b[32];
    fprintf(f, "<h2>Summary</h2>\n<p><span class=\"big\">%d / %d correct</span> &nbsp; "
               "<span class=\"big\">geometric-mean speedup %s</span> over the %d correct problems with a "
               "measured baseline</p>\n", s->n_correct, s->n, kf_rep_speedup(s->geomean_correct, b, sizeof b),
            s->n_speedup);
    fprintf(f, "<p>Over all problems with 0 for the incorrect ones: %.3g (0 as soon as one problem has no "
               "correct kernel); with the baseline kept (1.0) for them: %.3gx.", s->geomean_all_zero,
            s->geomean_fallback);
    if (s->n_speedup) fprintf(f, " Speedup range %.2fx .. %.2fx.", s->min_speedup, s->max_speedup);
    fprintf(f, " Mean roofline fraction of the correct problems %.1f%%. Tokens %ld, cost $%.4f.</p>\n",
            s->mean_fraction * 100, s->tokens, s->cost_usd);
    fprintf(f, "<p>GEMM anchor measured for %d problems; baselines over 1.5x their anchor: %d.</p>\n", s->n_anchor,
            s->n_anchor_warnings);
    if (s->n_timing_warnings)
        fprintf(f, "<p>Bests timed at %gx or more the fastest time seen for them (the machine slower then): %d.</p>\n",
                KF_TIMING_WARN_RATIO, s->n_timing_warnings);
    if (s->n_anchor_warnings || s->n_timing_warnings) {
        fputs("<h2>Warnings</h2>\n<ul>\n", f);
        for (int i = 0; i < r->n; i++) {
            const kf_report_entry *e = &r->e[i];
            if (e->timing_warning) {
                fputs("<li class=\"warn\"><b>", f);
                kf_rep_html_escape(f, e->name);
                fputs("</b>: ", f);
                kf_rep_html_escape(f, e->timing_warning);
                fputs("</li>\n", f);
            }
            if (!e->anchor_warning) continue;
            char bl[32], an[32];
            fputs("<li class=\"warn\"><b>", f);
            kf_rep_html_escape(f, e->name);
            fprintf(f, "</b>: baseline %s, GEMM anchor %s (", kf_fmt_duration(e->baseline_s, bl, sizeof bl),
                    kf_fmt_duration(e->anchor_s, an, sizeof an));
            kf_rep_html_escape(f, e->anchor_how);
            fputs("): ", f);
            kf_rep_html_escape(f, e->anchor_warning);
            fputs("</li>\n", f);
        }
        fputs("</ul>\n", f);
    }
    fputs("<table>\n<tr><th>p</th>", f);
    for (int k = 0; k < KF_REPORT_N_P; k++) fprintf(f, "<th>%s</th>", kf_rep_p_label(k, b, sizeof b));
    fputs("</tr>\n<tr><th>fast_p</th>", f);
    for (int k = 0; k < KF_REPORT_N_P; k++)
        fprintf(f, "<td class=\"n\">%.3f (%.0f/%d)</td>", s->fast_p[k], s->fast_p[k] * s->n, s->n);
    fputs("</tr>\n</table>\n<p class=\"meta\">fast_p: the fraction of all problems that are correct and "
          "have speedup &gt; p over the baseline (p = 0 counts the correct ones).</p>\n", f);
}

/* kforge suite --seeds N: per problem over its seeds, and the error bars */
static void seeds(FILE *f, const kf_report *r)
{
    if (r->n_groups == 0) return;
    const kf_report_seed_summary *s = &r->seeds;
    char b1[160], b2[160], b3[160];
    fprintf(f, "<h2>Over agent seeds</h2>\n<p><span class=\"big\">success rate %.3f</span> (bootstrap 95%%: "
               "%.3f..%.3f) over %d problems, %d agent seeds each", s->mean_success, s->success_lo, s->success_hi,
            r->n_groups, s->seeds);
    if (s->n_median_speedup)
        fprintf(f, "; <span class=\"big\">geometric mean of the median speedups %.3gx</span> (bootstrap 95%%: "
                   "%.3gx..%.3gx, %d problems)", s->geomean_median_speedup, s->geomean_lo, s->geomean_hi,
                s->n_median_speedup);
    fputs(".</p>\n<p>Per seed, median [quartiles] (min..max) over the seeds: success rate ", f);
    kf_rep_html_escape(f, kf_rep_spread(&s->per_seed_success, '3', b1, sizeof b1));
    fputs("; geometric-mean speedup ", f);
    kf_rep_html_escape(f, kf_rep_spread(&s->per_seed_geomean, 'x', b2, sizeof b2));
    fputs("; mean steps to the first correct kernel ", f);
    kf_rep_html_escape(f, kf_rep_spread(&s->per_seed_first_correct, '2', b3, sizeof b3));
    fputs(".</p>\n<div class=\"scroll\"><table>\n<tr><th>problem</th><th>success</th><th>steps to first correct</th>"
          "<th>steps to best</th><th>speedup</th><th>best time (median)</th></tr>\n", f);
    for (int g = 0; g < r->n_groups; g++) {
        const kf_report_group *gr = &r->groups[g];
        char su[64], t[32];
        fprintf(f, "<tr%s>", gr->n_correct == gr->n_runs ? "" : " class=\"bad\"");
        td(f, NULL, gr->name);
        snprintf(su, sizeof su, "%d/%d (%.2f)", gr->n_correct, gr->n_runs, gr->success_rate);
        td(f, "n", su);
        td(f, "n", kf_rep_spread(&gr->first_correct, 'i', b1, sizeof b1));
        td(f, "n", kf_rep_spread(&gr->best_step, 'i', b2, sizeof b2));
        td(f, "n", kf_rep_spread(&gr->speedup, 'x', b3, sizeof b3));
        td(f, "n", gr->best_s.n ? kf_fmt_duration(gr->best_s.median, t, sizeof t) : "-");
        fputs("</tr>\n", f);
    }
    fputs("</table></div>\n<p class=\"meta\">", f);
    kf_rep_html_escape(f, KF_REP_SEEDS_NOTE ".");
    fputs("</p>\n", f);
}

static void problems(FILE *f, const kf_report *r)
{
    fputs("<h2>Problems</h2>\n<div class=\"scroll\"><table>\n<tr><th>problem</th><th>status</th>"
          "<th>stop reason</th><th>best</th><th>baseline</th><th>baseline made by</th>"
          "<th>GEMM anchor (library GEMM alone)</th><th>baseline / anchor</th><th>speedup</th>"
          "<th>roofline</th><th>precision</th><th>steps</th><th>tokens</th><th>cost</th></tr>\n", f);
    for (int i = 0; i < r->n; i++) {
        const kf_report_entry *e = &r->e[i];
        char t[32], bl[32], sp[32], fr[32], st[32], tok[32], cost[32];
        int ok = e->status == KF_REPORT_CORRECT;
        fprintf(f, "<tr%s>", ok ? "" : " class=\"bad\"");
        if (r->n_groups && e->agent_seed) {
            char nm[512];
            snprintf(nm, sizeof nm, "%s (seed %d)", e->name, e->agent_seed);
            td(f, NULL, nm);
        } else {
            td(f, NULL, e->name);
        }
        td(f, ok ? "ok" : "ko", kf_report_status_name(e->status));
        td(f, NULL, kf_rep_reason(e));
        td(f, "n", kf_fmt_duration(e->best_s, t, sizeof t));
        td(f, "n", kf_fmt_duration(e->baseline_s, bl, sizeof bl));
        td(f, NULL, e->baseline_how ? e->baseline_how : "-");
        char an[32], ra[32];
        fputs("<td class=\"n\"", f);
        if (e->anchor_how) {
            fputs(" title=\"", f);
            kf_rep_html_escape(f, e->anchor_how);
            fputs("\"", f);
        }
        fputc('>', f);
        kf_rep_html_escape(f, kf_fmt_duration(e->anchor_s, an, sizeof an));
        fputs("</td>", f);
        td(f, e->anchor_warning ? "n warn" : "n", kf_rep_speedup(e->baseline_over_anchor, ra, sizeof ra));
        td(f, "n", kf_rep_speedup(e->speedup, sp, sizeof sp));
        if (ok) snprintf(fr, sizeof fr, "%.1f%%", e->fraction * 100);
        else snprintf(fr, sizeof fr, "-");
        td(f, "n", fr);
        td(f, NULL, ok && e->precision ? e->precision : "-");
        snprintf(st, sizeof st, "%d", e->steps);
        td(f, "n", st);
        snprintf(tok, sizeof tok, "%ld", e->tokens_in + e->tokens_out);
        td(f, "n", tok);
        snprintf(cost, sizeof cost, "$%.4f", e->cost_usd);
        td(f, "n", cost);
        fputs("</tr>\n", f);
    }
    fputs("</table></div>\n<p class=\"meta\">", f);
    kf_rep_html_escape(f, KF_REP_ANCHOR_NOTE ".");
    fputs("</p>\n", f);
}

/* --anchors FILE: the tool, its threads, and every problem against it. */
static void vs_anchors(FILE *f, const kf_report *r)
{
    if (!r->anchors_path) return;
    const kf_report_summary *s = &r->sum;
    const char *tool = kf_report_anchors_label(r);
    int two = r->anchors_has_compile;
    char b1[32], b2[32], b3[32], desc[512];
    fputs("<h2>Against ", f);
    kf_rep_html_escape(f, tool);
    fprintf(f, "</h2>\n<p><span class=\"big\">%s</span> geometric-mean speedup over ",
            kf_rep_speedup(s->geomean_vs_torch, b1, sizeof b1));
    kf_rep_html_escape(f, two ? "the faster of eager and torch.compile" : tool);
    fprintf(f, ", over the %d correct problems with an anchor; anchors for %d of the %d problems.</p>\n<p class=\"meta\">",
            s->n_torch, r->anchors_matched, r->n);
    kf_rep_html_escape(f, r->anchors_path);
    fputs(": ", f);
    kf_rep_html_escape(f, kf_report_anchors_desc(r, desc, sizeof desc));
    if (r->anchors_device && strcmp(r->anchors_device, "cpu") == 0 && r->kforge_threads != 0)
        fprintf(f, "; KForge's runs: %s", r->kforge_threads > 0 ? "" : "threads differ among them");
    if (r->anchors_device && strcmp(r->anchors_device, "cpu") == 0 && r->kforge_threads > 0)
        fprintf(f, "%d thread%s%s", r->kforge_threads, r->kforge_threads == 1 ? "" : "s",
                r->anchors_threads > 0 && r->kforge_threads != r->anchors_threads ? " (not the anchors' threads)" : "");
    fputs(".</p>\n<div class=\"scroll\"><table>\n<tr><th>problem</th><th>best</th>", f);
    if (two) fputs("<th>eager</th><th>compile</th><th>vs the faster</th></tr>\n", f);
    else {
        fputs("<th>", f);
        kf_rep_html_escape(f, tool);
        fputs("</th><th>speedup</th></tr>\n", f);
    }
    for (int i = 0; i < r->n; i++) {
        const kf_report_entry *e = &r->e[i];
        int ok = e->status == KF_REPORT_CORRECT && e->best_s > 0;
        fputs("<tr>", f);
        td(f, NULL, e->name ? e->name : "?");
        td(f, "n", ok ? kf_fmt_time(e->best_s, b1, sizeof b1) : kf_report_status_name(e->status));
        td(f, "n", e->torch_eager_s > 0 ? kf_fmt_time(e->torch_eager_s, b2, sizeof b2) : "-");
        if (two) td(f, "n", e->torch_compile_s > 0 ? kf_fmt_time(e->torch_compile_s, b3, sizeof b3) : "-");
        td(f, "n", e->vs_torch > 0 ? kf_rep_speedup(e->vs_torch, b1, sizeof b1) : "-");
        fputs("</tr>\n", f);
    }
    fputs("</table></div>\n", f);
}

int kf_report_write_html(const kf_report *r, const char *path, kf_error *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return kf_fail(err, KF_E_INTERNAL, "%s: out of memory", path);
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<title>KForge suite report</title>\n<style>\n%s</style>\n</head>\n<body>\n", CSS);
    header(f, r);
    summary(f, r);
    seeds(f, r);
    vs_anchors(f, r);
    problems(f, r);
    fputs("<h2>Speedup per problem</h2>\n<div class=\"scroll\">\n", f);
    kf_rep_svg_speedup(f, r);
    fputs("</div>\n<p class=\"meta\">Bars above the dashed line at 1.0 beat the baseline; &#215; marks a "
          "problem without a correct kernel or without a baseline.</p>\n", f);
    fputs("<h2>Roofline position</h2>\n<div class=\"scroll\">\n", f);
    kf_rep_svg_roofline(f, r);
    fputs("</div>\n<h2>Time per iteration of the loop</h2>\n<p class=\"meta\">Per problem: every timed "
          "correct candidate (dots), the best so far (line), the baseline (dashed), failed candidates "
          "(&#215;); time on a log scale.</p>\n<div class=\"traces\">\n", f);
    for (int i = 0; i < r->n; i++) kf_rep_svg_trace(f, &r->e[i]);
    fputs("</div>\n</body>\n</html>\n", f);
    return kf_rep_finish(f, &buf, path, err);
}
