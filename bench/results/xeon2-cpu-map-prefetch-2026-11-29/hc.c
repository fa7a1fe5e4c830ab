/* hc R C NT REPS INNER a.so ... : compute-bound timing, inputs in cache: INNER calls back to back, median per call */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <time.h>
#include "kforge-cpu.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static int cmp(const void*a,const void*b){double d=*(double*)a-*(double*)b;return d<0?-1:d>0;}
int main(int argc,char**argv){
  int64_t R=atoll(argv[1]),C=atoll(argv[2]); int nt=atoi(argv[3]),reps=atoi(argv[4]),inner=atoi(argv[5]); int nk=argc-6;
  void(*k[32])(const kf_cpu_args*);
  for(int i=0;i<nk;i++){void*h=dlopen(argv[6+i],RTLD_NOW|RTLD_LOCAL);if(!h){fprintf(stderr,"%s\n",dlerror());return 1;}k[i]=dlsym(h,"kf_kernel");}
  float*x=aligned_alloc(64,R*C*4),*y=aligned_alloc(64,R*C*4);
  for(int64_t i=0;i<R*C;i++) x[i]=(float)rand()/RAND_MAX*4-2;
  const float*in[1]={x}; float*out[1]={y}; int64_t dims[2]={R,C};
  kf_cpu_args a={in,out,NULL,dims,1,1,0,2,nt,0};
  static double t[32][256];
  for(int r=0;r<reps;r++) for(int i=0;i<nk;i++){ k[i](&a); double t0=now(); for(int j=0;j<inner;j++) k[i](&a); t[i][r]=(now()-t0)/inner; }
  for(int i=0;i<nk;i++){ qsort(t[i],reps,8,cmp); printf("%-24s med %.1f us  %.2f ns/vector/thread\n",argv[6+i],t[i][reps/2]*1e6,t[i][reps/2]*1e9/(R*C/16.0/nt));}
}
