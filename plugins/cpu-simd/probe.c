/*
 * probe.c — the one "cpu" device: model name, ISA, vector width, cores,
 * frequency, cache sizes (cache.c); peak FLOP/s the larger of an estimate
 * from them and a measured FMA rate (and the bf16 dot-product rate where
 * the CPU has AVX512_BF16, the AMX tdpbf16ps rate where it has AMX and the
 * permission for the tile state was granted, the int16 vpmaddwd rate where it
 * has AVX2), memory bandwidth the fastest of a short multi-threaded copy,
 * a copy with streaming stores and a read, an L1 bound for the cache bandwidth.  The
 * result is computed once per process and cached.
 */
#include "cpu_simd.h"

#include <immintrin.h>
#include <pthread.h>
#include <stddef.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BW_BYTES (128u << 20)   /* bytes copied per bandwidth trial */
#define BW_TRIALS 3      /* copy passes, each kind */
#define BW_READ_TRIALS 5 /* read passes: noisier on a shared VM, and cheaper */

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static kf_device_info probe_dev;

/* ---- AMX: the permission for the tile state (Linux 5.16+) ---- */

#define KF_ARCH_GET_XCOMP_PERM 0x1022
#define KF_ARCH_REQ_XCOMP_PERM 0x1023
#define KF_XFEATURE_XTILEDATA 18

static int amx_granted;
static char amx_why[160] = "not probed";

/* Asks the kernel for the AMX tile state, once per process (from the
 * listing: in the worker that is before the sandbox confines it, and the
 * permission holds for every thread, those started later included). */
static void request_amx(void)
{
    if (!(__builtin_cpu_supports("amx-tile") && __builtin_cpu_supports("amx-bf16"))) {
        snprintf(amx_why, sizeof amx_why, "the CPU does not report amx_tile and amx_bf16");
        return;
    }
    if (!__builtin_cpu_supports("avx512bf16") || !__builtin_cpu_supports("avx512bw")) {
        snprintf(amx_why, sizeof amx_why, "the CPU has AMX but not AVX512_BF16 and AVX512BW (packing, tails)");
        return;
    }
    if (syscall(SYS_arch_prctl, KF_ARCH_REQ_XCOMP_PERM, KF_XFEATURE_XTILEDATA) != 0) {
        snprintf(amx_why, sizeof amx_why, "arch_prctl(ARCH_REQ_XCOMP_PERM, XTILEDATA) failed: %s (a kernel before 5.16, "
                 "or a signal stack too small for the tile state)", strerror(errno));
        return;
    }
    unsigned long mask = 0;
    if (syscall(SYS_arch_prctl, KF_ARCH_GET_XCOMP_PERM, &mask) != 0 || !(mask & (1ul << KF_XFEATURE_XTILEDATA))) {
        snprintf(amx_why, sizeof amx_why, "the kernel did not grant the AMX tile state");
        return;
    }
    amx_granted = 1;
    amx_why[0] = '\0';
}

static void probe_once_fn(void);

uint32_t kf_cpu_features(const char **why)
{
    pthread_once(&probe_once, probe_once_fn);
    if (why) *why = amx_granted ? NULL : amx_why;
    return amx_granted ? KF_CPU_FEAT_AMX_BF16 : 0;
}

int kf_cpu_vector_floats(const char **isa)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
        if (isa) *isa = "avx512f";
        return 16;
    }
    if (__builtin_cpu_supports("avx")) {
        if (isa) *isa = __builtin_cpu_supports("avx2") ? "avx2" : "avx";
        return 8;
    }
    if (isa) *isa = __builtin_cpu_supports("sse4.2") ? "sse4.2" : "sse2";
    return 4;
}

int kf_cpu_cores(void)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0 &&
        (online < 1 || CPU_COUNT(&set) < online))
        online = CPU_COUNT(&set);
    return online > 0 ? (int)online : 1;
}

int kf_cpu_threads(void)
{
    const char *env = getenv("KFORGE_THREADS");
    if (env && atoi(env) > 0)
        return atoi(env);
    return kf_cpu_cores();
}

const char *kf_cpu_compiler(void)
{
    const char *cc = getenv("KFORGE_CC");
    return cc && *cc ? cc : "cc";
}

