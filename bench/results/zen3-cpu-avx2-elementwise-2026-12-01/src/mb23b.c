#define _GNU_SOURCE
#include <stdio.h>
#include <time.h>
#include "../kernels/old_23.c"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static inline __m256 exp8s(__m256 x, __m256 c, int deg)
{
    __m256 t = _mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), c);
    t = _mm256_min_ps(_mm256_set1_ps(128.0f), _mm256_max_ps(_mm256_set1_ps(-127.0f), t));
    const __m256 big = _mm256_set1_ps(12583039.0f);   /* 1.5 2^23 + 127 */
    const __m256 s = _mm256_add_ps(t, big);
    const __m256 f = _mm256_sub_ps(t, _mm256_sub_ps(s, big));
    __m256 p;
    if (deg == 5) {
    p = _mm256_set1_ps(0.001326472731307149f);
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(0.009671512991189957f));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(0.05550733581185341f));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(0.24022242426872253f));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(0.6931470036506653f));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.0f));
    } else {
    p = _mm256_set1_ps(1.5345800784e-4f);
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.3399930904e-3f));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(9.6184890717e-3f));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(5.5503286421e-2f));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(2.4022646248e-1f));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(6.9314718246e-1f));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.0f));
    }
    return _mm256_mul_ps(p, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(s), 23)));
}

/* candidate softmax exp: 2^(x log2e + c) for x log2e + c <= 0 (or NaN) */
static inline __m256 exp8n(__m256 x, __m256 c)
{
    __m256 t = _mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), c);
    t = _mm256_max_ps(t, _mm256_set1_ps(-125.0f));
    const __m256 big = _mm256_set1_ps(12582912.0f);
    const __m256 s = _mm256_add_ps(t, big);
    const __m256 f = _mm256_sub_ps(t, _mm256_sub_ps(s, big));
    __m256 p = _mm256_set1_ps(1.5345800784e-4f);
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.3399930904e-3f));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(9.6184890717e-3f));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(5.5503286421e-2f));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(2.4022646248e-1f));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(6.9314718246e-1f));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.0f));
    return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(p), _mm256_slli_epi32(_mm256_castps_si256(s), 23)));
}
#define NR 4
#define L 16384
static float X[NR][L] __attribute__((aligned(64))), EX[2][L] __attribute__((aligned(64))), Y[NR][L] __attribute__((aligned(64)));
static volatile double sink;
static double sum_exp_new(const float *x, float m, float *ex, int64_t n){
  const __m256 vm = kf__exp_c(m); __m256d d=_mm256_setzero_pd();
  for (int64_t k=0;k<n;k+=256){ __m256 a0=_mm256_setzero_ps(),a1=a0;
    for(int64_t j=k;j<k+256;j+=16){ __m256 e0=exp8s(_mm256_loadu_ps(x+j),vm,DEG), e1=exp8s(_mm256_loadu_ps(x+j+8),vm,DEG);
      _mm256_storeu_ps(ex+j,e0);_mm256_storeu_ps(ex+j+8,e1); a0=_mm256_add_ps(a0,e0);a1=_mm256_add_ps(a1,e1);}
    d=kf_vaddw(d,_mm256_add_ps(a0,a1));}
  return kf_vdhsum(d);}
static double exp_only_old(const float *x, float m, float *ex){ return kf_row_exp_sum(x,m,ex,L,NULL);}
int main(int argc,char**argv){
  for(int r=0;r<NR;r++)for(int i=0;i<L;i++)X[r][i]=(float)rand()/RAND_MAX*6-3;
  const char*names[]={"max","expsum-old","expsum-new","scale+stream","scale-plain","full-kernel-row"};
  for(int v=0;v<6;v++){ double best=1e9;
    for(int rep=0;rep<200;rep++){ double t0=now();
      for(int r=0;r<NR;r++){ const float*x=X[r];
        switch(v){
        case 0: sink=kf_row_max(x,L);break;
        case 1: sink=kf_row_exp_sum(x,1.0f,EX[r&1],L,NULL);break;
        case 2: sink=sum_exp_new(x,1.0f,EX[r&1],L);break;
        case 3: { const float*ex=EX[r&1]; float inv=0.5f; for(int64_t c0=0;c0<L;c0+=64){ float S1[64] __attribute__((aligned(64)));
                 _Pragma("omp simd") for(int l=0;l<64;l++)S1[l]=ex[c0+l]*inv; kf_stream_block(Y[r]+c0,S1);} break;}
        case 4: { const float*ex=EX[r&1]; float inv=0.5f; for(int64_t c0=0;c0<L;c0++)Y[r][c0]=ex[c0]*inv; break;}
        case 5: { float m=kf_row_max(x,L); double s=0; for(int64_t c0=0;c0<L;c0+=64){ s+=kf_row_exp_block(x+c0,m,EX[r&1]+c0,64,NULL);
                 float S1[64] __attribute__((aligned(64))); const float*ex=EX[(r+1)&1];
                 _Pragma("omp simd") for(int l=0;l<64;l++)S1[l]=ex[c0+l]*0.5f; kf_stream_block(Y[r]+c0,S1);} sink=s; break;}
        }}
      double t=now()-t0; if(t<best)best=t;}
    printf("%-16s %.3f ns/float\n",names[v],best*1e9/(NR*L));}
  return 0;}
