/* report_svg.c — the inline SVG plots of report.html: speedup per problem
 * (log scale, a line at 1.0), roofline fraction per problem, and the time
 * of every evaluated candidate and the best so far against the loop step.
 * Colours come from the page's CSS classes; no scripts, no xmlns needed. */
#include "util/fmt.h"
#include "report_internal.h"

#include <math.h>
#include <string.h>

#define BAR_W 26
#define LEFT 56
#define TOP 16
#define PLOT_H 220
#define LABEL_H 170

/* A problem name under its bar, rotated, cut to 30 characters. */
static void x_label(FILE *f, double x, double y, const char *name)
{
    char cut[40];
    size_t len = strlen(name);
    if (len > 30) snprintf(cut, sizeof cut, "%.28s..", name);
    else snprintf(cut, sizeof cut, "%s", name);
    fprintf(f, "<text class=\"xl\" transform=\"translate(%.1f,%.1f) rotate(-55)\" text-anchor=\"end\">", x, y);
    kf_rep_html_escape(f, cut);
    fputs("</text>\n", f);
}

static void bar_title(FILE *f, const kf_report_entry *e, const char *what)
{
    fputs("<title>", f);
    kf_rep_html_escape(f, e->name);
    fputs(": ", f);
    kf_rep_html_escape(f, what);
    fputs("</title>", f);
}

static int width_for(int n) { return LEFT + 20 + (n > 0 ? n : 1) * (BAR_W + 6); }

