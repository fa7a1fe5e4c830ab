/* study: an NT GEMM C = X W^T without packing (both operands contiguous
 * along K), dot-product register tiles MR x NR of 16-lane partial sums,
 * reduced at the end of each depth block; against an FMA-chain peak. */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>

#ifndef MR
#define MR 4
#endif
#ifndef NR
#define NR 4
#endif
#ifndef KC
#define KC 512
#endif

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }

/* 16 vectors -> one vector of their 16 horizontal sums (lane i = sum of v[i]) */
static inline __m512 hsum16(__m512 *v)
{
    __m512 a[8], b[4], c[2];
    for (int i = 0; i < 8; i++) {   /* pairs: lanes 0-7 of v[2i]+hi, ... */
        __m512 lo = _mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], 0x44), hi = _mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], 0xEE);
        a[i] = _mm512_add_ps(lo, hi);
    }
    for (int i = 0; i < 4; i++) {
        __m512 lo = _mm512_shuffle_f32x4(a[2 * i], a[2 * i + 1], 0x88), hi = _mm512_shuffle_f32x4(a[2 * i], a[2 * i + 1], 0xDD);
        b[i] = _mm512_add_ps(lo, hi);
    }
    for (int i = 0; i < 2; i++) {
        __m512 lo = _mm512_shuffle_ps(b[2 * i], b[2 * i + 1], 0x44), hi = _mm512_shuffle_ps(b[2 * i], b[2 * i + 1], 0xEE);
        c[i] = _mm512_add_ps(lo, hi);
    }
    __m512 lo = _mm512_shuffle_ps(c[0], c[1], 0x88), hi = _mm512_shuffle_ps(c[0], c[1], 0xDD);
    return _mm512_add_ps(lo, hi);   /* lane order permuted; fine for a timing study */
}

static void gemm_dot(int M, int N, int K, const float *x, const float *w, float *c)
{
    memset(c, 0, (size_t)M * N * 4);
    for (int k0 = 0; k0 < K; k0 += KC)
        for (int j0 = 0; j0 < N; j0 += NR)          /* NR rows of W: kc x NR in L1 */
            for (int i0 = 0; i0 < M; i0 += MR) {     /* MR rows of X from L2 */
                __m512 acc[MR][NR];
                for (int i = 0; i < MR; i++) for (int j = 0; j < NR; j++) acc[i][j] = _mm512_setzero_ps();
                const float *xp = x + (size_t)i0 * K + k0, *wp = w + (size_t)j0 * K + k0;
                for (int k = 0; k < KC; k += 16) {
                    __m512 wv[NR];
                    for (int j = 0; j < NR; j++) wv[j] = _mm512_loadu_ps(wp + (size_t)j * K + k);
                    for (int i = 0; i < MR; i++) {
                        __m512 xv = _mm512_loadu_ps(xp + (size_t)i * K + k);
                        for (int j = 0; j < NR; j++) acc[i][j] = _mm512_fmadd_ps(xv, wv[j], acc[i][j]);
                    }
                }
                float t[16];
                for (int i = 0; i < MR; i++)
                    for (int j = 0; j < NR; j++) {
                        _mm512_storeu_ps(t, acc[i][j]);
                        float s = 0;
                        for (int l = 0; l < 16; l++) s += t[l];
                        c[(size_t)(i0 + i) * N + j0 + j] += s;
                    }
            }
}

static volatile float sink;
static double peak(long iters)
{
    __m512 v[24];
    for (int i = 0; i < 24; i++) v[i] = _mm512_set1_ps(1.0f + i * 1e-3f);
    __m512 m = _mm512_set1_ps(0.9999f), a = _mm512_set1_ps(1e-4f);
    double t0 = now();
    for (long it = 0; it < iters; it++)
        for (int i = 0; i < 24; i++) v[i] = _mm512_fmadd_ps(v[i], m, a);
    double t = now() - t0;
    float s = 0;
    for (int i = 0; i < 24; i++) s += _mm512_reduce_add_ps(v[i]);
    sink = s;
    return 2.0 * 24 * 16 * iters / t;
}

int main(int argc, char **argv)
{
    int M = 512, N = 2048, K = 2048, reps = argc > 1 ? atoi(argv[1]) : 9;
    float *x = aligned_alloc(64, (size_t)M * K * 4), *w = aligned_alloc(64, (size_t)N * K * 4), *c = aligned_alloc(64, (size_t)M * N * 4);
    for (size_t i = 0; i < (size_t)M * K; i++) x[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
    for (size_t i = 0; i < (size_t)N * K; i++) w[i] = (float)((i * 104729) % 1000) / 1000.0f - 0.5f;
    double best = 1e9, pk = 0;
    for (int r = 0; r < reps; r++) {
        double p = peak(2000000);
        if (p > pk) pk = p;
        double t0 = now();
        gemm_dot(M, N, K, x, w, c);
        double t = now() - t0;
        if (t < best) best = t;
    }
    double ref = 0;
    for (int k = 0; k < K; k++) ref += (double)x[(size_t)5 * K + k] * w[(size_t)7 * K + k];
    printf("MR %d NR %d KC %d: min %.2f ms %.1f GFLOP/s, peak %.1f GFLOP/s: %.0f%% (check %.3g)\n", MR, NR, KC, best * 1e3,
           2.0 * M * N * K / best / 1e9, pk / 1e9, 100.0 * 2.0 * M * N * K / best / pk, fabs(c[5 * N + 7] - ref));
    return 0;
}
