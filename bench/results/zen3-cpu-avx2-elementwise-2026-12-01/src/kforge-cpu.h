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
 * features   KF_CPU_FEAT_* bits: what the worker holds for the candidate.
 *            KF_CPU_FEAT_AMX_BF16: the CPU has AMX (amx_tile, amx_bf16) and
 *            the plugin obtained the permission for its tile state
 *            (arch_prctl ARCH_REQ_XCOMP_PERM, before the sandbox), so AMX
 *            instructions may run on every thread; without the bit they
 *            fault (SIGILL).  Load a tile configuration on each thread that
 *            uses the tiles (_tile_loadconfig); never call arch_prctl.
 *
 * The entry is called once per run; the whole call is timed.
 *
 * Optional, for the roofline: a candidate whose multiply-adds run on another
 * unit than the fp32 FMAs says so at file scope, e.g.
 *
 *     KF_CPU_USES(KF_CPU_UNIT_AMX_BF16);
 *
 * and its efficiency is reported against that unit's measured peak (`kforge
 * backends` lists them); the floor below which a time is refused as
 * impossible always takes the fastest unit, whatever a candidate says.
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
    uint32_t features;   /* KF_CPU_FEAT_* (appended: a candidate built against
                            an older header never reads it) */
} kf_cpu_args;

#define KF_CPU_FEAT_AMX_BF16 (1u << 0)

/* The units a candidate may name with KF_CPU_USES (the profile's counter
 * "compute_unit" reports which one the plugin read). */
#define KF_CPU_UNIT_FMA_FP32 0   /* fp32 FMAs (the default) */
#define KF_CPU_UNIT_DPBF16 1     /* AVX512_BF16 vdpbf16ps, fp32 accumulation */
#define KF_CPU_UNIT_AMX_BF16 2   /* AMX tdpbf16ps tiles, fp32 accumulation */
#define KF_CPU_UNIT_AMX_BF16X3 3 /* the same with 3xbf16 (high and low parts, three tile products) */
#define KF_CPU_UNIT_AMX_BF16X2 4 /* AMX with 2xbf16 (A in high and low parts, two tile products) */
#define KF_CPU_UNIT_I16 5        /* AVX2 vpmaddwd: int16 pairs, int32 sums */
#define KF_CPU_USES(unit) \
    __attribute__((visibility("default"), used)) const int kf_cpu_unit = (unit)

typedef void (*kf_cpu_entry)(const kf_cpu_args *a);

#endif /* KFORGE_CPU_H */