/* Value of the first "key<spaces>: value" line of /proc/cpuinfo. */
static int cpuinfo_field(const char *key, char *out, size_t len)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    size_t kl = strlen(key);
    int found = 0;
    if (!f)
        return 0;
    while (!found && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, key, kl) != 0 || !colon)
            continue;
        colon++;
        while (*colon == ' ' || *colon == '\t')
            colon++;
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(out, len, "%s", colon);
        found = 1;
    }
    fclose(f);
    return found;
}

/* Highest frequency in Hz: cpufreq's max, else the largest "cpu MHz". */
static double cpu_max_hz(const char **source)
{
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
    double khz = 0, mhz = 0;
    char line[256];
    if (f) {
        if (fscanf(f, "%lf", &khz) != 1)
            khz = 0;
        fclose(f);
        if (khz > 0) {
            *source = "cpufreq max";
            return khz * 1e3;
        }
    }
    if ((f = fopen("/proc/cpuinfo", "r"))) {
        while (fgets(line, sizeof line, f)) {
            double v;
            char *colon = strchr(line, ':');
            if (!strncmp(line, "cpu MHz", 7) && colon && sscanf(colon + 1, "%lf", &v) == 1 &&
                v > mhz)
                mhz = v;
        }
        fclose(f);
    }
    *source = mhz > 0 ? "/proc/cpuinfo MHz" : "unknown";
    return mhz * 1e6;
}

typedef struct bw_job {
    unsigned char *dst;         /* NULL: read only */
    const unsigned char *src;
    size_t bytes;
    int nt;                     /* copy with non-temporal stores */
    volatile int *go;           /* set once every thread is started: all start together */
    double t0, t1;              /* this job's pass */
    float sum;                  /* what the read pass summed (kept, so it runs) */
} bw_job;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* n bytes (a multiple of 64, both 64-byte aligned) with non-temporal
 * stores of the widest vector this CPU has: 16-byte streaming stores moved
 * a quarter less than 64-byte ones on the 2-core Xeon (29-31 against 37-39
 * GB/s). */
__attribute__((target("avx512f"))) static void nt_copy_512(float *d, const float *s, size_t n)
{
    for (size_t i = 0; i < n / 4; i += 16) _mm512_stream_ps(d + i, _mm512_load_ps(s + i));
}

__attribute__((target("avx"))) static void nt_copy_256(float *d, const float *s, size_t n)
{
    for (size_t i = 0; i < n / 4; i += 8) _mm256_stream_ps(d + i, _mm256_load_ps(s + i));
}

static void nt_copy_128(float *d, const float *s, size_t n)
{
    for (size_t i = 0; i < n / 4; i += 4) _mm_stream_ps(d + i, _mm_load_ps(s + i));
}

/* Copies src to dst (memcpy, or with non-temporal stores: no
 * write-allocate read of dst, the stream a kernel writing its output with
 * streaming stores is), or (dst NULL) sums src with eight independent
 * accumulators: a pure read stream. */
static void *bw_chunk(void *p)
{
    bw_job *j = p;
    while (j->go && !__atomic_load_n(j->go, __ATOMIC_ACQUIRE)) sched_yield();
    j->t0 = now_s();
    if (j->dst && j->nt) {
        float *d = (float *)(void *)j->dst;
        const float *sp = (const float *)(const void *)j->src;
        if (__builtin_cpu_supports("avx512f")) nt_copy_512(d, sp, j->bytes);
        else if (__builtin_cpu_supports("avx")) nt_copy_256(d, sp, j->bytes);
        else nt_copy_128(d, sp, j->bytes);
        _mm_sfence();
    } else if (j->dst) {
        memcpy(j->dst, j->src, j->bytes);
    } else {
        const __m128 *v = (const __m128 *)(const void *)j->src;
        __m128 a[8];
        for (int k = 0; k < 8; k++) a[k] = _mm_setzero_ps();
        for (size_t i = 0, n = j->bytes / 128; i < n; i++)
            for (int k = 0; k < 8; k++) a[k] = _mm_add_ps(a[k], v[8 * i + k]);
        for (int k = 1; k < 8; k++) a[0] = _mm_add_ps(a[0], a[k]);
        j->sum = _mm_cvtss_f32(a[0]);
    }
    j->t1 = now_s();
    return NULL;
}

static volatile float bw_sink;

