#define _GNU_SOURCE
#include <stdio.h>
#include <time.h>
#include "../kernels/old_26.c"
#include "t4.h"
#include "g4j.h"
#include "g5.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
#define NB 2048
static float B[NB] __attribute__((aligned(64))), X0[NB] __attribute__((aligned(64)));
int main(int argc, char **argv){
  for(int i=0;i<NB;i++)X0[i]=(float)rand()/RAND_MAX*8-4;
  const char*nm[]={"old-block","b4_j4","v_j1","v_j2","v_j4"};
  int only = argc > 1 ? atoi(argv[1]) : -1, reps = argc > 2 ? atoi(argv[2]) : 300;
  for(int round=0;round<(only>=0?1:2);round++)
  for(int v=0;v<5;v++){ if(only>=0&&v!=only) continue; double best=1e9;
    for(int rep=0;rep<reps;rep++){ memcpy(B,X0,sizeof B); double t0=now();
      for(int it=0;it<20;it++) for(int c=0;c<NB;c+=64){ float*y=B+c;
        switch(v){case 0: kf_gelu_block(y,64);break; case 1: b4_j4(y,64,T_erf,INV_erf,AMAX_erf);break;
          case 2: v_j1(y,64,T_erf);break; case 3: v_j2(y,64,T_erf);break; case 4: v_j4(y,64,T_erf);break;}}
      double t=now()-t0; if(t<best)best=t;}
    printf("%-10s %.3f ns/float\n",nm[v],best*1e9/(20*NB));}
}
