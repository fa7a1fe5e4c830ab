/*
 * ref_internal.h — internals of the double-precision reference (not
 * installed).  The op kernels work on plain row-major double arrays with
 * explicit shapes, so they can be tested without a parsed problem.
 *
 * Conventions for every kernel below:
 *  - shapes are kf_shape (rank 0..KF_MAX_RANK); a scalar operand is a
 *    rank-0 shape pointing at one double;
 *  - the output array is preallocated by the caller with kf_ref_elems(out)
 *    elements and may alias an input only where a function says so;
 *  - n_threads <= 0 means "all online CPUs";
 *  - return 0, or -1 with a one-line message in err when the shapes do not
 *    fit the op (the resolver normally rejects those first).
 */
#ifndef KF_REF_INTERNAL_H
#define KF_REF_INTERNAL_H

#include <stdint.h>
#include "util/error.h"
#include "problem/problem.h"

/* ------------------------------------------------------------ threads */

/* The reference's ops split their work with util/parallel.h: kf_parallel
 * (ranges a pure function of the item and thread counts, so results never
 * depend on scheduling) and kf_parallel_threads. */
#include "util/parallel.h"

/* ------------------------------------------------------------- shapes */

int64_t kf_ref_elems(const kf_shape *s);          /* 1 for rank 0 */
/* Normalises a possibly negative dim against rank; -1 if out of range. */
int kf_ref_norm_dim(int dim, int rank);
/* "(2, 3, 4)" into buf, for messages. */
const char *kf_ref_shape_str(const kf_shape *s, char *buf, size_t len);

/* --------------------------------------------------------------- GEMM */

/* C[M,N] (row stride ldc) = A[M,K] (lda) * op(B), op(B) = B[K,N] (ldb)
 * or, with trans_b, B[N,K]^T (ldb).  Overwrites C.  The summation order
 * over K depends only on K, so any thread count gives bitwise-equal C. */
void kf_ref_gemm_ex(const double *A, long lda, const double *B, long ldb, int trans_b,
                    double *C, long ldc, long M, long N, long K, int n_threads);

/* ------------------------------------------------------------ the ops */

/* matmul: a (..., M, K) or (K); b (..., K, N) / (..., N, K) with
 * transpose_b, or (K); batch dims broadcast to out's.  PyTorch matmul. */
int kf_ref_matmul(const double *a, const kf_shape *sa, const double *b, const kf_shape *sb,
                  int transpose_b, double *y, const kf_shape *sy, int n_threads,
                  kf_error *err);

/* linear: x (..., K), W (N, K), bias (N) or NULL: y = x W^T + bias. */
int kf_ref_linear(const double *x, const kf_shape *sx, const double *w, const kf_shape *sw,
                  const double *bias, const kf_shape *sbias, double *y, const kf_shape *sy,
                  int n_threads, kf_error *err);

/* Binary elementwise op (add..pow) with PyTorch broadcasting of a and b
 * to sy.  y may alias a (or b) when that operand's shape equals sy. */
int kf_ref_binary(kf_op op, const double *a, const kf_shape *sa, const double *b,
                  const kf_shape *sb, double *y, const kf_shape *sy, int n_threads,
                  kf_error *err);

/* Unary elementwise op; attributes read from node (alpha, beta, lo, hi,
 * gelu_tanh).  y may alias x. */
int kf_ref_unary(kf_op op, const kf_node *node, const double *x, double *y, int64_t n,
                 int n_threads, kf_error *err);
/* The scalar function behind kf_ref_unary (for tests). */
double kf_ref_unary1(kf_op op, const kf_node *node, double x);

/* Reductions sum/mean/amax/amin/logsumexp over dim of x (shape sx); the
 * output holds the other dims in order (keepdim only changes the shape). */
int kf_ref_reduce(kf_op op, const double *x, const kf_shape *sx, int dim, double *y,
                  int n_threads, kf_error *err);

/* softmax / log_softmax over dim; y has x's shape. */
int kf_ref_softmax(const double *x, const kf_shape *sx, int dim, int log_form, double *y,
                   int n_threads, kf_error *err);

/* layer_norm (rms = 0) or rms_norm (rms = 1) over the last `ndims` dims;
 * w, b NULL or of that many elements (b ignored for rms). */
int kf_ref_layer_norm(const double *x, const kf_shape *sx, int ndims, const double *w,
                      const double *b, double eps, int rms, double *y, int n_threads,
                      kf_error *err);

/* group_norm: x (N, C, ...), `groups` groups of C/groups contiguous
 * channels, statistics over the group's channels and all trailing dims;
 * w, b NULL or (C).  Biased variance. */
int kf_ref_group_norm(const double *x, const kf_shape *sx, int groups, const double *w,
                      const double *b, double eps, double *y, int n_threads, kf_error *err);

/* instance_norm: x (N, C, L) or unbatched (C, L): each (n, c) row over L;
 * w, b NULL or (C). */
int kf_ref_instance_norm(const double *x, const kf_shape *sx, const double *w,
                         const double *b, double eps, double *y, int n_threads,
                         kf_error *err);

/* batch_norm: x (N, C) or (N, C, L).  training: per-channel batch mean and
 * biased variance over N (and L); otherwise rmean / rvar (both required).
 * w, b NULL or (C). */
int kf_ref_batch_norm(const double *x, const kf_shape *sx, const double *w, const double *b,
                      const double *rmean, const double *rvar, int training, double eps,
                      double *y, int n_threads, kf_error *err);

/* max_pool1d / avg_pool1d over the last dim (count_include_pad, floor
 * mode); sy's last dim must be (L + 2p - k) / s + 1. */
int kf_ref_pool1d(kf_op op, const double *x, const kf_shape *sx, int kernel_size,
                  int stride, int padding, double *y, const kf_shape *sy, int n_threads,
                  kf_error *err);

#endif
