/* intdot.c: the register-only throughput of the AVX2 instructions an integer
 * GEMM would use, against FMA, one thread: the upper bound of each
 * precision's micro-kernel (no loads, independent accumulators).
 *   fp32  vfmadd231ps                         8 MACs an instruction
 *   i16   vpmaddwd + vpaddd                  16 MACs (two instructions)
 *   i8    vpmaddubsw + vpmaddwd(ones) + vpaddd 32 MACs (three)
 *   cc -O2 intdot.c -o intdot && ./intdot */
#include <stdio.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
#define N 100000000L
static double fma32(void){ double t=now(); __asm__ volatile("mov %0,%%rcx\n1:\n"
 "vfmadd231ps %%ymm14,%%ymm15,%%ymm0\n vfmadd231ps %%ymm14,%%ymm15,%%ymm1\n vfmadd231ps %%ymm14,%%ymm15,%%ymm2\n vfmadd231ps %%ymm14,%%ymm15,%%ymm3\n"
 "vfmadd231ps %%ymm14,%%ymm15,%%ymm4\n vfmadd231ps %%ymm14,%%ymm15,%%ymm5\n vfmadd231ps %%ymm14,%%ymm15,%%ymm6\n vfmadd231ps %%ymm14,%%ymm15,%%ymm7\n"
 "vfmadd231ps %%ymm14,%%ymm15,%%ymm8\n vfmadd231ps %%ymm14,%%ymm15,%%ymm9\n vfmadd231ps %%ymm14,%%ymm15,%%ymm10\n vfmadd231ps %%ymm14,%%ymm15,%%ymm11\n"
 "dec %%rcx\n jnz 1b\n"::"r"(N):"rcx","memory"); return N*12.0*8/(now()-t)/1e9; }
static double i16(void){ double t=now(); __asm__ volatile("mov %0,%%rcx\n1:\n"
 "vpmaddwd %%ymm14,%%ymm15,%%ymm0\n vpmaddwd %%ymm14,%%ymm15,%%ymm1\n vpmaddwd %%ymm14,%%ymm15,%%ymm2\n vpmaddwd %%ymm14,%%ymm15,%%ymm3\n"
 "vpmaddwd %%ymm14,%%ymm15,%%ymm4\n vpmaddwd %%ymm14,%%ymm15,%%ymm5\n"
 "vpaddd %%ymm0,%%ymm6,%%ymm6\n vpaddd %%ymm1,%%ymm7,%%ymm7\n vpaddd %%ymm2,%%ymm8,%%ymm8\n vpaddd %%ymm3,%%ymm9,%%ymm9\n vpaddd %%ymm4,%%ymm10,%%ymm10\n vpaddd %%ymm5,%%ymm11,%%ymm11\n"
 "dec %%rcx\n jnz 1b\n"::"r"(N):"rcx","memory"); return N*6.0*16/(now()-t)/1e9; }
static double i16only(void){ double t=now(); __asm__ volatile("mov %0,%%rcx\n1:\n"
 "vpmaddwd %%ymm14,%%ymm15,%%ymm0\n vpmaddwd %%ymm14,%%ymm15,%%ymm1\n vpmaddwd %%ymm14,%%ymm15,%%ymm2\n vpmaddwd %%ymm14,%%ymm15,%%ymm3\n"
 "vpmaddwd %%ymm14,%%ymm15,%%ymm4\n vpmaddwd %%ymm14,%%ymm15,%%ymm5\n vpmaddwd %%ymm14,%%ymm15,%%ymm6\n vpmaddwd %%ymm14,%%ymm15,%%ymm7\n"
 "dec %%rcx\n jnz 1b\n"::"r"(N):"rcx","memory"); return N*8.0*16/(now()-t)/1e9; }
static double i8(void){ double t=now(); __asm__ volatile("mov %0,%%rcx\n1:\n"
 "vpmaddubsw %%ymm14,%%ymm15,%%ymm0\n vpmaddubsw %%ymm14,%%ymm15,%%ymm1\n vpmaddubsw %%ymm14,%%ymm15,%%ymm2\n vpmaddubsw %%ymm14,%%ymm15,%%ymm3\n"
 "vpmaddwd %%ymm13,%%ymm0,%%ymm0\n vpmaddwd %%ymm13,%%ymm1,%%ymm1\n vpmaddwd %%ymm13,%%ymm2,%%ymm2\n vpmaddwd %%ymm13,%%ymm3,%%ymm3\n"
 "vpaddd %%ymm0,%%ymm6,%%ymm6\n vpaddd %%ymm1,%%ymm7,%%ymm7\n vpaddd %%ymm2,%%ymm8,%%ymm8\n vpaddd %%ymm3,%%ymm9,%%ymm9\n"
 "dec %%rcx\n jnz 1b\n"::"r"(N):"rcx","memory"); return N*4.0*32/(now()-t)/1e9; }
int main(void){
  for (int r = 0; r < 3; r++)
    printf("round %d: fp32 fma %.1f  i16 madd+add %.1f  i16 madd alone %.1f  i8 maddubs+madd+add %.1f  (G multiply-adds/s)\n",
           r+1, fma32(), i16(), i16only(), i8());
  return 0; }
