/* FMA throughput with T threads running at once (the probe times one thread
 * and multiplies by the cores): 12 independent AVX-512 FMA chains a thread. */
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <time.h>
__attribute__((noinline)) static float chains(long iters)
{
    __m512 acc[12], m = _mm512_set1_ps(0.999999f), a = _mm512_set1_ps(1e-7f);
    for (int c = 0; c < 12; c++) acc[c] = _mm512_set1_ps((float)c);
    for (long it = 0; it < iters; it++) {
        #pragma GCC unroll 12
        for (int c = 0; c < 12; c++) acc[c] = _mm512_fmadd_ps(acc[c], m, a);
    }
    float s = 0;
    for (int c = 0; c < 12; c++) s += _mm512_reduce_add_ps(acc[c]);
    return s;
}
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(void)
{
    static const int nts[] = {1, 2, 4, 8, 12, 16};
    const long iters = 20000000;
    for (int ti = 0; ti < 6; ti++) {
        int nt = nts[ti];
        if (nt > omp_get_num_procs()) break;
        double best = 1e9, sink = 0;
        for (int rep = 0; rep < 3; rep++) {
            double t0 = 0, t1 = 0, s = 0;
            #pragma omp parallel num_threads(nt) reduction(+:s)
            {
                #pragma omp barrier
                #pragma omp master
                t0 = now();
                float v = chains(iters);
                #pragma omp barrier
                #pragma omp master
                t1 = now();
                s += v;
            }
            sink += s;
            if (t1 - t0 < best) best = t1 - t0;
        }
        double fl = 2.0 * 16 * 12 * (double)iters * nt;
        printf("fma nt %2d: %8.1f GFLOP/s all threads at once (%.1f per thread) (%g)\n", nt, fl / best / 1e9, fl / best / 1e9 / nt, sink);
    }
    return 0;
}
