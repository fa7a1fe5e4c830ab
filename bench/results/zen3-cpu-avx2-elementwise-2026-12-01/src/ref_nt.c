#include <immintrin.h>
#include "kforge-cpu.h"
void kf_kernel(const kf_cpu_args *a){ const float *x=a->in[0]; float *y=a->out[0]; int64_t n=1; for(int d=0;d<a->n_dims;d++) n*=a->dims[d];
#pragma omp parallel num_threads(a->n_threads)
{
#pragma omp for schedule(static)
 for(int64_t i=0;i<n;i+=8) _mm256_stream_ps(y+i,_mm256_max_ps(_mm256_loadu_ps(x+i),_mm256_setzero_ps()));
 _mm_sfence();
}}
