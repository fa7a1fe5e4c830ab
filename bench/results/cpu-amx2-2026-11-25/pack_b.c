#include <immintrin.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define KF_NR 32
static inline __mmask16 kf_lanes(int64_t m) { return m >= 16 ? (__mmask16)0xffff : m <= 0 ? (__mmask16)0 : (__mmask16)((1u << m) - 1u); }
static inline __m512i kf_bf16x32(const float *src, int64_t kt)
{
    __m512 lo = _mm512_maskz_loadu_ps(kf_lanes(kt), src), hi = _mm512_maskz_loadu_ps(kf_lanes(kt - 16), src + 16);
    return (__m512i)_mm512_cvtne2ps_pbh(hi, lo);
}
#include "tr16.h"
static void pack_old(const float *B, int64_t ldb, int64_t n, int64_t jp, int64_t p0, int64_t kc, float *bp)
{
    uint32_t *dst = (uint32_t *)(void *)bp;
    const int64_t kq = (kc + 1) / 2, j0 = jp * KF_NR;
    const int64_t w = n - j0 < KF_NR ? n - j0 : KF_NR;
        uint32_t t[16 * 16] __attribute__((aligned(64)));
        const __m512i col = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                               _mm512_set1_epi32(16));
        for (int64_t j16 = 0; j16 < KF_NR; j16 += 16)
            for (int64_t q0 = 0; q0 < kq; q0 += 16) {
                const int64_t kt = kc - 2 * q0, nq = kq - q0 < 16 ? kq - q0 : 16;
                for (int64_t jj = 0; jj < 16; jj++)
                    _mm512_store_si512((void *)(t + jj * 16), j16 + jj < w ? kf_bf16x32(B + (j0 + j16 + jj) * ldb + p0 + 2 * q0, kt)
                                                                           : _mm512_setzero_si512());
                for (int64_t q = 0; q < nq; q++)
                    _mm512_storeu_si512((void *)(dst + (q0 + q) * KF_NR + j16),
                                        _mm512_i32gather_epi32(_mm512_add_epi32(col, _mm512_set1_epi32((int)q)), t, 4));
            }
}
static void pack_new(const float *B, int64_t ldb, int64_t n, int64_t jp, int64_t p0, int64_t kc, float *bp)
{
    uint32_t *dst = (uint32_t *)(void *)bp;
    const int64_t kq = (kc + 1) / 2, j0 = jp * KF_NR;
    const int64_t w = n - j0 < KF_NR ? n - j0 : KF_NR;
        for (int64_t j16 = 0; j16 < KF_NR; j16 += 16)
            for (int64_t q0 = 0; q0 < kq; q0 += 16) {
                const int64_t kt = kc - 2 * q0, nq = kq - q0 < 16 ? kq - q0 : 16;
                __m512i r[16];
                for (int64_t jj = 0; jj < 16; jj++)
                    r[jj] = j16 + jj < w ? kf_bf16x32(B + (j0 + j16 + jj) * ldb + p0 + 2 * q0, kt) : _mm512_setzero_si512();
                kf_tr16(r);
                for (int64_t q = 0; q < nq; q++)
                    _mm512_storeu_si512((void *)(dst + (q0 + q) * KF_NR + j16), r[q]);
            }
}
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(int argc, char **argv){
    int64_t N = atoi(argv[1]), K = atoi(argv[2]);
    float *B = aligned_alloc(64, N*K*4); for (int64_t i=0;i<N*K;i++) B[i]=(float)((i*7919)%1000)/1000.0f-0.5f;
    int64_t NP=(N+31)/32;
    float *o1 = aligned_alloc(64, NP*32*K*4), *o2 = aligned_alloc(64, NP*32*K*4);
    memset(o1,0,NP*32*K*4); memset(o2,0,NP*32*K*4);
    double b1=1e9,b2=1e9;
    for (int r=0;r<7;r++){
        double t0=now(); for (int64_t jp=0;jp<NP;jp++) pack_old(B,K,N,jp,0,K,o1+jp*32*K); double t1=now();
        for (int64_t jp=0;jp<NP;jp++) pack_new(B,K,N,jp,0,K,o2+jp*32*K); double t2=now();
        if(t1-t0<b1)b1=t1-t0; if(t2-t1<b2)b2=t2-t1;
    }
    printf("N %ld K %ld: gather %.2f ms, transpose %.2f ms, equal %d\n", (long)N,(long)K,b1*1e3,b2*1e3, memcmp(o1,o2,NP*32*((K+1)/2)*4)==0);
}
