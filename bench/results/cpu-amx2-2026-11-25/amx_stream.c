#include <immintrin.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <time.h>
typedef struct { uint8_t palette, start_row, reserved[14]; uint16_t colsb[16]; uint8_t rows[16]; } cfg_t;
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
#ifndef PF
#define PF 0
#endif
int main(int argc,char**argv){
  syscall(SYS_arch_prctl, 0x1023, 18);
  cfg_t c; memset(&c,0,sizeof c); c.palette=1; for(int t=0;t<8;t++){c.colsb[t]=64;c.rows[t]=16;}
  _tile_loadconfig(&c);
  size_t sizes[] = {128<<10, 512<<10, 1<<20};
  for (int si=0; si<3; si++){
    size_t sz=sizes[si]; char *A=aligned_alloc(4096,sz+65536), *B=aligned_alloc(4096,sz+65536); memset(A,0,sz+65536); memset(B,0,sz+65536);
    long steps = sz/2048;
    long reps = 20000000/steps/4+1;
    double best=1e9;
    for (int r=0;r<5;r++){
    double t0=now();
    _tile_zero(0);_tile_zero(1);_tile_zero(2);_tile_zero(3);
    for (long rr=0; rr<reps; rr++)
      for (long s=0;s<steps;s++){ const char*a=A+s*2048,*b=B+s*2048;
#if PF
        for (int l = 0; l < 2048; l += 64 * PF) { _mm_prefetch(a + 4096 + l, _MM_HINT_T0); _mm_prefetch(b + 4096 + l, _MM_HINT_T0); }
#endif
        _tile_loadd(4,a,64); _tile_loadd(6,b,128); _tile_dpbf16ps(0,4,6);
        _tile_loadd(7,b+64,128); _tile_dpbf16ps(1,4,7);
        _tile_loadd(5,a+1024,64); _tile_dpbf16ps(2,5,6); _tile_dpbf16ps(3,5,7);}
    double t=now()-t0; if(t<best)best=t;}
    _tile_stored(0,A,64);
    printf("PF %d panel %6zu KiB each: %.1f GFLOP/s\n", PF, sz>>10, reps*steps*4.0*16*16*32*2/best/1e9);
  }
}
