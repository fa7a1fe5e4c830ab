/* counters.c — finding ncu, its metric list, and the parser of its CSV
 * output (counters.h). */
#include "counters.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/strbuf.h"

int kf_counters_mode_parse(const char *s)
{
    if (!s) return -1;
    if (!strcmp(s, "auto")) return KF_COUNTERS_AUTO;
    if (!strcmp(s, "off")) return KF_COUNTERS_OFF;
    if (!strcmp(s, "ncu")) return KF_COUNTERS_NCU;
    return -1;
}

const char *kf_counters_mode_name(kf_counters_mode m)
{
    return m == KF_COUNTERS_OFF ? "off" : m == KF_COUNTERS_NCU ? "ncu" : "auto";
}

/* ------------------------------------------------------------------ */
/* finding ncu                                                         */

static char *exec_path(const char *p)
{
    return p && *p && access(p, X_OK) == 0 ? strdup(p) : NULL;
}

/* "2025.3.1" > "2025.2.0": compares the dotted numbers left to right. */
static int version_cmp(const char *a, const char *b)
{
    while (*a || *b) {
        long x = strtol(a, (char **)&a, 10), y = strtol(b, (char **)&b, 10);
        if (x != y) return x < y ? -1 : 1;
        while (*a && !isdigit((unsigned char)*a)) a++;
        while (*b && !isdigit((unsigned char)*b)) b++;
    }
    return 0;
}

char *kf_ncu_find(void)
{
    const char *env = getenv("KFORGE_NCU");
    if (env) return exec_path(env);
    const char *path = getenv("PATH");
    if (path) {
        char *dup = strdup(path), *save = NULL;
        for (char *d = dup ? strtok_r(dup, ":", &save) : NULL; d; d = strtok_r(NULL, ":", &save)) {
            char p[4096];
            snprintf(p, sizeof p, "%s/ncu", *d ? d : ".");
            char *r = exec_path(p);
            if (r) {
                free(dup);
                return r;
            }
        }
        free(dup);
    }
    char *r = exec_path("/usr/local/cuda/bin/ncu");
    if (r) return r;
    DIR *dir = opendir("/opt/nvidia/nsight-compute");
    if (!dir) return NULL;
    char best[256] = "";
    struct dirent *de;
    while ((de = readdir(dir)))
        if (de->d_name[0] != '.' && strlen(de->d_name) < sizeof best && (!best[0] || version_cmp(de->d_name, best) > 0)) {
            char p[512];
            snprintf(p, sizeof p, "/opt/nvidia/nsight-compute/%s/ncu", de->d_name);
            if (access(p, X_OK) == 0) snprintf(best, sizeof best, "%s", de->d_name);
        }
    closedir(dir);
    if (!best[0]) return NULL;
    char p[512];
    snprintf(p, sizeof p, "/opt/nvidia/nsight-compute/%s/ncu", best);
    return strdup(p);
}

/* ------------------------------------------------------------------ */
/* metrics                                                             */

/* short label, ncu metric name */
static const struct { const char *label, *name; } named[] = {
    {"duration", "gpu__time_duration.sum"},
    {"occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active"},
    {"dram", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"},
    {"l2", "lts__throughput.avg.pct_of_peak_sustained_elapsed"},
    {"sm", "sm__throughput.avg.pct_of_peak_sustained_elapsed"},
    {"tensor (mma.sync)", "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"},
    {"tensor (wgmma)", "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active"},
    {"registers/thread", "launch__registers_per_thread"},
};

#define STALL_PREFIX "smsp__average_warps_issue_stalled_"
#define STALL_SUFFIX "_per_issue_active.ratio"
static const char *const stalls[] = {
    "long_scoreboard", "barrier", "mio_throttle", "math_pipe_throttle", "short_scoreboard", "wait",
    "not_selected", "lg_throttle", "dispatch_stall", "no_instruction", "membar", "drain", "sleeping",
    "branch_resolving", "imc_miss", "tex_throttle", "misc"};

const char *kf_ncu_metrics(void)
{
    static char list[4096];
    if (list[0]) return list;
    kf_sb b = {0};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) kf_sb_printf(&b, "%s%s", i ? "," : "", named[i].name);
    for (size_t i = 0; i < sizeof stalls / sizeof stalls[0]; i++)
        kf_sb_printf(&b, "," STALL_PREFIX "%s" STALL_SUFFIX, stalls[i]);
    char *s = kf_sb_take(&b);
    snprintf(list, sizeof list, "%s", s ? s : "");
    free(s);
    return list;
}