void kf_rep_svg_speedup(FILE *f, const kf_report *r)
{
    double lo = 1, hi = 1;
    for (int i = 0; i < r->n; i++) {
        double s = r->e[i].speedup;
        if (r->e[i].status != KF_REPORT_CORRECT || s <= 0) continue;
        if (s < lo) lo = s;
        if (s > hi) hi = s;
    }
    double d0 = floor(log10(lo / 1.2)), d1 = ceil(log10(hi * 1.2));
    if (d1 <= d0) d1 = d0 + 1;
    int W = width_for(r->n), H = TOP + PLOT_H + LABEL_H;
#define YS(v) (TOP + PLOT_H * (1 - (log10(v) - d0) / (d1 - d0)))
    fprintf(f, "<svg class=\"plot\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
               "aria-label=\"speedup per problem, log scale\">\n", W, H, W, H);
    for (double d = d0; d <= d1 + 1e-9; d += 1) {
        double v = pow(10, d), y = YS(v);
        fprintf(f, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>"
                   "<text class=\"yl\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%gx</text>\n",
                LEFT, y, W - 10, y, LEFT - 6, y + 4, v);
    }
    double y1 = YS(1.0);
    for (int i = 0; i < r->n; i++) {
        const kf_report_entry *e = &r->e[i];
        double x = LEFT + 8 + i * (BAR_W + 6);
        char what[96];
        if (e->status == KF_REPORT_CORRECT && e->speedup > 0) {
            double y = YS(e->speedup);
            snprintf(what, sizeof what, "%.2fx", e->speedup);
            fprintf(f, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%.1f\">",
                    e->speedup >= 1 ? "up" : "down", x, y < y1 ? y : y1, BAR_W, fabs(y1 - y) < 1 ? 1 : fabs(y1 - y));
            bar_title(f, e, what);
            fputs("</rect>\n", f);
        } else {
            snprintf(what, sizeof what, "%s", e->status == KF_REPORT_CORRECT ? "no baseline" : kf_report_status_name(e->status));
            fprintf(f, "<text class=\"miss\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">&#215;", x + BAR_W / 2.0, y1 - 4);
            bar_title(f, e, what);
            fputs("</text>\n", f);
        }
        x_label(f, x + BAR_W / 2.0 + 4, TOP + PLOT_H + 10, e->name);
    }
    fprintf(f, "<line class=\"one\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n", LEFT, y1, W - 10, y1);
    fprintf(f, "<text class=\"yl\" x=\"%d\" y=\"%.1f\">speedup over the baseline (log scale)</text>\n", LEFT, 11.0);
    fputs("</svg>\n", f);
#undef YS
}

void kf_rep_svg_roofline(FILE *f, const kf_report *r)
{
    int W = width_for(r->n), H = TOP + PLOT_H + LABEL_H;
#define YF(v) (TOP + PLOT_H * (1.0 - (v)))
    fprintf(f, "<svg class=\"plot\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
               "aria-label=\"roofline fraction per problem\">\n", W, H, W, H);
    for (int k = 0; k <= 4; k++) {
        double v = k / 4.0, y = YF(v);
        fprintf(f, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>"
                   "<text class=\"yl\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.0f%%</text>\n",
                LEFT, y, W - 10, y, LEFT - 6, y + 4, v * 100);
    }
    for (int i = 0; i < r->n; i++) {
        const kf_report_entry *e = &r->e[i];
        double x = LEFT + 8 + i * (BAR_W + 6);
        char what[64];
        if (e->status == KF_REPORT_CORRECT) {
            double v = e->fraction < 0 ? 0 : (e->fraction > 1 ? 1 : e->fraction);
            snprintf(what, sizeof what, "%.1f%% of the roofline floor", e->fraction * 100);
            fprintf(f, "<rect class=\"roof\" x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%.1f\">", x, YF(v),
                    BAR_W, PLOT_H * v < 1 ? 1 : PLOT_H * v);
            bar_title(f, e, what);
            fputs("</rect>\n", f);
        } else {
            fprintf(f, "<text class=\"miss\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">&#215;", x + BAR_W / 2.0, YF(0) - 4);
            bar_title(f, e, kf_report_status_name(e->status));
            fputs("</text>\n", f);
        }
        x_label(f, x + BAR_W / 2.0 + 4, TOP + PLOT_H + 10, e->name);
    }
    fprintf(f, "<text class=\"yl\" x=\"%d\" y=\"%.1f\">fraction of the roofline floor (floor time / best time)</text>\n",
            LEFT, 11.0);
    fputs("</svg>\n", f);
#undef YF
}

void kf_rep_svg_trace(FILE *f, const kf_report_entry *e)
{
    const int W = 300, H = 170, L = 56, T = 22, PW = W - L - 10, PH = H - T - 28;
    double lo = 0, hi = 0;
    int max_step = 1;
    for (int i = 0; i < e->n_points; i++) {
        const kf_report_point *p = &e->points[i];
        if (p->step > max_step) max_step = p->step;
        double t = p->time_s;
        if (t <= 0) continue;
        if (lo == 0 || t < lo) lo = t;
        if (t > hi) hi = t;
    }
    if (e->baseline_s > 0) {
        if (lo == 0 || e->baseline_s < lo) lo = e->baseline_s;
        if (e->baseline_s > hi) hi = e->baseline_s;
    }
    fprintf(f, "<svg class=\"trace\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
               "aria-label=\"time per step\">\n<text class=\"tt\" x=\"4\" y=\"13\">", W, H, W, H);
    kf_rep_html_escape(f, e->name);
    fputs("</text>\n", f);
    if (lo <= 0 || e->n_points == 0) {
        fprintf(f, "<text class=\"miss\" x=\"%d\" y=\"%d\">%s</text>\n</svg>\n", L, T + PH / 2,
                e->n_points ? "no timed candidate" : "no evaluated candidate");
        return;
    }
    double d0 = log10(lo / 1.3), d1 = log10(hi * 1.3);
#define TX(s) (L + PW * (((double)(s) - 0.5) / max_step))
#define TY(v) (T + PH * (1 - (log10(v) - d0) / (d1 - d0)))
    char a[32], b[32];
    fprintf(f, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n", L, T, PW, PH);
    fprintf(f, "<text class=\"yl\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
            L - 4, TY(hi) + 4, kf_fmt_duration(hi, a, sizeof a));
    if (hi > lo * 1.05)
        fprintf(f, "<text class=\"yl\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                L - 4, TY(lo) + 4, kf_fmt_duration(lo, b, sizeof b));
    fprintf(f, "<text class=\"yl\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">step 1</text>", TX(1), H - 8);
    if (max_step > 1)
        fprintf(f, "<text class=\"yl\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">step %d</text>", TX(max_step),
                H - 8, max_step);
    fputc('\n', f);
    if (e->baseline_s > 0)
        fprintf(f, "<line class=\"base\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"><title>baseline %s</title></line>\n",
                L, TY(e->baseline_s), L + PW, TY(e->baseline_s), kf_fmt_duration(e->baseline_s, a, sizeof a));
    /* the best so far: a step line */
    int started = 0;
    double prev_y = 0;
    for (int i = 0; i < e->n_points; i++) {
        const kf_report_point *p = &e->points[i];
        if (p->best_s <= 0 || (started && TY(p->best_s) == prev_y)) continue;
        double x = TX(p->step), y = TY(p->best_s);
        if (!started) { fprintf(f, "<polyline class=\"best\" points=\"%.1f,%.1f", x, y); started = 1; }
        else fprintf(f, " %.1f,%.1f %.1f,%.1f", x, prev_y, x, y);
        prev_y = y;
    }
    if (started) fprintf(f, " %.1f,%.1f\"/>\n", TX(max_step + 0.5), prev_y);
    /* every evaluated candidate: a dot when timed, a cross at the bottom when it failed */
    for (int i = 0; i < e->n_points; i++) {
        const kf_report_point *p = &e->points[i];
        if (p->passed && p->time_s > 0)
            fprintf(f, "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\"><title>step %d: %s</title></circle>\n",
                    TX(p->step), TY(p->time_s), p->step, kf_fmt_duration(p->time_s, a, sizeof a));
        else
            fprintf(f, "<text class=\"miss\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">&#215;<title>step %d: failed</title></text>\n",
                    TX(p->step), T + PH - 2, p->step);
    }
    fputs("</svg>\n", f);
#undef TX
#undef TY
}
