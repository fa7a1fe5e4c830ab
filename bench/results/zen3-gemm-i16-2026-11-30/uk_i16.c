/* uk_i16.c: a 6 x 16 int16-pair micro-kernel (vpmaddwd + vpaddd, int32 accumulators, the
 * assembly of core/agent/builtin/emit/cpu_gemm_i16.c's kf_ukernel) against
 * the same shape in fp32 FMA and the same int16 kernel in intrinsics (which GCC 12 compiles
 * with four accumulators spilled), panels in L1, one thread.
 *   cc -std=gnu11 -O3 -march=native uk_i16.c -o uk_i16 && ./uk_i16 KC */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
__attribute__((noinline)) void uk_f32(int64_t kc, const float *restrict a, const float *restrict b, float *restrict c, int64_t ldc)
{
    __m256 c00=_mm256_setzero_ps(),c01=c00,c10=c00,c11=c00,c20=c00,c21=c00,c30=c00,c31=c00,c40=c00,c41=c00,c50=c00,c51=c00;
    for (int64_t p = 0; p < kc; p++) {
        __m256 b0=_mm256_load_ps(b+p*16), b1=_mm256_load_ps(b+p*16+8), x;
        x=_mm256_broadcast_ss(a+p*6+0); c00=_mm256_fmadd_ps(x,b0,c00); c01=_mm256_fmadd_ps(x,b1,c01);
        x=_mm256_broadcast_ss(a+p*6+1); c10=_mm256_fmadd_ps(x,b0,c10); c11=_mm256_fmadd_ps(x,b1,c11);
        x=_mm256_broadcast_ss(a+p*6+2); c20=_mm256_fmadd_ps(x,b0,c20); c21=_mm256_fmadd_ps(x,b1,c21);
        x=_mm256_broadcast_ss(a+p*6+3); c30=_mm256_fmadd_ps(x,b0,c30); c31=_mm256_fmadd_ps(x,b1,c31);
        x=_mm256_broadcast_ss(a+p*6+4); c40=_mm256_fmadd_ps(x,b0,c40); c41=_mm256_fmadd_ps(x,b1,c41);
        x=_mm256_broadcast_ss(a+p*6+5); c50=_mm256_fmadd_ps(x,b0,c50); c51=_mm256_fmadd_ps(x,b1,c51);
    }
#define ST(i,v0,v1) _mm256_storeu_ps(c+i*ldc,_mm256_add_ps(_mm256_loadu_ps(c+i*ldc),v0)); _mm256_storeu_ps(c+i*ldc+8,_mm256_add_ps(_mm256_loadu_ps(c+i*ldc+8),v1));
    ST(0,c00,c01) ST(1,c10,c11) ST(2,c20,c21) ST(3,c30,c31) ST(4,c40,c41) ST(5,c50,c51)
}
/* a: kc/2 pair-steps x 6 rows of int32 (two int16 each); b: kc/2 x 16 columns x 2 int16 */
__attribute__((noinline)) void uk_i16(int64_t kc, const int32_t *restrict a, const int16_t *restrict b, float *restrict c, int64_t ldc, const float *sa, const float *sb)
{
    __m256i c00=_mm256_setzero_si256(),c01=c00,c10=c00,c11=c00,c20=c00,c21=c00,c30=c00,c31=c00,c40=c00,c41=c00,c50=c00,c51=c00;
    for (int64_t p = 0; p < kc / 2; p++) {
        __m256i b0=_mm256_load_si256((const __m256i*)(b+p*32)), b1=_mm256_load_si256((const __m256i*)(b+p*32+16)), x;
#define R(i,v0,v1) x=_mm256_set1_epi32(a[p*6+i]); v0=_mm256_add_epi32(v0,_mm256_madd_epi16(x,b0)); v1=_mm256_add_epi32(v1,_mm256_madd_epi16(x,b1));
        R(0,c00,c01) R(1,c10,c11) R(2,c20,c21) R(3,c30,c31) R(4,c40,c41) R(5,c50,c51)
    }
    __m256 s0=_mm256_loadu_ps(sb), s1=_mm256_loadu_ps(sb+8);
#define SI(i,v0,v1) { __m256 r=_mm256_set1_ps(sa[i]); \
    _mm256_storeu_ps(c+i*ldc,_mm256_fmadd_ps(_mm256_mul_ps(r,s0),_mm256_cvtepi32_ps(v0),_mm256_loadu_ps(c+i*ldc))); \
    _mm256_storeu_ps(c+i*ldc+8,_mm256_fmadd_ps(_mm256_mul_ps(r,s1),_mm256_cvtepi32_ps(v1),_mm256_loadu_ps(c+i*ldc+8))); }
    SI(0,c00,c01) SI(1,c10,c11) SI(2,c20,c21) SI(3,c30,c31) SI(4,c40,c41) SI(5,c50,c51)
}
__attribute__((noinline)) void uk_i16a(int64_t kc, const int32_t *restrict a, const int16_t *restrict b, int32_t *restrict c)
{
    int64_t n = kc / 2;
    __asm__ volatile(
        "vpxor %%ymm0,%%ymm0,%%ymm0\n vpxor %%ymm1,%%ymm1,%%ymm1\n vpxor %%ymm2,%%ymm2,%%ymm2\n vpxor %%ymm3,%%ymm3,%%ymm3\n"
        "vpxor %%ymm4,%%ymm4,%%ymm4\n vpxor %%ymm5,%%ymm5,%%ymm5\n vpxor %%ymm6,%%ymm6,%%ymm6\n vpxor %%ymm7,%%ymm7,%%ymm7\n"
        "vpxor %%ymm8,%%ymm8,%%ymm8\n vpxor %%ymm9,%%ymm9,%%ymm9\n vpxor %%ymm10,%%ymm10,%%ymm10\n vpxor %%ymm11,%%ymm11,%%ymm11\n"
        ".p2align 5\n1:\n"
        "vmovdqa (%[b]),%%ymm12\n vmovdqa 32(%[b]),%%ymm13\n"
        "vpbroadcastd 0(%[a]),%%ymm14\n" "vpmaddwd %%ymm12,%%ymm14,%%ymm15\n" "vpaddd %%ymm15,%%ymm0,%%ymm0\n" "vpmaddwd %%ymm13,%%ymm14,%%ymm15\n" "vpaddd %%ymm15,%%ymm1,%%ymm1\n"
        "vpbroadcastd 4(%[a]),%%ymm14\n" "vpmaddwd %%ymm12,%%ymm14,%%ymm15\n" "vpaddd %%ymm15,%%ymm2,%%ymm2\n" "vpmaddwd %%ymm13,%%ymm14,%%ymm15\n" "vpaddd %%ymm15,%%ymm3,%%ymm3\n"
        "vpbroadcastd 8(%[a]),%%ymm14\n" "vpmaddwd %%ymm12,%%ymm14,%%ymm15\n" "vpaddd %%ymm15,%%ymm4,%%ymm4\n" "vpmaddwd %%ymm13,%%ymm14,%%ymm15\n" "vpaddd %%ymm15,%%ymm5,%%ymm5\n"
        "vpbroadcastd 12(%[a]),%%ymm14\n" "vpmaddwd %%ymm12,%%ymm14,%%ymm15\n" "vpaddd %%ymm15,%%ymm6,%%ymm6\n" "vpmaddwd %%ymm13,%%ymm14,%%ymm15\n" "vpaddd %%ymm15,%%ymm7,%%ymm7\n"
        "vpbroadcastd 16(%[a]),%%ymm14\n" "vpmaddwd %%ymm12,%%ymm14,%%ymm15\n" "vpaddd %%ymm15,%%ymm8,%%ymm8\n" "vpmaddwd %%ymm13,%%ymm14,%%ymm15\n" "vpaddd %%ymm15,%%ymm9,%%ymm9\n"
        "vpbroadcastd 20(%[a]),%%ymm14\n" "vpmaddwd %%ymm12,%%ymm14,%%ymm15\n" "vpaddd %%ymm15,%%ymm10,%%ymm10\n" "vpmaddwd %%ymm13,%%ymm14,%%ymm15\n" "vpaddd %%ymm15,%%ymm11,%%ymm11\n"
        "add $24,%[a]\n add $64,%[b]\n dec %[n]\n jnz 1b\n"
        "vmovdqu %%ymm0,(%[c])\n vmovdqu %%ymm1,32(%[c])\n vmovdqu %%ymm2,64(%[c])\n vmovdqu %%ymm3,96(%[c])\n"
        "vmovdqu %%ymm4,128(%[c])\n vmovdqu %%ymm5,160(%[c])\n vmovdqu %%ymm6,192(%[c])\n vmovdqu %%ymm7,224(%[c])\n"
        "vmovdqu %%ymm8,256(%[c])\n vmovdqu %%ymm9,288(%[c])\n vmovdqu %%ymm10,320(%[c])\n vmovdqu %%ymm11,352(%[c])\n"
        : [a]"+r"(a), [b]"+r"(b), [n]"+r"(n) : [c]"r"(c) : "memory", "ymm0","ymm1","ymm2","ymm3","ymm4","ymm5","ymm6","ymm7","ymm8","ymm9","ymm10","ymm11","ymm12","ymm13","ymm14","ymm15");
}
int main(int argc,char**argv){
  int64_t kc=argc>1?atoll(argv[1]):512; int reps=argc>2?atoi(argv[2]):20000;
  float *af=aligned_alloc(64,6*kc*4), *bf=aligned_alloc(64,16*kc*4), c[6*16]={0}, sa[6]={1,1,1,1,1,1}, sb[16];
  int32_t ci[96]; int32_t *ai=aligned_alloc(64,6*kc*2); int16_t *bi=aligned_alloc(64,16*kc*2);
  for(int i=0;i<16;i++) sb[i]=1e-6f;
  for(int64_t i=0;i<6*kc;i++) af[i]=1e-3f*(i%7); for(int64_t i=0;i<16*kc;i++) bf[i]=1e-3f*(i%5);
  for(int64_t i=0;i<3*kc;i++) ai[i]=(int32_t)((i%7)|((i%5)<<16)); for(int64_t i=0;i<16*kc;i++) bi[i]=(int16_t)(i%9);
  for (int round=0; round<3; round++) {
    double bf32=1e9, bin=1e9, bas=1e9;
    for(int t=0;t<5;t++){ double t0=now(); for(int r=0;r<reps;r++) uk_f32(kc,af,bf,c,16); double d=now()-t0; if(d<bf32)bf32=d;
                          t0=now(); for(int r=0;r<reps;r++) uk_i16(kc,ai,bi,c,16,sa,sb); d=now()-t0; if(d<bin)bin=d;
                          t0=now(); for(int r=0;r<reps;r++) uk_i16a(kc,ai,bi,ci); d=now()-t0; if(d<bas)bas=d; }
    double mac=6.0*16*kc*reps;
    printf("kc %ld: fp32 %.1f GMAC/s  i16 intrinsics %.1f  i16 assembly %.1f  (assembly / fp32 %.2f)\n",(long)kc,
           mac/bf32/1e9,mac/bin/1e9,mac/bas/1e9,bf32/bas);
  }
  return c[3]==12345 && ci[0]==1;
}
