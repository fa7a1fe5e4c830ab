// tile-loop microbenchmark: pre-packed bf16 A (M x K) and B (K x N) in the emitter's layouts
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <omp.h>
#include <unistd.h>
#include <sys/syscall.h>
#define M 512
#define N 2048
#define K 2048
#define MR 32
#define NR 32
typedef struct { uint8_t palette, start_row, reserved[14]; uint16_t colsb[16]; uint8_t rows[16]; } cfg_t;
static void config(void){ cfg_t c; memset(&c,0,sizeof c); c.palette=1; for(int t=0;t<8;t++){c.colsb[t]=64;c.rows[t]=16;} _tile_loadconfig(&c);}
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static uint32_t *A, *B; static float *C; static float *CP[64]; static int PC;
// A panel (ip, pb) at (p0*M + ip*MR*kc) uint32 units /2 ... use uint32 index: pair units
static inline const uint32_t *apan(int ip,int p0,int kc){return A + ((size_t)p0*M + (size_t)ip*MR*kc)/2;}
static inline const uint32_t *bpan(int jp,int p0,int kc){return B + ((size_t)p0*N + (size_t)jp*NR*kc)/2;}
static int PF, PFD;
static inline void ukern(int kc,const uint32_t*a,const uint32_t*b,float*c,int ldc,int add, const uint32_t *na){
  int nfull=kc/32; long sc=ldc*4;
  if(add){_tile_loadd(0,c,sc);_tile_loadd(1,c+16,sc);_tile_loadd(2,c+16*ldc,sc);_tile_loadd(3,c+16*ldc+16,sc);}
  else {_tile_zero(0);_tile_zero(1);_tile_zero(2);_tile_zero(3);}
  for(int bb=0;bb<nfull;bb++){
    const uint32_t*ab=a+bb*MR*16,*b2=b+bb*16*NR;
    if(PF&1){ const char*p=(const char*)(ab+MR*16*PFD); for(int l=0;l<2048;l+=64)_mm_prefetch(p+l,_MM_HINT_T0);}
    if(PF&2){ const char*p=(const char*)(b2+16*NR*PFD); for(int l=0;l<2048;l+=64)_mm_prefetch(p+l,_MM_HINT_T0);}
    _tile_loadd(4,ab,64); _tile_loadd(6,b2,NR*4); _tile_dpbf16ps(0,4,6);
    _tile_loadd(7,b2+16,NR*4); _tile_dpbf16ps(1,4,7);
    _tile_loadd(5,ab+16*16,64); _tile_dpbf16ps(2,5,6); _tile_dpbf16ps(3,5,7);
  }
  _tile_stored(0,c,sc);_tile_stored(1,c+16,sc);_tile_stored(2,c+16*ldc,sc);_tile_stored(3,c+16*ldc+16,sc);
}
// order 0: rows outer, jp inner (A reused); order 1: jp outer, rows inner (B reused)
static void run(int kc,int order,int gn,int nt,int tm){
  #pragma omp parallel num_threads(nt)
  { config(); int T=omp_get_num_threads(),t=omp_get_thread_num(); int np=N/NR, mp=M/MR;
    int tn=T/tm, cg=t%tn, rg=t/tn; if(rg>=tm) rg=tm-1;
    int c0=np*cg/tn,c1=np*(cg+1)/tn, r0=mp*rg/tm, r1=mp*(rg+1)/tm;
    for(int jq=c0;jq<c1;jq+=gn){int jq1=jq+gn<c1?jq+gn:c1;
      for(int p0=0;p0<K;p0+=kc){int first=p0==0;
#define CPTR(ip,jp) (PC ? CP[t] + ((size_t)(ip)*gn + ((jp)-jq))*MR*NR : C+(size_t)(ip)*MR*N+(jp)*NR)
#define LDC (PC ? NR : N)
        if(order==0){ for(int ip=r0;ip<r1;ip++) for(int jp=jq;jp<jq1;jp++) ukern(kc,apan(ip,p0,kc),bpan(jp,p0,kc),CPTR(ip,jp),LDC,!first,0);}
        else { for(int jp=jq;jp<jq1;jp++) for(int ip=r0;ip<r1;ip++) ukern(kc,apan(ip,p0,kc),bpan(jp,p0,kc),CPTR(ip,jp),LDC,!first,0);}
      }}
  }
}
static int cmpd(const void*a,const void*b){double x=*(const double*)a,y=*(const double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){
  syscall(SYS_arch_prctl,0x1023,18);
  int nt=atoi(argv[1]);
  A=aligned_alloc(64,(size_t)M*K*2); B=aligned_alloc(64,(size_t)K*N*2); C=aligned_alloc(64,(size_t)M*N*4);
  for(size_t i=0;i<(size_t)M*K/2;i++)A[i]=0x3f803f80; for(size_t i=0;i<(size_t)K*N/2;i++)B[i]=0x3f803f80;
  int cases[][5]={{2048,0,4,1,0},{2048,0,2,1,0},{2048,0,4,2,0},{2048,0,4,4,0},{2048,0,2,4,0},{2048,0,4,8,0},{512,1,4,1,1},{256,1,4,1,1},{256,1,8,1,1},{256,1,4,2,1},{256,1,4,4,1},{512,1,4,4,1},{256,0,4,4,1},{1024,1,4,4,1}};
  for(int i=0;i<64;i++)CP[i]=aligned_alloc(64,(size_t)M*64*NR*4);
  for(unsigned ci=0;ci<sizeof cases/sizeof cases[0];ci++){
    int kc=cases[ci][0],o=cases[ci][1],gn=cases[ci][2],tm=cases[ci][3]; PC=cases[ci][4]; PF=0; double best=1e9, ts[31];
    if(nt%tm) continue;
    for(int r=0;r<31;r++){double t0=now();run(kc,o,gn,nt,tm);ts[r]=now()-t0; if(ts[r]<best)best=ts[r];}
    qsort(ts,31,sizeof(double),cmpd);
    printf("threads %d kc %4d order %d gn %d tm %d packedC %d: min %.3f ms med %.3f ms  %.2f TFLOP/s (min)\n",nt,kc,o,gn,tm,PC,best*1e3,ts[15]*1e3,2.0*M*N*K/best/1e12);
  }
}
