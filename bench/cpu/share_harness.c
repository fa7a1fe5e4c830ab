/* bench/cpu/share_harness.c — a memory-bound kernel's share of the bandwidth,
 * against a streaming reference timed the same way, in turns (issue 15: "the
 * single-op and memory-bound problems at >= 80% of measured bandwidth").
 *
 *   cc -O2 -march=native -fopenmp -I plugins/cpu-simd bench/cpu/share_harness.c -o share_harness -ldl
 *   ./share_harness --dims D0,D1,.. --in N0,N1,.. --out M0,.. [--threads T] [--reps R] [--gap-us U]
 *                   [--packed] [--pages shared|anon|thp] KERNEL.so
 *
 * KERNEL.so: a cpu-simd candidate (kf_kernel, kforge-cpu.h) built as the plugin
 * builds it; --in / --out: its inputs' and outputs' sizes in floats; no scratch.
 * The buffers sit in one memfd as kforge's buffer sets place them (a 4096-byte
 * guard band before and after each, page-rounded); --packed puts them back to
 * back on page boundaries instead (where input and output of 64 MiB each lie
 * exactly 64 MiB apart).  --pages: the memory under them: shared (the default:
 * a memfd mapped shared, as kforge's sets are), anon (private anonymous
 * memory) or thp (private anonymous memory, 2 MiB-aligned, with
 * madvise(MADV_HUGEPAGE): huge pages where the kernel's THP setting allows;
 * bench/results/epyc2-cpu-pages-2026-12-02 for why).
 * The reference is this program's own kernel over the same buffers: every input
 * read and every output written once with non-temporal stores (the first input
 * copied into the first output where their sizes match: stream_bw's copy-nt;
 * a kernel whose outputs are small only reads, as stream_bw's read), i.e. it
 * moves the problem's min_bytes.  stream_bw's best of back-to-back passes over
 * buffers its threads touched first is not how kforge times a kernel; here both
 * are timed as kforge profile times a run on a host clock:
 *   an untimed lead-in call on the current inputs, then fresh inputs (one of
 *   two sets drawn at the start, alternating) written over the inputs by
 *   separate threads, not bound to the kernel's CPUs (as kforge's parent
 *   writes them: up to 16 threads in 1 MiB chunks, one thread under 4
 *   CPUs), then (--gap-us) a pause of U microseconds, then the timed call;
 * the reference and the kernel alternate, the first of each pair alternating
 * by rep.  After the last call the first output must hold no NaN (a kernel
 * built for other sizes writes NaN everywhere): else exit 1.
 * Prints one JSON line:
 *   {"kernel":K,"threads":T,"reps":R,"gap_us":U,"layout":"kforge"|"packed","pages":P,
 *    "min_bytes":B,"ref":"copy_nt"|"read",
 *    "kernel_ms":{"median":..,"p25":..,"p75":..,"min":..},"ref_ms":{...},
 *    "share":ref median / kernel median}
 * share is the kernel's min-bytes rate over the reference's in the same minute.
 * Exit 2: bad arguments; 1: the kernel would not load or wrote NaN.
 * Not sandboxed: the kernel runs in this process with the caller's rights,
 * none of kforge's worker layers (doc/sandbox.md) around it.  A benchmark of
 * kernels the suite has already verified in the sandbox; run it only on
 * kernels you would run yourself (an LLM's candidates included). */
#define _GNU_SOURCE
#include "kforge-cpu.h"

#include <dlfcn.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define MAX_BUF 16
#define MAX_REPS 4001
#define CHUNK ((size_t)1 << 20)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int parse_list(const char *s, int64_t *v, int max)
{
    int n = 0;
    while (*s && n < max) {
        char *e;
        long long x = strtoll(s, &e, 10);
        if (e == s || x < 1) return -1;
        v[n++] = x;
        s = *e == ',' ? e + 1 : e;
        if (*e && *e != ',') return -1;
    }
    return *s ? -1 : n;
}

