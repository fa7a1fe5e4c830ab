/*
 * ze_profile.c — the profile hook.
 *
 * Every buffer set is allocated and uploaded once, before timing.  Warm-up
 * runs are discarded; timed run r uses set r % n_sets and gives every
 * launch an event from a pool with ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP.  A
 * sample is the device time from the start of the first kernel to the end
 * of the last (zeEventQueryKernelTimestamp, global clock, ticks times the
 * device's timerResolution in ns, wrapped at kernelTimestampValidBits).
 * After timing, every set's guarded regions are read back so the core can
 * check the outputs of the timed runs.
 */
#include "kfze.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_counter(kf_profile_result *res, const char *name, double v)
{
    if (res->n_counters >= KF_MAX_COUNTERS) return;
    kf_counter *c = &res->counters[res->n_counters++];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->value = v;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

typedef struct timer {
    ze_event_pool_handle_t pool;
    ze_event_handle_t *ev;
    int n;
    double ns_per_tick;
    uint64_t mask;
} timer;

static void timer_free(timer *t)
{
    for (int i = 0; i < t->n && t->ev; i++)
        if (t->ev[i]) zeEventDestroy(t->ev[i]);
    free(t->ev);
    if (t->pool) zeEventPoolDestroy(t->pool);
    memset(t, 0, sizeof *t);
}

static kf_status timer_make(kf_artifact *a, timer *t, char **error)
{
    memset(t, 0, sizeof *t);
    const ze_device_properties_t *p = &a->dev->props;
    if (p->timerResolution == 0)
        return kf_hook_fail(error, KF_ERR_UNAVAILABLE, "'%s' reports no timer resolution (timerResolution 0), so its "
                            "kernel timestamps cannot be turned into time", a->dev->name);
    t->ns_per_tick = (double)p->timerResolution;
    t->mask = p->kernelTimestampValidBits && p->kernelTimestampValidBits < 64
                  ? (UINT64_C(1) << p->kernelTimestampValidBits) - 1 : UINT64_MAX;
    t->n = a->n_launches;
    if (!(t->ev = calloc((size_t)t->n, sizeof *t->ev))) return KF_ERR_NOMEM;
    ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL,
                               ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP | ZE_EVENT_POOL_FLAG_HOST_VISIBLE,
                               (uint32_t)t->n};
    ze_result_t r = zeEventPoolCreate(a->dev->ctx, &pd, 1, &a->dev->id, &t->pool);
    if (r != ZE_RESULT_SUCCESS) return kf_hook_fail(error, KF_ERR_RUNTIME, "zeEventPoolCreate: %s", kfze_err_name(r));
    for (int i = 0; i < t->n; i++) {
        ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, (uint32_t)i, ZE_EVENT_SCOPE_FLAG_HOST,
                              ZE_EVENT_SCOPE_FLAG_HOST};
        if ((r = zeEventCreate(t->pool, &ed, &t->ev[i])) != ZE_RESULT_SUCCESS)
            return kf_hook_fail(error, KF_ERR_RUNTIME, "zeEventCreate: %s", kfze_err_name(r));
    }
    return KF_OK;
}

/* One run of the plan on s; per-launch seconds into launch_s (may be NULL)
 * and first start -> last end into *span_s. */
static kf_status run_once(kf_artifact *a, kfze_set *s, timer *t, double *launch_s, double *span_s, char **error)
{
    for (int i = 0; i < t->n; i++) zeEventHostReset(t->ev[i]);
    ze_command_list_handle_t list = NULL;
    kf_status st = kfze_list_create(a, &list, error);
    if (st == KF_OK) st = kfze_append_plan(a, s, list, t->ev, error);
    if (st == KF_OK) st = kfze_list_run(a, list, "running the plan", error);
    if (list) zeCommandListDestroy(list);
    uint64_t first = 0;
    double end_ns = 0;
    for (int i = 0; st == KF_OK && i < t->n; i++) {
        ze_kernel_timestamp_result_t ts;
        memset(&ts, 0, sizeof ts);
        ze_result_t r = zeEventQueryKernelTimestamp(t->ev[i], &ts);
        if (r != ZE_RESULT_SUCCESS)
            return kf_hook_fail(error, KF_ERR_RUNTIME, "launch[%d] (kernel %s): zeEventQueryKernelTimestamp: %s", i,
                                a->launches[i].kernel, kfze_err_name(r));
        uint64_t start = ts.global.kernelStart & t->mask, end = ts.global.kernelEnd & t->mask;
        if (start == 0 && end == 0)
            return kf_hook_fail(error, KF_ERR_RUNTIME, "launch[%d] (kernel %s): the driver recorded no kernel "
                                "timestamp (start and end 0)", i, a->launches[i].kernel);
        double dur = (double)((end - start) & t->mask) * t->ns_per_tick;
        if (launch_s) launch_s[i] = dur * 1e-9;
        if (i == 0) first = start;
        double rel_end = (double)((end - first) & t->mask) * t->ns_per_tick;
        if (rel_end > end_ns) end_ns = rel_end;
    }
    if (st == KF_OK) *span_s = end_ns * 1e-9;
    return st;
}

