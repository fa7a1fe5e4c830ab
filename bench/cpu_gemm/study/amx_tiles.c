/* AMX tile-phase study: one thread's work in problem 9/12's AMX GEMM (512 x 2048 -> 2048 at
 * 16 threads: 16 A panels of 32 x 2048 bf16 shared, 8 B panels of its own), compute only.
 * Variants: 0 as emitted (full-K tile per (ip, jp)); 1 + prefetcht0 of the next block's
 * A and B lines; 2 + prefetch of the next A panel into L2 spread over the tiles;
 * 3 K split into KC blocks, C through an L1 buffer (A block reused from L1 over jp);
 * 4 = 3 + prefetcht0 of the next B block. */
#include <immintrin.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
typedef struct { uint8_t palette, start_row, reserved[14]; uint16_t colsb[16]; uint8_t rows[16]; } cfg_t;
static void cfg(void) { cfg_t c; memset(&c, 0, sizeof c); c.palette = 1; for (int t = 0; t < 8; t++) { c.colsb[t] = 64; c.rows[t] = 16; } _tile_loadconfig(&c); }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
#define K 2048
#define KQ (K / 2)
static int MP = 16;
static int GN = 8;
static inline __attribute__((always_inline)) void blk(const uint32_t *ab, const uint32_t *bb)
{
    _tile_loadd(4, ab, 64); _tile_loadd(6, bb, 128); _tile_dpbf16ps(0, 4, 6);
    _tile_loadd(7, bb + 16, 128); _tile_dpbf16ps(1, 4, 7);
    _tile_loadd(5, ab + 256, 64); _tile_dpbf16ps(2, 5, 6); _tile_dpbf16ps(3, 5, 7);
}
static inline void pf_block(const uint32_t *p, int hint)   /* 2 KB: 32 lines */
{
    const char *c = (const char *)p;
    for (int l = 0; l < 32; l++) { if (hint) _mm_prefetch(c + 64 * l, _MM_HINT_T0); else _mm_prefetch(c + 64 * l, _MM_HINT_T1); }
}
static void tile_full(const uint32_t *ap, const uint32_t *bp, float *c, int pf)
{
    _tile_zero(0); _tile_zero(1); _tile_zero(2); _tile_zero(3);
    for (int b = 0; b < K / 32; b++) {
        const uint32_t *ab = ap + b * 32 * 16, *bb = bp + b * 16 * 32;
        if (pf && b + 1 < K / 32) { pf_block(ab + 512, 1); pf_block(bb + 512, 1); }
        blk(ab, bb);
    }
    _tile_stored(0, c, 128); _tile_stored(1, c + 16, 128); _tile_stored(2, c + 16 * 32, 128); _tile_stored(3, c + 16 * 32 + 16, 128);
}
static void tile_kc(const uint32_t *ap, const uint32_t *bp, float *c, int kb0, int nkb, int first, int pf)
{
    if (first) { _tile_zero(0); _tile_zero(1); _tile_zero(2); _tile_zero(3); }
    else { _tile_loadd(0, c, 128); _tile_loadd(1, c + 16, 128); _tile_loadd(2, c + 16 * 32, 128); _tile_loadd(3, c + 16 * 32 + 16, 128); }
    for (int b = kb0; b < kb0 + nkb; b++) {
        const uint32_t *ab = ap + b * 32 * 16, *bb = bp + b * 16 * 32;
        if (pf && b + 1 < kb0 + nkb) pf_block(bb + 512, 1);
        blk(ab, bb);
    }
    _tile_stored(0, c, 128); _tile_stored(1, c + 16, 128); _tile_stored(2, c + 16 * 32, 128); _tile_stored(3, c + 16 * 32 + 16, 128);
}
int main(int argc, char **argv)
{
    int nt = argc > 1 ? atoi(argv[1]) : 1, reps = argc > 2 ? atoi(argv[2]) : 20, kcb = argc > 3 ? atoi(argv[3]) : 8;
    if (argc > 4) GN = atoi(argv[4]);
    if (argc > 5) MP = atoi(argv[5]);
    if (syscall(SYS_arch_prctl, 0x1023, 18)) { perror("arch_prctl"); return 1; }
    uint32_t *A = aligned_alloc(64, (size_t)MP * 32 * KQ * 4);
    for (size_t i = 0; i < (size_t)MP * 32 * KQ; i++) A[i] = 0x3f803f80u ^ (uint32_t)(i * 2654435761u & 0x007f007fu);
    static const char *names[] = {"as-emitted", "pf-L1-next-block", "pf-L2-next-A-panel", "kc-split", "kc-split+pf-B"};
    for (int v = 0; v < 5; v++) {
        double ts[64]; int nr = reps > 64 ? 64 : reps;
        #pragma omp parallel num_threads(nt)
        {
            uint32_t *B = aligned_alloc(64, (size_t)GN * 32 * KQ * 4);
            for (size_t i = 0; i < (size_t)GN * 32 * KQ; i++) B[i] = 0x3f803f80u ^ (uint32_t)(i * 40503u & 0x007f007fu);
            float *C = aligned_alloc(64, (size_t)32 * 32 * GN * 4);
            cfg();
            for (int r = -2; r < nr; r++) {
                #pragma omp barrier
                double t0 = now();
                for (int ip = 0; ip < MP; ip++) {
                    const uint32_t *ap = A + (size_t)ip * 32 * KQ;
                    if (v <= 2) {
                        for (int jp = 0; jp < GN; jp++) {
                            if (v == 2 && ip + 1 < MP) {   /* next A panel into L2, 1/GN of it per tile */
                                const char *na = (const char *)(ap + 32 * KQ);
                                const int lines = 32 * KQ * 4 / 64;
                                for (int l = lines * jp / GN; l < lines * (jp + 1) / GN; l++) _mm_prefetch(na + 64 * l, _MM_HINT_T1);
                            }
                            tile_full(ap, B + (size_t)jp * 32 * KQ, C + jp * 1024, v == 1);
                        }
                    } else {
                        for (int kb = 0; kb < K / 32; kb += kcb)
                            for (int jp = 0; jp < GN; jp++)
                                tile_kc(ap, B + (size_t)jp * 32 * KQ, C + jp * 1024, kb, kcb, kb == 0, v == 4);
                    }
                }
                #pragma omp barrier
                if (omp_get_thread_num() == 0 && r >= 0) ts[r] = now() - t0;
            }
            _tile_release();
            free(B); free(C);
        }
        for (int i = 0; i < nr; i++) for (int j = i + 1; j < nr; j++) if (ts[j] < ts[i]) { double t = ts[i]; ts[i] = ts[j]; ts[j] = t; }
        double fl = 2.0 * MP * GN * 32.0 * 32 * K;
        printf("%-20s nt %2d kcb %2d: min %.3f ms median %.3f ms  %.0f GFLOP/s per thread at the median\n", names[v], nt, kcb, ts[0] * 1e3, ts[nr / 2] * 1e3, fl / ts[nr / 2] / 1e9);
    }
    return 0;
}
