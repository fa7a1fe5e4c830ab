/*
 * anchor.h — the GEMM anchor: a standalone library timing of a problem's
 * main GEMM, measured next to the op-by-op baseline in the same run.
 *
 * The op-by-op baseline is only as honest as its slowest part; on the CPU it
 * is dominated by its library GEMM.  The anchor is that GEMM alone (the
 * matmul/linear node with the most FLOPs, same M, N, K, batch and B layout,
 * no bias, no tail ops; an operand the problem broadcasts over the batch is
 * a full batch of its own here) as a problem of its own, so it is compiled,
 * verified against the double-precision reference and timed through the
 * same worker and the same profile protocol as every candidate.  For
 * cpu-simd it is one `cblas_sgemm` per batch through the library the
 * baseline links, with the same thread count; it is NOT a kernel for the
 * problem.  A baseline much slower than its anchor (ratio above
 * KF_ANCHOR_WARN_RATIO) is reported as a warning: either the tail ops are
 * really that costly, or the baseline was slowed (machine load, thread
 * oversubscription) and every speedup over it is inflated by as much.
 */
#ifndef KF_ANCHOR_H
#define KF_ANCHOR_H

#include <stddef.h>
#include <stdint.h>
#include "candidate/candidate.h"
#include "util/error.h"
#include "problem/problem.h"
#include "agent/builtin/emit/emit.h"

/* Baselines slower than this multiple of their GEMM anchor get a warning. */
#define KF_ANCHOR_WARN_RATIO 1.5

typedef struct kf_gemm_anchor {
    int64_t M, N, K, batch;   /* C_t[M,N] = A_t[M,K] * B_t (t < batch) */
    int trans_b;              /* B is (N,K), as nn.Linear's weight */
    double flops;             /* 2 * batch * M * N * K */
    char *problem_json;       /* the GEMM alone as a problem: preset "anchor",
                                 inputs a, b, output c (malloc'ed) */
    kf_candidate *cand;       /* the library call (owned) */
    char *how;                /* "cblas_sgemm alone (OpenBLAS ...), M=.. N=.. K=.., B transposed" */
} kf_gemm_anchor;

/* Builds the anchor of resolved problem r for `backend`, whose language's
 * emitter is em (may be NULL).  Returns 0 with *out filled; 1 when there is
 * none to measure (why says: no matmul in the problem, a language without
 * a library GEMM, OpenBLAS not found at configure time); -1 on an internal
 * error (err). */
int kf_gemm_anchor_make(const kf_resolved *r, const kf_bt_emitter *em, const char *backend, kf_gemm_anchor *out,
                        char *why, size_t why_len, kf_error *err);
void kf_gemm_anchor_free(kf_gemm_anchor *a);

/* The warning text for a baseline `ratio` times its anchor (malloc'ed), or
 * NULL when ratio <= KF_ANCHOR_WARN_RATIO. */
char *kf_anchor_warning(double baseline_s, double anchor_s);

#endif
