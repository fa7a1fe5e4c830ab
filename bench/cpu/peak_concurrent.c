/* bench/cpu/peak_concurrent.c — the FMA (AVX-512 fp32) and AMX (tdpbf16ps)
 * throughput of T threads running at once, each bound to its own CPU
 * (0 .. T-1 of the affinity mask), in registers, best of 5: what the cores
 * deliver together (AMX twice: zero tiles, and tiles of random bf16 values in
 * [-1, 1], since the tile unit's power, and so the clock it allows, depends on
 * the data), beside the probe's one thread times the cores (the
 * roofline's peak, an upper bound: cpu-simd's probe.c).  On a host whose
 * vCPUs share physical cores, or lower their clock with every core busy,
 * the two differ.
 *
 *   cc -O2 -pthread bench/cpu/peak_concurrent.c -o peak && ./peak [T...]
 * (default T: 1 2 4 ... and the CPUs of the mask).  Prints GFLOP/s of the
 * T threads together and per thread. */
#define _GNU_SOURCE
#include <immintrin.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CHAINS 24
#define FMA_ITERS 2000000L
#define AMX_ITERS 400000L

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

__attribute__((target("avx512f"), noinline)) static double fma_loop(float seed)
{
    __m512 acc[CHAINS];
    const __m512 x = _mm512_set1_ps(0.9999999f), y = _mm512_set1_ps(1e-9f);
    for (int c = 0; c < CHAINS; c++) acc[c] = _mm512_set1_ps(seed * (float)c);
    for (long it = 0; it < FMA_ITERS; it++) {
        _Pragma("GCC unroll 24")
        for (int c = 0; c < CHAINS; c++) acc[c] = _mm512_fmadd_ps(acc[c], x, y);
    }
    double s = 0;
    for (int c = 0; c < CHAINS; c++) s += _mm512_cvtss_f32(acc[c]);
    return s;
}

typedef struct { uint8_t palette, start_row, reserved[14]; uint16_t colsb[16]; uint8_t rows[16]; } amx_cfg;

/* the four operand tiles of amx_loop: zeros, or random bf16 values (main fills them) */
static uint16_t amx_zeros[4][16 * 32] __attribute__((aligned(64)));
static uint16_t amx_random[4][16 * 32] __attribute__((aligned(64)));

__attribute__((target("amx-tile,amx-bf16"), noinline)) static double amx_loop(uint16_t (*ops)[16 * 32])
{
    float c[16 * 16] __attribute__((aligned(64)));
    amx_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.palette = 1;
    for (int t = 0; t < 8; t++) { cfg.colsb[t] = 64; cfg.rows[t] = 16; }
    _tile_loadconfig(&cfg);
    _tile_zero(0); _tile_zero(1); _tile_zero(2); _tile_zero(3);
    _tile_loadd(4, ops[0], 64); _tile_loadd(5, ops[1], 64); _tile_loadd(6, ops[2], 64); _tile_loadd(7, ops[3], 64);
    for (long it = 0; it < AMX_ITERS; it++) {
        _tile_dpbf16ps(0, 4, 6); _tile_dpbf16ps(1, 4, 7); _tile_dpbf16ps(2, 5, 6); _tile_dpbf16ps(3, 5, 7);
    }
    _tile_stored(0, c, 64);
    _tile_release();
    return (double)c[0];
}

typedef struct { int cpu, amx; pthread_barrier_t *go; double t0, t1, sink; } job;
static volatile double sink;

static void *run(void *p)
{
    job *j = p;
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(j->cpu, &s);
    pthread_setaffinity_np(pthread_self(), sizeof s, &s);
    pthread_barrier_wait(j->go);
    j->t0 = now();
    j->sink = j->amx == 2 ? amx_loop(amx_random) : j->amx ? amx_loop(amx_zeros) : fma_loop(1.0f);
    j->t1 = now();
    sink = j->sink;
    return NULL;
}

/* GFLOP/s of n threads at once (from the first start to the last end), best of 5;
 * amx: 0 the FMA loop, 1 AMX on zero tiles, 2 AMX on random tiles */
static double rate(const int *cpus, int n, int amx)
{
    double best = 0;
    for (int trial = 0; trial < 5; trial++) {
        pthread_t tid[1024];
        job jobs[1024];
        pthread_barrier_t go;
        pthread_barrier_init(&go, NULL, (unsigned)n);
        for (int i = 0; i < n; i++) {
            jobs[i] = (job){cpus[i], amx, &go, 0, 0, 0};
            pthread_create(&tid[i], NULL, run, &jobs[i]);
        }
        double t0 = 1e300, t1 = 0;
        for (int i = 0; i < n; i++) {
            pthread_join(tid[i], NULL);
            if (jobs[i].t0 < t0) t0 = jobs[i].t0;
            if (jobs[i].t1 > t1) t1 = jobs[i].t1;
        }
        pthread_barrier_destroy(&go);
        double flops = amx ? 2.0 * 4 * 16 * 16 * 32 * (double)AMX_ITERS * n : 2.0 * CHAINS * 16 * (double)FMA_ITERS * n;
        if (t1 > t0 && flops / (t1 - t0) > best) best = flops / (t1 - t0);
    }
    return best * 1e-9;
}

int main(int argc, char **argv)
{
    cpu_set_t mask;
    int cpus[1024], ncpu = 0;
    sched_getaffinity(0, sizeof mask, &mask);
    for (int c = 0; c < CPU_SETSIZE && ncpu < 1024; c++)
        if (CPU_ISSET(c, &mask)) cpus[ncpu++] = c;
    int amx = __builtin_cpu_supports("amx-tile") && __builtin_cpu_supports("amx-bf16") &&
              syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */, 18 /* XTILEDATA */) == 0;
    int fma = __builtin_cpu_supports("avx512f");
    srand(7);
    for (int t = 0; t < 4; t++)
        for (int i = 0; i < 16 * 32; i++) {   /* bf16 of a float in [-1, 1]: its high 16 bits */
            float f = 2.0f * (float)rand() / (float)RAND_MAX - 1.0f;
            uint32_t u;
            memcpy(&u, &f, sizeof u);
            amx_random[t][i] = (uint16_t)(u >> 16);
        }
    int ts[64], nts = 0;
    for (int i = 1; i < argc && nts < 64; i++) ts[nts++] = atoi(argv[i]);
    if (!nts) {
        for (int t = 1; t < ncpu && nts < 63; t *= 2) ts[nts++] = t;
        ts[nts++] = ncpu;
    }
    printf("# CPUs in the affinity mask: %d; AVX-512: %s; AMX: %s\n", ncpu, fma ? "yes" : "no", amx ? "yes" : "no");
    printf("# threads  fp32-FMA GFLOP/s (per thread)  AMX-bf16 zero tiles GFLOP/s (per thread)  random tiles (per thread)\n");
    for (int i = 0; i < nts; i++) {
        int n = ts[i] < 1 ? 1 : ts[i] > ncpu ? ncpu : ts[i];
        double f = fma ? rate(cpus, n, 0) : 0, a = amx ? rate(cpus, n, 1) : 0, r = amx ? rate(cpus, n, 2) : 0;
        printf("%9d  %10.1f (%6.1f)  %12.1f (%7.1f)  %12.1f (%7.1f)\n", n, f, f / n, a, a / n, r, r / n);
    }
    return 0;
}
