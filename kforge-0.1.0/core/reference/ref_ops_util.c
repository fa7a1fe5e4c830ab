/*
 * ref_ops_util.c — thread fan-out and shape helpers shared by the
 * reference kernels and the input generator.
 */
#include <config.h>

#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "ref_internal.h"

#define KF_REF_MAX_THREADS 256

int kf_ref_threads(int n_threads)
{
    if (n_threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        n_threads = n > 0 ? (int)n : 1;
    }
    return n_threads > KF_REF_MAX_THREADS ? KF_REF_MAX_THREADS : n_threads;
}

typedef struct range_job {
    kf_ref_range_fn fn;
    void *ctx;
    long begin, end;
} range_job;

static void *range_main(void *arg)
{
    range_job *j = arg;
    j->fn(j->ctx, j->begin, j->end);
    return NULL;
}

void kf_ref_parallel(long n_items, long min_items, int n_threads,
                     kf_ref_range_fn fn, void *ctx)
{
    if (n_items <= 0)
        return;
    if (min_items < 1)
        min_items = 1;
    long nt = kf_ref_threads(n_threads);
    if (nt > n_items / min_items)
        nt = n_items / min_items;
    if (nt <= 1) {
        fn(ctx, 0, n_items);
        return;
    }
    range_job jobs[KF_REF_MAX_THREADS];
    pthread_t tids[KF_REF_MAX_THREADS];
    int started[KF_REF_MAX_THREADS];
    for (long t = 0; t < nt; t++) {
        jobs[t].fn = fn;
        jobs[t].ctx = ctx;
        jobs[t].begin = n_items * t / nt;
        jobs[t].end = n_items * (t + 1) / nt;
    }
    for (long t = 1; t < nt; t++)
        started[t] = pthread_create(&tids[t], NULL, range_main, &jobs[t]) == 0;
    fn(ctx, jobs[0].begin, jobs[0].end);
    for (long t = 1; t < nt; t++) {
        if (started[t])
            pthread_join(tids[t], NULL);
        else
            fn(ctx, jobs[t].begin, jobs[t].end);
    }
}

int64_t kf_ref_elems(const kf_shape *s)
{
    int64_t n = 1;
    for (int i = 0; i < s->rank; i++)
        n *= s->d[i];
    return n;
}

int kf_ref_norm_dim(int dim, int rank)
{
    if (dim < 0)
        dim += rank;
    return dim >= 0 && dim < rank ? dim : -1;
}

const char *kf_ref_shape_str(const kf_shape *s, char *buf, size_t len)
{
    size_t at = 0;
    at += (size_t)snprintf(buf, len, "(");
    for (int i = 0; i < s->rank && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%lld", i ? ", " : "", (long long)s->d[i]);
    if (at < len)
        snprintf(buf + at, len - at, ")");
    return buf;
}
