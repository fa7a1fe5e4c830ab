/*
 * kforge-cpu.h — the calling convention of cpu-simd candidates.
 *
 * A candidate is C (gnu11) compiled by the cpu-simd backend with
 *     -std=gnu11 -O3 -march=native -fopenmp -fPIC -shared
 * into a shared object.  It defines one entry function (default name
 * kf_kernel; a candidate.json may name another with "entry"):
 *
 *     void kf_kernel(const kf_cpu_args *a);
 *
 * in[i]      problem input i (in the problem's "inputs" order), read-only,
 *            row-major float32, 4096-byte aligned; never write to it.
 * out[o]     problem output o (the problem's "outputs" order), row-major
 *            float32, 4096-byte aligned, pre-filled with NaN: write every
 *            element, and nothing past the end (guard bands are checked).
 * scratch[s] scratch buffer s declared in candidate.json (contents undefined).
 * dims[d]    value of problem dim d (the problem's "dims" order).
 * n_threads  how many threads to use (all cores unless KFORGE_THREADS says
 *            otherwise), e.g. `#pragma omp parallel num_threads(a->n_threads)`.
 *
 * The entry is called once per run; the whole call is timed.
 */
#ifndef KFORGE_CPU_H
#define KFORGE_CPU_H

#include <stdint.h>

typedef struct kf_cpu_args {
    const float *const *in;
    float *const *out;
    float *const *scratch;
    const int64_t *dims;
    int n_in, n_out, n_scratch, n_dims;
    int n_threads;
} kf_cpu_args;

typedef void (*kf_cpu_entry)(const kf_cpu_args *a);

#endif /* KFORGE_CPU_H */
