#include <stdio.h>
#include <time.h>
#include <immintrin.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
#define R12(I) I" %12,%0,%0\n\t" I" %12,%1,%1\n\t" I" %12,%2,%2\n\t" I" %12,%3,%3\n\t" I" %12,%4,%4\n\t" I" %12,%5,%5\n\t" I" %12,%6,%6\n\t" I" %12,%7,%7\n\t" I" %12,%8,%8\n\t" I" %12,%9,%9\n\t" I" %12,%10,%10\n\t" I" %12,%11,%11\n\t"
#define T(NAME, I) { double best=1e9; for(int rep=0;rep<5;rep++){ double t0=now(); for(long i=0;i<2000000;i++) \
   __asm__ volatile(R12(I) :"+x"(v[0]),"+x"(v[1]),"+x"(v[2]),"+x"(v[3]),"+x"(v[4]),"+x"(v[5]),"+x"(v[6]),"+x"(v[7]),"+x"(v[8]),"+x"(v[9]),"+x"(v[10]),"+x"(v[11]):"x"(b)); \
   double t=now()-t0; if(t<best)best=t;} printf("%-12s %.3f ns\n", NAME, best/2.4e7*1e9); }
int main(){ __m256 v[12]; __m256 b=_mm256_castsi256_ps(_mm256_setr_epi32(0,1,2,3,0,1,2,3)); for(int j=0;j<12;j++) v[j]=_mm256_set1_ps(j*0.001f);
 T("vfmadd231ps","vfmadd231ps") T("vmulps","vmulps") T("vaddps","vaddps") T("vminps","vminps") T("vandps","vandps")
 T("vpermilps","vpermilps") T("vpermps","vpermps") T("vcmpltps","vcmpltps") T("vpaddd","vpaddd") T("vpslld","vpsllvd") T("vpor","vpor")
 T("vfmadd231ps","vfmadd231ps")
 float s=0; for(int j=0;j<12;j++) s+=v[j][0]; printf("%g\n",s);}
