/*
 * cu_blas_plan.h — library launches of the CUDA plugin: a launch-plan
 * entry whose kernel is a reserved library name ("cublas:sgemm") is a call
 * of cuBLAS, not a kernel.  This part is pure (no CUDA header, no device):
 * it checks a library launch against the problem's buffer sizes and maps
 * its row-major arguments onto cuBLAS's column-major call, so it is tested
 * without a GPU (tests/unit/test_cuda_blas.c).  cu_blas.c runs the call.
 *
 * The names (a ':' keeps them from ever being a CUDA identifier):
 *
 *   cublas:sgemm              C = alpha op(A) op(B) + beta C, true FP32
 *                             (CUBLAS_DEFAULT_MATH: no TF32, PyTorch's
 *                             default for float32 matmuls)
 *   cublas:gemm_tf32          the same on TF32 tensor cores
 *                             (CUBLAS_TF32_TENSOR_OP_MATH)
 *   cublas:sgemm_batched      strided batched: batch GEMMs, operand t at
 *   cublas:gemm_tf32_batched  element offset t * stride of its buffer
 *
 * Arguments, in this order, all ROW-MAJOR (as the problem's tensors are):
 *
 *   A, B, C          buffers (input / output / scratch); C not an input
 *   M, N, K          int or long, >= 1: C is M x N, op(A) M x K, op(B) K x N
 *   trans_a, trans_b int or long, 0 or 1: A is stored K x M (trans_a) or
 *                    M x K; B is stored N x K (trans_b, a linear's weight)
 *                    or K x N
 *   lda, ldb, ldc    int or long: elements between consecutive rows as
 *                    stored, at least the stored row length
 *   alpha, beta      float
 *   batch            (batched names only) int or long >= 1
 *   stride_a, stride_b, stride_c   int or long >= 0, elements
 *
 * The launch's global/local sizes are not used (give global [1]).
 */
#ifndef KF_CU_BLAS_PLAN_H
#define KF_CU_BLAS_PLAN_H

#include <stdint.h>

#include "kforge-plugin.h"

/* The library name prefix; a kernel name containing ':' is a library launch. */
#define KFCU_BLAS_PREFIX "cublas:"

/* One checked library launch, as cuBLAS's column-major call: the row-major
 * C = op(A) op(B) is, read column-major, C^T = op(B)^T op(A)^T, so cuBLAS's
 * first operand is the plan's B and its second the plan's A, with m = N,
 * n = M, and each operand keeping its own transpose flag and leading
 * dimension. */
typedef struct kfcu_blas_call {
    int tf32;                  /* 1: TF32 tensor cores, 0: true FP32 */
    int batched;
    kf_arg a, b, c;            /* the plan's buffers (row-major A, B, C) */
    /* the column-major call: cublasSgemm(transa, transb, m, n, k, alpha,
       first, lda, second, ldb, beta, c, ldc) */
    int transa, transb;        /* 1: CUBLAS_OP_T */
    int m, n, k;
    int lda, ldb, ldc;
    int first_is_b;            /* always 1 (kept explicit for the tests) */
    float alpha, beta;
    int batch;
    long long stride_first, stride_second, stride_c;
} kfcu_blas_call;

/* 1 when `kernel` names a library launch (it contains ':'). */
int kfcu_blas_is_library(const char *kernel);

/* Checks launch `l` (index li, for messages) against the problem's buffers
 * and fills *out.  KF_OK, or KF_ERR_INVALID with *error a one-line message
 * that says what is wrong and what to do (unknown name, argument count or
 * kind, a size out of range, a buffer too small for M/N/K and its leading
 * dimension).  `problem` may have n_scratch buffers of scratch_bytes. */
kf_status kfcu_blas_plan(const kf_launch *l, int li, const kf_problem_view *problem, kfcu_blas_call *out,
                         char **error);

/* The list of library names, for messages and docs: "cublas:sgemm, ..." */
const char *kfcu_blas_names(void);

#endif
