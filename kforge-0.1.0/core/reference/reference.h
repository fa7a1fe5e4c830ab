/*
 * reference.h — the double-precision CPU reference of a problem's graph
 * (blocked, multi-threaded with pthreads), PyTorch semantics (FORMAT.md).
 */
#ifndef KF_REFERENCE_H
#define KF_REFERENCE_H

#include "util/error.h"
#include "problem/problem.h"

/*
 * Evaluates every value of the graph.  inputs[i] holds kf_shape_elems(
 * &r->shapes[i]) floats.  On success values[v] (for v in 0..n_values) is a
 * malloc'ed double array of the value's elements (inputs converted too);
 * the caller frees each entry with free().  n_threads <= 0 means "all
 * online CPUs".  Returns 0, or -1 with err set (out of memory; a problem
 * carrying only a C reference).
 */
int kf_reference_eval(const kf_resolved *r, const float *const *inputs,
                      double **values, int n_threads, kf_error *err);

/* Convenience: only the problem's outputs; outputs[o] malloc'ed doubles. */
int kf_reference_outputs(const kf_resolved *r, const float *const *inputs,
                         double **outputs, int n_threads, kf_error *err);

/* The blocked, threaded double GEMM behind matmul/linear, exposed for tests:
 * C[M,N] = A[M,K] * (trans_b ? B[N,K]^T : B[K,N]), row-major. */
void kf_ref_gemm(const double *A, const double *B, double *C, long M, long N, long K,
                 int trans_b, int n_threads);

#endif
