#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#include <time.h>
#include <math.h>
#include "kforge-cpu.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static int cmp(const void*a,const void*b){double d=*(double*)a-*(double*)b;return d<0?-1:d>0;}
/* h4 M K NT REPS a.so ...: y = A x, A and x in one memfd, A rewritten before each timed call, kernels in turns */
int main(int argc,char**argv){
  int64_t M=atoll(argv[1]),K=atoll(argv[2]); int nt=atoi(argv[3]),reps=atoi(argv[4]); int nk=argc-5;
  void(*k[32])(const kf_cpu_args*);
  for(int i=0;i<nk;i++){void*h=dlopen(argv[5+i],RTLD_NOW|RTLD_LOCAL);if(!h){fprintf(stderr,"%s\n",dlerror());return 1;}k[i]=dlsym(h,"kf_kernel");}
  size_t BA=M*K*4,BX=K*4,BY=M*4; size_t tot=BA+BX+BY+3*4096; int fd=memfd_create("x",0); if(ftruncate(fd,tot)) return 1;
  char*map=mmap(0,tot,PROT_READ|PROT_WRITE,MAP_SHARED,fd,0);
  float*A=(float*)map,*x=(float*)(map+BA+4096),*y=(float*)(map+BA+BX+2*4096);
  float*priv=aligned_alloc(64,BA); for(int64_t i=0;i<M*K;i++) priv[i]=(float)rand()/RAND_MAX-0.5f;
  for(int64_t i=0;i<K;i++) x[i]=(float)rand()/RAND_MAX;
  memcpy(A,priv,BA);
  const float*in[2]={A,x}; float*out[1]={y}; int64_t dims[2]={M,K};
  kf_cpu_args a={in,out,NULL,dims,2,1,0,2,nt,0};
  static double t[32][4096];
  for(int r=0;r<reps;r++) for(int i=0;i<nk;i++){ k[i](&a); memcpy(A,priv,BA); double t0=now(); k[i](&a); t[i][r]=now()-t0; }
  float*ref=malloc(BY);
  for(int i=0;i<nk;i++){ k[i](&a); if(!i){memcpy(ref,y,BY);continue;} double md=0; for(int64_t j=0;j<M;j++){double d=fabs((double)y[j]-ref[j]); if(!(d<=md)) md=d;} printf("%-12s max |diff| vs first %.3g\n",argv[5+i],md);}
  for(int i=0;i<nk;i++){ qsort(t[i],reps,8,cmp); printf("%-12s med %.3f ms  p25 %.3f  %.1f GB/s (A)\n",argv[5+i],t[i][reps/2]*1e3,t[i][reps/4]*1e3,BA/t[i][reps/2]/1e9);}
}
