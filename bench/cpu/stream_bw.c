/* bench/cpu/stream_bw.c — this machine's memory bandwidth now, for the
 * memory-bound records (issue 15: "the single-op and memory-bound problems
 * at >= 80% of measured bandwidth"), measured in the same run as the
 * kernels it is compared with: the cpu-simd probe's peak is the best of a
 * short test from whenever the peak cache was written, and on a shared
 * host the rate moves by a third within an hour.
 *
 *   cc -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o stream_bw
 *   ./stream_bw THREADS MIB PASSES
 *
 * Over two buffers of MIB MiB (first touched by the threads that use them),
 * the best of PASSES passes of each stream on THREADS OpenMP threads:
 *   read     a sum (16 independent vector accumulators a thread): bytes read
 *   copy     y = max(x, 0) with plain stores: bytes read + written (the
 *            write-allocate read of y is not counted: what a kernel's
 *            roofline counts)
 *   copy-nt  the same with non-temporal stores (x86; elsewhere plain)
 * Prints one line each and a JSON object on the last line:
 *   {"threads":T,"mib":M,"read_gbs":R,"copy_gbs":C,"copy_nt_gbs":N,"best_gbs":max}
 * A y = f(x) kernel moving |x| + |y| bytes can approach copy-nt at best. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static volatile float sink;

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: stream_bw THREADS MIB PASSES\n");
        return 2;
    }
    int nt = atoi(argv[1]), passes = atoi(argv[3]);
    long mib = atol(argv[2]);
    if (nt < 1 || mib < 1 || passes < 1) {
        fprintf(stderr, "stream_bw: THREADS, MIB and PASSES must be positive\n");
        return 2;
    }
    size_t n = (size_t)mib << 18;   /* floats, a multiple of 64 */
    float *x = aligned_alloc(64, n * sizeof(float)), *y = aligned_alloc(64, n * sizeof(float));
    if (!x || !y) {
        fprintf(stderr, "stream_bw: out of memory\n");
        return 1;
    }
#pragma omp parallel for num_threads(nt) schedule(static)
    for (size_t i = 0; i < n; i++) {
        x[i] = (float)(i & 1023) - 512.0f;
        y[i] = 0.0f;
    }
    double best[3] = {0, 0, 0};
    for (int p = 0; p < passes; p++) {
        for (int s = 0; s < 3; s++) {
            double t0 = now();
            float tot = 0.0f;
#pragma omp parallel num_threads(nt) reduction(+ : tot)
            {
                if (s == 0) {
                    float acc[16][16] = {{0}};
#pragma omp for schedule(static)
                    for (size_t i = 0; i < n; i += 256)
                        for (int u = 0; u < 16; u++)
#pragma omp simd
                            for (int l = 0; l < 16; l++) acc[u][l] += x[i + 16 * u + l];
                    for (int u = 0; u < 16; u++)
                        for (int l = 0; l < 16; l++) tot += acc[u][l];
                } else if (s == 1) {
#pragma omp for simd schedule(static)
                    for (size_t i = 0; i < n; i++) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
                } else {
#if defined(__AVX512F__)
#pragma omp for schedule(static)
                    for (size_t i = 0; i < n; i += 16)
                        _mm512_stream_ps(y + i, _mm512_max_ps(_mm512_load_ps(x + i), _mm512_setzero_ps()));
                    _mm_sfence();
#elif defined(__AVX__)
#pragma omp for schedule(static)
                    for (size_t i = 0; i < n; i += 8)
                        _mm256_stream_ps(y + i, _mm256_max_ps(_mm256_load_ps(x + i), _mm256_setzero_ps()));
                    _mm_sfence();
#else
#pragma omp for simd schedule(static)
                    for (size_t i = 0; i < n; i++) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
#endif
                }
            }
            double dt = now() - t0;
            sink = tot + y[n / 2];
            double gbs = (s == 0 ? 1.0 : 2.0) * (double)n * sizeof(float) / dt / 1e9;
            if (gbs > best[s]) best[s] = gbs;
        }
    }
    static const char *const names[3] = {"read", "copy", "copy-nt"};
    double top = 0;
    for (int s = 0; s < 3; s++) {
        printf("%-8s %7.1f GB/s  (%d threads, %ld MiB, best of %d)\n", names[s], best[s], nt, mib, passes);
        if (best[s] > top) top = best[s];
    }
    printf("{\"threads\":%d,\"mib\":%ld,\"read_gbs\":%.2f,\"copy_gbs\":%.2f,\"copy_nt_gbs\":%.2f,\"best_gbs\":%.2f}\n", nt,
           mib, best[0], best[1], best[2], top);
    free(x);
    free(y);
    return 0;
}
