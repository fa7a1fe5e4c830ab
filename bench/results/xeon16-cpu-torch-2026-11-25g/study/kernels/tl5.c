// tile-loop microbenchmark 5: tl4's 2x2 tile loop on pre-packed bf16 panels (09's shape), with
// operand data (constant 1.0 or random), huge pages, software prefetch of the next tiles into L1,
// and the load order as variables.  ./tl5 THREADS DATA HUGE
#define _GNU_SOURCE
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <omp.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#define M 512
#define N 2048
#define K 2048
#define MR 32
#define NR 32
typedef struct { uint8_t palette, start_row, reserved[14]; uint16_t colsb[16]; uint8_t rows[16]; } cfg_t;
static void config(void){ cfg_t c; memset(&c,0,sizeof c); c.palette=1; for(int t=0;t<8;t++){c.colsb[t]=64;c.rows[t]=16;} _tile_loadconfig(&c);}
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static uint32_t *A, *B; static float *C; static float *CP[64]; static int PC, PF, PFD, LO;
static inline const uint32_t *apan(int ip,int p0,int kc){return A + ((size_t)p0*M + (size_t)ip*MR*kc)/2;}
static inline const uint32_t *bpan(int jp,int p0,int kc){return B + ((size_t)p0*N + (size_t)jp*NR*kc)/2;}
static inline void ukern(int kc,const uint32_t*a,const uint32_t*b,float*c,int ldc,int add){
  int nfull=kc/32; long sc=ldc*4;
  if(add){_tile_loadd(0,c,sc);_tile_loadd(1,c+16,sc);_tile_loadd(2,c+16*ldc,sc);_tile_loadd(3,c+16*ldc+16,sc);}
  else {_tile_zero(0);_tile_zero(1);_tile_zero(2);_tile_zero(3);}
  for(int bb=0;bb<nfull;bb++){
    const uint32_t*ab=a+bb*MR*16,*b2=b+bb*16*NR;
    if(PF&1 && bb+PFD<nfull){ const char*p=(const char*)(ab+MR*16*PFD); for(int l=0;l<2048;l+=64)_mm_prefetch(p+l,_MM_HINT_T0);}
    if(PF&2 && bb+PFD<nfull){ const char*p=(const char*)(b2+16*NR*PFD); for(int l=0;l<2048;l+=64)_mm_prefetch(p+l,_MM_HINT_T0);}
    if(LO){ _tile_loadd(4,ab,64); _tile_loadd(5,ab+16*16,64); _tile_loadd(6,b2,NR*4); _tile_loadd(7,b2+16,NR*4);
      _tile_dpbf16ps(0,4,6); _tile_dpbf16ps(1,4,7); _tile_dpbf16ps(2,5,6); _tile_dpbf16ps(3,5,7); }
    else { _tile_loadd(4,ab,64); _tile_loadd(6,b2,NR*4); _tile_dpbf16ps(0,4,6);
      _tile_loadd(7,b2+16,NR*4); _tile_dpbf16ps(1,4,7);
      _tile_loadd(5,ab+16*16,64); _tile_dpbf16ps(2,5,6); _tile_dpbf16ps(3,5,7); }
  }
  _tile_stored(0,c,sc);_tile_stored(1,c+16,sc);_tile_stored(2,c+16*ldc,sc);_tile_stored(3,c+16*ldc+16,sc);
}
static void run(int kc,int order,int gn,int nt){
  #pragma omp parallel num_threads(nt)
  { config(); int T=omp_get_num_threads(),t=omp_get_thread_num(); int np=N/NR, mp=M/MR;
    int c0=np*t/T,c1=np*(t+1)/T;
    for(int jq=c0;jq<c1;jq+=gn){int jq1=jq+gn<c1?jq+gn:c1;
      for(int p0=0;p0<K;p0+=kc){int first=p0==0;
#define CPTR(ip,jp) (PC ? CP[t] + ((size_t)(ip)*gn + ((jp)-jq))*MR*NR : C+(size_t)(ip)*MR*N+(jp)*NR)
#define LDC (PC ? NR : N)
        if(order==0){ for(int ip=0;ip<mp;ip++) for(int jp=jq;jp<jq1;jp++) ukern(kc,apan(ip,p0,kc),bpan(jp,p0,kc),CPTR(ip,jp),LDC,!first);}
        else { for(int jp=jq;jp<jq1;jp++) for(int ip=0;ip<mp;ip++) ukern(kc,apan(ip,p0,kc),bpan(jp,p0,kc),CPTR(ip,jp),LDC,!first);}
      }}
  }
}
static void *big(size_t n,int huge){ void*p; if(huge){ n=(n+(2u<<20)-1)&~((size_t)(2u<<20)-1); p=aligned_alloc(2u<<20,n); madvise(p,n,MADV_HUGEPAGE);} else p=aligned_alloc(4096,(n+4095)&~(size_t)4095); memset(p,0,n); return p;}
static int cmpd(const void*a,const void*b){double x=*(const double*)a,y=*(const double*)b;return x<y?-1:x>y;}
static uint16_t bf(float f){uint32_t u; memcpy(&u,&f,4); return (uint16_t)((u+0x8000u)>>16);}
int main(int argc,char**argv){
  syscall(SYS_arch_prctl,0x1023,18);
  int nt=atoi(argv[1]), rnd=atoi(argv[2]), huge=atoi(argv[3]);
  A=big((size_t)M*K*2,huge); B=big((size_t)K*N*2,huge); C=big((size_t)M*N*4,huge);
  uint16_t *a16=(uint16_t*)A,*b16=(uint16_t*)B; srand(7);
  for(size_t i=0;i<(size_t)M*K;i++)a16[i]=rnd?bf((float)rand()/RAND_MAX*2-1):0x3f80;
  for(size_t i=0;i<(size_t)K*N;i++)b16[i]=rnd?bf((float)rand()/RAND_MAX*2-1):0x3f80;
  for(int i=0;i<64;i++)CP[i]=big((size_t)MR*NR*4*64,huge);
  // kc order gn packedC PF PFD LO
  int cases[][7]={{2048,0,4,0,0,1,0},{2048,0,4,0,0,1,1},{2048,0,4,0,3,1,0},{2048,0,4,0,3,2,0},{2048,0,4,0,3,4,0},{2048,0,4,0,1,2,0},{2048,0,4,0,2,2,0},
                  {256,1,4,1,0,1,0},{256,1,4,1,0,1,1},{256,1,4,1,3,2,0},{256,1,4,1,1,2,0}};
  for(unsigned ci=0;ci<sizeof cases/sizeof cases[0];ci++){
    int kc=cases[ci][0],o=cases[ci][1],gn=cases[ci][2]; PC=cases[ci][3]; PF=cases[ci][4]; PFD=cases[ci][5]; LO=cases[ci][6]; double best=1e9, ts[31];
    for(int r=0;r<31;r++){double t0=now();run(kc,o,gn,nt);ts[r]=now()-t0; if(ts[r]<best)best=ts[r];}
    qsort(ts,31,sizeof(double),cmpd);
    printf("threads %2d data %s huge %d | kc %4d order %d packedC %d pf %d d %d lo %d: min %.3f ms med %.3f ms  %.2f TFLOP/s (min) %.2f (med)\n",nt,rnd?"random":"ones  ",huge,kc,o,PC,PF,PFD,LO,best*1e3,ts[15]*1e3,2.0*M*N*K/best/1e12,2.0*M*N*K/ts[15]/1e12);
    fflush(stdout);
  }
}