/* The best multi-threaded pass over BW_BYTES, in bytes moved per second, of
 * three streams: a copy with memcpy and one with non-temporal stores (bytes
 * read + written; BW_TRIALS passes each) and a read-only sum
 * (BW_READ_TRIALS passes).  The largest is the peak: the roofline floor
 * must not be beaten by a kernel that only reads, nor by one that streams
 * its output (a plain copy pays for write-allocate traffic it does not
 * count).  The threads start together once all exist and each times its
 * own part, so thread creation is not counted.  (The former probe, a
 * memcpy and a read over 64 MiB timed around the threads' creation, read
 * about 74 GB/s on the 16-core Xeon where a copy with streaming stores
 * moved 107-141; which of the two causes weighed more was not measured.)
 * 0 when memory could not be had. */
static double measure_bandwidth(int threads)
{
    unsigned char *src, *dst;
    bw_job jobs[256];
    pthread_t tid[256];
    double best = 0;
    if (threads > 256)
        threads = 256;
    src = mmap(NULL, BW_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
               -1, 0);
    dst = mmap(NULL, BW_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
               -1, 0);
    if (src == MAP_FAILED || dst == MAP_FAILED)
        goto out;
    memset(src, 1, BW_BYTES);   /* real pages, not the shared zero page */
    memset(dst, 0, BW_BYTES);
    for (int t = 0; t < 2 * BW_TRIALS + BW_READ_TRIALS; t++) {
        int reading = t >= 2 * BW_TRIALS, nt = t >= BW_TRIALS && !reading;
        size_t chunk = (BW_BYTES / (size_t)threads) & ~(size_t)4095;
        int started[256] = {0};
        volatile int go = 0;
        for (int i = 0; i < threads; i++) {
            size_t off = (size_t)i * chunk;
            jobs[i] = (bw_job){reading ? NULL : dst + off, src + off,
                               i == threads - 1 ? BW_BYTES - off : chunk, nt, &go, 0, 0, 0};
            started[i] = i > 0 && pthread_create(&tid[i], NULL, bw_chunk, &jobs[i]) == 0;
        }
        __atomic_store_n(&go, 1, __ATOMIC_RELEASE);
        for (int i = 0; i < threads; i++)
            if (!started[i])
                bw_chunk(&jobs[i]);   /* thread 0, or a thread that did not start */
        for (int i = 1; i < threads; i++)
            if (started[i])
                pthread_join(tid[i], NULL);
        double t0 = jobs[0].t0, t1 = jobs[0].t1;
        for (int i = 1; i < threads; i++) {
            if (jobs[i].t0 < t0) t0 = jobs[i].t0;
            if (jobs[i].t1 > t1) t1 = jobs[i].t1;
        }
        double dt = t1 - t0;
        bw_sink = jobs[0].sum;
        double rate = dt > 0 ? (reading ? 1.0 : 2.0) * BW_BYTES / dt : 0;
        if (rate > best)
            best = rate;
    }
out:
    if (src != MAP_FAILED)
        munmap(src, BW_BYTES);
    if (dst != MAP_FAILED)
        munmap(dst, BW_BYTES);
    return best;
}

/* ---- FMA throughput: independent chains of vector FMAs per thread ---- */

#define FMA_CHAINS 12
#define FMA_ITERS 400000

typedef float v16 __attribute__((vector_size(64)));
typedef float v8 __attribute__((vector_size(32)));

/* The rate loops are never instrumented: under --enable-sanitizers (CI)
 * the instrumented vdpbf16ps loop measured 136 GFLOP/s on a 2-core Zen 4
 * VM against 472 uninstrumented, under the fp32 estimate (332), and the C
 * emitter's default precision became fp32 there (cpu_space.c compares the
 * two peaks). */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 8)
#define KF_RATE_LOOP __attribute__((no_sanitize("address", "undefined")))
#else
#define KF_RATE_LOOP
#endif

/* One loop per ISA (the target attribute is per function): FMA_CHAINS
 * independent accumulators kept in registers, FMA_ITERS FMAs on each. */
#define FMA_LOOP(name, vtype, lanes, isa)                                                   \
    KF_RATE_LOOP __attribute__((target(isa), noinline)) static double name(float seed)     \
    {                                                                                       \
        vtype acc[FMA_CHAINS], m = {0}, a = {0};                                            \
        for (int i = 0; i < (lanes); i++) { m[i] = 0.999999f; a[i] = 1e-7f * seed; }         \
        for (int c = 0; c < FMA_CHAINS; c++) acc[c] = a + (float)c;                         \
        for (long it = 0; it < FMA_ITERS; it++) {                                           \
            _Pragma("GCC unroll 16")                                                        \
            for (int c = 0; c < FMA_CHAINS; c++) acc[c] = acc[c] * m + a;                   \
        }                                                                                   \
        double sink = 0;                                                                    \
        for (int c = 0; c < FMA_CHAINS; c++) sink += acc[c][0];                             \
        return sink;                                                                        \
    }

