/* kf_45_gemm_sigmoid_logsumexp.h — kforge export of problem '45_Gemm_Sigmoid_LogSumExp' (host-entry C, backend cpu-simd, preset 'small').
 * The kernel was verified at these sizes only: B=127 K=250 H=333 O=111.
 * Tensors are row-major float32.  Pass 4096-byte aligned buffers (aligned_alloc):
 * the kernel was verified with such buffers.  n_threads <= 0 means all cores. */
#ifndef kf_45_gemm_sigmoid_logsumexp_H
#define kf_45_gemm_sigmoid_logsumexp_H

#include <stdint.h>

#define kf_45_gemm_sigmoid_logsumexp_B 127
#define kf_45_gemm_sigmoid_logsumexp_K 250
#define kf_45_gemm_sigmoid_logsumexp_H 333
#define kf_45_gemm_sigmoid_logsumexp_O 111

#define kf_45_gemm_sigmoid_logsumexp_x_ELEMS 31750
#define kf_45_gemm_sigmoid_logsumexp_W1_ELEMS 83250
#define kf_45_gemm_sigmoid_logsumexp_b1_ELEMS 333
#define kf_45_gemm_sigmoid_logsumexp_W2_ELEMS 36963
#define kf_45_gemm_sigmoid_logsumexp_b2_ELEMS 111
#define kf_45_gemm_sigmoid_logsumexp_y_ELEMS 127

/* Returns 0, or -1 when scratch memory cannot be allocated. */
int kf_45_gemm_sigmoid_logsumexp(const float *x, const float *W1, const float *b1, const float *W2, const float *b2, float *y, int n_threads);

#endif
