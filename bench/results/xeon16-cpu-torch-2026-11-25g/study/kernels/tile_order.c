// single-thread AMX 2x2 loop: order of tile loads vs TDPs; data in L1 (fixed 8 KB) or streaming (panels)
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>
typedef struct { uint8_t palette, start_row, reserved[14]; uint16_t colsb[16]; uint8_t rows[16]; } cfg_t;
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
#define KC 2048
static uint16_t *A,*B; // A: 32 x KC in tl4 layout (per 32-k step: A0 1KB, A1 1KB); B: KC x 32 (per step: 16 pair-rows x 128 B)
__attribute__((noinline)) static void k_naive(int nb,const uint16_t*a,const uint16_t*b,float*c,int stride_a,int stride_b){
  _tile_zero(0);_tile_zero(1);_tile_zero(2);_tile_zero(3);
  for(int i=0;i<nb;i++){const uint16_t*ab=a+(size_t)i*stride_a,*bb=b+(size_t)i*stride_b;
    _tile_loadd(4,ab,64);_tile_loadd(6,bb,128);_tile_dpbf16ps(0,4,6);_tile_loadd(7,bb+32,128);_tile_dpbf16ps(1,4,7);
    _tile_loadd(5,ab+512,64);_tile_dpbf16ps(2,5,6);_tile_dpbf16ps(3,5,7);}
  _tile_stored(0,c,64);_tile_stored(1,c+256,64);_tile_stored(2,c+512,64);_tile_stored(3,c+768,64);}
__attribute__((noinline)) static void k_pipe(int nb,const uint16_t*a,const uint16_t*b,float*c,int stride_a,int stride_b){
  _tile_zero(0);_tile_zero(1);_tile_zero(2);_tile_zero(3);
  _tile_loadd(4,a,64);_tile_loadd(6,b,128);_tile_loadd(5,a+512,64);_tile_loadd(7,b+32,128);
  for(int i=0;i<nb;i++){const uint16_t*ab=a+(size_t)(i+1)*stride_a,*bb=b+(size_t)(i+1)*stride_b;
    if(i+1==nb){ab=a;bb=b;}
    _tile_dpbf16ps(0,4,6);_tile_dpbf16ps(1,4,7);_tile_loadd(4,ab,64);
    _tile_dpbf16ps(2,5,6);_tile_loadd(6,bb,128);
    _tile_dpbf16ps(3,5,7);_tile_loadd(5,ab+512,64);_tile_loadd(7,bb+32,128);}
  _tile_stored(0,c,64);_tile_stored(1,c+256,64);_tile_stored(2,c+512,64);_tile_stored(3,c+768,64);}
__attribute__((noinline)) static void k_reg(int nb,const uint16_t*a,const uint16_t*b,float*c,int sa,int sb){
  (void)sa;(void)sb;_tile_zero(0);_tile_zero(1);_tile_zero(2);_tile_zero(3);
  _tile_loadd(4,a,64);_tile_loadd(6,b,128);_tile_loadd(5,a+512,64);_tile_loadd(7,b+32,128);
  for(int i=0;i<nb;i++){_tile_dpbf16ps(0,4,6);_tile_dpbf16ps(1,4,7);_tile_dpbf16ps(2,5,6);_tile_dpbf16ps(3,5,7);}
  _tile_stored(0,c,64);_tile_stored(1,c+256,64);_tile_stored(2,c+512,64);_tile_stored(3,c+768,64);}
typedef void (*kf)(int,const uint16_t*,const uint16_t*,float*,int,int);
int main(int argc,char**argv){
  syscall(SYS_arch_prctl,0x1023,18);
  cfg_t cf; memset(&cf,0,sizeof cf); cf.palette=1; for(int t=0;t<8;t++){cf.colsb[t]=64;cf.rows[t]=16;} _tile_loadconfig(&cf);
  size_t na=(size_t)32*KC*64, nbb=(size_t)KC*32*64; // 64 panels worth
  A=aligned_alloc(4096,na*2); B=aligned_alloc(4096,nbb*2); float*C=aligned_alloc(64,4096*4);
  srand(1); for(size_t i=0;i<na;i++)A[i]=0x3f00|(rand()&0x7f); for(size_t i=0;i<nbb;i++)B[i]=0xbf00|(rand()&0x7f);
  const char*nm[]={"reg","naive","pipe"}; kf fs[]={k_reg,k_naive,k_pipe};
  for(int mode=0;mode<3;mode++){ // mode 0: L1 (strides 0), 1: panel (one 32xKC panel pair, L2), 2: stream over 16 panels
   for(int f=0;f<3;f++){ double best=1e9; long flops=0;
    for(int r=0;r<200;r++){ double t0=now(); long fl=0;
      int reps = mode==2?16:16;
      for(int p=0;p<reps;p++){ const uint16_t*a=A,*b=B; int sa=1024,sb=1024;
        if(mode==0){sa=0;sb=0;} else if(mode==2){a=A+(size_t)p*32*KC; b=B+(size_t)p*32*KC;}
        fs[f](KC/32,a,b,C,sa,sb); fl+=2L*32*32*KC;}
      double t=now()-t0; if(t<best){best=t;flops=fl;} }
    printf("%-6s data %s: %.2f TFLOP/s\n",nm[f],mode==0?"L1    ":mode==1?"panel ":"stream",flops/best/1e12);}}
}
