/*
 * run.c — running a compiled candidate on the core's buffers: verify (one
 * call), profile (warm-up, then timed calls on a monotonic clock rotating
 * the buffer sets), release.
 */
#include "cpu_simd.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct call_args {
    kf_cpu_args a;
    const float **in;
    float **out;
    float **scratch;
} call_args;

static int args_init(call_args *ca, const kf_artifact *art)
{
    memset(ca, 0, sizeof *ca);
    ca->in = calloc((size_t)art->n_in + 1, sizeof *ca->in);
    ca->out = calloc((size_t)art->n_out + 1, sizeof *ca->out);
    ca->scratch = calloc((size_t)art->n_scratch + 1, sizeof *ca->scratch);
    if (!ca->in || !ca->out || !ca->scratch)
        return -1;
    ca->a = (kf_cpu_args){ca->in, ca->out, ca->scratch, art->dims, art->n_in, art->n_out,
                          art->n_scratch, art->n_dims, art->n_threads, kf_cpu_features(NULL)};
    return 0;
}

static void args_set(call_args *ca, const kf_artifact *art, const kf_buffer_set *set)
{
    for (int i = 0; i < art->n_in; i++)
        ca->in[i] = set->inputs[i].data;
    for (int i = 0; i < art->n_out; i++)
        ca->out[i] = set->outputs[i].data;
    for (int i = 0; i < art->n_scratch; i++)
        ca->scratch[i] = set->scratch[i].data;
}

static void args_free(call_args *ca)
{
    free(ca->in);
    free(ca->out);
    free(ca->scratch);
}

kf_status kf_cpu_verify(kf_artifact *art, kf_buffer_set *set, char **error)
{
    call_args ca;
    kf_status st;
    if (!art || !set) {
        *error = kf_strf("cpu-simd: verify needs a compiled artifact and a buffer set");
        return KF_ERR_INVALID;
    }
    if ((st = kf_cpu_load(art, error)) != KF_OK)
        return st;
    if (args_init(&ca, art)) {
        args_free(&ca);
        return KF_ERR_NOMEM;
    }
    args_set(&ca, art, set);
    art->entry(&ca.a);
    args_free(&ca);
    return KF_OK;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void add_counter(kf_profile_result *res, const char *name, double v)
{
    if (res->n_counters >= KF_MAX_COUNTERS)
        return;
    snprintf(res->counters[res->n_counters].name, sizeof res->counters[0].name, "%s", name);
    res->counters[res->n_counters++].value = v;
}

static char *make_report(const kf_artifact *art, const kf_profile_request *req,
                         const double *samples, int n)
{
    double *sorted = malloc((size_t)n * sizeof *sorted), med, min;
    const char *isa;
    int lanes = kf_cpu_vector_floats(&isa);
    char *text = NULL;
    if (!sorted)
        return NULL;
    memcpy(sorted, samples, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_double);
    med = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    min = sorted[0];
    if (asprintf(&text,
                 "cpu-simd: whole entry call timed with CLOCK_MONOTONIC\n"
                 "runs: %d timed after %d warm-up, rotating %d input sets\n"
                 "per run: median %.4f ms, min %.4f ms, max %.4f ms\n"
                 "threads: %d\nISA: %s (%d floats per vector), compiled with -O3 -march=native "
                 "-fopenmp by %s\n",
                 n, req->warmup, req->n_sets, med * 1e3, min * 1e3, sorted[n - 1] * 1e3,
                 art->n_threads, isa, lanes, kf_cpu_compiler()) < 0)
        text = NULL;
    free(sorted);
    return text;
}

kf_status kf_cpu_profile(kf_artifact *art, const kf_profile_request *req,
                         kf_profile_result *res, char **error)
{
    call_args ca;
    kf_status st;
    if (!art || !req || !res || !res->samples_s || req->reps < 1 ||
        req->n_sets < 1 || !req->sets || req->warmup < 0) {
        *error = kf_strf("cpu-simd: profile needs an artifact, reps >= 1, n_sets >= 1, buffer sets "
                         "and a samples array");
        return KF_ERR_INVALID;
    }
    if ((st = kf_cpu_load(art, error)) != KF_OK)
        return st;
    if (args_init(&ca, art)) {
        args_free(&ca);
        return KF_ERR_NOMEM;
    }
    for (int i = 0; i < req->warmup; i++) {
        args_set(&ca, art, &req->sets[i % req->n_sets]);
        art->entry(&ca.a);
    }
    for (int i = 0; i < req->reps; i++) {
        double t0;
        args_set(&ca, art, &req->sets[i % req->n_sets]);
        t0 = now_s();
        art->entry(&ca.a);
        res->samples_s[i] = now_s() - t0;
    }
    args_free(&ca);
    res->n_samples = req->reps;
    res->clock_is_device = 0;
    res->n_counters = 0;
    add_counter(res, "threads", art->n_threads);
    add_counter(res, "vector_width_floats", kf_cpu_vector_floats(NULL));
    add_counter(res, "compute_unit", art->unit);   /* KF_CPU_UNIT_*: the roofline's peak */
    res->report = make_report(art, req, res->samples_s, req->reps);
    return KF_OK;
}

void kf_cpu_release(kf_artifact *art)
{
    if (!art)
        return;
    if (art->handle)
        dlclose(art->handle);
    free(art->so_path);
    free(art->entry_name);
    free(art->dims);
    free(art);
}
