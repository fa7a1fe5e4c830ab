#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
#include "kforge-cpu.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){ int64_t dims[2]={4,16384}; int64_t N=4*16384; int nt=atoi(argv[1]);
 float*x=aligned_alloc(64,N*4+64),*y=aligned_alloc(64,N*4+64); for(int64_t i=0;i<N;i++)x[i]=(float)rand()/RAND_MAX*6-3;
 const float*in[1]={x}; float*out[1]={y}; kf_cpu_args a={in,out,NULL,dims,1,1,0,2,nt,0};
 a.n_dims=2; a.n_in=1; a.n_out=1; a.n_scratch=0; a.n_threads=nt;
 for(int i=2;i<argc;i++){ void*h=dlopen(argv[i],RTLD_NOW); void(*k)(const kf_cpu_args*)=dlsym(h,"kf_kernel");
  for(int r=0;r<50;r++)k(&a); double best=1e9; for(int rep=0;rep<5;rep++){double t0=now(); for(int r=0;r<400;r++)k(&a); double t=(now()-t0)/400; if(t<best)best=t;}
  printf("%-10s %d thr: %.3f ns/float (per core %.3f)\n",argv[i],nt,best*1e9/N,best*1e9/N*nt);}
}
