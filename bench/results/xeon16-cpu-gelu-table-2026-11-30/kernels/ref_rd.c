#include <immintrin.h>
#include "kforge-cpu.h"
/* read-only reference: the sum of x with 4 independent accumulators per thread; n a multiple of 64 assumed near (tail ignored) */
void kf_kernel(const kf_cpu_args *a){ const float *x=a->in[0]; float *y=a->out[0]; int64_t n=1; for(int d=0;d<a->n_dims;d++) n*=a->dims[d];
 n &= ~(int64_t)63;
 float tot=0;
#pragma omp parallel num_threads(a->n_threads) reduction(+:tot)
{
 __m512 s0=_mm512_setzero_ps(),s1=s0,s2=s0,s3=s0;
#pragma omp for schedule(static)
 for(int64_t i=0;i<n;i+=64){ s0=_mm512_add_ps(s0,_mm512_loadu_ps(x+i)); s1=_mm512_add_ps(s1,_mm512_loadu_ps(x+i+16)); s2=_mm512_add_ps(s2,_mm512_loadu_ps(x+i+32)); s3=_mm512_add_ps(s3,_mm512_loadu_ps(x+i+48)); }
 tot += _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s0,s1),_mm512_add_ps(s2,s3)));
}
 y[0]=tot;
}
