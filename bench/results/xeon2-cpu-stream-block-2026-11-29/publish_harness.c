#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static size_t n;
static float *x,*y,*priv;
static void kern(void){
#pragma omp parallel for schedule(static)
  for(size_t i=0;i<n;i+=16){__m512 v=_mm512_load_ps(x+i);_mm512_stream_ps(y+i,_mm512_max_ps(v,_mm512_setzero_ps()));}
  _mm_sfence();
}
static void nt_copy(float*d,const float*s,size_t m){for(size_t i=0;i<m;i+=16)_mm512_stream_ps(d+i,_mm512_load_ps(s+i));_mm_sfence();}
static void nt_fill(float*d,float v,size_t m){__m512 p=_mm512_set1_ps(v);for(size_t i=0;i<m;i+=16)_mm512_stream_ps(d+i,p);_mm_sfence();}
static void flush(void*p,size_t b){for(size_t o=0;o<b;o+=64)_mm_clflushopt((char*)p+o);_mm_sfence();}
static int cmp(const void*a,const void*b){double d=*(double*)a-*(double*)b;return d<0?-1:d>0;}
int main(int argc,char**argv){
  size_t mib=argc>1?atol(argv[1]):64; int reps=argc>2?atoi(argv[2]):9;
  n=mib<<18; size_t B=n*4;
  x=mmap(0,B,PROT_READ|PROT_WRITE,MAP_SHARED|MAP_ANONYMOUS,-1,0);
  y=mmap(0,B,PROT_READ|PROT_WRITE,MAP_SHARED|MAP_ANONYMOUS,-1,0);
  priv=aligned_alloc(64,B);
  for(size_t i=0;i<n;i++){priv[i]=(float)(i%1000)-500;x[i]=1;y[i]=0;}
  const char*nm[4]={"steady","plain-publish","nt-publish","plain+clflush"};
  double t[4][64];
  for(int r=0;r<reps;r++) for(int c=0;c<4;c++){
    kern(); /* lead-in */
    if(c==1){memcpy(x,priv,B);memset(y,0xff,B);}
    if(c==2){nt_copy(x,priv,n);nt_fill(y,__builtin_nanf(""),n);}
    if(c==3){memcpy(x,priv,B);memset(y,0xff,B);flush(x,B);flush(y,B);}
    double t0=now();kern();t[c][r]=now()-t0;
  }
  for(int c=0;c<4;c++){qsort(t[c],reps,sizeof(double),cmp);double m=t[c][reps/2];
    printf("%-14s median %.3f ms  min %.3f  %.1f GB/s\n",nm[c],m*1e3,t[c][0]*1e3,2.0*B/m/1e9);}
}
