/* pages.c — one streaming map (ReLU, 64 MiB in, 64 MiB out with non-temporal stores, 2 threads
 * by default) over three kinds of buffers, in turns (the order rotated each round), 31 rounds,
 * fresh inputs written before each timed call: a shared memfd mapping (as kforge's buffer sets),
 * private anonymous memory with 4 KiB pages, and private anonymous memory with
 * madvise(MADV_HUGEPAGE) (2 MiB pages where THP allows it).  Medians, p25, min per kind. */
#define _GNU_SOURCE
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdint.h>
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return (x>y)-(x<y);}
static float *getbuf(int kind, size_t bytes){
  void *p;
  if(kind==0){int fd=memfd_create("b",0); if(ftruncate(fd,bytes))return 0; p=mmap(0,bytes,PROT_READ|PROT_WRITE,MAP_SHARED,fd,0);}
  else {p=mmap(0,bytes+(2<<20),PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0); p=(void*)(((uintptr_t)p+(2<<20)-1)&~(uintptr_t)((2<<20)-1));
        if(kind==2) madvise(p,bytes,MADV_HUGEPAGE);}
  memset(p,1,bytes); return p;
}
int main(){
  size_t n=16<<20, bytes=n*4; float *in[3],*out[3];
  for(int k=0;k<3;k++){in[k]=getbuf(k,bytes);out[k]=getbuf(k,bytes);}
  double t[3][31];
  for(int r=0;r<31;r++) for(int j=0;j<3;j++){ int k=(r+j)%3;
    /* fresh inputs */
    #pragma omp parallel for
    for(size_t i=0;i<n;i+=16)_mm512_store_ps(in[k]+i,_mm512_set1_ps((float)r));
    double t0=omp_get_wtime();
    #pragma omp parallel for schedule(static)
    for(size_t i=0;i<n;i+=16)_mm512_stream_ps(out[k]+i,_mm512_max_ps(_mm512_load_ps(in[k]+i),_mm512_setzero_ps()));
    _mm_sfence();
    t[k][r]=omp_get_wtime()-t0;
  }
  const char*nm[3]={"memfd-shared","anon-4k","anon-thp"};
  for(int k=0;k<3;k++){qsort(t[k],31,sizeof(double),cmp);printf("%-13s median %.3f ms  p25 %.3f  min %.3f\n",nm[k],t[k][15]*1e3,t[k][7]*1e3,t[k][0]*1e3);}
  FILE*f=fopen("/proc/self/smaps_rollup","r");char l[256];while(f&&fgets(l,256,f))if(strstr(l,"AnonHuge"))fputs(l,stdout);
}
