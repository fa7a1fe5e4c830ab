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
/* h2 D0,D1,.. NT REPS a.so b.so ... : one input, one output of the same size; memfd, fresh inputs, interleaved */
int main(int argc,char**argv){
  int64_t dims[8]; int nd=0; char*s=argv[1]; while(*s){dims[nd++]=strtoll(s,&s,10); if(*s==',')s++;}
  int64_t N=1; for(int i=0;i<nd;i++) N*=dims[i];
  int nt=atoi(argv[2]),reps=atoi(argv[3]); int nk=argc-4;
  size_t B=N*4; void(*k[32])(const kf_cpu_args*);
  for(int i=0;i<nk;i++){void*h=dlopen(argv[4+i],RTLD_NOW|RTLD_LOCAL);if(!h){fprintf(stderr,"%s\n",dlerror());return 1;}k[i]=dlsym(h,"kf_kernel");}
  size_t tot=3*4096+2*B+4096; int fd=memfd_create("x",0);ftruncate(fd,tot);
  char*map=mmap(0,tot,PROT_READ|PROT_WRITE,MAP_SHARED,fd,0);
  float*x=(float*)(map+4096),*y=(float*)(map+3*4096+B);
  float*priv=aligned_alloc(64,B); for(int64_t i=0;i<N;i++){priv[i]=(float)rand()/RAND_MAX;}
  memcpy(x,priv,B); memset(y,0,B);
  const float*in[1]={x}; float*out[1]={y};
  kf_cpu_args a={in,out,NULL,dims,1,1,0,nd,nt,0};
  static double t[32][4096];
  for(int r=0;r<reps;r++) for(int i=0;i<nk;i++){ k[i](&a); memcpy(x,priv,B); memset(y,0xff,B); double t0=now(); k[i](&a); t[i][r]=now()-t0; }
  float*ref=malloc(B); int have=0;
  for(int i=0;i<nk;i++){ if(strstr(argv[4+i],"ref_nt")) continue; memcpy(x,priv,B); memset(y,0xff,B); k[i](&a);
    if(!have){memcpy(ref,y,B);have=1;continue;} double md=0; for(int64_t j=0;j<N;j++){double d=fabs((double)y[j]-ref[j]); if(!(d<=md)) md=d;}
    printf("%-14s max |diff| vs first kernel %.3g\n",argv[4+i],md);}
  for(int i=0;i<nk;i++){ qsort(t[i],reps,8,cmp); printf("%-14s med %.3f ms  p25 %.3f  %.1f GB/s (x+y)\n",argv[4+i],t[i][reps/2]*1e3,t[i][reps/4]*1e3,2.0*B/t[i][reps/2]/1e9);}
}
