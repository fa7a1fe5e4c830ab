/*
 * ocl_profile.c — the profile hook.
 *
 * Every buffer set is uploaded once, before timing.  Warm-up runs are
 * discarded; each timed run r uses set r % n_sets and records one profiling
 * event per launch.  A sample is the device time from the start of the first
 * launch to the end of the last (gaps between launches count: they are part
 * of the plan's cost); the sum of kernel times, the per-launch medians and
 * the host wall time of the whole plan go into the counters.  After timing,
 * every set's guarded regions are read back so the core can check the
 * outputs of the timed runs.
 */
#include "ocl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Median of v[0..n) (sorts v). */
static double median(double *v, int n)
{
    if (n <= 0) return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void add_counter(kf_profile_result *res, const char *name, double v)
{
    if (res->n_counters >= KF_MAX_COUNTERS) return;
    kf_counter *c = &res->counters[res->n_counters++];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->value = v;
}

/* Runs the plan once on s; fills per-launch kernel seconds (may be NULL)
 * and returns the span first start -> last end in *span_s. */
static kf_status run_once(kf_artifact *a, kfcl_set *s, cl_event *ev, double *launch_s,
                          double *span_s, char **error)
{
    memset(ev, 0, (size_t)a->n_launches * sizeof *ev);
    kf_status st = kfcl_enqueue_plan(a, s, ev, error);
    cl_int e = clFinish(a->dev->queue);
    if (st == KF_OK && e != CL_SUCCESS)
        st = kf_hook_fail(error, KF_ERR_RUNTIME, "clFinish after the plan failed: %s; %s",
                          kfcl_err_name(e), kfcl_err_hint(e));
    cl_ulong first = 0, last = 0;
    for (int i = 0; st == KF_OK && i < a->n_launches; i++) {
        cl_ulong t0 = 0, t1 = 0;
        e = clGetEventProfilingInfo(ev[i], CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
        if (e == CL_SUCCESS)
            e = clGetEventProfilingInfo(ev[i], CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
        if (e != CL_SUCCESS || t1 < t0)
            st = kf_hook_fail(error, KF_ERR_RUNTIME,
                              "launch[%d] (kernel %s): profiling event unusable (%s)", i,
                              a->launches[i].kernel, e != CL_SUCCESS ? kfcl_err_name(e) : "end < start");
        if (i == 0) first = t0;
        last = t1;
        if (launch_s) launch_s[i] = (double)(t1 - t0) * 1e-9;
    }
    for (int i = 0; i < a->n_launches; i++)
        if (ev[i]) clReleaseEvent(ev[i]);
    if (st == KF_OK) {
        if (last < first)
            return kf_hook_fail(error, KF_ERR_RUNTIME, "device clock went backwards across launches");
        *span_s = (double)(last - first) * 1e-9;
    }
    return st;
}

static char *append(char *s, const char *fmt, ...) KFCL_PRINTF(2, 3);
static char *append(char *s, const char *fmt, ...)
{
    if (!s) return NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    size_t len = strlen(s);
    char *r = n < 0 ? NULL : realloc(s, len + (size_t)n + 1);
    if (!r) { free(s); return NULL; }
    va_start(ap, fmt);
    vsnprintf(r + len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return r;
}

static char *make_report(kf_artifact *a, const kf_profile_request *req, const double *launch_med,
                         double span_med, double sum_med, double wall_med)
{
    kfcl_device *d = a->dev;
    char *r = kf_strf("OpenCL profile on '%s' (%s), device %d; %d timed runs after %d warm-up, "
                      "%d rotated input set(s); program %s\n",
                      d->name, d->platform_name, a->device_index, req->reps, req->warmup,
                      req->n_sets,
                      a->cache_src == KFCL_BUILT ? "built from source"
                      : a->cache_src == KFCL_HIT_MEMORY ? "from the in-process cache"
                                                          : "from the disk cache");
    r = append(r, "median device time %.4f ms (first launch start -> last launch end); "
                  "sum of kernel times %.4f ms; gaps %.4f ms; host wall time of the plan %.4f ms\n",
               span_med * 1e3, sum_med * 1e3, (span_med - sum_med) * 1e3, wall_med * 1e3);
    for (int i = 0; i < a->n_launches && r; i++) {
        kfcl_launch *l = &a->launches[i];
        size_t wg = 0, pref = 0;
        cl_ulong priv = 0, lmem = 0;
        clGetKernelWorkGroupInfo(l->k, d->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
        clGetKernelWorkGroupInfo(l->k, d->id, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                 sizeof pref, &pref, NULL);
        clGetKernelWorkGroupInfo(l->k, d->id, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof priv, &priv, NULL);
        clGetKernelWorkGroupInfo(l->k, d->id, CL_KERNEL_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL);
        size_t groups = 1, items = 1;
        for (int k = 0; k < l->work_dim; k++) {
            items *= l->global[k];
            groups *= l->has_local ? l->global[k] / l->local[k] : 1;
        }
        double share = span_med > 0 ? 100.0 * launch_med[i] / span_med : 0;
        r = append(r, "launch[%d] %s: median %.4f ms (%.1f%% of the run); work_dim %d, global ",
                   i, l->kernel, launch_med[i] * 1e3, share, l->work_dim);
        for (int k = 0; k < l->work_dim; k++)
            r = append(r, "%s%zu", k ? "x" : "", l->global[k]);
        if (l->has_local) {
            r = append(r, ", local ");
            for (int k = 0; k < l->work_dim; k++)
                r = append(r, "%s%zu", k ? "x" : "", l->local[k]);
            r = append(r, " (%zu work-groups)", groups);
        } else {
            r = append(r, ", local chosen by the runtime");
        }
        r = append(r, ", %zu work-items\n  kernel: max work-group %zu, preferred work-group "
                      "multiple %zu, private memory %llu B/work-item, local memory %llu B "
                      "(device has %llu B)\n",
                   items, wg, pref, (unsigned long long)priv, (unsigned long long)lmem,
                   (unsigned long long)d->local_mem);
    }
    return r;
}

kf_status kfcl_profile(kf_artifact *a, const kf_profile_request *req, kf_profile_result *res,
                       char **error)
{
    if (!a || !req || !res || !res->samples_s || req->reps < 1 || req->n_sets < 1 || !req->sets)
        return kf_hook_fail(error, KF_ERR_INVALID,
                            "profile: need an artifact, reps >= 1, n_sets >= 1 and sample storage");
    res->n_samples = 0;
    res->n_counters = 0;
    res->clock_is_device = 1;
    res->report = NULL;

    int nl = a->n_launches, reps = req->reps;
    kfcl_set *sets = calloc((size_t)req->n_sets, sizeof *sets);
    cl_event *ev = calloc((size_t)nl, sizeof *ev);
    double *launch_s = calloc((size_t)nl * (size_t)reps, sizeof *launch_s);
    double *sum_s = calloc((size_t)reps, sizeof *sum_s);
    double *wall_s = calloc((size_t)reps, sizeof *wall_s);
    double *span_s = calloc((size_t)reps, sizeof *span_s);
    double *launch_med = calloc((size_t)nl, sizeof *launch_med);
    double *tmp = calloc((size_t)reps, sizeof *tmp);
    kf_status st = KF_OK;
    if (!sets || !ev || !launch_s || !sum_s || !wall_s || !span_s || !launch_med || !tmp)
        st = kf_hook_fail(error, KF_ERR_NOMEM, "out of memory");

    int made = 0;
    for (; st == KF_OK && made < req->n_sets; made++)
        st = kfcl_set_create(a, &req->sets[made], &sets[made], error);
    if (st == KF_OK && clFinish(a->dev->queue) != CL_SUCCESS)
        st = kf_hook_fail(error, KF_ERR_RUNTIME, "uploading the input sets failed");

    for (int w = 0; st == KF_OK && w < req->warmup; w++) {
        double span;
        st = run_once(a, &sets[w % req->n_sets], ev, NULL, &span, error);
    }
    for (int r = 0; st == KF_OK && r < reps; r++) {
        double t0 = now_s();
        st = run_once(a, &sets[r % req->n_sets], ev, &launch_s[(size_t)r * nl], &span_s[r], error);
        wall_s[r] = now_s() - t0;
        if (st != KF_OK) break;
        for (int i = 0; i < nl; i++) sum_s[r] += launch_s[(size_t)r * nl + i];
        res->samples_s[r] = span_s[r];
        res->n_samples = r + 1;
    }
    for (int i = 0; st == KF_OK && i < made; i++)
        st = kfcl_set_read_back(a, &sets[i], error);

    if (st == KF_OK) {
        memcpy(tmp, span_s, (size_t)reps * sizeof *tmp);
        double span_med = median(tmp, reps);
        double sum_med = median(sum_s, reps);
        double wall_med = median(wall_s, reps);
        add_counter(res, "device.ms", span_med * 1e3);
        add_counter(res, "kernel_sum.ms", sum_med * 1e3);
        add_counter(res, "host_wall.ms", wall_med * 1e3);
        add_counter(res, "launches", nl);
        add_counter(res, "program_cache", (double)a->cache_src);
        for (int i = 0; i < nl; i++) {
            for (int r = 0; r < reps; r++) tmp[r] = launch_s[(size_t)r * nl + i];
            launch_med[i] = median(tmp, reps);
            char name[sizeof res->counters[0].name];
            snprintf(name, sizeof name, "launch[%d].%.40s.ms", i, a->launches[i].kernel);
            add_counter(res, name, launch_med[i] * 1e3);
        }
        res->report = make_report(a, req, launch_med, span_med, sum_med, wall_med);
    }

    for (int i = 0; i < made && sets; i++) kfcl_set_free(&sets[i]);
    free(sets);
    free(ev);
    free(launch_s);
    free(sum_s);
    free(wall_s);
    free(span_s);
    free(launch_med);
    free(tmp);
    return st;
}
