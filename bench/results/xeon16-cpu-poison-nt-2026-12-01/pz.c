/* output poison: plain stores vs non-temporal, before an NT-store copy */
#define _GNU_SOURCE
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static void copy_nt(float *o, const float *in, size_t n){
#pragma omp parallel for schedule(static)
  for (size_t i=0;i<n;i+=8) _mm256_stream_ps(o+i,_mm256_load_ps(in+i));
  _mm_sfence();
}
static void copy_plain(float *o, const float *in, size_t n){
#pragma omp parallel for schedule(static)
  for (size_t i=0;i<n;i+=8) _mm256_store_ps(o+i,_mm256_load_ps(in+i));
}
static void poison(float *o, size_t n, int nt, int thr){
  __m256i v=_mm256_set1_epi32(0x7fc0dead);
#pragma omp parallel for schedule(static) num_threads(thr)
  for (size_t i=0;i<n;i+=8){ if(nt) _mm256_stream_si256((__m256i*)(o+i),v); else _mm256_store_si256((__m256i*)(o+i),v);}
  _mm_sfence();
}
static void pub(float *in, const float *src, size_t n, int nt, int thr){
#pragma omp parallel for schedule(static) num_threads(thr)
  for (size_t i=0;i<n;i+=8){ __m256 x=_mm256_load_ps(src+i); if(nt) _mm256_stream_ps(in+i,x); else _mm256_store_ps(in+i,x);}
  _mm_sfence();
}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){
  size_t n=(argc>1?atol(argv[1]):16)<<20; int reps=argc>2?atoi(argv[2]):21; int thr=omp_get_max_threads();
  int fd=memfd_create("pz",0); size_t bytes=n*4; ftruncate(fd,3*bytes);
  float *in=mmap(0,bytes,PROT_READ|PROT_WRITE,MAP_SHARED,fd,0), *out=mmap(0,bytes,PROT_READ|PROT_WRITE,MAP_SHARED,fd,bytes);
  float *priv=aligned_alloc(64,bytes); for(size_t i=0;i<n;i++){priv[i]=i;in[i]=i;out[i]=0;}
  const char *names[]={"stream-like (no poison)","poison plain","poison NT","poison plain + input NT","poison NT + input NT", "plain-store kernel, poison plain", "plain-store kernel, poison NT"};
  for (int round=0; round<2; round++)
  for (int m=0;m<7;m++){
    double t[101];
    for(int r=0;r<reps;r++){
      int plainker = m>=5;
      if(plainker) copy_plain(out,in,n); else copy_nt(out,in,n);   /* lead-in */
      pub(in,priv,n,(m==3||m==4),thr);
      if(m==1||m==3||m==5) poison(out,n,0,thr); else if(m==2||m==4||m==6) poison(out,n,1,thr);
      double t0=now(); if(plainker) copy_plain(out,in,n); else copy_nt(out,in,n); t[r]=now()-t0;
    }
    qsort(t,reps,sizeof *t,cmp);
    printf("%-36s median %.3f ms  min %.3f  (%.1f GB/s)\n",names[m],t[reps/2]*1e3,t[0]*1e3,2.0*bytes/t[reps/2]/1e9);
  }
  return 0;
}