kf_status kfze_profile(kf_artifact *a, const kf_profile_request *req, kf_profile_result *res, char **error)
{
    if (!a || !req || !res || !res->samples_s || req->reps < 1 || req->n_sets < 1 || !req->sets)
        return kf_hook_fail(error, KF_ERR_INVALID, "profile: need an artifact, reps >= 1, n_sets >= 1 and sample storage");
    res->n_samples = 0;
    res->n_counters = 0;
    res->clock_is_device = 1;
    res->report = NULL;
    int nl = a->n_launches, reps = req->reps;
    kfze_set *sets = calloc((size_t)req->n_sets, sizeof *sets);
    double *launch_s = calloc((size_t)nl * (size_t)reps, sizeof *launch_s);
    double *tmp = calloc((size_t)reps, sizeof *tmp);
    timer t;
    memset(&t, 0, sizeof t);
    kf_status st = sets && launch_s && tmp ? timer_make(a, &t, error) : KF_ERR_NOMEM;
    int made = 0;
    ze_command_list_handle_t list = NULL;
    for (; st == KF_OK && made < req->n_sets; made++) st = kfze_set_create(a, &req->sets[made], &sets[made], error);
    if (st == KF_OK) st = kfze_list_create(a, &list, error);
    for (int i = 0; st == KF_OK && i < made; i++) st = kfze_append_copies(a, &sets[i], list, 1, error);
    if (st == KF_OK) st = kfze_list_run(a, list, "uploading the input sets", error);
    if (list) zeCommandListDestroy(list);
    list = NULL;
    for (int w = 0; st == KF_OK && w < req->warmup; w++) {
        double span;
        st = run_once(a, &sets[w % req->n_sets], &t, NULL, &span, error);
    }
    for (int r = 0; st == KF_OK && r < reps; r++) {
        st = run_once(a, &sets[r % req->n_sets], &t, &launch_s[(size_t)r * nl], &res->samples_s[r], error);
        if (st == KF_OK) res->n_samples = r + 1;
    }
    if (st == KF_OK) st = kfze_list_create(a, &list, error);
    for (int i = 0; st == KF_OK && i < made; i++) st = kfze_append_copies(a, &sets[i], list, 0, error);
    if (st == KF_OK) st = kfze_list_run(a, list, "reading the sets back", error);
    if (list) zeCommandListDestroy(list);
    if (st == KF_OK) {
        memcpy(tmp, res->samples_s, (size_t)reps * sizeof *tmp);
        qsort(tmp, (size_t)reps, sizeof *tmp, cmp_double);
        double span_med = tmp[reps / 2];
        add_counter(res, "device.ms", span_med * 1e3);
        add_counter(res, "launches", nl);
        char *rep = kf_strf("Level Zero profile on '%s', device %d; %d timed runs after %d warm-up, %d input "
                            "set(s); SPIR-V module of %zu bytes; median device time %.4f ms (first kernel "
                            "start -> last kernel end, kernel timestamps)\n", a->dev->name, a->device_index,
                            reps, req->warmup, req->n_sets, a->spirv_bytes, span_med * 1e3);
        for (int i = 0; i < nl && rep; i++) {
            for (int r = 0; r < reps; r++) tmp[r] = launch_s[(size_t)r * nl + i];
            qsort(tmp, (size_t)reps, sizeof *tmp, cmp_double);
            char name[sizeof res->counters[0].name];
            snprintf(name, sizeof name, "launch[%d].%.40s.ms", i, a->launches[i].kernel);
            add_counter(res, name, tmp[reps / 2] * 1e3);
            const kfze_launch *l = &a->launches[i];
            char *more = kf_strf("%slaunch[%d] %s: median %.4f ms; groups of %u x %u x %u%s, global %u x %u x %u\n",
                                 rep, i, l->kernel, tmp[reps / 2] * 1e3, l->group[0], l->group[1], l->group[2],
                                 l->group_suggested ? " (suggested by the driver)" : "", l->global[0],
                                 l->global[1], l->global[2]);
            free(rep);
            rep = more;
        }
        res->report = rep;
    }
    for (int i = 0; i < made; i++) kfze_set_free(a, &sets[i]);
    timer_free(&t);
    free(sets);
    free(launch_s);
    free(tmp);
    return st;
}
