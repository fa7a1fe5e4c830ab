#define _GNU_SOURCE
#include <dlfcn.h>
#include <emmintrin.h>
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
static void ntcopy(void*d,const void*s,size_t n){__m128i*D=d;const __m128i*S=s;for(size_t i=0;i<n/16;i++)_mm_stream_si128(D+i,_mm_loadu_si128(S+i));_mm_sfence();}
static void ntfill(void*d,size_t n){__m128i v=_mm_set1_epi32(0x7fc5a5a5);__m128i*D=d;for(size_t i=0;i<n/16;i++)_mm_stream_si128(D+i,v);_mm_sfence();}
/* h5 D0,D1 NT REPS GAP_US k1.so k2.so ...: each kernel in turns, each timed run after a lead-in,
   then the input rewritten and the output poisoned, plain (memcpy/memset) and streamed, alternating */
int main(int argc,char**argv){
  int64_t dims[8]; int nd=0; char*s=argv[1]; while(*s){dims[nd++]=strtoll(s,&s,10); if(*s==',')s++;}
  int64_t N=1; for(int i=0;i<nd;i++) N*=dims[i];
  int nt=atoi(argv[2]),reps=atoi(argv[3]),gap=atoi(argv[4]); int nk=argc-5;
  size_t B=N*4; void(*k[32])(const kf_cpu_args*);
  for(int i=0;i<nk;i++){void*h=dlopen(argv[5+i],RTLD_NOW|RTLD_LOCAL);if(!h){fprintf(stderr,"%s\n",dlerror());return 1;}k[i]=dlsym(h,"kf_kernel");}
  size_t tot=3*4096+2*B+4096; int fd=memfd_create("x",0);if(ftruncate(fd,tot))return 1;
  char*map=mmap(0,tot,PROT_READ|PROT_WRITE,MAP_SHARED,fd,0);
  float*x=(float*)(map+4096),*y=(float*)(map+3*4096+B);
  float*priv=aligned_alloc(64,B); for(int64_t i=0;i<N;i++){priv[i]=(float)rand()/RAND_MAX*4-2;}
  memcpy(x,priv,B); memset(y,0,B);
  const float*in[1]={x}; float*out[1]={y};
  kf_cpu_args a={in,out,NULL,dims,1,1,0,nd,nt,0};
  static double t[32][2][512];
  struct timespec gs={0,gap*1000L};
  for(int r=0;r<reps;r++) for(int i=0;i<nk;i++) for(int m=0;m<2;m++){
    k[i](&a);
    if(m){ntcopy(x,priv,B);ntfill(y,B);} else {memcpy(x,priv,B);memset(y,0xff,B);}
    if(gap) nanosleep(&gs,0);
    double t0=now(); k[i](&a); t[i][m][r]=now()-t0; }
  for(int i=0;i<nk;i++) for(int m=0;m<2;m++){ qsort(t[i][m],reps,8,cmp); printf("%-22s %-6s med %.3f ms  p25 %.3f  min %.3f  %.1f GB/s\n",argv[5+i],m?"stream":"plain",t[i][m][reps/2]*1e3,t[i][m][reps/4]*1e3,t[i][m][0]*1e3,2.0*B/t[i][m][reps/2]/1e9);}
}