/* ------------------------------------------------------------------ */
/* the CSV                                                             */

#define MAX_FIELDS 64

typedef struct csv {
    const char *p, *end;
} csv;

/* One record: fields (malloc'ed, NUL-terminated) into f[0..*n); quoted
 * fields may hold commas, doubled quotes and newlines.  0 at the end of the
 * text, else 1. */
static int csv_record(csv *c, char **f, int *n)
{
    *n = 0;
    if (c->p >= c->end) return 0;
    for (;;) {
        kf_sb v = {0};
        kf_sb_append(&v, "", 0);
        if (c->p < c->end && *c->p == '"') {
            c->p++;
            while (c->p < c->end) {
                if (*c->p == '"') {
                    if (c->p + 1 < c->end && c->p[1] == '"') {
                        kf_sb_append(&v, "\"", 1);
                        c->p += 2;
                        continue;
                    }
                    c->p++;
                    break;
                }
                kf_sb_append(&v, c->p, 1);
                c->p++;
            }
        }
        while (c->p < c->end && *c->p != ',' && *c->p != '\n' && *c->p != '\r') kf_sb_append(&v, c->p++, 1);
        char *s = kf_sb_take(&v);
        if (*n < MAX_FIELDS && s) f[(*n)++] = s;
        else free(s);
        if (c->p < c->end && *c->p == ',') {
            c->p++;
            continue;
        }
        while (c->p < c->end && (*c->p == '\r' || *c->p == '\n')) {
            int nl = *c->p == '\n';
            c->p++;
            if (nl) break;
        }
        return 1;
    }
}

static void fields_free(char **f, int n)
{
    for (int i = 0; i < n; i++) free(f[i]);
}

/* "1,234.5" -> 1234.5; 0 when the whole field is a number. */
static int number(const char *s, double *v)
{
    char buf[128];
    size_t k = 0;
    for (; *s && k + 1 < sizeof buf; s++)
        if (*s != ',' && *s != ' ') buf[k++] = *s;
    if (*s) return -1;
    buf[k] = '\0';
    if (!k) return -1;
    char *end;
    double d = strtod(buf, &end);
    if (*end || !isfinite(d)) return -1;
    *v = d;
    return 0;
}

static int column(char **f, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(f[i], name)) return i;
    return -1;
}

void kf_ncu_csv_parse(const char *text, size_t len, kf_counters *out)
{
    csv c = {text, text + len};
    char *f[MAX_FIELDS];
    int n = 0;
    int c_id = -1, c_kernel = -1, c_name = -1, c_unit = -1, c_value = -1;
    while (text && csv_record(&c, f, &n)) {
        if (c_id < 0) {
            c_id = column(f, n, "ID");
            c_kernel = column(f, n, "Kernel Name");
            c_name = column(f, n, "Metric Name");
            c_unit = column(f, n, "Metric Unit");
            c_value = column(f, n, "Metric Value");
            if (c_kernel < 0 || c_name < 0 || c_value < 0) c_id = -1;
            fields_free(f, n);
            continue;
        }
        double v;
        if (c_kernel >= n || c_name >= n || c_value >= n || c_id >= n || (c_unit >= 0 && c_unit >= n) ||
            number(f[c_value], &v) != 0) {
            fields_free(f, n);
            continue;
        }
        int id = atoi(f[c_id]);
        kf_kernel_counters *k = NULL;
        for (int i = 0; i < out->n_kernels; i++)
            if (out->k[i].id == id && !strcmp(out->k[i].kernel, f[c_kernel])) k = &out->k[i];
        if (!k && out->n_kernels < KF_COUNTERS_MAX_KERNELS) {
            k = &out->k[out->n_kernels];
            if ((k->kernel = strdup(f[c_kernel]))) {
                k->id = id;
                k->n = 0;
                out->n_kernels++;
            } else k = NULL;
        }
        int dup = 0;
        for (int i = 0; k && i < k->n; i++)
            if (!strcmp(k->m[i].name, f[c_name])) dup = 1;
        if (k && !dup && k->n < KF_COUNTERS_MAX_METRICS) {
            kf_metric *m = &k->m[k->n];
            m->name = strdup(f[c_name]);
            m->unit = strdup(c_unit >= 0 ? f[c_unit] : "");
            m->value = v;
            if (m->name && m->unit) k->n++;
            else {
                free(m->name);
                free(m->unit);
            }
        }
        fields_free(f, n);
    }
    int any = 0;
    for (int i = 0; i < out->n_kernels; i++) any |= out->k[i].n > 0;
    if (any) {
        out->state = KF_COUNTERS_COLLECTED;
        return;
    }
    out->state = KF_COUNTERS_UNAVAILABLE;
    free(out->why);
    out->why = strdup(c_id < 0 ? "ncu's output has no CSV header (ID, Kernel Name, Metric Name, Metric Value)"
                               : "ncu profiled no kernel");
}

