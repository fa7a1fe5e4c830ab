/* bench/cpu_gemm/study/emu.c — kforge's profile protocol around one
 * generated cpu-simd kernel, outside kforge, to see what the stops and gaps
 * between timed runs cost: a child process runs the kernel (problem 9's
 * shape, 512 x 2048 -> 2048) once per byte on a pipe; after each reply the
 * parent, by MODE bits: 16 stops the child (SIGSTOP, waited for) and
 * continues it at the end; 1 rewrites x and W from one thread, 2 poisons
 * the output and scratch, 32 rewrites x, W and scratch from every CPU
 * (pthreads), 64 keeps every CPU busy for 5 ms, 4 sleeps 20 ms.  Prints the
 * child's time per call (ms; the first call left out).
 *
 *   cc -O3 -march=native -fopenmp -Iplugins/cpu-simd -Dkf_kernel=kf_kernel_0 -c kernel.c -o k.o
 *   cc -O3 -march=native -fopenmp -Iplugins/cpu-simd bench/cpu_gemm/study/emu.c k.o -lpthread -o emu
 *   ./emu THREADS CALLS MODE        (kernel.c: emit_golden's kernel for problem 9, preset cpu)
 *
 * Record: bench/results/xeon16-cpu-torch-2026-11-25c/study/stop-and-wait-policy.txt */
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "kforge-cpu.h"
#include <immintrin.h>
#include <pthread.h>
typedef struct { float *x, *w, *sc; int64_t nx, nw, ns; int r, t, T; } pj;
static void *pub_fn(void *a) { pj *j = a; float f = 1.0f + 1e-6f * j->r;
    for (int64_t i = j->nx * j->t / j->T; i < j->nx * (j->t + 1) / j->T; i++) j->x[i] *= f;
    for (int64_t i = j->nw * j->t / j->T; i < j->nw * (j->t + 1) / j->T; i++) j->w[i] *= f;
    for (int64_t i = j->ns * j->t / j->T; i < j->ns * (j->t + 1) / j->T; i++) j->sc[i] = -1.0f; return NULL; }
static double now2(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static void *spin_fn(void *a) { (void)a; double t0 = now2(); while (now2() - t0 < 0.005) _mm_pause(); return NULL; }
static void par(void *(*fn)(void *), float *x, float *w, float *sc, int64_t nx, int64_t nw, int64_t ns, int r)
{
    int T = (int)sysconf(_SC_NPROCESSORS_ONLN); if (T > 64) T = 64;
    pthread_t th[64]; pj jb[64];
    for (int t = 0; t < T; t++) { jb[t] = (pj){x, w, sc, nx, nw, ns, r, t, T}; if (t) pthread_create(&th[t], NULL, fn, &jb[t]); }
    fn(&jb[0]);
    for (int t = 1; t < T; t++) pthread_join(th[t], NULL);
}
void kf_kernel_0(const kf_cpu_args *a);
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(int argc, char **argv)
{
    int64_t B = 512, K = 2048, N = 2048; int nt = atoi(argv[1]), reps = atoi(argv[2]), mode = atoi(argv[3]);
    size_t sx = B * K * 4, sw = N * K * 4, sb = N * 4 + 64, sy = B * N * 4, s0 = 16 << 20, s1 = 4 << 20;
    size_t tot = sx + sw + sb + sy + s0 + s1 + 6 * 4096;
    char *m = mmap(NULL, tot, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    float *x = (float *)m, *w = (float *)(m + sx), *bias = (float *)(m + sx + sw), *y = (float *)(m + sx + sw + 65536 * 0 + sb + 4096 - (sx + sw + sb) % 4096);
    float *sc0 = (float *)((char *)y + sy), *sc1 = (float *)((char *)sc0 + s0);
    for (int64_t i = 0; i < B * K; i++) x[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
    for (int64_t i = 0; i < N * K; i++) w[i] = (float)((i * 104729) % 1000) / 1000.0f - 0.5f;
    for (int64_t i = 0; i < N; i++) bias[i] = 0.01f;
    double *times = mmap(NULL, 4096 * 8, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    int c2p[2], p2c[2]; pipe(c2p); pipe(p2c);
    pid_t pid = fork();
    if (pid == 0) {
        close(p2c[1]); close(c2p[0]);
        unsigned long mm = 0; uint32_t feats = 0;
        if (syscall(SYS_arch_prctl, 0x1023, 18) == 0 && syscall(SYS_arch_prctl, 0x1022, &mm) == 0 && (mm & (1ul << 18))) feats = KF_CPU_FEAT_AMX_BF16;
        const float *in[3] = {x, w, bias}; float *out[1] = {y}; float *scr[2] = {sc0, sc1}; int64_t dims[3] = {B, K, N};
        kf_cpu_args a = {in, out, scr, dims, 3, 1, 2, 3, nt, feats};
        char c;
        for (int r = 0; read(p2c[0], &c, 1) == 1; r++) {
            double t0 = now(); kf_kernel_0(&a); times[r] = now() - t0;
            if (c == 'x') { double t1 = now(); kf_kernel_0(&a); times[2048 + r] = now() - t1; }
            write(c2p[1], &c, 1);
        }
        _exit(0);
    }
    char c = (mode & 8) ? 'x' : 'r';
    for (int r = 0; r < reps; r++) {
        write(p2c[1], &c, 1); read(c2p[0], &c, 1); c = (mode & 8) ? 'x' : 'r';
        if (mode & 16) { kill(pid, SIGSTOP); int st; waitpid(pid, &st, WUNTRACED); }
        if (mode & 1) { float f = 1.0f + 1e-6f * r; for (int64_t i = 0; i < B * K; i++) x[i] *= f; for (int64_t i = 0; i < N * K; i++) w[i] *= f; }
        if (mode & 2) { memset(y, 0xa5, sy); memset(sc0, 0xa5, s0); memset(sc1, 0xa5, s1); }
        if (mode & 32) par(pub_fn, x, w, sc0, B * K, N * K, s0 / 4, r);
        if (mode & 64) par(spin_fn, x, w, sc0, 0, 0, 0, r);
        if (mode & 4) usleep(20000);
        if (mode & 16) kill(pid, SIGCONT);
    }
    close(p2c[1]); waitpid(pid, NULL, 0);
    printf("mode %2d nt %d:", mode, nt); double s = 0; for (int r = 1; r < reps; r++) { printf(" %.2f", times[r] * 1e3); s += times[r]; }
    if (mode & 8) { printf(" | second call:"); for (int r = 1; r < reps; r++) printf(" %.2f", times[2048 + r] * 1e3); }
    printf("\n");
    return 0;
}
