/* uk.c: the emitted 6 x 16 micro-kernel (kf_ukernel) alone, A and B panels in L1 (one B panel) or
 * cycling through several: lib.h is the head of an emitted kernel up to "end of GEMM library"
 * (problem 40, the default point; `head -1109 kernel.c > lib.h` at 7e6bdfb).
 *   gcc -std=gnu11 -O3 -march=native -fopenmp uk.c -o uk -lm; ./uk KC PANELS REPS */
#include "lib.h"
#include <stdio.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  int64_t kc=argc>1?atoll(argv[1]):384; int npan=argc>2?atoi(argv[2]):1; int reps=argc>3?atoi(argv[3]):20000;
  float *ap=aligned_alloc(64,KF_MR*kc*4), *bp=aligned_alloc(64,(size_t)npan*KF_NR*kc*4+4096), *c=aligned_alloc(64,KF_MR*KF_NR*4*npan);
  for(int64_t i=0;i<KF_MR*kc;i++) ap[i]=1e-3f*(i%7); for(int64_t i=0;i<npan*KF_NR*kc;i++) bp[i]=1e-3f*(i%5);
  double best=1e9;
  for(int t=0;t<5;t++){ double t0=now(); for(int r=0;r<reps;r++) kf_ukernel(kc,ap,bp+(r%npan)*KF_NR*kc,c+(r%npan)*KF_MR*KF_NR,KF_NR,1); double d=now()-t0; if(d<best)best=d;}
  double fl=2.0*KF_MR*KF_NR*kc*reps; printf("mr %d nr %d kc %ld panels %d: %.1f GFLOP/s\n",KF_MR,KF_NR,(long)kc,npan,fl/best/1e9);
  return c[3]==12345;
}
