/* parallel.h — a fork/join over index ranges on POSIX threads. */
#ifndef KF_PARALLEL_H
#define KF_PARALLEL_H

#define KF_PARALLEL_MAX_THREADS 256

/* Threads for n_threads: <= 0 means the online CPUs; at least 1, at most
 * KF_PARALLEL_MAX_THREADS. */
int kf_parallel_threads(int n_threads);

/* Calls fn(ctx, begin, end) on disjoint contiguous ranges covering
 * [0, n_items), on up to kf_parallel_threads(n_threads) threads, giving each
 * thread at least min_items items (so small jobs stay on the calling
 * thread, which also takes the first range).  Ranges are a pure function of
 * (n_items, thread count), so results never depend on scheduling.  A thread
 * that cannot be created has its range run inline.  Returns the number of
 * ranges (threads) used, 0 when n_items <= 0. */
typedef void (*kf_range_fn)(void *ctx, long begin, long end);
int kf_parallel(long n_items, long min_items, int n_threads, kf_range_fn fn, void *ctx);

#endif
