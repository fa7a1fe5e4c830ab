#include "pre.h"
#include <stdio.h>
#include <time.h>
#include <immintrin.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
#define N 8192
static float x[N] __attribute__((aligned(64))), y[N] __attribute__((aligned(64))), z[N] __attribute__((aligned(64)));
__attribute__((noinline)) static void v_gen(void){
#pragma omp simd
  for (int i=0;i<N;i++) y[i]=kf_gelu(x[i]);
}
static inline __m512 exp_neg16(__m512 v){ /* kf__exp_1s of max(v,-86) */
  v=_mm512_max_ps(v,_mm512_set1_ps(-86.0f));
  const __m512 big=_mm512_set1_ps(12582912.0f);
  __m512 t=_mm512_fmadd_ps(v,_mm512_set1_ps(1.44269504088896341f),big);
  __m512 n=_mm512_sub_ps(t,big);
  __m512 r=_mm512_fnmadd_ps(n,_mm512_set1_ps(0.693359375f),v);
  r=_mm512_fmadd_ps(n,_mm512_set1_ps(2.12194440e-4f),r);
  __m512 p=_mm512_set1_ps(1.9875691500e-4f);
  p=_mm512_fmadd_ps(p,r,_mm512_set1_ps(1.3981999507e-3f));
  p=_mm512_fmadd_ps(p,r,_mm512_set1_ps(8.3334519073e-3f));
  p=_mm512_fmadd_ps(p,r,_mm512_set1_ps(4.1665795894e-2f));
  p=_mm512_fmadd_ps(p,r,_mm512_set1_ps(1.6666665459e-1f));
  p=_mm512_fmadd_ps(p,r,_mm512_set1_ps(5.0000001201e-1f));
  __m512 yy=_mm512_add_ps(_mm512_fmadd_ps(p,_mm512_mul_ps(r,r),r),_mm512_set1_ps(1.0f));
  return _mm512_scalef_ps(yy,n);
}
__attribute__((noinline)) static void v_rcp(int nr){
  for (int i=0;i<N;i+=16){
    __m512 xv=_mm512_load_ps(x+i);
    __m512 ax=_mm512_abs_ps(xv);
    __m512 d=_mm512_fmadd_ps(ax,_mm512_set1_ps(0.2316418883f),_mm512_set1_ps(1.0f));
    __m512 t;
    if(nr){ t=_mm512_rcp14_ps(d); __m512 e=_mm512_fnmadd_ps(d,t,_mm512_set1_ps(1.0f)); t=_mm512_fmadd_ps(t,e,t); }
    else t=_mm512_div_ps(_mm512_set1_ps(1.0f),d);
    __m512 p=_mm512_set1_ps(0.5307027145f);
    p=_mm512_fmadd_ps(p,t,_mm512_set1_ps(-0.7265760135f));
    p=_mm512_fmadd_ps(p,t,_mm512_set1_ps(0.7107068705f));
    p=_mm512_fmadd_ps(p,t,_mm512_set1_ps(-0.142248368f));
    p=_mm512_fmadd_ps(p,t,_mm512_set1_ps(0.127414796f));
    __m512 q=_mm512_mul_ps(_mm512_mul_ps(p,t),exp_neg16(_mm512_mul_ps(_mm512_mul_ps(xv,xv),_mm512_set1_ps(-0.5f))));
    __mmask16 neg=_mm512_cmp_ps_mask(xv,_mm512_setzero_ps(),_CMP_LT_OQ);
    __m512 ph=_mm512_mask_blend_ps(neg,_mm512_sub_ps(_mm512_set1_ps(1.0f),q),q);
    _mm512_store_ps((nr?z:y)+i,_mm512_mul_ps(xv,ph));
  }
}
int main(){
  for(int i=0;i<N;i++) x[i]=-8.0f+16.0f*(float)i/N;
  double best[3]={1e9,1e9,1e9};
  for(int r=0;r<2000;r++){
    double t0=now(); v_gen(); double t1=now(); v_rcp(0); double t2=now(); v_rcp(1); double t3=now();
    if(t1-t0<best[0])best[0]=t1-t0; if(t2-t1<best[1])best[1]=t2-t1; if(t3-t2<best[2])best[2]=t3-t2;
  }
  double md=0; v_gen(); float yg[N]; for(int i=0;i<N;i++) yg[i]=y[i]; v_rcp(0); v_rcp(1);
  for(int i=0;i<N;i++){ double e=fabs((double)z[i]-yg[i]); if(e>md) md=e; }
  printf("generic %.3f us, intrinsics div %.3f us, rcp14+NR %.3f us (cycles/vec at 3.66GHz: %.1f %.1f %.1f); max |rcp - generic| %.3g\n",
    best[0]*1e6,best[1]*1e6,best[2]*1e6, best[0]*3.66e9/(N/16),best[1]*3.66e9/(N/16),best[2]*3.66e9/(N/16), md);
}
