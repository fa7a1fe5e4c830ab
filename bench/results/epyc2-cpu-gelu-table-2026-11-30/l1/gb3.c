#include "pre.h"
#include <stdio.h>
#include <time.h>
#include <immintrin.h>
#include "t32.h"
#define kf__gelu_c0 g16_c0
#define kf__gelu_c1 g16_c1
#define kf__gelu_c2 g16_c2
#define kf__gelu_c3 g16_c3
#define kf__gelu_c4 g16_c4
#define kf__gelu_c5 g16_c5
#define kf__gelu_tanh_c0 g16t_c0
#define kf__gelu_tanh_c1 g16t_c1
#define kf__gelu_tanh_c2 g16t_c2
#define kf__gelu_tanh_c3 g16t_c3
#define kf__gelu_tanh_c4 g16t_c4
#define kf__gelu_tanh_c5 g16t_c5
#include "t16.h"
#undef kf__gelu_c0
#undef kf__gelu_c1
#undef kf__gelu_c2
#undef kf__gelu_c3
#undef kf__gelu_c4
#undef kf__gelu_c5
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
#define N 8192
static float x[N] __attribute__((aligned(64))), y[5][N] __attribute__((aligned(64)));
__attribute__((noinline)) static void v_gen(void){
#pragma omp simd
  for (int i=0;i<N;i++) y[0][i]=kf_gelu(x[i]);
}
static inline __m512 fin(__m512 xv, __m512 p){
  __mmask16 neg=_mm512_cmp_ps_mask(xv,_mm512_setzero_ps(),_CMP_LT_OQ);
  __m512 ph=_mm512_mask_blend_ps(neg,_mm512_sub_ps(_mm512_set1_ps(1.0f),p),p);
  return _mm512_mul_ps(xv,ph);
}
static inline __m512 gelu32(__m512 xv){
  const __m512 ax=_mm512_min_ps(_mm512_abs_ps(xv), _mm512_set1_ps(5.904375f));
  const __m512 magic=_mm512_set1_ps(12582912.0f);
  const __m512 s=_mm512_fmadd_ps(ax,_mm512_set1_ps(5.333333492f),magic);
  const __m512 n=_mm512_sub_ps(s,magic);
  const __m512 r=_mm512_fmsub_ps(ax,_mm512_set1_ps(5.333333492f),n);
  const __m512i id=_mm512_castps_si512(s);
#define T(k) _mm512_permutex2var_ps(_mm512_loadu_ps(kf__gelu_c##k), id, _mm512_loadu_ps(kf__gelu_c##k + 16))
  __m512 p=T(4);
  p=_mm512_fmadd_ps(p,r,T(3)); p=_mm512_fmadd_ps(p,r,T(2)); p=_mm512_fmadd_ps(p,r,T(1)); p=_mm512_fmadd_ps(p,r,T(0));
  return fin(xv,p);
}
static inline __m512 gelu16(__m512 xv){
  const __m512 ax=_mm512_min_ps(_mm512_abs_ps(xv), _mm512_set1_ps(H16AMAX));
  const __m512 magic=_mm512_set1_ps(12582912.0f);
  const __m512 s=_mm512_fmadd_ps(ax,_mm512_set1_ps(H16INV),magic);
  const __m512 n=_mm512_sub_ps(s,magic);
  const __m512 r=_mm512_fmsub_ps(ax,_mm512_set1_ps(H16INV),n);
  const __m512i id=_mm512_castps_si512(s);
#define U(k) _mm512_permutexvar_ps(id, _mm512_loadu_ps(g16_c##k))
  __m512 p=U(5);
  p=_mm512_fmadd_ps(p,r,U(4)); p=_mm512_fmadd_ps(p,r,U(3)); p=_mm512_fmadd_ps(p,r,U(2)); p=_mm512_fmadd_ps(p,r,U(1)); p=_mm512_fmadd_ps(p,r,U(0));
  return fin(xv,p);
}
__attribute__((noinline)) static void v_t32(void){ for (int i=0;i<N;i+=16) _mm512_store_ps(y[1]+i, gelu32(_mm512_load_ps(x+i))); }
__attribute__((noinline)) static void v_t16(void){ for (int i=0;i<N;i+=16) _mm512_store_ps(y[2]+i, gelu16(_mm512_load_ps(x+i))); }
#pragma omp declare simd simdlen(16) notinbranch
float ga(float x);
#pragma omp declare simd simdlen(16) notinbranch
float gb(float x);
__attribute__((visibility("hidden"))) __m512 ga16(__m512 x) __asm__("_ZGVeN16v_ga");
__m512 ga16(__m512 x) { return gelu32(x); }
__attribute__((visibility("hidden"))) __m512 gb16(__m512 x) __asm__("_ZGVeN16v_gb");
__m512 gb16(__m512 x) { return gelu16(x); }
__attribute__((noinline)) static void v_c32(void){
#pragma omp simd
  for (int i=0;i<N;i++) y[3][i]=ga(x[i]);
}
__attribute__((noinline)) static void v_c16(void){
#pragma omp simd
  for (int i=0;i<N;i++) y[4][i]=gb(x[i]);
}
int main(){
  for(int i=0;i<N;i++) x[i]=-8.0f+16.0f*(float)i/N;
  double best[5]={1e9,1e9,1e9,1e9,1e9};
  void (*f[5])(void)={v_gen,v_t32,v_t16,v_c32,v_c16};
  for(int r=0;r<3000;r++) for(int k=0;k<5;k++){ double t0=now(); f[k](); double t1=now(); if(t1-t0<best[k])best[k]=t1-t0; }
  const char *nm[5]={"generic","inline t32","inline t16","call t32","call t16"};
  for(int k=0;k<5;k++){ double md=0; for(int i=0;i<N;i++){ double e=fabs((double)y[k][i]-y[0][i]); if(e>md) md=e; }
    printf("%-11s %.3f us  max|diff vs generic| %.3g\n", nm[k], best[k]*1e6, md); }
}
