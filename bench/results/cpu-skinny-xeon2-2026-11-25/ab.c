/* ab.c — A/B timing of cpu-simd candidates of one problem, interleaved:
 *   ab DIMS(csv) NIN INSIZES(csv floats) NOUT OUTSIZES(csv) NSCR SCRBYTES(csv) ROUNDS a.so b.so ...
 * each round runs every .so once (after one warm-up each; odd rounds in
 * reverse order) and prints "round index seconds".  Inputs uniform in
 * [-0.5, 0.5), scratch zeroed, features = AMX granted, n_threads = $NT
 * (default 2).  Build: cc -O2 -I plugins/cpu-simd ab.c -o ab -ldl; each
 * candidate: cc -std=gnu11 -O3 -march=native -fopenmp -fPIC -shared
 * -I plugins/cpu-simd kernel.c -o X.so -lm (the cpu-simd plugin's flags). */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "kforge-cpu.h"
static int64_t *csv(const char *s, int *n) { int64_t *v = malloc(64 * sizeof *v); *n = 0; char *e; while (*s) { v[(*n)++] = strtoll(s, &e, 10); s = *e ? e + 1 : e; } return v; }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char **argv) {
    int nd, ni, no, ns;
    int64_t *dims = csv(argv[1], &nd), *is = csv(argv[3], &ni), *os = csv(argv[5], &no), *ss = csv(argv[7], &ns);
    int rounds = atoi(argv[8]), nk = argc - 9;
    float **in = malloc(ni * sizeof *in), **out = malloc(no * sizeof *out), **scr = malloc((ns + 1) * sizeof *scr);
    srand(1);
    for (int i = 0; i < ni; i++) { in[i] = aligned_alloc(64, (is[i] * 4 + 63) / 64 * 64); for (int64_t k = 0; k < is[i]; k++) in[i][k] = (float)rand() / RAND_MAX - 0.5f; }
    for (int i = 0; i < no; i++) out[i] = aligned_alloc(64, (os[i] * 4 + 63) / 64 * 64);
    for (int i = 0; i < ns; i++) { scr[i] = aligned_alloc(64, (ss[i] + 63) / 64 * 64); memset(scr[i], 0, ss[i]); }
    syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */, 18 /* XTILEDATA: for AMX candidates */);
    kf_cpu_entry f[8];
    for (int k = 0; k < nk; k++) { void *h = dlopen(argv[9 + k], RTLD_NOW); if (!h) { fprintf(stderr, "%s\n", dlerror()); return 1; } f[k] = (kf_cpu_entry)dlsym(h, "kf_kernel"); }
    kf_cpu_args a = {.in = (const float *const *)in, .out = out, .scratch = scr, .dims = dims, .n_in = ni, .n_out = no, .n_scratch = ns, .n_dims = nd, .n_threads = getenv("NT") ? atoi(getenv("NT")) : 2, .features = 1};
    for (int k = 0; k < nk; k++) f[k](&a);
    for (int r = 0; r < rounds; r++) {
        for (int j = 0; j < nk; j++) {   /* odd rounds in reverse order */
            int k = r % 2 ? nk - 1 - j : j;
            double t0 = now();
            f[k](&a);
            printf("%d %d %.6f\n", r, k, now() - t0);
        }
    }
    return 0;
}
