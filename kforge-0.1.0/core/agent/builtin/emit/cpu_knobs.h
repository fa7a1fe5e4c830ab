/* cpu_knobs.h — the knobs of the C + OpenMP emitter (cpu_space.c), as
 * indices into kf_bt_point.knob[]; shared by its search space and its
 * generator (builtin_cpu.c). */
#ifndef KF_BT_CPU_KNOBS_H
#define KF_BT_CPU_KNOBS_H

#include "agent/builtin/builtin.h"

enum {
    KC_MC,          /* cache blocking of the GEMM: rows */
    KC_NC,          /* ... columns */
    KC_KC,          /* ... depth */
    KC_MR,          /* micro-kernel tile rows */
    KC_NR,          /* micro-kernel tile columns (a multiple of the vector width) */
    KC_PACK,        /* 1: pack A and B panels; 0: plain loops */
    KC_THREADS,     /* 0 = a->n_threads, else min(threads, a->n_threads) */
    KC_LOOP_ORDER,  /* 0: row-block-major (A reuse), 1: column-block-major (B reuse) */
    KC_UNROLL,      /* k-loop unroll of the micro-kernel: 1, 2, 4 */
    KC_N
};

/* The GEMM anchor's candidate: cblas_sgemm per batch (emit.h, library_gemm). */
int kf_bt_cpu_library_gemm(const kf_resolved *r, const struct kf_bt_gemm *g, const char *backend,
                           kf_candidate **out, char **call, kf_error *err);

#endif
