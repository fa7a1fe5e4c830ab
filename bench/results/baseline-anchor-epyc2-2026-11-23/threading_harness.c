/*
 * threading_harness.c — the one-off harness behind the threading choice of
 * the CPU baseline (commit 7ba1847; numbers in threading_harness.txt).
 *
 * Problem 12's op-by-op baseline written out by hand (GEMM with bias
 * pre-filled, beta = 1, then two OpenMP elementwise loops: *2, leaky_relu)
 * and its GEMM alone (beta = 0), each timed as the cpu-simd plugin does:
 * 3 warm-up calls, then the median of REPS calls rotating 4 buffer sets;
 * two rounds.  Usage: ./h M K N THREADS REPS.  Builds:
 *   P=/usr/lib/x86_64-linux-gnu/openblas-pthread O=/usr/lib/x86_64-linux-gnu/openblas-openmp
 *   MODE=0, pthreads OpenBLAS (the old baseline):
 *     gcc -O3 -march=native -fopenmp -DMODE=0 threading_harness.c -o h_pthr \
 *         -I/usr/include/x86_64-linux-gnu/openblas-pthread -L$P -lopenblas -Wl,-rpath,$P
 *   MODE=0, OpenMP OpenBLAS (the new baseline):
 *     gcc ... -DMODE=0 ... -I/usr/include/x86_64-linux-gnu/openblas-openmp -L$O -lopenblas -Wl,-rpath,$O
 *   MODE=2, pthreads OpenBLAS single-threaded on each OpenMP thread's rows (the fallback):
 *     gcc ... -DMODE=2 ... -L$P ...
 */
#define _GNU_SOURCE
#include <cblas.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return (x>y)-(x<y);}
#ifndef MODE
#define MODE 0
#endif
int M,N,K,nt; 
static void gemm(const float*x,const float*W,const float*b,float*C){
#if MODE==2   /* single-threaded BLAS inside an omp region */
  openblas_set_num_threads(1);
  #pragma omp parallel num_threads(nt)
  { int t=omp_get_thread_num(), n=omp_get_num_threads(); int m0=(int)((long)M*t/n), m1=(int)((long)M*(t+1)/n);
    for(int i=m0;i<m1;i++) memcpy(C+(size_t)i*N,b,N*4);
    if(m1>m0) cblas_sgemm(CblasRowMajor,CblasNoTrans,CblasTrans,m1-m0,N,K,1.f,x+(size_t)m0*K,K,W,K,1.f,C+(size_t)m0*N,N); }
#else
  openblas_set_num_threads(nt);
  for(int i=0;i<M;i++) memcpy(C+(size_t)i*N,b,N*4);
  cblas_sgemm(CblasRowMajor,CblasNoTrans,CblasTrans,M,N,K,1.f,x,K,W,K,1.f,C,N);
#endif
}
static void anchor(const float*x,const float*W,float*C){
  openblas_set_num_threads(nt);
  cblas_sgemm(CblasRowMajor,CblasNoTrans,CblasTrans,M,N,K,1.f,x,K,W,K,0.f,C,N);
}
static void base(const float*x,const float*W,const float*b,float*h,float*h1,float*y){
  gemm(x,W,b,h);
  #pragma omp parallel for num_threads(nt) schedule(static)
  for(long r=0;r<M;r++) for(long j=0;j<N;j++) h1[r*N+j]=h[r*N+j]*2.f;
  #pragma omp parallel for num_threads(nt) schedule(static)
  for(long r=0;r<M;r++) for(long j=0;j<N;j++){float v=h1[r*N+j]; y[r*N+j]=v>0?v:0.1f*v;}
}
int main(int argc,char**argv){
  M=atoi(argv[1]);K=atoi(argv[2]);N=atoi(argv[3]);nt=argc>4?atoi(argv[4]):2; int reps=argc>5?atoi(argv[5]):20;
  enum{S=4}; float *x[S],*W[S],*b[S],*h[S],*h1[S],*y[S];
  for(int s=0;s<S;s++){x[s]=aligned_alloc(4096,((size_t)M*K*4+4095)/4096*4096);W[s]=aligned_alloc(4096,((size_t)N*K*4+4095)/4096*4096);b[s]=malloc(N*4);
   h[s]=aligned_alloc(4096,((size_t)M*N*4+4095)/4096*4096);h1[s]=aligned_alloc(4096,((size_t)M*N*4+4095)/4096*4096);y[s]=aligned_alloc(4096,((size_t)M*N*4+4095)/4096*4096);
   for(size_t i=0;i<(size_t)M*K;i++)x[s][i]=rand()/(float)RAND_MAX; for(size_t i=0;i<(size_t)N*K;i++)W[s][i]=rand()/(float)RAND_MAX-.5f; for(int i=0;i<N;i++)b[s][i]=.1f;}
  double tb[200],ta[200];
  for(int round=0;round<2;round++){
   for(int i=0;i<3;i++){base(x[i%S],W[i%S],b[i%S],h[i%S],h1[i%S],y[i%S]);}
   for(int i=0;i<reps;i++){double t=now();base(x[i%S],W[i%S],b[i%S],h[i%S],h1[i%S],y[i%S]);tb[i]=now()-t;}
   for(int i=0;i<3;i++){anchor(x[i%S],W[i%S],h[i%S]);}
   for(int i=0;i<reps;i++){double t=now();anchor(x[i%S],W[i%S],h[i%S]);ta[i]=now()-t;}
   qsort(tb,reps,8,cmp);qsort(ta,reps,8,cmp);
   printf("mode %d %dx%dx%d nt %d: baseline median %.3f ms (min %.3f p90 %.3f)  anchor median %.3f ms (min %.3f)  ratio %.2f\n",MODE,M,K,N,nt,tb[reps/2]*1e3,tb[0]*1e3,tb[reps*9/10]*1e3,ta[reps/2]*1e3,ta[0]*1e3,tb[reps/2]/ta[reps/2]);
  }
  return 0;
}
