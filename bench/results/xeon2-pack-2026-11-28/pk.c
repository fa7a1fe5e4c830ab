#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define KF_NR 32
#include "tr.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
/* old: j8 outer */
static void pack_old(const float *B, int64_t ldb, int64_t j0, int64_t p0, int64_t kc, float *bp) {
    for (int64_t j8 = 0; j8 < KF_NR; j8 += 8) { const float *src = B + (j0 + j8) * ldb + p0;
        for (int64_t k = 0; k < kc; k += 8) kf_tr8x8(src + k, ldb, bp + k * KF_NR + j8, KF_NR); }
}
static void pack_new(const float *B, int64_t ldb, int64_t j0, int64_t p0, int64_t kc, float *bp) {
    for (int64_t k = 0; k < kc; k += 8) for (int64_t j8 = 0; j8 < KF_NR; j8 += 8)
        kf_tr8x8(B + (j0 + j8) * ldb + p0 + k, ldb, bp + k * KF_NR + j8, KF_NR);
}
/* 16x16 with AVX-512: rows r0..15 (16 floats each) -> columns */
static inline void tr16(const float *src, int64_t lds, float *dst, int64_t ldd) {
    __m512 r[16], t[16];
    for (int i = 0; i < 16; i++) r[i] = _mm512_loadu_ps(src + i * lds);
    for (int i = 0; i < 16; i += 2) { t[i] = _mm512_unpacklo_ps(r[i], r[i+1]); t[i+1] = _mm512_unpackhi_ps(r[i], r[i+1]); }
    for (int i = 0; i < 16; i += 4) {
        r[i]   = _mm512_shuffle_ps(t[i], t[i+2], 0x44); r[i+1] = _mm512_shuffle_ps(t[i], t[i+2], 0xee);
        r[i+2] = _mm512_shuffle_ps(t[i+1], t[i+3], 0x44); r[i+3] = _mm512_shuffle_ps(t[i+1], t[i+3], 0xee); }
    /* r[4q + c]: rows 4q..4q+3, within each 128-bit lane l: column 4l + c' ... */
    for (int i = 0; i < 4; i++) {
        t[i]    = _mm512_shuffle_f32x4(r[i], r[i+4], 0x88); t[i+4]  = _mm512_shuffle_f32x4(r[i], r[i+4], 0xdd);
        t[i+8]  = _mm512_shuffle_f32x4(r[i+8], r[i+12], 0x88); t[i+12] = _mm512_shuffle_f32x4(r[i+8], r[i+12], 0xdd); }
    for (int i = 0; i < 4; i++) {
        r[i]    = _mm512_shuffle_f32x4(t[i], t[i+8], 0x88); r[i+8]  = _mm512_shuffle_f32x4(t[i], t[i+8], 0xdd);
        r[i+4]  = _mm512_shuffle_f32x4(t[i+4], t[i+12], 0x88); r[i+12] = _mm512_shuffle_f32x4(t[i+4], t[i+12], 0xdd); }
    for (int i = 0; i < 16; i++) _mm512_storeu_ps(dst + i * ldd, r[i]);
}
static void pack_16(const float *B, int64_t ldb, int64_t j0, int64_t p0, int64_t kc, float *bp) {
    for (int64_t k = 0; k < kc; k += 16) for (int64_t j16 = 0; j16 < KF_NR; j16 += 16)
        tr16(B + (j0 + j16) * ldb + p0 + k, ldb, bp + k * KF_NR + j16, KF_NR);
}
static void pack_16o(const float *B, int64_t ldb, int64_t j0, int64_t p0, int64_t kc, float *bp) {
    for (int64_t j16 = 0; j16 < KF_NR; j16 += 16) for (int64_t k = 0; k < kc; k += 16)
        tr16(B + (j0 + j16) * ldb + p0 + k, ldb, bp + k * KF_NR + j16, KF_NR);
}
typedef void (*pk_t)(const float *, int64_t, int64_t, int64_t, int64_t, float *);
int main(int argc, char **argv) {
    int64_t N = atoi(argv[1]), K = 2048, kc = 512, nc = atoi(argv[2]);   /* W N x K; pack nc columns x all K, like one thread */
    float *W = aligned_alloc(64, N * K * 4), *bp = aligned_alloc(64, nc * kc * 4);
    for (int64_t i = 0; i < N * K; i++) W[i] = (float)(i % 1000);
    pk_t f[4] = {pack_old, pack_new, pack_16, pack_16o}; const char *nm[4] = {"old j8-outer", "new k-outer", "avx512 16x16 k-outer", "avx512 16x16 j-outer"};
    /* check equal */
    float *ref = aligned_alloc(64, nc * kc * 4);
    pack_old(W, K, 0, 0, kc, ref); for (int v = 1; v < 4; v++) { memset(bp, 0, nc*kc*4); f[v](W, K, 0, 0, kc, bp); if (memcmp(bp, ref, KF_NR * kc * 4)) printf("MISMATCH %s\n", nm[v]); }
    double best[4] = {1e9,1e9,1e9,1e9};
    for (int rep = 0; rep < 15; rep++) for (int v = 0; v < 4; v++) {
        double t = now();
        for (int64_t j0 = 0; j0 < N; j0 += nc)   /* blocks of nc columns, every depth block: the thread's B */
            for (int64_t p0 = 0; p0 < K; p0 += kc)
                for (int64_t jp = 0; jp < nc; jp += KF_NR) f[v](W, K, j0 + jp, p0, kc, bp + jp * kc);
        t = now() - t; if (t < best[v]) best[v] = t;
    }
    for (int v = 0; v < 4; v++) printf("%-22s %.3f ms  %.1f GB/s read\n", nm[v], best[v] * 1e3, N * K * 4 / best[v] / 1e9);
}