FMA_LOOP(fma_loop16, v16, 16, "avx512f")
FMA_LOOP(fma_loop8, v8, 8, "avx2,fma")

/* vdpbf16ps chains: each instruction does 2 multiply-adds per fp32 lane
 * (a pair of bf16 products), 64 FLOPs on 16 lanes.  Intrinsics (not the
 * builtin, whose operand types changed in GCC 13). */
KF_RATE_LOOP __attribute__((target("avx512f,avx512bf16"), noinline)) static double bf16_loop(float seed)
{
    __m512 acc[FMA_CHAINS];
    const __m512bh x = (__m512bh)_mm512_set1_epi32(0x3f813f80);   /* bf16 pairs 1.0, 1.0078 */
    for (int c = 0; c < FMA_CHAINS; c++) acc[c] = _mm512_set1_ps(1e-7f * seed * (float)c);
    for (long it = 0; it < FMA_ITERS; it++) {
        _Pragma("GCC unroll 16")
        for (int c = 0; c < FMA_CHAINS; c++) acc[c] = _mm512_dpbf16_ps(acc[c], x, x);
    }
    double sink = 0;
    for (int c = 0; c < FMA_CHAINS; c++) sink += _mm512_cvtss_f32(acc[c]);
    return sink;
}

/* tdpbf16ps chains: four independent C tiles (16 x 16 fp32) fed by two A
 * and two B tiles (16 x 32 bf16), 16 x 16 x 32 multiply-adds each.  The
 * thread loads its own tile configuration and releases the tiles after. */
#define AMX_ITERS 200000
typedef struct amx_cfg {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} amx_cfg;

KF_RATE_LOOP __attribute__((target("amx-tile,amx-bf16"), noinline)) static double amx_loop(float seed)
{
    amx_cfg cfg;
    static const uint16_t zeros[16 * 32] __attribute__((aligned(64)));   /* bf16 zeros: the rate does not depend on them */
    float c[16 * 16] __attribute__((aligned(64)));
    memset(&cfg, 0, sizeof cfg);
    cfg.palette = 1;
    for (int t = 0; t < 8; t++) { cfg.colsb[t] = 64; cfg.rows[t] = 16; }
    _tile_loadconfig(&cfg);
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    _tile_loadd(4, zeros, 64);
    _tile_loadd(5, zeros, 64);
    _tile_loadd(6, zeros, 64);
    _tile_loadd(7, zeros, 64);
    for (long it = 0; it < AMX_ITERS; it++) {
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(1, 4, 7);
        _tile_dpbf16ps(2, 5, 6);
        _tile_dpbf16ps(3, 5, 7);
    }
    _tile_stored(0, c, 64);
    _tile_release();
    return (double)c[0] + seed;
}

/* vpmaddwd chains: each instruction multiplies 16 int16 pairs and adds each
 * pair into an int32 lane, 16 multiply-adds on 8 lanes (32 FLOPs as the
 * roofline counts them).  Each chain feeds its own product back in (its
 * int32 lanes read as int16 pairs: integer overflow wraps, nothing traps),
 * so no product is loop-invariant; FMA_CHAINS (12) chains hide the latency
 * (3-5 cycles).  The products alone, without the adds a kernel needs to
 * accumulate them: every 16 multiply-adds take one vpmaddwd, so no int16
 * kernel runs faster. */
