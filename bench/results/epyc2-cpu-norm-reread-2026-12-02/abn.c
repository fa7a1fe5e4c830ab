/* abn.c — cpu-simd kernels of one input and one output of the same size (the norms at the cpu
 * preset), timed in turns with each other and a streaming copy of the same buffers (AVX-512
 * loads, non-temporal stores), REPS calls each a round, the order reversed every other call;
 * prints each round's medians and shares (copy / kernel), each variant's count of floats that
 * differ from v0's output (bitwise) and the largest difference, and each variant's time over
 * v0's: median, range, rounds faster.  The input: uniform [0, 1) from a fixed LCG, as the
 * problems' init; written once (no fresh inputs between calls, unlike kforge profile).
 *   cc -O2 -march=native -fopenmp -I plugins/cpu-simd abn.c -o abn -ldl
 *   OMP_PROC_BIND=close ./abn D0,D1,.. THREADS ROUNDS v0.so v1.so ... */
#include <dlfcn.h>
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "kforge-cpu.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static int cmpd(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
#define REPS 21
int main(int argc, char **argv)
{
    /* abn D0,D1,.. THREADS ROUNDS a.so b.so ... */
    int64_t dims[8]; int nd = 0; int64_t N = 1;
    for (char *p = argv[1]; *p; ) { dims[nd] = strtoll(p, &p, 10); N *= dims[nd++]; if (*p == ',') p++; }
    const int nt = atoi(argv[2]); int rounds = atoi(argv[3]); int nv = argc - 4;
    float *x = aligned_alloc(4096, N * 4), *y = aligned_alloc(4096, N * 4), *y0 = aligned_alloc(4096, N * 4);
    unsigned s = 12345; for (int64_t i = 0; i < N; i++) { s = s * 1664525u + 1013904223u; x[i] = (s >> 8) / 16777216.0f; y[i] = 0; }
    void (*kern[8])(const kf_cpu_args *);
    for (int v = 0; v < nv; v++) {
        void *h = dlopen(argv[v + 4], RTLD_NOW | RTLD_LOCAL);
        if (!h) { fprintf(stderr, "%s\n", dlerror()); return 1; }
        kern[v] = (void (*)(const kf_cpu_args *))dlsym(h, "kf_kernel");
    }
    const float *ins[1] = {x}; float *outs[1] = {y};
    kf_cpu_args a; memset(&a, 0, sizeof a);
    a.n_dims = nd; a.dims = dims; a.n_in = 1; a.in = (const float *const *)ins; a.n_out = 1; a.out = (float *const *)outs; a.n_threads = nt;
    double ratio[8][64];
    for (int r = 0; r < rounds; r++) {
        double tk[8][REPS], tc[REPS];
        for (int rep = 0; rep < REPS; rep++) {
            for (int v = 0; v < nv; v++) {
                int vv = (rep & 1) ? nv - 1 - v : v;
                double t0 = now(); kern[vv](&a); tk[vv][rep] = now() - t0;
                if (r == 0 && rep == 0) { if (vv == 0) memcpy(y0, y, N * 4); }
                if (r == 0 && rep == 1 && vv != 0) { int64_t nd_ = 0; double m = 0; for (int64_t i = 0; i < N; i++) { if (memcmp(&y[i], &y0[i], 4)) nd_++; double d = y[i] - y0[i]; if (d < 0) d = -d; if (d > m) m = d; } printf("v%d: %lld floats differ from v0, max|diff| %.3g\n", vv, (long long)nd_, m); }
            }
            double t0 = now();
            #pragma omp parallel num_threads(nt)
            { int id = omp_get_thread_num(); int64_t lo = N / nt * id, hi = id == nt - 1 ? N : lo + N / nt;
              for (int64_t i = lo; i < hi; i += 16) _mm512_stream_ps(y + i, _mm512_load_ps(x + i)); _mm_sfence(); }
            tc[rep] = now() - t0;
        }
        qsort(tc, REPS, sizeof(double), cmpd);
        printf("round %d copy %.3f ms", r, tc[REPS / 2] * 1e3);
        for (int v = 0; v < nv; v++) { qsort(tk[v], REPS, sizeof(double), cmpd); printf("  v%d %.3f (share %.2f)", v, tk[v][REPS / 2] * 1e3, tc[REPS / 2] / tk[v][REPS / 2]); ratio[v][r] = tk[v][REPS / 2] / tk[0][REPS / 2]; }
        printf("\n");
    }
    for (int v = 1; v < nv; v++) { qsort(ratio[v], rounds, sizeof(double), cmpd); int f = 0; for (int r = 0; r < rounds; r++) f += ratio[v][r] < 1.0; printf("v%d / v0: median %.3f, range %.3f-%.3f, faster in %d of %d\n", v, ratio[v][rounds / 2], ratio[v][0], ratio[v][rounds - 1], f, rounds); }
    return 0;
}
