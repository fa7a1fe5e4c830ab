/* parallel.c — a fork/join over index ranges (parallel.h). */
#include "parallel.h"

#include <pthread.h>
#include <unistd.h>

int kf_parallel_threads(int n_threads)
{
    if (n_threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        n_threads = n > 0 ? (int)n : 1;
    }
    return n_threads > KF_PARALLEL_MAX_THREADS ? KF_PARALLEL_MAX_THREADS : n_threads;
}

typedef struct range_job {
    kf_range_fn fn;
    void *ctx;
    long begin, end;
} range_job;

static void *range_main(void *arg)
{
    range_job *j = arg;
    j->fn(j->ctx, j->begin, j->end);
    return NULL;
}

int kf_parallel(long n_items, long min_items, int n_threads, kf_range_fn fn, void *ctx)
{
    if (n_items <= 0)
        return 0;
    if (min_items < 1)
        min_items = 1;
    long nt = kf_parallel_threads(n_threads);
    if (nt > n_items / min_items)
        nt = n_items / min_items;
    if (nt <= 1) {
        fn(ctx, 0, n_items);
        return 1;
    }
    range_job jobs[KF_PARALLEL_MAX_THREADS];
    pthread_t tids[KF_PARALLEL_MAX_THREADS];
    int started[KF_PARALLEL_MAX_THREADS];
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
    return (int)nt;
}