KF_RATE_LOOP __attribute__((target("avx2"), noinline)) static double i16_loop(float seed)
{
    /* in assembly: GCC 12 keeps an array of 12 accumulators partly on the
       stack, and the chains then run through store forwarding (half the
       rate measured here on Zen 3) */
    __m256i a0 = _mm256_set1_epi32(1 + (int)seed), a1 = _mm256_set1_epi32(2), a2 = _mm256_set1_epi32(3),
            a3 = _mm256_set1_epi32(4), a4 = _mm256_set1_epi32(5), a5 = _mm256_set1_epi32(6),
            a6 = _mm256_set1_epi32(7), a7 = _mm256_set1_epi32(8), a8 = _mm256_set1_epi32(9),
            a9 = _mm256_set1_epi32(10), a10 = _mm256_set1_epi32(11), a11 = _mm256_set1_epi32(12);
    const __m256i y = _mm256_set1_epi32(0x00030001);
    for (long it = 0; it < FMA_ITERS; it++)
        __asm__ volatile("vpmaddwd %12, %0, %0\n\tvpmaddwd %12, %1, %1\n\tvpmaddwd %12, %2, %2\n\t"
                         "vpmaddwd %12, %3, %3\n\tvpmaddwd %12, %4, %4\n\tvpmaddwd %12, %5, %5\n\t"
                         "vpmaddwd %12, %6, %6\n\tvpmaddwd %12, %7, %7\n\tvpmaddwd %12, %8, %8\n\t"
                         "vpmaddwd %12, %9, %9\n\tvpmaddwd %12, %10, %10\n\tvpmaddwd %12, %11, %11"
                         : "+x"(a0), "+x"(a1), "+x"(a2), "+x"(a3), "+x"(a4), "+x"(a5), "+x"(a6), "+x"(a7),
                           "+x"(a8), "+x"(a9), "+x"(a10), "+x"(a11)
                         : "x"(y));
    __m256i s = _mm256_add_epi32(_mm256_add_epi32(_mm256_add_epi32(a0, a1), _mm256_add_epi32(a2, a3)),
                                 _mm256_add_epi32(_mm256_add_epi32(a4, a5), _mm256_add_epi32(a6, a7)));
    s = _mm256_add_epi32(s, _mm256_add_epi32(_mm256_add_epi32(a8, a9), _mm256_add_epi32(a10, a11)));
    return (double)_mm256_extract_epi32(s, 0);
}

/* lanes: 8 or 16 the fp32 FMA loops, 32 the bf16 loop, 0 AMX, RATE_I16 the
 * vpmaddwd loop */
#define RATE_I16 (-16)
typedef struct fma_job { int lanes; double sink; } fma_job;

/* The loops are pure functions: without a volatile sink the compiler drops
 * the calls and the "measurement" times nothing. */
static volatile double fma_sink;

static void *fma_thread(void *p)
{
    fma_job *j = p;
    j->sink = j->lanes == 0 ? amx_loop(1.0f) : j->lanes == 32 ? bf16_loop(1.0f) : j->lanes == 16 ? fma_loop16(1.0f)
            : j->lanes == RATE_I16 ? i16_loop(1.0f) : fma_loop8(1.0f);
    fma_sink = j->sink;
    return NULL;
}

/* FLOP/s of `threads` threads each running FMA chains (best of 2), or 0
 * when the CPU has neither AVX-512 nor AVX2+FMA; lanes 32: the vdpbf16ps
 * chains, 0 without AVX512_BF16; lanes 0: the AMX tiles, 0 unless the
 * permission was granted; RATE_I16: the vpmaddwd chains, 0 without AVX2.
 * About 20-60 ms. */
static double measure_fma_peak(int threads, int lanes)
{
    if (lanes != 32 && lanes != 16 && lanes != 8 && lanes != 0 && lanes != RATE_I16) return 0;
    if (lanes == RATE_I16 && !__builtin_cpu_supports("avx2")) return 0;
    if (lanes == 0 && !amx_granted) return 0;
    if (lanes == 32 && !__builtin_cpu_supports("avx512bf16")) return 0;
    if (lanes == 16 && !__builtin_cpu_supports("avx512f")) return 0;
    if (lanes == 8 && !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) return 0;
    if (threads > 256) threads = 256;
    fma_job jobs[256];
    pthread_t tid[256];
    double best = 0;
    for (int trial = 0; trial < 2; trial++) {
        int started[256] = {0};
        double t0 = now_s();
        for (int i = 0; i < threads; i++) {
            jobs[i].lanes = lanes;
            started[i] = i > 0 && pthread_create(&tid[i], NULL, fma_thread, &jobs[i]) == 0;
        }
        for (int i = 0; i < threads; i++)
            if (!started[i]) fma_thread(&jobs[i]);
        for (int i = 1; i < threads; i++)
            if (started[i]) pthread_join(tid[i], NULL);
        double dt = now_s() - t0;
        /* lanes 32: 16 fp32 lanes x 2 bf16 products each; AMX: 4 tiles of
           16 x 16 x 32 multiply-adds per iteration; vpmaddwd: 8 lanes x 2 */
        double flops = lanes == 0 ? 2.0 * 4 * 16 * 16 * 32 * (double)AMX_ITERS * threads
                                  : 2.0 * FMA_CHAINS * (double)FMA_ITERS * (lanes == RATE_I16 ? 16 : lanes) * threads;
        if (dt > 0 && flops / dt > best) best = flops / dt;
    }
    return best;
}

