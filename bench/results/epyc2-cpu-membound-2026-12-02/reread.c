/* reread.c — a buffer read three times by two threads after a 512 MiB read that evicts it:
 * how fast a second read of a norm row comes back on a VM (epyc2-cpu-membound-2026-12-02). */
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
static double now(void){return omp_get_wtime();}
int main(int argc,char**argv){
  size_t mib=atoi(argv[1]); size_t n=mib<<18; /* floats */
  float *x=aligned_alloc(64,n*4*2); float *big=aligned_alloc(64,(size_t)512<<20);
  for(size_t i=0;i<n*2;i++)x[i]=1.0f;
  for(int rep=0;rep<5;rep++){
    /* flush: read 512 MiB */
    double fl=0;
    #pragma omp parallel for reduction(+:fl)
    for(size_t i=0;i<((size_t)512<<18);i+=16)fl+=big[i];
    double t[3]; float acc=0;
    for(int p=0;p<3;p++){ double t0=now();
      #pragma omp parallel reduction(+:acc)
      { __m512 a=_mm512_setzero_ps(); int T=omp_get_num_threads(),id=omp_get_thread_num();
        size_t b=n*id/T, e=n*(id+1)/T;
        for(size_t i=b;i<e;i+=16)a=_mm512_add_ps(a,_mm512_load_ps(x+i));
        acc+=_mm512_reduce_add_ps(a);}
      t[p]=now()-t0;}
    printf("%zu MiB: pass1 %.2f GB/s pass2 %.2f pass3 %.2f (%g %g)\n",mib,n*4/t[0]/1e9,n*4/t[1]/1e9,n*4/t[2]/1e9,acc,fl);
  }
}