/* ---- the reference: reads every input, writes every output once ---- */

static int n_in, n_out, ref_copy;
static int64_t in_n[MAX_BUF], out_n[MAX_BUF];
static volatile float sink;

static void slice(int64_t n, int t, int T, int64_t *b, int64_t *e)
{   /* whole 64-float blocks a thread; the last thread takes the tail */
    int64_t blocks = n / 64;
    *b = blocks * t / T * 64;
    *e = t == T - 1 ? n : blocks * (t + 1) / T * 64;
}

static void stream_out(float *y, const float *x, int64_t b, int64_t e)
{   /* y[b..e) = x[b..e) (or 0 where x is NULL) with streaming stores; b is a block's start */
    int64_t i = b;
#if defined(__AVX512F__)
    const __m512 z = _mm512_setzero_ps();
    if (!((uintptr_t)(y + b) & 63))
        for (; i + 16 <= e; i += 16) _mm512_stream_ps(y + i, x ? _mm512_loadu_ps(x + i) : z);
#elif defined(__AVX__)
    const __m256 z = _mm256_setzero_ps();
    if (!((uintptr_t)(y + b) & 31))
        for (; i + 8 <= e; i += 8) _mm256_stream_ps(y + i, x ? _mm256_loadu_ps(x + i) : z);
#endif
    for (; i < e; i++) y[i] = x ? x[i] : 0.0f;
}

static float read_sum(const float *x, int64_t b, int64_t e)
{
    float acc[64] = {0};   /* four vectors' worth of independent sums */
    int64_t i = b;
    for (; i + 64 <= e; i += 64)
#pragma omp simd
        for (int l = 0; l < 64; l++) acc[l] += x[i + l];
    float s = 0.0f;
    for (; i < e; i++) s += x[i];
    for (int l = 0; l < 64; l++) s += acc[l];
    return s;
}

static void ref_kernel(const kf_cpu_args *a)
{
    float tot = 0.0f;
#pragma omp parallel num_threads(a->n_threads) reduction(+ : tot)
    {
        int t = omp_get_thread_num(), T = omp_get_num_threads();
        int64_t b, e;
        for (int k = 0; k < n_in; k++) {
            if (k == 0 && ref_copy) continue;
            slice(in_n[k], t, T, &b, &e);
            tot += read_sum(a->in[k], b, e);
        }
        for (int k = 0; k < n_out; k++) {
            slice(out_n[k], t, T, &b, &e);
            stream_out(a->out[k], k == 0 && ref_copy ? a->in[0] : NULL, b, e);
        }
#if defined(__SSE2__)
        _mm_sfence();
#endif
    }
    sink = tot;
}

/* ---- fresh inputs, written by threads other than the kernel's ---- */

typedef struct {
    float *const *dst;
    float *const *src;
    int t, T;
} writer;

static cpu_set_t all_cpus;   /* every CPU this process may use, before libgomp binds its first thread */

static void *write_part(void *p)
{
    const writer *w = p;
    if (w->t > 0)   /* created by the bound first thread: unbind, as kforge's parent's writers are */
        sched_setaffinity(0, sizeof all_cpus, &all_cpus);
    long job = 0;
    for (int k = 0; k < n_in; k++)
        for (size_t off = 0; off < (size_t)in_n[k] * 4; off += CHUNK, job++) {
            if (job % w->T != w->t) continue;
            size_t n = (size_t)in_n[k] * 4 - off < CHUNK ? (size_t)in_n[k] * 4 - off : CHUNK;
            memcpy((char *)w->dst[k] + off, (const char *)w->src[k] + off, n);
        }
    return NULL;
}

static void write_inputs(float *const *dst, float *const *src, int T)
{
    pthread_t th[16];
    writer w[16];
    int ok[16] = {0};
    for (int t = 0; t < T; t++) w[t] = (writer){dst, src, t, T};
    for (int t = 1; t < T; t++) ok[t] = pthread_create(&th[t], NULL, write_part, &w[t]) == 0;
    write_part(&w[0]);
    for (int t = 1; t < T; t++)
        if (ok[t]) pthread_join(th[t], NULL);
        else write_part(&w[t]);   /* a thread that did not start: its part here */
}