double kf_counters_get(const kf_kernel_counters *k, const char *name)
{
    for (int i = 0; k && i < k->n; i++)
        if (!strcmp(k->m[i].name, name)) return k->m[i].value;
    return NAN;
}

char *kf_counters_text(const kf_counters *c)
{
    kf_sb b = {0};
    kf_sb_append(&b, "", 0);
    if (!c || c->state == KF_COUNTERS_NONE || c->quiet) return kf_sb_take(&b);
    if (c->state != KF_COUNTERS_COLLECTED) {
        kf_sb_printf(&b, "counters: unavailable (%s)\n", c->why ? c->why : "no reason given");
        return kf_sb_take(&b);
    }
    kf_sb_printf(&b, "hardware counters (Nsight Compute, one replay after timing; advisory):\n");
    for (int i = 0; i < c->n_kernels; i++) {
        const kf_kernel_counters *k = &c->k[i];
        kf_sb_printf(&b, "kernel %.80s:", k->kernel);
        const char *sep = " ";
        for (size_t j = 0; j < sizeof named / sizeof named[0]; j++) {
            double v = kf_counters_get(k, named[j].name);
            if (isnan(v)) continue;
            if (j == 0) kf_sb_printf(&b, "%sduration %.4g us", sep, v / 1e3);   /* ncu's gpu__time_duration is in ns */
            else if (strstr(named[j].name, "pct")) kf_sb_printf(&b, "%s%s %.1f%%", sep, named[j].label, v);
            else kf_sb_printf(&b, "%s%s %.4g", sep, named[j].label, v);
            sep = ", ";
        }
        /* the top three stall reasons, in warps stalled per issued instruction */
        double top[3] = {0, 0, 0};
        const char *topn[3] = {NULL, NULL, NULL};
        for (size_t s = 0; s < sizeof stalls / sizeof stalls[0]; s++) {
            char name[160];
            snprintf(name, sizeof name, STALL_PREFIX "%s" STALL_SUFFIX, stalls[s]);
            double v = kf_counters_get(k, name);
            if (!(v > 0)) continue;
            for (int t = 0; t < 3; t++)
                if (v > top[t]) {
                    for (int u = 2; u > t; u--) {
                        top[u] = top[u - 1];
                        topn[u] = topn[u - 1];
                    }
                    top[t] = v;
                    topn[t] = stalls[s];
                    break;
                }
        }
        if (topn[0]) {
            kf_sb_printf(&b, "; top stalls (warps per issue):");
            for (int t = 0; t < 3 && topn[t]; t++) kf_sb_printf(&b, "%s %s %.3g", t ? "," : "", topn[t], top[t]);
        }
        kf_sb_printf(&b, "\n");
    }
    return kf_sb_take(&b);
}

void kf_counters_free(kf_counters *c)
{
    if (!c) return;
    for (int i = 0; i < c->n_kernels && i < KF_COUNTERS_MAX_KERNELS; i++) {
        for (int j = 0; j < c->k[i].n; j++) {
            free(c->k[i].m[j].name);
            free(c->k[i].m[j].unit);
        }
        free(c->k[i].kernel);
    }
    free(c->why);
    free(c->tool);
    memset(c, 0, sizeof *c);
}
