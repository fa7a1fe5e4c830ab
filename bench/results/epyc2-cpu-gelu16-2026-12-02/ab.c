/* in turns: each variant's kernel, a streaming copy, each variant's GELU alone; medians */
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
    int nv = argc - 2; const int nt = 2; int rounds = atoi(argv[1]);
    const int64_t N = 16777216;
    float *x = aligned_alloc(4096, N * 4), *y = aligned_alloc(4096, N * 4), *y0 = aligned_alloc(4096, N * 4);
    for (int64_t i = 0; i < N; i++) { x[i] = (float)((i * 2654435761u) % 2000) / 250.0f - 4.0f; y[i] = 0; }
    void (*kern[8])(const kf_cpu_args *); void (*go[8])(int, const float *, int64_t);
    for (int v = 0; v < nv; v++) {
        void *h = dlopen(argv[v + 2], RTLD_NOW | RTLD_LOCAL);
        if (!h) { fprintf(stderr, "%s\n", dlerror()); return 1; }
        kern[v] = (void (*)(const kf_cpu_args *))dlsym(h, "kf_kernel"); go[v] = (void (*)(int, const float *, int64_t))dlsym(h, "gelu_only");
    }
    int64_t dims[2] = {1024, 16384}; const float *ins[1] = {x}; float *outs[1] = {y};
    kf_cpu_args a; memset(&a, 0, sizeof a);
    a.n_dims = 2; a.dims = dims; a.n_in = 1; a.in = (const float *const *)ins; a.n_out = 1; a.out = (float *const *)outs; a.n_threads = nt;
    for (int r = 0; r < rounds; r++) {
        double tk[8][REPS], tg[8][REPS], tc[REPS];
        for (int rep = 0; rep < REPS; rep++) {
            for (int v = 0; v < nv; v++) {
                double t0 = now(); kern[v](&a); tk[v][rep] = now() - t0;
                if (r == 0 && rep == 0) { if (v == 0) memcpy(y0, y, N * 4); else { double m = 0; for (int64_t i = 0; i < N; i++) { double d = y[i] - y0[i]; if (d < 0) d = -d; if (d > m) m = d; } printf("v%d max|diff| to v0 %.3g\n", v, m); } }
            }
            double t0 = now();
            #pragma omp parallel num_threads(nt)
            { int id = omp_get_thread_num(); int64_t lo = N / nt * id, hi = lo + N / nt;
              for (int64_t i = lo; i < hi; i += 16) _mm512_stream_ps(y + i, _mm512_load_ps(x + i)); _mm_sfence(); }
            tc[rep] = now() - t0;
            for (int v = 0; v < nv; v++) { t0 = now(); go[v](nt, x, N); tg[v][rep] = now() - t0; }
        }
        qsort(tc, REPS, 8, cmpd);
        printf("round %d copy %.3f ms |", r + 1, tc[REPS / 2] * 1e3);
        for (int v = 0; v < nv; v++) {
            qsort(tk[v], REPS, 8, cmpd); qsort(tg[v], REPS, 8, cmpd);
            printf(" v%d kernel %.3f (share %.2f) gelu %.3f |", v, tk[v][REPS / 2] * 1e3, tc[REPS / 2] / tk[v][REPS / 2], tg[v][REPS / 2] * 1e3);
        }
        printf("\n"); fflush(stdout);
    }
}
