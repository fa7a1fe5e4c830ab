#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include "kforge-cpu.h"
int main(int argc,char**argv){ int64_t dims[2]={1024,16384}; int64_t N=1024*16384;
 float*x=aligned_alloc(64,N*4),*y=aligned_alloc(64,N*4); for(int64_t i=0;i<N;i++)x[i]=(float)rand()/RAND_MAX*8-4;
 const float*in[1]={x}; float*out[1]={y}; kf_cpu_args a={in,out,NULL,dims,1,1,0,2,1,0};
 void*h=dlopen(argv[1],RTLD_NOW); void(*k)(const kf_cpu_args*)=dlsym(h,"kf_kernel"); k(&a); printf("%g\n",y[12345]); }
