/* one variant: its kernel, and its GELU block alone over L1 data (the arithmetic a streamed
   map does per 64 floats, without memory traffic) */
#include <stdio.h>
#include <omp.h>
#include KERNEL
#ifndef BLOCKFN
#define BLOCKFN kf_gelu_block
#endif
void gelu_only(int nt, const float *x, int64_t n)
{
    #pragma omp parallel num_threads(nt)
    {
        float src[64] __attribute__((aligned(64))), S[64] __attribute__((aligned(64)));
        for (int i = 0; i < 64; i++) src[i] = x[i + omp_get_thread_num() * 64];
        float acc = 0;
        for (int64_t b = 0; b < n / nt / 64; b++) {
            for (int i = 0; i < 64; i++) S[i] = src[i];
            __asm__ volatile("" ::: "memory");
            BLOCKFN(S, 64);
            __asm__ volatile("" ::: "memory");
            acc += S[b & 63];
        }
        if (acc == 12345.f) printf("x");
    }
}
