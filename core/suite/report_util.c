/* report_util.c — formatting helpers of the report writers. */
#include "report_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "run/journal.h"

const char *kf_rep_speedup(double x, char *buf, size_t n)
{
    if (x <= 0) snprintf(buf, n, "-");
    else snprintf(buf, n, "%.2fx", x);
    return buf;
}

const char *kf_rep_p_label(int k, char *buf, size_t n)
{
    snprintf(buf, n, "%g", kf_report_p[k]);
    return buf;
}

void kf_rep_devices(const kf_report *r, char *buf, size_t n)
{
    buf[0] = '\0';
    for (int i = 0; i < r->n; i++) {
        const kf_report_entry *e = &r->e[i];
        if (!e->device) continue;
        char one[512];
        snprintf(one, sizeof one, "%s: %s", e->backend ? e->backend : "?", e->device);
        if (strstr(buf, one)) continue;
        if (buf[0]) strncat(buf, "; ", n - strlen(buf) - 1);
        strncat(buf, one, n - strlen(buf) - 1);
    }
    if (!buf[0]) snprintf(buf, n, "unknown");
}

void kf_rep_html_escape(FILE *f, const char *text)
{
    if (!text) return;
    for (const char *p = text; *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*p, f);
        }
    }
}

int kf_rep_finish(FILE *f, char **buf, const char *path, kf_error *err)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || !*buf) {
        free(*buf);
        *buf = NULL;
        return kf_fail(err, KF_E_INTERNAL, "%s: out of memory while writing the report", path);
    }
    int rc = kf_write_file_atomic(path, *buf, err);
    free(*buf);
    *buf = NULL;
    return rc;
}

const char *kf_rep_reason(const kf_report_entry *e)
{
    return e->stop_reason ? e->stop_reason : "";
}

static void one(char *buf, size_t n, char style, double v)
{
    switch (style) {
    case 'x': snprintf(buf, n, "%.3gx", v); break;
    case 'i': snprintf(buf, n, "%.0f", v); break;
    case '2': snprintf(buf, n, "%.2f", v); break;
    default: snprintf(buf, n, "%.3f", v); break;
    }
}

const char *kf_rep_spread(const kf_report_spread *s, char style, char *buf, size_t n)
{
    if (s->n == 0) {
        snprintf(buf, n, "-");
        return buf;
    }
    char a[5][48];
    const double v[5] = {s->median, s->q1, s->q3, s->min, s->max};
    for (int i = 0; i < 5; i++) one(a[i], sizeof a[i], style, v[i]);
    snprintf(buf, n, "%s [%s..%s] (%s..%s)", a[0], a[1], a[2], a[3], a[4]);
    return buf;
}