/* First line of `$KFORGE_CC --version`, or a note that it did not run. */
static void compiler_version(char *out, size_t len)
{
    char *argv[16], *words, *text = NULL, *save = NULL;
    int n = 0, rc;
    if (!(words = strdup(kf_cpu_compiler()))) {
        snprintf(out, len, "?");
        return;
    }
    for (char *w = strtok_r(words, " \t", &save); w && n < 14; w = strtok_r(NULL, " \t", &save))
        argv[n++] = w;
    argv[n++] = "--version";
    argv[n] = NULL;
    rc = kf_cpu_run_capture(argv, NULL, &text);
    if (rc == 0 && text)
        snprintf(out, len, "%.*s", (int)strcspn(text, "\n"), text);
    else
        snprintf(out, len, "'%s' did not run (set KFORGE_CC to a C compiler)", kf_cpu_compiler());
    free(text);
    free(words);
}

static double probe_estimate, probe_hz;
static int probe_lanes, probe_cores;

/* The listing: everything but the measurements (cheap). */
static void probe_once_fn(void)
{
    kf_device_info *d = &probe_dev;
    const char *isa, *freq_src;
    char model[KF_NAME_MAX] = "cpu", cc[160], flags[96] = "";
    int lanes = kf_cpu_vector_floats(&isa);
    int cores = kf_cpu_cores();
    double hz = cpu_max_hz(&freq_src);
    static const char *const feats[] = {"sse4.2", "avx", "avx2", "fma", "avx512f", "avx512_bf16"};
    kf_cpu_caches caches;
    const char *cache_dir = getenv("KFORGE_CPU_CACHE_DIR");   /* tests: a fake sysfs cache folder */
    size_t used = 0;

    cpuinfo_field("model name", model, sizeof model);
    for (size_t i = 0; i < sizeof feats / sizeof feats[0]; i++) {
        int has = 0;
        switch (i) {   /* __builtin_cpu_supports needs literal strings */
        case 0: has = __builtin_cpu_supports("sse4.2"); break;
        case 1: has = __builtin_cpu_supports("avx"); break;
        case 2: has = __builtin_cpu_supports("avx2"); break;
        case 3: has = __builtin_cpu_supports("fma"); break;
        case 4: has = __builtin_cpu_supports("avx512f"); break;
        case 5: has = __builtin_cpu_supports("avx512bf16"); break;
        }
        if (has)
            used += (size_t)snprintf(flags + used, sizeof flags - used, "%s%s",
                                     used ? " " : "", feats[i]);
    }
    compiler_version(cc, sizeof cc);
    request_amx();
    kf_cpu_read_caches(cache_dir && *cache_dir ? cache_dir : NULL, &caches);

    memset(d, 0, sizeof *d);
    d->struct_size = (uint32_t)sizeof *d;
    snprintf(d->name, sizeof d->name, "%s", model);
    snprintf(d->kind, sizeof d->kind, "cpu");
    double estimate = (double)cores * hz * lanes * 2.0 /* FMA */ * 2.0 /* FMA ports */;
    d->peak_flops = estimate;
    d->cache_bytes_per_s = (double)cores * hz * 128.0;
    snprintf(d->arch, sizeof d->arch, "%s", isa);
    d->compute_units = cores;
    d->warp_size = lanes;
    d->max_work_group = kf_cpu_threads();
    d->matrix_units = (__builtin_cpu_supports("avx512bf16") ? KF_MU_BF16 : 0) | (amx_granted ? KF_MU_AMX : 0);
    d->cache_l1d_bytes = caches.l1d;
    d->cache_l2_bytes = caches.l2;
    d->cache_l3_bytes = caches.l3;
    probe_estimate = estimate;
    probe_hz = hz;
    probe_lanes = lanes;
    probe_cores = cores;
    snprintf(d->detail, sizeof d->detail,
             "ISA: %s; vector width: %d floats (%s); cores: %d; max frequency: %.2f GHz (%s); "
             "peak FLOP/s estimated as cores x GHz x %d lanes x 2 (FMA) x 2 (FMA ports) = %.0f GFLOP/s; "
             "measured: the FMA throughput of one thread x cores (the larger is the peak) and the faster of a "
             "%u MiB multi-threaded copy, copy with streaming stores and read; caches per core: L1d %lld KiB, L2 %lld KiB, L3 %lld KiB (%s); "
             "AMX bf16 tiles: %s%s; compiler: %s (%s)",
             flags[0] ? flags : "-", lanes, isa, cores, hz * 1e-9, freq_src, lanes, estimate * 1e-9,
             BW_BYTES >> 20, (long long)(caches.l1d >> 10), (long long)(caches.l2 >> 10),
             (long long)(caches.l3 >> 10), caches.source, amx_granted ? "yes, permission granted" : "no: ",
             amx_granted ? "" : amx_why, kf_cpu_compiler(), cc);
}

