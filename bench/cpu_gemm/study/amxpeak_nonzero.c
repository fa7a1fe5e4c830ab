/* AMX / memory scaling study: per thread count, (1) TDP peak with A/B tiles
 * from L1, (2) the 2x2-tile micro-kernel streaming A and B panels of depth KC
 * (A 32 x KC, B KC x 32 bf16, per thread), (3) read bandwidth. */
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
int main(void)
{
    if (syscall(SYS_arch_prctl, 0x1023, 18)) { perror("arch_prctl"); return 1; }
    int ncpu = omp_get_num_procs();
    static const int nts[] = {1, 2, 4, 8, 12, 16};
    for (int ti = 0; ti < 6; ti++) {
        int nt = nts[ti]; if (nt > ncpu) break;
        for (int mode = 0; mode < 4; mode++) {   /* 0 L1 tiles; 1 KC 256; 2 KC 1024; 3 KC 2048 */
            const int kc = mode == 0 ? 64 : mode == 1 ? 256 : mode == 2 ? 1024 : 2048;
            const long steps = 400000 / (nt > 0 ? 1 : 1);
            double best = 1e9;
            for (int rep = 0; rep < 3; rep++) {
                double t0 = 0, t1 = 0;
                #pragma omp parallel num_threads(nt)
                {
                    uint32_t *A = aligned_alloc(64, (size_t)32 * kc * 2), *B = aligned_alloc(64, (size_t)32 * kc * 2);
                    for (long i = 0; i < 16L * kc; i++) { A[i] = 0x3f803f80u ^ (uint32_t)(i * 2654435761u & 0x007f007fu); B[i] = 0x3f803f80u ^ (uint32_t)(i * 40503u & 0x007f007fu); }
                    float C[32 * 32] __attribute__((aligned(64)));
                    cfg();
                    const long nb = kc / 32;
                    _tile_zero(0); _tile_zero(1); _tile_zero(2); _tile_zero(3);
                    #pragma omp barrier
                    #pragma omp master
                    t0 = now();
                    for (long s = 0, b = 0; s < steps; s++, b = b + 1 == nb ? 0 : b + 1) {
                        const uint32_t *ab = A + b * 32 * 16, *bb = B + b * 16 * 32;
                        _tile_loadd(4, ab, 64); _tile_loadd(6, bb, 128);
                        _tile_dpbf16ps(0, 4, 6);
                        _tile_loadd(7, bb + 16, 128); _tile_dpbf16ps(1, 4, 7);
                        _tile_loadd(5, ab + 256, 64); _tile_dpbf16ps(2, 5, 6); _tile_dpbf16ps(3, 5, 7);
                    }
                    _tile_stored(0, C, 128);
                    #pragma omp barrier
                    #pragma omp master
                    t1 = now();
                    _tile_release();
                    free(A); free(B);
                }
                if (t1 - t0 < best) best = t1 - t0;
            }
            double fl = (double)nt * steps * 4 * 16 * 16 * 32 * 2;
            printf("amx nt %2d kc %4d: %8.1f GFLOP/s (%.1f per thread)\n", nt, kc, fl / best / 1e9, fl / best / 1e9 / nt);
        }
        /* read bandwidth over 256 MiB */
        size_t n = (size_t)64 << 20; float *x = aligned_alloc(64, n * 4);
        #pragma omp parallel for num_threads(nt)
        for (size_t i = 0; i < n; i++) x[i] = 1.0f;
        double best = 1e9; float sink = 0;
        for (int rep = 0; rep < 3; rep++) {
            double t0 = now(); float s = 0;
            #pragma omp parallel for num_threads(nt) reduction(+:s)
            for (size_t i = 0; i < n; i += 16) { __m512 v = _mm512_load_ps(x + i); s += _mm512_reduce_add_ps(v); }
            double t = now() - t0; if (t < best) best = t; sink += s;
        }
        printf("read nt %2d: %.1f GB/s (%g)\n", nt, n * 4.0 / best / 1e9, (double)sink);
        free(x);
    }
    return 0;
}
