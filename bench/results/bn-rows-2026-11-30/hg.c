#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
#include <math.h>
#include "kforge-cpu.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static int cmp(const void*a,const void*b){double d=*(double*)a-*(double*)b;return d<0?-1:d>0;}
static void parse(char*s,int64_t*v,int*n){*n=0;while(*s){v[(*n)++]=strtoll(s,&s,10);if(*s==',')s++;}}
/* hg DIMS NT REPS INSIZES OUTSIZE a.so ... (sizes in floats, comma lists); 4 scratch of 64 MiB */
int main(int argc,char**argv){
  int64_t dims[8],ins[8],o; int nd,ni,t1; parse(argv[1],dims,&nd); int nt=atoi(argv[2]),reps=atoi(argv[3]); parse(argv[4],ins,&ni); parse(argv[5],&o,&t1);
  int nk=argc-6; void(*k[32])(const kf_cpu_args*);
  for(int i=0;i<nk;i++){void*h=dlopen(argv[6+i],RTLD_NOW|RTLD_LOCAL);if(!h){fprintf(stderr,"%s\n",dlerror());return 1;}k[i]=dlsym(h,"kf_kernel");}
  float*in[8]; for(int i=0;i<ni;i++){in[i]=aligned_alloc(64,ins[i]*4); for(int64_t j=0;j<ins[i];j++) in[i][j]=(float)rand()/RAND_MAX-0.5f;}
  float*out=aligned_alloc(64,o*4); float*sc[4]; for(int i=0;i<4;i++){sc[i]=aligned_alloc(64,64<<20); memset(sc[i],0,64<<20);}
  const float*cin[8]; for(int i=0;i<ni;i++)cin[i]=in[i]; float*outs[1]={out};
  kf_cpu_args a={cin,outs,sc,dims,ni,1,4,nd,nt,0};
  static double t[32][512]; float*ref=malloc(o*4);
  for(int i=0;i<nk;i++){ k[i](&a); if(i==0) memcpy(ref,out,o*4); else {double md=0; for(int64_t j=0;j<o;j++){double d=fabs((double)out[j]-ref[j]); if(!(d<=md)) md=d;} printf("%-22s max|diff| vs first %.3g\n",argv[6+i],md);} }
  for(int r=0;r<reps;r++) for(int i=0;i<nk;i++){ memset(out,0xff,o*4); double t0=now(); k[i](&a); t[i][r]=now()-t0; }
  for(int i=0;i<nk;i++){ qsort(t[i],reps,8,cmp); printf("%-22s med %.3f ms p25 %.3f min %.3f\n",argv[6+i],t[i][reps/2]*1e3,t[i][reps/4]*1e3,t[i][0]*1e3);}
}