static int cmp_d(const void *a, const void *b)
{
    double d = *(const double *)a - *(const double *)b;
    return d < 0 ? -1 : d > 0;
}

static void stats_json(const char *name, double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    printf("\"%s\":{\"median\":%.4f,\"p25\":%.4f,\"p75\":%.4f,\"min\":%.4f}", name, v[n / 2] * 1e3, v[n / 4] * 1e3,
           v[3 * n / 4] * 1e3, v[0] * 1e3);
}

static int usage(const char *why)
{
    fprintf(stderr, "share_harness: %s\nusage: share_harness --dims D0,.. --in N0,.. --out M0,.. [--threads T] "
            "[--reps R] [--gap-us U] [--packed] [--pages shared|anon|thp] KERNEL.so\n", why);
    return 2;
}

int main(int argc, char **argv)
{
    int64_t dims[16];
    int n_dims = -1, nt = 1, reps = 21, gap_us = 0, packed = 0;
    const char *pages = "shared";
    const char *so = NULL;
    n_in = n_out = -1;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--dims") && v) n_dims = parse_list(argv[++i], dims, 16);
        else if (!strcmp(argv[i], "--in") && v) n_in = parse_list(argv[++i], in_n, MAX_BUF);
        else if (!strcmp(argv[i], "--out") && v) n_out = parse_list(argv[++i], out_n, MAX_BUF);
        else if (!strcmp(argv[i], "--threads") && v) nt = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && v) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--gap-us") && v) gap_us = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--packed")) packed = 1;
        else if (!strcmp(argv[i], "--pages") && v) pages = argv[++i];
        else if (argv[i][0] == '-' || so) return usage(argv[i][0] == '-' ? "unknown option or missing value"
                                                                        : "one KERNEL.so");
        else so = argv[i];
    }
    if (!so || n_dims < 1 || n_in < 1 || n_out < 1) return usage("--dims, --in, --out and KERNEL.so are needed");
    if (strcmp(pages, "shared") && strcmp(pages, "anon") && strcmp(pages, "thp"))
        return usage("--pages shared, anon or thp");
    if (nt < 1 || nt > 1024 || reps < 3 || reps > MAX_REPS || gap_us < 0 || gap_us > 10000000)
        return usage("--threads 1..1024, --reps 3..4001, --gap-us 0..10000000");
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    kf_cpu_entry kern = h ? (kf_cpu_entry)dlsym(h, "kf_kernel") : NULL;
    if (!kern) {
        fprintf(stderr, "share_harness: %s: %s\n", so, h ? "no kf_kernel" : dlerror());
        return 1;
    }

    /* one memfd, every buffer placed as kforge's sets place it (core/eval/eval_mem.c: a
       4096-byte guard band before and after each, page-rounded), so the buffers' addresses
       relate as in kforge's timed runs; --packed: back to back on page boundaries */
    size_t off[2 * MAX_BUF], tot = 0, guard = packed ? 0 : 4096;
    double min_bytes = 0;
    for (int k = 0; k < n_in + n_out; k++) {
        int64_t n = k < n_in ? in_n[k] : out_n[k - n_in];
        off[k] = tot + guard;
        tot += ((size_t)n * 4 + 2 * guard + 4095) / 4096 * 4096;
        min_bytes += (double)n * 4;
    }
    char *map;
    if (!strcmp(pages, "shared")) {
        int fd = memfd_create("share_harness", 0);
        map = fd < 0 || ftruncate(fd, (off_t)tot) != 0 ? MAP_FAILED
                                                       : mmap(NULL, tot, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    } else {   /* private anonymous; thp: from a 2 MiB boundary, huge pages asked for */
        const int thp = !strcmp(pages, "thp");
        const size_t huge = (size_t)2 << 20;
        map = mmap(NULL, tot + (thp ? huge : 0), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (map != MAP_FAILED && thp) {
            map = (char *)(((uintptr_t)map + huge - 1) & ~(uintptr_t)(huge - 1));
            if (madvise(map, tot, MADV_HUGEPAGE) != 0) perror("share_harness: madvise(MADV_HUGEPAGE)");
        }
    }
    if (map == MAP_FAILED) {
        perror("share_harness: buffers");
        return 1;
    }
    float *in[MAX_BUF], *out[MAX_BUF], *fresh[2][MAX_BUF];
    unsigned seed = 12345;
    for (int k = 0; k < n_in; k++) {
        in[k] = (float *)(void *)(map + off[k]);
        for (int s = 0; s < 2; s++) {
            if (!(fresh[s][k] = aligned_alloc(64, ((size_t)in_n[k] * 4 + 63) / 64 * 64))) return 1;
            for (int64_t j = 0; j < in_n[k]; j++) fresh[s][k][j] = (float)rand_r(&seed) / RAND_MAX * 2.0f - 1.0f;
        }
        memcpy(in[k], fresh[1][k], (size_t)in_n[k] * 4);
    }
    for (int k = 0; k < n_out; k++) out[k] = (float *)(void *)(map + off[n_in + k]);
    double out_bytes = 0;
    for (int k = 0; k < n_out; k++) out_bytes += (double)out_n[k] * 4;
    ref_copy = out_n[0] == in_n[0];
    int reads_only = out_bytes < 0.05 * min_bytes;   /* bandwidth_share.py's reads_only */

    /* OMP_PROC_BIND binds the first thread, and every thread it creates inherits that:
       the writers take every CPU of the machine (the kernel keeps those of the cpuset) */
    CPU_ZERO(&all_cpus);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    for (long c = 0; c < cpus && c < CPU_SETSIZE; c++) CPU_SET((int)c, &all_cpus);
    int writers = cpus < 4 ? 1 : (cpus > 16 ? 16 : (int)cpus);
    const float *const *inc = (const float *const *)in;
    kf_cpu_args a = {inc, out, NULL, dims, n_in, n_out, 0, n_dims, nt, 0};
    double *tk = calloc((size_t)reps, sizeof *tk), *tr = calloc((size_t)reps, sizeof *tr);
    if (!tk || !tr) return 1;
    for (int r = 0; r < reps; r++)
        for (int j = 0; j < 2; j++) {
            int is_ref = (j + r) % 2 == 0;
            if (is_ref) ref_kernel(&a); else kern(&a);   /* the lead-in */
            write_inputs(in, fresh[r % 2], writers);
            if (gap_us) usleep((useconds_t)gap_us);
            double t0 = now();
            if (is_ref) ref_kernel(&a); else kern(&a);
            (is_ref ? tr : tk)[r] = now() - t0;
        }
    kern(&a);
    for (int64_t j = 0; j < out_n[0]; j++)
        if (isnan(out[0][j])) {
            fprintf(stderr, "share_harness: %s wrote NaN at output 0 [%lld] (built for other sizes?)\n", so,
                    (long long)j);
            return 1;
        }
    printf("{\"kernel\":\"%s\",\"threads\":%d,\"reps\":%d,\"gap_us\":%d,\"layout\":\"%s\",\"pages\":\"%s\","
           "\"min_bytes\":%.0f,\"ref\":\"%s\",", so, nt, reps, gap_us, packed ? "packed" : "kforge", pages, min_bytes,
           reads_only ? "read" : "copy_nt");
    double km, rm;
    stats_json("kernel_ms", tk, reps);
    km = tk[reps / 2];
    printf(",");
    stats_json("ref_ms", tr, reps);
    rm = tr[reps / 2];
    printf(",\"share\":%.4f}\n", rm / km);
    return 0;
}