kf_status kf_cpu_list(kf_device_info *devs, size_t dev_size, int max, int *n, char *why, size_t why_len)
{
    (void)dev_size;   /* one device: element 0 */
    pthread_once(&probe_once, probe_once_fn);
    *n = 0;
    if (max < 1 || !devs) {
        if (why && why_len)
            snprintf(why, why_len, "no room for the device list (max = %d)", max);
        return KF_ERR_INVALID;
    }
    uint32_t size = devs[0].struct_size;
    devs[0] = probe_dev;
    if (size) devs[0].struct_size = size;
    *n = 1;
    return KF_OK;
}

/* The measured half: FMA throughput (one thread times the cores: steadier
 * than all threads at once when other work shares the machine) and memory
 * bandwidth.  The roofline must be an upper bound: /proc/cpuinfo's clock
 * is often the base clock, so a measured FMA rate above the estimate wins,
 * and the cache bound grows with it. */
static pthread_once_t measure_once = PTHREAD_ONCE_INIT;
static double m_flops, m_bw, m_cache, m_bf16, m_amx, m_i16;
static int m_flops_measured;

static void measure_once_fn(void)
{
    double measured = measure_fma_peak(1, probe_lanes) * probe_cores;
    m_flops = measured > probe_estimate ? measured : probe_estimate;
    m_flops_measured = measured > probe_estimate;
    m_bw = measure_bandwidth(probe_cores);
    double turbo = (probe_estimate > 0 && measured > probe_estimate) ? measured / probe_estimate : 1.0;
    m_cache = (double)probe_cores * probe_hz * turbo * 128.0;
    m_bf16 = measure_fma_peak(1, 32) * probe_cores;   /* 0 without AVX512_BF16 */
    m_amx = measure_fma_peak(1, 0) * probe_cores;     /* 0 without AMX and its permission */
    m_i16 = measure_fma_peak(1, RATE_I16) * probe_cores;   /* 0 without AVX2 */
}

kf_status kf_cpu_measure(int device, kf_device_info *d, char *why, size_t why_len)
{
    pthread_once(&probe_once, probe_once_fn);
    if (device != 0) {
        if (why && why_len) snprintf(why, why_len, "no device %d (cpu-simd has one)", device);
        return KF_ERR_INVALID;
    }
    pthread_once(&measure_once, measure_once_fn);   /* once per process */
    d->peak_flops = m_flops;
    d->peak_flops_measured = m_flops_measured;
    d->peak_bytes_per_s = m_bw;
    d->peak_bw_measured = m_bw > 0;
    d->cache_bytes_per_s = m_cache;
    if (d->struct_size >= offsetof(kf_device_info, peak_flops_bf16) + sizeof(double))
        d->peak_flops_bf16 = m_bf16;
    if (d->struct_size >= offsetof(kf_device_info, peak_flops_amx_bf16) + sizeof(double))
        d->peak_flops_amx_bf16 = m_amx;
    if (d->struct_size >= offsetof(kf_device_info, peak_flops_i16) + sizeof(double))
        d->peak_flops_i16 = m_i16;
    return KF_OK;
}

kf_status kf_cpu_probe(kf_device_info *devs, int max, int *n, char *why, size_t why_len)
{
    kf_status st = kf_cpu_list(devs, sizeof *devs, max, n, why, why_len);
    if (st == KF_OK) st = kf_cpu_measure(0, &devs[0], why, why_len);
    return st;
}
